/* calibrate.h - what "ntmem calibrate" measures and fits, shared by its
 * measuring half (calibrate.c) and its report (calibrate_report.c). */
#ifndef NTM_CALIBRATE_H
#define NTM_CALIBRATE_H

#include <stddef.h>

#include "output/cli.h"
#include "measure/functions.h"
#include "ladder_fit.h"
#include "ladder_merge.h"
#include "measure/measure.h"

struct effort {
	const char *name;
	size_t lo, hi;          /* the grid's first and largest sizes */
	size_t step;            /* each size is step times the one before */
	long rounds;            /* interleaved runs per size */
	double run_ns;          /* a timed run lasts about this long ... */
	double long_run_ns;     /* ... and this long from LONG_RUNS_FROM up */
	size_t big;             /* where the streaming variants are compared */
	int refinements;        /* bisections of each clear crossover */
};

/* From here up, timed runs last as long as ntmem bench's (20 ms): a
 * copy of 32 KiB-1 MiB with rep movsb ran 57 GB/s in 2 ms runs and 48 in
 * 20 ms ones, where AVX2 loads held 54, so shorter runs chose the method
 * that loses in the benchmark.  Below it a run holds many calls anyway. */
#define LONG_RUNS_FROM ((size_t)16 << 10)

/* Tied: within this share of the best, by the median of paired ratios
 * (medians of 5 interleaved runs here vary by 1-2%, docs/results.md). */
#define MARGIN 0.03

/* The most interleaved rounds one point takes: a near tie is measured
 * again with twice the effort's rounds (9 at most). */
#define MAX_ROUNDS 32

static inline double cal_run_ns(const struct effort *ef, size_t size)
{
	return size >= LONG_RUNS_FROM ? ef->long_run_ns : ef->run_ns;
}

/* A grid size where the fit and the built-in ladder pick different
 * variants, timed against each other in two rounds (ladder_merge.h). */
struct cal_check {
	size_t size;
	int fit, builtin;          /* variant ids */
	double median[2], spread[2]; /* per round: fit over built-in */
	int won;                   /* both rounds: the fit serves here */
};

/* A size measured between two grid sizes to place a rung's edge. */
struct cal_refinement {
	unsigned rung;          /* the edge between rung and rung + 1 */
	size_t size;
	double below, above;    /* GB/s of the lower and the upper rung's */
};

/* One call class: its candidates and what they measured. */
struct cal_class {
	enum ntmem_class cls;
	int value;              /* what memset writes */
	const char *label;      /* "memset of zeros" */
	int copy;               /* memcpy: a source buffer too */
	int entry_loop;         /* variant id the entry points run, or -1 */
	struct fn cands[FIT_MAX_CANDS];
	size_t ncands;
	int preferred;          /* cands index of entry_loop, or -1 */
	int streaming;          /* cands index of the chosen streaming one */
	struct fn picked[FIT_MAX_CANDS];  /* the streaming variants compared */
	size_t npicked;
	struct fit_point pick;  /* ... and what they measured */
	struct fit_point points[FIT_MAX_POINTS];
	size_t npoints;
	size_t nsmall;          /* points[0..nsmall): the small path's sizes,
				   not fitted; fit's indices start after */
	struct fit_output fit;
	struct cal_refinement refined[3 * NTMEM_LADDER_MAX];
	size_t nrefined;
	/* Fitted points where even twice the rounds left the best winning
	 * fewer than three rounds in four against the next: too noisy to
	 * decide, so the built-in ladder's variant there counts as tied. */
	size_t undecided[FIT_MAX_POINTS];
	size_t nundecided;
	/* Against the built-in ladder (calibrate_confirm.c): the sizes where
	 * it and the fit differ, and the ladder written, the fit only where
	 * it won both rounds. */
	struct merge_ladder builtin, fitted, written;
	struct cal_check checks[FIT_MAX_POINTS];
	size_t nchecks;
	long check_runs;           /* runs per round */
	int too_many_rungs;        /* the merge needed more than a ladder holds */
	int keeps_builtin;         /* written is the built-in ladder */
};

/* How sure a fitted rung is, over the sizes it won. */
struct cal_confidence {
	double lead;            /* the least of its median over the best
				   other's: >= 1 + MARGIN clear, else a tie */
	const char *rival;      /* the other candidate at that size */
	long wins, rounds;      /* ... and the rounds it won there */
};

/* The confidence of rung r of k. */
void cal_rung_confidence(const struct cal_class *k, unsigned r,
			 struct cal_confidence *c);

/* Where parallel calls start to pay (calibrate_parallel.c). */
struct cal_parallel {
	unsigned threads;       /* the CPUs allowed: what was compared with 1 */
	const char *skipped;    /* why nothing was measured, or NULL */
	size_t sizes[FIT_MAX_POINTS];
	double serial[FIT_MAX_POINTS], parallel[FIT_MAX_POINTS]; /* GB/s */
	double ratio[FIT_MAX_POINTS];   /* paired, parallel over serial */
	size_t n;
	size_t min_chunk;       /* bytes per thread; 0: it never paid */
};

struct cal_options {
	const struct effort *effort;
	const char *output;
	int dry_run, json, cpu, progress;
	int system;             /* --system: the system-wide profile */
	int undo;               /* --undo: remove the profile, measure nothing */
	size_t max_size;        /* --max-size, 0: the effort's */
	int entry_loop[2];      /* per op */
	size_t small_max;       /* the entry points' small path */
	size_t hi[2];           /* per op: the largest size that fit */
	struct cal_parallel parallel;
	double seconds;         /* the measuring took */
};

/* A split pays from a size when it is at least this many times faster
 * there and at every larger size measured. */
#define CAL_PARALLEL_PAYS 1.1

/* The least bytes a thread r's table sets: the smallest size from which
 * every ratio is at least CAL_PARALLEL_PAYS, over r->threads; 0: none
 * (no size measured, or the largest does not pay). */
size_t cal_parallel_min_chunk(const struct cal_parallel *r);

/* What r found, in a sentence (no newline), from its table and
 * r->min_chunk: where a split pays, or why no least size per thread was
 * set. */
void cal_parallel_words(const struct cal_parallel *r, char *buf, size_t len);

/* Measure memset of zeros on buf (hi bytes) with zero's fitted ladder. */
int cal_parallel(const struct cal_options *o, const struct cal_class *zero,
		 unsigned char *buf, size_t hi, struct cal_parallel *r,
		 struct cli_error *e);

/* A progress line on a terminal's standard error (o->progress). */
void cal_progress(const struct cal_options *o, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));

/* Fresh buffers for one size, as ntmem bench makes them
 * (calibrate_time.c); 0, or -1 with e. */
int cal_alloc_buffers(struct buffers *b, int copy, size_t size,
		      struct cli_error *e);

/* Time variants ids[0..n) at size over rounds interleaved rounds, as the
 * entry points call them: their GB/s into gbps[i * rounds + round].
 * Returns 0, or -1 with a CLI_FAILED error. */
int cal_time_variants(const struct cal_options *o, const struct cal_class *k,
		      const int *ids, size_t n, size_t size, long rounds,
		      double *gbps, struct cli_error *e);

/* Time the fit against the built-in ladder where they differ, twice, and
 * set k->written: the fit where it won both rounds, the built-in ladder
 * elsewhere.  Returns 0, or -1 with an error. */
int cal_confirm(const struct cal_options *o, struct cal_class *k,
		struct cli_error *e);

/* The profile path can be written: checked before measuring.  opt names
 * the option that gave it (NULL: the default path) in the message;
 * make_dirs: its missing directories will be made (the default and the
 * system-wide paths), else its directory must exist (--output).  Returns
 * 0, or -1 with a CLI_USAGE error. */
int cal_check_output(const char *opt, const char *path, int make_dirs,
		     struct cli_error *e);

/* What libntmem runs with no profile, in words: "the built-in entry for
 * this CPU (...)" or "the rule for CPUs not recorded". */
void cal_without_profile(char *buf, size_t len);

/* --undo: remove the profile at path (system: the system-wide one),
 * saying on stdout what was removed, or that none was there, and what
 * libntmem reads now.  Only a file that starts as a profile does is
 * removed.  Returns 0, or -1 with a CLI_FAILED error (calibrate_undo.c). */
int cal_undo(const char *path, int system, struct cli_error *e);

/* The command that undoes a calibration written to path: "ntmem
 * calibrate --undo", with --system or --output PATH as o had. */
void cal_undo_command(const struct cal_options *o, const char *path, char *buf,
		      size_t len);

/* After writing the profile at path: warn on stderr where libntmem would
 * not read it (untrusted), and for the system-wide one (system) where
 * other users' processes would not (not root's, or not readable by
 * them).  profile_check.c. */
void cal_check_written(const char *path, int system);

/* Write the three ladders to the profile at path. */
int cal_write_profile(const struct cal_options *o, const struct cal_class *k,
		      const char *path, struct cli_error *e);

/* A ladder in words: "vec_avx512 up to 8 MiB, then stosb, streams from
 * 64 MiB (nt_avx512)"; and as profiles and NTMEM_TUNABLES write it. */
void cal_words(const struct merge_ladder *l, char *buf, size_t len);
void cal_ladder_text(const struct merge_ladder *l, char *buf, size_t len);

/* What was decided for k, in a sentence: the built-in ladder kept, the
 * fit written, or both in part. */
const char *cal_outcome(const struct cal_class *k);

/* Print the report: text, or JSON with o->json (calibrate_json.c).
 * path: the profile written (or the --output of a dry run), or NULL. */
void cal_report(const struct cal_options *o, const struct cal_class *k,
		const char *path, int written);
void cal_report_json(const struct cal_options *o, const struct cal_class *k,
		     const char *path, int written);

#endif
