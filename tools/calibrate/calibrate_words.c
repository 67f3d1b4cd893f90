/* calibrate_words.c - what "ntmem calibrate" found, in words: a ladder
 * as a sentence and as a profile line, the outcome of a class, a fitted
 * rung's confidence.  The report, its JSON and the profile's comment all
 * say these, so they live below the three. */
#define _GNU_SOURCE
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include "calibrate.h"
#include "introspect.h"
#include "util/size.h"

static const char *variant_name(int id)
{
	const struct variant *v = ntm_variant(id);
	return v ? v->name : "?";
}

void cal_words(const struct merge_ladder *l, char *buf, size_t len)
{
	size_t used = 0;
	char s[32];
	buf[0] = '\0';
	for (unsigned r = 0; r < l->count && used < len; r++) {
		const struct variant *v = ntm_variant(l->variant[r]);
		int streams = v && ntm_streams(v);
		const char *lead = r == 0 ? "" : streams ? ", streams" : ", then";
		ntm_format_size(r ? l->to[r - 1] : 0, s, sizeof s);
		if (streams && r)
			used += (size_t)snprintf(buf + used, len - used, "%s from %s (%s)",
						 lead, s, variant_name(l->variant[r]));
		else if (streams)
			used += (size_t)snprintf(buf + used, len - used,
						 "streams at every size (%s)",
						 variant_name(l->variant[r]));
		else
			used += (size_t)snprintf(buf + used, len - used, "%s%s%s", lead,
						 r ? " " : "", variant_name(l->variant[r]));
		if (!streams && l->to[r] != SIZE_MAX && used < len)
			used += (size_t)snprintf(buf + used, len - used, " up to %s",
						 ntm_format_size(l->to[r], s, sizeof s));
	}
}

void cal_ladder_text(const struct merge_ladder *l, char *buf, size_t len)
{
	size_t used = 0;
	buf[0] = '\0';
	for (unsigned r = 0; r < l->count && used < len; r++)
		used += (size_t)(l->to[r] == SIZE_MAX
				 ? snprintf(buf + used, len - used, "%s",
					    variant_name(l->variant[r]))
				 : snprintf(buf + used, len - used, "%s:%zu,",
					    variant_name(l->variant[r]), l->to[r]));
}

const char *cal_outcome(const struct cal_class *k)
{
	size_t won = 0;
	for (size_t i = 0; i < k->nchecks; i++)
		won += k->checks[i].won;
	if (k->too_many_rungs)
		return "the built-in ladder, kept: the fit's winning parts would "
		       "need more rungs than a ladder holds";
	if (k->keeps_builtin && !k->nchecks)
		return "the built-in ladder: the fit picks the same at every size "
		       "measured";
	if (k->keeps_builtin)
		return "the built-in ladder, kept: calibration did not beat it by "
		       "more than its spread and 3% in two rounds";
	if (won == k->nchecks)
		return "calibrated: the fit beat the built-in ladder in two rounds "
		       "wherever they differ";
	return "calibrated where the fit beat the built-in ladder in two "
	       "rounds, the built-in ladder elsewhere";
}

void cal_rung_confidence(const struct cal_class *k, unsigned r,
			 struct cal_confidence *c)
{
	const struct fit_rung *g = &k->fit.rungs[r];
	memset(c, 0, sizeof *c);
	c->lead = 1e9;
	for (size_t i = g->first; i <= g->last; i++) {
		const struct fit_point *p = &k->points[k->nsmall + i];
		int rival = -1;
		for (size_t o = 0; o < k->ncands; o++)
			if (o != g->cand && p->measured[o] &&
			    (rival < 0 || p->gbps[o] > p->gbps[rival]))
				rival = (int)o;
		if (rival < 0 || !p->measured[g->cand])
			continue;
		double lead = p->gbps[g->cand] / p->gbps[rival];
		if (lead < c->lead) {
			c->lead = lead;
			c->rival = k->cands[rival].name;
			c->wins = p->wins[g->cand];
			c->rounds = p->rounds;
		}
	}
}

/* "ntmem calibrate --undo" with what names the profile calibrate wrote,
 * for the report, its JSON and the profile's comment. */
void cal_undo_command(const struct cal_options *o, const char *path, char *buf,
		      size_t len)
{
	char *argv[] = {"ntmem", "calibrate", "--undo", NULL, NULL, NULL};
	if (o->system)
		argv[3] = "--system";
	else if (o->output) {
		argv[3] = "--output";
		argv[4] = (char *)path;
	}
	cli_format_command(argv, buf, len);
}
