/* entry.h - the entry points, one set per vector width: the small path
 * inline, then the ladder.  ntmem.c chooses one set by CPU when the
 * program is loaded (an IFUNC on x86-64), as glibc does for memset. */
#ifndef NTM_ENTRY_H
#define NTM_ENTRY_H

#include <stddef.h>

struct entry_width {
	void *(*set)(void *dst, int c, size_t n);
	void *(*copy)(void *dst, const void *src, size_t n);
	void *(*set_flags)(void *dst, int c, size_t n, unsigned flags);
	void *(*copy_flags)(void *dst, const void *src, size_t n,
			    unsigned flags);
	size_t small_max;        /* the small path serves n <= small_max */
	const char *small_name;  /* e.g. "AVX-512 stores" */
};

/* Beyond the small path: pick from the ladder (or the baseline before
 * the policy is built), call, fence unless NOFENCE.  flags are valid. */
void *ntm_set_large(void *dst, int c, size_t n, unsigned flags);
void *ntm_copy_large(void *dst, const void *src, size_t n, unsigned flags);

/* The widths this build has, each defined by its family file. */
extern const struct entry_width ntm_entry_sse2, ntm_entry_avx,
	ntm_entry_avx512, ntm_entry_portable;

/* The width this CPU uses: decided from CPUID alone, so it can run before
 * relocation (in an IFUNC resolver). */
const struct entry_width *ntm_entry_width(void);

#endif
