/*
 * test_compare.c - what "ntmem run --compare" decides by (compare.h), on
 * fixed numbers against references worked out by hand or taken from the
 * published tables of the Mann-Whitney test: the order of the arms'
 * runs, the rank that bounds the 95% interval, and the interval and
 * estimate of the change, which one stray run must not hide; and, run,
 * that the runs go in that order and --show-output shows each one's
 * output marked with its arm and number.
 */
#include "preload/spawn.h"

#include <math.h>

#include "run/compare.h"

/* A B B A A B B A for two arms; A B C C B A A B C for three. */
static void test_order(void)
{
	static const int two[] = {0, 1, 1, 0, 0, 1, 1, 0, 0, 1};
	static const int three[] = {0, 1, 2, 2, 1, 0, 0, 1, 2, 2, 1, 0};
	char got[64] = "";
	int ok = 1;
	for (long k = 0; k < 10; k++) {
		int a = compare_arm_at(k, 2);
		ok &= a == two[k];
		snprintf(got + strlen(got), sizeof got - strlen(got), "%d", a);
	}
	t_check(ok, "compare: two arms run A B B A A B B A A B", "got %s", got);
	ok = 1;
	got[0] = '\0';
	for (long k = 0; k < 12; k++) {
		int a = compare_arm_at(k, 3);
		ok &= a == three[k];
		snprintf(got + strlen(got), sizeof got - strlen(got), "%d", a);
	}
	t_check(ok, "compare: three arms run A B C C B A, then again",
		"got %s", got);
	/* Where successive processes alternate between a fast and a slow
	 * state, each arm must get as many of one as of the other. */
	int even[2] = {0, 0};
	for (long k = 0; k < 40; k++)
		even[compare_arm_at(k, 2)] += k % 2 == 0;
	t_check(even[0] == 10 && even[1] == 10,
		"compare: each arm runs as often at an even place as at an odd one",
		"even places: A %d, B %d of 20 each", even[0], even[1]);
}

/* The published two-sided 5% critical values of the Mann-Whitney U
 * (plus one), and where none exists. */
static void test_rank_bound(void)
{
	static const struct {
		long n, m, k;
	} table[] = {
		{1, 1, 0}, {3, 3, 0},  {4, 4, 1},    {5, 5, 3},
		{4, 8, 5}, {6, 9, 11}, {10, 10, 24}, {20, 20, 128},
		{30, 30, 318},
	};
	for (size_t i = 0; i < sizeof table / sizeof table[0]; i++) {
		char name[96];
		long k = compare_rank_bound(table[i].n, table[i].m);
		snprintf(name, sizeof name, "compare: rank bound for %ld and %ld runs",
			 table[i].n, table[i].m);
		t_check(k == table[i].k, name, "got %ld, want %ld", k, table[i].k);
	}
	/* Past 60 runs, the normal approximation: for 100 and 100,
	 * floor(5000 - 0.5 - 1.96 * sqrt(10000 * 201 / 12)) + 1 =
	 * floor(5000 - 0.5 - 802.15) + 1 = 4198. */
	long k = compare_rank_bound(100, 100);
	t_check(k == 4198, "compare: rank bound for 100 and 100 runs (normal "
		"approximation)", "got %ld, want 4198", k);
	t_check(compare_rank_bound(0, 5) == 0,
		"compare: no bound without runs", "got %ld",
		compare_rank_bound(0, 5));
}

static int near(double x, double want)
{
	return fabs(x - want) <= 1e-12 * fabs(want);
}

/* b = 2a with a = 1, 2, 4, ...: every ratio is a power of two, 2^(j-i+1)
 * for run i of a and j of b, so the sorted ratios are known by counting
 * the differences j - i. */
static void test_ratio_by_hand(void)
{
	/* Four runs: exponents -2 (once), -1 (twice), 0 (3), 1 (4), 2 (3),
	 * 3 (2), 4 (once); the 8th and 9th are 2^1; k = 1: min and max. */
	double a4[] = {1, 2, 4, 8}, b4[] = {2, 4, 8, 16};
	struct compare_ratio r;
	int rc = compare_ratio(a4, 4, b4, 4, &r);
	t_check(!rc && near(r.estimate, 2) && near(r.lo, 0.25) && near(r.hi, 16) &&
			compare_verdict(&r) == 0,
		"compare: four runs of b = 2a: estimate 2, interval 1/4 to 16, "
		"no verdict", "%g [%g, %g]", r.estimate, r.lo, r.hi);
	/* Five runs: exponents -3 (1), -2 (2), -1 (3), 0 (4), 1 (5), 2 (4),
	 * 3 (3), 4 (2), 5 (1); k = 3: the 3rd is 2^-2, the 23rd 2^4; the
	 * 13th 2^1. */
	double a5[] = {1, 2, 4, 8, 16}, b5[] = {2, 4, 8, 16, 32};
	rc = compare_ratio(a5, 5, b5, 5, &r);
	t_check(!rc && near(r.estimate, 2) && near(r.lo, 0.25) && near(r.hi, 16),
		"compare: five runs of b = 2a: estimate 2, interval 1/4 to 16",
		"%g [%g, %g]", r.estimate, r.lo, r.hi);
	/* Three runs give no interval at all. */
	rc = compare_ratio(a5, 3, b5, 3, &r);
	t_check(!rc && r.lo == 0 && r.hi == 0 && compare_verdict(&r) == 0,
		"compare: three runs an arm: no interval, no verdict",
		"[%g, %g]", r.lo, r.hi);
}

/* Ten runs an arm, b 10% slower than a throughout, and one run of a
 * 5 times too long.  Every ratio of b to a run of a but the stray one is
 * at least 1.10 / 1.08 > 1.018; only the 10 ratios to the stray run lie
 * below 1, and the lower bound is the 24th smallest: past them. */
static void test_outlier(void)
{
	double a[10], b[10];
	for (int i = 0; i < 10; i++) {
		a[i] = 1.00 + 0.01 * (i % 9);      /* 1.00 .. 1.08 */
		b[i] = 1.10 * (1.00 + 0.01 * i);   /* 1.10 .. 1.199 */
	}
	a[9] = 5.0;
	struct compare_ratio r;
	int rc = compare_ratio(a, 10, b, 10, &r);
	t_check(!rc && r.lo > 1.018 && r.hi < 1.2 && r.estimate > 1.05 &&
			r.estimate < 1.15 && compare_verdict(&r) == 1,
		"compare: one stray run does not hide a 10% slowdown in 10 runs",
		"%g [%g, %g], verdict %d", r.estimate, r.lo, r.hi,
		compare_verdict(&r));
	/* The other way round, a against b: 90 ratios at most 1.08 / 1.10,
	 * the 10 to the stray run above 1, and the upper bound the 24th
	 * largest: a speed-up. */
	rc = compare_ratio(b, 10, a, 10, &r);
	t_check(!rc && compare_verdict(&r) == -1 && r.hi < 1,
		"compare: nor does it hide the speed-up the other way round",
		"%g [%g, %g]", r.estimate, r.lo, r.hi);
	/* c 10% faster than b: every ratio c[j] / b[i] is at most
	 * (1.199 / 1.10) / 1.10 < 0.991. */
	double c[10];
	for (int i = 0; i < 10; i++)
		c[i] = b[(i * 7) % 10] / 1.10;
	rc = compare_ratio(b, 10, c, 10, &r);
	t_check(!rc && compare_verdict(&r) == -1 && r.hi < 0.991,
		"compare: a 10% speed-up is found", "%g [%g, %g]", r.estimate,
		r.lo, r.hi);
	/* No difference: the same times in both arms, shuffled. */
	double x[10], y[10];
	for (int i = 0; i < 10; i++) {
		x[i] = 1.0 + 0.01 * i;
		y[i] = 1.0 + 0.01 * ((i * 3) % 10);
	}
	rc = compare_ratio(x, 10, y, 10, &r);
	t_check(!rc && compare_verdict(&r) == 0 && r.lo < 1 && r.hi > 1 &&
			near(r.estimate, 1),
		"compare: the same times in both arms: estimate 1, no verdict",
		"%g [%g, %g]", r.estimate, r.lo, r.hi);
}

/* ntmem run --compare 4 --show-output: each run's line, marked, in the
 * order A B B A A B B A after the warm-ups; the interval said. */
static void test_shown(void)
{
	static const char *const order[] = {
		"[without warm-up] hi\n", "[with shim warm-up] hi\n",
		"[without 1] hi\n", "[with shim 1] hi\n", "[with shim 2] hi\n",
		"[without 2] hi\n", "[without 3] hi\n", "[with shim 3] hi\n",
		"[with shim 4] hi\n", "[without 4] hi\n",
	};
	struct places at;
	struct outcome o;
	if (find_places(&at)) {
		t_fail("compare: --show-output", "no ntmem next to %s", t_ntmem());
		return;
	}
	const char *opts[] = {"--compare", "4", "--show-output", NULL};
	const char *args[] = {"echo", "hi", NULL};
	spawn(run_argv(&at, opts, NULL, args), NULL, 60, &o);
	const char *at_line = o.err;
	size_t i = 0;
	for (; i < sizeof order / sizeof order[0] && at_line; i++)
		if ((at_line = strstr(at_line, order[i])))
			at_line += strlen(order[i]);
	t_check(exited(&o, 0) && !*o.out && at_line &&
			strstr(o.err, "with shim: wall time ") &&
			strstr(o.err, "95% interval") && strstr(o.err, "Hodges-Lehmann"),
		"compare: --show-output marks each run's output with its arm and "
		"number, in the order A B B A A B B A, on stderr",
		"status 0x%x, stopped at %s\nstdout '%s'\n%s", o.status,
		i ? order[i - 1] : "-", o.out, o.err);
	outcome_free(&o);
}

int main(void)
{
	test_order();
	test_rank_bound();
	test_ratio_by_hand();
	test_outlier();
	if (spawn_unavailable())
		t_skip("compare: --show-output", spawn_unavailable());
	else if (SHIM_SANITIZED)
		t_skip("compare: --show-output", SHIM_SANITIZED_WHY);
	else
		test_shown();
	return t_finish();
}
