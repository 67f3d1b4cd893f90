/* test_abi.c - programs built against 0.2 keep working with this
 * libntmem.so.0: the functions whose structs changed in 0.3 keep their
 * 0.2 forms under the symbol version NTMEM_0 (src/entry/compat.c), which
 * write no byte past the 0.2 struct; new programs bind to NTMEM_0.3. */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <libgen.h>
#include <stdio.h>
#include <string.h>

#include "harness.h"
#include "ntmem.h"

/* The 0.2 structs' sizes on this ABI, from 0.2's ntmem.h. */
struct cpu_info_0_2 {
	const char *arch, *vendor, *brand;
	unsigned family, model, stepping;
	const char *features, *missing;
	struct ntmem_cache_sizes cpuid, sysfs, planned;
	const char *planned_how;
	unsigned online_cpus;
};
struct adapt_info_0_2 {
	int on;
	enum ntmem_origin origin;
	unsigned period, streamed, cached, cached_warm;
	int nedges;
	struct {
		size_t at, from, to;
		int lower, upper;
		unsigned long long trials, switches;
	} edge[NTMEM_LADDER_MAX - 1];
};

#define GUARD 64

/* The library's file beside the tool under test. */
static void *open_library(char *path, size_t len)
{
	char dir[4096];
	snprintf(dir, sizeof dir, "%s", t_ntmem());
	snprintf(path, len, "%s/libntmem.so.%d", dirname(dir), NTMEM_VERSION_MAJOR);
	return dlopen(path, RTLD_NOW | RTLD_LOCAL);
}

/* The 0.2 form fills exactly the 0.2 struct: the bytes after it stay. */
static void test_old_forms(void *lib)
{
	unsigned char buf[sizeof(struct adapt_info_0_2) + GUARD];
	int (*cpu_0_2)(void *) = (int (*)(void *))dlvsym(lib, "ntmem_cpu_info", "NTMEM_0");
	int (*adapt_0_2)(int, void *) =
		(int (*)(int, void *))dlvsym(lib, "ntmem_adapt_info", "NTMEM_0");
	if (!cpu_0_2 || !adapt_0_2) {
		t_fail("abi: the 0.2 forms are exported under NTMEM_0", "%s", dlerror());
		return;
	}
	memset(buf, 0xa5, sizeof buf);
	int rc = cpu_0_2(buf);
	struct cpu_info_0_2 c;
	memcpy(&c, buf, sizeof c);
	struct ntmem_cpu_info now;
	ntmem_cpu_info(&now);
	int untouched = 1;
	for (size_t i = sizeof c; i < sizeof c + GUARD; i++)
		untouched &= buf[i] == 0xa5;
	t_check(rc == 0 && untouched && c.family == now.family && c.model == now.model &&
			c.online_cpus == now.online_cpus && !strcmp(c.arch, now.arch),
		"abi: ntmem_cpu_info@NTMEM_0 fills 0.2's struct and nothing past it",
		"rc %d, untouched %d, family %u/%u", rc, untouched, c.family, now.family);

	memset(buf, 0xa5, sizeof buf);
	rc = adapt_0_2(NTMEM_CLASS_COPY, buf);
	struct adapt_info_0_2 a;
	memcpy(&a, buf, sizeof a);
	untouched = 1;
	for (size_t i = sizeof a; i < sizeof a + GUARD; i++)
		untouched &= buf[i] == 0xa5;
	t_check(rc == 0 && untouched && a.nedges == 0 && a.period > 0,
		"abi: ntmem_adapt_info@NTMEM_0 fills 0.2's struct: learning, no edges",
		"rc %d, untouched %d, edges %d, period %u", rc, untouched, a.nedges, a.period);
	t_check(adapt_0_2(NTMEM_CLASS_COPY, NULL) == -1 && cpu_0_2(NULL) == -1,
		"abi: the 0.2 forms refuse NULL as they did", "accepted");
}

/* A program built now gets NTMEM_0.3. */
static void test_new_forms(void *lib)
{
	void *dflt = dlsym(lib, "ntmem_adapt_info");
	void *v03 = dlvsym(lib, "ntmem_adapt_info", "NTMEM_0.3");
	void *old = dlvsym(lib, "ntmem_adapt_info", "NTMEM_0");
	t_check(dflt && dflt == v03 && old && old != v03,
		"abi: a program built now binds ntmem_adapt_info@@NTMEM_0.3",
		"default %p, 0.3 %p, 0.2 %p", dflt, v03, old);
	t_check(dlvsym(lib, "ntmem_copy", "NTMEM_0") != NULL,
		"abi: the other functions keep NTMEM_0", "%s", dlerror());
}

int main(void)
{
	char path[4200];
	void *lib = open_library(path, sizeof path);
	if (!lib) {
		t_skip("abi: the shared library's symbol versions", dlerror());
		return t_finish();
	}
	test_old_forms(lib);
	test_new_forms(lib);
	return t_finish();
}
