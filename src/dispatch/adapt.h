/*
 * adapt.h - the choice made on real calls, at the edges where the best
 * method moves with the host's state.
 *
 * Whether cached or streaming stores win near the last-level cache's size
 * depends on how much of that cache this process gets, which neighbours
 * change from hour to hour.  On one Zen 3 model a 16 MiB memset of 0x5a
 * ran at 11.5 GB/s cached and 19.4 streaming one day, and at 45.8 and
 * 22.7 on another (docs/results.md): no static ladder wins both.
 *
 * So a call within a factor of two of an edge between a cached and a
 * streaming rung, from NTM_ADAPT_MIN bytes (tens of microseconds: two
 * clock reads cost nothing next to it), takes part in trials: per
 * power-of-two size, every NTM_ADAPT_PERIOD calls, NTM_ADAPT_STREAMED
 * calls run the streaming side (the first untimed), then
 * NTM_ADAPT_CACHED the cached side, the first NTM_ADAPT_CACHED_WARM of
 * them untimed: streaming stores evict what they write, and a cached
 * memset of 16 MiB then takes 5 to 8 calls to come back to L3 speed (14,
 * 19, 25, 26, 32, 31, 33, 36 GB/s on Zen 3).  Ending on the cached side
 * leaves the cache settled if it wins.  The rest of the period runs the
 * side whose timed calls took fewer nanoseconds a byte.  Only edges up
 * to 4 times the L3 take part, where the cache's share decides; edges
 * NTMEM_TUNABLES set are left as set, and adapt=0 turns it off.
 */
#ifndef NTM_ADAPT_H
#define NTM_ADAPT_H

#include <stddef.h>
#include <stdint.h>

#include "ladder.h"

#define NTM_ADAPT_MIN ((size_t)1 << 20)
#define NTM_ADAPT_PERIOD 1024u
#define NTM_ADAPT_STREAMED 4u
#define NTM_ADAPT_CACHED 12u
#define NTM_ADAPT_CACHED_WARM 6u

/* One size (a power of two) at one edge: touched with atomics only, so
 * any thread, a signal handler included, may take part. */
struct adapt_slot {
	unsigned calls;                 /* calls so far, mod the period */
	unsigned pick;                  /* 1: the lower rung's, 2: the
					   upper's; 0: not decided yet */
	uint64_t best[2];               /* this trial's least ns per MiB */
	unsigned long long trials;      /* trials decided */
	unsigned long long switches;    /* of which changed the side in use */
};

/* Is the edge between rungs j and j + 1 of l contested: one streams, the
 * other not, and NTMEM_TUNABLES set neither? */
int ntm_adapt_contested(const struct ladder *l, unsigned j);

/* The sizes tried at that edge, from *from to *to bytes; 0 if none. */
int ntm_adapt_band(const struct ladder *l, unsigned j, size_t *from,
		   size_t *to);

/* The edges of l that take part: a bit for each j, contested, up to
 * 4 * l3 bytes (l3: the cache the policy plans with; 0: unknown, then
 * 64 MiB). */
unsigned ntm_adapt_edges(const struct ladder *l, size_t l3);

/* The least size a call of l takes part from, with edges; SIZE_MAX if
 * none. */
size_t ntm_adapt_from(const struct ladder *l, unsigned edges);

/* The edge of those in edges a call of n bytes is tried at (j, for the
 * edge between rungs j and j + 1), or -1 where none is within a factor
 * of two of n, or n is below NTM_ADAPT_MIN. */
int ntm_adapt_edge(const struct ladder *l, unsigned edges, size_t n);

/* The side (0: lower, 1: upper) a call in slot s runs, and in *timed
 * whether to time it.  own: the ladder's side for the call, in use until
 * the first trial is decided; streaming: the side that streams. */
unsigned ntm_adapt_side(struct adapt_slot *s, unsigned own,
			unsigned streaming, int *timed);

/* A timed call of n bytes on side ran in ns nanoseconds. */
void ntm_adapt_record(struct adapt_slot *s, unsigned side, size_t n,
		      uint64_t ns);

/* The process's slot for class cls, edge j, and n bytes. */
struct adapt_slot *ntm_adapt_slot(int cls, const struct ladder *l, int j,
				  size_t n);

/* The trials decided and the switches of the process's slots at edge j
 * of class cls, summed. */
void ntm_adapt_counts(int cls, int j, unsigned long long *trials,
		      unsigned long long *switches);

/* What a call in the process's trials runs, and its clock. */
struct adapt_call {
	struct adapt_slot *slot;        /* NULL: not timed */
	unsigned side;
	uint64_t t0;
};
const struct variant *ntm_adapt_begin(int cls, const struct ladder *l,
				      unsigned edges, size_t n,
				      struct adapt_call *a);
void ntm_adapt_end(const struct adapt_call *a, size_t n);

#endif
