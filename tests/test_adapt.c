/* test_adapt.c - trials at contested edges (src/dispatch/adapt.h): which
 * edges and calls take part, the decision from the times recorded, the
 * switch when the times change, the tunable, and exact bytes through the
 * public calls on either side. */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "dispatch/adapt.h"
#include "dispatch/cpu.h"
#include "dispatch/ladder.h"
#include "dispatch/policy.h"
#include "dispatch/registry.h"
#include "harness.h"
#include "ntmem.h"

#define MiB ((size_t)1 << 20)

static struct policy pol;

/* A cached and a streaming memset that run here; 0 if none streams. */
static int pair(const struct variant **cached, const struct variant **streaming)
{
	*cached = ntm_ranked(NTMEM_OP_SET, NTMEM_ROLE_VECTOR, 0);
	if (!*cached)
		*cached = ntm_ranked(NTMEM_OP_SET, NTMEM_ROLE_LIBC, 0);
	*streaming = ntm_ranked(NTMEM_OP_SET, NTMEM_ROLE_STREAMING, 0);
	return *cached && *streaming;
}

static void ladder_of(struct ladder *l, const struct variant *a, size_t at,
		      const struct variant *b, enum ntmem_origin origin_b)
{
	memset(l, 0, sizeof *l);
	ntm_ladder_push(l, a, at, NTMEM_ORIGIN_DEFAULT);
	ntm_ladder_push(l, b, SIZE_MAX, origin_b);
	ntm_ladder_finish(l, b);
}

/* The edges of l that take part, with an L3 of 32 MiB. */
static unsigned edges_of(const struct ladder *l)
{
	return ntm_adapt_edges(l, 32 * MiB);
}

static void test_edges(void)
{
	const struct variant *c, *s;
	if (!pair(&c, &s)) {
		t_skip("edges: which calls take part", "no streaming variant runs here");
		return;
	}
	struct ladder l;
	ladder_of(&l, c, 12 * MiB, s, NTMEM_ORIGIN_DEFAULT);
	unsigned e = edges_of(&l);
	int ok = e == 1 && ntm_adapt_edge(&l, e, 16 * MiB) == 0 &&
		 ntm_adapt_edge(&l, e, 6 * MiB) == 0 &&
		 ntm_adapt_edge(&l, e, 24 * MiB) == 0 &&
		 ntm_adapt_edge(&l, e, 24 * MiB + 2) == -1 &&
		 ntm_adapt_edge(&l, e, 6 * MiB - 1) == -1 &&
		 ntm_adapt_edge(&l, e, MiB / 2) == -1 && ntm_adapt_from(&l, e) == 6 * MiB;
	t_check(ok, "edges: a cached and a streaming rung, within a factor of two",
		"edges %#x, from %zu", e, ntm_adapt_from(&l, e));

	ladder_of(&l, c, MiB, s, NTMEM_ORIGIN_DEFAULT);
	e = edges_of(&l);
	t_check(ntm_adapt_edge(&l, e, MiB - 1) == -1 && ntm_adapt_edge(&l, e, MiB) == 0 &&
			ntm_adapt_from(&l, e) == MiB,
		"edges: nothing below 1 MiB", "from %zu", ntm_adapt_from(&l, e));

	ladder_of(&l, c, 256 * MiB, s, NTMEM_ORIGIN_DEFAULT);
	t_check(edges_of(&l) == 0 && ntm_adapt_edges(&l, 64 * MiB) == 1 &&
			ntm_adapt_edges(&l, 0) == 1,
		"edges: only up to 4 times the L3 (64 MiB when unknown)", "%#x %#x %#x",
		edges_of(&l), ntm_adapt_edges(&l, 64 * MiB), ntm_adapt_edges(&l, 0));

	ladder_of(&l, c, 12 * MiB, s, NTMEM_ORIGIN_ENVIRONMENT);
	t_check(edges_of(&l) == 0 && ntm_adapt_from(&l, 0) == SIZE_MAX,
		"edges: one NTMEM_TUNABLES set is left alone", "edges %#x",
		edges_of(&l));

	const struct variant *libc = ntm_ranked(NTMEM_OP_SET, NTMEM_ROLE_LIBC, 0);
	if (libc && libc != c) {
		ladder_of(&l, c, 12 * MiB, libc, NTMEM_ORIGIN_DEFAULT);
		t_check(edges_of(&l) == 0, "edges: two cached rungs are not contested",
			"edges %#x", edges_of(&l));
		/* cached | streaming at 12 MiB | libc at 96 MiB: two edges. */
		memset(&l, 0, sizeof l);
		ntm_ladder_push(&l, c, 12 * MiB, NTMEM_ORIGIN_PROFILE);
		ntm_ladder_push(&l, s, 96 * MiB, NTMEM_ORIGIN_PROFILE);
		ntm_ladder_push(&l, libc, SIZE_MAX, NTMEM_ORIGIN_PROFILE);
		ntm_ladder_finish(&l, s);
		e = edges_of(&l);
		t_check(e == 3 && ntm_adapt_edge(&l, e, 20 * MiB) == 0 &&
				ntm_adapt_edge(&l, e, 60 * MiB) == 1 &&
				ntm_adapt_edge(&l, e, 40 * MiB) == -1,
			"edges: each call tries its nearer edge", "%#x: %d %d %d", e,
			ntm_adapt_edge(&l, e, 20 * MiB), ntm_adapt_edge(&l, e, 60 * MiB),
			ntm_adapt_edge(&l, e, 40 * MiB));
	}
}

/* Periods of calls in one slot whose ladder side is own and whose upper
 * side streams, side fast taking half the time of the other; counts the
 * calls on the slow side and the timed ones. */
static void run_periods(struct adapt_slot *s, int periods, unsigned own,
			unsigned fast, unsigned *slow_runs, unsigned *timed_calls)
{
	*slow_runs = *timed_calls = 0;
	for (unsigned i = 0; i < (unsigned)periods * NTM_ADAPT_PERIOD; i++) {
		int timed;
		unsigned side = ntm_adapt_side(s, own, 1, &timed);
		*slow_runs += side != fast;
		if (timed) {
			(*timed_calls)++;
			ntm_adapt_record(s, side, 16 * MiB, side == fast ? 1000000 : 2000000);
		}
	}
}

static void test_decision(void)
{
	const unsigned timed_per = NTM_ADAPT_STREAMED - 1 + NTM_ADAPT_CACHED -
				   NTM_ADAPT_CACHED_WARM;
	struct adapt_slot s;
	memset(&s, 0, sizeof s);
	unsigned slow, timed;
	/* The ladder streams (side 1), the cached side is faster: the first
	 * trial switches, and each trial streams NTM_ADAPT_STREAMED calls. */
	run_periods(&s, 3, 1, 0, &slow, &timed);
	t_check(s.pick == 1 && slow == 3 * NTM_ADAPT_STREAMED &&
			timed == 3 * timed_per && s.trials == 3 && s.switches == 1,
		"decision: the faster side runs, the slower only in trials",
		"pick %u, %u slow runs, %u timed, %llu trials, %llu switches", s.pick,
		slow, timed, s.trials, s.switches);
	run_periods(&s, 2, 1, 1, &slow, &timed);
	t_check(s.pick == 2 && s.switches == 2 && s.trials == 5 &&
			slow == 2 * NTM_ADAPT_CACHED,
		"decision: when the other side becomes faster, the next trial "
		"switches", "pick %u, %u slow runs, %llu trials, %llu switches",
		s.pick, slow, s.trials, s.switches);

	/* A trial with a side never timed (another thread's call lost)
	 * decides nothing: the ladder's side stays. */
	memset(&s, 0, sizeof s);
	int t, other = 0;
	for (unsigned i = 0; i < NTM_ADAPT_PERIOD; i++) {
		unsigned side = ntm_adapt_side(&s, 1, 1, &t);
		if (side == 0 && t)
			ntm_adapt_record(&s, 0, 16 * MiB, 1000);
		other += i >= NTM_ADAPT_STREAMED + NTM_ADAPT_CACHED && side != 1;
	}
	t_check(s.pick == 0 && s.trials == 0 && other == 0,
		"decision: none without both sides' times", "pick %u, %d calls "
		"off the ladder's side", s.pick, other);
}

static void test_tunable(void)
{
	ntm_policy_build(&pol, ntm_cpu(), NULL, NULL);
	int base = pol.note_count;
	int on = pol.adapt == 1 && pol.adapt_origin == NTMEM_ORIGIN_DEFAULT;
	ntm_policy_build(&pol, ntm_cpu(), "adapt=0", NULL);
	int off = pol.adapt == 0 && pol.adapt_origin == NTMEM_ORIGIN_ENVIRONMENT &&
		  pol.note_count == base;
	for (int cls = 0; cls < NTM_CLASSES; cls++)
		off &= pol.adapt_from[cls] == SIZE_MAX;
	ntm_policy_build(&pol, ntm_cpu(), "adapt=yes", NULL);
	const char *last = pol.note_count ? pol.notes[pol.note_count - 1] : "";
	int noted = pol.adapt == 1 && pol.note_count == base + 1 &&
		    strstr(last, "adapt=yes: 0 or 1");
	t_check(on && off && noted, "tunable: on by default, adapt=0 off, "
		"a bad value ignored and noted", "%d %d %d: %s", on, off, noted, last);
}

/* Fill, or copy, n bytes through the public call, a trial's calls and 2
 * more, with a new value each time (both sides of a trial run), and check
 * every byte and the 64 past the end. */
static int exact_calls(enum ntmem_class cls, size_t n, char *why, size_t len)
{
	unsigned char *dst = malloc(n + 64), *src = malloc(n), *want = malloc(n);
	int ok = dst && src && want;
	for (unsigned k = 0; ok && k < NTM_ADAPT_STREAMED + NTM_ADAPT_CACHED + 2; k++) {
		unsigned char c = cls == NTMEM_CLASS_SET_ZERO ? 0 : (unsigned char)(0x11 * k + 1);
		memset(dst, 0xee, n + 64);
		if (cls == NTMEM_CLASS_COPY) {
			memset(src, (int)k, n);
			for (size_t i = 0; i < n; i += 4096)
				src[i] = (unsigned char)(t_rand() | 1);
			memcpy(want, src, n);
			ntmem_copy(dst, src, n);
		} else {
			memset(want, c, n);
			ntmem_set(dst, c, n);
		}
		ntmem_fence();
		for (size_t i = 0; ok && i < 64; i++)
			ok = dst[n + i] == 0xee;
		if (ok && memcmp(dst, want, n))
			ok = 0;
		if (!ok)
			snprintf(why, len, "call %u of %zu bytes: wrong bytes", k, n);
	}
	if (!(dst && src && want))
		snprintf(why, len, "out of memory for %zu bytes", n);
	free(dst);
	free(src);
	free(want);
	return ok;
}

static void test_process(void)
{
	static const char *const names[3] = {"memset of zeros",
		"memset of other values", "memcpy"};
	const size_t most = t_quick() ? 32 * MiB : 64 * MiB;
	int edges = 0;
	for (int cls = 0; cls < NTM_CLASSES; cls++) {
		struct ntmem_adapt_info before, after;
		ntmem_adapt_info(cls, &before);
		for (int i = 0; i < before.nedges; i++, edges++) {
			const struct ntmem_adapt_edge *e = &before.edge[i];
			char name[160], why[128] = "";
			snprintf(name, sizeof name, "process: %s near the edge at %zu "
				 "MiB, exact on both sides, one trial decided",
				 names[cls], e->at / MiB);
			if (e->from > most) {
				t_skip(name, "its calls start above the memory this test uses");
				continue;
			}
			int ok = exact_calls(cls, e->from, why, sizeof why);
			ntmem_adapt_info(cls, &after);
			t_check(ok && after.edge[i].trials > e->trials, name, "%s trials %llu",
				why, after.edge[i].trials);
		}
	}
	if (!edges)
		t_skip("process: calls near a contested edge",
		       "no cached rung meets a streaming one from 1 MiB in this "
		       "process's ladders");
}

int main(void)
{
	test_edges();
	test_decision();
	test_tunable();
	test_process();
	return t_finish();
}
