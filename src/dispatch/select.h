/*
 * select.h - the selector: the one place that decides which route every
 * call takes (route.h), and that every report asks.
 *
 * ntm_select() walks the ladder once and returns the route: the small
 * path, the inline loop, memmove for overlapping copies, the baseline
 * before the policy is built, the rung, or a band that learns.  It reads
 * the process's policy and nothing else: no state, no system call.
 *
 * The entry points' assembly takes SMALL and INLINE itself, from
 * ntm_limits and its own size classes (test_select checks that both
 * agree), and hands every other call to C (entry/large.c), which asks
 * ntm_select() and tail-calls the variant of a cached rung, or hands the
 * route on to what runs it: ntm_route_set/copy below, or for LEARNED
 * ntm_learned_set/copy (route.h).  The safe calls, the parallel ones
 * (once per extent), the shim's counting wrappers and every reporter
 * (ntmem_policy_choice(), "ntmem info", "ntmem run --report") ask the
 * same function.
 */
#ifndef NTM_SELECT_H
#define NTM_SELECT_H

#include <stddef.h>

#include "policy.h"
#include "registry.h"
#include "learn.h"
#include "route.h"

/*
 * What the assembly reads: the selector's decisions that are one size
 * compare each.  All 0 until the library's constructor has built the
 * policy, so that every call past the small path comes to C.
 *   inline_max[op]     the entries run their loop up to this many bytes
 *                      (where every ladder of op starts with it, and
 *                      below NTM_LEARN_MIN where the learning starts);
 *   shim_*             the shim's direct paths (preload_x86_64.S): the
 *                      classes of the AVX-512 width below shim_evex_end,
 *                      of the AVX2 width below shim_avx2_end and of the
 *                      SSE2 width below shim_sse2_end, each all ones
 *                      where the shim runs that width and the process
 *                      may use it, else 0 (a width's own shim has only
 *                      its own); and the C-named functions' direct way
 *                      to the SSE2 entry points below shim_sse2_below
 *                      (129, or 0; preload.c).
 */
struct ntm_limits {
	size_t inline_max[2];
	size_t shim_evex_end, shim_avx2_end, shim_sse2_end, shim_sse2_below;
};
extern struct ntm_limits ntm_limits NTM_HIDDEN;

/* The small path's reach on this process's entry width, for when there
 * is no policy yet (the policy's own is its small_max). */
size_t ntm_select_small_max(void);

/* The variant a route names: for LEARNED, the ladder's choice. */
static inline const struct variant *ntm_route_variant(struct ntm_route r)
{
	return r.kind == NTM_ROUTE_LEARNED ? r.band->side[r.prior] : r.v;
}

/* The small path's rule: n up to small_max, unless the call asks to
 * stream (which a call of 0 bytes never needs). */
static inline int ntm_select_is_small(size_t n, size_t small_max,
				      unsigned flags)
{
	return n <= small_max && (!(flags & NTMEM_F_NONTEMPORAL) || n == 0);
}

/* Before the policy is built: until the library's constructor has begun,
 * the architecture's baseline (registry.h), which needs nothing detected;
 * from then on the C library's function for a cached call, as fast as
 * the C library on every CPU.  Between the constructor's first step and
 * its ntm_libc_resolve() that is ntmem's portable loops (libc.h):
 * correct, not fast. */
static inline const struct variant *ntm_select_baseline(enum ntmem_op op,
							int streaming)
{
	if (!streaming && ntm_policy_begun())
		return ntm_libc_variant(op);
	return ntm_baseline(op, streaming);
}

/* The index of v among b's sides (b->nsides when it is none). */
static inline unsigned ntm_select_side_of(const struct learn_band *b,
					  const struct variant *v)
{
	unsigned i = 0;
	while (i < b->nsides && b->side[i] != v)
		i++;
	return i;
}

/* The route of a call beyond the small path, the inline loop and an
 * overlap: the rung for n and flags, or the band that learns there.  The
 * ladder is walked once. */
#define NTM_INLINE static inline __attribute__((always_inline))

NTM_INLINE struct ntm_route ntm_select_rung(const struct policy *p,
					       enum ntmem_class cls, size_t n,
					       unsigned flags)
{
	struct ntm_route r = {.kind = NTM_ROUTE_RUNG};
	r.v = ntm_ladder_variant(&p->ladder[cls], n, flags);
	r.streams = ntm_streams(r.v);
	if (n < p->learn_from[cls] || (flags & (NTMEM_F_TEMPORAL | NTMEM_F_NONTEMPORAL)))
		return r;
	unsigned k = ntm_learn_band_of(n);
	const struct learn_band *b = &p->band[cls][k];
	unsigned prior = ntm_select_side_of(b, r.v);
	if (b->nsides < 2 || prior >= b->nsides)
		return r;
	return (struct ntm_route){.band = b, .kind = NTM_ROUTE_LEARNED, .cls = cls,
				  .k = k, .prior = prior, .after = p->learn_after};
}

/* The route of a call: class cls, n bytes, flags valid and without
 * NTMEM_F_PARALLEL, overlap whether a copy's buffers overlap.  p is the
 * process's policy (ntm_policy_for_call(); NULL: not built yet) or one
 * built for a look.  Pure: reads p and nothing else that changes. */
NTM_INLINE struct ntm_route ntm_select(const struct policy *p,
					  enum ntmem_class cls, size_t n,
					  unsigned flags, int overlap)
{
	enum ntmem_op op = ntm_op_of(cls);
	size_t small_max = p ? p->small_max : ntm_select_small_max();
	int small = ntm_select_is_small(n, small_max, flags);
	struct ntm_route r = {.kind = NTM_ROUTE_BASELINE};
	if (!small && op == NTMEM_OP_COPY && overlap) {
		r.kind = NTM_ROUTE_OVERLAP;
		return r;
	}
	if (__builtin_expect(!p, 0)) {
		r.v = ntm_select_baseline(op, !!(flags & NTMEM_F_NONTEMPORAL));
		r.streams = ntm_streams(r.v);
		r.kind = small ? NTM_ROUTE_SMALL : NTM_ROUTE_BASELINE;
		return r;
	}
	if (small) {
		r.v = ntm_ladder_variant(&p->ladder[cls], n, flags);
		r.kind = NTM_ROUTE_SMALL;
		return r;
	}
	if (!flags && n <= p->inline_max[op]) {
		r.v = p->loop[op];
		r.kind = NTM_ROUTE_INLINE;
		return r;
	}
	return ntm_select_rung(p, cls, n, flags);
}

/* The variant a call beyond the small path runs, for callers that run
 * variants themselves and do not take part in the learning (the safe
 * and parallel calls): a LEARNED route's side in use.  rest_of_hinted:
 * the bytes are the rest of a call that named a hot region, which says
 * they will not be read soon: they stream, unless the call asks for
 * cached stores. */
static inline const struct variant *ntm_select_variant(const struct policy *p,
						       enum ntmem_class cls,
						       size_t n, unsigned flags,
						       int rest_of_hinted)
{
	if (rest_of_hinted && !(flags & NTMEM_F_TEMPORAL))
		flags |= NTMEM_F_NONTEMPORAL;
	if (!p)
		return ntm_select_baseline(ntm_op_of(cls), !!(flags & NTMEM_F_NONTEMPORAL));
	struct ntm_route r = ntm_select_rung(p, cls, n, flags);
	return r.kind == NTM_ROUTE_LEARNED ? ntm_learned_in_use(r) : r.v;
}

/* Whether rung i of class cls writes around the cache: its variant
 * streams, or at its sizes the CPU stops allocating for it (ladder.h's
 * around).  For reports: the fence a call owes is its route's streams. */
static inline int ntm_select_around_cache(const struct policy *p,
					  enum ntmem_class cls, unsigned i)
{
	const struct ladder *l = &p->ladder[cls];
	return ntm_streams(l->v[i]) || l->around[i];
}

/* Run any route but LEARNED (route.h) for an entry point: OVERLAP the C
 * library's memmove, the others their variant, then the fence unless
 * NTMEM_F_NOFENCE.  Returns dst. */
void *ntm_route_set(struct ntm_route r, void *dst, int c, size_t n, unsigned flags);
void *ntm_route_copy(struct ntm_route r, void *dst, const void *src, size_t n,
		     unsigned flags);

/* Set ntm_limits.inline_max from p (the process's policy, once built). */
void ntm_select_set_inline(const struct policy *p);

/* Set the shim's limits for an entry width (enum ntm_width) the process
 * may use, or all 0 while the shim counts its calls (every call then
 * takes its route). */
void ntm_select_set_shim(int width, int counting);

#endif
