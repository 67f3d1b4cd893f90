/* harness.c - counting, reporting and guarded buffers for the tests. */
#include "harness.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/mman.h>
#include <unistd.h>

static int passed, failed, skipped;

void t_pass(const char *name)
{
	passed++;
	printf("pass  %s\n", name);
}

static void vfail(const char *name, const char *fmt, va_list ap)
{
	failed++;
	printf("FAIL  %s: ", name);
	vprintf(fmt, ap);
	printf("\n");
	fflush(stdout);
}

void t_fail(const char *name, const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	vfail(name, fmt, ap);
	va_end(ap);
}

void t_check(int ok, const char *name, const char *fmt, ...)
{
	if (ok) {
		t_pass(name);
		return;
	}
	va_list ap;
	va_start(ap, fmt);
	vfail(name, fmt, ap);
	va_end(ap);
}

void t_skip(const char *name, const char *why)
{
	skipped++;
	printf("skip  %s: %s\n", name, why);
}

int t_finish(void)
{
	printf("%d passed, %d failed, %d skipped\n", passed, failed, skipped);
	return failed ? 1 : 0;
}

int t_quick(void)
{
	const char *q = getenv("NTMEM_TEST_QUICK");
	return q && *q && *q != '0';
}

uint64_t t_rand(void)
{
	static uint64_t state = 0x9e3779b97f4a7c15ull;
	/* splitmix64 */
	uint64_t z = (state += 0x9e3779b97f4a7c15ull);
	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
	z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
	return z ^ (z >> 31);
}

int t_guarded_alloc(struct guarded *g, size_t cap)
{
	size_t page = (size_t)sysconf(_SC_PAGESIZE);
	cap = (cap + page - 1) / page * page;
	g->map_len = cap + 2 * page;
	g->map = mmap(NULL, g->map_len, PROT_NONE,
		      MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
	if (g->map == MAP_FAILED)
		return -1;
	g->data = (unsigned char *)g->map + page;
	g->cap = cap;
	if (mprotect(g->data, cap, PROT_READ | PROT_WRITE)) {
		munmap(g->map, g->map_len);
		return -1;
	}
	return 0;
}

void t_guarded_free(struct guarded *g)
{
	munmap(g->map, g->map_len);
}
