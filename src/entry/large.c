/* large.c - every width's calls beyond the small path and the inline
 * loop (ntm_set_large, ntm_copy_large), and the shim's names' calls that
 * its classes hand on (ntm_set_unflagged, ntm_copy_unflagged): the
 * selector's route, walked once, then the variant of a cached rung as a
 * tail call, or the route handed on, also as a tail call, to what runs
 * it (dispatch/select.c, or dispatch/learn.c for a band that learns).
 * Nothing here returns to its caller but through the variant. */
#include "dispatch/args.h"
#include "dispatch/select.h"
#include "entry.h"

static inline __attribute__((always_inline)) void *set_large(void *dst, int c,
							      size_t n,
							      unsigned flags)
{
	struct ntm_route r = ntm_select(ntm_policy_for_call(),
					ntm_class_of(NTMEM_OP_SET, c), n, flags, 0);
	if (__builtin_expect(r.kind == NTM_ROUTE_RUNG && !r.streams, 1))
		return r.v->set(dst, c, n);
	if (r.kind == NTM_ROUTE_LEARNED)
		return ntm_learned_set(r, dst, c, n, flags);
	return ntm_route_set(r, dst, c, n, flags);
}

static inline __attribute__((always_inline)) void *copy_large(void *dst,
							       const void *src,
							       size_t n,
							       unsigned flags)
{
	struct ntm_route r = ntm_select(ntm_policy_for_call(), NTMEM_CLASS_COPY, n,
					flags, ntm_overlap(dst, src, n));
	if (__builtin_expect(r.kind == NTM_ROUTE_RUNG && !r.streams, 1))
		return r.v->copy(dst, src, n);
	if (r.kind == NTM_ROUTE_LEARNED)
		return ntm_learned_copy(r, dst, src, n, flags);
	return ntm_route_copy(r, dst, src, n, flags);
}

void *ntm_set_large(void *dst, int c, size_t n, unsigned flags)
{
	return set_large(dst, c, n, flags);
}

void *ntm_copy_large(void *dst, const void *src, size_t n, unsigned flags)
{
	return copy_large(dst, src, n, flags);
}

void *ntm_set_unflagged(void *dst, int c, size_t n)
{
	return set_large(dst, c, n, 0);
}

void *ntm_copy_unflagged(void *dst, const void *src, size_t n)
{
	return copy_large(dst, src, n, 0);
}
