/* test_learn.c - learning on real calls (src/dispatch/learn.h): the
 * schedule of a trial, the decisions from injected times, epochs and late
 * samples, the back-off, the bound on the cost; then the process's
 * learning through the public calls, one thread and 16 at once, byte for
 * byte. */
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "dispatch/learn.h"
#include "dispatch/registry.h"
#include "dispatch/select.h"
#include "harness.h"
#include "ntmem.h"

#define MiB ((size_t)1 << 20)

/* A band of three sides: two cached, one streaming (every architecture
 * has variants of both kinds of role; the portable build streams with
 * none, and the band then has two cached sides). */
static int band_of_three(struct learn_band *b, int near_cache)
{
	unsigned usable = ntm_cpu()->usable;
	memset(b, 0, sizeof *b);
	const struct variant *side[3] = {
		ntm_ranked(NTMEM_OP_COPY, NTMEM_ROLE_LIBC, 0, usable),
		ntm_ranked(NTMEM_OP_COPY, NTMEM_ROLE_PLAIN, 0, usable),
		ntm_ranked(NTMEM_OP_COPY, NTMEM_ROLE_STREAMING, 0, usable)};
	for (int i = 0; i < 3; i++)
		if (side[i])
			b->side[b->nsides++] = side[i];
	b->near_cache = (unsigned char)near_cache;
	return b->nsides;
}

/* ns per call for side i: the injected clock of these tests. */
typedef uint64_t clock_fn(unsigned side, unsigned call);

/* Make `calls` calls in s: each takes its side from learn_begin and, when
 * timed, reports clock(side) for a 1 MiB call.  Counts per side into
 * ran[], and timed calls per side into timed[]. */
static void run_calls(struct learn_slot *s, const struct learn_band *b,
		      unsigned calls, clock_fn *clock, unsigned *ran,
		      unsigned *timed)
{
	for (unsigned i = 0; i < calls; i++) {
		struct learn_ticket t;
		unsigned side = ntm_learn_begin(s, b, 0, &t);
		ran[side]++;
		if (t.slot) {
			timed[side]++;
			ntm_learn_end(&t, b, MiB, clock(side, i));
		}
	}
}

static uint64_t last_fastest(unsigned side, unsigned call)
{
	(void)call;
	return side == 2 ? 100000 : 300000;  /* side 2: 3x the others */
}

static uint64_t first_fastest(unsigned side, unsigned call)
{
	(void)call;
	return side == 0 ? 100000 : 300000;
}

static void test_before_first_trial(void)
{
	struct learn_band b;
	struct learn_slot s;
	unsigned ran[4] = {0}, timed[4] = {0};
	band_of_three(&b, 0);
	ntm_learn_init(&s, 64);
	run_calls(&s, &b, 64, last_fastest, ran, timed);
	struct learn_state st;
	ntm_learn_state(&s, &st);
	t_check(ran[0] == 64 && timed[0] + timed[1] + timed[2] == 0 && st.decided == -1 &&
			st.next_trial_in == 0,
		"learn: the first `after` calls run the ladder's choice, untimed",
		"ran %u/%u/%u, timed %u, decided %d, next in %llu", ran[0], ran[1],
		ran[2], timed[0] + timed[1] + timed[2], st.decided, st.next_trial_in);
}

/* One trial: every side the same number of timed calls, the one in use
 * last, warm-ups where the schedule says; the fastest chosen. */
static void test_trial(void)
{
	struct learn_band b;
	struct learn_slot s;
	unsigned ran[4] = {0}, timed[4] = {0};
	int n = band_of_three(&b, 1);
	ntm_learn_init(&s, 0);
	unsigned trial = ntm_learn_trial_calls(&b);
	run_calls(&s, &b, trial, last_fastest, ran, timed);
	int equal = 1;
	for (int i = 0; i < n; i++)
		equal &= timed[i] == NTM_LEARN_SAMPLES;
	struct learn_state st;
	ntm_learn_state(&s, &st);
	int want = n == 3 ? 2 : 0;  /* no streaming side: a tie keeps the first */
	t_check(equal && st.trials == 1 && st.decided == want &&
			st.period == NTM_LEARN_PERIOD_MIN,
		"learn: a trial times every side equally, and keeps the fastest",
		"sides %d, timed %u/%u/%u, trials %llu, decided %d, period %u", n,
		timed[0], timed[1], timed[2], st.trials, st.decided, st.period);
	/* Warm-ups: one before each side, six before a cached side after a
	 * streaming one near the cache. */
	unsigned warm = 0;
	for (int i = 0; i < n; i++)
		warm += ran[i] - timed[i];
	t_check(trial == warm + (unsigned)n * NTM_LEARN_SAMPLES && warm >= (unsigned)n,
		"learn: a trial is its warm-up calls and its samples", "trial %u, warm %u",
		trial, warm);
	if (n == 3)
		t_check(ntm_learn_in_use(&s, 0) == 2,
			"learn: after the trial, calls run the side it chose",
			"in use %u", ntm_learn_in_use(&s, 0));
}

/* The decision holds: the period doubles, up to the cap; a change sets
 * it back to the least. */
static void test_backoff(void)
{
	struct learn_band b;
	struct learn_slot s;
	unsigned ran[4] = {0}, timed[4] = {0};
	if (band_of_three(&b, 0) < 3) {
		t_skip("learn: the period doubles while a decision holds",
		       "no streaming variant runs here");
		return;
	}
	ntm_learn_init(&s, 0);
	unsigned periods[12], n = 0;
	struct learn_state st;
	for (int k = 0; k < 10; k++) {
		ntm_learn_state(&s, &st);
		run_calls(&s, &b, (unsigned)st.next_trial_in + ntm_learn_trial_calls(&b),
			  last_fastest, ran, timed);
		ntm_learn_state(&s, &st);
		periods[n++] = st.period;
	}
	int doubling = periods[0] == NTM_LEARN_PERIOD_MIN;
	for (unsigned i = 1; i < n; i++)
		doubling &= periods[i] == (periods[i - 1] * 2 < NTM_LEARN_PERIOD_MAX
						   ? periods[i - 1] * 2 : NTM_LEARN_PERIOD_MAX);
	t_check(doubling && st.trials == 10 && st.switches == 1,
		"learn: the period doubles while a decision holds, up to the cap",
		"periods %u %u %u ... %u, trials %llu, switches %llu", periods[0],
		periods[1], periods[2], periods[n - 1], st.trials, st.switches);

	/* Now side 0 is fastest: the next trial switches, and the period
	 * goes back to the least. */
	run_calls(&s, &b, (unsigned)st.next_trial_in + ntm_learn_trial_calls(&b),
		  first_fastest, ran, timed);
	ntm_learn_state(&s, &st);
	t_check(st.decided == 0 && st.switches == 2 && st.period == NTM_LEARN_PERIOD_MIN,
		"learn: a change of side sets the period back", "decided %d, switches %llu, "
		"period %u", st.decided, st.switches, st.period);
}

/* A challenger faster by less than the margin does not move the side. */
static uint64_t close_call(unsigned side, unsigned call)
{
	(void)call;
	return side == 2 ? 100000 : 100000 + 100000 * (NTM_LEARN_MARGIN_PCT - 1) / 100;
}

static void test_margin(void)
{
	struct learn_band b;
	struct learn_slot s;
	unsigned ran[4] = {0}, timed[4] = {0};
	if (band_of_three(&b, 0) < 3) {
		t_skip("learn: the margin", "no streaming variant runs here");
		return;
	}
	ntm_learn_init(&s, 0);
	run_calls(&s, &b, ntm_learn_trial_calls(&b), last_fastest, ran, timed);
	struct learn_state st;
	ntm_learn_state(&s, &st);
	/* Side 0 now faster than side 2 by less than the margin. */
	run_calls(&s, &b, (unsigned)st.next_trial_in + ntm_learn_trial_calls(&b),
		  close_call, ran, timed);
	ntm_learn_state(&s, &st);
	t_check(st.decided == 2 && st.trials == 2 && st.switches == 1,
		"learn: a side faster by less than the margin does not take over",
		"decided %d, trials %llu, switches %llu", st.decided, st.trials,
		st.switches);
}

/* A sample that arrives after its trial was decided (or given up) is
 * not counted in the next one. */
static void test_late_sample(void)
{
	struct learn_band b;
	struct learn_slot s;
	if (band_of_three(&b, 0) < 2) {
		t_skip("learn: late samples", "fewer than two sides run here");
		return;
	}
	ntm_learn_init(&s, 0);
	unsigned trial = ntm_learn_trial_calls(&b);
	struct learn_ticket held;
	memset(&held, 0, sizeof held);
	unsigned ran[4] = {0};
	/* Run the trial, holding back the first timed call's end. */
	for (unsigned i = 0; i < trial; i++) {
		struct learn_ticket t;
		unsigned side = ntm_learn_begin(&s, &b, 0, &t);
		ran[side]++;
		if (t.slot && !held.slot)
			held = t;
		else if (t.slot)
			ntm_learn_end(&t, &b, MiB, 100000);
	}
	struct learn_state st;
	ntm_learn_state(&s, &st);
	int undecided = st.trials == 0;
	/* The trial cannot decide without it: given up after the grace. */
	for (unsigned i = 0; i < NTM_LEARN_GRACE + 1; i++) {
		struct learn_ticket t;
		ntm_learn_begin(&s, &b, 0, &t);
	}
	ntm_learn_state(&s, &st);
	int given_up = st.trials == 0 && st.decided == -1 && st.next_trial_in > 0;
	/* Now the held sample comes: the next trial must not count it. */
	ntm_learn_end(&held, &b, MiB, 1);
	uint64_t tally = __atomic_load_n(&s.tally, __ATOMIC_RELAXED);
	t_check(undecided && given_up && (uint32_t)tally == 0,
		"learn: a trial waits for its last sample, is given up when it never "
		"comes, and a late sample lands nowhere",
		"undecided %d, given up %d, tally %u", undecided, given_up,
		(unsigned)(uint32_t)tally);
}

/* The count of calls wraps at 32 bits inside the trial word. */
static void test_wrap(void)
{
	struct learn_band b;
	struct learn_slot s;
	unsigned ran[4] = {0}, timed[4] = {0};
	if (band_of_three(&b, 0) < 3) {
		t_skip("learn: the call count wraps", "no streaming variant runs here");
		return;
	}
	ntm_learn_init(&s, 0);
	s.calls = 0xffffffffull - 5;
	s.trial = (s.trial & ~0xffffffffull) | (uint32_t)(s.calls + 10);
	run_calls(&s, &b, 10 + ntm_learn_trial_calls(&b), last_fastest, ran, timed);
	struct learn_state st;
	ntm_learn_state(&s, &st);
	t_check(st.trials == 1 && st.decided == 2 && ran[0] >= 10,
		"learn: a trial across the 32-bit wrap of the call count",
		"trials %llu, decided %d", st.trials, st.decided);
}

/* What exploring costs: the calls of a trial that run a side which
 * loses, against the calls before the first trial and between trials. */
static void test_bound(void)
{
	struct learn_band b;
	memset(&b, 0, sizeof b);
	const struct variant *streams =
		ntm_ranked(NTMEM_OP_SET, NTMEM_ROLE_STREAMING, 0, ntm_cpu()->usable);
	const struct variant *cached =
		ntm_ranked(NTMEM_OP_SET, NTMEM_ROLE_LIBC, 0, ntm_cpu()->usable);
	/* The worst band: a streaming side and three cached ones near the
	 * cache, each cached one warming up long after the streaming one. */
	b.side[b.nsides++] = streams ? streams : cached;
	for (int i = 0; i < 3; i++)
		b.side[b.nsides++] = cached;
	b.near_cache = 1;
	unsigned bound = ntm_learn_bound(&b);
	t_check(bound * 100 <= 2 * NTM_LEARN_PERIOD_MIN && bound * 100 <= 2 * NTM_LEARN_AFTER,
		"learn: at most 2% of a band's calls run a side that loses",
		"%u losing calls in a trial, against %u calls between trials", bound,
		NTM_LEARN_PERIOD_MIN);
}

/* ------------------------------------------------------------------ */
/* The process's own learning, through the public calls               */
/* ------------------------------------------------------------------ */

#define THREADS 16

struct worker {
	int id;
	unsigned calls;
	int bad;
	char why[160];
};

/* Copies and sets of 1 to 3 MiB at odd offsets, each checked byte for
 * byte against the source or the C library's memset, and the bytes on
 * either side unchanged; guard pages around. */
static void *work(void *arg)
{
	struct worker *w = arg;
	struct guarded src, dst, ref;
	size_t cap = 3 * MiB + 4096;
	if (t_guarded_alloc(&src, cap) || t_guarded_alloc(&dst, cap) ||
	    t_guarded_alloc(&ref, cap)) {
		w->bad = 1;
		snprintf(w->why, sizeof w->why, "no memory");
		return NULL;
	}
	uint64_t seed = 0x9e3779b97f4a7c15ull * (uint64_t)(w->id + 1);
	for (size_t i = 0; i < cap; i++)
		src.data[i] = (unsigned char)(i * 131 + (size_t)w->id);
	for (unsigned k = 0; k < w->calls && !w->bad; k++) {
		seed = seed * 6364136223846793005ull + 1442695040888963407ull;
		size_t n = MiB + (size_t)(seed >> 40) % (2 * MiB);
		size_t off = 1 + (size_t)(seed >> 20) % 63;
		int c = (int)(seed >> 8) & 0xff;
		unsigned char *d = dst.data + off;
		unsigned char before = d[-1], after = d[n];
		int wrong;
		if (k & 1) {
			ntmem_copy(d, src.data + off, n);
			wrong = memcmp(d, src.data + off, n) != 0;
		} else {
			ntmem_set(d, c, n);
			memset(ref.data, c, n);
			wrong = memcmp(d, ref.data, n) != 0;
		}
		if (wrong || d[-1] != before || d[n] != after) {
			w->bad = 1;
			snprintf(w->why, sizeof w->why, "%s of %zu bytes at offset %zu: %s",
				 k & 1 ? "copy" : "set", n, off,
				 wrong ? "wrong bytes" : "a neighbour changed");
		}
	}
	t_guarded_free(&src);
	t_guarded_free(&dst);
	t_guarded_free(&ref);
	return NULL;
}

/* Some band from 1 MiB to 4 MiB learns in some class. */
static int learns_here(void)
{
	for (int cls = 0; cls < 3; cls++) {
		struct ntmem_adapt_info ai;
		ntmem_adapt_info(cls, &ai);
		for (int i = 0; i < ai.nbands; i++)
			if (ai.band[i].from < 4 * MiB && ai.band[i].nsides > 1)
				return 1;
	}
	return 0;
}

/* 16 threads learn at once (the trials start after 8 calls of a size). */
static void test_threads(void)
{
	if (!ntm_policy_ready()) {
		t_fail("learn: 16 threads", "the policy is not built");
		return;
	}
	ntm_learn_domains_init(8);
	static struct worker w[THREADS];
	pthread_t th[THREADS];
	unsigned calls = t_quick() ? 24 : 80;
	for (int i = 0; i < THREADS; i++) {
		w[i] = (struct worker){.id = i, .calls = calls};
		if (pthread_create(&th[i], NULL, work, &w[i])) {
			t_fail("learn: 16 threads", "pthread_create failed");
			return;
		}
	}
	int bad = 0;
	const char *why = "";
	for (int i = 0; i < THREADS; i++) {
		pthread_join(th[i], NULL);
		if (w[i].bad && !bad++)
			why = w[i].why;
	}
	unsigned long long trials = 0;
	for (int cls = 0; cls < 3; cls++) {
		struct ntmem_adapt_info ai;
		ntmem_adapt_info(cls, &ai);
		for (int i = 0; i < ai.nbands; i++)
			trials += ai.band[i].trials;
	}
	t_check(!bad && (trials > 0 || !learns_here()),
		"learn: 16 threads learning at once, byte for byte",
		"%d threads wrong (%s); %llu trials decided", bad, why, trials);
}

int main(void)
{
	test_before_first_trial();
	test_trial();
	test_backoff();
	test_margin();
	test_late_sample();
	test_wrap();
	test_bound();
	test_threads();
	return t_finish();
}
