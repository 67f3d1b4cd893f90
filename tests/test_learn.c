/* test_learn.c - learning on real calls (src/dispatch/learn.h): the
 * schedule of a trial, the decisions from injected times, the margin at
 * the first trial, epochs and late samples, the back-off, the bound on
 * the cost proven by simulating every order of sides; the gate that
 * keeps a band's first calls free of the learning; then the process's
 * learning through the public calls, 16 threads at once and in a fork
 * child, byte for byte. */
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "dispatch/learn.h"
#include "dispatch/registry.h"
#include "dispatch/select.h"
#include "harness.h"
#include "ntmem.h"
#include "util/size.h"

/* Distinct set variants that run here, cached and streaming: the
 * sides of the bands below. */
static const struct variant *cached_v[8], *streaming_v[8];
static unsigned ncached, nstreaming;

static void find_variants(void)
{
	for (int id = 0; id < ntm_variant_count(); id++) {
		const struct variant *v = ntm_variant(id);
		if (v->op != NTMEM_OP_SET || v->zero_only || ntm_variant_unsupported(v))
			continue;
		if (ntm_streams(v) && nstreaming < 8)
			streaming_v[nstreaming++] = v;
		else if (!ntm_streams(v) && ncached < 8)
			cached_v[ncached++] = v;
	}
}

/* A band of n sides, side i streaming where bit i of streaming is set;
 * 0 when this build has too few variants of a kind. */
static int make_band(struct learn_band *b, unsigned n, unsigned streaming,
		     int near_cache)
{
	unsigned c = 0, s = 0;
	memset(b, 0, sizeof *b);
	for (unsigned i = 0; i < n; i++) {
		int st = (streaming >> i) & 1;
		if ((st && s >= nstreaming) || (!st && c >= ncached))
			return 0;
		b->side[b->nsides++] = st ? streaming_v[s++] : cached_v[c++];
	}
	b->near_cache = (unsigned char)near_cache;
	return 1;
}

/* ns per call for side i: the injected clock of these tests. */
typedef uint64_t clock_fn(unsigned side, unsigned call, unsigned arg);

/* Make `calls` calls in s with the ladder's choice prior: each takes its
 * side from learn_begin and, when timed, reports clock(side) for a 1 MiB
 * call.  Counts per side into ran[], and timed calls per side into
 * timed[]. */
static void run_calls(struct learn_slot *s, const struct learn_band *b,
		      unsigned prior, unsigned calls, clock_fn *clock, unsigned arg,
		      unsigned *ran, unsigned *timed)
{
	for (unsigned i = 0; i < calls; i++) {
		struct learn_ticket t;
		unsigned side = ntm_learn_begin(s, b, prior, &t);
		ran[side]++;
		if (t.slot) {
			timed[side]++;
			ntm_learn_end(&t, b, MiB, clock(side, i, arg));
		}
	}
}

/* Side arg is 3x faster than the others. */
static uint64_t one_fastest(unsigned side, unsigned call, unsigned arg)
{
	(void)call;
	return side == arg ? 100000 : 300000;
}

/* Side arg is faster than the others by less than the margin. */
static uint64_t within_margin(unsigned side, unsigned call, unsigned arg)
{
	(void)call;
	return side == arg ? 100000 : 100000 + 100000 * (NTM_LEARN_MARGIN_PCT - 1) / 100;
}

/* One trial: every side the same number of timed calls, the prior last
 * (it is the side in use before any trial), the streaming sides first,
 * warm-ups where the schedule says; the fastest chosen. */
static void test_trial(void)
{
	struct learn_band b;
	struct learn_slot s;
	const char *name = "learn: a trial times every side equally, the prior last, "
			   "and keeps the fastest";
	if (!make_band(&b, 3, 0x2, 1)) {
		t_skip(name, "too few variants of each kind run here");
		return;
	}
	unsigned ran[4] = {0}, timed[4] = {0}, order[64], norder = 0, prior = 0;
	memset(&s, 0, sizeof s);
	unsigned trial = ntm_learn_trial_calls(&b);
	for (unsigned i = 0; i < trial; i++) {
		struct learn_ticket t;
		unsigned side = ntm_learn_begin(&s, &b, prior, &t);
		ran[side]++;
		if (norder == 0 || order[norder - 1] != side)
			order[norder++] = side;
		if (t.slot) {
			timed[side]++;
			ntm_learn_end(&t, &b, MiB, one_fastest(side, i, 2));
		}
	}
	struct learn_state st;
	ntm_learn_state(&s, &st);
	int equal = timed[0] == NTM_LEARN_SAMPLES && timed[1] == NTM_LEARN_SAMPLES &&
		    timed[2] == NTM_LEARN_SAMPLES;
	/* Side 1 streams: first; then side 2, then the prior, 0. */
	int in_order = norder == 3 && order[0] == 1 && order[1] == 2 && order[2] == 0;
	t_check(equal && in_order && st.trials == 1 && st.decided == 2 &&
			st.period == NTM_LEARN_PERIOD_MIN,
		name, "timed %u/%u/%u, order %u %u %u (%u runs), trials %llu, decided %d, "
		"period %u", timed[0], timed[1], timed[2], order[0], order[1], order[2],
		norder, st.trials, st.decided, st.period);
	/* Warm-ups: one before each side, six before the cached side that
	 * follows the streaming one near the cache. */
	unsigned warm = ran[0] + ran[1] + ran[2] - 3 * NTM_LEARN_SAMPLES;
	t_check(trial == warm + 3 * NTM_LEARN_SAMPLES &&
			warm == 2 * NTM_LEARN_WARM + NTM_LEARN_WARM_CACHED &&
			ntm_learn_in_use(&s, prior) == 2,
		"learn: a trial is its warm-up calls and its samples, and then runs "
		"the side it chose", "trial %u, warm %u, in use %u", trial, warm,
		ntm_learn_in_use(&s, prior));
}

/* At the first trial the prior is the side in use: a rival faster by
 * less than the margin does not displace it. */
static void test_first_margin(void)
{
	struct learn_band b;
	struct learn_slot s;
	const char *name = "learn: the first trial holds the prior to the margin";
	if (!make_band(&b, 3, 0x4, 0)) {
		t_skip(name, "too few variants of each kind run here");
		return;
	}
	unsigned ran[4] = {0}, timed[4] = {0};
	for (unsigned prior = 0; prior < 3; prior++) {
		unsigned rival = (prior + 1) % 3;
		memset(&s, 0, sizeof s);
		run_calls(&s, &b, prior, ntm_learn_trial_calls(&b), within_margin, rival,
			  ran, timed);
		struct learn_state st;
		ntm_learn_state(&s, &st);
		if (st.trials != 1 || st.decided != (int)prior) {
			t_fail(name, "prior %u, rival %u faster by under %u%%: decided %d "
			       "after %llu trials", prior, rival, NTM_LEARN_MARGIN_PCT,
			       st.decided, st.trials);
			return;
		}
	}
	t_pass(name);
}

/* The decision holds: the period doubles, up to the cap; a change sets
 * it back to the least. */
static void test_backoff(void)
{
	struct learn_band b;
	struct learn_slot s;
	unsigned ran[4] = {0}, timed[4] = {0};
	if (!make_band(&b, 3, 0x4, 0)) {
		t_skip("learn: the period doubles while a decision holds",
		       "too few variants of each kind run here");
		return;
	}
	memset(&s, 0, sizeof s);
	unsigned periods[12], n = 0;
	struct learn_state st;
	for (int k = 0; k < 10; k++) {
		ntm_learn_state(&s, &st);
		run_calls(&s, &b, 0, (unsigned)st.next_trial_in + ntm_learn_trial_calls(&b),
			  one_fastest, 2, ran, timed);
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
	run_calls(&s, &b, 0, (unsigned)st.next_trial_in + ntm_learn_trial_calls(&b),
		  one_fastest, 0, ran, timed);
	ntm_learn_state(&s, &st);
	t_check(st.decided == 0 && st.switches == 2 && st.period == NTM_LEARN_PERIOD_MIN,
		"learn: a change of side sets the period back", "decided %d, switches %llu, "
		"period %u", st.decided, st.switches, st.period);
}

/* Calls of s, the trial `skip` calls on, until the one timed in held's
 * place has recorded its sample. */
static void run_calls_until(struct learn_slot *s, const struct learn_band *b,
			    const struct learn_ticket *held, unsigned skip)
{
	for (unsigned i = 0; i < skip + ntm_learn_trial_calls(b); i++) {
		struct learn_ticket t;
		ntm_learn_begin(s, b, 0, &t);
		if (!t.slot)
			continue;
		ntm_learn_end(&t, b, MiB, 200000);
		if (t.side == held->side && t.sample == held->sample)
			return;
	}
}

/* A sample that arrives after its trial was given up is not counted in
 * the next one, and is not stored over the next trial's sample in its
 * place. */
static void test_late_sample(void)
{
	struct learn_band b;
	struct learn_slot s;
	const char *name = "learn: a late sample lands nowhere: neither counted nor "
			   "stored over a later trial's";
	if (!make_band(&b, 2, 0, 0)) {
		t_skip(name, "fewer than two cached variants run here");
		return;
	}
	memset(&s, 0, sizeof s);
	unsigned trial = ntm_learn_trial_calls(&b);
	struct learn_ticket held = {0};
	/* The first trial, holding back its first timed call's end. */
	for (unsigned i = 0; i < trial; i++) {
		struct learn_ticket t;
		ntm_learn_begin(&s, &b, 0, &t);
		if (t.slot && !held.slot)
			held = t;
		else if (t.slot)
			ntm_learn_end(&t, &b, MiB, 100000);
	}
	struct learn_state st;
	ntm_learn_state(&s, &st);
	int undecided = st.trials == 0;
	/* It cannot decide without it: given up after the grace. */
	for (unsigned i = 0; i < NTM_LEARN_GRACE + 1; i++) {
		struct learn_ticket t;
		ntm_learn_begin(&s, &b, 0, &t);
	}
	ntm_learn_state(&s, &st);
	int given_up = st.trials == 0 && st.decided == -1 && st.next_trial_in > 0;
	/* The next trial, up to and including the sample in the held one's
	 * place. */
	run_calls_until(&s, &b, &held, (unsigned)st.next_trial_in);
	uint64_t current = s.sample[held.side][held.sample];
	uint32_t tally = (uint32_t)__atomic_load_n(&s.tally, __ATOMIC_RELAXED);
	ntm_learn_end(&held, &b, MiB, 1);
	t_check(undecided && given_up && current != 0 &&
			s.sample[held.side][held.sample] == current &&
			(uint32_t)s.tally == tally,
		name, "undecided %d, given up %d, the next trial's sample %s, tally %u "
		"then %u", undecided, given_up,
		current == 0 ? "never stored"
		: s.sample[held.side][held.sample] == current ? "kept" : "overwritten",
		tally, (unsigned)(uint32_t)s.tally);
}

/* The count of calls wraps at 32 bits inside the trial word. */
static void test_wrap(void)
{
	struct learn_band b;
	struct learn_slot s;
	unsigned ran[4] = {0}, timed[4] = {0};
	if (!make_band(&b, 3, 0x4, 0)) {
		t_skip("learn: the call count wraps", "too few variants of each kind run here");
		return;
	}
	memset(&s, 0, sizeof s);
	s.calls = 0xffffffffull - 5;
	s.trial = (uint32_t)(s.calls + 10);  /* the first trial 10 calls on */
	run_calls(&s, &b, 0, 10 + ntm_learn_trial_calls(&b), one_fastest, 2, ran, timed);
	struct learn_state st;
	ntm_learn_state(&s, &st);
	t_check(st.trials == 1 && st.decided == 2 && ran[0] >= 10,
		"learn: a trial across the 32-bit wrap of the call count",
		"trials %llu, decided %d", st.trials, st.decided);
}

/* One trial of band b with the prior last and side `winner` fastest,
 * simulated through the state machine: the calls that ran another side. */
static unsigned losing_calls(const struct learn_band *b, unsigned prior,
			     unsigned winner, unsigned *decided)
{
	struct learn_slot s;
	unsigned ran[4] = {0}, timed[4] = {0};
	memset(&s, 0, sizeof s);
	run_calls(&s, b, prior, ntm_learn_trial_calls(b), one_fastest, winner, ran,
		  timed);
	struct learn_state st;
	ntm_learn_state(&s, &st);
	*decided = st.trials == 1 ? (unsigned)st.decided : 99;
	unsigned lost = 0;
	for (unsigned i = 0; i < b->nsides; i++)
		lost += i == winner ? 0 : ran[i];
	return lost;
}

/* What exploring costs, proven for every band there can be: 2 to
 * NTM_LEARN_SIDES sides, each cached or streaming, near the cache or
 * not, every prior and every winner, warm-ups included.  The worst
 * must be NTM_LEARN_MOST_LOSING, which README.md states as at most 2% of
 * the calls between two trials and of those before the first. */
static void test_bound(void)
{
	const char *name = "learn: the worst trial, simulated over every order of "
			   "sides, is the bound README.md states";
	unsigned worst = 0, bad = 0, bands = 0;
	char why[200] = "";
	for (unsigned n = 2; n <= NTM_LEARN_SIDES; n++)
		for (unsigned kinds = 0; kinds < 1u << n; kinds++)
			for (int near = 0; near <= 1; near++) {
				struct learn_band b;
				if (!make_band(&b, n, kinds, near))
					continue;
				bands++;
				for (unsigned prior = 0; prior < n; prior++)
					for (unsigned win = 0; win < n; win++) {
						unsigned decided, lost = losing_calls(&b, prior, win, &decided);
						worst = lost > worst ? lost : worst;
						if ((decided != win || lost > ntm_learn_bound(&b)) && !bad++)
							snprintf(why, sizeof why, "%u sides, kinds %#x, "
								 "near %d, prior %u, winner %u: decided %u, "
								 "%u losing against the bound %u", n, kinds,
								 near, prior, win, decided, lost,
								 ntm_learn_bound(&b));
					}
			}
	if (nstreaming < 2 || ncached < NTM_LEARN_SIDES) {
		t_skip(name, "too few variants of each kind run here for every order");
		return;
	}
	t_check(!bad && worst == NTM_LEARN_MOST_LOSING &&
			NTM_LEARN_MOST_LOSING * 100 <= 2 * NTM_LEARN_PERIOD_MIN &&
			NTM_LEARN_MOST_LOSING * 100 <= 2 * NTM_LEARN_AFTER,
		name, "%u bands; worst %u losing calls (NTM_LEARN_MOST_LOSING %u, 2%% of "
		"%u is %u); %u wrong: %s", bands, worst, NTM_LEARN_MOST_LOSING,
		NTM_LEARN_PERIOD_MIN, 2 * NTM_LEARN_PERIOD_MIN / 100, bad, why);
}

/* ------------------------------------------------------------------ */
/* The process's own learning                                         */
/* ------------------------------------------------------------------ */

/* A band's first learn_after calls pass its gate with one add each and
 * touch no domain's state; from then on the calls learn.  Band 23 of
 * the copies (8 TiB and up) is one no call of these tests reaches. */
static void test_gate(void)
{
	const unsigned after = 50, k = NTM_LEARN_BANDS - 1;
	struct learn_band b;
	if (!make_band(&b, 2, 0, 0)) {
		t_skip("learn: the gate", "fewer than two cached variants run here");
		return;
	}
	struct ntm_route r = {.band = &b, .kind = NTM_ROUTE_LEARNED,
			      .cls = NTMEM_CLASS_COPY, .k = k, .prior = 1, .after = after};
	struct learn_slot *slot = ntm_learn_slot(NTMEM_CLASS_COPY, k);
	int untouched = 1, prior = 1;
	for (unsigned i = 0; i < after; i++) {
		struct learn_ticket t;
		prior &= ntm_learned_take(r, &t) == b.side[1] && !t.slot;
		untouched &= slot->calls == 0 && slot->trial == 0;
	}
	struct learn_ticket t;
	ntm_learned_take(r, &t);
	t_check(prior && untouched && *ntm_learn_gate_of(NTMEM_CLASS_COPY, k) == after &&
			slot->calls == 1 && slot->trial != 0,
		"learn: a band's first learn_after calls run the prior and only count; "
		"the next learns", "prior %d, untouched %d, gate %llu, slot calls %llu",
		prior, untouched,
		(unsigned long long)*ntm_learn_gate_of(NTMEM_CLASS_COPY, k),
		(unsigned long long)slot->calls);
}

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

/* The trials decided, or (calls) the calls counted, in every band. */
static unsigned long long learnt(int calls)
{
	unsigned long long sum = 0;
	for (int cls = 0; cls < 3; cls++) {
		struct ntmem_adapt_info ai;
		ntmem_adapt_info(cls, &ai);
		for (int i = 0; i < ai.nbands; i++)
			sum += calls ? ai.band[i].calls : ai.band[i].trials;
	}
	return sum;
}

/* n threads making calls at once; 0, or 1 with the first wrong one's
 * reason in why. */
static int run_threads(int n, unsigned calls, char *why, size_t len)
{
	static struct worker w[THREADS];
	pthread_t th[THREADS];
	int started = 0, bad = 0;
	for (; started < n; started++) {
		w[started] = (struct worker){.id = started, .calls = calls};
		if (pthread_create(&th[started], NULL, work, &w[started]))
			break;
	}
	for (int i = 0; i < started; i++) {
		pthread_join(th[i], NULL);
		if (w[i].bad && !bad++)
			snprintf(why, len, "%s", w[i].why);
	}
	if (started < n && !bad++)
		snprintf(why, len, "pthread_create failed");
	return bad != 0;
}

/* In a process whose bands learn after 8 calls (NTMEM_TUNABLES, set by
 * main): 16 threads learn at once; then a fork child, made while other
 * threads make calls that learn, learns on its own. */
static void test_process(void)
{
	char why[200] = "";
	unsigned calls = t_quick() ? 24 : 80;
	int bad = run_threads(THREADS, calls, why, sizeof why);
	unsigned long long trials = learnt(0);
	t_check(!bad && (trials > 0 || !learns_here()),
		"learn: 16 threads learning at once, byte for byte",
		"%s; %llu trials decided", bad ? why : "all exact", trials);

	const char *no_threads = t_fork_with_threads_unsupported();
	if (no_threads) {
		t_skip("learn: a fork child learns", no_threads);
		return;
	}
	pthread_t th;
	struct worker busy = {.id = 99, .calls = calls};
	int started = !pthread_create(&th, NULL, work, &busy);
	pid_t pid = fork();
	if (pid == 0) {
		unsigned long long before = learnt(1);
		char cwhy[200];
		int cbad = run_threads(2, calls, cwhy, sizeof cwhy);
		_exit(cbad ? 2 : learnt(1) > before || !learns_here() ? 0 : 3);
	}
	int status = 0;
	int waited = pid > 0 && waitpid(pid, &status, 0) == pid;
	if (started)
		pthread_join(th, NULL);
	t_check(waited && WIFEXITED(status) && WEXITSTATUS(status) == 0,
		"learn: a fork child, made while other threads learn, learns",
		"child status %#x (2: wrong bytes, 3: its calls were not counted)", status);
}

int main(int argc, char **argv)
{
	/* The process part runs in a fresh process whose bands learn after
	 * 8 calls. */
	if (argc == 2 && !strcmp(argv[1], "--process")) {
		test_process();
		fflush(stdout);
		return t_failed_count() ? 1 : 0;  /* the parent counts it once */
	}
	find_variants();
	test_trial();
	test_first_margin();
	test_backoff();
	test_late_sample();
	test_wrap();
	test_bound();
	test_gate();
	fflush(stdout);
	pid_t pid = fork();
	if (pid == 0) {
		setenv("NTMEM_TUNABLES", "learn_after=8", 1);
		char *args[] = {argv[0], "--process", NULL};
		t_exec_self(args);
		_exit(100);
	}
	int status = 0;
	if (pid < 0 || waitpid(pid, &status, 0) != pid || !WIFEXITED(status) ||
	    WEXITSTATUS(status) == 100)
		t_fail("learn: the process's learning", "could not run it (status %#x)",
		       status);
	else
		t_check(WEXITSTATUS(status) == 0, "learn: the process's learning, in a "
			"process of its own", "failed (above)");
	return t_finish();
}
