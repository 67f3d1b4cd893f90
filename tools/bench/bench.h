/* bench.h - the bench subcommand: its options, its plan and results, for
 * its own files (bench.c, bench_report.c) and the tests.
 *
 * The steps, each returning errors for the command to decide on:
 * bench_parse (the command line only), bench_plan (functions, baseline,
 * sizes against memory), bench_pin, bench_measure, then a report. */
#ifndef NTM_BENCH_H
#define NTM_BENCH_H

#include <stddef.h>
#include <stdio.h>

#include "output/cli.h"
#include "measure/functions.h"
#include "measure/measure.h"

#define BENCH_MAX_SIZES 32
#define BENCH_MAX_FNS FN_MAX
#define BENCH_MAX_RUNS 1000
#define BENCH_MAX_SKIPS 64
#define BENCH_MAX_THREADS 8      /* values in a --threads list */
/* Auto loops: bench's timed runs last about 20 ms, long enough that a
 * burst of noise on a shared host averages out even at 64 KiB. */
#define BENCH_MIN_RUN_NS 20000000
/* The summary ranks methods and compares auto with them only from this
 * many runs: a difference is judged against the runs' spread, which one
 * run does not have and two barely sketch. */
#define BENCH_MIN_JUDGED_RUNS 3

struct bench_skip {
	char what[48];   /* a function name or a size */
	char why[320];   /* room for a library's path and dlerror()'s words */
};

struct bench_result {
	const struct fn *fn;
	size_t size;
	unsigned threads;     /* the call ran on this many threads */
	long loops;           /* calls per timed run */
	int nontemporal;      /* 1, 0, or -1 unknown */
	const char *dispatch; /* auto: what the policy chose; else NULL */
	struct stats stats;   /* GB/s */
	double diff_pct;      /* against the baseline at this size */
	char pages[64];
};

struct bench_opts {
	/* The command line, as bench_parse reads it. */
	enum ntmem_op op;
	size_t sizes[BENCH_MAX_SIZES];
	size_t nsizes;
	int sizes_given;
	const char *functions;    /* "all", or a comma-separated list */
	const char *baseline_name;/* NULL: the default */
	long loops, runs;         /* loops 0: auto */
	enum page_request pages;
	size_t chunk;             /* 0: the whole buffer in one call */
	int value;                /* -1: not given */
	int cpu;                  /* -1: the CPU it starts on */
	int json, csv;
	const char *plot;
	const char *mix;          /* --mix NAME|FILE (bench_mix.h); NULL: the
				     grid of sizes */
	int learned;              /* --learned: auto gets learn_calls untimed
				     calls per size it learns at first */
	unsigned long learn_calls;
	int help;                 /* --help: nothing else was checked */
	int list;                 /* -f help */

	/* The plan, from bench_plan. */
	struct fn fns[BENCH_MAX_FNS];
	size_t nfns;
	long baseline;            /* index into fns */
	unsigned threads[BENCH_MAX_THREADS];  /* each function runs on each */
	size_t nthreads;
	struct bench_skip skipped[BENCH_MAX_SKIPS];
	size_t nskipped;

	/* The measurement. */
	int progress;
	struct bench_result results[BENCH_MAX_SIZES * BENCH_MAX_FNS *
				    BENCH_MAX_THREADS];
	size_t nresults;
};

/* Read argv (argv[0] is "bench") into *o; nothing else.  Returns 0, or -1
 * with a usage error. */
int bench_parse(int argc, char **argv, struct bench_opts *o,
		struct cli_error *e);

/* The functions to run (unsupported ones noted as skipped), the baseline
 * (--baseline, else the best-ranked string-instruction variant, else
 * glibc), and the sizes that fit in memory.  Returns 0, or -1 with a
 * usage error. */
int bench_plan(struct bench_opts *o, struct cli_error *e);

/* Pin to --cpu, or to the CPU this thread is on.  Returns 0, or -1. */
int bench_pin(struct bench_opts *o, struct cli_error *e);

/* Note what was left out, and why, for the report.  Inline: planning
 * (bench.c) and measuring (bench_measure.c) both note skips, and neither
 * file calls into the other but through this header. */
static inline void bench_add_skip(struct bench_opts *o, const char *what,
				  const char *why)
{
	if (o->nskipped == BENCH_MAX_SKIPS)
		return;
	struct bench_skip *s = &o->skipped[o->nskipped++];
	snprintf(s->what, sizeof s->what, "%s", what);
	snprintf(s->why, sizeof s->why, "%s", why);
}

/* Run every function at every size; fills o->results.  Returns 0, or -1
 * with a failure (a function refused to run). */
int bench_measure(struct bench_opts *o, struct cli_error *e);

/* --learned: the untimed calls auto gets at size before it is timed (0:
 * the size does not learn). */
unsigned long bench_learn_calls(enum ntmem_op op, int value, size_t size);

/* The reports (bench_report.c; the plot, bench_plot.c). */
void bench_print_table(const struct bench_opts *o, const struct machine *m);
void bench_print_json(const struct bench_opts *o, const struct machine *m);
void bench_print_csv(const struct bench_opts *o);
/* The "skipped" array of both JSON reports (bench_report.c). */
struct json;
void bench_skipped_json(struct json *j, const struct bench_opts *o);
/* The table's last lines (bench_summary.c): per thread count, the fastest
 * method over each range of sizes with every method level with it (or,
 * from fewer than BENCH_MIN_JUDGED_RUNS runs, the highest mean alone),
 * and auto against glibc, from o's results alone.  Its first line starts
 * "# summary", its sections "# memset" or "# memcpy" (after "# on N
 * threads" where threads vary); nothing when there is no method. */
void bench_print_summary(const struct bench_opts *o, FILE *f);
/* Under a table (the grid's or --mix's): a line per function of the run
 * saying what it is, headed "# functions". */
void bench_print_function_key(const struct bench_opts *o, FILE *f);
/* A comment line of the table kept under 80 columns: text after lead,
 * broken at spaces, each further line a "#" padded to indent columns. */
void bench_put_wrapped(FILE *f, const char *lead, int indent, const char *text);
/* "0x00 written", "source of random bytes": what the run wrote. */
void bench_value_text(const struct bench_opts *o, char *buf, size_t len);
/* The page backing obtained, if the same for every size. */
const char *bench_pages_obtained(const struct bench_opts *o);
/* GB/s against size, one line per function in its own colour, and auto
 * over glibc in a panel below.  Returns 0, or -1 when nothing was
 * measured. */
int bench_write_plot(const struct bench_opts *o, const struct machine *m,
		     FILE *f);
void bench_list_functions(enum ntmem_op op);

/* --mix (bench_mix.c, whose own header has the rest): the distributions,
 * read before anything is measured (-1 with a usage error); then the
 * measurement and its report (the exit status); and --mix help. */
int bench_mix_setup(const struct bench_opts *o, struct cli_error *e);
int bench_mix_run(struct bench_opts *o);
void bench_mix_list(enum ntmem_op op);

#endif
