/* calibrate_confirm.c - "ntmem calibrate"'s last step for a call class:
 * the fitted ladder against the built-in one (this CPU's recorded entry,
 * or the rule for CPUs not recorded), timed where they differ, twice.
 * The fit replaces the built-in ladder only around the sizes where it won
 * both rounds by more than its spread and MERGE_MIN_WIN (ladder_merge.h);
 * elsewhere the built-in ladder stays, and the report says which sizes
 * kept it. */
#include <string.h>

#include "calibrate.h"
#include "introspect.h"
#include "util/size.h"

/* Runs per round: the effort's, and at least five, so that a round's
 * spread means something. */
#define MIN_CHECK_RUNS 5

static void builtin_ladder(const struct cal_class *k, struct merge_ladder *out)
{
	static struct policy p;  /* large; built on this thread only */
	ntm_policy_build(&p, ntm_cpu(), NULL, NULL);
	const struct ladder *l = &p.ladder[k->cls];
	memset(out, 0, sizeof *out);
	out->count = l->count;
	for (unsigned i = 0; i < l->count; i++) {
		out->variant[i] = ntm_variant_id(l->v[i]);
		out->to[i] = l->to[i];
	}
}

static void fitted_ladder(const struct cal_class *k, struct merge_ladder *out)
{
	memset(out, 0, sizeof *out);
	out->count = k->fit.count;
	for (unsigned r = 0; r < k->fit.count; r++) {
		out->variant[r] = k->cands[k->fit.rungs[r].cand].variant_id;
		out->to[r] = k->fit.rungs[r].to;
	}
}

/* One round over every check: the fit and the built-in variant
 * interleaved at its size, their paired ratios judged. */
static int one_round(const struct cal_options *o, struct cal_class *k,
		     int round, struct cli_error *e)
{
	double gbps[2 * MAX_ROUNDS], ratio[MAX_ROUNDS];
	long runs = k->check_runs;
	for (size_t i = 0; i < k->nchecks; i++) {
		struct cal_check *c = &k->checks[i];
		int ids[2] = {c->fit, c->builtin};
		char s[32];
		cal_progress(o, "%s: against the built-in ladder at %s, round %d",
			     k->label, ntm_format_size(c->size, s, sizeof s), round + 1);
		if (cal_time_variants(o, k, ids, 2, c->size, runs, gbps, e))
			return -1;
		for (long r = 0; r < runs; r++)
			ratio[r] = gbps[runs + r] > 0 ? gbps[r] / gbps[runs + r] : 0;
		int won = merge_round_won(ratio, (size_t)runs, &c->median[round],
					  &c->spread[round]);
		c->won = round ? c->won && won : won;
	}
	return 0;
}

int cal_confirm(const struct cal_options *o, struct cal_class *k,
		struct cli_error *e)
{
	size_t sizes[FIT_MAX_POINTS];
	enum merge_owner owner[FIT_MAX_POINTS];
	size_t n = 0, from = o->small_max + 1;
	builtin_ladder(k, &k->builtin);
	fitted_ladder(k, &k->fitted);
	k->nchecks = 0;
	k->check_runs = o->effort->rounds > MIN_CHECK_RUNS ? o->effort->rounds
							   : MIN_CHECK_RUNS;
	if (k->check_runs > MAX_ROUNDS)
		k->check_runs = MAX_ROUNDS;
	for (size_t i = k->nsmall; i < k->npoints; i++) {
		size_t size = k->points[i].size;
		int f = merge_pick(&k->fitted, size), b = merge_pick(&k->builtin, size);
		sizes[n] = size;
		owner[n++] = f == b ? MERGE_AGREE : MERGE_BUILTIN;
		if (f != b)
			k->checks[k->nchecks++] = (struct cal_check){size, f, b, {0, 0},
								     {0, 0}, 0};
	}
	/* Two rounds, the second after the first has timed every size: a
	 * burst of noise does not fall on both. */
	for (int round = 0; round < 2 && k->nchecks; round++)
		if (one_round(o, k, round, e))
			return -1;
	for (size_t i = 0, c = 0; i < n; i++)
		if (owner[i] == MERGE_BUILTIN && k->checks[c++].won)
			owner[i] = MERGE_FIT;
	k->too_many_rungs = ladder_merge(&k->fitted, &k->builtin, sizes, owner, n,
					 from, &k->written) != 0;
	k->keeps_builtin = merge_same(&k->written, &k->builtin, from);
	return 0;
}
