/* bench_mix.c - "ntmem bench --mix": planning and measuring (see
 * bench_mix.h); the reports are in bench_mix_report.c. */
#include "bench_mix.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "measure/benchfn.h"
#include "measure/mixrun.h"
#include "util/size.h"

static int plan_one(const struct bench_opts *o, struct bench_mix *mix,
		    const char *arg, struct cli_error *e)
{
	if (sizedist_load(arg, o->op, &mix->dist, e))
		return -1;
	sizedist_draw(&mix->dist, &mix->seq);
	size_t need = mix->seq.buffer * (o->op == NTMEM_OP_COPY ? 2 : 1);
	size_t budget = memory_budget();
	if (need > budget) {
		char n[32], b[32];
		return cli_error(e, CLI_USAGE, "--mix: %s: its largest size needs %s "
				 "of buffers, %s available", arg,
				 ntm_format_size(need, n, sizeof n),
				 ntm_format_size(budget, b, sizeof b));
	}
	return 0;
}

int bench_mix_plan(const struct bench_opts *o, struct bench_mixes *m,
		   struct cli_error *e)
{
	m->n = 0;
	if (strcmp(o->mix, "all")) {
		m->n = 1;
		return plan_one(o, &m->mix[0], o->mix, e);
	}
	const struct sizedist_bundled *b[BENCH_MAX_MIXES];
	size_t n = sizedist_bundled_list(o->op, b, BENCH_MAX_MIXES);
	for (size_t i = 0; i < n; i++, m->n++)
		if (plan_one(o, &m->mix[i], b[i]->name, e))
			return -1;
	return 0;
}

void bench_mix_free(struct bench_mixes *m)
{
	for (size_t i = 0; i < m->n; i++)
		sizedist_free(&m->mix[i].dist);
	m->n = 0;
}

struct mix_progress {
	const struct bench_opts *o;
	const struct bench_mix *mix;
	size_t done, total;
};

static void progress(void *arg, size_t fn, long round)
{
	struct mix_progress *p = arg;
	fprintf(stderr, "\r\033[K[%zu/%zu] %s --mix %s %s run %ld/%ld", ++p->done,
		p->total, p->o->op == NTMEM_OP_SET ? "memset" : "memcpy",
		p->mix->dist.name, p->o->fns[fn].name, round + 1, p->o->runs);
	fflush(stderr);
}

/* Function fi's runs: calls per ns (what the runner measured, given
 * MIX_CALLS as the size) into ns per call and GB/s, and against the
 * baseline, run by run. */
static void summarize(const struct bench_opts *o, struct bench_mix *mix,
		      const struct benchfn_result *r, size_t fi)
{
	size_t runs = (size_t)o->runs;
	double ns[BENCH_MAX_RUNS], gbps[BENCH_MAX_RUNS];
	const double *rate = benchfn_runs(r, fi, o->runs);
	const double *base = benchfn_runs(r, (size_t)o->baseline, o->runs);
	struct bench_mix_result *res = &mix->results[fi];
	res->fn = &o->fns[fi];
	res->loops = r->loops[fi];
	/* Its time over the baseline's is the baseline's rate over its own. */
	res->ratio = benchfn_paired_ratio(base, rate, o->runs, &res->wins);
	res->wins = o->runs - res->wins;  /* runs it took less time */
	for (size_t k = 0; k < runs; k++) {
		ns[k] = 1 / rate[k];
		gbps[k] = (double)mix->seq.bytes / MIX_CALLS * rate[k];
	}
	res->ns = stats_of(ns, runs);
	res->gbps = stats_of(gbps, runs);
}

/* Every function over one sequence, interleaved. */
static int measure_mix(struct bench_opts *o, struct bench_mix *mix,
		       struct mix_progress *pc, struct cli_error *e)
{
	int copy = o->op == NTMEM_OP_COPY;
	struct buffers b;
	char why[160];
	if (buffers_alloc(&b, copy, mix->seq.buffer, o->pages, o->value, why,
			  sizeof why))
		return cli_error(e, CLI_FAILED, "--mix %s: %s", mix->dist.name, why);
	static struct mix_target targets[BENCH_MAX_FNS];
	static struct benchfn fns[BENCH_MAX_FNS];
	static long loops[BENCH_MAX_FNS];
	int value = o->value < 0 ? 0 : o->value;
	for (size_t i = 0; i < o->nfns; i++) {
		targets[i] = (struct mix_target){.f = &o->fns[i], .dst = b.dst.p,
						 .src = copy ? b.src.p : NULL,
						 .value = value, .seq = &mix->seq};
		fns[i] = mix_callable(&targets[i]);
	}
	struct benchfn_result r = {calloc(o->nfns * (size_t)o->runs, sizeof(double)),
				   loops, 0};
	int rc = 0;
	pc->mix = mix;
	struct benchfn_plan plan = {fns, o->nfns, MIX_CALLS, o->runs, o->loops,
				    BENCH_MIN_RUN_NS, o->progress ? progress : NULL, pc,
				    0 /* 16 KiB buffers: loops / 8 calls settle them */};
	if (!r.gbps)
		rc = cli_error(e, CLI_FAILED, "out of memory");
	else if (benchfn_run(&plan, &r))
		rc = cli_error(e, CLI_FAILED, "%s refused to run (%s)",
			       fns[r.failed].name, strerror(errno));
	for (size_t i = 0; !rc && i < o->nfns; i++)
		summarize(o, mix, &r, i);
	mix->nresults = rc ? 0 : o->nfns;
	free(r.gbps);
	buffers_free(&b);
	return rc;
}

int bench_mix_measure(struct bench_opts *o, struct bench_mixes *m,
		      struct cli_error *e)
{
	struct mix_progress pc = {o, NULL, 0, m->n * o->nfns * (size_t)o->runs};
	int r = 0;
	for (size_t i = 0; i < m->n && !r; i++)
		r = measure_mix(o, &m->mix[i], &pc, e);
	if (o->progress)
		fprintf(stderr, "\r\033[K");
	return r;
}

/* The distributions of this run: large (a sequence each), so static. */
static struct bench_mixes mixes;

int bench_mix_setup(const struct bench_opts *o, struct cli_error *e)
{
	return bench_mix_plan(o, &mixes, e);
}

int bench_mix_run(struct bench_opts *o)
{
	struct cli_error e;
	if (bench_mix_measure(o, &mixes, &e))
		cli_exit(&e);
	struct machine m;
	machine_facts(&m);
	if (o->json)
		bench_mix_print_json(o, &mixes, &m);
	else
		bench_mix_print_table(o, &mixes, &m);
	bench_mix_free(&mixes);
	cli_output_finish(NULL, 0);
	return 0;
}
