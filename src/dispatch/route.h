/* route.h - what the selector (select.h) decides for one call: its route.
 * Two words, so that it travels in registers and an entry point hands it
 * on as a tail call to whatever runs it (select.c, or learn.c for a
 * call in a band that learns). */
#ifndef NTM_ROUTE_H
#define NTM_ROUTE_H

#include <stddef.h>
#include <stdint.h>

#include "variants/variant.h"

struct learn_band;
struct learn_ticket;

/* A call of class cls, n bytes and flags takes one of these routes:
 *
 *   SMALL     n up to the entry width's small path (8 vectors; 32 bytes
 *             of words on the portable width), unless it asks to stream;
 *   INLINE    n up to ntm_limits.inline_max[op], no flags, buffers apart:
 *             the entry width's own cached loop, run inline;
 *   OVERLAP   a copy whose buffers overlap, beyond the small path: the C
 *             library's memmove;
 *   BASELINE  before the library's constructor has built the policy: the
 *             baseline variants, or the C library's function once the
 *             constructor has begun;
 *   RUNG      the ladder's variant for n and flags;
 *   LEARNED   from NTM_LEARN_MIN up, with no flag but NTMEM_F_NOFENCE,
 *             where the band has rivals: the side the learning runs. */
enum ntm_route_kind {
	NTM_ROUTE_SMALL,
	NTM_ROUTE_INLINE,
	NTM_ROUTE_OVERLAP,
	NTM_ROUTE_BASELINE,
	NTM_ROUTE_RUNG,
	NTM_ROUTE_LEARNED
};

struct ntm_route {
	union {
		const struct variant *v;       /* every route but OVERLAP
						  (NULL) and LEARNED: what
						  runs (SMALL: the ladder's
						  choice, for reports) */
		const struct learn_band *band; /* LEARNED */
	};
	unsigned kind : 3;      /* enum ntm_route_kind */
	unsigned streams : 1;   /* v streams: the call fences after it */
	unsigned cls : 2;       /* LEARNED: the class, */
	unsigned k : 5;         /* the band, */
	unsigned prior : 2;     /* and the ladder's choice among its sides */
	unsigned after;         /* LEARNED: a band's calls before it learns */
};

/* Run a LEARNED route (learn.c): through the band's gate, then the side
 * the learning gives, timed when it is one of a trial's samples, and the
 * fence unless NTMEM_F_NOFENCE.  For the entry points, whose calls take
 * part.  Returns dst. */
void *ntm_learned_set(struct ntm_route r, void *dst, int c, size_t n,
		      unsigned flags);
void *ntm_learned_copy(struct ntm_route r, void *dst, const void *src,
		       size_t n, unsigned flags);

/* The same in parts, for a caller that must know the side before it runs
 * it (the shim's counting wrappers): the side's variant and the ticket,
 * then, after the call, the clock before (t0) and after it (t1). */
const struct variant *ntm_learned_take(struct ntm_route r, struct learn_ticket *t);
void ntm_learned_done(struct ntm_route r, const struct learn_ticket *t, size_t n,
		      uint64_t t0, uint64_t t1);

/* The side calls of a LEARNED route run now, for those that do not take
 * part (the safe and parallel calls, reports): no count, no clock. */
const struct variant *ntm_learned_in_use(struct ntm_route r);

#endif
