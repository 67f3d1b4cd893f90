/*
 * learn.h - learning on real calls: from 1 MiB up, the calls time the
 * ladder's choice (the prior) against its rivals of the other kinds now
 * and then, and keep the fastest.
 *
 * Why: which method wins near and above the last-level cache moves with
 * the host: on one Zen 3 model cached and streaming stores swapped places
 * at 16 MiB from one day to the next, and a CPU nobody recorded starts
 * from a family rule that can be far from the best (docs/results.md,
 * "Trials at contested edges").  Two clock reads are a small part of a
 * call from 1 MiB (tens of microseconds), so there the calls themselves
 * can say.
 *
 * How, per class and power-of-two size (a band):
 *   - the candidates ("sides") are the ladder's variants in the band and
 *     the best of each other kind (cached vector, rep string, streaming),
 *     at most NTM_LEARN_SIDES, fixed when the policy is built;
 *   - the first learn_after calls of a band (1024 by default) run the
 *     ladder's choice, and cost one relaxed add each: nothing else of
 *     the learning runs, so a short-lived program pays nothing;
 *   - then, per L3 domain, a trial: the side in use (at the first trial
 *     the prior) goes last, the other sides before it, the streaming ones
 *     first; each runs its warm-up calls (untimed: one, or
 *     NTM_LEARN_WARM_CACHED for a cached side after a streaming one near
 *     the cache, whose lines the streaming stores evicted) and
 *     NTM_LEARN_SAMPLES timed calls, so the trial ends with the cache as
 *     it was;
 *   - each trial has an epoch, and each sample carries it: a sample that
 *     comes late (its call outlived the trial) is dropped, never stored
 *     over a later trial's nor counted in it.  The call that records the
 *     trial's last sample decides: the side with the least nanoseconds
 *     per MiB (the least of its samples; every side has as many), a
 *     change only if it is NTM_LEARN_MARGIN_PCT faster than the side in
 *     use;
 *   - the next trial comes a period later: NTM_LEARN_PERIOD_MIN calls
 *     after a change, doubling while the decision holds, up to
 *     NTM_LEARN_PERIOD_MAX.  A trial whose samples never all arrive (a
 *     call that longjmp'd out of a signal handler) is given up
 *     NTM_LEARN_GRACE calls after its end, keeping the side in use.
 *
 * The cost is bounded: with the streaming sides first, a trial has at
 * most one warm-up of NTM_LEARN_WARM_CACHED, so at most
 * NTM_LEARN_MOST_LOSING of its calls run sides that lose, under 2% of
 * the NTM_LEARN_PERIOD_MIN calls between two trials and of the default
 * learn_after before the first (test_learn proves it for every order of
 * sides).
 *
 * Whose state: a domain's, where a domain is a NUMA node (modulo
 * NTM_LEARN_DOMAINS).  What decides between cached and streaming stores
 * is how much of the L3 a call gets and what else streams through it,
 * which the threads on that L3 share and threads on another socket do
 * not.  Per thread, each thread would learn the same answer anew, and
 * short-lived threads never; per process, threads on two sockets would
 * overrule each other.  Which CPUs each node has is read as the library
 * loads; a call asks only which CPU it runs on (sched_getcpu, which
 * glibc answers from rseq, or the vDSO), and only where there is more
 * than one node.  All-zero state is a domain's state before its first
 * trial: nothing is claimed or started, by a call or by a fork.  The
 * state is touched with atomics only: any thread, and a signal handler,
 * may take part.
 */
#ifndef NTM_LEARN_H
#define NTM_LEARN_H

#include <stddef.h>
#include <stdint.h>

#include "variants/variant.h"

#define NTM_LEARN_MIN_LOG2 20
#define NTM_LEARN_MIN ((size_t)1 << NTM_LEARN_MIN_LOG2)
#define NTM_LEARN_BANDS 14          /* 1 MiB .. 8 GiB, the last open: calls
				       that large are few, and alike; fewer
				       bands are less for the constructor
				       to make (ntmem.h keeps room for 24) */
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
/* The most calls of one trial that run a side that loses: all its calls
 * (every side's samples, a warm-up before each, one of them cached)
 * but the winner's, when the winner needed the fewest. */
#define NTM_LEARN_MOST_LOSING                                               \
	(NTM_LEARN_SIDES * NTM_LEARN_SAMPLES + (NTM_LEARN_SIDES - 1) *      \
	 NTM_LEARN_WARM + NTM_LEARN_WARM_CACHED - NTM_LEARN_WARM - NTM_LEARN_SAMPLES)

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

/* One band's state in one domain; all zero before its first trial.
 * trial packs the epoch (24 bits), the side in use + 1 (0: none yet; 3
 * bits), the period's doublings over NTM_LEARN_PERIOD_MIN (5 bits) and
 * the low 32 bits of the call at which the next or running trial starts;
 * tally the epoch and the samples recorded in it; each sample the epoch
 * + 1 (0: none) and the nanoseconds per MiB.  The rest are counts for
 * the reports: trials decided, those that changed the side, the calls
 * that ran a side other than the one the trial kept, the timed calls,
 * and what their clock reads cost. */
struct learn_slot {
	uint64_t calls;
	uint64_t trial;
	uint64_t tally;
	uint64_t sample[NTM_LEARN_SIDES][NTM_LEARN_SAMPLES];
	uint64_t trials, switches;
	uint64_t losing, timed, clock_ns;
} __attribute__((aligned(64)));

/* What one call does in a band: the side, and whether it is timed. */
struct learn_ticket {
	struct learn_slot *slot;       /* NULL: not timed */
	uint32_t epoch;
	unsigned char side, sample;
};

/* The side (index into b->side) a call runs; prior is the side the
 * ladder gives for its size, which is the side in use until a trial has
 * decided.  Fills *t, whose slot is NULL unless the call is to be timed.
 * The slot's first call starts its first trial. */
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
 * (-1: none yet), calls until the next trial starts (0: running), and
 * the learning's costs (calls that ran a side the trial did not keep,
 * calls timed, nanoseconds of their clock reads). */
struct learn_state {
	unsigned long long calls, trials, switches, next_trial_in;
	unsigned long long losing, timed, clock_ns;
	int decided;
	unsigned period;
};
void ntm_learn_state(const struct learn_slot *s, struct learn_state *st);

/* Calls of one trial in b, and of those at most how many run sides that
 * lose (never more than NTM_LEARN_MOST_LOSING). */
unsigned ntm_learn_trial_calls(const struct learn_band *b);
unsigned ntm_learn_bound(const struct learn_band *b);

/* A band's calls so far pass its gate: the first `after` calls of the
 * band (*count, one relaxed add each) return 0 and the rest 1. */
static inline int ntm_learn_gate(uint64_t *count, unsigned after)
{
	if (__atomic_load_n(count, __ATOMIC_RELAXED) >= after)
		return 1;
	return __atomic_fetch_add(count, 1, __ATOMIC_RELAXED) >= after;
}

/* The process's learning: its bands' gates and each domain's slots. */

/* Read which CPUs each NUMA node has, as the library loads (one sysfs
 * file where there is one node).  Called once, before any call. */
void ntm_learn_setup(void);

/* The gate of class cls, band k. */
uint64_t *ntm_learn_gate_of(int cls, unsigned k);

/* The slot of class cls, band k, for the domain of the CPU the calling
 * thread runs on.  No system call where glibc registered rseq or the
 * kernel has a vDSO getcpu, and none at all on one node. */
struct learn_slot *ntm_learn_slot(int cls, unsigned k);

/* The slot of class cls, band k in domain d (< NTM_LEARN_DOMAINS), for
 * reports that sum over the domains. */
const struct learn_slot *ntm_learn_domain_slot(unsigned d, int cls, unsigned k);

/* The domains that learn apart: the nodes, at most NTM_LEARN_DOMAINS. */
unsigned ntm_learn_domains(void);

#endif
