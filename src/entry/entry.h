/* entry.h - the entry points, one set per vector width (enum ntm_width):
 * the small path inline, then the width's own vector loop up to the
 * selector's limit (x86-64), else the selector's route.  ntmem.c chooses one set by
 * CPU when the program is loaded (an IFUNC on x86-64), as glibc does for
 * memset. */
#ifndef NTM_ENTRY_H
#define NTM_ENTRY_H

#include <stddef.h>

#include "ntmem.h"
#include "safe/safe.h"
#include "dispatch/width.h"
#include "variants/features.h"

typedef void *set_flags_fn(void *dst, int c, size_t n, unsigned flags);
typedef void *copy_flags_fn(void *dst, const void *src, size_t n,
			    unsigned flags);

/* One width's entry points.  What they decide is the selector's
 * (dispatch/select.h): the small path's reach is the width's
 * (dispatch/width.h), the inline loop's the selector's limits; past them
 * every width goes the one large-call route (ntm_set_large,
 * ntm_copy_large), which alone fences (the one fence rule,
 * variants/fence.h). */
struct entry_width {
	enum ntm_width width;
	void *(*set)(void *dst, int c, size_t n);
	void *(*copy)(void *dst, const void *src, size_t n);
	set_flags_fn *set_flags;
	copy_flags_fn *copy_flags;
	safe_copy_fn *safe_copy;  /* ntmem_copy_safe, ntmem_set_safe */
	safe_set_fn *safe_set;
	const char *small_name;  /* e.g. "AVX-512 stores" */
};

/* Beyond the small path: the selector's route (dispatch/select.h), the
 * call, the fence unless NOFENCE.  flags are valid. */
NTM_HIDDEN void *ntm_set_large(void *dst, int c, size_t n, unsigned flags);
NTM_HIDDEN void *ntm_copy_large(void *dst, const void *src, size_t n,
				unsigned flags);
/* The same with no flags, as a memset or memcpy: for the shim's names,
 * whose classes ran already. */
NTM_HIDDEN void *ntm_set_unflagged(void *dst, int c, size_t n);
NTM_HIDDEN void *ntm_copy_unflagged(void *dst, const void *src, size_t n);

/* The widths this build has: x86-64's in entry_x86_64.S (tables in
 * entry_x86.c), AArch64's in entry_neon.c, the portable one in
 * entry_portable.c. */
extern const struct entry_width ntm_entry_sse2, ntm_entry_avx2,
	ntm_entry_avx512, ntm_entry_neon, ntm_entry_portable;

/* The width this CPU uses (dispatch's ntm_width_choose()): decided from
 * CPUID alone, so it can run before relocation (in an IFUNC resolver). */
NTM_HIDDEN const struct entry_width *ntm_entry_width(void);

/* The table of width w, where this build has it (else the narrowest). */
NTM_HIDDEN const struct entry_width *ntm_entry_width_for(enum ntm_width w);

#endif
