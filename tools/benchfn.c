/* benchfn.c - the interleaved, rotated runner (see benchfn.h). */
#include "benchfn.h"

#include <math.h>
#include <stdint.h>
#include <stdlib.h>

#include "measure.h"

int benchfn_rotate(size_t nslots, long rounds, benchfn_visit visit, void *ctx)
{
	for (long r = 0; r < rounds; r++)
		for (size_t k = 0; k < nslots; k++) {
			int e = visit(ctx, (k + (size_t)r) % nslots, r);
			if (e)
				return e;
		}
	return 0;
}

/* loops calls of f; the time they took in *ns. */
static int timed_calls(const struct benchfn *f, size_t size, long loops,
		       double *ns)
{
	uint64_t t0 = now_ns();
	for (long l = 0; l < loops; l++)
		if (f->call(f->arg, size))
			return -1;
	uint64_t t = now_ns() - t0;
	*ns = (double)(t ? t : 1);
	return 0;
}

int benchfn_time(const struct benchfn *f, size_t size, long loops,
		 double *gbps)
{
	double ns;
	if (f->call(f->arg, size) || timed_calls(f, size, loops, &ns))
		return -1;
	*gbps = (double)size * (double)loops / ns;
	return 0;
}

int benchfn_auto_loops(const struct benchfn *f, size_t size, double target_ns,
		       long *loops)
{
	if (f->call(f->arg, size))
		return -1;
	for (long n = 1;; n *= 4) {
		double ns;
		if (timed_calls(f, size, n, &ns))
			return -1;
		if (ns >= target_ns / 4 || n >= BENCHFN_MAX_LOOPS) {
			double want = ceil((double)n * target_ns / ns);
			*loops = want < 1 ? 1 : want > BENCHFN_MAX_LOOPS
						? BENCHFN_MAX_LOOPS : (long)want;
			return 0;
		}
	}
}

struct run_ctx {
	const struct benchfn_plan *p;
	struct benchfn_result *r;
};

static int time_one(void *arg, size_t fn, long round)
{
	struct run_ctx *c = arg;
	const struct benchfn_plan *p = c->p;
	if (p->progress)
		p->progress(p->progress_ctx, fn, round);
	if (benchfn_time(&p->fns[fn], p->size, c->r->loops[fn],
			 &benchfn_runs(c->r, fn, p->rounds)[round])) {
		c->r->failed = fn;
		return -1;
	}
	return 0;
}

int benchfn_run(const struct benchfn_plan *p, struct benchfn_result *r)
{
	for (size_t i = 0; i < p->nfns; i++) {
		r->loops[i] = p->loops;
		if (!p->loops &&
		    benchfn_auto_loops(&p->fns[i], p->size, p->target_ns, &r->loops[i])) {
			r->failed = i;
			return -1;
		}
	}
	struct run_ctx c = {p, r};
	return benchfn_rotate(p->nfns, p->rounds, time_one, &c);
}

double benchfn_paired_ratio(const double *a, const double *b, long rounds,
			    long *wins)
{
	if (wins)
		*wins = 0;
	if (rounds < 1)
		return NAN;
	double *ratios = malloc((size_t)rounds * sizeof *ratios);
	if (!ratios)
		return NAN;
	for (long i = 0; i < rounds; i++) {
		ratios[i] = a[i] / b[i];
		if (wins)
			*wins += a[i] > b[i];
	}
	double m = median_of(ratios, (size_t)rounds);
	free(ratios);
	return m;
}
