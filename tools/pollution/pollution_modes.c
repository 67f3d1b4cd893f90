/* pollution_modes.c - "ntmem pollution" measuring: the one skeleton every
 * mode runs in, and the modes after, reread and mixed (concurrent, with
 * its victim thread, is in pollution_concurrent.c). */
#define _GNU_SOURCE
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "measure/benchfn.h"
#include "pollution_modes.h"
#include "util/size.h"

/* ------------------------------------------------------------------ */
/* The skeleton                                                        */
/* ------------------------------------------------------------------ */

static struct row *new_row(struct ctx *c, enum mode mode, int op,
			   const struct fn *f, size_t size)
{
	if (c->nrows == c->cap) {
		size_t cap = c->cap ? 2 * c->cap : 64;
		struct row *r = realloc(c->rows, cap * sizeof *r);
		if (!r)
			return NULL;
		c->rows = r;
		c->cap = cap;
	}
	struct row *r = &c->rows[c->nrows++];
	*r = (struct row){.mode = mode, .op = op, .f = f, .victim = size};
	r->nt = pol_is_idle(f) ? -1 : pol_is_streamread(f) ? 1
	      : fn_streams(f, c->o->size, 0);
	r->gbps = r->base_ns = r->with_ns = r->slowdown = NAN;
	r->slow_min = r->slow_max = NAN;
	r->total_ms = r->aggr_ms = r->lookup_ms = NAN;
	r->miss_base = r->miss_with = r->ref_base = r->ref_with = NAN;
	return r;
}

static int alloc_samples(struct samples *s, size_t runs)
{
	memset(s, 0, sizeof *s);
	double **arrays[] = {&s->base, &s->with, &s->gbps, &s->total, &s->aggr};
	int bad = 0;
	for (size_t i = 0; i < sizeof arrays / sizeof arrays[0]; i++) {
		*arrays[i] = calloc(runs, sizeof(double));
		bad |= !*arrays[i];
	}
	return bad ? -1 : 0;
}

static void free_samples(struct samples *s)
{
	free(s->base);
	free(s->with);
	free(s->gbps);
	free(s->total);
	free(s->aggr);
}

/* Slot k's row: the medians over the runs, against its own warm pass or
 * the control's result, and the counts per pass when counted. */
static int add_row(struct mode_run *m, const struct mode_def *d, size_t k)
{
	size_t runs = (size_t)m->c->o->runs;
	struct samples *measured = &m->s[k], *ctl = &m->s[m->nf];
	struct row *w = new_row(m->c, d->mode, m->op, m->fn[k], m->row_size);
	if (!w)
		return -1;
	int ctl_base = d->base_is_control;
	w->base_ns = median_of(ctl_base ? ctl->with : measured->base, runs);
	w->with_ns = median_of(measured->with, runs);  /* sorts it */
	w->slowdown = w->with_ns / w->base_ns;
	w->slow_min = measured->with[0] / w->base_ns;
	w->slow_max = measured->with[runs - 1] / w->base_ns;
	w->gbps = median_of(measured->gbps, runs);
	if (m->counted) {
		w->counted = 1;
		w->miss_base = (ctl_base ? ctl->miss_with : measured->miss_base) / (double)runs;
		w->ref_base = (ctl_base ? ctl->ref_with : measured->ref_base) / (double)runs;
		w->miss_with = measured->miss_with / (double)runs;
		w->ref_with = measured->ref_with / (double)runs;
	}
	if (d->finish)
		d->finish(m, k, w);
	return 0;
}

struct visit {
	struct mode_run *m;
	const struct mode_def *d;
};

static int visit_slot(void *arg, size_t k, long r)
{
	struct visit *v = arg;
	v->d->sample(v->m, k, r);
	return pol_refused(NULL) ? -1 : 0;
}

/* One mode, one operation, one victim size: every slot, --runs times in
 * rotated order, then a row per function (and per control, for after). */
static int run_mode(struct ctx *c, const struct mode_def *d, int op,
		    size_t vsize, struct cli_error *e)
{
	struct mode_run m = {.c = c, .op = op, .vsize = vsize, .row_size = vsize,
			     .nf = c->o->nrun[op], .counted = c->pc.available};
	m.slots = m.nf + (d->control ? 1 : 0);
	for (size_t k = 0; k < m.nf; k++)
		m.fn[k] = c->o->run[op][k];
	if (d->control)
		m.fn[m.nf] = d->control_fn(&m);
	int bad = 0;
	for (size_t k = 0; k < m.slots; k++)
		bad |= alloc_samples(&m.s[k], (size_t)c->o->runs);
	if (bad)
		cli_error(e, CLI_FAILED, "out of memory");
	else if (d->start && d->start(&m, e))
		bad = 1;
	if (!bad) {
		struct visit v = {&m, d};
		benchfn_rotate(m.slots, c->o->runs, visit_slot, &v);
		if (d->stop)
			d->stop(&m);
		int err;
		const struct fn *refused = pol_refused(&err);
		if (refused)
			bad = cli_error(e, CLI_FAILED, "%s refused to run (%s)",
					refused->name, strerror(err));
	}
	size_t rows = m.nf + (d->control_row ? 1 : 0);
	for (size_t k = 0; k < rows && !bad; k++)
		if (add_row(&m, d, k))
			bad = cli_error(e, CLI_FAILED, "out of memory");
	for (size_t k = 0; k < m.slots; k++)
		free_samples(&m.s[k]);
	return bad ? -1 : 0;
}

/* ------------------------------------------------------------------ */
/* after: one pass over a warm victim right after one aggressor call   */
/* ------------------------------------------------------------------ */

static int after_start(struct mode_run *m, struct cli_error *e)
{
	(void)e;
	m->lines = m->vsize / CHASE_LINE;
	/* A warm pass of a small victim is timed over several passes, so
	 * the clock's own cost (tens of ns) stays under 1%. */
	m->passes = m->lines >= 4096 ? 1 : (4096 + m->lines - 1) / m->lines;
	chase_build(m->c->victim.p, m->lines, POL_SEED ^ m->vsize);
	m->pos = m->c->victim.p;
	return 0;
}

static void after_sample(struct mode_run *m, size_t k, long r)
{
	const struct perfcount *pc = &m->c->pc;
	struct samples *s = &m->s[k];
	size_t lines = m->lines;
	struct perf_values a, b, d, e;
	void *p = chase_run(m->pos, 3 * lines);  /* warm */
	perfcount_read(pc, &a);
	uint64_t t0 = ntm_now_ns();
	p = chase_run(p, lines * m->passes);
	uint64_t t1 = ntm_now_ns();
	perfcount_read(pc, &b);
	uint64_t ta = pol_aggress(m->c, m->fn[k]);
	perfcount_read(pc, &d);
	uint64_t t2 = ntm_now_ns();
	p = chase_run(p, lines);
	uint64_t t3 = ntm_now_ns();
	perfcount_read(pc, &e);
	m->pos = p;
	s->base[r] = (double)(t1 - t0) / (double)(lines * m->passes);
	s->with[r] = (double)(t3 - t2) / (double)lines;
	s->gbps[r] = pol_is_idle(m->fn[k]) ? NAN
					   : pol_gbps(m->c->o->size, (double)ta);
	double mb = 0, rb = 0;
	pol_count(&a, &b, &mb, &rb);
	s->miss_base += mb / (double)m->passes;
	s->ref_base += rb / (double)m->passes;
	pol_count(&d, &e, &s->miss_with, &s->ref_with);
}

static void after_stop(struct mode_run *m)
{
	pol_sink = (uintptr_t)m->pos;
}

static const struct fn *after_control(const struct mode_run *m)
{
	return &pol_idle[m->op];
}

const struct mode_def pol_after = {
	.mode = MODE_AFTER, .control = 1, .control_row = 1,
	.start = after_start, .stop = after_stop, .sample = after_sample,
	.control_fn = after_control,
};

/* ------------------------------------------------------------------ */
/* reread: the destination's last part, read right after the call,    */
/* against the same read after the reference (cached) write            */
/* ------------------------------------------------------------------ */

static int reread_start(struct mode_run *m, struct cli_error *e)
{
	(void)e;
	size_t size = m->c->o->size;
	size_t bytes = (m->vsize < size ? m->vsize : size) & ~(size_t)(CHASE_LINE - 1);
	m->tail = m->c->dst.p + (size - bytes) / CHASE_LINE * CHASE_LINE;
	m->lines = bytes / CHASE_LINE;
	m->row_size = bytes;
	return 0;
}

static void reread_sample(struct mode_run *m, size_t k, long r)
{
	struct samples *s = &m->s[k];
	struct perf_values a, b;
	uint64_t ta = pol_aggress(m->c, m->fn[k]);
	perfcount_read(&m->c->pc, &a);
	uint64_t t0 = ntm_now_ns();
	pol_sink += (uintptr_t)pol_consume(m->tail, m->row_size);
	uint64_t t1 = ntm_now_ns();
	perfcount_read(&m->c->pc, &b);
	s->with[r] = (double)(t1 - t0) / (double)m->lines;
	s->gbps[r] = pol_gbps(m->c->o->size, (double)ta);
	pol_count(&a, &b, &s->miss_with, &s->ref_with);
}

static const struct fn *reread_control(const struct mode_run *m)
{
	return m->c->o->reference[m->op];
}

const struct mode_def pol_reread = {
	.mode = MODE_REREAD, .control = 1, .base_is_control = 1,
	.start = reread_start, .sample = reread_sample,
	.control_fn = reread_control,
};

/* ------------------------------------------------------------------ */
/* mixed: rounds of one aggressor call and table lookups, against the  */
/* lookups alone                                                       */
/* ------------------------------------------------------------------ */

static int mixed_start(struct mode_run *m, struct cli_error *e)
{
	(void)e;
	m->lines = m->vsize / CHASE_LINE;
	m->rng = POL_SEED;
	chase_build(m->c->victim.p, m->lines, POL_SEED ^ m->vsize);
	pol_sink += (uintptr_t)chase_lookups(m->c->victim.p, m->lines,
					     4 * m->lines, &m->rng);
	return 0;
}

static void mixed_sample(struct mode_run *m, size_t k, long r)
{
	struct samples *s = &m->s[k];
	const struct popts *o = m->c->o;
	size_t lookups = (size_t)o->lookups, rounds = (size_t)o->rounds;
	uint64_t aggr = 0, look = 0;
	struct perf_values a, b;
	double misses = 0, refs = 0;
	for (size_t n = 0; n < rounds; n++) {
		aggr += pol_aggress(m->c, m->fn[k]);
		perfcount_read(&m->c->pc, &a);
		uint64_t t0 = ntm_now_ns();
		pol_sink += (uintptr_t)chase_lookups(m->c->victim.p, m->lines,
						     lookups, &m->rng);
		look += ntm_now_ns() - t0;
		perfcount_read(&m->c->pc, &b);
		pol_count(&a, &b, &misses, &refs);
	}
	s->with[r] = (double)look / (double)(rounds * lookups);
	s->gbps[r] = m->fn[k] ? pol_gbps(o->size * rounds, (double)aggr) : NAN;
	s->total[r] = (double)(aggr + look) / (double)rounds / 1e6;
	s->aggr[r] = (double)aggr / (double)rounds / 1e6;
	s->miss_with += misses / (double)rounds;
	s->ref_with += refs / (double)rounds;
}

static const struct fn *mixed_control(const struct mode_run *m)
{
	(void)m;
	return NULL;  /* the lookups alone */
}

static void mixed_finish(const struct mode_run *m, size_t k, struct row *w)
{
	size_t runs = (size_t)m->c->o->runs;
	w->total_ms = median_of(m->s[k].total, runs);
	w->aggr_ms = median_of(m->s[k].aggr, runs);
	w->lookup_ms = w->with_ns * (double)m->c->o->lookups / 1e6;
}

const struct mode_def pol_mixed = {
	.mode = MODE_MIXED, .control = 1, .base_is_control = 1,
	.start = mixed_start, .sample = mixed_sample,
	.control_fn = mixed_control, .finish = mixed_finish,
};

/* ------------------------------------------------------------------ */
/* Every mode                                                          */
/* ------------------------------------------------------------------ */

static void progress(struct ctx *c, enum mode m, int op, size_t victim)
{
	if (!c->progress)
		return;
	char s[32];
	fprintf(stderr, "\rntmem pollution: %s %s, victim %s ...\033[K",
		pol_mode_names[m], pol_op_names[op],
		ntm_format_size(victim, s, sizeof s));
	fflush(stderr);
}

static int mode_skipped(const struct popts *o, int mode)
{
	for (size_t i = 0; i < o->nskips; i++)
		if (o->skips[i].mode == mode)
			return 1;
	return 0;
}

/* Pin, and the buffers: the victim (the largest), the destination and
 * for memcpy its source. */
static int set_up(struct ctx *c, struct cli_error *e)
{
	const struct popts *o = c->o;
	char why[256];
	if (pin_to_cpu(o->cpu))
		return cli_error(e, CLI_USAGE, "--cpu: cannot run on CPU %d: %s "
				 "(this process may use %s)", o->cpu, strerror(errno),
				 allowed_cpus_text(why, sizeof why));
	size_t vmax = 0;
	for (size_t i = 0; i < o->nvictims; i++)
		vmax = o->victims[i] > vmax ? o->victims[i] : vmax;
	if (buffer_alloc(&c->victim, vmax, o->pages, why, sizeof why))
		return cli_error(e, CLI_FAILED, "victim: %s", why);
	if (buffer_alloc(&c->dst, o->size, PAGES_2M, why, sizeof why))
		return cli_error(e, CLI_FAILED, "aggressor destination: %s", why);
	if (o->ops & (1u << NTMEM_OP_COPY)) {
		if (buffer_alloc(&c->src, o->size, PAGES_2M, why, sizeof why))
			return cli_error(e, CLI_FAILED, "aggressor source: %s", why);
		memset(c->src.p, 0x5a, o->size);
	}
	perfcount_open(&c->pc);
	return 0;
}

/* Two calls of each function first: first-use costs (the policy, vector
 * state, the source's pages) stay out of the runs, and the second calls'
 * median time is the idle control's. */
static void warm_up(struct ctx *c)
{
	const struct popts *o = c->o;
	for (int op = 0; op < NOPS; op++) {
		if (!(o->ops & (1u << op)) || !o->nrun[op])
			continue;
		double t[FN_MAX];
		for (size_t i = 0; i < o->nrun[op]; i++) {
			pol_aggress(c, o->run[op][i]);
			t[i] = (double)pol_aggress(c, o->run[op][i]);
		}
		c->idle_ns[op] = (uint64_t)median_of(t, o->nrun[op]);
	}
}

int pol_measure(struct ctx *c, struct cli_error *e)
{
	static const struct mode_def *const defs[MODE_COUNT] = {
		&pol_after, &pol_concurrent, &pol_reread, &pol_mixed,
	};
	const struct popts *o = c->o;
	pol_refused_clear();
	if (set_up(c, e))
		return -1;
	warm_up(c);
	for (int mode = 0; mode < MODE_COUNT; mode++) {
		if (!(o->modes & (1u << mode)) || mode_skipped(o, mode))
			continue;
		for (int op = 0; op < NOPS; op++) {
			if (!(o->ops & (1u << op)) || !o->nrun[op])
				continue;
			for (size_t i = 0; i < o->nvictims; i++) {
				progress(c, (enum mode)mode, op, o->victims[i]);
				if (run_mode(c, defs[mode], op, o->victims[i], e))
					return -1;
			}
		}
	}
	if (c->progress)
		fprintf(stderr, "\r\033[K");
	return 0;
}

void pol_ctx_free(struct ctx *c)
{
	buffer_free(&c->victim);
	buffer_free(&c->dst);
	buffer_free(&c->src);
	perfcount_close(&c->pc);
	free(c->rows);
	c->rows = NULL;
}
