/* calibrate_json.c - "ntmem calibrate --json": per call class the ladder
 * written (each rung saying whether it is the fit's or the built-in
 * one's), the built-in and the fitted ladders, the rounds against the
 * built-in where they differ, and the grid behind the fit. */
#include <stdint.h>
#include <stdio.h>

#include "calibrate.h"
#include "introspect.h"
#include "output/json.h"

static const char *const class_keys[3] = {"set_zero", "set_nonzero", "copy"};

static void json_point(struct json *j, const struct fit_point *p, size_t n,
		       const struct fn *names)
{
	json_object(j, NULL);
	json_uint(j, "size", p->size);
	json_array(j, "results");
	for (size_t c = 0; c < n; c++) {
		if (!p->measured[c])
			continue;
		json_object(j, NULL);
		json_string(j, "variant", names[c].name);
		json_double(j, "gbps_median", p->gbps[c]);
		json_double(j, "ratio_to_best", p->ratio[c]);
		json_end(j);
	}
	json_end(j);
	json_end(j);
}

/* A ladder's text and words, and its rungs with from and to; with
 * source, each rung says "calibrated" or "built-in". */
static void json_ladder(struct json *j, const struct merge_ladder *l, int source)
{
	char words[256], text[512];
	cal_words(l, words, sizeof words);
	cal_ladder_text(l, text, sizeof text);
	json_string(j, "ladder", text);
	json_string(j, "words", words);
	json_array(j, "rungs");
	for (unsigned r = 0; r < l->count; r++) {
		json_object(j, NULL);
		json_string(j, "variant", ntm_variant(l->variant[r])->name);
		json_uint(j, "from", r ? l->to[r - 1] : 0);
		if (l->to[r] == SIZE_MAX)
			json_null(j, "to");
		else
			json_uint(j, "to", l->to[r]);
		if (source)
			json_string(j, "source", l->calibrated[r] ? "calibrated"
								  : "built-in");
		json_end(j);
	}
	json_end(j);
}

/* The fit, each rung with its confidence. */
static void json_fitted(struct json *j, const struct cal_class *k)
{
	json_object(j, "fitted");
	json_ladder(j, &k->fitted, 0);
	json_double(j, "margin", k->fit.margin);
	json_array(j, "confidence");
	for (unsigned r = 0; r < k->fit.count; r++) {
		struct cal_confidence c;
		cal_rung_confidence(k, r, &c);
		json_object(j, NULL);
		if (c.rival) {
			json_string(j, "rival", c.rival);
			json_double(j, "lead", c.lead);
			json_uint(j, "wins", (uint64_t)c.wins);
			json_uint(j, "rounds", (uint64_t)c.rounds);
			json_string(j, "verdict", c.lead >= 1 + MARGIN ? "clear"
						  : c.lead >= 1 - MARGIN ? "tie" : "behind");
		} else {
			json_null(j, "rival");
			json_string(j, "verdict", "no other candidate");
		}
		json_end(j);
	}
	json_end(j);
	json_end(j);
}

static void json_checks(struct json *j, const struct cal_class *k)
{
	json_uint(j, "check_runs", (uint64_t)k->check_runs);
	json_array(j, "checks");
	for (size_t i = 0; i < k->nchecks; i++) {
		const struct cal_check *c = &k->checks[i];
		json_object(j, NULL);
		json_uint(j, "size", c->size);
		json_string(j, "fit", ntm_variant(c->fit)->name);
		json_string(j, "builtin", ntm_variant(c->builtin)->name);
		json_array(j, "rounds");
		for (int r = 0; r < 2; r++) {
			json_object(j, NULL);
			json_double(j, "median", c->median[r]);
			json_double(j, "spread", c->spread[r]);
			json_end(j);
		}
		json_end(j);
		json_string(j, "serves", c->won ? "calibrated" : "built-in");
		json_end(j);
	}
	json_end(j);
}

static void json_class(struct json *j, const struct cal_class *k)
{
	json_object(j, NULL);
	json_string(j, "class", class_keys[k->cls]);
	json_string(j, "label", k->label);
	json_uint(j, "value", (uint64_t)k->value);
	json_ladder(j, &k->written, 1);
	json_bool(j, "in_profile", !k->keeps_builtin);
	json_string(j, "outcome", cal_outcome(k));
	json_object(j, "builtin");
	json_ladder(j, &k->builtin, 0);
	json_end(j);
	json_fitted(j, k);
	json_checks(j, k);
	json_string(j, "streaming", k->streaming >= 0 ? k->cands[k->streaming].name
						      : NULL);
	json_array(j, "streaming_pick");
	if (k->npicked)
		json_point(j, &k->pick, k->npicked, k->picked);
	json_end(j);
	json_array(j, "points");
	for (size_t i = 0; i < k->npoints; i++)
		json_point(j, &k->points[i], k->ncands, k->cands);
	json_end(j);
	json_array(j, "refinements");
	for (size_t i = 0; i < k->nrefined; i++) {
		const struct cal_refinement *f = &k->refined[i];
		json_object(j, NULL);
		json_string(j, "below", k->cands[k->fit.rungs[f->rung].cand].name);
		json_string(j, "above", k->cands[k->fit.rungs[f->rung + 1].cand].name);
		json_uint(j, "size", f->size);
		json_double(j, "below_gbps", f->below);
		json_double(j, "above_gbps", f->above);
		json_end(j);
	}
	json_end(j);
	json_end(j);
}

static void json_parallel(struct json *j, const struct cal_parallel *p)
{
	json_object(j, "parallel");
	json_uint(j, "threads", p->threads);
	json_string(j, "skipped", p->skipped);
	char words[400];
	cal_parallel_words(p, words, sizeof words);
	json_string(j, "words", words);
	if (p->min_chunk)
		json_uint(j, "min_chunk", p->min_chunk);
	else
		json_null(j, "min_chunk");
	json_array(j, "points");
	for (size_t i = 0; i < p->n; i++) {
		json_object(j, NULL);
		json_uint(j, "size", p->sizes[i]);
		json_double(j, "serial_gbps", p->serial[i]);
		json_double(j, "parallel_gbps", p->parallel[i]);
		json_double(j, "ratio", p->ratio[i]);
		json_end(j);
	}
	json_end(j);
	json_end(j);
}

void cal_report_json(const struct cal_options *o, const struct cal_class *k,
		     const char *path, int written)
{
	struct json j;
	json_start(&j, stdout);
	json_string(&j, "command", "calibrate");
	json_string(&j, "effort", o->effort->name);
	json_int(&j, "cpu", o->cpu);
	json_double(&j, "seconds", o->seconds);
	json_array(&j, "classes");
	for (int cls = 0; cls < 3; cls++)
		json_class(&j, &k[cls]);
	json_end(&j);
	json_parallel(&j, &o->parallel);
	json_string(&j, "profile", path);
	json_bool(&j, "written", written);
	char undo[1200];
	cal_undo_command(o, path, undo, sizeof undo);
	json_string(&j, "undo", written ? undo : NULL);
	json_finish(&j);
}
