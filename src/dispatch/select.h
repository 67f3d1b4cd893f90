/*
 * select.h - the selector: the one place that decides which route every
 * call takes, and that every report asks.
 *
 * A call of class cls, n bytes and flags takes one of these routes:
 *
 *   SMALL     n up to the entry width's small path (8 vectors; 32 bytes
 *             of words on the portable width), unless it asks to stream;
 *   INLINE    n up to ntm_limits.inline_max[op], no flags, buffers apart:
 *             the entry width's own cached loop, run inline;
 *   OVERLAP   a copy whose buffers overlap, beyond the small path: the C
 *             library's memmove;
 *   BASELINE  before the policy is built: the baseline variants, or the
 *             C library's function once the constructor has run;
 *   RUNG      the ladder's variant for n and flags;
 *   LEARNED   from NTM_LEARN_MIN up, without flags, where the band has
 *             rivals: the side the learning runs (learn.h), timed when
 *             it is one of a trial's samples.
 *
 * The entry points' assembly takes SMALL and INLINE itself, from
 * ntm_limits and its own size classes (test_select checks that both
 * agree), and hands every other call to C, which asks ntm_select().  So
 * do the safe calls, the parallel ones (once per extent), the shim's
 * counting wrappers (which record the route that ran) and every
 * reporter: ntmem_policy_choice(), "ntmem info", "ntmem run --report".
 */
#ifndef NTM_SELECT_H
#define NTM_SELECT_H

#include <stddef.h>

#include "learn.h"
#include "policy.h"

enum ntm_route_kind {
	NTM_ROUTE_SMALL,
	NTM_ROUTE_INLINE,
	NTM_ROUTE_OVERLAP,
	NTM_ROUTE_BASELINE,
	NTM_ROUTE_RUNG,
	NTM_ROUTE_LEARNED
};

/* Who asks: an entry point takes part in the learning (its calls count
 * and may be timed); the others get the side in use without taking part:
 * the safe calls (their guarded forms are other code), parallel extents
 * (split over threads, not one call's time) and reports. */
enum ntm_caller {
	NTM_CALLER_ENTRY,
	NTM_CALLER_SAFE,
	NTM_CALLER_PARALLEL,
	NTM_CALLER_QUERY
};

struct ntm_route {
	enum ntm_route_kind kind;
	const struct variant *v;        /* the variant run (INLINE: the
					   width's loop; SMALL, OVERLAP:
					   NULL) */
	struct learn_ticket ticket;     /* LEARNED: slot NULL unless timed */
	const struct learn_band *band;  /* LEARNED: the band */
};

/*
 * What the assembly reads: the selector's decisions that are one size
 * compare each.  All 0 until the library's constructor has run, so that
 * every call past the small path comes to C and the selector; while the
 * policy is deferred, inline_max is as far as every built-in ladder runs
 * the loop (select.c).
 *   inline_max[op]     the entries run their loop up to this many bytes
 *                      (where every ladder of op starts with it, and
 *                      below NTM_LEARN_MIN where the learning starts);
 *   shim_*             the dispatching shim's direct paths
 *                      (preload_x86_64.S): the classes of the AVX-512
 *                      width below shim_evex_end, of the AVX2 width below
 *                      shim_avx2_end (each all ones where the shim runs
 *                      that width, else 0), and where neither serves, the
 *                      SSE2 width's below shim_sse2_below (129, or 0;
 *                      the other names' too, in preload.c).
 */
struct ntm_limits {
	size_t inline_max[2];
	size_t shim_evex_end, shim_avx2_end, shim_sse2_below;
};
extern struct ntm_limits ntm_limits NTM_HIDDEN;

/* The small path's reach on this process's entry width. */
size_t ntm_select_small_max(void);

/* The small path's rule: n up to small_max, unless the call asks to
 * stream (which a call of 0 bytes never needs). */
static inline int ntm_select_is_small(size_t n, size_t small_max,
				      unsigned flags)
{
	return n <= small_max && (!(flags & NTMEM_F_NONTEMPORAL) || n == 0);
}

/* The learning's part of the selector (select.c): r holds the ladder's
 * choice, which it may replace with a side of the band. */
void ntm_select_learned(struct ntm_route *r, const struct policy *p,
			enum ntmem_class cls, size_t n, unsigned flags,
			enum ntm_caller caller);

/* Before the policy is built: until the library's constructor has run,
 * the architecture's baseline (registry.h), which needs nothing detected;
 * from then on, while the policy waits to be built (policy.h,
 * NTM_DEFERRED_CALLS), the C library's function for a cached call, as
 * fast as the C library on every CPU.  Between the constructor's first
 * step and its ntm_libc_resolve() that is ntmem's portable loops (libc.h):
 * correct, not fast. */
static inline const struct variant *ntm_select_baseline(enum ntmem_op op,
							int streaming)
{
	if (!streaming &&
	    __atomic_load_n(&ntm_policy_state, __ATOMIC_RELAXED) != NTM_POLICY_NOT_BUILT)
		return ntm_libc_variant(op);
	return ntm_baseline(op, streaming);
}

/* The route of a call beyond the small path and the inline loop: RUNG,
 * LEARNED, or BASELINE before the policy is built. */
static inline void ntm_select_beyond(struct ntm_route *r, const struct policy *p,
				     enum ntmem_class cls, size_t n,
				     unsigned flags, enum ntm_caller caller)
{
	r->ticket.slot = NULL;
	if (__builtin_expect(!p, 0)) {
		r->kind = NTM_ROUTE_BASELINE;
		r->v = ntm_select_baseline(ntm_op_of(cls),
					   !!(flags & NTMEM_F_NONTEMPORAL));
		return;
	}
	r->kind = NTM_ROUTE_RUNG;
	r->v = ntm_ladder_variant(&p->ladder[cls], n, flags);
	if (n >= p->learn_from[cls] &&
	    !(flags & (NTMEM_F_TEMPORAL | NTMEM_F_NONTEMPORAL)))
		ntm_select_learned(r, p, cls, n, flags, caller);
}

/* The route of a call: class cls, n bytes, flags valid and without
 * NTMEM_F_PARALLEL, overlap whether a copy's buffers overlap.  p is the
 * policy (ntm_policy_ready(); NULL: not built yet).  Every route but
 * OVERLAP names a variant C can run for the call (SMALL: the ladder's
 * first). */
static inline void ntm_select(struct ntm_route *r, const struct policy *p,
			      enum ntmem_class cls, size_t n, unsigned flags,
			      int overlap, enum ntm_caller caller)
{
	enum ntmem_op op = ntm_op_of(cls);
	size_t small_max = p ? p->small_max : ntm_select_small_max();
	int small = ntm_select_is_small(n, small_max, flags);
	if (!small && op == NTMEM_OP_COPY && overlap) {
		r->kind = NTM_ROUTE_OVERLAP;
		r->v = NULL;
		r->ticket.slot = NULL;
		return;
	}
	if (small || !p || flags || n > p->inline_max[op]) {
		ntm_select_beyond(r, p, cls, n, flags, small ? NTM_CALLER_QUERY : caller);
		if (small)
			r->kind = NTM_ROUTE_SMALL;
		return;
	}
	r->kind = NTM_ROUTE_INLINE;
	r->v = p->loop[op];
	r->ticket.slot = NULL;
}

/* The common case of an entry point's call beyond the small path and
 * the inline loop, kept to a few loads so that it reaches its variant as
 * a tail call: the rung's variant when the route is a RUNG that streams
 * not (so needs no fence) and learns not (so needs no clock); else NULL,
 * and the caller takes the whole route from ntm_select().  Copies check
 * overlap first. */
static inline const struct variant *ntm_select_cached_rung(const struct policy *p,
							    enum ntmem_class cls,
							    size_t n, unsigned flags)
{
	if (__builtin_expect(!p, 0) ||
	    (n >= p->learn_from[cls] &&
	     !(flags & (NTMEM_F_TEMPORAL | NTMEM_F_NONTEMPORAL))))
		return NULL;
	const struct variant *v = ntm_ladder_variant(&p->ladder[cls], n, flags);
	return ntm_streams(v) ? NULL : v;
}

/* The variant a call beyond the small path runs, for callers that run
 * variants themselves (safe, parallel): never timed. */
static inline const struct variant *ntm_select_variant(const struct policy *p,
						       enum ntmem_class cls,
						       size_t n, unsigned flags,
						       enum ntm_caller caller)
{
	struct ntm_route r;
	ntm_select_beyond(&r, p, cls, n, flags, caller);
	return r.v;
}

/* Run a RUNG, LEARNED or BASELINE route: the variant, the fence unless
 * NTMEM_F_NOFENCE, the learning's clock if timed.  Returns dst. */
void *ntm_route_set(const struct ntm_route *r, void *dst, int c, size_t n,
		    unsigned flags);
void *ntm_route_copy(const struct ntm_route *r, void *dst, const void *src,
		     size_t n, unsigned flags);

/* For "ntmem calibrate" only, which measures each candidate as the entry
 * points will call it: every ladder of op becomes the single rung v (for
 * memset of other values, v's twin if v writes zeros only), the entry
 * points run v inline if it is their own loop, and nothing learns.  Not
 * thread-safe: the caller is the process's only thread using ntmem. */
void ntm_select_pin(enum ntmem_op op, const struct variant *v);

/* The shim says, in a constructor that runs before the policy is built,
 * that the process's entry points are its own: then NTMEM_TUNABLES
 * shim_width= chooses their width, and the process's policy is built for
 * it.  Elsewhere the width is CPUID's, fixed as the library is loaded. */
void ntm_select_serve_shim(void);

/* The width of the process's entry points: the forced one, else CPUID's. */
enum ntm_width ntm_select_width(void);

/* Set ntm_limits.inline_max from p (the process's policy, once built). */
void ntm_select_set_inline(const struct policy *p);

/* Set the shim's limits for an entry width (enum ntm_width), or all 0
 * while the shim counts its calls (every call then takes its route). */
void ntm_select_set_shim(int width, int counting);

/* The band a call of class cls and n bytes learns in, and the index
 * among its sides of the ladder's choice for n; NULL where none learns. */
const struct learn_band *ntm_select_band(const struct policy *p,
					 enum ntmem_class cls, size_t n,
					 unsigned *prior);

#endif
