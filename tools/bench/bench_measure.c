/* bench_measure.c - "ntmem bench" measuring: every function at every
 * size, on fresh buffers, through the shared runner (benchfn.h). */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bench.h"
#include "measure/benchfn.h"
#include "util/clock.h"
#include "util/size.h"

struct progress_ctx {
	const struct bench_opts *o;
	size_t size, done, total;
};

static void progress(void *arg, size_t fn, long round)
{
	struct progress_ctx *p = arg;
	const struct bench_opts *o = p->o;
	char s[32];
	fprintf(stderr, "\r\033[K[%zu/%zu] %s %s %s run %ld/%ld", ++p->done,
		p->total, o->op == NTMEM_OP_SET ? "memset" : "memcpy",
		ntm_format_size(p->size, s, sizeof s), o->fns[fn % o->nfns].name, round + 1,
		o->runs);
	fflush(stderr);
}

/* What the untimed calls before each run move at least (benchfn.h):
 * twice the last-level cache, so that a run starts from the caches its
 * own function leaves, not the one before it; at most SETTLE_MAX, a few
 * milliseconds at memory speed, where a CPU reports a huge L3. */
#define SETTLE_MAX ((size_t)256 << 20)
static size_t settle_bytes(void)
{
	static size_t bytes = (size_t)-1;
	if (bytes == (size_t)-1) {
		struct ntmem_cpu_info cpu;
		ntmem_cpu_info(&cpu);
		size_t llc = cpu.planned.l3 ? cpu.planned.l3 : cpu.planned.l2;
		bytes = llc < SETTLE_MAX / 2 ? 2 * llc : SETTLE_MAX;
	}
	return bytes;
}

/* --learned: the calls auto's size takes to learn, before it is timed:
 * as many as the ladder serves before the first trial, and the longest
 * trial.  0 where the size does not learn (below 1 MiB, adapt=0, no
 * rival). */
unsigned long bench_learn_calls(enum ntmem_op op, int value, size_t size)
{
	struct ntmem_adapt_info ai;
	enum ntmem_class cls = op == NTMEM_OP_COPY ? NTMEM_CLASS_COPY
			       : value ? NTMEM_CLASS_SET_NONZERO : NTMEM_CLASS_SET_ZERO;
	if (ntmem_adapt_info(cls, &ai) || !ai.on || size < ai.from)
		return 0;
	for (int i = 0; i < ai.nbands; i++)
		if (size >= ai.band[i].from && size < ai.band[i].to)
			return ai.band[i].nsides ? ai.after + ai.trial_calls : 0;
	return 0;
}

/* Before auto's learning calls, the C library's function writes the
 * buffers for WARM_NS (at least once, at most WARM_CALLS times): a size
 * reaches its first trial after learn_after calls, and a program that got
 * there has used its memory that long.  With learn_after lowered, as
 * benchmarks do, the trial would otherwise time memory the process has
 * only just touched, which on some hosts runs slower for its first few
 * dozen calls than later (docs/results.md, "After learning"). */
#define WARM_NS 100000000u
#define WARM_CALLS 1024
static void warm_buffers(const struct bench_opts *o, unsigned char *dst,
			 const unsigned char *src, size_t size, int value)
{
	uint64_t t0 = ntm_now_ns();
	for (int k = 0; k < WARM_CALLS && ntm_now_ns() - t0 < WARM_NS; k++)
		if (o->op == NTMEM_OP_COPY)
			memcpy(dst, src, size);
		else
			memset(dst, value, size);
}

/* Give auto, on one thread without a chunk, its untimed calls to learn. */
static void learn_first(const struct bench_opts *o, unsigned char *dst,
			const unsigned char *src, size_t size, int value)
{
	unsigned long calls = bench_learn_calls(o->op, value, size);
	for (size_t i = 0; calls && i < o->nfns; i++) {
		if (o->fns[i].kind != FN_AUTO || o->chunk)
			continue;
		warm_buffers(o, dst, src, size, value);
		for (unsigned long k = 0; k < calls; k++)
			if (o->op == NTMEM_OP_COPY)
				ntmem_copy(dst, src, size);
			else
				ntmem_set(dst, value, size);
	}
}

/* Every function on every thread count at one size, on buffers already
 * set up: all of them interleaved in one set of rounds. */
static int measure_size(struct bench_opts *o, struct progress_ctx *pc,
			unsigned char *dst, const unsigned char *src,
			const char *pages, struct cli_error *e)
{
	enum { MAX = BENCH_MAX_FNS * BENCH_MAX_THREADS };
	size_t size = pc->size, nf = o->nfns * o->nthreads, runs = (size_t)o->runs;
	size_t call = o->chunk ? o->chunk : size;  /* the bytes of one call */
	int value = o->value < 0 ? 0 : o->value;
	static struct fn_target targets[MAX];
	static struct benchfn fns[MAX];
	static long loops[MAX];
	for (size_t i = 0; i < nf; i++) {
		const struct fn *f = &o->fns[i % o->nfns];
		targets[i] = (struct fn_target){f, dst, src, o->chunk, value,
						o->threads[i / o->nfns]};
		fns[i] = fn_callable(&targets[i]);
	}
	struct benchfn_result r = {calloc(nf * runs, sizeof(double)), loops, 0};
	if (!r.gbps)
		return cli_error(e, CLI_FAILED, "out of memory");
	if (o->learned)
		learn_first(o, dst, src, size, value);
	struct benchfn_plan plan = {fns, nf, size, o->runs, o->loops,
				    BENCH_MIN_RUN_NS, o->progress ? progress : NULL, pc,
				    settle_bytes()};
	if (benchfn_run(&plan, &r)) {
		int err = errno;
		free(r.gbps);
		return cli_error(e, CLI_FAILED, "%s refused to run (%s)",
				 fns[r.failed].name, strerror(err));
	}
	size_t first = o->nresults;
	for (size_t fi = 0; fi < nf; fi++) {
		struct bench_result *res = &o->results[o->nresults++];
		res->fn = targets[fi].f;
		res->size = size;
		res->threads = targets[fi].threads;
		res->loops = loops[fi];
		res->nontemporal = fn_streams(res->fn, call, value);
		res->dispatch = fn_dispatch(res->fn, call, value);
		res->stats = stats_of(benchfn_runs(&r, fi, o->runs), runs);
		snprintf(res->pages, sizeof res->pages, "%s", pages);
	}
	free(r.gbps);
	/* Each against the baseline on as many threads. */
	for (size_t i = first; i < o->nresults; i++) {
		size_t t = (i - first) / o->nfns;
		double base = o->results[first + t * o->nfns + (size_t)o->baseline].stats.mean;
		o->results[i].diff_pct = (o->results[i].stats.mean / base - 1) * 100;
	}
	return 0;
}

int bench_measure(struct bench_opts *o, struct cli_error *e)
{
	struct progress_ctx pc = {o, 0, 0,
				  o->nsizes * o->nfns * o->nthreads * (size_t)o->runs};
	int copy = o->op == NTMEM_OP_COPY, r = 0;
	o->nresults = 0;
	for (size_t si = 0; si < o->nsizes && !r; si++) {
		struct buffers b;
		char why[160], s[32];
		pc.size = o->sizes[si];
		if (buffers_alloc(&b, copy, pc.size, o->pages, o->value, why, sizeof why)) {
			bench_add_skip(o, ntm_format_size(pc.size, s, sizeof s), why);
			continue;
		}
		r = measure_size(o, &pc, b.dst.p, copy ? b.src.p : NULL, b.dst.obtained, e);
		buffers_free(&b);
	}
	if (o->progress)
		fprintf(stderr, "\r\033[K");
	return r;
}
