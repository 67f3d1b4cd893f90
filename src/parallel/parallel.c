/* parallel.c - parallel and hinted clears and copies: how many threads,
 * the split, the placement, the hot region written last.
 *
 * Where parallelism pays is a matter for calibration: time, interleaved,
 * a parallel call (opts.threads = 2 and = all, opts.min_chunk = 1, so
 * that it always splits) against the same call with threads = 1, at
 * sizes from 256 KiB up by factors of two, for each class's streaming
 * and cached variants.  The policy's minimum chunk is then the smallest
 * size / threads from which the parallel call is at least 1.1x faster at
 * that size and every larger one.  Its thread count is the number past
 * which adding a thread gains less than 5% at the largest size measured
 * (memory bandwidth saturates long before the core count on most
 * servers). */
#define _GNU_SOURCE
#include "parallel.h"

#include <errno.h>
#include <sched.h>
#include <stdint.h>

#include "dispatch/args.h"
#include "variants/fence.h"
#include "variants/libc.h"
#include "numa.h"
#include "dispatch/select.h"
#include "pool.h"
#include "dispatch/registry.h"
#include "util/size.h"



/* Parts of a clear or copy end on a 2 MiB page, else a 4 KiB page, else
 * a line: never two threads in one line. */
static const size_t write_grains[] = {2 * MiB, 4 * KiB, LINE};

/*
 * The thread count when the call does not give one: the policy's
 * (threads=N), else the CPUs the calling thread may run on.  One system
 * call: made only for calls large enough to split.
 */
static unsigned policy_threads(const char **how)
{
	const struct policy *p = ntm_policy_for_call();
	if (p && p->threads) {
		if (how)  /* only the tunables set it */
			*how = "NTMEM_TUNABLES threads=";
		return p->threads;
	}
	cpu_set_t set;
	int saved = errno;
	int failed = sched_getaffinity(0, sizeof set, &set);
	errno = saved;
	if (how)
		*how = failed ? "1: the calling thread's affinity cannot be read"
			      : "the CPUs in the calling thread's affinity mask";
	return failed ? 1 : (unsigned)CPU_COUNT(&set);
}

static size_t policy_min_chunk(void)
{
	const struct policy *p = ntm_policy_for_call();
	return p && p->min_chunk ? p->min_chunk : NTM_PARALLEL_MIN_CHUNK;
}

/* The parts the pool runs: which pieces each has, in the order the pool
 * numbers them (its part 0 is the caller's). */
struct parts_plan {
	const struct extent_work *w;
	const struct piece *pieces;
	unsigned first[NTM_MAX_PARTS + 1];  /* part p: pieces[first[p] ..
					       first[p + 1]) */
	unsigned order[NTM_MAX_PARTS];      /* pool part k runs our part
					       order[k] */
};

static int run_part(struct pool_job *job, unsigned k)
{
	const struct parts_plan *plan = job->arg;
	unsigned p = plan->order[k];
	for (unsigned i = plan->first[p]; i < plan->first[p + 1]; i++) {
		int e = plan->w->fn(plan->w, plan->pieces[i].off, plan->pieces[i].len);
		if (e)
			return e;
	}
	return 0;
}

static int run_alone(const struct extent_work *w, const struct span *spans,
		     unsigned nspans)
{
	for (unsigned i = 0; i < nspans; i++) {
		int e = spans[i].len ? w->fn(w, spans[i].off, spans[i].len) : 0;
		if (e)
			return e;
	}
	return 0;
}

/* With the pool held for workers workers: split, place, run.  Returns
 * the error of the lowest failed part, or 0. */
static int run_split(const struct extent_work *w, const struct span *spans,
		     unsigned nspans, size_t total, unsigned parts,
		     const size_t *grains, unsigned ngrains)
{
	struct piece pieces[NTM_MAX_PIECES];
	struct parts_plan plan = {.w = w, .pieces = pieces};
	struct pool_job job = {.run = run_part, .arg = &plan};
	unsigned nparts;
	size_t grain = ntm_split_grain((uintptr_t)w->dst, total, parts, grains,
				       ngrains);
	size_t npieces = ntm_split((uintptr_t)w->dst, spans, nspans, parts,
				   grain, pieces, &nparts);
	for (size_t i = npieces; i-- > 0;)
		plan.first[pieces[i].part] = (unsigned)i;
	plan.first[nparts] = (unsigned)npieces;

	const struct topology *t = ntm_pool_topology();
	int node[NTM_MAX_PARTS];
	ntm_memory_nodes(t, w->dst, pieces, npieces, nparts, node);
	ntm_place(t, node, nparts, sched_getcpu(), plan.order, job.cpu);
	job.nparts = nparts;
	ntm_pool_run(&job);

	/* The lowest failed part: parts are numbered in address order. */
	int by_part[NTM_MAX_PARTS];
	for (unsigned k = 0; k < nparts; k++)
		by_part[plan.order[k]] = job.result[k];
	for (unsigned p = 0; p < nparts; p++)
		if (by_part[p])
			return by_part[p];
	return 0;
}

int ntm_extent_run(const struct extent_work *w, const struct span *spans,
		   unsigned nspans, unsigned threads, size_t min_chunk,
		   const size_t *grains, unsigned ngrains)
{
	size_t total = 0;
	for (unsigned i = 0; i < nspans; i++)
		total += spans[i].len;
	if (!min_chunk)
		min_chunk = policy_min_chunk();
	/* At most one part per unit of work (a line, a page) and per
	 * minimum chunk; ask for the thread count only if that is 2+. */
	size_t unit = grains[ngrains - 1];
	size_t most = total / (min_chunk > unit ? min_chunk : unit);
	if (most < 2 || threads == 1)
		return run_alone(w, spans, nspans);
	size_t parts = threads ? threads : policy_threads(NULL);
	if (parts > most)
		parts = most;
	if (parts > NTM_MAX_PARTS)
		parts = NTM_MAX_PARTS;
	unsigned workers = parts >= 2 ? ntm_pool_acquire((unsigned)parts - 1) : 0;
	if (workers == 0)
		return run_alone(w, spans, nspans);
	if (parts > workers + 1)
		parts = workers + 1;
	return run_split(w, spans, nspans, total, (unsigned)parts, grains, ngrains);
}

static int set_piece(const struct extent_work *w, size_t off, size_t len)
{
	w->v->set(w->dst + off, w->c, len);
	return 0;
}

static int copy_piece(const struct extent_work *w, size_t off, size_t len)
{
	w->v->copy(w->dst + off, w->src + off, len);
	return 0;
}

/*
 * The variant is picked once, for the whole extent's size n, and every
 * part uses it.  Picking per part would ask the wrong question: the
 * ladder's threshold says where an extent stops fitting the last-level
 * cache, and the parts are written at the same time through the same
 * cache, so together they occupy what the whole extent would.  Two
 * threads clearing 64 MiB in 32 MiB halves under a 48 MiB threshold
 * would each choose cached stores and fill the cache with 64 MiB that
 * the policy meant to stream.  (Per part, only the start-up cost of a
 * variant would be better judged, and parts are megabytes: it is noise.)
 */
int ntm_parallel_applies(const struct ntm_request *r)
{
	size_t min_chunk = r->o.min_chunk ? r->o.min_chunk : policy_min_chunk();
	return r->o.hot_len || ((r->o.flags & NTMEM_F_PARALLEL) && r->n / 2 >= min_chunk);
}

void ntm_parallel_write(const struct ntm_request *r)
{
	unsigned flags = r->o.flags & ~NTMEM_F_PARALLEL;
	int parallel = !!(r->o.flags & NTMEM_F_PARALLEL);
	size_t min_chunk = r->o.min_chunk ? r->o.min_chunk : policy_min_chunk();
	size_t hot_end = r->o.hot_off + r->o.hot_len;
	struct span spans[NTM_MAX_SPANS];
	unsigned nspans = 0;
	if (!r->o.hot_len)
		spans[nspans++] = (struct span){0, r->n};
	if (r->o.hot_len && r->o.hot_off)
		spans[nspans++] = (struct span){0, r->o.hot_off};
	if (r->o.hot_len && hot_end < r->n)
		spans[nspans++] = (struct span){hot_end, r->n - hot_end};
	struct extent_work w = {
		.fn = r->op == NTMEM_OP_SET ? set_piece : copy_piece,
		.dst = r->dst, .src = r->src, .c = r->c,
		.v = ntm_select_variant(ntm_policy_for_call(), ntm_class_of(r->op, r->c),
					r->n, flags, r->o.hot_len != 0),
	};
	if (nspans)
		ntm_extent_run(&w, spans, nspans, parallel ? r->o.threads : 1,
			       min_chunk, write_grains,
			       sizeof write_grains / sizeof write_grains[0]);
	ntm_fence_after(nspans && ntm_streams(w.v), flags);
}

void ntm_parallel_describe(struct ntmem_parallel_info *info)
{
	struct pool_stats s;
	ntm_pool_stats(&s);
	*info = (struct ntmem_parallel_info){
		.min_chunk = policy_min_chunk(),
		.max_threads = NTM_MAX_PARTS,
		.workers = s.workers,
		.calls = s.jobs,
		.busy = s.busy,
		.create_failed = s.create_failed,
	};
	info->threads = policy_threads(&info->threads_how);
	if (info->threads > NTM_MAX_PARTS)
		info->threads = NTM_MAX_PARTS;
	ntm_pool_universe(&info->cpus_allowed, &info->nodes);
}
