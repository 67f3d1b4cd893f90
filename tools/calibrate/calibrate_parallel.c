/* calibrate_parallel.c - where NTMEM_F_PARALLEL starts to pay: memset of
 * zeros on one thread against every CPU allowed, interleaved, at sizes
 * doubling from 256 KiB, each with the variant the fitted ladder gives
 * that size.  The minimum chunk is the smallest size, divided by the
 * threads, from which the parallel call is at least PAYS times faster
 * there and at every larger size. */
#include <string.h>

#include "measure/benchfn.h"
#include "calibrate.h"
#include "introspect.h"
#include "util/size.h"

#define PAYS 1.1
#define FIRST ((size_t)256 << 10)

struct par_call {
	unsigned char *dst;
	unsigned threads;
};

static int call_par(void *arg, size_t size)
{
	struct par_call *p = arg;
	if (p->threads <= 1) {
		ntmem_set(p->dst, 0, size);
		return 0;
	}
	/* min_chunk 1: split at every size, to see where splitting pays. */
	struct ntmem_opts opts = {.flags = NTMEM_F_PARALLEL, .threads = p->threads,
				  .min_chunk = 1};
	return ntmem_set_opts(p->dst, 0, size, &opts) ? 0 : -1;
}

/* The variant the ladder to be written gives size. */
static const struct variant *rung_for(const struct cal_class *k, size_t size)
{
	return ntm_variant(merge_pick(&k->written, size));
}

int cal_parallel(const struct cal_options *o, const struct cal_class *zero,
		 unsigned char *buf, size_t hi, struct cal_parallel *r,
		 struct cli_error *e)
{
	struct ntmem_parallel_info pi;
	memset(r, 0, sizeof *r);
	ntmem_parallel_info(&pi);
	r->threads = pi.cpus_allowed;
	if (r->threads < 2) {
		r->skipped = "only one CPU is allowed";
		return 0;
	}
	long rounds = o->effort->rounds, loops[2];
	double gbps[2 * 16];
	for (size_t size = FIRST; size <= hi && r->n < FIT_MAX_POINTS; size *= 2) {
		struct par_call calls[2] = {{buf, 1}, {buf, r->threads}};
		struct benchfn fns[2] = {{"serial", call_par, &calls[0]},
					 {"parallel", call_par, &calls[1]}};
		struct benchfn_plan plan = {fns, 2, size, rounds, 0,
					    cal_run_ns(o->effort, size),
					    NULL, NULL, 0};
		struct benchfn_result res = {gbps, loops, 0};
		ntm_policy_pin(NTMEM_OP_SET, rung_for(zero, size));
		if (benchfn_run(&plan, &res))
			return cli_error(e, CLI_FAILED, "parallel memset failed");
		double a[16], b[16];
		memcpy(a, benchfn_runs(&res, 0, rounds), sizeof(double) * (size_t)rounds);
		memcpy(b, benchfn_runs(&res, 1, rounds), sizeof(double) * (size_t)rounds);
		r->sizes[r->n] = size;
		r->ratio[r->n] = benchfn_paired_ratio(b, a, rounds, NULL);
		r->serial[r->n] = median_of(a, (size_t)rounds);
		r->parallel[r->n] = median_of(b, (size_t)rounds);
		r->n++;
	}
	/* From the top down: the lowest size from which it pays throughout. */
	size_t from = r->n;
	while (from > 0 && r->ratio[from - 1] >= PAYS)
		from--;
	r->min_chunk = from < r->n ? r->sizes[from] / r->threads : 0;
	return 0;
}
