/* calibrate.c - "ntmem calibrate": measure every variant on a grid of
 * sizes, fit a ladder per call class (memset of zeros, of other values,
 * memcpy), and write the profile libntmem reads. */
#define _GNU_SOURCE
#include "calibrate.h"

#include <errno.h>
#include <getopt.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "measure/benchfn.h"
#include "output/cli.h"
#include "commands.h"
#include "introspect.h"
#include "util/size.h"


static const struct effort efforts[] = {
	/* name      lo     hi         step rounds run_ns long  big  refine */
	{"quick", 256, 256 * MiB, 4, 3, 1e6, 1e7, 128 * MiB, 1},
	{"default", 64, 1 * GiB, 2, 5, 2e6, 1.2e7, 256 * MiB, 2},
	{"thorough", 64, 4 * GiB, 2, 9, 5e6, 2e7, 1 * GiB, 3},
};

/* Above this every cached candidate is not worth running again: only the
 * ones close to the best at the size below (and streaming) continue. */
#define PRUNE_FROM (32 * MiB)
#define PRUNE_KEEP 0.85
static void usage(FILE *f)
{
	fprintf(f,
		"Usage: ntmem calibrate [OPTIONS]\n"
		"Measure every variant this CPU runs on a grid of sizes, from 64 B\n"
		"to 1 GiB, and fit a ladder for memset of zeros, memset of other\n"
		"values and memcpy: which variant serves which sizes.  Where the fit\n"
		"and the built-in ladder differ, time the two against each other in\n"
		"two rounds: the fit replaces the built-in ladder only where it wins\n"
		"both by more than their spread and by at least 3%%.  Write the\n"
		"result to the profile libntmem reads.\n"
		"\n"
		"Options:\n"
		"      --quick          256 B-256 MiB, every 4x, 3 runs; about 40 s on\n"
		"                       2 cores\n"
		"      --thorough       64 B-4 GiB, 9 runs each; several minutes\n"
		"                       (default: 64 B-1 GiB, every 2x, 5 runs; a minute\n"
		"                       or two on 2 cores)\n"
		"      --max-size SIZE  measure up to SIZE only (B, KB, MB, GB...;\n"
		"                       the last rung then serves every larger size)\n"
		"  -o, --output PATH    write the profile to PATH (default: the path\n"
		"                       libntmem reads; see ntmem info)\n"
		"      --system         write the system-wide profile (%s), which\n"
		"                       serves every user without one of their own\n"
		"      --undo           measure nothing: remove the profile calibrate\n"
		"                       writes (the user's; with --system the system-\n"
		"                       wide one; with --output PATH that file)\n"
		"  -n, --dry-run        measure and report, write nothing\n"
		"      --json           the report as one JSON object on stdout\n"
		"      --cpu N          pin to CPU N (default: the CPU it starts on)\n"
		"  -h, --help           show this help\n"
		"\n"
		"Runs are interleaved and rotated; a size's winner is decided by the\n"
		"median of paired ratios, and variants within 3%% of it tie, so\n"
		"neighbouring sizes with tied winners share one rung.  Sizes that\n"
		"do not fit in available memory are left out.  Exit status: 0 ok\n"
		"(for --undo: removed, or no profile there), 1 the run failed,\n"
		"2 bad usage.\n", ntm_profile_system_path());
}

enum { OPT_QUICK = 256, OPT_THOROUGH, OPT_JSON, OPT_CPU, OPT_MAX_SIZE, OPT_SYSTEM,
       OPT_UNDO };

struct cal_parse {
	struct cal_options *o;
	int efforts, help;  /* --quick and --thorough given; -h */
	const char *measuring;  /* an option only a measuring run takes */
};

/* The option c names if only a measuring run takes it, else NULL. */
static const char *measuring_option(int c)
{
	switch (c) {
	case OPT_QUICK:
		return "--quick";
	case OPT_THOROUGH:
		return "--thorough";
	case 'n':
		return "--dry-run";
	case OPT_JSON:
		return "--json";
	case OPT_CPU:
		return "--cpu";
	case OPT_MAX_SIZE:
		return "--max-size";
	}
	return NULL;
}

static int parse_option(void *ctx, int c, const char *arg, char **argv,
			struct cli_error *e)
{
	struct cal_parse *p = ctx;
	struct cal_options *o = p->o;
	if (!p->measuring)
		p->measuring = measuring_option(c);
	switch (c) {
	case OPT_QUICK:
	case OPT_THOROUGH:
		o->effort = &efforts[c == OPT_QUICK ? 0 : 2];
		p->efforts++;
		return 0;
	case OPT_UNDO:
		o->undo = 1;
		return 0;
	case 'o':
		if (!arg[0])
			return cli_error(e, CLI_USAGE, "--output: empty path");
		o->output = arg;
		return 0;
	case 'n':
		o->dry_run = 1;
		return 0;
	case OPT_SYSTEM:
		o->system = 1;
		return 0;
	case OPT_JSON:
		o->json = 1;
		return 0;
	case OPT_CPU:
		return cli_parse_cpu("--cpu", arg, &o->cpu, e);
	case OPT_MAX_SIZE:
		if (cli_parse_size("--max-size", arg, &o->max_size, e))
			return -1;
		if (o->max_size < 4 * KiB)
			return cli_error(e, CLI_USAGE, "--max-size: '%s': at "
					 "least 4 KiB", arg);
		return 0;
	default:
		return cli_common_option(c, argv, &p->help, e);
	}
}

static int parse(int argc, char **argv, struct cal_options *o,
		 struct cli_error *e)
{
	static const struct option longopts[] = {
		{"quick", no_argument, NULL, OPT_QUICK},
		{"thorough", no_argument, NULL, OPT_THOROUGH},
		{"output", required_argument, NULL, 'o'},
		{"dry-run", no_argument, NULL, 'n'},
		{"json", no_argument, NULL, OPT_JSON},
		{"cpu", required_argument, NULL, OPT_CPU},
		{"max-size", required_argument, NULL, OPT_MAX_SIZE},
		{"system", no_argument, NULL, OPT_SYSTEM},
		{"undo", no_argument, NULL, OPT_UNDO},
		{"help", no_argument, NULL, 'h'},
		{NULL, 0, NULL, 0},
	};
	memset(o, 0, sizeof *o);
	o->effort = &efforts[1];
	o->cpu = -1;
	struct cal_parse p = {.o = o};
	if (cli_getopt(argc, argv, ":o:nh", longopts, parse_option, &p, &p.help, e))
		return -1;
	if (p.help) {
		usage(stdout);
		exit(0);
	}
	if (p.efforts > 1)
		return cli_error(e, CLI_USAGE, "--quick and --thorough: choose one");
	if (o->system && o->output)
		return cli_error(e, CLI_USAGE, "--system and --output: choose one");
	if (o->system && o->dry_run)
		return cli_error(e, CLI_USAGE, "--system and --dry-run: choose one");
	if (o->undo && p.measuring)
		return cli_error(e, CLI_USAGE, "--undo and %s: --undo measures "
				 "nothing (it takes --system or --output only)",
				 p.measuring);
	return 0;
}

/* Time cands[0..n) at size, interleaved over rounds: medians, paired
 * ratios to the best median and rounds won go into point slots idx[0..n). */
static int time_point(const struct cal_options *o, struct cal_class *k,
		      const size_t *idx, size_t n, size_t size, long rounds,
		      struct fit_point *pt, struct cli_error *e)
{
	double gbps[FIT_MAX_CANDS * MAX_ROUNDS];
	int ids[FIT_MAX_CANDS] = {0};
	for (size_t i = 0; i < n && i < FIT_MAX_CANDS; i++)
		ids[i] = k->cands[idx[i]].variant_id;
	if (cal_time_variants(o, k, ids, n, size, rounds, gbps, e))
		return -1;
	struct benchfn_result res = {gbps, NULL, 0};
	size_t best = 0, next = n > 1 ? 1 : 0;
	double med[FIT_MAX_CANDS];
	for (size_t i = 0; i < n; i++) {
		double runs[MAX_ROUNDS];
		memcpy(runs, benchfn_runs(&res, i, rounds), sizeof(double) * (size_t)rounds);
		med[i] = median_of(runs, (size_t)rounds);
		if (med[i] > med[best])
			best = i;
	}
	for (size_t i = 0; i < n; i++)
		if (i != best && (next == best || med[i] > med[next]))
			next = i;
	pt->size = size;
	pt->rounds = rounds;
	for (size_t i = 0; i < n; i++) {
		size_t against = i == best ? next : best;
		long wins;
		pt->measured[idx[i]] = 1;
		pt->gbps[idx[i]] = med[i];
		pt->ratio[idx[i]] = benchfn_paired_ratio(benchfn_runs(&res, i, rounds),
							 benchfn_runs(&res, best, rounds),
							 rounds, NULL);
		benchfn_paired_ratio(benchfn_runs(&res, i, rounds),
				     benchfn_runs(&res, against, rounds), rounds, &wins);
		pt->wins[idx[i]] = wins;
	}
	return 0;
}

/* One point: every candidate in idx, then those within two margins of
 * the best again, with twice the rounds, so that the fit decides on the
 * firmer numbers where the choice is close.  The others keep their first
 * numbers: they are far behind either way. */
static int measure_point(const struct cal_options *o, struct cal_class *k,
			 const size_t *idx, size_t n, size_t size,
			 struct fit_point *pt, struct cli_error *e)
{
	if (time_point(o, k, idx, n, size, o->effort->rounds, pt, e))
		return -1;
	size_t close[FIT_MAX_CANDS], nclose = 0;
	for (size_t i = 0; i < n; i++)
		if (pt->ratio[idx[i]] >= 1 - 2 * MARGIN)
			close[nclose++] = idx[i];
	if (nclose < 2)
		return 0;
	struct fit_point again = *pt;
	if (time_point(o, k, close, nclose, size, 2 * o->effort->rounds, &again, e))
		return -1;
	for (size_t i = 0; i < nclose; i++) {
		size_t c = close[i];
		pt->gbps[c] = again.gbps[c];
		pt->ratio[c] = again.ratio[c];
		pt->wins[c] = again.wins[c];
	}
	pt->rounds = again.rounds;
	return 0;
}

/* The candidates to run at a grid point: every one below PRUNE_FROM; above
 * it those close to the best at the point before, streaming, and the C
 * library's function and rep stosb/movsb, which fall behind at a few
 * times the L3 and catch up further on (they stop allocating there on
 * AMD's Zen: a Zen 3 measured them 2x behind at 64 MiB and ahead at
 * 1 GiB). */
static size_t candidates_at(const struct cal_class *k, size_t point, size_t *idx)
{
	size_t n = 0;
	const struct fit_point *prev = point ? &k->points[point - 1] : NULL;
	for (size_t c = 0; c < k->ncands; c++) {
		int keep = !prev || prev->size < PRUNE_FROM / 2 ||
			   (int)c == k->streaming ||
			   k->cands[c].role == NTMEM_ROLE_LIBC ||
			   k->cands[c].role == NTMEM_ROLE_STRING ||
			   (prev->measured[c] && prev->ratio[c] >= PRUNE_KEEP);
		if (keep)
			idx[n++] = c;
	}
	return n;
}

/* The grid for one class: sizes from lo, multiplied by step, up to hi. */
static int measure_grid(const struct cal_options *o, struct cal_class *k,
			size_t hi, struct cli_error *e)
{
	char s[32];
	k->npoints = 0;
	for (size_t size = o->effort->lo; size <= hi && k->npoints < FIT_MAX_POINTS;
	     size *= o->effort->step) {
		size_t idx[FIT_MAX_CANDS];
		size_t n = candidates_at(k, k->npoints, idx);
		struct fit_point *pt = &k->points[k->npoints];
		memset(pt, 0, sizeof *pt);
		cal_progress(o, "%s at %s", k->label, ntm_format_size(size, s, sizeof s));
		if (measure_point(o, k, idx, n, size, pt, e))
			return -1;
		k->npoints++;
	}
	return 0;
}

/* The best streaming variant for the class, at the effort's big size:
 * every streaming candidate, interleaved.  Appends it to the class's
 * candidates (k->streaming); none on CPUs without streaming. */
static int pick_streaming(const struct cal_options *o, struct cal_class *k,
			  const struct fn *all, size_t nall, size_t hi,
			  struct cli_error *e)
{
	struct cal_class trial = *k;
	trial.ncands = 0;
	for (size_t i = 0; i < nall; i++)
		if (all[i].kind == FN_VARIANT && all[i].supported && all[i].streaming &&
		    (!all[i].zero_only || k->value == 0) && trial.ncands < FIT_MAX_CANDS)
			trial.cands[trial.ncands++] = all[i];
	k->streaming = -1;
	if (!trial.ncands)
		return 0;
	size_t idx[FIT_MAX_CANDS], size = o->effort->big < hi ? o->effort->big : hi;
	for (size_t i = 0; i < trial.ncands; i++)
		idx[i] = i;
	char s[32];
	cal_progress(o, "%s: streaming variants at %s", k->label,
		 ntm_format_size(size, s, sizeof s));
	struct fit_point *pt = &k->pick;
	memset(pt, 0, sizeof *pt);
	if (measure_point(o, &trial, idx, trial.ncands, size, pt, e))
		return -1;
	size_t best = 0;
	for (size_t i = 1; i < trial.ncands; i++)
		if (pt->gbps[i] > pt->gbps[best])
			best = i;
	k->npicked = trial.ncands;
	memcpy(k->picked, trial.cands, sizeof trial.cands);
	k->streaming = (int)k->ncands;
	k->cands[k->ncands++] = trial.cands[best];
	return 0;
}

/* Where between two grid sizes the next rung starts: bisected in log
 * space with the two candidates alone, where the upper one wins clearly
 * at its first size (a tie needs no precise edge). */
static int refine_edges(const struct cal_options *o, struct cal_class *k,
			struct cli_error *e)
{
	k->nrefined = 0;
	for (unsigned r = 0; r + 1 < k->fit.count; r++) {
		struct fit_rung *a = &k->fit.rungs[r];
		const struct fit_rung *b = &k->fit.rungs[r + 1];
		const struct fit_point *fitted = k->points + k->nsmall;
		const struct fit_point *first = &fitted[b->first];
		if (!first->measured[a->cand] || first->ratio[a->cand] >= 1 - MARGIN)
			continue;
		size_t lo = fitted[a->last].size, hi = first->size;
		for (int step = 0; step < o->effort->refinements; step++) {
			size_t mid = fit_edge(lo, hi), idx[2] = {a->cand, b->cand};
			struct fit_point pt;
			if (mid <= lo || mid >= hi)
				break;
			memset(&pt, 0, sizeof pt);
			char s[32];
			cal_progress(o, "%s: edge near %s", k->label,
				 ntm_format_size(mid, s, sizeof s));
			if (measure_point(o, k, idx, 2, mid, &pt, e))
				return -1;
			if (pt.gbps[b->cand] >= pt.gbps[a->cand])
				hi = mid;
			else
				lo = mid;
			if (k->nrefined < sizeof k->refined / sizeof k->refined[0])
				k->refined[k->nrefined++] = (struct cal_refinement){
					r, mid, pt.gbps[a->cand], pt.gbps[b->cand]};
		}
		a->to = fit_edge(lo, hi);
	}
	return 0;
}

/* Where the measurement cannot decide, the built-in ladder's variant
 * stays in the running: at a fitted point whose best leads the next by
 * more than the margin in the medians but won fewer than three rounds in
 * four against it, even with twice the rounds, the spread is too wide to
 * tell, and the built-in's choice there counts as tied (the fit keeps it
 * rather than fit noise); the report says so. */
static void keep_builtin_where_undecided(struct cal_class *k, long rounds)
{
	static struct policy builtin;
	ntm_policy_build(&builtin, ntm_cpu(), NULL, NULL);
	k->nundecided = 0;
	for (size_t i = k->nsmall; i < k->npoints; i++) {
		struct fit_point *p = &k->points[i];
		int best = -1;
		double next = 0;
		for (size_t c = 0; c < k->ncands; c++)
			if (p->measured[c] && p->ratio[c] >= 1 &&
			    (best < 0 || p->gbps[c] > p->gbps[best]))
				best = (int)c;
		for (size_t c = 0; c < k->ncands; c++)
			if (p->measured[c] && (int)c != best && p->ratio[c] > next)
				next = p->ratio[c];
		/* A tie is the fit's to settle; undecided is a clear median
		 * lead that the rounds do not bear out. */
		if (best < 0 || next >= 1 - MARGIN || p->rounds <= rounds ||
		    p->wins[best] * 4 >= p->rounds * 3)
			continue;
		const struct variant *v =
			ntm_ladder_variant(&builtin.ladder[k->cls], p->size, 0);
		for (size_t c = 0; c < k->ncands; c++)
			if (k->cands[c].variant_id == ntm_variant_id(v) && p->measured[c] &&
			    p->ratio[c] < 1 - MARGIN)
				p->ratio[c] = 1 - MARGIN;
		k->undecided[k->nundecided++] = i;
	}
}

/* Every cached variant the CPU runs (the C library's too, as a variant,
 * so that all pay the same call), then the streaming one. */
static int calibrate_class(const struct cal_options *o, struct cal_class *k,
			   size_t hi, struct cli_error *e)
{
	struct fn all[FN_MAX];
	size_t nall = fn_list((k->cls == NTMEM_CLASS_COPY ? NTMEM_OP_COPY : NTMEM_OP_SET), all, FN_MAX);
	k->ncands = 0;
	k->preferred = -1;
	for (size_t i = 0; i < nall; i++) {
		struct fn f = all[i];
		if (f.kind == FN_LIBC) {  /* measured as its registry variant */
			f.kind = FN_VARIANT;
			f.name = "libc";
		}
		if (f.kind != FN_VARIANT || !f.supported || f.streaming ||
		    k->ncands == FIT_MAX_CANDS - 1)
			continue;
		if (f.variant_id == k->entry_loop)
			k->preferred = (int)k->ncands;
		k->cands[k->ncands++] = f;
	}
	if (pick_streaming(o, k, all, nall, hi, e) || measure_grid(o, k, hi, e))
		return -1;
	/* Sizes the entry points' small path serves never reach a rung: they
	 * are measured, for the report, but not fitted. */
	k->nsmall = 0;
	while (k->nsmall + 1 < k->npoints && k->points[k->nsmall].size <= o->small_max)
		k->nsmall++;
	keep_builtin_where_undecided(k, o->effort->rounds);
	struct fit_input in = {k->ncands, k->preferred, k->points + k->nsmall,
			       k->npoints - k->nsmall, MARGIN, NTMEM_LADDER_MAX};
	if (fit_ladder(&in, &k->fit))
		return cli_error(e, CLI_FAILED, "%s: nothing measured at some size",
				 k->label);
	return refine_edges(o, k, e) || cal_confirm(o, k, e) ? -1 : 0;
}

/* The largest grid size up to max whose buffers fit in memory. */
static size_t largest_fitting(const struct effort *ef, size_t max, int buffers)
{
	size_t budget = memory_budget() / (size_t)buffers, hi = ef->lo;
	while (hi * ef->step <= max && round_up_2mib(hi * ef->step) <= budget)
		hi *= ef->step;
	return hi;
}

static int run_all(struct cal_options *o, struct cal_class *k, struct cli_error *e)
{
	static const char *const labels[3] = {"memset of zeros",
					      "memset of 0x5a bytes", "memcpy"};
	for (int op = 0; op < 2; op++) {
		size_t max = o->max_size && o->max_size < o->effort->hi
				     ? o->max_size : o->effort->hi;
		o->hi[op] = largest_fitting(o->effort, max, op + 1);
	}
	int rc = 0;
	for (int cls = 0; cls < 3 && !rc; cls++) {
		int op = cls == NTMEM_CLASS_COPY;
		k[cls].cls = cls;
		k[cls].value = cls == NTMEM_CLASS_SET_NONZERO ? 0x5a : 0;
		k[cls].label = labels[cls];
		k[cls].copy = op;
		k[cls].entry_loop = o->entry_loop[op];
		rc = calibrate_class(o, &k[cls], o->hi[op], e);
	}
	struct buffers b;
	if (!rc && !(rc = cal_alloc_buffers(&b, 0, o->hi[0], e))) {
		rc = cal_parallel(o, &k[NTMEM_CLASS_SET_ZERO], b.dst.p, o->hi[0],
				  &o->parallel, e);
		buffers_free(&b);
	}
	return rc;
}

/* The first rung of the built-in ladder is the entry points' own loop: it
 * wins ties, since it runs without a call. */
static void find_entry_loops(struct cal_options *o)
{
	for (int op = 0; op < 2; op++) {
		struct ntmem_ladder_info l;
		ntmem_ladder_info(op ? NTMEM_CLASS_COPY : NTMEM_CLASS_SET_ZERO, &l);
		struct ntmem_variant_info v;
		o->small_max = l.small_max;
		o->entry_loop[op] = -1;
		if (!ntmem_variant_info(l.rung[0].variant, &v) &&
		    v.role == NTMEM_ROLE_VECTOR)
			o->entry_loop[op] = l.rung[0].variant;
	}
}

/* The profile calibrate writes, into path: --output's, the system-wide
 * one, or the one libntmem reads (none for a dry run without --output,
 * which writes nothing).  Exits 2 when there is none. */
static void profile_to_write(const struct cal_options *o, char *path, size_t len)
{
	const char *why = NULL;
	path[0] = '\0';
	if (o->output)
		snprintf(path, len, "%s", o->output);
	else if (o->system)
		snprintf(path, len, "%s", ntm_profile_system_path());
	else if (!o->dry_run && ntm_profile_path(path, len, &why))
		cli_usage_error("no profile path (%s); use --output PATH", why);
}

int cmd_calibrate(int argc, char **argv)
{
	static struct cal_options o;
	static struct cal_class k[NTMEM_CLASSES];
	struct cli_error e;
	char path[1024];
	if (parse(argc, argv, &o, &e))
		cli_exit(&e);
	profile_to_write(&o, path, sizeof path);
	if (o.undo) {
		if (cal_undo(path, o.system, &e))
			cli_exit(&e);
		return 0;
	}
	/* Before measuring: a path that cannot be written fails at once.
	 * --output's directory must exist, as --plot's must; the default
	 * paths' directories are made. */
	if (!o.dry_run && cal_check_output(o.output ? "--output" : o.system
					   ? "--system" : NULL, path, !o.output, &e))
		cli_exit(&e);
	char allowed[256];
	if (pin_here(&o.cpu))
		cli_usage_error("--cpu: cannot run on CPU %d (this process may use "
				"%s)", o.cpu, allowed_cpus_text(allowed, sizeof allowed));
	o.progress = cli_progress_wanted();
	find_entry_loops(&o);

	uint64_t t0 = ntm_now_ns();
	if (run_all(&o, k, &e))
		cli_exit(&e);
	o.seconds = (double)(ntm_now_ns() - t0) / 1e9;
	if (o.progress)
		fprintf(stderr, "\r\033[K");

	int written = 0;
	if (!o.dry_run) {
		if (cal_write_profile(&o, k, path, &e))
			cli_exit(&e);
		written = 1;
		cal_check_written(path, o.system);
	}
	cal_report(&o, k, written || o.output ? path : NULL, written);
	return 0;
}
