/* bench_mix.h - "ntmem bench memcpy|memset --mix NAME|FILE": the time per
 * call of every function over one fixed sequence of calls whose sizes
 * are drawn from a distribution (measure/sizedist.h), per distribution.
 *
 * The steps, as for the grid: bench_mix_plan (the distributions and
 * their sequences, before anything is measured, so that a bad file is a
 * usage error at once), bench_mix_measure, then a report. */
#ifndef NTM_BENCH_MIX_H
#define NTM_BENCH_MIX_H

#include "bench.h"
#include "measure/sizedist.h"

#define BENCH_MAX_MIXES 16   /* --mix all: the bundled ones of one op */

struct bench_mix_result {
	const struct fn *fn;
	long loops;                /* passes over the sequence per timed run */
	struct stats ns;           /* nanoseconds per call, over the runs */
	struct stats gbps;         /* GB/s, over the runs */
	double ratio;              /* time per call / the baseline's: the
				      median of the per-run ratios */
	long wins;                 /* runs faster than the baseline */
};

struct bench_mix {
	struct sizedist dist;
	struct mix_seq seq;
	struct bench_mix_result results[BENCH_MAX_FNS];
	size_t nresults;
};

struct bench_mixes {
	struct bench_mix mix[BENCH_MAX_MIXES];
	size_t n;
};

/* The distributions --mix names ("all": every bundled one of the op),
 * each with its sequence drawn.  Returns 0, or -1 with a usage error. */
int bench_mix_plan(const struct bench_opts *o, struct bench_mixes *m,
		   struct cli_error *e);

/* Every function over every sequence, interleaved per distribution.
 * Returns 0, or -1 with a failure (a function refused to run). */
int bench_mix_measure(struct bench_opts *o, struct bench_mixes *m,
		      struct cli_error *e);

void bench_mix_free(struct bench_mixes *m);

/* The reports (bench_mix_report.c); bench_mix_list is in bench.h. */
void bench_mix_print_table(const struct bench_opts *o,
			   const struct bench_mixes *m, const struct machine *mc);
void bench_mix_print_json(const struct bench_opts *o,
			  const struct bench_mixes *m, const struct machine *mc);

#endif
