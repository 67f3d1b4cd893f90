/*
 * learn.h - learning on real calls: from 1 MiB up, the selector times the
 * ladder's choice (the prior) against its rivals of the other kinds now
 * and then, and keeps the fastest.
 *
 * Why: which method wins near and above the last-level cache moves with
 * the host: on one Zen 3 model cached and streaming stores swapped places
 * at 16 MiB from one day to the next, and a CPU nobody recorded starts
 * from a family rule that can be far from the best (docs/results.md,
 * "Trials at contested edges").  Two clock reads cost under 0.5% of a call from
 * 1 MiB (tens of microseconds), so there the calls themselves can say.
 *
 * How, per class and power-of-two size (a band):
 *   - the candidates ("sides") are the ladder's variants in the band and
 *     the best of each other kind (cached vector, rep string, streaming),
 *     at most NTM_LEARN_SIDES, fixed when the policy is built;
 *   - the first learn_after calls (1024 by default) run the ladder's
 *     choice: a short-lived program never explores;
 *   - then a trial: every side but the one in use runs its warm-up calls
 *     (untimed: one, or NTM_LEARN_WARM_CACHED for a cached side after a
 *     streaming one near the cache, whose lines the streaming stores
 *     evicted) and NTM_LEARN_SAMPLES timed calls; the side in use goes
 *     last, the same way, so the trial ends with the cache as it was;
 *   - each trial has an epoch, and each sample carries it: a sample that
 *     comes late (its call outlived the trial) is dropped, never counted
 *     in the next.  The call that records the trial's last sample
 *     decides: the side with the least nanoseconds per MiB (the least of
 *     its samples; every side has as many), a change only if it is
 *     NTM_LEARN_MARGIN_PCT faster than the side in use;
 *   - the next trial comes a period later: NTM_LEARN_PERIOD_MIN calls
 *     after a change, doubling while the decision holds, up to
 *     NTM_LEARN_PERIOD_MAX.  A trial whose samples never all arrive (a
 *     call that longjmp'd out of a signal handler) is given up
 *     NTM_LEARN_GRACE calls after its end, keeping the side in use.
 *
 * The cost is bounded: a trial runs the sides that lose at most
 * (NTM_LEARN_SIDES - 1) * (NTM_LEARN_WARM_CACHED + NTM_LEARN_SAMPLES)
 * calls, which is under 2% of the calls before the first trial and of
 * every period (ntm_learn_bound()).
 *
 * Whose state: an L3 domain's (NTM_LEARN_DOMAINS slots, chosen by the
 * CPU the call runs on).  What decides between cached and streaming
 * stores is how much of the L3 a call gets and what else streams through
 * it, which every thread on that L3 shares, and threads on another L3
 * do not.  Per thread, each thread would learn the same answer anew, and
 * short-lived threads never; per process, threads on two sockets would
 * overrule each other.  The slots are touched with atomics only: any
 * thread, and a signal handler, may take part.
 */
#ifndef NTM_LEARN_H
#define NTM_LEARN_H

#include <stddef.h>
#include <stdint.h>

#include "variants/variant.h"

#define NTM_LEARN_MIN_LOG2 20
#define NTM_LEARN_MIN ((size_t)1 << NTM_LEARN_MIN_LOG2)
#define NTM_LEARN_BANDS 24          /* 1 MiB .. 8 TiB, the last open */
#define NTM_LEARN_SIDES 4
#define NTM_LEARN_SAMPLES 3
#define NTM_LEARN_WARM 1u
#define NTM_LEARN_WARM_CACHED 6u    /* a cached 16 MiB memset after
				       streaming ones took 5 to 8 calls to
				       come back to L3 speed (Zen 3) */
#define NTM_LEARN_AFTER 1024u
#define NTM_LEARN_PERIOD_MIN 1024u
#define NTM_LEARN_PERIOD_MAX 65536u
#define NTM_LEARN_MARGIN_PCT 2u
#define NTM_LEARN_GRACE 256u
#define NTM_LEARN_DOMAINS 8

/* One band's candidates, fixed when the policy is built. */
struct learn_band {
	unsigned char nsides;          /* 0 or 1: the band does not learn */
	unsigned char near_cache;      /* below 4 times the L3: a cached side
					  after a streaming one warms up
					  longer */
	const struct variant *side[NTM_LEARN_SIDES];
};

/* The band of a call of n >= NTM_LEARN_MIN bytes. */
static inline unsigned ntm_learn_band_of(size_t n)
{
	unsigned k = (unsigned)(63 - __builtin_clzll((unsigned long long)n)) -
		     NTM_LEARN_MIN_LOG2;
	return k < NTM_LEARN_BANDS ? k : NTM_LEARN_BANDS - 1;
}

/* The first size of band k. */
static inline size_t ntm_learn_band_from(unsigned k)
{
	return NTM_LEARN_MIN << k;
}

/* One band's state in one L3 domain.  trial packs the epoch (24 bits),
 * the side in use + 1 (0: none decided yet; 3 bits), log2 of the period
 * (5 bits) and the low 32 bits of the first call of the next or running
 * trial; tally the epoch and the samples recorded in it; each sample the
 * epoch (24 bits) and the nanoseconds per MiB. */
struct learn_slot {
	uint64_t calls;
	uint64_t trial;
	uint64_t tally;
	uint64_t sample[NTM_LEARN_SIDES][NTM_LEARN_SAMPLES];
	uint64_t trials;               /* decided */
	uint64_t switches;             /* of which changed the side in use */
} __attribute__((aligned(64)));

/* What one call does in a band: the side, and whether it is timed. */
struct learn_ticket {
	struct learn_slot *slot;       /* NULL: not timed */
	uint32_t epoch;
	unsigned char side, sample;
};

/* Start a slot: the first trial after `after` calls. */
void ntm_learn_init(struct learn_slot *s, unsigned after);

/* The side (index into b->side) a call runs; prior is the side the
 * ladder gives for its size, run until a trial has decided.  Fills *t,
 * whose slot is NULL unless the call is to be timed. */
unsigned ntm_learn_begin(struct learn_slot *s, const struct learn_band *b,
			 unsigned prior, struct learn_ticket *t);

/* A timed call of n bytes took ns nanoseconds.  The call that brings the
 * trial its last sample decides. */
void ntm_learn_end(const struct learn_ticket *t, const struct learn_band *b,
		   size_t n, uint64_t ns);

/* The side calls run now, without taking part: the decided one, else
 * prior. */
unsigned ntm_learn_in_use(const struct learn_slot *s, unsigned prior);

/* How far s is: calls so far, trials decided, switches, the side decided
 * (-1: none yet), and calls until the next trial starts (0: running). */
struct learn_state {
	unsigned long long calls, trials, switches, next_trial_in;
	int decided;
	unsigned period;
};
void ntm_learn_state(const struct learn_slot *s, struct learn_state *st);

/* Calls of one trial in b, and of those at most how many run sides that
 * lose. */
unsigned ntm_learn_trial_calls(const struct learn_band *b);
unsigned ntm_learn_bound(const struct learn_band *b);

/* The process's slot of class cls and band k for the calling thread's
 * L3 domain.  The domain's row of slots is claimed and started (trials
 * after `after` calls) the first time a thread on it asks, reading its
 * CPU's L3 from sysfs by raw system calls: no lock, no allocation, no
 * cancellation point.  NULL while another thread starts that row: the
 * call then does not learn. */
struct learn_slot *ntm_learn_slot(int cls, unsigned k, unsigned after);

/* For the tests: claim the row of every online CPU's L3 and (re)start
 * every claimed row, trials after `after` calls.  Not for a call path. */
void ntm_learn_domains_init(unsigned after);

/* The L3 domains of the online CPUs, at most NTM_LEARN_DOMAINS (at least
 * 1), from sysfs: for reports. */
unsigned ntm_learn_domains(void);

#endif
