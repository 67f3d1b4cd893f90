/* args.h - checks of the public calls' arguments, shared by the plain,
 * parallel, safe and preloaded calls. */
#ifndef NTM_ARGS_H
#define NTM_ARGS_H

#include <stddef.h>
#include <stdint.h>

#include "ntmem.h"

/* The flags every call with flags accepts; the safe calls add
 * NOZEROFILL and drop PARALLEL. */
#define NTM_CALL_FLAGS (NTMEM_F_TEMPORAL | NTMEM_F_NONTEMPORAL | \
			NTMEM_F_NOFENCE | NTMEM_F_PARALLEL)

/* flags has a bit outside known, or asks for cached and streaming
 * stores at once. */
static inline int ntm_bad_flags(unsigned flags, unsigned known)
{
	const unsigned both = NTMEM_F_TEMPORAL | NTMEM_F_NONTEMPORAL;
	return (flags & ~known) || (flags & both) == both;
}

/* [a, a + n) and [b, b + n) overlap. */
static inline int ntm_overlap(const void *a, const void *b, size_t n)
{
	uintptr_t x = (uintptr_t)a, y = (uintptr_t)b;
	return x - y < n || y - x < n;
}

#endif
