/* compare.h - what "ntmem run --compare" decides by (compare_stats.c):
 * the order the arms run in, and the change of one arm's wall time from
 * another's with an interval that one stray run cannot widen, apart from
 * the running so that the tests can check them on fixed numbers. */
#ifndef NTM_RUN_COMPARE_H
#define NTM_RUN_COMPARE_H

/* The arm (0 .. narms - 1) of the k-th timed run, k from 0: rounds of
 * every arm once, forwards, then backwards (A B B A A B B A ... for two,
 * A B C C B A ... for three), so that no arm keeps one place in the
 * round, nor, where successive processes alternate between a fast and a
 * slow state, one of the states.  The run is the arm's k / narms-th. */
int compare_arm_at(long k, int narms);

/* For n runs of one arm and m of the other: the k (from 1) for which
 * the k-th smallest and the k-th largest of the n*m ratios bound the
 * ratio with at least 95% confidence (the Mann-Whitney test's critical
 * count plus one: exact up to 60 runs in all, by the normal approximation
 * above); 0 when the runs are too few for any such bound. */
long compare_rank_bound(long n, long m);

/* The change of times b (nb runs) from times a (na runs): estimate is
 * the median of the na*nb ratios b[j]/a[i] (Hodges-Lehmann), lo and hi
 * the bounds of compare_rank_bound(), 0 both where it gives none. */
struct compare_ratio {
	double estimate, lo, hi;
};

/* 0, or -1 when out of memory. */
int compare_ratio(const double *a, long na, const double *b, long nb,
		  struct compare_ratio *r);

/* Which way the interval lies: 1 all above 1 (b slower), -1 all below
 * (b faster), 0 it holds 1 or there is none. */
int compare_verdict(const struct compare_ratio *r);

#endif
