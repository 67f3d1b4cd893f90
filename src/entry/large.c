/* large.c - every width's calls beyond the small path and the inline
 * loop (ntm_set_large, ntm_copy_large): the selector's route, the call,
 * the fence.  A file of its own, below the public functions and the
 * entry points' assembly, which both come here. */
#include "dispatch/args.h"
#include "dispatch/select.h"
#include "entry.h"
#include "variants/libc.h"

/* Every route but a cached rung's, out of line: the cached rung then
 * reaches its variant as a tail call that saves no registers. */
__attribute__((noinline)) static void *set_routed(const struct policy *p,
						  void *dst, int c, size_t n,
						  unsigned flags)
{
	struct ntm_route r;
	ntm_select(&r, p, ntm_class_of(NTMEM_OP_SET, c), n, flags, 0,
		   NTM_CALLER_ENTRY);
	return ntm_route_set(&r, dst, c, n, flags);
}

__attribute__((noinline)) static void *copy_routed(const struct policy *p,
						   void *dst, const void *src,
						   size_t n, unsigned flags)
{
	struct ntm_route r;
	ntm_select(&r, p, NTMEM_CLASS_COPY, n, flags, ntm_overlap(dst, src, n),
		   NTM_CALLER_ENTRY);
	if (r.kind == NTM_ROUTE_OVERLAP)
		return ntm_libc.memmove(dst, src, n);
	return ntm_route_copy(&r, dst, src, n, flags);
}

void *ntm_set_large(void *dst, int c, size_t n, unsigned flags)
{
	const struct policy *p = ntm_policy_for_call(n, flags);
	const struct variant *v =
		ntm_select_cached_rung(p, ntm_class_of(NTMEM_OP_SET, c), n, flags);
	if (__builtin_expect(v != NULL, 1))
		return v->set(dst, c, n);
	return set_routed(p, dst, c, n, flags);
}

void *ntm_copy_large(void *dst, const void *src, size_t n, unsigned flags)
{
	if (ntm_overlap(dst, src, n))  /* memmove's: no policy needed */
		return copy_routed(ntm_policy_if_built(), dst, src, n, flags);
	const struct policy *p = ntm_policy_for_call(n, flags);
	const struct variant *v = ntm_select_cached_rung(p, NTMEM_CLASS_COPY, n, flags);
	if (__builtin_expect(v != NULL, 1))
		return v->copy(dst, src, n);
	return copy_routed(p, dst, src, n, flags);
}
