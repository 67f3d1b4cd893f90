/* test_dispatch.c - the run-time choice of variants on this CPU and on
 * CPUs we only have under emulation.
 *
 * NTMEM_EXPECT_CPU names the CPU model qemu-x86_64 emulates ("nehalem":
 * SSE2 only; "haswell": AVX2 and ERMS, no AVX-512); the test then asserts
 * exactly which variants are reported supported and which ones the
 * automatic path picks.  Natively it checks the registry against the
 * kernel's own view of the CPU in /proc/cpuinfo. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "harness.h"
#include "ntmem.h"

struct expectation {
	const char *cpu;
	const char *supported[2];     /* space-separated names, per op */
	const char *small_path;       /* the entry points' width */
	const char *loop;             /* the built-in ladders' first rung */
	const char *streaming;        /* the built-in ladders' top rung */
};

/* The built-in ladder is the entry points' own vector loop, libc, then
 * the best streaming variant by rank. */
static const struct expectation expected[] = {
	{"nehalem",
	 {"stosq vec_sse2 portable libc nt_sse2 movnti",
	  "vec_sse2 portable libc nt_sse2 movnti"},
	 "SSE2 stores", "vec_sse2", "nt_sse2"},
	{"haswell",
	 {"stosb stosq vec_sse2 vec_avx2 portable libc nt_sse2 nt_avx movnti",
	  "movsb vec_sse2 vec_avx2 portable libc nt_sse2 nt_avx movnti"},
	 "AVX2 stores", "vec_avx2", "nt_avx"},
};

static const char *const op_names[2] = {"set", "copy"};

static int listed(const char *list, const char *name)
{
	size_t n = strlen(name);
	for (const char *p = list; (p = strstr(p, name)); p += n)
		if ((p == list || p[-1] == ' ') && (p[n] == ' ' || p[n] == '\0'))
			return 1;
	return 0;
}

static const char *variant_name(int id)
{
	struct ntmem_variant_info v;
	return ntmem_variant_info(id, &v) ? "?" : v.name;
}

static void check_emulated(const struct expectation *e)
{
	for (int op = 0; op < 2; op++) {
		char name[128], why[256] = "";
		int ok = 1;
		for (int id = 0; id < ntmem_variant_count(); id++) {
			struct ntmem_variant_info v;
			ntmem_variant_info(id, &v);
			if ((int)v.op != op)
				continue;
			if (v.supported != listed(e->supported[op], v.name)) {
				ok = 0;
				snprintf(why, sizeof why, "%s reported %s", v.name,
					 v.supported ? "supported" : v.why_unsupported);
			}
		}
		snprintf(name, sizeof name, "%s: %s variants supported: %s", e->cpu,
			 op_names[op], e->supported[op]);
		t_check(ok, name, "%s", why);

		struct ntmem_ladder_info l;
		ntmem_ladder_info(op == 0 ? NTMEM_CLASS_SET_ZERO : NTMEM_CLASS_COPY, &l);
		snprintf(name, sizeof name, "%s: %s takes the %s small path, then "
			 "%s, libc and %s", e->cpu, op_names[op], e->small_path,
			 e->loop, e->streaming);
		t_check(!strcmp(l.small_path, e->small_path) && l.nrungs == 3 &&
			!strcmp(variant_name(l.rung[0].variant), e->loop) &&
			!strcmp(variant_name(l.rung[1].variant), "libc") &&
			!strcmp(variant_name(l.rung[2].variant), e->streaming) &&
			!strcmp(variant_name(l.streaming), e->streaming) &&
			l.rung[2].origin == NTMEM_ORIGIN_DEFAULT,
			name, "small path %s, %d rungs: %s, %s", l.small_path,
			l.nrungs, variant_name(l.rung[0].variant),
			variant_name(l.rung[l.nrungs - 1].variant));
	}
}

/* The kernel lists a flag only if the CPU has it and the kernel enabled
 * its state: the same test the library makes with CPUID and XGETBV. */
static void check_native(void)
{
	FILE *f = fopen("/proc/cpuinfo", "r");
	char line[8192], flags[8192] = "";
	while (f && fgets(line, sizeof line, f))
		if (!strncmp(line, "flags", 5)) {
			snprintf(flags, sizeof flags, "%s", strchr(line, ':') + 1);
			flags[strcspn(flags, "\n")] = ' ';
			break;
		}
	if (f)
		fclose(f);
	if (!flags[0]) {
		t_skip("native: registry agrees with /proc/cpuinfo",
		       "no flags line in /proc/cpuinfo (not x86 Linux?)");
		return;
	}
	static const struct {
		const char *requires, *kernel_flag;
	} map[] = {
		{"SSE2", "sse2"},   {"AVX", "avx"},        {"AVX2", "avx2"},
		{"AVX-512F", "avx512f"}, {"AVX-512BW", "avx512bw"},
		{"ERMS", "erms"},   {"FSRM", "fsrm"},      {"MOVDIR64B", "movdir64b"},
		{"CLZERO", "clzero"},
	};
	int ok = 1;
	char why[256] = "";
	for (int id = 0; id < ntmem_variant_count(); id++) {
		struct ntmem_variant_info v;
		ntmem_variant_info(id, &v);
		int want = 1;
		for (size_t i = 0; i < sizeof map / sizeof map[0]; i++) {
			char flag[32];
			snprintf(flag, sizeof flag, " %s ", map[i].kernel_flag);
			if (!strcmp(v.requires, map[i].requires))
				want = strstr(flags, flag) != NULL;
		}
		if (v.supported != want) {
			ok = 0;
			snprintf(why, sizeof why, "%s (needs %s): library says %d, kernel %d",
				 v.name, v.requires, v.supported, want);
		}
	}
	t_check(ok, "native: every variant's support agrees with /proc/cpuinfo", "%s", why);

	for (int cls = 0; cls < 3; cls++) {
		struct ntmem_ladder_info l;
		ntmem_ladder_info(cls, &l);
		int good = l.nrungs >= 1;
		for (int i = 0; i < l.nrungs; i++) {
			struct ntmem_variant_info v;
			good &= !ntmem_variant_info(l.rung[i].variant, &v) &&
				v.supported && (int)v.op == (cls == 2);
		}
		struct ntmem_variant_info s;
		ntmem_variant_info(l.streaming, &s);
		char name[96];
		snprintf(name, sizeof name, "native: ladder %d has only supported "
			 "rungs, and streams with %s", cls, s.name);
		t_check(good && s.supported && s.streaming, name, "%d rungs", l.nrungs);
	}
}

int main(void)
{
	/* tests/run.sh runs every test with NTMEM_PROFILE=none and no
	 * NTMEM_TUNABLES: the library reads them as it is loaded. */
	const char *cpu = getenv("NTMEM_EXPECT_CPU");
	if (!cpu || !*cpu) {
		check_native();
		return t_finish();
	}
	for (size_t i = 0; i < sizeof expected / sizeof expected[0]; i++)
		if (!strcmp(cpu, expected[i].cpu)) {
			check_emulated(&expected[i]);
			return t_finish();
		}
	t_fail("NTMEM_EXPECT_CPU", "unknown CPU model '%s'", cpu);
	return t_finish();
}
