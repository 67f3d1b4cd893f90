/* ladder_fit.c - choose a ladder from a grid of measurements. */
#include "ladder_fit.h"

#include <math.h>
#include <stdint.h>
#include <string.h>

/* Widen the margin this much at a time, up to the last, when the measured
 * one needs more rungs than a ladder holds. */
#define MARGIN_STEP 0.01
#define MARGIN_MAX 0.15

static int tied(const struct fit_input *in, size_t point, size_t cand,
		double margin)
{
	const struct fit_point *p = &in->points[point];
	return p->measured[cand] && p->ratio[cand] >= 1.0 - margin;
}

/* How many points from `from` on cand stays tied. */
static size_t reach(const struct fit_input *in, size_t from, size_t cand,
		    double margin)
{
	size_t i = from;
	while (i < in->npoints && tied(in, i, cand, margin))
		i++;
	return i - from;
}

/* The candidate to start a rung with at point i: the preferred one if it
 * is tied here, else the one that stays tied the longest (then the one
 * nearest the best here).  -1 if nothing was measured at i. */
static int choose(const struct fit_input *in, size_t i, double margin)
{
	if (in->preferred >= 0 && tied(in, i, (size_t)in->preferred, margin))
		return in->preferred;
	int best = -1;
	size_t best_reach = 0;
	for (size_t c = 0; c < in->ncands; c++) {
		if (!in->points[i].measured[c])
			continue;
		size_t r = reach(in, i, c, margin);
		if (best < 0 || r > best_reach ||
		    (r == best_reach &&
		     in->points[i].ratio[c] > in->points[i].ratio[best])) {
			best = (int)c;
			best_reach = r;
		}
	}
	return best;
}

size_t fit_edge(size_t a, size_t b)
{
	size_t mid = (size_t)sqrt((double)a * (double)b) & ~(size_t)63;
	if (mid <= a)
		mid = a + 1;
	return mid < b ? mid : b;
}

/* One pass at a given margin.  Returns the rung count (possibly more than
 * out holds: then only the first ones are stored), or 0 on a hole. */
static unsigned fit_pass(const struct fit_input *in, double margin,
			 struct fit_output *out)
{
	unsigned count = 0;
	int cur = -1;
	for (size_t i = 0; i < in->npoints; i++) {
		int next = cur >= 0 && tied(in, i, (size_t)cur, margin)
				   ? cur : choose(in, i, margin);
		if (next < 0)
			return 0;
		if (next != cur) {
			if (count < NTMEM_LADDER_MAX)
				out->rungs[count] = (struct fit_rung){
					(size_t)next, i, i, SIZE_MAX};
			count++;
			cur = next;
		} else if (count <= NTMEM_LADDER_MAX) {
			out->rungs[count - 1].last = i;
		}
	}
	return count;
}

/* A one-size rung between two rungs of one candidate, which that candidate
 * serves within 1.5 margins, is taken for a spike of noise and merged
 * away.  A longer rung is a pattern, not noise (a 4-size rung of cached
 * copies 4% ahead of streaming, merged, cost bench 5%); and 1.5 margins
 * keeps what a merge may cost under the 5% auto is allowed to lose. */
#define SPIKE_SLACK 1.5

static unsigned merge_spikes(const struct fit_input *in, double margin,
			     struct fit_output *out, unsigned count)
{
	for (unsigned r = 1; r + 1 < count; r++) {
		const struct fit_rung *a = &out->rungs[r - 1], *z = &out->rungs[r + 1];
		const struct fit_rung *mid = &out->rungs[r];
		if (a->cand != z->cand || mid->first != mid->last ||
		    !tied(in, mid->first, a->cand, SPIKE_SLACK * margin))
			continue;
		out->rungs[r - 1].last = z->last;
		memmove(&out->rungs[r], &out->rungs[r + 2],
			(count - r - 2) * sizeof out->rungs[0]);
		count -= 2;
		r--;
	}
	return count;
}

int fit_ladder(const struct fit_input *in, struct fit_output *out)
{
	unsigned max = in->max_rungs && in->max_rungs < NTMEM_LADDER_MAX
			       ? in->max_rungs : NTMEM_LADDER_MAX;
	double margin = in->margin;
	unsigned count;
	for (;;) {
		count = fit_pass(in, margin, out);
		if (count == 0)
			return -1;
		if (count <= NTMEM_LADDER_MAX)
			count = merge_spikes(in, margin, out, count);
		if (count <= max || margin >= MARGIN_MAX)
			break;
		margin += MARGIN_STEP;
	}
	if (count > max)
		count = max;  /* the last rung serves everything above */
	for (unsigned r = 0; r + 1 < count; r++)
		out->rungs[r].to = fit_edge(in->points[out->rungs[r].last].size,
					    in->points[out->rungs[r + 1].first].size);
	out->rungs[count - 1].to = SIZE_MAX;
	out->rungs[count - 1].last = in->npoints - 1;
	out->count = count;
	out->margin = margin;
	return 0;
}
