/*
 * recycle.c - a program that recycles a large buffer, for the shim's
 * acceptance figure (tests/bench_preload.sh): it zeroes 256 MiB with a
 * plain memset, then reads a 1 MiB hot table.  Under the shim the memset
 * streams, so the table should still be in the cache afterwards.
 *
 *   recycle [ROUNDS]   prints, as medians over the rounds:
 *     RESULT memset_ms=.. warm_us=.. after_us=.. slowdown=.. total_ms=..
 *   warm_us: one pass over the table while it is hot; after_us: the
 *   first pass right after the memset; total_ms: memset and that pass.
 *
 * The table is a pointer chase in random order, one access per 64-byte
 * line.  Table and buffer are on transparent huge pages where the kernel
 * gives them, so that TLB misses do not pose as cache misses, and the
 * program stays on one CPU (as "ntmem pollution" does).
 */
#include "helper.h"

#include <sched.h>
#include <string.h>
#include <sys/mman.h>
#include <time.h>

#define BUFFER (256u << 20)
#define TABLE (1u << 20)
#define LINES (TABLE / 64)
#define MAX_ROUNDS 64

static double now_us(void)
{
	struct timespec t;
	clock_gettime(CLOCK_MONOTONIC, &t);
	return (double)t.tv_sec * 1e6 + (double)t.tv_nsec / 1e3;
}

/* A cycle through every line of the table in a shuffled order. */
static size_t *make_table(void)
{
	void *p = mmap(NULL, 2 * TABLE + (2u << 20), PROT_READ | PROT_WRITE,
		       MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (p == MAP_FAILED)
		return NULL;
	size_t *t = (size_t *)(((uintptr_t)p + (2u << 20) - 1) & ~(uintptr_t)((2u << 20) - 1));
	madvise(t, 2u << 20, MADV_HUGEPAGE);
	static size_t order[LINES];
	for (size_t i = 0; i < LINES; i++)
		order[i] = i;
	uint64_t x = 88172645463325252ull;
	for (size_t i = LINES - 1; i > 0; i--) {
		x ^= x << 13, x ^= x >> 7, x ^= x << 17;
		size_t j = (size_t)(x % (i + 1)), tmp = order[i];
		order[i] = order[j];
		order[j] = tmp;
	}
	for (size_t i = 0; i < LINES; i++)
		t[order[i] * 8] = order[(i + 1) % LINES] * 8;
	return t;
}

static volatile size_t sink;

static double chase_us(const size_t *t)
{
	double t0 = now_us();
	size_t at = 0;
	for (size_t i = 0; i < LINES; i++)
		at = t[at];
	sink = at;
	return now_us() - t0;
}

static int by_value(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;
	return (x > y) - (x < y);
}

static double median(double *v, int n)
{
	qsort(v, (size_t)n, sizeof *v, by_value);
	return n % 2 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2;
}

int main(int argc, char **argv)
{
	int rounds = argc > 1 ? atoi(argv[1]) : 7;
	if (rounds < 1 || rounds > MAX_ROUNDS)
		return 2;
	/* On the CPU it starts on: a migration would leave the table in
	 * another core's L2 and pose as pollution. */
	cpu_set_t one;
	CPU_ZERO(&one);
	CPU_SET(sched_getcpu() >= 0 ? sched_getcpu() : 0, &one);
	if (sched_setaffinity(0, sizeof one, &one))
		fprintf(stderr, "recycle: not pinned to a CPU\n");
	unsigned char *map = mmap(NULL, BUFFER + (2u << 20), PROT_READ | PROT_WRITE,
				  MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	size_t *table = make_table();
	if (map == MAP_FAILED || !table) {
		fprintf(stderr, "recycle: out of memory\n");
		return 1;
	}
	unsigned char *buf = (unsigned char *)(((uintptr_t)map + (2u << 20) - 1) &
					       ~(uintptr_t)((2u << 20) - 1));
	madvise(buf, BUFFER, MADV_HUGEPAGE);  /* like the table: no TLB storm */
	memset(buf, 1, BUFFER);  /* untimed: every page present, warmed */
	double set_ms[MAX_ROUNDS], warm[MAX_ROUNDS], after[MAX_ROUNDS],
		slow[MAX_ROUNDS], total[MAX_ROUNDS];
	for (int r = 0; r < rounds; r++) {
		chase_us(table);
		warm[r] = chase_us(table);
		double t0 = now_us();
		memset(buf, 0, BUFFER);
		double t1 = now_us();
		after[r] = chase_us(table);
		set_ms[r] = (t1 - t0) / 1e3;
		total[r] = (now_us() - t0) / 1e3;
		slow[r] = after[r] / warm[r];
	}
	printf("RESULT memset_ms=%.2f warm_us=%.1f after_us=%.1f slowdown=%.2f "
	       "total_ms=%.2f\n", median(set_ms, rounds), median(warm, rounds),
	       median(after, rounds), median(slow, rounds), median(total, rounds));
	return 0;
}
