/* cpu.h - what this CPU and OS can run, and its caches.  Detected once. */
#ifndef NTM_CPU_H
#define NTM_CPU_H

#include <stddef.h>
#include <stdint.h>

/* Features a variant may require.  A bit is set in cpu.usable only when
 * the CPU reports it and, for vector state, the OS has enabled it (XCR0). */
enum cpu_feature {
	CPU_SSE2      = 1u << 0,
	CPU_AVX       = 1u << 1,
	CPU_AVX2      = 1u << 2,
	CPU_AVX512F   = 1u << 3,
	CPU_AVX512BW  = 1u << 4,
	CPU_ERMS      = 1u << 5,
	CPU_FSRM      = 1u << 6,
	CPU_MOVDIR64B = 1u << 7,
	CPU_CLZERO    = 1u << 8,
	CPU_FEATURE_END = 1u << 9
};

struct cache_info {
	size_t l1d, l2, l3;     /* bytes; 0 when unknown */
	unsigned l3_shared_by;  /* logical CPUs sharing the L3; 0 when unknown */
};

struct cpu {
	char vendor[13];        /* "GenuineIntel", "AuthenticAMD", "" off x86 */
	char brand[49];
	unsigned family, model, stepping;
	unsigned reported;      /* enum cpu_feature bits CPUID reports */
	unsigned usable;        /* ... and the OS supports */
	int has_xcr0;
	uint64_t xcr0;
	struct cache_info cpuid_caches;  /* leaf 4 or 0x8000001D/5/6 */
	struct cache_info sysfs_caches;  /* /sys/devices/system/cpu/cpu0/cache */
	unsigned online_cpus;
};

/* The CPU this process runs on.  Thread-safe; detects on first call. */
const struct cpu *ntm_cpu(void);

/* "AVX-512F" for CPU_AVX512F. */
const char *ntm_cpu_feature_name(unsigned feature);

/* Why feature bit(s) in need are not usable, e.g. "CPU lacks AVX-512F" or
 * "OS has not enabled AVX-512 state (XCR0)"; NULL when all are usable. */
const char *ntm_cpu_missing(const struct cpu *cpu, unsigned need);

/* The last-level cache size and sharing to plan with: CPUID when it gives
 * an L3, else sysfs; l3 == 0 when neither does.  l3_shared_by is the
 * count of online CPUs sharing it: sysfs lists them, while CPUID gives
 * only the most IDs that could (rounded to a power of two). */
struct cache_info ntm_cpu_caches(const struct cpu *cpu);

/* One thread's share of the last-level cache, or 0 when its size is
 * unknown. */
size_t ntm_cpu_llc_share(const struct cpu *cpu);

#endif
