/* test_dispatch.c - the run-time choice of variants on this CPU and on
 * CPUs we only have under emulation.
 *
 * NTMEM_EXPECT_CPU names the CPU model qemu emulates: for qemu-x86_64
 * "nehalem" (SSE2 only) and "haswell" (AVX2 and ERMS, no AVX-512); for
 * qemu-aarch64 "cortex-a57" (64-byte DC ZVA blocks and lines), "a64fx"
 * (256-byte blocks and lines) and "max" (512-byte blocks, 32-byte
 * lines); elsewhere "portable" (qemu-riscv64: portable C only).  The test then
 * asserts exactly which variants are reported supported and which ones
 * the automatic path picks.  Natively it checks the registry against the
 * kernel's own view of the CPU in /proc/cpuinfo. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "dispatch/cpu.h"
#include "dispatch/profile.h"
#include "dispatch/width.h"
#include "entry/entry.h"
#include "harness.h"
#include "ntmem.h"

struct expectation {
	const char *cpu;
	const char *supported[2];     /* space-separated names, per op */
	const char *small_path;       /* the entry points' width */
	const char *loop;             /* the built-in ladders' first rung;
					 NULL: the entries have no loop */
	const char *streaming[2];     /* per op, the top rung for zeros and
					 for copies; NULL: nothing streams */
	const char *features;         /* ntmem_cpu_info's; NULL: not checked */
	unsigned zva_block, dline;    /* AArch64: DCZID_EL0's block and
					 CTR_EL0's data line, in bytes */
};

/* The built-in ladder is the entry points' own vector loop where they
 * have one (x86-64), libc, then the best streaming variant by rank;
 * qemu's x86-64 CPUs are Intel's, whose rule copies four pages at once. */
static const struct expectation expected[] = {
#if defined(__x86_64__)
	{"nehalem",
	 {"stosq vec_sse2 portable libc nt_sse2 movnti",
	  "vec_sse2 portable libc nt_sse2 nt_sse2_pages nt_sse2_ahead movnti"},
	 "SSE2 stores", "vec_sse2", {"nt_sse2", "nt_sse2_pages"}, NULL, 0, 0},
	{"haswell",
	 {"stosb stosq vec_sse2 vec_avx2 portable libc nt_sse2 nt_avx movnti",
	  "movsb vec_sse2 vec_avx2 portable libc nt_sse2 nt_sse2_pages nt_sse2_ahead "
	  "nt_avx nt_avx_pages nt_avx_ahead movnti"},
	 "AVX2 stores", "vec_avx2", {"nt_avx", "nt_avx_pages"}, NULL, 0, 0},
#elif defined(__aarch64__)
#define ARM_SUPPORTED {"portable libc neon stnp dc_zva", "portable libc neon stnp"}
	{"cortex-a57", ARM_SUPPORTED, "NEON stores", NULL, {"dc_zva", "stnp"},
	 "ASIMD DC-ZVA", 64, 64},
	{"a64fx", ARM_SUPPORTED, "NEON stores", NULL, {"dc_zva", "stnp"},
	 "ASIMD DC-ZVA", 256, 256},
	{"max", ARM_SUPPORTED, "NEON stores", NULL, {"dc_zva", "stnp"},
	 "ASIMD DC-ZVA", 512, 32},
#else
	{"portable", {"portable libc", "portable libc"}, "word stores", NULL,
	 {NULL, NULL}, "", 0, 0},
#endif
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

/* The built-in ladder of op's first class (zeros, copies). */
static void check_ladder(const struct expectation *e, int op)
{
	const char *want[3];
	int n = 0;
	if (e->loop)
		want[n++] = e->loop;
	want[n++] = "libc";
	if (e->streaming[op])
		want[n++] = e->streaming[op];
	const char *nontemporal = e->streaming[op] ? e->streaming[op] : "libc";

	struct ntmem_ladder_info l;
	ntmem_ladder_info(op == 0 ? NTMEM_CLASS_SET_ZERO : NTMEM_CLASS_COPY, &l);
	int ok = !strcmp(l.small_path, e->small_path) && l.nrungs == n &&
		 !strcmp(variant_name(l.streaming), nontemporal) &&
		 l.rung[l.nrungs - 1].origin == NTMEM_ORIGIN_DEFAULT;
	for (int i = 0; ok && i < n; i++)
		ok = !strcmp(variant_name(l.rung[i].variant), want[i]);

	char name[160];
	snprintf(name, sizeof name, "%s: %s takes the %s small path, then %s%s%s%s%s",
		 e->cpu, op == 0 ? "set of zeros" : "copy", e->small_path, want[0],
		 n > 1 ? ", " : "", n > 1 ? want[1] : "", n > 2 ? ", " : "",
		 n > 2 ? want[2] : "");
	t_check(ok, name, "small path %s, %d rungs: %s ... %s, NONTEMPORAL %s",
		l.small_path, l.nrungs, variant_name(l.rung[0].variant),
		variant_name(l.rung[l.nrungs - 1].variant),
		variant_name(l.streaming));
}

/* The features named (none of another architecture), and on AArch64
 * the sizes read from DCZID_EL0 and CTR_EL0. */
static void check_cpu(const struct expectation *e)
{
	char name[160];
	struct ntmem_cpu_info info;
	ntmem_cpu_info(&info);
	if (e->features) {
		snprintf(name, sizeof name, "%s: features '%s', none missing",
			 e->cpu, e->features);
		t_check(!strcmp(info.features, e->features) && !info.missing[0],
			name, "features '%s', missing '%s'", info.features,
			info.missing);
	}
	if (e->zva_block) {
		const struct cpu *cpu = ntm_cpu();
		snprintf(name, sizeof name, "%s: DC ZVA block %u B (DCZID_EL0), data "
			 "line %u B (CTR_EL0)", e->cpu, e->zva_block, e->dline);
		t_check(cpu->zva_block == e->zva_block && cpu->dline == e->dline,
			name, "block %u, line %u", cpu->zva_block, cpu->dline);
	}
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

		check_ladder(e, op);
	}
	check_cpu(e);
}

/* The kernel lists a flag only if the CPU has it and the kernel enabled
 * its state: the same test the library makes with CPUID and XGETBV. */
static void check_native(void)
{
	FILE *f = fopen("/proc/cpuinfo", "r");
	char line[8192], flags[8192] = "";
	while (f && fgets(line, sizeof line, f))
		if (!strncmp(line, "flags", 5) || !strncmp(line, "Features", 8)) {
			snprintf(flags, sizeof flags, "%s", strchr(line, ':') + 1);
			flags[strcspn(flags, "\n")] = ' ';
			break;
		}
	if (f)
		fclose(f);
	if (!flags[0]) {
		t_skip("native: registry agrees with /proc/cpuinfo",
		       "no flags or Features line in /proc/cpuinfo");
		return;
	}
	const char *tunables = getenv("GLIBC_TUNABLES");
	if (tunables && strstr(tunables, "hwcaps")) {
		t_skip("native: registry agrees with /proc/cpuinfo",
		       "GLIBC_TUNABLES sets glibc.cpu.hwcaps, which turns features off");
		return;
	}
	static const struct {
		const char *feature, *kernel_flag;
	} map[] = {
		{"SSE2", "sse2"},   {"AVX", "avx"},        {"AVX2", "avx2"},
		{"AVX-512F", "avx512f"}, {"AVX-512BW", "avx512bw"},
		{"AVX-512VL", "avx512vl"},
		{"ERMS", "erms"},   {"FSRM", "fsrm"},      {"MOVDIR64B", "movdir64b"},
		{"CLZERO", "clzero"},
		{"ASIMD", "asimd"},
	};
	int ok = 1;
	char why[256] = "";
	for (int id = 0; id < ntmem_variant_count(); id++) {
		struct ntmem_variant_info v;
		ntmem_variant_info(id, &v);
		/* requires lists features separated by spaces: the kernel
		 * must name every one of them. */
		int want = 1;
		char req[128];
		snprintf(req, sizeof req, "%s", v.requires);
		for (char *save, *f = strtok_r(req, " ", &save); f;
		     f = strtok_r(NULL, " ", &save))
			for (size_t i = 0; i < sizeof map / sizeof map[0]; i++) {
				char flag[32];
				snprintf(flag, sizeof flag, " %s ", map[i].kernel_flag);
				if (!strcmp(f, map[i].feature))
					want &= strstr(flags, flag) != NULL;
			}
		if (v.supported != want) {
			ok = 0;
			snprintf(why, sizeof why, "%s (needs %s): library says %d, kernel %d",
				 v.name, v.requires, v.supported, want);
		}
	}
	t_check(ok, "native: every variant's support agrees with /proc/cpuinfo", "%s", why);

	/* An architecture with no streaming variant (only the portable ones)
	 * falls back on its cached one for NTMEM_F_NONTEMPORAL. */
	int any_streaming = 0;
	for (int id = 0; id < ntmem_variant_count(); id++) {
		struct ntmem_variant_info v;
		ntmem_variant_info(id, &v);
		any_streaming |= v.streaming && v.supported;
	}
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
		t_check(good && s.supported && (s.streaming || !any_streaming), name,
			"%d rungs", l.nrungs);
	}
}

/* "ntmem info" lists every variant under its operation, with the role
 * and support the library reports ("  NAME ROLE yes|no ..."). */
static void check_info_lists_variants(void)
{
	char cmd[512], *out = NULL;
	snprintf(cmd, sizeof cmd, "%s info", t_ntmem());
	int status = t_run(cmd, &out, NULL);
	char *copy_part = out ? strstr(out, "\nVariants: memcpy\n") : NULL;
	int ok = status == 0 && out && strstr(out, "\nVariants: memset\n") && copy_part;
	char why[160] = "";
	for (int id = 0; ok && id < ntmem_variant_count(); id++) {
		struct ntmem_variant_info v;
		ntmem_variant_info(id, &v);
		char *from = v.op == NTMEM_OP_SET ? out : copy_part;
		char *to = v.op == NTMEM_OP_SET ? copy_part : NULL;
		int found = 0;
		for (char *line = from; line && (!to || line < to) && !found;
		     line = strchr(line + 1, '\n')) {
			char name[64], role[32], yes[8];
			found = sscanf(line, " %63s %31s %7s", name, role, yes) == 3 &&
				!strcmp(name, v.name) &&
				!strcmp(role, ntmem_role_name(v.role)) &&
				!strcmp(yes, v.supported ? "yes" : "no");
		}
		if (!found) {
			ok = 0;
			snprintf(why, sizeof why, "no line '%s %s %s'", v.name,
				 ntmem_role_name(v.role), v.supported ? "yes" : "no");
		}
	}
	t_check(ok, "ntmem info lists every variant with its support",
		"status %d: %s", status, why);
	free(out);
}

/* ntmem info: the caches' third column is "used", and the sentence
 * saying where the used caches came from is printed once, not again in
 * the built-in rule's origin (for CPUs not recorded, twice more). */
static void check_info_plan_once(void)
{
	struct ntmem_cpu_info cpu;
	ntmem_cpu_info(&cpu);
	char cmd[512], *out = NULL;
	snprintf(cmd, sizeof cmd, "%s info", t_ntmem());
	int status = t_run(cmd, &out, NULL);
	int times = 0;
	for (const char *p = out; p && *cpu.planned_how && (p = strstr(p, cpu.planned_how));
	     p++)
		times++;
	t_check(status == 0 && out && strstr(out, "sysfs        used\n") &&
		strstr(out, "\n  used         ") && !strstr(out, "planned") && times == 1,
		"ntmem info: the caches used, and how, said once",
		"status %d, '%s' %d times", status, cpu.planned_how, times);
	free(out);
}

/* Brand strings come padded; what is printed never is. */
static void check_brand_trimmed(void)
{
	static const char *const cases[][2] = {
		{"Oxide Virtual Turin-like Processor             ",
		 "Oxide Virtual Turin-like Processor"},
		{"        Intel(R) Xeon(R) CPU E5-2680 0 @ 2.70GHz",
		 "Intel(R) Xeon(R) CPU E5-2680 0 @ 2.70GHz"},
		{" \t AMD EPYC \n", "AMD EPYC"}, {"   ", ""}, {"", ""},
	};
	int ok = 1;
	char why[160] = "";
	for (size_t i = 0; ok && i < sizeof cases / sizeof cases[0]; i++) {
		char b[64];
		snprintf(b, sizeof b, "%s", cases[i][0]);
		ntm_cpu_trim_brand(b);
		ok = !strcmp(b, cases[i][1]);
		if (!ok)
			snprintf(why, sizeof why, "'%s' became '%s'", cases[i][0], b);
	}
	const char *live = ntm_cpu_described()->brand;
	size_t n = strlen(live);
	if (ok && n && (live[0] == ' ' || live[n - 1] == ' ')) {
		ok = 0;
		snprintf(why, sizeof why, "this CPU's brand '%s'", live);
	}
	t_check(ok, "cpu: the brand string without its padding", "%s", why);
}

/* The width glibc.cpu.hwcaps leaves: what a child run again with
 * GLIBC_TUNABLES sees.  Exit status: 0, or the first check that failed. */
static int hwcaps_child(unsigned off, unsigned parent_usable)
{
	const struct cpu *cpu = ntm_cpu_features();
	if ((cpu->usable & off) || (cpu->libc_off & off) != off)
		return 1;
	/* A profile made without the variable is still this CPU's. */
	struct profile prof;
	ntm_profile_init(&prof, ntm_cpu());
	if (prof.features != parent_usable)
		return 5;
	enum ntm_width want = off & CPU_AVX2 ? NTM_WIDTH_SSE2 : NTM_WIDTH_AVX2;
	if (ntm_entry_width()->width != want)
		return 2;
	struct ntmem_cpu_info info;
	if (ntmem_cpu_info(&info) || !strstr(info.missing, "glibc.cpu.hwcaps"))
		return 3;
	/* and what the narrower entry points give is memset's */
	unsigned char a[300], b[300];
	memset(a, 1, sizeof a);
	memset(b, 1, sizeof b);
	ntmem_set(a + 1, 0x7e, 257);
	memset(b + 1, 0x7e, 257);
	return memcmp(a, b, sizeof a) ? 4 : 0;
}

/* GLIBC_TUNABLES glibc.cpu.hwcaps turns a width off for ntmem as for
 * glibc: the widest this CPU has, in a child run again with it. */
static void check_hwcaps(void)
{
	const char *name = "hwcaps: a width glibc turns off is off for ntmem";
#if !defined(__x86_64__) || !defined(__GLIBC__) || __GLIBC__ < 2 || \
	(__GLIBC__ == 2 && __GLIBC_MINOR__ < 33)
	t_skip(name, "glibc.cpu.hwcaps and CPU_FEATURE_ACTIVE: x86-64 and glibc 2.33 or later");
#else
	unsigned usable = ntm_cpu_features()->usable;
	const unsigned avx512 = CPU_AVX512F | CPU_AVX512BW | CPU_AVX512VL;
	const char *hwcaps;
	unsigned off;
	if ((usable & avx512) == avx512) {
		hwcaps = "glibc.cpu.hwcaps=-AVX512F,-AVX512VL,-AVX512BW,-AVX512DQ,-AVX512CD";
		off = avx512;
	} else if (usable & CPU_AVX2) {
		hwcaps = "glibc.cpu.hwcaps=-AVX2,-AVX";
		off = CPU_AVX2 | CPU_AVX;
	} else {
		t_skip(name, "this CPU runs neither AVX-512 nor AVX2");
		return;
	}
	fflush(stdout);
	pid_t pid = fork();
	if (pid == 0) {
		char arg[64];
		snprintf(arg, sizeof arg, "--hwcaps-child=%u,%u", off, usable);
		setenv("GLIBC_TUNABLES", hwcaps, 1);
		char *argv[] = {"test_dispatch", arg, NULL};
		t_exec_self(argv);
		_exit(100);
	}
	int status = 0;
	if (pid < 0 || waitpid(pid, &status, 0) != pid)
		status = -1;
	t_check(status == 0, name, "%s: the child exited %d (1: still usable, 2: "
		"the entry width, 3: ntmem_cpu_info, 4: bytes, 5: the profile's "
		"CPU)", hwcaps,
		WIFEXITED(status) ? WEXITSTATUS(status) : -1);
#endif
}

int main(int argc, char **argv)
{
	unsigned off, parent_usable;
	if (argc == 2 &&
	    sscanf(argv[1], "--hwcaps-child=%u,%u", &off, &parent_usable) == 2)
		return hwcaps_child(off, parent_usable);
	check_brand_trimmed();
	check_info_plan_once();
	/* tests/run.sh runs every test with NTMEM_PROFILE=none and no
	 * NTMEM_TUNABLES: the library reads them as it is loaded. */
	const char *cpu = getenv("NTMEM_EXPECT_CPU");
	check_info_lists_variants();
	check_hwcaps();
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
