/* features.h - the vocabulary below everything: the CPU features a
 * variant may require, and the attributes the library's own code needs.
 * Detecting them is dispatch/cpu.c's work; variants only name them. */
#ifndef NTM_FEATURES_H
#define NTM_FEATURES_H

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
	CPU_AVX512VL  = 1u << 9,
	/* AArch64 (from HWCAP and DCZID_EL0, not CPUID): */
	CPU_ASIMD     = 1u << 10,  /* Advanced SIMD (NEON) */
	CPU_DCZVA     = 1u << 11,  /* DC ZVA; usable: DCZID_EL0.DZP clear */
	CPU_FEATURE_END = 1u << 12
};

/* Features every CPU of this architecture has: SSE2 is part of x86-64;
 * Advanced SIMD of every AArch64 Linux system (the kernel's ABI and the
 * compiler's default target both assume it). */
#if defined(__x86_64__)
#define NTM_ARCH_BASELINE CPU_SSE2
#elif defined(__aarch64__)
#define NTM_ARCH_BASELINE CPU_ASIMD
#else
#define NTM_ARCH_BASELINE 0u
#endif

/* Code that runs before the sanitizers' runtimes are set up (gcc and
 * clang, which both define __GNUC__). */
#if defined(__GNUC__)
#define NTM_NO_SANITIZE __attribute__((no_sanitize("address", "undefined", "thread")))
#else
#define NTM_NO_SANITIZE
#endif

/* The small path's reach on every vector width: the size classes of
 * classes_x86_64.h and small.h go up to 8 vectors.  dispatch/width.c
 * turns it into bytes for the selector. */
#define NTM_SMALL_VECTORS 8

/* Not exported from the shared library. */
#define NTM_HIDDEN __attribute__((visibility("hidden")))

#endif
