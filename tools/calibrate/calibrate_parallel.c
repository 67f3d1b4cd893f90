/* calibrate_parallel.c - where NTMEM_F_PARALLEL starts to pay: memset of
 * zeros on one thread against every CPU allowed, interleaved, at sizes
 * doubling from 256 KiB, each with the variant the fitted ladder gives
 * that size.  The minimum chunk is the smallest size, divided by the
 * threads, from which the parallel call is at least CAL_PARALLEL_PAYS
 * times faster there and at every larger size. */
#include <stdio.h>
#include <string.h>

#include "measure/benchfn.h"
#include "calibrate.h"
#include "introspect.h"
#include "util/size.h"

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
	r->min_chunk = cal_parallel_min_chunk(r);
	return 0;
}

size_t cal_parallel_min_chunk(const struct cal_parallel *r)
{
	/* From the top down: the lowest size from which it pays throughout. */
	size_t from = r->n;
	while (from > 0 && r->ratio[from - 1] >= CAL_PARALLEL_PAYS)
		from--;
	return from < r->n && r->threads ? r->sizes[from] / r->threads : 0;
}

/* The sizes where a split pays, "at 2 MiB", "from 2 MiB to 4 MiB" or
 * "at 3 sizes from 1 MiB to 16 MiB", into buf; returns how many. */
static size_t paying_sizes(const struct cal_parallel *r, char *buf, size_t len)
{
	size_t first = r->n, last = 0, count = 0;
	char a[32], b[32];
	for (size_t i = 0; i < r->n; i++)
		if (r->ratio[i] >= CAL_PARALLEL_PAYS) {
			first = first < r->n ? first : i;
			last = i;
			count++;
		}
	if (!count)
		return 0;
	ntm_format_size(r->sizes[first], a, sizeof a);
	ntm_format_size(r->sizes[last], b, sizeof b);
	if (count == 1)
		snprintf(buf, len, "at %s", a);
	else if (count == last - first + 1)
		snprintf(buf, len, "from %s to %s", a, b);
	else
		snprintf(buf, len, "at %zu sizes from %s to %s", count, a, b);
	return count;
}

/* A least size per thread needs a size from which every larger one
 * pays: one that pays only inside the cache, as two threads often do,
 * has none, and the sentence says that rather than "never". */
void cal_parallel_words(const struct cal_parallel *r, char *buf, size_t len)
{
	char head[64], s[32], t[32], where[128];
	snprintf(head, sizeof head, "parallel memset on %u threads", r->threads);
	if (r->skipped) {
		snprintf(buf, len, "parallel memset: not measured: %s", r->skipped);
		return;
	}
	if (!r->n) {
		snprintf(buf, len, "%s: no size measured", head);
		return;
	}
	if (r->min_chunk) {
		snprintf(buf, len, "%s: pays %.1fx or more from %s up (%s a thread)",
			 head, CAL_PARALLEL_PAYS,
			 ntm_format_size(r->min_chunk * r->threads, s, sizeof s),
			 ntm_format_size(r->min_chunk, t, sizeof t));
		return;
	}
	size_t best = 0;
	for (size_t i = 1; i < r->n; i++)
		best = r->ratio[i] > r->ratio[best] ? i : best;
	ntm_format_size(r->sizes[r->n - 1], s, sizeof s);
	if (!paying_sizes(r, where, sizeof where))
		snprintf(buf, len, "%s: pays %.1fx at no size up to %s (at best %.2fx, "
			 "at %s); the built-in least bytes a thread stays", head,
			 CAL_PARALLEL_PAYS, s, r->ratio[best],
			 ntm_format_size(r->sizes[best], t, sizeof t));
	else
		snprintf(buf, len, "%s: pays %.1fx or more %s (up to %.2fx), but not "
			 "at %s, the largest size measured (%.2fx): no size pays from "
			 "there on up, so the built-in least bytes a thread stays",
			 head, CAL_PARALLEL_PAYS, where, r->ratio[best], s,
			 r->ratio[r->n - 1]);
}
