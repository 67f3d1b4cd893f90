/* pollution_report.c - what "ntmem pollution" measured: a table per
 * mode, the JSON report, the plot, and the one-line verdicts. */
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "output/json.h"
#include "pollution_report.h"
#include "util/size.h"
#include "output/svg.h"

static const struct row *find_row(const struct ctx *c, enum mode m, int op,
				  const struct fn *f, size_t victim)
{
	if (!f)
		return NULL;
	/* A reread row's size is the part read: at most the call's size. */
	if (m == MODE_REREAD && victim > c->o->size)
		victim = c->o->size & ~(size_t)(CHASE_LINE - 1);
	for (size_t i = 0; i < c->nrows; i++) {
		const struct row *r = &c->rows[i];
		if (r->mode == m && r->op == op && r->f == f && r->victim == victim)
			return r;
	}
	return NULL;
}

/* "rep stosb" for a string instruction, else the function's name. */
static const char *cached_label(const struct fn *f, char *buf, size_t len)
{
	if (f->kind == FN_VARIANT && f->role == NTMEM_ROLE_STRING)
		snprintf(buf, len, "rep %s", f->name);
	else
		snprintf(buf, len, "%s", f->name);
	return buf;
}

/* A verdict being written: appends stop quietly at the end of buf. */
struct line {
	char *buf;
	size_t len, at;
};

__attribute__((format(printf, 2, 3))) static void put(struct line *l,
						      const char *fmt, ...)
{
	if (l->at >= l->len)
		return;
	va_list ap;
	va_start(ap, fmt);
	int n = vsnprintf(l->buf + l->at, l->len - l->at, fmt, ap);
	va_end(ap);
	l->at += n > 0 ? (size_t)n : 0;
}

int pol_control_broken(double slowdown)
{
	return !isnan(slowdown) &&
	       (slowdown < POL_CONTROL_LO || slowdown > POL_CONTROL_HI);
}

/* after's clause: what one call left the victim, against the cached
 * functions and the idle control, unless the control itself is far from
 * 1x: then whatever the functions show may be the same disturbance, and
 * the clause says so instead.  0 when there was nothing to say. */
static int after_clause(const struct ctx *c, int op, struct line *l)
{
	const struct popts *o = c->o;
	const struct fn *nt = o->streaming[op], *ca = o->cached[op];
	size_t v = o->verdict_victim;
	char vs[32], ss[32], cl[32];
	ntm_format_size(v, vs, sizeof vs);
	ntm_format_size(o->size, ss, sizeof ss);
	const struct row *rn = find_row(c, MODE_AFTER, op, nt, v);
	const struct row *rc = find_row(c, MODE_AFTER, op, ca, v);
	const struct row *ri = find_row(c, MODE_AFTER, op, &pol_idle[op], v);
	if (!rn && !rc)
		return 0;
	if (ri && pol_control_broken(ri->slowdown)) {
		put(l, " after one %s call, no verdict: the idle control (no call, "
		    "as long) left the %s victim %.2fx slower, where a quiet machine "
		    "gives about 1x (%.1fx to %.0fx), so the functions' figures may "
		    "be that disturbance (other tenants, interrupts, a migration) "
		    "rather than theirs; run again on a quieter machine or other "
		    "CPUs (--cpu)", ss, vs, ri->slowdown, POL_CONTROL_LO,
		    POL_CONTROL_HI);
		return 1;
	}
	put(l, " after one %s call, ", ss);
	if (rn)
		put(l, "streaming (%s) left a %s victim %.1fx slower", nt->name, vs,
		    rn->slowdown);
	if (rn && rc)
		put(l, ", %s %.1fx", cached_label(ca, cl, sizeof cl), rc->slowdown);
	else if (rc)
		put(l, "%s left a %s victim %.1fx slower",
		    cached_label(ca, cl, sizeof cl), vs, rc->slowdown);
	const struct fn *lp = o->reference[op];
	const struct row *rl = lp != ca ? find_row(c, MODE_AFTER, op, lp, v) : NULL;
	if (rl)
		put(l, ", cached stores (%s) %.1fx", lp->name, rl->slowdown);
	if (ri)
		put(l, ", idle as long %.1fx", ri->slowdown);
	return 1;
}

/* One line per operation: what streaming spared, and what it cost. */
void pol_verdict(const struct ctx *c, int op, char *buf, size_t len)
{
	const struct popts *o = c->o;
	const struct fn *nt = o->streaming[op], *ca = o->cached[op];
	size_t v = o->verdict_victim;
	char cl[32];
	struct line l = {buf, len, 0};
	buf[0] = '\0';
	put(&l, "%s:", pol_op_names[op]);
	int clauses = after_clause(c, op, &l);
	const struct row *rn = find_row(c, MODE_CONCURRENT, op, nt, v);
	const struct row *rc = find_row(c, MODE_CONCURRENT, op, ca, v);
	if (rn && rc) {
		put(&l, "%s running alongside, %.2fx vs %.2fx on another CPU",
		    clauses++ ? ";" : "", rn->slowdown, rc->slowdown);
	}
	rn = find_row(c, MODE_REREAD, op, nt, v);
	if (rn && o->reference[op]) {
		char rs[32];
		put(&l, "%s re-reading the last %s of the destination right after "
		    "costs streaming %.1fx what it costs after %s", clauses++ ? ";" : "",
		    ntm_format_size(rn->victim, rs, sizeof rs), rn->slowdown,
		    cached_label(o->reference[op], cl, sizeof cl));
	}
	rn = find_row(c, MODE_MIXED, op, nt, v);
	rc = find_row(c, MODE_MIXED, op, ca, v);
	if (rn && rc)
		put(&l, "%s mixed with lookups, %.1f ms a round vs %.1f ms",
		    clauses++ ? ";" : "", rn->total_ms, rc->total_ms);
	if (!clauses)
		put(&l, " no pair of streaming and cached functions to compare");
	put(&l, ".");
}

static const char *nt_text(int nt)
{
	return nt == 1 ? "yes" : nt == 0 ? "no" : "?";
}

static const char *const mode_blurb[MODE_COUNT] = {
	"one pass over a warm victim right after one aggressor call",
	"the victim chasing on another CPU while the aggressor runs",
	"reading the last part of the destination right after the call",
	"rounds of one aggressor call and table lookups on one thread",
};
static const char *const base_label[MODE_COUNT] = {
	"warm", "alone", "after ref", "alone",
};
static const char *const with_label[MODE_COUNT] = {
	"after", "during", "after fn", "mixed",
};
static const char *const unit_label[MODE_COUNT] = {
	"ns/access", "ns/access", "ns/line", "ns/lookup",
};

static void print_header(const struct ctx *c, FILE *f)
{
	const struct popts *o = c->o;
	char s1[32], s2[32], s3[32], s4[32];
	fprintf(f, "ntmem pollution: what each method costs other data's cache\n");
	fprintf(f, "Machine:   %s, %u CPUs online, %s, THP %s\n", o->m.cpu,
		o->m.online_cpus, o->m.kernel, o->m.thp);
	fprintf(f, "Caches:    L1d %s, L2 %s, L3 %s shared by %u\n",
		ntm_format_size(o->caches.l1d, s1, sizeof s1),
		ntm_format_size(o->caches.l2, s2, sizeof s2),
		ntm_format_size(o->caches.l3, s3, sizeof s3), o->caches.l3_shared_by);
	fprintf(f, "Victim:    pointer chase, one dependent access per 64-byte "
		"line, on %s%s\n", c->victim.obtained,
		strncmp(c->victim.obtained, "4 KiB", 5) ? "" :
		" (TLB misses count as cache misses here)");
	fprintf(f, "Aggressor: %s a call, on %s; CPU %d", ntm_format_size(o->size, s4, sizeof s4),
		c->dst.obtained, o->cpu);
	if ((o->modes & (1u << MODE_CONCURRENT)) && o->victim_cpu >= 0)
		fprintf(f, ", concurrent victim on CPU %d", o->victim_cpu);
	fprintf(f, "\nRuns:      %ld, medians", o->runs);
	if (o->modes & (1u << MODE_MIXED))
		fprintf(f, "; mixed: %ld rounds of %ld lookups", o->rounds, o->lookups);
	fprintf(f, "\nCounters:  %s%s\n", c->pc.available ? "cache-misses, "
		"cache-references per victim pass (user space)" : "unavailable: ",
		c->pc.available ? "" : c->pc.reason);
}

/* The mode's title line, with after's idle times and reread's references,
 * and the column heads. */
static void print_mode_head(const struct ctx *c, int m, FILE *f)
{
	const struct popts *o = c->o;
	fprintf(f, "\n%s: %s", pol_mode_names[m], mode_blurb[m]);
	for (int op = 0; op < NOPS; op++) {
		if (!o->nrun[op] || !(o->ops & (1u << op)))
			continue;
		const char *sep = op == 0 || !(o->ops & 1u) ? ";" : ",";
		if (m == MODE_AFTER)
			fprintf(f, "%s %s idle %.2f ms", sep, pol_op_names[op],
				(double)c->idle_ns[op] / 1e6);
		if (m == MODE_REREAD && o->reference[op])
			fprintf(f, "%s %s ref %s", sep, pol_op_names[op],
				o->reference[op]->name);
	}
	fprintf(f, "\n%-7s %-9s %-11s %-3s %7s %10s %9s %9s", "op",
		m == MODE_REREAD ? "re-read" : m == MODE_MIXED ? "table" : "victim",
		"function", "NT", "GB/s", unit_label[m], with_label[m], "slowdown");
	if (m == MODE_MIXED)
		fprintf(f, " %9s %9s", "ms/round", "aggr ms");
	if (c->pc.available)
		fprintf(f, " %21s %21s", "misses base/with", "refs base/with");
	fputc('\n', f);
	fprintf(f, "%-7s %-9s %-11s %-3s %7s %10s\n", "", "", "", "", "", base_label[m]);
}

static void print_row(const struct row *r, FILE *f)
{
	char g[16], s[32];
	if (isfinite(r->gbps))
		snprintf(g, sizeof g, "%7.2f", r->gbps);
	else
		snprintf(g, sizeof g, "%7s", "-");
	fprintf(f, "%-7s %-9s %-11s %-3s %s %10.2f %9.2f %8.2fx",
		pol_op_names[r->op], ntm_format_size(r->victim, s, sizeof s),
		r->f->name, pol_is_idle(r->f) ? "-" : nt_text(r->nt), g,
		r->base_ns, r->with_ns, r->slowdown);
	if (r->mode == MODE_MIXED)
		fprintf(f, " %9.2f %9.2f", r->total_ms, r->aggr_ms);
	if (r->counted)
		fprintf(f, " %10.0f/%-10.0f %10.0f/%-10.0f", r->miss_base,
			r->miss_with, r->ref_base, r->ref_with);
	fputc('\n', f);
}

void pol_print_table(const struct ctx *c, FILE *f)
{
	const struct popts *o = c->o;
	print_header(c, f);
	for (int m = 0; m < MODE_COUNT; m++) {
		int any = 0;
		for (size_t i = 0; i < c->nrows; i++)
			any |= c->rows[i].mode == (enum mode)m;
		if (!any)
			continue;
		print_mode_head(c, m, f);
		for (size_t i = 0; i < c->nrows; i++)
			if (c->rows[i].mode == (enum mode)m)
				print_row(&c->rows[i], f);
	}
	for (size_t i = 0; i < o->nskips; i++) {
		const struct skip *s = &o->skips[i];
		if (s->mode >= 0)
			fprintf(f, "\nskipped: %s mode: %s", pol_mode_names[s->mode], s->reason);
		else
			fprintf(f, "\nskipped: %s %s: %s", pol_op_names[s->op], s->name,
				s->reason);
	}
	if (o->nskips)
		fputc('\n', f);
	fprintf(f, "\nVerdict:\n");
	for (int op = 0; op < NOPS; op++) {
		if (!(o->ops & (1u << op)) || !o->nrun[op])
			continue;
		char v[768];
		pol_verdict(c, op, v, sizeof v);
		fprintf(f, "%s\n", v);
	}
}

static void json_machine(struct json *j, const struct popts *o)
{
	json_object(j, "machine");
	machine_json_members(j, &o->m);
	json_uint(j, "l1d", o->caches.l1d);
	json_uint(j, "l2", o->caches.l2);
	json_uint(j, "l3", o->caches.l3);
	json_uint(j, "l3_shared_by", o->caches.l3_shared_by);
	json_end(j);
}

static void json_settings(struct json *j, const struct popts *o)
{
	json_object(j, "settings");
	json_array(j, "modes");
	for (int m = 0; m < MODE_COUNT; m++)
		if (o->modes & (1u << m))
			json_string(j, NULL, pol_mode_names[m]);
	json_end(j);
	json_array(j, "ops");
	for (int op = 0; op < NOPS; op++)
		if (o->ops & (1u << op))
			json_string(j, NULL, pol_op_names[op]);
	json_end(j);
	json_object(j, "functions");
	for (int op = 0; op < NOPS; op++) {
		if (!(o->ops & (1u << op)))
			continue;
		json_array(j, pol_op_names[op]);
		for (size_t i = 0; i < o->nrun[op]; i++)
			json_string(j, NULL, o->run[op][i]->name);
		json_end(j);
	}
	json_end(j);
	json_object(j, "reread_reference");
	for (int op = 0; op < NOPS; op++)
		if (o->ops & (1u << op))
			json_string(j, pol_op_names[op],
				    o->reference[op] ? o->reference[op]->name : NULL);
	json_end(j);
	json_uint(j, "size", o->size);
	json_array(j, "victim_sizes");
	for (size_t i = 0; i < o->nvictims; i++)
		json_uint(j, NULL, o->victims[i]);
	json_end(j);
	json_string(j, "pages_requested", page_request_name(o->pages));
	json_int(j, "runs", o->runs);
	json_int(j, "lookups", o->lookups);
	json_int(j, "rounds", o->rounds);
	json_int(j, "cpu", o->cpu);
	json_int(j, "victim_cpu", o->victim_cpu);
	json_end(j);
}

static void json_counters(struct json *j, const struct ctx *c)
{
	json_object(j, "counters");
	json_bool(j, "available", c->pc.available);
	if (c->pc.available)
		json_null(j, "reason");
	else
		json_string(j, "reason", c->pc.reason);
	json_array(j, "events");
	json_string(j, NULL, "cache-misses");
	json_string(j, NULL, "cache-references");
	json_end(j);
	json_end(j);
}

static void json_row(struct json *j, const struct ctx *c, const struct row *r)
{
	const struct fn *ref = c->o->reference[r->op];
	json_object(j, NULL);
	json_string(j, "mode", pol_mode_names[r->mode]);
	json_string(j, "op", pol_op_names[r->op]);
	json_string(j, "function", r->f->name);
	if (pol_is_idle(r->f)) {
		json_bool(j, "control", 1);
		json_double(j, "idle_ms", (double)c->idle_ns[r->op] / 1e6);
	}
	if (r->nt < 0)
		json_null(j, "nontemporal");
	else
		json_bool(j, "nontemporal", r->nt);
	json_uint(j, r->mode == MODE_REREAD ? "reread_bytes" : "victim_size", r->victim);
	json_double(j, "aggressor_gbps", r->gbps);
	json_double(j, "victim_ns_baseline", r->base_ns);
	json_double(j, "victim_ns_polluted", r->with_ns);
	json_double(j, "slowdown", r->slowdown);
	if (r->mode == MODE_REREAD)
		json_string(j, "reference", ref ? ref->name : NULL);
	if (r->mode == MODE_MIXED) {
		json_double(j, "total_ms_per_round", r->total_ms);
		json_double(j, "aggressor_ms_per_round", r->aggr_ms);
		json_double(j, "lookup_ms_per_round", r->lookup_ms);
	}
	json_double(j, "cache_misses_baseline", r->counted ? r->miss_base : NAN);
	json_double(j, "cache_misses_polluted", r->counted ? r->miss_with : NAN);
	json_double(j, "cache_references_baseline", r->counted ? r->ref_base : NAN);
	json_double(j, "cache_references_polluted", r->counted ? r->ref_with : NAN);
	json_end(j);
}

void pol_write_json(const struct ctx *c, FILE *f)
{
	const struct popts *o = c->o;
	struct json j;
	json_start(&j, f);
	json_string(&j, "command", "pollution");
	json_machine(&j, o);
	json_settings(&j, o);
	json_string(&j, "victim_pages", c->victim.obtained);
	json_string(&j, "aggressor_pages", c->dst.obtained);
	json_counters(&j, c);
	json_array(&j, "results");
	for (size_t i = 0; i < c->nrows; i++)
		json_row(&j, c, &c->rows[i]);
	json_end(&j);

	json_array(&j, "verdicts");
	for (int op = 0; op < NOPS; op++) {
		if (!(o->ops & (1u << op)) || !o->nrun[op])
			continue;
		char v[768];
		pol_verdict(c, op, v, sizeof v);
		json_string(&j, NULL, v);
	}
	json_end(&j);

	json_array(&j, "skipped");
	for (size_t i = 0; i < o->nskips; i++) {
		const struct skip *s = &o->skips[i];
		json_object(&j, NULL);
		if (s->mode >= 0) {
			json_string(&j, "mode", pol_mode_names[s->mode]);
		} else {
			json_string(&j, "op", pol_op_names[s->op]);
			json_string(&j, "function", s->name);
		}
		json_string(&j, "reason", s->reason);
		json_end(&j);
	}
	json_end(&j);
	json_finish(&j);
}

/* One operation's panel of the plot: its storage, filled by op_panel. */
struct panel {
	struct plot_series series[FN_MAX];
	struct plot_band band;
	double xs[FN_MAX + 1][MAX_VICTIMS], ys[FN_MAX + 1][MAX_VICTIMS];
	double lo[FN_MAX + 1][MAX_VICTIMS], hi[FN_MAX + 1][MAX_VICTIMS];
	char title[128], sub[256];
};

/* Slot k's rows of mode for op into the panel's arrays; how many. */
static size_t collect(const struct ctx *c, int mode, int op, const struct fn *f,
		      struct panel *pn, size_t k, int *nt)
{
	size_t n = 0;
	for (size_t i = 0; i < c->nrows && n < MAX_VICTIMS; i++) {
		const struct row *r = &c->rows[i];
		if (r->mode != (enum mode)mode || r->op != op || r->f != f)
			continue;
		pn->xs[k][n] = (double)r->victim;
		pn->ys[k][n] = r->slowdown;
		pn->lo[k][n] = r->slow_min;
		pn->hi[k][n] = r->slow_max;
		*nt = r->nt;  /* the rows' own: streamread always streams */
		n++;
	}
	return n;
}

/* op's panel: a line per function with bars over the runs, and after's
 * idle control as a band from 1x (nothing lost) to what waiting alone
 * cost the victim: no function's line inside it shows an effect of its
 * own.  Returns the panel's plot. */
static struct plot op_panel(const struct ctx *c, int mode, int op,
			    struct panel *pn)
{
	const struct popts *o = c->o;
	size_t ns = 0;
	for (size_t k = 0; k < o->nrun[op]; k++) {
		int nt = -1;
		size_t n = collect(c, mode, op, o->run[op][k], pn, ns, &nt);
		if (!n)
			continue;
		pn->series[ns] = (struct plot_series){
			.name = o->run[op][k]->name, .count = n, .x = pn->xs[ns],
			.y = pn->ys[ns], .dashed = nt == 1, .lo = pn->lo[ns],
			.hi = pn->hi[ns]};
		ns++;
	}
	int nt;
	size_t nb = collect(c, mode, op, &pol_idle[op], pn, FN_MAX, &nt);
	for (size_t i = 0; i < nb; i++) {
		pn->lo[FN_MAX][i] = fmin(1.0, fmin(pn->lo[FN_MAX][i], pn->ys[FN_MAX][i]));
		pn->hi[FN_MAX][i] = fmax(1.0, fmax(pn->hi[FN_MAX][i], pn->ys[FN_MAX][i]));
	}
	pn->band = (struct plot_band){"idle control (no call)", nb,
				      pn->xs[FN_MAX], pn->lo[FN_MAX], pn->hi[FN_MAX]};
	char s[32];
	snprintf(pn->title, sizeof pn->title, "%s (%s): victim slowdown, %s calls",
		 pol_op_names[op], pol_mode_names[mode],
		 ntm_format_size(o->size, s, sizeof s));
	snprintf(pn->sub, sizeof pn->sub, "%s; victim on %s", o->m.cpu,
		 c->victim.obtained);
	return (struct plot){
		.title = pn->title, .subtitle = pn->sub,
		.x_label = mode == MODE_REREAD ? "bytes re-read" : "victim working set",
		.y_label = "slowdown (x)", .x_scale = AXIS_LOG2_BYTES,
		.y_scale = AXIS_LOG10, .series = pn->series, .nseries = ns,
		.bands = nb ? &pn->band : NULL, .nbands = nb ? 1 : 0,
		.caption = "Points: the median run; bars: the fastest run to the "
			   "slowest, over the median baseline; grey: from 1x to the "
			   "idle control's runs; dashed lines stream"};
}

/* Slowdown against victim size for the first mode that ran (after,
 * unless it was not asked for): a panel per operation. */
int pol_write_plot(const struct ctx *c, FILE *f)
{
	int mode = -1;
	for (int m = 0; m < MODE_COUNT && mode < 0; m++)
		for (size_t i = 0; i < c->nrows && mode < 0; i++)
			if (c->rows[i].mode == (enum mode)m)
				mode = m;
	if (mode < 0)
		return -1;
	static struct panel panels[NOPS];
	struct plot plots[NOPS];
	size_t np = 0;
	for (int op = 0; op < NOPS; op++)
		if ((c->o->ops & (1u << op)) && c->o->nrun[op]) {
			plots[np] = op_panel(c, mode, op, &panels[np]);
			np++;
		}
	return svg_plots(f, plots, np);
}
