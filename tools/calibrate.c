/* calibrate.c - "ntmem calibrate": measure, on this machine, which cached
 * and which streaming variant are fastest and from which size streaming
 * wins; write them to the profile libntmem reads. */
#define _GNU_SOURCE
#include <errno.h>
#include <getopt.h>
#include <stdarg.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "bench.h"
#include "cli.h"
#include "commands.h"
#include "cpu.h"
#include "json.h"
#include "measure.h"
#include "policy.h"
#include "profile.h"
#include "size.h"

#define KiB ((size_t)1 << 10)
#define MiB ((size_t)1 << 20)
#define GiB ((size_t)1 << 30)
/* Streaming counts as winning when it is at most this much slower: a
 * tie goes to streaming, which spares everyone else's cache. */
#define TIE_RATIO 0.97
/* memset is calibrated writing zeros (clearing, the common case) and
 * writing this, since zeros can be far cheaper to write than data.  The
 * variants are chosen writing zeros. */
#define NONZERO_VALUE 0x5a
/* Timed runs of about 2 ms: many sizes and candidates in a few seconds;
 * the paired, interleaved runs carry the comparison. */
#define CALIBRATE_RUN_NS 2e6

struct effort {
	const char *name;
	size_t grid_lo, grid_hi;  /* crossover search range, powers of 2 */
	int reps;                 /* paired runs per size */
	int refinements;          /* bisection steps below the first win */
};

static const struct effort efforts[] = {
	{"quick", 2 * MiB, 128 * MiB, 5, 0},
	{"default", 1 * MiB, 512 * MiB, 5, 1},
	{"thorough", 1 * MiB, 4 * GiB, 9, 2},
};

/* Sizes below the crossover grid where the cached variants are compared
 * too: the cached variant serves every size below the threshold. */
static const size_t small_sizes[] = {64 * KiB, 256 * KiB};

struct crossover_point {
	size_t size;
	double ratio;   /* median of streaming / cached GB/s over paired runs */
	int wins;       /* paired runs streaming won */
	double cached_gbps, streaming_gbps;  /* medians */
};

#define MAX_POINTS 32
#define MAX_CANDIDATES 16
#define MAX_REPS 16

/* Every cached candidate and the streaming variant at one size, each run
 * of them in turn, so the choice of cached variant and threshold can be
 * made together. */
struct grid_point {
	size_t size;
	double cached[MAX_CANDIDATES][MAX_REPS];  /* GB/s, per run */
	double streaming[MAX_REPS];
};

struct candidate_score {
	const struct fn *fn;
	double score;   /* worst fraction of the best, over the sizes */
};

/* Where streaming starts to win for one operation and value. */
struct crossover {
	int value;                /* memset writes it */
	struct crossover_point points[MAX_POINTS];
	size_t npoints;
	size_t threshold;         /* SIZE_MAX: never */
	int confident;
	char confidence[256];
	char verdict[256];
};

struct op_result {
	enum ntmem_op op;
	struct fn fns[FN_MAX];
	size_t nfns;
	const struct fn *cached_fns[MAX_CANDIDATES];
	struct candidate_score cached[MAX_CANDIDATES], streaming[MAX_CANDIDATES];
	size_t ncached, nstreaming;
	struct grid_point grid[MAX_POINTS];
	size_t ngrid;
	size_t stream_pick_sizes[1];
	size_t nstream_pick_sizes;
	const struct fn *best_cached, *best_streaming;
	const struct fn *streaming_any_value;  /* best_streaming, or the ranked
						  one if that is zero-only */
	struct crossover x[2];    /* memset: zeros, then NONZERO_VALUE */
	size_t nx;
};

struct options {
	const struct effort *effort;
	const char *output;
	int dry_run, json, cpu, progress;
};

static const char *op_name(enum ntmem_op op)
{
	return op == NTMEM_OP_SET ? "memset" : "memcpy";
}

static void usage(FILE *f)
{
	fprintf(f,
		"Usage: ntmem calibrate [OPTIONS]\n"
		"Measure which cached and which streaming variant are fastest here,\n"
		"and from which size streaming wins, for memset and memcpy; write\n"
		"the result to the profile libntmem reads.\n"
		"\n"
		"Options:\n"
		"      --quick          a few seconds: sizes 2 MiB-128 MiB, 5 runs each\n"
		"      --thorough       two or three minutes: 1 MiB-4 GiB, 9 runs each\n"
		"                       (default: 1 MiB-512 MiB, 5 runs each)\n"
		"  -o, --output PATH    write the profile to PATH (default: the path\n"
		"                       libntmem reads; see ntmem info)\n"
		"  -n, --dry-run        measure and report, write nothing\n"
		"      --json           the report as one JSON object on stdout\n"
		"      --cpu N          pin to CPU N (default: the CPU it starts on)\n"
		"  -h, --help           show this help\n"
		"\n"
		"memset gets a threshold writing zeros and one writing 0x5a (zeros\n"
		"can be far cheaper to write); its variants are chosen writing\n"
		"zeros.  Buffers are on 4 KiB pages.  Sizes that do not fit in\n"
		"available memory are left out of the search.\n");
}

static void parse(int argc, char **argv, struct options *o)
{
	enum { OPT_QUICK = 256, OPT_THOROUGH, OPT_JSON, OPT_CPU };
	static const struct option longopts[] = {
		{"quick", no_argument, NULL, OPT_QUICK},
		{"thorough", no_argument, NULL, OPT_THOROUGH},
		{"output", required_argument, NULL, 'o'},
		{"dry-run", no_argument, NULL, 'n'},
		{"json", no_argument, NULL, OPT_JSON},
		{"cpu", required_argument, NULL, OPT_CPU},
		{"help", no_argument, NULL, 'h'},
		{NULL, 0, NULL, 0},
	};
	memset(o, 0, sizeof *o);
	o->effort = &efforts[1];
	o->cpu = -1;
	int c, efforts_given = 0;
	opterr = 0;
	while ((c = getopt_long(argc, argv, ":o:nh", longopts, NULL)) != -1) {
		switch (c) {
		case OPT_QUICK:
			o->effort = &efforts[0];
			efforts_given++;
			break;
		case OPT_THOROUGH:
			o->effort = &efforts[2];
			efforts_given++;
			break;
		case 'o':
			if (!optarg[0])
				cli_usage_error("--output: empty path");
			o->output = optarg;
			break;
		case 'n':
			o->dry_run = 1;
			break;
		case OPT_JSON:
			o->json = 1;
			break;
		case OPT_CPU:
			o->cpu = (int)cli_long("--cpu", optarg, 0, 4095);
			break;
		case 'h':
			usage(stdout);
			exit(0);
		default:
			cli_option_error(c, argv);
		}
	}
	cli_no_operands(argc, argv);
	if (efforts_given > 1)
		cli_usage_error("--quick and --thorough: choose one");
	if (o->cpu < 0)
		o->cpu = current_cpu();
	if (o->cpu >= 0 && pin_to_cpu(o->cpu))
		cli_usage_error("--cpu: cannot run on CPU %d", o->cpu);
}

struct buffers {
	struct buffer dst, src;
	int copy;
};

static void progress(const struct options *o, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));

static void progress(const struct options *o, const char *fmt, ...)
{
	if (!o->progress)
		return;
	va_list ap;
	va_start(ap, fmt);
	fprintf(stderr, "\r\033[Kcalibrating: ");
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fflush(stderr);
}

/* Median GB/s of each of fns[0..n) at size, runs interleaved. */
static void measure_medians(const struct buffers *b, const struct fn *const *fns,
			    size_t n, size_t size, int reps, double *out)
{
	double samples[MAX_CANDIDATES][64];
	long loops[MAX_CANDIDATES];
	const unsigned char *src = b->copy ? b->src.p : NULL;
	for (size_t i = 0; i < n; i++)
		loops[i] = bench_auto_loops(fns[i], b->dst.p, src, size, 0, 0,
					    CALIBRATE_RUN_NS);
	for (int r = 0; r < reps; r++)
		for (size_t k = 0; k < n; k++) {
			/* Rotate the order each run: no one always goes first. */
			size_t i = (k + (size_t)r) % n;
			samples[i][r] = bench_run(fns[i], b->dst.p, src, size, 0,
						  0, loops[i]);
		}
	for (size_t i = 0; i < n; i++)
		out[i] = median_of(samples[i], (size_t)reps);
}

/* Score every candidate by its worst fraction of the best at any of the
 * sizes; the most robust one wins, earlier ones on a tie.  Used for the
 * streaming variant, well above the cache, where the threshold does not
 * matter. */
static const struct fn *pick(const struct options *o, const struct buffers *b,
			     const struct fn *const *cands, size_t n,
			     const size_t *sizes, size_t nsizes,
			     struct candidate_score *scores)
{
	for (size_t i = 0; i < n; i++)
		scores[i] = (struct candidate_score){cands[i], INFINITY};
	for (size_t s = 0; s < nsizes; s++) {
		double med[MAX_CANDIDATES], best = 0;
		char sz[32];
		progress(o, "%s variants at %s", cands[0]->streaming ? "streaming" : "cached",
			 ntm_format_size(sizes[s], sz, sizeof sz));
		measure_medians(b, cands, n, sizes[s], o->effort->reps, med);
		for (size_t i = 0; i < n; i++)
			best = fmax(best, med[i]);
		for (size_t i = 0; i < n; i++)
			scores[i].score = fmin(scores[i].score, med[i] / best);
	}
	size_t winner = 0;
	for (size_t i = 1; i < n; i++)
		if (scores[i].score > scores[winner].score)
			winner = i;
	return cands[winner];
}

static void measure_point(const struct options *o, const struct buffers *b,
			  const struct op_result *r, const struct crossover *x,
			  size_t size, struct crossover_point *p)
{
	int v = x->value;
	int reps = o->effort->reps;
	const unsigned char *src = b->copy ? b->src.p : NULL;
	const struct fn *c = r->best_cached, *s = r->best_streaming;
	if (x->value && s->zero_only)
		s = r->streaming_any_value;  /* what the library uses then */
	long lc = bench_auto_loops(c, b->dst.p, src, size, 0, v,
				   CALIBRATE_RUN_NS);
	long ls = bench_auto_loops(s, b->dst.p, src, size, 0, v,
				   CALIBRATE_RUN_NS);
	double ratios[64], cg[64], sg[64];
	char sz[32];
	progress(o, "%s crossover at %s", op_name(r->op),
		 ntm_format_size(size, sz, sizeof sz));
	p->size = size;
	p->wins = 0;
	for (int i = 0; i < reps; i++) {
		/* Paired runs, alternating which goes first. */
		if (i % 2) {
			sg[i] = bench_run(s, b->dst.p, src, size, 0, v, ls);
			cg[i] = bench_run(c, b->dst.p, src, size, 0, v, lc);
		} else {
			cg[i] = bench_run(c, b->dst.p, src, size, 0, v, lc);
			sg[i] = bench_run(s, b->dst.p, src, size, 0, v, ls);
		}
		ratios[i] = sg[i] / cg[i];
		p->wins += sg[i] > cg[i];
	}
	p->ratio = median_of(ratios, (size_t)reps);
	p->cached_gbps = median_of(cg, (size_t)reps);
	p->streaming_gbps = median_of(sg, (size_t)reps);
}

static int point_streams(const struct crossover_point *p)
{
	return p->ratio >= TIE_RATIO;
}

/* The threshold that fits the measured ratios best: the index of the
 * first point to stream (npoints: never), minimizing the bandwidth lost
 * against the better method at every size (log ratios, ties within
 * TIE_RATIO counted as no loss for streaming).  Each interior ratio is
 * first replaced by the median of it and its neighbours, so one noisy
 * size cannot move the threshold; on equal loss the smaller threshold
 * wins, sparing the cache. */
static size_t fit_threshold(const struct crossover *x)
{
	size_t n = x->npoints;
	double smooth[MAX_POINTS];
	for (size_t i = 0; i < n; i++) {
		if (i == 0 || i + 1 == n) {
			smooth[i] = x->points[i].ratio;
			continue;
		}
		double three[3] = {x->points[i - 1].ratio, x->points[i].ratio,
				   x->points[i + 1].ratio};
		smooth[i] = median_of(three, 3);
	}
	size_t best = n;
	double best_loss = INFINITY;
	for (size_t t = n + 1; t-- > 0;) {
		double loss = 0;
		for (size_t i = 0; i < n; i++)
			loss += i < t ? fmax(0, log(smooth[i]))
				      : fmax(0, log(TIE_RATIO / smooth[i]));
		if (loss <= best_loss) {
			best_loss = loss;
			best = t;
		}
	}
	return best;
}

static void insert_point(struct crossover *x, const struct crossover_point *p)
{
	size_t i = x->npoints;
	while (i > 0 && x->points[i - 1].size > p->size) {
		x->points[i] = x->points[i - 1];
		i--;
	}
	x->points[i] = *p;
	x->npoints++;
}

/* The crossover grid of x: sizes doubling from grid_lo up to hi. */
static void measure_grid(const struct options *o, const struct buffers *b,
			 const struct op_result *r, struct crossover *x, size_t hi)
{
	for (size_t size = o->effort->grid_lo; size <= hi && x->npoints < MAX_POINTS;
	     size *= 2) {
		struct crossover_point p;
		measure_point(o, b, r, x, size, &p);
		insert_point(x, &p);
	}
}

/* The threshold that fits x's grid best, refined by bisection (in log
 * space) between it and the size below. */
static void settle_threshold(const struct options *o, const struct buffers *b,
			     const struct op_result *r, struct crossover *x)
{
	size_t first = fit_threshold(x);
	if (first == x->npoints) {
		x->threshold = SIZE_MAX;
		return;
	}
	size_t lo_size = first ? x->points[first - 1].size : 0;
	size_t hi_size = x->points[first].size;
	for (int k = 0; k < o->effort->refinements && lo_size; k++) {
		size_t mid = (size_t)sqrt((double)lo_size * (double)hi_size);
		mid = (mid + MiB - 1) / MiB * MiB;
		if (mid <= lo_size || mid >= hi_size || x->npoints == MAX_POINTS)
			break;
		struct crossover_point p;
		measure_point(o, b, r, x, mid, &p);
		insert_point(x, &p);
		if (point_streams(&p))
			hi_size = mid;
		else
			lo_size = mid;
	}
	x->threshold = hi_size;
}

/* Every cached candidate and the streaming variant at size, writing
 * zeros, interleaved run by run in a rotating order. */
static void measure_grid_point(const struct options *o, const struct buffers *b,
			       struct op_result *r, size_t size)
{
	struct grid_point *g = &r->grid[r->ngrid++];
	const unsigned char *src = b->copy ? b->src.p : NULL;
	const struct fn *fns[MAX_CANDIDATES + 1];
	long loops[MAX_CANDIDATES + 1];
	size_t n = r->ncached + 1;
	char sz[32];
	progress(o, "%s variants at %s", op_name(r->op),
		 ntm_format_size(size, sz, sizeof sz));
	g->size = size;
	for (size_t i = 0; i < r->ncached; i++)
		fns[i] = r->cached_fns[i];
	fns[r->ncached] = r->best_streaming;
	for (size_t i = 0; i < n; i++)
		loops[i] = bench_auto_loops(fns[i], b->dst.p, src, size, 0, 0,
					    CALIBRATE_RUN_NS);
	for (int rep = 0; rep < o->effort->reps; rep++)
		for (size_t k = 0; k < n; k++) {
			size_t i = (k + (size_t)rep) % n;
			double gbps = bench_run(fns[i], b->dst.p, src, size, 0, 0,
						loops[i]);
			if (i < r->ncached)
				g->cached[i][rep] = gbps;
			else
				g->streaming[rep] = gbps;
		}
}

/* The crossover of cached candidate c against streaming, from the grid. */
static void crossover_from_grid(const struct options *o, const struct op_result *r,
				size_t c, struct crossover *x)
{
	int reps = o->effort->reps;
	x->npoints = 0;
	for (size_t i = 0; i < r->ngrid; i++) {
		const struct grid_point *g = &r->grid[i];
		double ratios[MAX_REPS], cg[MAX_REPS], sg[MAX_REPS];
		struct crossover_point *p = &x->points[x->npoints++];
		p->size = g->size;
		p->wins = 0;
		for (int k = 0; k < reps; k++) {
			cg[k] = g->cached[c][k];
			sg[k] = g->streaming[k];
			ratios[k] = sg[k] / cg[k];
			p->wins += sg[k] > cg[k];
		}
		p->ratio = median_of(ratios, (size_t)reps);
		p->cached_gbps = median_of(cg, (size_t)reps);
		p->streaming_gbps = median_of(sg, (size_t)reps);
	}
}

/* Choose the cached variant and the zeros threshold together: for each
 * candidate the threshold that fits it best, then the pair that loses
 * the least bandwidth against the best measured at every grid size (as
 * a geometric mean).  Earlier candidates win ties. */
static void choose_cached(const struct options *o, const struct buffers *b,
			  struct op_result *r, size_t hi)
{
	for (size_t i = 0; i < sizeof small_sizes / sizeof small_sizes[0]; i++)
		if (small_sizes[i] < o->effort->grid_lo && small_sizes[i] <= hi)
			measure_grid_point(o, b, r, small_sizes[i]);
	for (size_t size = o->effort->grid_lo; size <= hi && r->ngrid < MAX_POINTS;
	     size *= 2)
		measure_grid_point(o, b, r, size);

	double best_at[MAX_POINTS];
	int reps = o->effort->reps;
	for (size_t i = 0; i < r->ngrid; i++) {
		double v[MAX_REPS];
		memcpy(v, r->grid[i].streaming, sizeof(double) * (size_t)reps);
		best_at[i] = median_of(v, (size_t)reps);
		for (size_t c = 0; c < r->ncached; c++) {
			memcpy(v, r->grid[i].cached[c], sizeof(double) * (size_t)reps);
			best_at[i] = fmax(best_at[i], median_of(v, (size_t)reps));
		}
	}
	size_t chosen = 0;
	static struct crossover x;
	for (size_t c = 0; c < r->ncached; c++) {
		crossover_from_grid(o, r, c, &x);
		size_t t = fit_threshold(&x);
		double loss = 0;
		for (size_t i = 0; i < x.npoints; i++) {
			const struct crossover_point *p = &x.points[i];
			loss += log(best_at[i] /
				    (i < t ? p->cached_gbps : p->streaming_gbps));
		}
		r->cached[c] = (struct candidate_score){
			r->cached_fns[c], exp(-loss / (double)x.npoints)};
		if (r->cached[c].score > r->cached[chosen].score)
			chosen = c;
	}
	r->best_cached = r->cached_fns[chosen];
	crossover_from_grid(o, r, chosen, &r->x[0]);
	settle_threshold(o, b, r, &r->x[0]);
}

/* How sure: streaming must have won most paired runs from the threshold
 * up, and cached most just below it, by more than the noise allowance. */
static void judge(const struct options *o, const struct op_result *r,
		  struct crossover *x)
{
	char t[32], sz[32], what[48];
	if (r->op == NTMEM_OP_COPY)
		snprintf(what, sizeof what, "memcpy");
	else if (x->value == 0)
		snprintf(what, sizeof what, "memset of zeros");
	else
		snprintf(what, sizeof what, "memset of 0x%02x bytes", x->value);
	int reps = o->effort->reps;
	const struct crossover_point *last = &x->points[x->npoints - 1];
	if (x->threshold == SIZE_MAX) {
		snprintf(x->verdict, sizeof x->verdict,
			 "streaming %s never wins up to %s (%.2fx there): stay cached",
			 what, ntm_format_size(last->size, sz, sizeof sz),
			 last->ratio);
		x->confident = last->wins * 4 <= reps;
		snprintf(x->confidence, sizeof x->confidence,
			 "%s: cached won %d of %d paired runs at %s",
			 x->confident ? "sure" : "not sure", reps - last->wins, reps, sz);
		return;
	}
	ntm_format_size(x->threshold, t, sizeof t);
	double above[MAX_POINTS];
	size_t nabove = 0;
	for (size_t i = 0; i < x->npoints; i++)
		if (x->points[i].size >= x->threshold)
			above[nabove++] = x->points[i].ratio;
	snprintf(x->verdict, sizeof x->verdict,
		 "streaming %s wins from %s up (%.2fx by the median from there, "
		 "%.2fx at %s)", what, t, median_of(above, nabove),
		 last->ratio, ntm_format_size(last->size, sz, sizeof sz));
	int min_wins = reps;
	for (size_t i = 0; i < x->npoints; i++)
		if (x->points[i].size >= x->threshold && x->points[i].wins < min_wins)
			min_wins = x->points[i].wins;
	const struct crossover_point *below = NULL;
	for (size_t i = 0; i < x->npoints; i++)
		if (x->points[i].size < x->threshold)
			below = &x->points[i];
	/* "Most" is two thirds: 5 of 7 paired runs, 3 of 5. */
	int clear_above = min_wins * 3 >= reps * 2;
	int clear_below = !below || (below->wins * 3 <= reps && below->ratio < TIE_RATIO);
	x->confident = clear_above && clear_below;
	if (x->confident)
		snprintf(x->confidence, sizeof x->confidence,
			 "sure: streaming won at least %d of %d paired runs at every "
			 "size from %s up%s", min_wins, reps, t,
			 below ? " and at most a third just below" : "");
	else if (!clear_above)
		snprintf(x->confidence, sizeof x->confidence,
			 "not sure: from %s up streaming won as few as %d of %d paired "
			 "runs; the two are close there, so the exact threshold "
			 "matters little", t, min_wins, reps);
	else
		snprintf(x->confidence, sizeof x->confidence,
			 "not sure: just below, at %s, streaming still won %d of %d "
			 "paired runs (%.2fx); the two are close there, so the exact "
			 "threshold matters little",
			 ntm_format_size(below->size, sz, sizeof sz), below->wins,
			 reps, below->ratio);
}

static int alloc_buffers(struct buffers *b, enum ntmem_op op, size_t size)
{
	char why[160];
	b->copy = op == NTMEM_OP_COPY;
	if (buffer_alloc(&b->dst, size, PAGES_4K, why, sizeof why))
		cli_fail("cannot allocate %zu bytes: %s", size, why);
	if (b->copy) {
		if (buffer_alloc(&b->src, size, PAGES_4K, why, sizeof why))
			cli_fail("cannot allocate %zu bytes: %s", size, why);
		fill_random(b->src.p, size);
	}
	return 0;
}

static void calibrate_op(const struct options *o, struct op_result *r,
			 size_t memory)
{
	r->nfns = fn_list(r->op, r->fns, FN_MAX);
	const struct fn *streaming[MAX_CANDIDATES];
	for (size_t i = 0; i < r->nfns; i++) {
		const struct fn *f = &r->fns[i];
		if (f->kind != FN_VARIANT || !f->supported)
			continue;
		if (f->streaming && r->nstreaming < MAX_CANDIDATES)
			streaming[r->nstreaming++] = f;
		else if (!f->streaming && r->ncached < MAX_CANDIDATES)
			r->cached_fns[r->ncached++] = f;
	}

	/* The largest size that fits, for each buffer. */
	size_t per_buffer = memory / (r->op == NTMEM_OP_COPY ? 2 : 1);
	size_t hi = o->effort->grid_hi;
	while (hi > o->effort->grid_lo && hi > per_buffer)
		hi /= 2;
	if (hi > per_buffer)
		cli_fail("not enough memory: %s needs at least %zu MiB",
			 op_name(r->op), o->effort->grid_lo / MiB *
			 (r->op == NTMEM_OP_COPY ? 2 : 1));
	struct buffers b;
	alloc_buffers(&b, r->op, hi);

	r->best_cached = r->cached_fns[0];
	r->best_streaming = NULL;
	if (r->nstreaming) {
		struct cache_plan plan;
		ntm_cpu_plan(ntm_cpu(), &plan);
		size_t cache = plan.caches.l3;
		size_t big = cache * 4 > 256 * MiB ? cache * 4 : 256 * MiB;
		r->stream_pick_sizes[0] = big < hi ? big : hi;
		r->nstream_pick_sizes = 1;
		r->best_streaming = pick(o, &b, streaming, r->nstreaming,
					 r->stream_pick_sizes,
					 r->nstream_pick_sizes, r->streaming);
		r->streaming_any_value = r->best_streaming;
		if (r->best_streaming->zero_only) {
			const struct variant *v =
				ntm_ranked(r->op, NTMEM_ROLE_STREAMING, 0);
			r->streaming_any_value =
				fn_find(r->fns, r->nfns, v ? v->name : "");
		}
		choose_cached(o, &b, r, hi);
		for (size_t k = 1; k < r->nx; k++) {
			measure_grid(o, &b, r, &r->x[k], hi);
			settle_threshold(o, &b, r, &r->x[k]);
		}
		for (size_t k = 0; k < r->nx; k++)
			judge(o, r, &r->x[k]);
	} else {
		for (size_t k = 0; k < r->nx; k++) {
			struct crossover *x = &r->x[k];
			x->threshold = SIZE_MAX;
			snprintf(x->verdict, sizeof x->verdict,
				 "no streaming %s variant runs on this CPU",
				 op_name(r->op));
			snprintf(x->confidence, sizeof x->confidence,
				 "nothing to measure");
			x->confident = 1;
		}
	}
	buffer_free(&b.dst);
	if (b.copy)
		buffer_free(&b.src);
}

static void print_scores(const char *what, const struct candidate_score *s,
			 size_t n, const struct fn *chosen)
{
	printf("  %s:\n   ", what);
	for (size_t i = 0; i < n; i++)
		printf(" %s %.2f%s", s[i].fn->name, s[i].score,
		       s[i].fn == chosen ? " (chosen)" : "");
	printf("\n");
}

static void print_text(const struct options *o, const struct op_result *res,
		       const char *path, const char *status)
{
	const struct cpu *cpu = ntm_cpu();
	char sz[32];
	printf("ntmem calibrate (%s): %s, %u online CPUs, pinned to CPU %d\n",
	       o->effort->name, cpu->brand[0] ? cpu->brand : "unknown CPU",
	       cpu->online_cpus, o->cpu);
	for (int op = 0; op < 2; op++) {
		const struct op_result *r = &res[op];
		printf("\n%s%s\n", op_name(r->op),
		       r->op == NTMEM_OP_SET ? " (variants chosen writing zeros)"
					     : " (random source bytes)");
		if (!r->best_streaming) {
			printf("  cached: %s\n  %s\n", r->best_cached->name,
			       r->x[0].verdict);
			continue;
		}
		char head[160];
		snprintf(head, sizeof head,
			 "streaming variants, fraction of the best at %s",
			 ntm_format_size(r->stream_pick_sizes[0], sz, sizeof sz));
		print_scores(head, r->streaming, r->nstreaming, r->best_streaming);
		print_scores("cached variants, each with its best threshold: "
			     "mean fraction of the best at every size below",
			     r->cached, r->ncached, r->best_cached);
		for (size_t k = 0; k < r->nx; k++) {
			const struct crossover *x = &r->x[k];
			char value[40] = "";
			if (r->op == NTMEM_OP_SET)
				snprintf(value, sizeof value, " writing 0x%02x", x->value);
			const struct fn *s = x->value ? r->streaming_any_value
						      : r->best_streaming;
			printf("  crossover%s, %s against %s (median of %d paired runs):\n",
			       value, s->name, r->best_cached->name, o->effort->reps);
			printf("  %10s %10s %10s %8s %6s\n", "size", r->best_cached->name,
			       s->name, "ratio", "wins");
			for (size_t i = 0; i < x->npoints; i++) {
				const struct crossover_point *p = &x->points[i];
				printf("  %10s %10.2f %10.2f %7.2fx %3d/%-2d%s\n",
				       ntm_format_size(p->size, sz, sizeof sz),
				       p->cached_gbps, p->streaming_gbps, p->ratio,
				       p->wins, o->effort->reps,
				       p->size == x->threshold ? "  <- threshold" : "");
			}
			printf("  %s\n  %s\n", x->verdict, x->confidence);
		}
	}
	printf("\nVerdict:");
	for (int op = 0; op < 2; op++)
		for (size_t k = 0; k < res[op].nx; k++)
			printf("%s %s", op || k ? ";" : "", res[op].x[k].verdict);
	printf("\n");
	printf("%s%s\n", status, path ? path : "");
}

static void json_threshold(struct json *j, const char *key, size_t t)
{
	if (t == SIZE_MAX)
		json_null(j, key);  /* never */
	else
		json_uint(j, key, t);
}

static void print_json(const struct options *o, const struct op_result *res,
		       const char *path, int written)
{
	struct json j;
	json_start(&j, stdout);
	json_string(&j, "command", "calibrate");
	json_string(&j, "effort", o->effort->name);
	json_int(&j, "cpu", o->cpu);
	json_array(&j, "operations");
	for (int op = 0; op < 2; op++) {
		const struct op_result *r = &res[op];
		json_object(&j, NULL);
		json_string(&j, "op", op_name(r->op));
		json_string(&j, "cached", r->best_cached->name);
		json_string(&j, "streaming", r->best_streaming ? r->best_streaming->name : NULL);
		json_threshold(&j, "threshold", r->x[0].threshold);
		if (r->op == NTMEM_OP_SET)
			json_threshold(&j, "threshold_nonzero", r->x[1].threshold);
		json_array(&j, "crossovers");
		for (size_t k = 0; k < r->nx; k++) {
			const struct crossover *x = &r->x[k];
			json_object(&j, NULL);
			json_uint(&j, "value", (uint64_t)x->value);
			json_threshold(&j, "threshold", x->threshold);
			json_string(&j, "verdict", x->verdict);
			json_bool(&j, "confident", x->confident);
			json_string(&j, "confidence", x->confidence);
			json_array(&j, "points");
			for (size_t i = 0; i < x->npoints; i++) {
				const struct crossover_point *p = &x->points[i];
				json_object(&j, NULL);
				json_uint(&j, "size", p->size);
				json_double(&j, "cached_gbps", p->cached_gbps);
				json_double(&j, "streaming_gbps", p->streaming_gbps);
				json_double(&j, "ratio", p->ratio);
				json_int(&j, "wins", p->wins);
				json_int(&j, "runs", o->effort->reps);
				json_end(&j);
			}
			json_end(&j);
			json_end(&j);
		}
		json_end(&j);
		json_end(&j);
	}
	json_end(&j);
	json_string(&j, "profile", path);
	json_bool(&j, "written", written);
	json_finish(&j);
}

int cmd_calibrate(int argc, char **argv)
{
	struct options o;
	parse(argc, argv, &o);
	o.progress = cli_progress_wanted();

	char path[1024];
	const char *why = NULL;
	if (o.output)
		snprintf(path, sizeof path, "%s", o.output);
	else if (!o.dry_run && ntm_profile_path(path, sizeof path, &why))
		cli_usage_error("no profile path (%s); use --output PATH", why);

	size_t memory = memory_budget();

	static struct op_result res[2];
	res[0] = (struct op_result){.op = NTMEM_OP_SET, .nx = 2};
	res[0].x[1].value = NONZERO_VALUE;
	res[1] = (struct op_result){.op = NTMEM_OP_COPY, .nx = 1};
	for (int op = 0; op < 2; op++)
		calibrate_op(&o, &res[op], memory);
	if (o.progress)
		fprintf(stderr, "\r\033[K");

	struct profile p;
	ntm_profile_init(&p, ntm_cpu());
	for (int op = 0; op < 2; op++)
		for (size_t k = 0; k < res[op].nx; k++) {
			int cls = op == NTMEM_OP_COPY ? NTMEM_CLASS_COPY
				  : k ? NTMEM_CLASS_SET_NONZERO : NTMEM_CLASS_SET_ZERO;
			struct profile_ladder *pl = &p.ladder[cls];
			const struct fn *s = k ? res[op].streaming_any_value
					       : res[op].best_streaming;
			size_t t = res[op].x[k].threshold;
			if (!s || t == SIZE_MAX)
				snprintf(pl->rungs, sizeof pl->rungs, "%s",
					 res[op].best_cached->name);
			else if (t == 0)
				snprintf(pl->rungs, sizeof pl->rungs, "%s", s->name);
			else
				snprintf(pl->rungs, sizeof pl->rungs, "%s:%zu,%s",
					 res[op].best_cached->name, t, s->name);
			if (s)
				snprintf(pl->streaming, sizeof pl->streaming, "%s",
					 s->name);
		}
	char comment[1024], when[64];
	time_t now = time(NULL);
	strftime(when, sizeof when, "%Y-%m-%d %H:%M:%S UTC", gmtime(&now));
	int len = snprintf(comment, sizeof comment, "calibrated %s (%s effort)", when,
			   o.effort->name);
	for (int op = 0; op < 2; op++)
		for (size_t k = 0; k < res[op].nx && len < (int)sizeof comment; k++)
			len += snprintf(comment + len, sizeof comment - (size_t)len,
					"\n%s", res[op].x[k].verdict);

	int written = 0;
	const char *status = "Dry run: no profile written";
	if (!o.dry_run) {
		if (ntm_profile_write(path, &p, comment))
			cli_fail("cannot write the profile '%s': %s", path, strerror(errno));
		written = 1;
		status = "Profile written to ";
	}
	if (o.json)
		print_json(&o, res, o.dry_run && !o.output ? NULL : path, written);
	else
		print_text(&o, res, written ? path : NULL, status);
	return 0;
}
