/* ladder_merge.c - the calibrated ladder where it won twice, the built-in
 * one elsewhere. */
#include "ladder_merge.h"

#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "ladder_fit.h"

#define MAX_RUNS 64
#define MAX_EDGES (2 * NTMEM_LADDER_MAX + 2 * FIT_MAX_POINTS + 1)

int merge_pick(const struct merge_ladder *l, size_t n)
{
	unsigned i = 0;
	while (i + 1 < l->count && n >= l->to[i])
		i++;
	return l->variant[i];
}

static int by_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;
	return (x > y) - (x < y);
}

static double median_sorted(const double *v, size_t n)
{
	return n % 2 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2;
}

int merge_round_won(const double *ratios, size_t n, double *median,
		    double *spread)
{
	double v[MAX_RUNS], dev[MAX_RUNS];
	n = n < MAX_RUNS ? n : MAX_RUNS;
	*median = *spread = NAN;
	if (!n)
		return 0;
	memcpy(v, ratios, n * sizeof *v);
	qsort(v, n, sizeof *v, by_double);
	*median = median_sorted(v, n);
	for (size_t i = 0; i < n; i++)
		dev[i] = fabs(v[i] - *median);
	qsort(dev, n, sizeof *dev, by_double);
	*spread = median_sorted(dev, n);
	/* A hair below the 3%: 1.03 itself, as a ratio of doubles, wins. */
	return *median - 1 > *spread && *median - 1 >= MERGE_MIN_WIN - 1e-9;
}

/* Who serves n: the fit or the built-in ladder (merge_ladder's rule). */
static enum merge_owner owner_at(const size_t *sizes,
				 const enum merge_owner *owner, size_t count,
				 size_t n)
{
	size_t i = 0;
	if (!count)
		return MERGE_BUILTIN;
	while (i < count && sizes[i] <= n)
		i++;
	if (i == 0 || i == count)   /* below the grid, or above it */
		return owner[i ? count - 1 : 0] == MERGE_FIT ? MERGE_FIT : MERGE_BUILTIN;
	enum merge_owner a = owner[i - 1], b = owner[i];
	size_t mid = fit_edge(sizes[i - 1], sizes[i]);
	if (a == MERGE_FIT && b == MERGE_BUILTIN)
		return n < mid ? MERGE_FIT : MERGE_BUILTIN;
	if (a == MERGE_BUILTIN && b == MERGE_FIT)
		return n < mid ? MERGE_BUILTIN : MERGE_FIT;
	return a == MERGE_FIT || b == MERGE_FIT ? MERGE_FIT : MERGE_BUILTIN;
}

static int by_size(const void *a, const void *b)
{
	size_t x = *(const size_t *)a, y = *(const size_t *)b;
	return (x > y) - (x < y);
}

/* Every size from `from` up where what serves a call may change. */
static size_t edges(const struct merge_ladder *fit,
		    const struct merge_ladder *builtin, const size_t *sizes,
		    size_t n, size_t from, size_t *e)
{
	size_t m = 0;
	e[m++] = from;
	for (unsigned i = 0; i + 1 < fit->count; i++)
		e[m++] = fit->to[i];
	for (unsigned i = 0; i + 1 < builtin->count; i++)
		e[m++] = builtin->to[i];
	for (size_t i = 0; i < n; i++) {
		e[m++] = sizes[i];
		if (i + 1 < n)
			e[m++] = fit_edge(sizes[i], sizes[i + 1]);
	}
	qsort(e, m, sizeof *e, by_size);
	size_t kept = 0;
	for (size_t i = 0; i < m; i++)
		if (e[i] >= from && (!kept || e[i] != e[kept - 1]))
			e[kept++] = e[i];
	return kept;
}

int ladder_merge(const struct merge_ladder *fit,
		 const struct merge_ladder *builtin, const size_t *sizes,
		 const enum merge_owner *owner, size_t n, size_t from,
		 struct merge_ladder *out)
{
	size_t e[MAX_EDGES];
	size_t ne = edges(fit, builtin, sizes, n < FIT_MAX_POINTS ? n : FIT_MAX_POINTS,
			  from, e);
	memset(out, 0, sizeof *out);
	for (size_t i = 0; i < ne; i++) {
		int bv = merge_pick(builtin, e[i]);
		int fitted = owner_at(sizes, owner, n, e[i]) == MERGE_FIT;
		int v = fitted ? merge_pick(fit, e[i]) : bv;
		size_t to = i + 1 < ne ? e[i + 1] : SIZE_MAX;
		if (out->count && out->variant[out->count - 1] == v) {
			out->to[out->count - 1] = to;
			out->calibrated[out->count - 1] |= v != bv;
			continue;
		}
		if (out->count == NTMEM_LADDER_MAX) {
			*out = *builtin;
			memset(out->calibrated, 0, sizeof out->calibrated);
			return -1;
		}
		out->variant[out->count] = v;
		out->to[out->count] = to;
		out->calibrated[out->count++] = v != bv;
	}
	return 0;
}

int merge_same(const struct merge_ladder *a, const struct merge_ladder *b,
	       size_t from)
{
	size_t e[MAX_EDGES];
	size_t ne = edges(a, b, NULL, 0, from, e);
	for (size_t i = 0; i < ne; i++)
		if (merge_pick(a, e[i]) != merge_pick(b, e[i]))
			return 0;
	return 1;
}
