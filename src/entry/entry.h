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
	/* The vector loops the entries can also run inline beyond the small
	 * path, up to ntm_inline_max (NULL: they never do). */
	void *(*cached_set)(void *dst, int c, size_t n);
	void *(*cached_copy)(void *dst, const void *src, size_t n);
};

/* Per operation (enum ntmem_op), the size up to which the entries run
 * their own vector loop instead of asking the ladder: the policy sets it
 * when the ladder's first rung is that loop.  Read by assembly. */
#define NTM_HIDDEN __attribute__((visibility("hidden")))
extern size_t ntm_inline_max[2] NTM_HIDDEN;

/* Beyond the small path: pick from the ladder (or the baseline before
 * the policy is built), call, fence unless NOFENCE.  flags are valid. */
NTM_HIDDEN void *ntm_set_large(void *dst, int c, size_t n, unsigned flags);
NTM_HIDDEN void *ntm_copy_large(void *dst, const void *src, size_t n,
				unsigned flags);

/* The widths this build has: x86-64's in entry_x86_64.S (tables in
 * entry_x86.c), AArch64's NEON one in neon.c, the portable one in
 * portable.c. */
extern const struct entry_width ntm_entry_sse2, ntm_entry_avx2,
	ntm_entry_evex, ntm_entry_neon, ntm_entry_portable;

/* The width this CPU uses: decided from CPUID alone, so it can run before
 * relocation (in an IFUNC resolver). */
const struct entry_width *ntm_entry_width(void);

#endif
