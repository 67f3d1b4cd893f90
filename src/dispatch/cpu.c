/* cpu.c - CPUID, XGETBV and the cache topology, read once per process. */
#include "cpu.h"

#include <ctype.h>
#include <errno.h>
#include <fcntl.h>
#include <sys/syscall.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "ntmem.h"
#include "util/once.h"
#include "util/size.h"

#if defined(__x86_64__) || defined(__i386__)
#include <cpuid.h>
#define NTM_X86 1
#if defined(__GLIBC__) && (__GLIBC__ > 2 || (__GLIBC__ == 2 && __GLIBC_MINOR__ >= 33))
#include <sys/platform/x86.h>
/* The leaves glibc read as the process started (2.33): each CPUID exits
 * to the hypervisor in a guest, microseconds each (docs/results.md, the
 * fifth pass, "What changed, and why").  Weak: NULL with a C library
 * that has none, and while this object's GOT is not yet relocated (an
 * IFUNC resolver run before that), where CPUID answers instead. */
#pragma weak __x86_get_cpuid_feature_leaf
#define NTM_GLIBC_LEAVES 1
#endif
#elif defined(__aarch64__)
#include <sys/auxv.h>
#include "variants/sysreg.h"
#ifndef HWCAP_ASIMD
#define HWCAP_ASIMD (1ul << 1)
#endif
#ifndef HWCAP_CPUID
#define HWCAP_CPUID (1ul << 11)
#endif
#endif

/* One row per feature: the messages ntm_cpu_missing() returns. */
static const struct {
	unsigned bit;
	const char *name;
	const char *cpu_lacks;
	const char *os_lacks;   /* NULL: no OS-managed state */
} feature_table[] = {
#ifdef NTM_X86
	{CPU_SSE2, "SSE2", "CPU lacks SSE2", NULL},
	{CPU_AVX, "AVX", "CPU lacks AVX",
	 "OS has not enabled AVX state (XCR0)"},
	{CPU_AVX2, "AVX2", "CPU lacks AVX2",
	 "OS has not enabled AVX state (XCR0)"},
	{CPU_AVX512F, "AVX-512F", "CPU lacks AVX-512F",
	 "OS has not enabled AVX-512 state (XCR0)"},
	{CPU_AVX512BW, "AVX-512BW", "CPU lacks AVX-512BW",
	 "OS has not enabled AVX-512 state (XCR0)"},
	{CPU_ERMS, "ERMS", "CPU lacks ERMS (fast rep movsb/stosb)", NULL},
	{CPU_FSRM, "FSRM", "CPU lacks FSRM (fast short rep movsb)", NULL},
	{CPU_MOVDIR64B, "MOVDIR64B", "CPU lacks MOVDIR64B", NULL},
	{CPU_CLZERO, "CLZERO", "CPU lacks CLZERO (AMD only)", NULL},
	{CPU_AVX512VL, "AVX-512VL", "CPU lacks AVX-512VL",
	 "OS has not enabled AVX-512 state (XCR0)"},
#elif defined(__aarch64__)
	/* The OS side of DC ZVA: DZP is set when EL1 or EL2 forbids it
	 * (SCTLR_EL1.DZE clear, HCR_EL2.TDZ set). */
	{CPU_ASIMD, "ASIMD", "CPU lacks Advanced SIMD (HWCAP_ASIMD)", NULL},
	{CPU_DCZVA, "DC-ZVA", "DCZID_EL0 states a DC ZVA block over 2 KiB",
	 "DC ZVA is prohibited here (DCZID_EL0.DZP is set)"},
#endif
};

#define NFEATURES (sizeof feature_table / sizeof feature_table[0])
#if !defined(NTM_X86) && !defined(__aarch64__)
/* No feature is known here (only the portable variants build): the loops
 * over the empty table run zero times, as they should. */
#pragma GCC diagnostic ignored "-Wtype-limits"
#endif

const char *ntm_cpu_feature_name(unsigned feature)
{
	for (size_t i = 0; i < NFEATURES; i++)
		if (feature_table[i].bit == feature)
			return feature_table[i].name;
	return "?";
}

const char *ntm_cpu_missing(const struct cpu *cpu, unsigned need)
{
	for (size_t i = 0; i < NFEATURES; i++) {
		unsigned bit = feature_table[i].bit;
		if (!(need & bit) || (cpu->usable & bit))
			continue;
		if (cpu->libc_off & bit)
			return "turned off for the C library (glibc: GLIBC_TUNABLES "
			       "glibc.cpu.hwcaps, or its own checks)";
		if ((cpu->reported & bit) && feature_table[i].os_lacks)
			return feature_table[i].os_lacks;
		return feature_table[i].cpu_lacks;
	}
	return NULL;
}

#ifdef NTM_X86
/* XCR0 bits: SSE and AVX (YMM upper halves) state; AVX-512 adds the
 * opmask, ZMM upper halves and ZMM16-31. */
#define XCR0_AVX    0x06u
#define XCR0_AVX512 0xe6u

NTM_NO_SANITIZE static inline uint64_t read_xcr0(void)
{
	uint32_t lo, hi;
	/* xgetbv, spelled as bytes for assemblers that predate it */
	__asm__ volatile(".byte 0x0f, 0x01, 0xd0" : "=a"(lo), "=d"(hi) : "c"(0));
	return ((uint64_t)hi << 32) | lo;
}

/* CPUID leaf 4 (Intel) and 0x8000001D (AMD) share one layout: subleaf i
 * into c.  Returns its level (1-3), or 0 past the last cache or where
 * the leaf is garbage (an emulator without it). */
static unsigned read_cache_subleaf(unsigned leaf, unsigned i, struct cache_info *c)
{
	unsigned a, b, cx, d;
	__cpuid_count(leaf, i, a, b, cx, d);
	unsigned type = a & 31, level = (a >> 5) & 7;
	if (type == 0 || type > 3 || level < 1 || level > 3)
		return 0;
	size_t size = (size_t)((b >> 22) + 1) * (((b >> 12) & 0x3ff) + 1) *
		      ((b & 0xfff) + 1) * ((size_t)cx + 1);
	if (level == 1 && type == 1)
		c->l1d = size;
	else if (level == 2 && type != 2)
		c->l2 = size;
	else if (level == 3 && type != 2) {
		c->l3 = size;
		c->l3_shared_by = ((a >> 14) & 0xfff) + 1;
	}
	return level;
}

static void read_deterministic_caches(unsigned leaf, struct cache_info *c)
{
	for (unsigned i = 0; i < 16; i++) {
		unsigned level = read_cache_subleaf(leaf, i, c);
		if (level == 0 || (level == 3 && c->l3))
			break;  /* the last level read: one CPUID fewer */
	}
}

/* Intel: the L3 from leaf 4's subleaf 3, where every Intel CPU seen has
 * it, and the L1d and L2 that glibc read as the process started (2.33
 * keeps them for sysconf): one CPUID, not four.  glibc reads leaf 2's
 * descriptors first, leaf 4 where they say to (every Intel CPU since
 * Skylake); an older part whose two leaves disagree would see a profile
 * recorded before this change as another CPU's.  Anything else: the
 * whole leaf. */
static void read_intel_caches(struct cache_info *c)
{
#if defined(NTM_GLIBC_LEAVES) && defined(_SC_LEVEL1_DCACHE_SIZE)
	long l1d = sysconf(_SC_LEVEL1_DCACHE_SIZE), l2 = sysconf(_SC_LEVEL2_CACHE_SIZE);
	struct cache_info l3 = {0};
	if (l1d > 0 && l2 > 0 && read_cache_subleaf(4, 3, &l3) == 3 && l3.l3) {
		*c = l3;
		c->l1d = (size_t)l1d;
		c->l2 = (size_t)l2;
		return;
	}
#endif
	read_deterministic_caches(4, c);
}

/* AMD's legacy leaves, for CPUs or emulators without TOPOEXT. */
static void read_amd_legacy_caches(unsigned max_ext, struct cache_info *c)
{
	unsigned a, b, cx, d;
	if (max_ext >= 0x80000005) {
		__cpuid(0x80000005, a, b, cx, d);
		c->l1d = (size_t)(cx >> 24) << 10;
	}
	if (max_ext >= 0x80000006) {
		__cpuid(0x80000006, a, b, cx, d);
		c->l2 = (size_t)(cx >> 16) << 10;
		c->l3 = (size_t)(d >> 18) << 19;
	}
}

/* The highest leaf of CPUID's range from base: cpuid.h's
 * __get_cpuid_max may stay an instrumented call, which a sanitizer's
 * runtime cannot serve before relocation; this is always inline. */
static inline __attribute__((always_inline)) unsigned highest_leaf(unsigned base)
{
	unsigned a, b, c, d;
	__cpuid(base, a, b, c, d);
	return a;
}

/* Leaf 1, 7 (subleaf 0), 0x80000001 or 0x80000008 into r (EAX, EBX, ECX,
 * EDX), all zero where the CPU has no such leaf: the C library's copy
 * (its CPUID_INDEX_* is index) where from_libc, else CPUID, if leaf is at
 * most top, the highest leaf of its range.  Into active, the bits the C
 * library lets programs use (all ones from CPUID): glibc clears those the
 * OS has not enabled and those GLIBC_TUNABLES glibc.cpu.hwcaps turns off. */
static inline __attribute__((always_inline)) void feature_leaf(unsigned leaf,
							       int index,
							       int from_libc,
							       unsigned top,
							       unsigned r[4],
							       unsigned active[4])
{
#ifdef NTM_GLIBC_LEAVES
	if (from_libc) {
		/* Through the pointer libc_leaves() tested, not the PLT: a
		 * linker may give the call a slot of its own, relocated later. */
		const struct cpuid_feature *(*get)(unsigned) = __x86_get_cpuid_feature_leaf;
		__asm__("" : "+r"(get));
		const struct cpuid_feature *f = get((unsigned)index);
		for (int i = 0; i < 4; i++) {
			r[i] = f->cpuid_array[i];
			active[i] = f->active_array[i];
		}
		return;
	}
#else
	(void)index;
	(void)from_libc;
#endif
	r[0] = r[1] = r[2] = r[3] = 0;
	active[0] = active[1] = active[2] = active[3] = ~0u;
	if (top >= leaf)
		__cpuid_count(leaf, 0, r[0], r[1], r[2], r[3]);
}

/* Whether the C library's copy of the leaves can be read (feature_leaf). */
static inline __attribute__((always_inline)) int libc_leaves(void)
{
#ifdef NTM_GLIBC_LEAVES
	return __x86_get_cpuid_feature_leaf != NULL;
#else
	return 0;
#endif
}

#ifndef NTM_GLIBC_LEAVES
enum { CPUID_INDEX_1, CPUID_INDEX_7, CPUID_INDEX_80000001,
       CPUID_INDEX_80000008 = 5 };
#endif

/* What identify_x86 asks CPUID again otherwise: leaf 1's EAX and ECX,
 * and where the probe read it (without glibc's leaves), leaf 0's highest
 * leaf and vendor words. */
struct probe_leaves {
	unsigned max_leaf, vendor[3], eax1, ecx1;
	int have_leaf0;
};

/* Leaf 0: the highest leaf and the vendor's name. */
static NTM_NO_SANITIZE void read_leaf0(struct probe_leaves *l)
{
	unsigned a, b, c, d;
	__cpuid(0, a, b, c, d);
	l->max_leaf = a;
	l->vendor[0] = b;
	l->vendor[1] = d;
	l->vendor[2] = c;
	l->have_leaf0 = 1;
}

/* Leaf 7's feature bits: the register (EBX 1, ECX 2, EDX 3) and bit. */
static const struct {
	unsigned char reg, bit;
	unsigned feature;
} leaf7[] = {
	{1, 5, CPU_AVX2},      {1, 9, CPU_ERMS},       {1, 16, CPU_AVX512F},
	{1, 30, CPU_AVX512BW}, {1, 31, CPU_AVX512VL},  {2, 28, CPU_MOVDIR64B},
	{3, 4, CPU_FSRM},
};

/* Features from CPUID, and which of them the OS has enabled (XCR0), and
 * the leaves above into *l.  No instrumentation, and no library call
 * but glibc's feature leaves once this object is relocated: the IFUNC
 * resolvers call it before.  With glibc's leaves, no CPUID at all: leaf
 * 0 waits for identify_x86, which a policy's build needs, not a width. */
static NTM_NO_SANITIZE unsigned probe(unsigned *reported, uint64_t *xcr0,
				      unsigned *libc_off, struct probe_leaves *l)
{
	unsigned c, d, r[4], active[4];
	*reported = 0;
	*xcr0 = 0;
	*libc_off = 0;
	int from_libc = libc_leaves();
	if (!from_libc) {
		read_leaf0(l);
		if (l->max_leaf == 0)
			return 0;
	}
	feature_leaf(1, CPUID_INDEX_1, from_libc, l->max_leaf, r, active);
	l->eax1 = r[0];
	l->ecx1 = c = r[2];
	d = r[3];
	unsigned f = 0, inactive = 0;
	if (d & (1u << 26))
		f |= CPU_SSE2;
	if (c & (1u << 28))
		f |= CPU_AVX;
	if (!(active[2] & (1u << 28)))
		inactive |= CPU_AVX;
	int osxsave = (c >> 27) & 1;
	feature_leaf(7, CPUID_INDEX_7, from_libc, l->max_leaf, r, active);
	for (size_t i = 0; i < sizeof leaf7 / sizeof leaf7[0]; i++) {
		if ((r[leaf7[i].reg] >> leaf7[i].bit) & 1)
			f |= leaf7[i].feature;
		if (!((active[leaf7[i].reg] >> leaf7[i].bit) & 1))
			inactive |= leaf7[i].feature;
	}
	/* glibc does not know CLZERO: its active bit there says nothing. */
	feature_leaf(0x80000008, CPUID_INDEX_80000008, from_libc,
		     from_libc ? 0 : highest_leaf(0x80000000), r, active);
	if (r[1] & 1u)
		f |= CPU_CLZERO;
	*reported = f;

	const unsigned avx512 = CPU_AVX512F | CPU_AVX512BW | CPU_AVX512VL;
	unsigned usable = f & ~(CPU_AVX | CPU_AVX2 | avx512);
	if (osxsave) {
		*xcr0 = read_xcr0();
		if ((*xcr0 & XCR0_AVX) == XCR0_AVX)
			usable |= f & (CPU_AVX | CPU_AVX2);
		if ((*xcr0 & XCR0_AVX512) == XCR0_AVX512)
			usable |= f & avx512;
	}
	/* What the OS enables and glibc turns off (GLIBC_TUNABLES
	 * glibc.cpu.hwcaps=-AVX512F,...): off here too, so that ntmem and
	 * the C library run the same widths. */
	*libc_off = usable & inactive;
	return usable & ~inactive;
}

/* Each CPUID exits to the hypervisor in a guest, which made the four
 * probes a visible part of a preloaded program's start-up on the Xeon
 * KVM guest (docs/results.md, the fifth pass, "What changed, and why").
 * So the first probe's answer is kept: three words in .bss, written
 * before the flag that publishes them, nothing to relocate.  Racing
 * first callers store the same values. */
static struct {
	unsigned usable, reported, libc_off;
	uint64_t xcr0;
	struct probe_leaves leaves;
	int done;
} probed;

NTM_NO_SANITIZE unsigned ntm_cpu_probe(unsigned *reported, uint64_t *xcr0)
{
	if (!__atomic_load_n(&probed.done, __ATOMIC_ACQUIRE)) {
		unsigned r, off;
		uint64_t x;
		/* The leaves straight into .bss (zero until written): racing
		 * first callers write the same words. */
		unsigned u = probe(&r, &x, &off, &probed.leaves);
		__atomic_store_n(&probed.usable, u, __ATOMIC_RELAXED);
		__atomic_store_n(&probed.reported, r, __ATOMIC_RELAXED);
		__atomic_store_n(&probed.libc_off, off, __ATOMIC_RELAXED);
		__atomic_store_n(&probed.xcr0, x, __ATOMIC_RELAXED);
		__atomic_store_n(&probed.done, 1, __ATOMIC_RELEASE);
	}
	*reported = __atomic_load_n(&probed.reported, __ATOMIC_RELAXED);
	*xcr0 = __atomic_load_n(&probed.xcr0, __ATOMIC_RELAXED);
	return __atomic_load_n(&probed.usable, __ATOMIC_RELAXED);
}

/* A guest's hypervisor, from the leaf every hypervisor answers when
 * CPUID.1:ECX[31] says there is one: "KVMKVMKVM", "Microsoft Hv", ... */
static void read_hypervisor(char *name)
{
	unsigned a, b, c, d;
	__cpuid(0x40000000, a, b, c, d);
	memcpy(name + 0, &b, 4);
	memcpy(name + 4, &c, 4);
	memcpy(name + 8, &d, 4);
	name[12] = '\0';
	ntm_cpu_trim_brand(name);
	/* A hypervisor bit with no name still says: a guest. */
	if (!name[0])
		strcpy(name, "unnamed");
}

/* The brand string: 3 CPUIDs more, read when something shows it
 * (describe), not as every program starts. */
static void read_brand(char *brand)
{
	if (highest_leaf(0x80000000) < 0x80000004)
		return;
	unsigned w[12];
	for (unsigned i = 0; i < 3; i++)
		__cpuid(0x80000002 + i, w[4 * i], w[4 * i + 1], w[4 * i + 2],
			w[4 * i + 3]);
	memcpy(brand, w, 48);
	brand[48] = '\0';
	ntm_cpu_trim_brand(brand);
}

/* The CPU's name: leaf 1 as the probe read it, and leaf 0, read once per
 * process: each CPUID is a hypervisor exit in a guest (above). */
static void identify_x86(struct cpu *cpu)
{
	struct probe_leaves *l = &probed.leaves;
	if (!l->have_leaf0)
		read_leaf0(l);  /* once: identify runs once */
	if (l->max_leaf == 0)
		return;

	memcpy(cpu->vendor, l->vendor, 12);
	cpu->vendor[12] = '\0';
	unsigned a = l->eax1, c = l->ecx1;
	unsigned family = (a >> 8) & 0xf, model = (a >> 4) & 0xf;
	if (family == 0xf)
		family += (a >> 20) & 0xff;
	if (family == 0x6 || family >= 0xf)
		model += ((a >> 16) & 0xf) << 4;
	cpu->family = family;
	cpu->model = model;
	cpu->stepping = a & 0xf;

	cpu->has_xcr0 = (c >> 27) & 1;  /* OSXSAVE */
	cpu->guest = c >> 31;  /* its name waits for describe() */
}

/* The caches CPUID gives: the extended range is read on AMD only, where
 * they are. */
static void read_cpuid_caches(struct cpu *cpu)
{
	const struct probe_leaves *l = &probed.leaves;
	if (l->max_leaf == 0)
		return;
	int amd = !strcmp(cpu->vendor, "AuthenticAMD") ||
		  !strcmp(cpu->vendor, "HygonGenuine");
	if (!amd) {
		if (l->max_leaf >= 4 && !strcmp(cpu->vendor, "GenuineIntel"))
			read_intel_caches(&cpu->cpuid_caches);
		else if (l->max_leaf >= 4)
			read_deterministic_caches(4, &cpu->cpuid_caches);
		return;
	}
	unsigned max_ext = highest_leaf(0x80000000), r[4], active[4];
	feature_leaf(0x80000001, CPUID_INDEX_80000001, libc_leaves(), max_ext, r, active);
	int topoext = (r[2] >> 22) & 1;
	if (topoext && max_ext >= 0x8000001d)
		read_deterministic_caches(0x8000001d, &cpu->cpuid_caches);
	else
		read_amd_legacy_caches(max_ext, &cpu->cpuid_caches);
}
#endif

int ntm_read_line(const char *path, char *buf, size_t len)
{
	long fd = syscall(SYS_openat, AT_FDCWD, path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return -1;
	long got;
	do
		got = syscall(SYS_read, fd, buf, len - 1);
	while (got < 0 && errno == EINTR);
	syscall(SYS_close, fd);
	if (got <= 0)
		return -1;
	buf[got] = '\0';
	buf[strcspn(buf, "\n")] = '\0';
	return 0;
}

/* "32768K" or "32M" from sysfs, in bytes; 0 when unreadable. */
static size_t read_sysfs_size(const char *path)
{
	char text[32], *unit;
	if (ntm_read_line(path, text, sizeof text))
		return 0;
	unsigned long long v = strtoull(text, &unit, 10);
	if (unit == text)
		return 0;
	if (*unit == 'K')
		v <<= 10;
	else if (*unit == 'M')
		v <<= 20;
	else if (*unit == 'G')
		v <<= 30;
	return (size_t)v;
}

int ntm_parse_cpu_list(const char *s, unsigned char *bits, unsigned max)
{
	memset(bits, 0, max);
	while (*s && *s != '\n') {
		char *end;
		unsigned long lo = strtoul(s, &end, 10), hi = lo;
		if (end == s)
			return -1;
		if (*end == '-') {
			s = end + 1;
			hi = strtoul(s, &end, 10);
			if (end == s || hi < lo)
				return -1;
		}
		for (unsigned long i = lo; i <= hi && i < max; i++)
			bits[i] = 1;
		s = *end == ',' ? end + 1 : end;
	}
	return 0;
}

unsigned ntm_count_cpu_list(const char *s)
{
	unsigned count = 0;
	while (*s && *s != '\n') {
		char *end;
		unsigned long lo = strtoul(s, &end, 10), hi = lo;
		if (end == s)
			return 0;
		if (*end == '-') {
			s = end + 1;
			hi = strtoul(s, &end, 10);
			if (end == s || hi < lo)
				return 0;
		}
		count += (unsigned)(hi - lo + 1);
		s = *end == ',' ? end + 1 : end;
	}
	return count;
}

#define SYSFS_CACHES "/sys/devices/system/cpu/cpu0/cache"

/* cpu0's cache index i as the L3: its size and the CPUs sharing it. */
static void read_sysfs_l3(unsigned i, struct cache_info *c)
{
	char path[128], shared[256];
	snprintf(path, sizeof path, SYSFS_CACHES "/index%u/size", i);
	c->l3 = read_sysfs_size(path);
	snprintf(path, sizeof path, SYSFS_CACHES "/index%u/shared_cpu_list", i);
	if (!ntm_read_line(path, shared, sizeof shared))
		c->l3_shared_by = ntm_count_cpu_list(shared);
}

static void detect_sysfs(struct cache_info *c)
{
	for (unsigned i = 0; i < 8; i++) {
		char path[128], type[32], level[8];
		snprintf(path, sizeof path, SYSFS_CACHES "/index%u/type", i);
		if (ntm_read_line(path, type, sizeof type))
			break;
		snprintf(path, sizeof path, SYSFS_CACHES "/index%u/level", i);
		if (ntm_read_line(path, level, sizeof level) || !strcmp(type, "Instruction"))
			continue;
		if (level[0] == '3') {
			read_sysfs_l3(i, c);
			continue;
		}
		snprintf(path, sizeof path, SYSFS_CACHES "/index%u/size", i);
		size_t size = read_sysfs_size(path);
		if (level[0] == '1' && !strcmp(type, "Data"))
			c->l1d = size;
		else if (level[0] == '2')
			c->l2 = size;
	}
}

/* Append printf output to plan->how, separated by "; ", if it explains. */
__attribute__((format(printf, 3, 4)))
static void plan_note(struct cache_plan *plan, int explain, const char *fmt, ...)
{
	if (!explain)
		return;
	size_t used = strlen(plan->how);
	if (used && used + 2 < sizeof plan->how) {
		strcpy(plan->how + used, "; ");
		used += 2;
	}
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(plan->how + used, sizeof plan->how - used, fmt, ap);
	va_end(ap);
}

/* The L3 from CPUID's and sysfs's answers, where the C library gave
 * none: the smaller where they disagree, shared as they say. */
static const char *plan_from_leaves(const struct cpu *cpu, struct cache_plan *plan,
				    int explain)
{
	const struct cache_info *id = &cpu->cpuid_caches, *fs = &cpu->sysfs_caches;
	struct cache_info *c = &plan->caches;
	char a[32], b[32];
	*c = id->l3 ? *id : *fs;
	const char *from = id->l3 ? "CPUID" : fs->l3 ? "sysfs" : NULL;
	if (id->l3 && fs->l3 && id->l3 != fs->l3) {
		c->l3 = id->l3 < fs->l3 ? id->l3 : fs->l3;
		from = "the smaller";
		plan->distrusted = 1;
		if (explain)
			plan_note(plan, 1, "CPUID says L3 %s, sysfs %s: they cannot both "
				  "be right, so the smaller is used",
				  ntm_format_size(id->l3, a, sizeof a),
				  ntm_format_size(fs->l3, b, sizeof b));
	}
	c->l3_shared_by = fs->l3_shared_by ? fs->l3_shared_by : id->l3_shared_by;
	if (id->l3 && !id->l3_shared_by && !fs->l3_shared_by) {
		plan->distrusted = 1;
		plan_note(plan, explain, "CPUID says the L3 is shared by 0 CPUs, which "
			  "cannot be: taken as the %u online", cpu->online_cpus);
	}
	return from;
}

/* Words for the plan of *c (from `from`), after the distrust rules. */
static void plan_words(const struct cpu *cpu, struct cache_plan *plan,
		       const char *from, size_t l3)
{
	const struct cache_info *c = &plan->caches;
	char a[32], b[32], d[32];
	if (!c->l3 && l3)
		plan_note(plan, 1, "an L3 of %s (%s) shared by %u CPU%s is %s a CPU, "
			  "over the %s no part has exceeded: not trusted",
			  ntm_format_size(l3, a, sizeof a), from, c->l3_shared_by,
			  c->l3_shared_by == 1 ? "" : "s",
			  ntm_format_size(l3 / c->l3_shared_by, b, sizeof b),
			  ntm_format_size(NTM_MAX_CREDIBLE_L3_SHARE, d, sizeof d));
	else if (c->l3)
		plan_note(plan, 1, "L3 %s from %s%s", ntm_format_size(c->l3, a, sizeof a),
			  from, cpu->libc_caches.l3 ? ", shared by the online CPUs" : "");
#ifdef NTM_X86
	else
		plan_note(plan, 1, "no L3 size from the C library, CPUID or sysfs");
#else
	else
		plan_note(plan, 1, "no L3 size from the C library or sysfs");
#endif
}

void ntm_cpu_plan(const struct cpu *cpu, struct cache_plan *plan, int explain)
{
	memset(plan, 0, sizeof *plan);
	/* AArch64: the line the streaming loops' 64-byte unit fills (a
	 * 256-byte line, as on A64FX, takes four). */
	if (cpu->dline)
		plan_note(plan, explain, "data cache lines of %u B (CTR_EL0)", cpu->dline);
	struct cache_info *c = &plan->caches;
	const char *from = "the C library";
	if (cpu->libc_caches.l3)
		*c = cpu->libc_caches;  /* shared by: unknown, so the online */
	else
		from = plan_from_leaves(cpu, plan, explain);
	/* CPUID counts the IDs that could share it, rounded up to a power
	 * of two; a VM sees only its own CPUs. */
	unsigned shared = c->l3_shared_by;
	if (shared == 0 || shared > cpu->online_cpus)
		shared = cpu->online_cpus;
	c->l3_shared_by = shared ? shared : 1;
	size_t l3 = c->l3;
	if (l3 / c->l3_shared_by > NTM_MAX_CREDIBLE_L3_SHARE) {
		plan->distrusted = 1;
		c->l3 = 0;
	}
	if (explain)
		plan_words(cpu, plan, from, l3);
}

#if defined(__aarch64__)
/* Names for MIDR_EL1's implementer codes and for a few parts servers
 * use; anything else is shown by number. */
static const struct {
	unsigned code;
	const char *name;
} arm_implementers[] = {
	{0x41, "ARM"},      {0x42, "Broadcom"}, {0x43, "Cavium"},
	{0x46, "Fujitsu"},  {0x48, "HiSilicon"}, {0x4e, "NVIDIA"},
	{0x50, "APM"},      {0x51, "Qualcomm"}, {0x53, "Samsung"},
	{0x56, "Marvell"},  {0x61, "Apple"},    {0x6d, "Microsoft"},
	{0xc0, "Ampere"},
};

static const struct {
	unsigned implementer, part;
	const char *name;
} arm_parts[] = {
	{0x41, 0xd03, "Cortex-A53"},  {0x41, 0xd04, "Cortex-A35"},
	{0x41, 0xd07, "Cortex-A57"},  {0x41, 0xd08, "Cortex-A72"},
	{0x41, 0xd0b, "Cortex-A76"},  {0x41, 0xd0c, "Neoverse-N1"},
	{0x41, 0xd40, "Neoverse-V1"}, {0x41, 0xd49, "Neoverse-N2"},
	{0x41, 0xd4f, "Neoverse-V2"}, {0x46, 0x001, "A64FX"},
	{0xc0, 0xac3, "AmpereOne"},
};

static void name_arm_cpu(struct cpu *cpu)
{
	unsigned implementer = (unsigned)(cpu->midr >> 24) & 0xff;
	cpu->family = (unsigned)(cpu->midr >> 20) & 0xf;   /* variant */
	cpu->model = (unsigned)(cpu->midr >> 4) & 0xfff;   /* part number */
	cpu->stepping = (unsigned)cpu->midr & 0xf;         /* revision */
	snprintf(cpu->vendor, sizeof cpu->vendor, "0x%02x", implementer);
	for (size_t i = 0; i < sizeof arm_implementers / sizeof arm_implementers[0]; i++)
		if (arm_implementers[i].code == implementer)
			snprintf(cpu->vendor, sizeof cpu->vendor, "%s",
				 arm_implementers[i].name);
	for (size_t i = 0; i < sizeof arm_parts / sizeof arm_parts[0]; i++)
		if (arm_parts[i].implementer == implementer &&
		    arm_parts[i].part == cpu->model)
			snprintf(cpu->brand, sizeof cpu->brand, "%s", arm_parts[i].name);
}

/* MIDR_EL1 from the kernel's emulated read where HWCAP_CPUID says it
 * has one, else from sysfs; 0 when neither is there. */
static uint64_t read_midr(unsigned long hwcap)
{
	if (hwcap & HWCAP_CPUID)
		return ntm_sysreg_midr();
	char text[64];
	unsigned long long v = 0;
	if (ntm_read_line("/sys/devices/system/cpu/cpu0/regs/identification/midr_el1",
			    text, sizeof text) ||
	    sscanf(text, "%llx", &v) != 1)
		return 0;
	return v;
}

/* Features from HWCAP (the kernel's word for what user space may use),
 * DC ZVA from DCZID_EL0, line size from CTR_EL0, the CPU from MIDR_EL1.
 * Cache sizes are not readable at EL0 (CCSIDR_EL1 is an EL1 register):
 * they come from sysfs alone. */
static void detect_aarch64(struct cpu *cpu)
{
	unsigned long hwcap = getauxval(AT_HWCAP);
	if (hwcap & HWCAP_ASIMD)
		cpu->reported |= CPU_ASIMD;
	cpu->dczid = ntm_sysreg_dczid();
	unsigned block = ntm_dczva_block(cpu->dczid);
	if (block)
		cpu->reported |= CPU_DCZVA;
	cpu->usable = cpu->reported;
	if (cpu->dczid & NTM_DCZID_DZP)
		cpu->usable &= ~CPU_DCZVA;
	cpu->zva_block = cpu->usable & CPU_DCZVA ? block : 0;
	cpu->ctr = ntm_sysreg_ctr();
	cpu->dline = 4u << ((cpu->ctr >> 16) & 0xf);
	cpu->midr = read_midr(hwcap);
	if (cpu->midr)
		name_arm_cpu(cpu);
}
#endif

static struct cpu features, the_cpu, described_cpu;
static int features_once, cpu_once, described_once;  /* util/once.h */

/* On AArch64 the registers that give the features name the CPU too. */
static void read_features(void)
{
	int saved = errno;
#ifdef NTM_X86
	features.usable = ntm_cpu_probe(&features.reported, &features.xcr0);
	features.libc_off = __atomic_load_n(&probed.libc_off, __ATOMIC_RELAXED);
#elif defined(__aarch64__)
	detect_aarch64(&features);
	ntm_cpu_trim_brand(features.brand);
#endif
	errno = saved;
}

/* What the C library found as the process started: sysconf, which glibc
 * (2.33 and later) answers from what it read then, with no CPUID and no
 * file; 0 where it has no answer. */
static size_t libc_cache(int name)
{
	long v = sysconf(name);
	return v > 0 ? (size_t)v : 0;
}

static void read_libc_caches(struct cache_info *c)
{
#if defined(_SC_LEVEL1_DCACHE_SIZE) && defined(_SC_LEVEL3_CACHE_SIZE)
	c->l1d = libc_cache(_SC_LEVEL1_DCACHE_SIZE);
	c->l2 = libc_cache(_SC_LEVEL2_CACHE_SIZE);
	c->l3 = libc_cache(_SC_LEVEL3_CACHE_SIZE);
#else
	(void)c;
#endif
}

/* The online CPUs: one sysfs file, else sysconf (which may read more). */
static unsigned read_online_cpus(void)
{
	char list[256];
	unsigned n = 0;
	if (!ntm_read_line("/sys/devices/system/cpu/online", list, sizeof list))
		n = ntm_count_cpu_list(list);
	if (n == 0) {
		long v = sysconf(_SC_NPROCESSORS_ONLN);
		n = v > 0 ? (unsigned)v : 1;
	}
	return n;
}

/* The L3 from CPUID and sysfs, where the C library gave none. */
static void read_own_l3(struct cpu *cpu)
{
#ifdef NTM_X86
	read_cpuid_caches(cpu);
#endif
	detect_sysfs(&cpu->sysfs_caches);
}

/* What a policy needs, at the least cost (ntm_cpu()).  Reading files sets
 * errno on those that are absent; loading a library must leave it. */
static void detect(void)
{
	int saved = errno;
	the_cpu = *ntm_cpu_features();
#ifdef NTM_X86
	identify_x86(&the_cpu);
#endif
	read_libc_caches(&the_cpu.libc_caches);
	if (!the_cpu.libc_caches.l3) {
		the_cpu.libc_caches = (struct cache_info){0};
		read_own_l3(&the_cpu);
	}
	the_cpu.online_cpus = read_online_cpus();
	errno = saved;
}

/* the_cpu with what only a description shows: the brand string, the
 * hypervisor's name, CPUID's and sysfs's caches.  A copy, so that
 * the_cpu, which other threads read, never changes once detected. */
static void describe(void)
{
	int saved = errno;
	described_cpu = the_cpu;
#ifdef NTM_X86
	read_brand(described_cpu.brand);
	if (described_cpu.guest)
		read_hypervisor(described_cpu.hypervisor);
	described_cpu.cpuid_caches = (struct cache_info){0};
	read_cpuid_caches(&described_cpu);
#endif
	described_cpu.sysfs_caches = (struct cache_info){0};
	detect_sysfs(&described_cpu.sysfs_caches);
	errno = saved;
}

void ntm_cpu_trim_brand(char *b)
{
	size_t skip = 0, n;
	while (b[skip] && isspace((unsigned char)b[skip]))
		skip++;
	memmove(b, b + skip, strlen(b + skip) + 1);
	for (n = strlen(b); n && isspace((unsigned char)b[n - 1]); n--)
		b[n - 1] = '\0';
}

const struct cpu *ntm_cpu_features(void)
{
	ntm_once(&features_once, read_features);
	return &features;
}

const struct cpu *ntm_cpu(void)
{
	ntm_once(&cpu_once, detect);
	return &the_cpu;
}

const struct cpu *ntm_cpu_described(void)
{
	ntm_cpu();
	ntm_once(&described_once, describe);
	return &described_cpu;
}

/* The public view. */

static const char *arch_name(void)
{
#if defined(__x86_64__)
	return "x86_64";
#elif defined(__aarch64__)
	return "aarch64";
#elif defined(__riscv) && __riscv_xlen == 64
	return "riscv64";
#elif defined(__powerpc64__)
	return "ppc64";
#else
	return "unknown";
#endif
}

static char features_text[256], missing_text[1024];
static struct cache_plan public_plan;
static int public_once;  /* util/once.h */

static void build_public_view(void)
{
	const struct cpu *cpu = ntm_cpu();
	size_t f = 0, m = 0;
	for (size_t i = 0; i < NFEATURES; i++) {
		unsigned bit = feature_table[i].bit;
		if (cpu->usable & bit)
			f += (size_t)snprintf(features_text + f,
					      f < sizeof features_text
						      ? sizeof features_text - f : 0,
					      "%s%s", f ? " " : "",
					      feature_table[i].name);
		else
			m += (size_t)snprintf(missing_text + m,
					      m < sizeof missing_text
						      ? sizeof missing_text - m : 0,
					      "%s%s: %s", m ? "\n" : "",
					      feature_table[i].name,
					      ntm_cpu_missing(cpu, bit));
	}
	ntm_cpu_plan(cpu, &public_plan, 1);
}

static struct ntmem_cache_sizes public_sizes(const struct cache_info *c)
{
	return (struct ntmem_cache_sizes){c->l1d, c->l2, c->l3, c->l3_shared_by};
}

void ntm_cpu_describe(struct ntmem_cpu_info *info)
{
	const struct cpu *cpu = ntm_cpu_described();
	ntm_once(&public_once, build_public_view);
	*info = (struct ntmem_cpu_info){
		.arch = arch_name(),
		.vendor = cpu->vendor,
		.brand = cpu->brand,
		.family = cpu->family,
		.model = cpu->model,
		.stepping = cpu->stepping,
		.features = features_text,
		.missing = missing_text,
		.cpuid = public_sizes(&cpu->cpuid_caches),
		.sysfs = public_sizes(&cpu->sysfs_caches),
		.planned = public_sizes(&public_plan.caches),
		.planned_how = public_plan.how,
		.online_cpus = cpu->online_cpus,
		.hypervisor = cpu->hypervisor,
	};
}
