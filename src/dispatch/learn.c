/* learn.c - learning on real calls (learn.h): a band's state machine in
 * one domain, and the process's bands and domains. */
#define _GNU_SOURCE
#include "learn.h"

#include <errno.h>
#include <sched.h>
#include <stdio.h>
#include <string.h>

#include "cpu.h"
#include "ntmem.h"
#include "route.h"
#include "util/clock.h"
#include "variants/fence.h"

/* The trial word: epoch, side in use + 1, the period's doublings, and the
 * low 32 bits of the trial's first call.  Positions within a period are
 * differences of 32-bit call counts, so they survive the count's wrap;
 * so do epochs, modulo 2^24. */
#define EPOCH_MASK ((1u << 24) - 1)
#define TRIAL_EPOCH(tr) ((uint32_t)((tr) >> 40) & EPOCH_MASK)
#define TRIAL_IN_USE(tr) ((unsigned)((tr) >> 37) & 7u)
#define TRIAL_DOUBLINGS(tr) ((unsigned)((tr) >> 32) & 31u)
#define TRIAL_AT(tr) ((uint32_t)(tr))
/* A sample: its epoch + 1 (0: none; 25 bits), and nanoseconds per MiB
 * below it. */
#define SAMPLE_SHIFT 39
#define SAMPLE_MAX (((uint64_t)1 << SAMPLE_SHIFT) - 1)
#define SAMPLE_TAG(v) ((uint32_t)((v) >> SAMPLE_SHIFT))

static uint64_t trial_word(uint32_t epoch, unsigned in_use, unsigned doublings,
			   uint32_t at)
{
	return (uint64_t)epoch << 40 | (uint64_t)in_use << 37 |
	       (uint64_t)doublings << 32 | at;
}

static uint32_t next_epoch(uint32_t epoch)
{
	return (epoch + 1) & EPOCH_MASK;
}

static unsigned log2_of(unsigned x)
{
	return (unsigned)(31 - __builtin_clz(x));
}

#define MOST_DOUBLINGS (log2_of(NTM_LEARN_PERIOD_MAX) - log2_of(NTM_LEARN_PERIOD_MIN))

/* Untimed calls before side s's timed ones, when side prev ran before. */
static unsigned warm(const struct learn_band *b, unsigned prev, unsigned s)
{
	return b->near_cache && ntm_streams(b->side[prev]) && !ntm_streams(b->side[s])
		       ? NTM_LEARN_WARM_CACHED : NTM_LEARN_WARM;
}

/* The k-th side of a trial whose side in use is last: the others, the
 * streaming ones first, then last.  After the side in use, the trial
 * then turns from streaming to cached stores at most once, so at most
 * one side warms up for NTM_LEARN_WARM_CACHED calls. */
static unsigned trial_side(const struct learn_band *b, unsigned last, unsigned k)
{
	if (k + 1 == b->nsides)
		return last;
	for (int streaming = 1; streaming >= 0; streaming--)
		for (unsigned s = 0; s < b->nsides; s++)
			if (s != last && ntm_streams(b->side[s]) == streaming && k-- == 0)
				return s;
	return last;  /* not reached */
}

/* Position p of a trial whose side in use is last: its side, and its
 * sample (1) or a warm-up (0); -1 past the trial. */
static int schedule(const struct learn_band *b, unsigned last, uint32_t p,
		    unsigned *side, unsigned *sample)
{
	unsigned prev = last;
	for (unsigned k = 0; k < b->nsides; k++) {
		unsigned s = trial_side(b, last, k);
		unsigned w = warm(b, prev, s);
		*side = s;
		if (p < w)
			return 0;
		p -= w;
		if (p < NTM_LEARN_SAMPLES) {
			*sample = p;
			return 1;
		}
		p -= NTM_LEARN_SAMPLES;
		prev = s;
	}
	return -1;
}

/* Calls of a trial whose side in use is last, and of them those of side
 * `of` (its warm-ups and samples). */
static unsigned trial_length(const struct learn_band *b, unsigned last,
			     int of, unsigned *of_calls)
{
	unsigned prev = last, total = 0;
	for (unsigned k = 0; k < b->nsides; k++) {
		unsigned s = trial_side(b, last, k);
		unsigned n = warm(b, prev, s) + NTM_LEARN_SAMPLES;
		if ((int)s == of)
			*of_calls = n;
		total += n;
		prev = s;
	}
	return total;
}

unsigned ntm_learn_trial_calls(const struct learn_band *b)
{
	unsigned most = 0, unused;
	for (unsigned last = 0; last < b->nsides; last++) {
		unsigned n = trial_length(b, last, -1, &unused);
		most = n > most ? n : most;
	}
	return most;
}

unsigned ntm_learn_bound(const struct learn_band *b)
{
	unsigned most = 0;
	for (unsigned last = 0; last < b->nsides; last++)
		for (unsigned win = 0; win < b->nsides; win++) {
			unsigned winner = 0;
			unsigned n = trial_length(b, last, (int)win, &winner) - winner;
			most = n > most ? n : most;
		}
	return most;
}

/* Give up a trial whose samples did not all come: the side in use stays,
 * the next trial a period on. */
static void give_up(struct learn_slot *s, uint64_t tr, uint64_t ticket)
{
	uint32_t next = next_epoch(TRIAL_EPOCH(tr));
	unsigned d = TRIAL_DOUBLINGS(tr);
	uint64_t fresh = trial_word(next, TRIAL_IN_USE(tr), d,
				    (uint32_t)ticket + (NTM_LEARN_PERIOD_MIN << d));
	if (__atomic_compare_exchange_n(&s->trial, &tr, fresh, 0, __ATOMIC_RELEASE,
					__ATOMIC_RELAXED))
		__atomic_store_n(&s->tally, (uint64_t)next << 32, __ATOMIC_RELEASE);
}

/* The trial word of s with a side in use: at its first call a slot takes
 * the caller's prior as the side in use, so that the first trial runs it
 * last and holds it to the margin as every later one does. */
static uint64_t trial_in_use(struct learn_slot *s, unsigned prior)
{
	uint64_t tr = __atomic_load_n(&s->trial, __ATOMIC_ACQUIRE);
	while (!TRIAL_IN_USE(tr)) {
		uint64_t with = tr | (uint64_t)(prior + 1) << 37;
		if (__atomic_compare_exchange_n(&s->trial, &tr, with, 0, __ATOMIC_ACQ_REL,
						__ATOMIC_ACQUIRE))
			return with;
	}
	return tr;
}

unsigned ntm_learn_begin(struct learn_slot *s, const struct learn_band *b,
			 unsigned prior, struct learn_ticket *t)
{
	t->slot = NULL;
	uint64_t ticket = __atomic_fetch_add(&s->calls, 1, __ATOMIC_RELAXED);
	uint64_t tr = trial_in_use(s, prior);
	unsigned use = TRIAL_IN_USE(tr) - 1;
	uint32_t pos = (uint32_t)ticket - TRIAL_AT(tr);
	if (pos >= 0x80000000u)  /* the trial is still to come */
		return use;
	unsigned side, sample = 0;
	int timed = schedule(b, use, pos, &side, &sample);
	if (timed < 0) {
		if (pos >= ntm_learn_trial_calls(b) + NTM_LEARN_GRACE)
			give_up(s, tr, ticket);
		return use;
	}
	if (timed) {
		t->slot = s;
		t->epoch = TRIAL_EPOCH(tr);
		t->side = (unsigned char)side;
		t->sample = (unsigned char)sample;
	}
	return side;
}

/* The least nanoseconds per MiB of each side in this epoch's samples
 * (UINT64_MAX for a side with none). */
static void least_times(const struct learn_slot *s, const struct learn_band *b,
			uint32_t epoch, uint64_t *best)
{
	for (unsigned i = 0; i < b->nsides; i++) {
		best[i] = UINT64_MAX;
		for (unsigned k = 0; k < NTM_LEARN_SAMPLES; k++) {
			uint64_t v = __atomic_load_n(&s->sample[i][k], __ATOMIC_RELAXED);
			if (SAMPLE_TAG(v) == epoch + 1 && (v & SAMPLE_MAX) < best[i])
				best[i] = v & SAMPLE_MAX;
		}
	}
}

/* The side to keep: the fastest, unless the side in use is within the
 * margin of it (or the fastest has no sample at all). */
static unsigned keep(const uint64_t *best, unsigned nsides, unsigned in_use)
{
	unsigned win = in_use;
	for (unsigned i = 0; i < nsides; i++)
		if (best[i] < best[win])
			win = i;
	if (win != in_use && best[in_use] != UINT64_MAX &&
	    best[win] * 100 >= best[in_use] * (100 - NTM_LEARN_MARGIN_PCT))
		win = in_use;  /* not faster by the margin: keep it */
	return win;
}

/* Every sample of the epoch is in: keep or change the side, and set the
 * next trial a period on. */
static void decide(struct learn_slot *s, const struct learn_band *b, uint32_t epoch)
{
	uint64_t tr = __atomic_load_n(&s->trial, __ATOMIC_ACQUIRE);
	if (TRIAL_EPOCH(tr) != epoch)
		return;  /* given up meanwhile */
	uint64_t best[NTM_LEARN_SIDES];
	least_times(s, b, epoch, best);
	unsigned in_use = TRIAL_IN_USE(tr) - 1, d = TRIAL_DOUBLINGS(tr);
	unsigned win = keep(best, b->nsides, in_use);
	if (win == in_use && d < MOST_DOUBLINGS)
		d++;
	else if (win != in_use)
		d = 0;
	uint32_t next = next_epoch(epoch);
	uint64_t now = __atomic_load_n(&s->calls, __ATOMIC_RELAXED);
	uint64_t fresh = trial_word(next, win + 1, d,
				    (uint32_t)now + (NTM_LEARN_PERIOD_MIN << d));
	if (!__atomic_compare_exchange_n(&s->trial, &tr, fresh, 0, __ATOMIC_RELEASE,
					 __ATOMIC_RELAXED))
		return;
	__atomic_store_n(&s->tally, (uint64_t)next << 32, __ATOMIC_RELEASE);
	unsigned winner_calls = 0;
	unsigned length = trial_length(b, in_use, (int)win, &winner_calls);
	__atomic_fetch_add(&s->losing, length - winner_calls, __ATOMIC_RELAXED);
	__atomic_fetch_add(&s->trials, 1, __ATOMIC_RELAXED);
	if (win != in_use)
		__atomic_fetch_add(&s->switches, 1, __ATOMIC_RELAXED);
}

/* Whether sample tag a (an epoch + 1; 0: none) is of a later epoch than
 * tag b: epochs wrap, so "later" is less than half their range ahead. */
static int later_tag(uint32_t a, uint32_t b)
{
	uint32_t ahead = (a - b) & EPOCH_MASK;
	return a && ahead != 0 && ahead < EPOCH_MASK / 2;
}

void ntm_learn_end(const struct learn_ticket *t, const struct learn_band *b,
		   size_t n, uint64_t ns)
{
	struct learn_slot *s = t->slot;
	if (!s)
		return;
	/* Late: its trial is over, and a later one may use this sample's
	 * place.  Neither stored nor counted. */
	if (TRIAL_EPOCH(__atomic_load_n(&s->trial, __ATOMIC_ACQUIRE)) != t->epoch)
		return;
	uint64_t mib = n >> 20 ? n >> 20 : 1, per_mib = ns / mib;
	uint64_t *at = &s->sample[t->side][t->sample];
	uint64_t mine = (uint64_t)(t->epoch + 1) << SAMPLE_SHIFT |
			(per_mib > SAMPLE_MAX ? SAMPLE_MAX : per_mib);
	uint64_t old = __atomic_load_n(at, __ATOMIC_RELAXED);
	do {
		/* A trial that began since the check above stored its own. */
		if (later_tag(SAMPLE_TAG(old), t->epoch + 1))
			return;
	} while (!__atomic_compare_exchange_n(at, &old, mine, 1, __ATOMIC_RELAXED,
					      __ATOMIC_RELAXED));
	/* Count it in its own epoch only. */
	uint64_t tally = __atomic_load_n(&s->tally, __ATOMIC_RELAXED), now;
	do {
		if ((uint32_t)(tally >> 32) != t->epoch)
			return;
		now = tally + 1;
	} while (!__atomic_compare_exchange_n(&s->tally, &tally, now, 1,
					      __ATOMIC_ACQ_REL, __ATOMIC_RELAXED));
	if ((uint32_t)now == (uint32_t)b->nsides * NTM_LEARN_SAMPLES)
		decide(s, b, t->epoch);
}

unsigned ntm_learn_in_use(const struct learn_slot *s, unsigned prior)
{
	unsigned in_use = TRIAL_IN_USE(__atomic_load_n(&s->trial, __ATOMIC_ACQUIRE));
	return in_use && __atomic_load_n(&s->trials, __ATOMIC_RELAXED) ? in_use - 1
									 : prior;
}

void ntm_learn_state(const struct learn_slot *s, struct learn_state *st)
{
	uint64_t tr = __atomic_load_n(&s->trial, __ATOMIC_ACQUIRE);
	uint64_t calls = __atomic_load_n(&s->calls, __ATOMIC_RELAXED);
	uint32_t pos = (uint32_t)calls - TRIAL_AT(tr);
	st->calls = calls;
	st->trials = __atomic_load_n(&s->trials, __ATOMIC_RELAXED);
	st->switches = __atomic_load_n(&s->switches, __ATOMIC_RELAXED);
	st->losing = __atomic_load_n(&s->losing, __ATOMIC_RELAXED);
	st->timed = __atomic_load_n(&s->timed, __ATOMIC_RELAXED);
	st->clock_ns = __atomic_load_n(&s->clock_ns, __ATOMIC_RELAXED);
	st->decided = st->trials ? (int)TRIAL_IN_USE(tr) - 1 : -1;
	st->next_trial_in = pos >= 0x80000000u ? (uint32_t)-pos : 0;
	st->period = NTM_LEARN_PERIOD_MIN << TRIAL_DOUBLINGS(tr);
}

/* ------------------------------------------------------------------ */
/* The process's bands and domains                                    */
/* ------------------------------------------------------------------ */

#define MAX_CPUS 1024

static uint64_t gates[NTMEM_CLASSES][NTM_LEARN_BANDS];
static struct learn_slot slots[NTM_LEARN_DOMAINS][NTMEM_CLASSES][NTM_LEARN_BANDS];
/* Read at load: the nodes, and where there are several, each CPU's
 * domain (its node modulo NTM_LEARN_DOMAINS). */
static unsigned nodes = 1;
static unsigned char domain_of[MAX_CPUS];

/* Node `node`'s CPUs into domain_of. */
static void read_node(unsigned node)
{
	char path[96], list[1024];
	unsigned char on[MAX_CPUS];
	snprintf(path, sizeof path, "/sys/devices/system/node/node%u/cpulist", node);
	if (ntm_read_line(path, list, sizeof list) || ntm_parse_cpu_list(list, on, MAX_CPUS))
		return;
	for (unsigned cpu = 0; cpu < MAX_CPUS; cpu++)
		if (on[cpu])
			domain_of[cpu] = (unsigned char)(node % NTM_LEARN_DOMAINS);
}

void ntm_learn_setup(void)
{
	char list[256];
	unsigned char on[NTM_LEARN_DOMAINS * 8];
	int saved = errno;
	unsigned n = 0;
	if (!ntm_read_line("/sys/devices/system/node/online", list, sizeof list))
		n = ntm_count_cpu_list(list);
	if (n > 1 && !ntm_parse_cpu_list(list, on, sizeof on)) {
		for (unsigned node = 0; node < sizeof on; node++)
			if (on[node])
				read_node(node);
		nodes = n;
	}
	errno = saved;
}

uint64_t *ntm_learn_gate_of(int cls, unsigned k)
{
	return &gates[cls][k];
}

struct learn_slot *ntm_learn_slot(int cls, unsigned k)
{
	unsigned d = 0;
	if (nodes > 1) {
		int saved = errno;  /* a call that succeeds leaves it */
		int cpu = sched_getcpu();
		errno = saved;
		d = cpu >= 0 && cpu < MAX_CPUS ? domain_of[cpu] : 0;
	}
	return &slots[d][cls][k];
}

const struct learn_slot *ntm_learn_domain_slot(unsigned d, int cls, unsigned k)
{
	return &slots[d][cls][k];
}

unsigned ntm_learn_domains(void)
{
	return nodes < NTM_LEARN_DOMAINS ? nodes : NTM_LEARN_DOMAINS;
}

/* ------------------------------------------------------------------ */
/* A learned call (route.h)                                           */
/* ------------------------------------------------------------------ */

const struct variant *ntm_learned_take(struct ntm_route r, struct learn_ticket *t)
{
	t->slot = NULL;
	if (!ntm_learn_gate(&gates[r.cls][r.k], r.after))
		return r.band->side[r.prior];
	struct learn_slot *s = ntm_learn_slot(r.cls, r.k);
	return r.band->side[ntm_learn_begin(s, r.band, r.prior, t)];
}


const struct variant *ntm_learned_in_use(struct ntm_route r)
{
	if (__atomic_load_n(&gates[r.cls][r.k], __ATOMIC_RELAXED) < r.after)
		return r.band->side[r.prior];
	return r.band->side[ntm_learn_in_use(ntm_learn_slot(r.cls, r.k), r.prior)];
}

/* A timed call ran from t0 to t1: its sample, and what its two clock
 * reads cost, measured as a third read's distance from the second. */
static void timed(struct ntm_route r, const struct learn_ticket *t, size_t n,
		  uint64_t t0, uint64_t t1)
{
	uint64_t t2 = ntm_now_ns();
	__atomic_fetch_add(&t->slot->timed, 1, __ATOMIC_RELAXED);
	__atomic_fetch_add(&t->slot->clock_ns, 2 * (t2 - t1), __ATOMIC_RELAXED);
	ntm_learn_end(t, r.band, n, t1 - t0);
}

void ntm_learned_done(struct ntm_route r, const struct learn_ticket *t, size_t n,
		      uint64_t t0, uint64_t t1)
{
	if (t->slot)
		timed(r, t, n, t0, t1);
}

/* A call with NTMEM_F_NOFENCE does not take part: its time would leave
 * out the fence a streaming side owes, and it runs the side in use. */
void *ntm_learned_set(struct ntm_route r, void *dst, int c, size_t n,
		      unsigned flags)
{
	struct learn_ticket t = {0};
	const struct variant *v = flags ? ntm_learned_in_use(r) : ntm_learned_take(r, &t);
	if (!t.slot && !ntm_streams(v))
		return v->set(dst, c, n);
	uint64_t t0 = t.slot ? ntm_now_ns() : 0;
	v->set(dst, c, n);
	ntm_fence_after(ntm_streams(v), flags);
	if (t.slot)
		timed(r, &t, n, t0, ntm_now_ns());
	return dst;
}

void *ntm_learned_copy(struct ntm_route r, void *dst, const void *src,
		       size_t n, unsigned flags)
{
	struct learn_ticket t = {0};
	const struct variant *v = flags ? ntm_learned_in_use(r) : ntm_learned_take(r, &t);
	if (!t.slot && !ntm_streams(v))
		return v->copy(dst, src, n);
	uint64_t t0 = t.slot ? ntm_now_ns() : 0;
	v->copy(dst, src, n);
	ntm_fence_after(ntm_streams(v), flags);
	if (t.slot)
		timed(r, &t, n, t0, ntm_now_ns());
	return dst;
}
