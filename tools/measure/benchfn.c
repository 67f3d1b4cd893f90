/* benchfn.c - the interleaved, rotated runner (see benchfn.h). */
#include "benchfn.h"

#include <math.h>
#include <stdint.h>
#include <stdlib.h>

#include "measure.h"

static size_t gcd(size_t a, size_t b)
{
	while (b) {
		size_t t = a % b;
		a = b;
		b = t;
	}
	return a;
}

/* Round r's step through the slots: the (r mod m)-th of the m numbers in
 * [1, n) coprime with n, so that each slot follows a different one from
 * round to round.  A single step (1) would always put the same callable
 * before another, and one that leaves the machine in some state (a
 * streaming store, a lowered clock) would bias its successor: at 256 KiB
 * glibc's memcpy ran 4% faster right after MOVDIR64B than elsewhere. */
static size_t round_step(size_t n, long r)
{
	size_t coprimes = 0;
	for (size_t s = 1; s < n; s++)
		coprimes += gcd(s, n) == 1;
	if (!coprimes)
		return 1;
	size_t want = (size_t)r % coprimes;
	for (size_t s = 1;; s++)
		if (gcd(s, n) == 1 && want-- == 0)
			return s;
}

int benchfn_rotate(size_t nslots, long rounds, benchfn_visit visit, void *ctx)
{
	for (long r = 0; r < rounds; r++) {
		size_t step = round_step(nslots, r);
		for (size_t k = 0; k < nslots; k++) {
			int e = visit(ctx, ((size_t)r + k * step) % nslots, r);
			if (e)
				return e;
		}
	}
	return 0;
}

/* loops calls of f; the time they took in *ns. */
static int timed_calls(const struct benchfn *f, size_t size, long loops,
		       double *ns)
{
	uint64_t t0 = ntm_now_ns();
	for (long l = 0; l < loops; l++)
		if (f->call(f->arg, size))
			return -1;
	uint64_t t = ntm_now_ns() - t0;
	*ns = (double)(t ? t : 1);
	return 0;
}

/* The untimed calls before a run of loops calls (see benchfn.h). */
static long warm_calls(size_t size, long loops, size_t settle_bytes)
{
	long warm = loops / 8 > 1 ? loops / 8 : 1;
	size_t settle = size ? (settle_bytes + size - 1) / size : 0;
	if (settle > BENCHFN_MAX_LOOPS)
		settle = BENCHFN_MAX_LOOPS;
	return (long)settle > warm ? (long)settle : warm;
}

int benchfn_time(const struct benchfn *f, size_t size, long loops,
		 size_t settle_bytes, double *gbps)
{
	double ns;
	long warm = warm_calls(size, loops, settle_bytes);
	if (timed_calls(f, size, warm, &ns) || timed_calls(f, size, loops, &ns))
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
	if (benchfn_time(&p->fns[fn], p->size, c->r->loops[fn], p->settle_bytes,
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
