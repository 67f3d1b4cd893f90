/*
 * compare_stats.c - how "ntmem run --compare" orders its runs and decides
 * (compare.h).
 *
 * The change of an arm's wall time from the arm without the shim is the
 * Hodges-Lehmann estimate: the median of the ratios of every run of the
 * one to every run of the other.  Its 95% interval comes from the ranks
 * alone (the interval that inverts the Mann-Whitney test): between the
 * k-th smallest and the k-th largest ratio, k from the test's null
 * distribution.  It holds whatever the distribution of the times, as
 * long as the arms differ by a factor.  A stray run makes extreme only
 * the ratios it takes part in, one in n, while with ten runs an arm the
 * bounds lie 24 of the 100 ratios in from either end.  (Before, the
 * change was held against the larger of the two arms' relative ranges,
 * which one stray run widens without bound.)
 */
#define _GNU_SOURCE
#include "compare.h"

#include <math.h>
#include <stdint.h>
#include <stdlib.h>

int compare_arm_at(long k, int narms)
{
	long round = k / narms;
	int i = (int)(k % narms);
	return round % 2 ? narms - 1 - i : i;
}

/* Exact counts up to this many runs in all: C(60, 30) and twice it, as
 * the products below reach, fit in 64 bits. */
#define EXACT_RUNS 60
#define EXACT_TERMS ((EXACT_RUNS / 2 + 1) * (EXACT_RUNS / 2 + 1))

/* The Mann-Whitney count U of n runs against m takes the value u in c[u]
 * of the C(n+m, n) equally likely orders, the coefficients of the
 * Gaussian binomial [n+m, n] = prod over i = 1..n of
 * (1 - q^(m+i)) / (1 - q^i), built a factor at a time (each partial
 * product is [m+i, i], a polynomial).  k is one more than the largest u
 * whose lower tail holds at most 2.5% of the orders. */
static long exact_bound(long n, long m)
{
	int64_t c[EXACT_TERMS] = {1}, total = 0, tail = 0;
	long deg = 0, u = 0;
	for (long i = 1; i <= n; i++) {
		long s = m + i;
		for (long v = deg + s; v >= s; v--)
			c[v] -= c[v - s];
		deg += s;
		for (long v = i; v <= deg; v++)
			c[v] += c[v - i];
		deg -= i;
	}
	for (long v = 0; v <= deg; v++)
		total += c[v];
	while (u <= deg && (tail + c[u]) * 40 <= total)
		tail += c[u++];
	return u;
}

long compare_rank_bound(long n, long m)
{
	if (n < 1 || m < 1)
		return 0;
	if (n + m <= EXACT_RUNS)
		return exact_bound(n, m);
	/* U is nearly normal: mean nm/2, variance nm(n+m+1)/12; half a count
	 * for its steps. */
	double nm = (double)n * (double)m;
	double below = floor(nm / 2 - 0.5 - 1.959963984540054 *
				     sqrt(nm * (double)(n + m + 1) / 12));
	return below < 0 ? 0 : (long)below + 1;
}

static int by_value(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;
	return (x > y) - (x < y);
}

int compare_ratio(const double *a, long na, const double *b, long nb,
		  struct compare_ratio *r)
{
	size_t n = (size_t)na * (size_t)nb;
	double *q = malloc(n * sizeof *q);
	if (!q)
		return -1;
	for (long i = 0; i < na; i++)
		for (long j = 0; j < nb; j++)
			q[(size_t)i * (size_t)nb + (size_t)j] = b[j] / a[i];
	qsort(q, n, sizeof *q, by_value);
	long k = compare_rank_bound(na, nb);
	/* An even count: the geometric mean of the middle two, as a ratio's
	 * median should be the same read either way round. */
	r->estimate = n % 2 ? q[n / 2] : sqrt(q[n / 2 - 1] * q[n / 2]);
	r->lo = k ? q[k - 1] : 0;
	r->hi = k ? q[n - (size_t)k] : 0;
	free(q);
	return 0;
}

int compare_verdict(const struct compare_ratio *r)
{
	if (!r->lo)
		return 0;
	return r->lo > 1 ? 1 : r->hi < 1 ? -1 : 0;
}
