/* cpu.c - CPUID, XGETBV and the cache topology, read once per process. */
#include "cpu.h"

#include <ctype.h>
#include <pthread.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#if defined(__x86_64__) || defined(__i386__)
#include <cpuid.h>
#define NTM_X86 1
#endif

/* One row per feature: the messages ntm_cpu_missing() returns. */
static const struct {
	unsigned bit;
	const char *name;
	const char *cpu_lacks;
	const char *os_lacks;   /* NULL: no OS-managed state */
} feature_table[] = {
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
};

#define NFEATURES (sizeof feature_table / sizeof feature_table[0])

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

static uint64_t read_xcr0(void)
{
	uint32_t lo, hi;
	/* xgetbv, spelled as bytes for assemblers that predate it */
	__asm__ volatile(".byte 0x0f, 0x01, 0xd0" : "=a"(lo), "=d"(hi) : "c"(0));
	return ((uint64_t)hi << 32) | lo;
}

/* CPUID leaf 4 (Intel) and 0x8000001D (AMD) share one layout. */
static void read_deterministic_caches(unsigned leaf, struct cache_info *c)
{
	for (unsigned i = 0; i < 16; i++) {
		unsigned a, b, cx, d;
		__cpuid_count(leaf, i, a, b, cx, d);
		unsigned type = a & 31, level = (a >> 5) & 7;
		if (type == 0)
			break;
		if (type > 3 || level < 1 || level > 3)
			break;  /* garbage: an emulator without this leaf */
		size_t size = (size_t)((b >> 22) + 1) * (((b >> 12) & 0x3ff) + 1) *
			      ((b & 0xfff) + 1) * ((size_t)cx + 1);
		unsigned shared = ((a >> 14) & 0xfff) + 1;
		if (level == 1 && type == 1)
			c->l1d = size;
		else if (level == 2 && type != 2)
			c->l2 = size;
		else if (level == 3 && type != 2) {
			c->l3 = size;
			c->l3_shared_by = shared;
		}
	}
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

static void detect_x86(struct cpu *cpu)
{
	unsigned a, b, c, d;
	unsigned max_leaf = __get_cpuid_max(0, NULL);
	unsigned max_ext = __get_cpuid_max(0x80000000, NULL);
	if (max_leaf == 0)
		return;

	__cpuid(0, a, b, c, d);
	memcpy(cpu->vendor + 0, &b, 4);
	memcpy(cpu->vendor + 4, &d, 4);
	memcpy(cpu->vendor + 8, &c, 4);
	cpu->vendor[12] = '\0';
	int amd = !strcmp(cpu->vendor, "AuthenticAMD") ||
		  !strcmp(cpu->vendor, "HygonGenuine");

	__cpuid(1, a, b, c, d);
	unsigned family = (a >> 8) & 0xf, model = (a >> 4) & 0xf;
	if (family == 0xf)
		family += (a >> 20) & 0xff;
	if (family == 0x6 || family >= 0xf)
		model += ((a >> 16) & 0xf) << 4;
	cpu->family = family;
	cpu->model = model;
	cpu->stepping = a & 0xf;

	unsigned r = 0;
	if (d & (1u << 26))
		r |= CPU_SSE2;
	if (c & (1u << 28))
		r |= CPU_AVX;
	int osxsave = (c >> 27) & 1;
	if (max_leaf >= 7) {
		__cpuid_count(7, 0, a, b, c, d);
		if (b & (1u << 5))
			r |= CPU_AVX2;
		if (b & (1u << 9))
			r |= CPU_ERMS;
		if (b & (1u << 16))
			r |= CPU_AVX512F;
		if (b & (1u << 30))
			r |= CPU_AVX512BW;
		if (c & (1u << 28))
			r |= CPU_MOVDIR64B;
		if (d & (1u << 4))
			r |= CPU_FSRM;
	}
	if (max_ext >= 0x80000008) {
		__cpuid(0x80000008, a, b, c, d);
		if (b & 1u)
			r |= CPU_CLZERO;
	}
	cpu->reported = r;

	unsigned usable = r & ~(CPU_AVX | CPU_AVX2 | CPU_AVX512F | CPU_AVX512BW);
	if (osxsave) {
		cpu->has_xcr0 = 1;
		cpu->xcr0 = read_xcr0();
		if ((cpu->xcr0 & XCR0_AVX) == XCR0_AVX)
			usable |= r & (CPU_AVX | CPU_AVX2);
		if ((cpu->xcr0 & XCR0_AVX512) == XCR0_AVX512)
			usable |= r & (CPU_AVX512F | CPU_AVX512BW);
	}
	cpu->usable = usable;

	if (max_ext >= 0x80000004) {
		unsigned w[12];
		for (unsigned i = 0; i < 3; i++)
			__cpuid(0x80000002 + i, w[4 * i], w[4 * i + 1],
				w[4 * i + 2], w[4 * i + 3]);
		memcpy(cpu->brand, w, 48);
		cpu->brand[48] = '\0';
	}

	int topoext = 0;
	if (max_ext >= 0x80000001) {
		__cpuid(0x80000001, a, b, c, d);
		topoext = (c >> 22) & 1;
	}
	if (amd && topoext && max_ext >= 0x8000001d)
		read_deterministic_caches(0x8000001d, &cpu->cpuid_caches);
	else if (amd)
		read_amd_legacy_caches(max_ext, &cpu->cpuid_caches);
	else if (max_leaf >= 4)
		read_deterministic_caches(4, &cpu->cpuid_caches);
}
#endif

/* "32768K" or "32M" from sysfs, in bytes; 0 when unreadable. */
static size_t read_sysfs_size(const char *path)
{
	FILE *f = fopen(path, "re");
	if (!f)
		return 0;
	unsigned long long v = 0;
	char unit = 0;
	int got = fscanf(f, "%llu%c", &v, &unit);
	fclose(f);
	if (got < 1)
		return 0;
	if (unit == 'K')
		v <<= 10;
	else if (unit == 'M')
		v <<= 20;
	else if (unit == 'G')
		v <<= 30;
	return (size_t)v;
}

static int read_sysfs_line(const char *path, char *buf, size_t len)
{
	FILE *f = fopen(path, "re");
	if (!f)
		return -1;
	char *ok = fgets(buf, (int)len, f);
	fclose(f);
	if (!ok)
		return -1;
	buf[strcspn(buf, "\n")] = '\0';
	return 0;
}

/* Count the CPUs in a list such as "0-3,8,10-11". */
static unsigned count_cpu_list(const char *s)
{
	unsigned count = 0;
	while (*s) {
		unsigned lo, hi;
		int used = 0;
		if (sscanf(s, "%u-%u%n", &lo, &hi, &used) == 2 && hi >= lo)
			count += hi - lo + 1;
		else if (sscanf(s, "%u%n", &lo, &used) == 1)
			count += 1;
		else
			break;
		s += used;
		if (*s == ',')
			s++;
	}
	return count;
}

static void detect_sysfs(struct cache_info *c)
{
	const char *base = "/sys/devices/system/cpu/cpu0/cache";
	for (unsigned i = 0; i < 8; i++) {
		char path[128], type[32], level[8], shared[256];
		snprintf(path, sizeof path, "%s/index%u/type", base, i);
		if (read_sysfs_line(path, type, sizeof type))
			break;
		snprintf(path, sizeof path, "%s/index%u/level", base, i);
		if (read_sysfs_line(path, level, sizeof level))
			continue;
		snprintf(path, sizeof path, "%s/index%u/size", base, i);
		size_t size = read_sysfs_size(path);
		if (!strcmp(type, "Instruction"))
			continue;
		if (level[0] == '1' && !strcmp(type, "Data"))
			c->l1d = size;
		else if (level[0] == '2')
			c->l2 = size;
		else if (level[0] == '3') {
			c->l3 = size;
			snprintf(path, sizeof path,
				 "%s/index%u/shared_cpu_list", base, i);
			if (!read_sysfs_line(path, shared, sizeof shared))
				c->l3_shared_by = count_cpu_list(shared);
		}
	}
}

struct cache_info ntm_cpu_caches(const struct cpu *cpu)
{
	struct cache_info c = cpu->cpuid_caches;
	if (c.l3 == 0)
		c = cpu->sysfs_caches;
	if (cpu->sysfs_caches.l3_shared_by)
		c.l3_shared_by = cpu->sysfs_caches.l3_shared_by;
	if (c.l3_shared_by == 0 || c.l3_shared_by > cpu->online_cpus)
		c.l3_shared_by = cpu->online_cpus;
	return c;
}

size_t ntm_cpu_llc_share(const struct cpu *cpu)
{
	struct cache_info c = ntm_cpu_caches(cpu);
	return c.l3 / (c.l3_shared_by ? c.l3_shared_by : 1);
}

static struct cpu the_cpu;
static pthread_once_t cpu_once = PTHREAD_ONCE_INIT;

static void detect(void)
{
#ifdef NTM_X86
	detect_x86(&the_cpu);
#endif
	detect_sysfs(&the_cpu.sysfs_caches);
	long n = sysconf(_SC_NPROCESSORS_ONLN);
	the_cpu.online_cpus = n > 0 ? (unsigned)n : 1;
	/* Brand strings are often padded with leading blanks. */
	char *b = the_cpu.brand;
	size_t skip = 0;
	while (b[skip] && isspace((unsigned char)b[skip]))
		skip++;
	memmove(b, b + skip, strlen(b + skip) + 1);
}

const struct cpu *ntm_cpu(void)
{
	pthread_once(&cpu_once, detect);
	return &the_cpu;
}
