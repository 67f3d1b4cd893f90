/* cpu.h - what this CPU and OS can run, and its caches.  Detected once. */
#ifndef NTM_CPU_H
#define NTM_CPU_H

#include <stddef.h>
#include <stdint.h>

#include "variants/features.h"

struct cache_info {
	size_t l1d, l2, l3;     /* bytes; 0 when unknown */
	unsigned l3_shared_by;  /* logical CPUs sharing the L3; 0 when unknown */
};

struct cpu {
	char vendor[13];        /* "GenuineIntel", "AuthenticAMD", "" off x86 */
	char brand[49];         /* "" until ntm_cpu_described() on x86 */
	unsigned family, model, stepping;
	char hypervisor[13];    /* a guest's hypervisor ("KVMKVMKVM"); ""
				   on bare metal or where none is known, and
				   until ntm_cpu_described() on x86 */
	int guest;              /* CPUID says a hypervisor runs it */
	unsigned reported;      /* enum cpu_feature bits CPUID reports */
	unsigned usable;        /* ... and the OS supports, less libc_off */
	unsigned libc_off;      /* those glibc turned off for the process
				   (GLIBC_TUNABLES glibc.cpu.hwcaps, or
				   its own checks; glibc 2.33 and later) */
	int has_xcr0;
	uint64_t xcr0;
	/* The caches as the C library found them as the process started
	 * (sysconf: glibc 2.33 and later keep CPUID's answers), which the
	 * policy plans from; l3_shared_by is 0, as the C library does not
	 * say.  All 0 where it gives no L3: then CPUID's and sysfs's L3
	 * below are read as the library loads, and planned from instead. */
	struct cache_info libc_caches;
	/* CPUID's and sysfs's own answers: with ntm_cpu_described(), which
	 * shows them beside the plan. */
	struct cache_info cpuid_caches;  /* leaf 4 or 0x8000001D/5/6 */
	struct cache_info sysfs_caches;  /* /sys/devices/system/cpu/cpu0/cache */
	unsigned online_cpus;
	/* AArch64 only (0 elsewhere).  vendor is MIDR_EL1's implementer,
	 * brand its part by name; family, model and stepping are MIDR_EL1's
	 * variant, part number and revision. */
	uint64_t dczid, ctr, midr;       /* the registers as read */
	unsigned zva_block;              /* DC ZVA's block in bytes, 0: none */
	unsigned dline;                  /* smallest data cache line (CTR_EL0) */
};

#if defined(__x86_64__) || defined(__i386__)
/* The enum cpu_feature bits CPUID reports, into *reported, and returns
 * those the OS supports as well, less those glibc turned off for the
 * process (GLIBC_TUNABLES glibc.cpu.hwcaps; where glibc's leaves are
 * read); XCR0 into *xcr0 (0 without OSXSAVE).  Safe in an IFUNC
 * resolver: no library call, no instrumentation. */
unsigned ntm_cpu_probe(unsigned *reported, uint64_t *xcr0);
#endif

struct ntmem_cpu_info;

/* The public view of this process's CPU (ntmem_cpu_info, entry/): the
 * strings live as long as the process. */
void ntm_cpu_describe(struct ntmem_cpu_info *info);

/* The CPU this process runs on, as a policy needs it, at the least
 * start-up cost: its features, its name (one CPUID: leaf 0), the caches
 * the C library found and the online CPUs (one sysfs file).  Its brand
 * and hypervisor are empty, and its CPUID and sysfs caches too where
 * the C library gave the L3.  Read once, as the library loads (the
 * policy's build asks), thread-safe. */
const struct cpu *ntm_cpu(void);

/* The CPU's features (reported, usable, xcr0) and nothing else on x86:
 * the rest is 0, as no CPUID but the probe's is asked (each is a
 * hypervisor exit in a guest: cpu.c) and no file read.  Enough to tell
 * which variants run. */
const struct cpu *ntm_cpu_features(void);

/* The same with the brand, the hypervisor's name, and CPUID's and
 * sysfs's caches, every level: for what shows them, read on its first
 * call (some CPUIDs, a dozen sysfs files), never by a memset or memcpy. */
const struct cpu *ntm_cpu_described(void);

/* Strip the blanks brand strings are padded with, at either end: CPUID
 * gives 48 bytes, and "Oxide Virtual Turin-like Processor" came with 13
 * spaces after it, which every header and plot then showed. */
void ntm_cpu_trim_brand(char *brand);

/* "AVX-512F" for CPU_AVX512F. */
const char *ntm_cpu_feature_name(unsigned feature);

/* Why feature bit(s) in need are not usable, e.g. "CPU lacks AVX-512F" or
 * "OS has not enabled AVX-512 state (XCR0)"; NULL when all are usable. */
const char *ntm_cpu_missing(const struct cpu *cpu, unsigned need);

/* The caches the default policy plans with: the C library's L3, shared
 * by every online CPU (it does not say by how many; on the machines
 * recorded the share is the same either way, and the floor of the
 * built-in threshold, 8 MiB, rules on most servers); or where it gives
 * none, CPUID's and sysfs's, shared as they say.  Reported topology that
 * cannot be true is not trusted: more L3 per sharing CPU than
 * NTM_MAX_CREDIBLE_L3_SHARE (a VM shows the host's whole L3 as shared by
 * its own few CPUs), "shared by 0" CPUs, CPUID and sysfs giving different
 * L3 sizes.  caches.l3 == 0 when no size can be trusted.
 *
 * The most L3 a core has had is 48 MiB: AMD's EPYC 9184X, 96 MiB for
 * each CCD of 2 cores.  The largest single L3s (Intel Xeon 6, 480-504 MB)
 * serve 96-128 cores, about 5 MiB each. */
#define NTM_MAX_CREDIBLE_L3_SHARE ((size_t)64 << 20)

struct cache_plan {
	struct cache_info caches;  /* l3_shared_by >= 1 */
	int distrusted;            /* something reported was set aside */
	char how[320];             /* where the sizes came from, in words */
};

/* Parse a CPU or node list such as "0-3,8,10-11" into bits[0..max) (one
 * byte each, 1 for a member).  Returns 0, or -1 if it is malformed. */
int ntm_parse_cpu_list(const char *s, unsigned char *bits, unsigned max);

/* The first line of a small file (sysfs), without its newline, in buf of
 * len bytes; 0, or -1 when it cannot be read.  By raw system calls: no
 * stdio (its buffer and fstat were a third of each file's cost at a
 * preloaded program's start-up), no allocation, and no cancellation
 * point: a constructor may be cancelled by nothing it calls. */
int ntm_read_line(const char *path, char *buf, size_t len);

/* The CPUs in a list such as "0-3,8,10-11", 0 if it is malformed. */
unsigned ntm_count_cpu_list(const char *s);

/* Pure: a function of *cpu alone, so tests can feed it fakes.  how is
 * left empty unless explain: the policy built as the library loads plans
 * without words, and a reporter asks for them. */
void ntm_cpu_plan(const struct cpu *cpu, struct cache_plan *plan, int explain);

#endif
