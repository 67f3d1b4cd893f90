/* calibrate_time.c - "ntmem calibrate" timing candidates, as the entry
 * points call them, and saying how far it is: what both the fit's grid
 * (calibrate.c) and the rounds against the built-in ladder
 * (calibrate_confirm.c) do, below them both. */
#define _GNU_SOURCE
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "calibrate.h"
#include "introspect.h"
#include "measure/benchfn.h"

void cal_progress(const struct cal_options *o, const char *fmt, ...)
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

/* A candidate as the entry points call it: the process's ladder for the
 * operation becomes this one variant (ntm_policy_pin), and the timed
 * call is ntmem_set or ntmem_copy, dispatch and fence included.  So the
 * entry points' own loop is timed inline, and every other rung with the
 * ladder's call in front of it, as auto will run them. */
struct trial {
	const struct variant *v;
	enum ntmem_op op;
	unsigned char *dst;
	const unsigned char *src;
	int value;
};

static const struct variant *trial_in_effect[2];

static int call_trial(void *arg, size_t size)
{
	struct trial *t = arg;
	if (trial_in_effect[t->op] != t->v) {
		ntm_policy_pin(t->op, t->v);
		trial_in_effect[t->op] = t->v;
	}
	if (t->op == NTMEM_OP_SET)
		ntmem_set(t->dst, t->value, size);
	else
		ntmem_copy(t->dst, t->src, size);
	return 0;
}

/* Fresh buffers for one size, as ntmem bench makes them (destination,
 * then source, each 2 MiB aligned on 4 KiB pages): where the two lie
 * changes what is fastest (a copy between neighbouring mappings ran
 * 48 GB/s with rep movsb and 54 with AVX2 here, between buffers a GiB
 * apart 57 and 55), so calibration times what the benchmark times. */
int cal_alloc_buffers(struct buffers *b, int copy, size_t size,
			 struct cli_error *e)
{
	char why[160];
	if (buffers_alloc(b, copy, size, PAGES_4K, -1, why, sizeof why))
		return cli_error(e, CLI_FAILED, "cannot allocate %zu bytes: %s", size, why);
	return 0;
}

int cal_time_variants(const struct cal_options *o, const struct cal_class *k,
		      const int *ids, size_t n, size_t size, long rounds,
		      double *gbps, struct cli_error *e)
{
	struct trial trials[FIT_MAX_CANDS];
	struct benchfn fns[FIT_MAX_CANDS];
	long loops[FIT_MAX_CANDS];
	enum ntmem_op op = k->copy ? NTMEM_OP_COPY : NTMEM_OP_SET;
	struct buffers b;
	if (cal_alloc_buffers(&b, k->copy, size, e))
		return -1;
	for (size_t i = 0; i < n && i < FIT_MAX_CANDS; i++) {
		trials[i] = (struct trial){ntm_variant(ids[i]), op, b.dst.p, b.src.p,
					   k->value};
		fns[i] = (struct benchfn){ntm_variant(ids[i])->name, call_trial,
					  &trials[i]};
	}
	struct benchfn_plan plan = {fns, n, size, rounds, 0, cal_run_ns(o->effort, size),
				    NULL, NULL, 0};
	struct benchfn_result res = {gbps, loops, 0};
	int failed = benchfn_run(&plan, &res);
	buffers_free(&b);
	if (failed)
		return cli_error(e, CLI_FAILED, "%s failed: %s",
				 fns[res.failed].name, strerror(errno));
	return 0;
}
