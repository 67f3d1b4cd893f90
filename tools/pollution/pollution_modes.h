/* pollution_modes.h - "ntmem pollution" measuring: the four modes, each
 * one instance of a single skeleton (pollution_modes.c).
 *
 * A mode times something (a victim pass, a victim's rate, a re-read, a
 * round of lookups) around the aggressor, for every function and for an
 * optional control slot, in the interleaved and rotated order of
 * benchfn_rotate(), --runs times.  Each function's row then holds the
 * medians against a baseline: its own warm pass (after, concurrent) or
 * the control (reread, mixed). */
#ifndef NTM_POLLUTION_MODES_H
#define NTM_POLLUTION_MODES_H

#include <stdint.h>

#include "measure/perfcount.h"
#include "pollution_opts.h"

struct row {
	enum mode mode;
	int op;
	const struct fn *f;
	int nt;                 /* fn_streams: 1, 0, -1 unknown */
	size_t victim;          /* victim or table bytes; reread: bytes read */
	double gbps;            /* the aggressor's */
	double base_ns, with_ns, slowdown;
	double slow_min, slow_max;  /* the fastest and slowest run's with_ns
				       over the median base_ns: the plot's bars */
	double total_ms, aggr_ms, lookup_ms;  /* mixed, per round */
	int counted;            /* counters below are real */
	double miss_base, miss_with, ref_base, ref_with;  /* per victim pass */
};

struct ctx {
	const struct popts *o;
	struct buffer victim, dst, src;
	struct perfcount pc;
	struct row *rows;
	size_t nrows, cap;
	int progress;
	uint64_t idle_ns[NOPS];  /* after: the control's time, per op */
};

/* after's control: no aggressor, as long spent spinning on the clock.
 * What the victim loses to time alone (interrupts, other tenants of the
 * caches) shows there, not as any function's pollution. */
extern const struct fn pol_idle[NOPS];
int pol_is_idle(const struct fn *f);
/* "hinted": auto with the last --hot bytes as the hot region. */
extern const struct fn pol_hinted[NOPS];
int pol_is_hinted(const struct fn *f);
/* "streamread": streaming over everything, then the last --hot bytes read
 * by the caller: what any way of caching the hot region costs others. */
extern const struct fn pol_streamread[NOPS];
int pol_is_streamread(const struct fn *f);
/* One call of f (not idle) over the buffers; 0, or -1 with errno. */
int pol_run(struct ctx *c, const struct fn *f);
/* The consumer of reread and streamread: sums the 8-byte words of
 * [p, p + n). */
uint64_t pol_consume(const unsigned char *p, size_t n);

/* Samples of one slot, one per run. */
struct samples {
	double *base, *with, *gbps, *total, *aggr;
	double miss_base, miss_with, ref_base, ref_with;  /* sums */
};

/* One mode being measured for one operation and victim size. */
struct mode_run {
	struct ctx *c;
	int op;
	size_t vsize;           /* the victim (or table) size */
	size_t row_size;        /* what the rows report as their size */
	size_t nf, slots;       /* functions, and functions + control */
	const struct fn *fn[FN_MAX + 1];  /* per slot; the control's may be
					     NULL: no aggressor */
	struct samples s[FN_MAX + 1];
	int counted;            /* counters available where they are read */
	/* The modes' own state. */
	void *pos;              /* after: where the chase is */
	size_t lines, passes;
	const unsigned char *tail;
	uint64_t rng;
	void *thread;           /* concurrent: the victim thread */
};

struct mode_def {
	enum mode mode;
	int control;            /* a control slot after the functions */
	int control_row;        /* it reports a row of its own (after's idle) */
	int base_is_control;    /* rows compare with the control's result */
	/* Set up (build the chase, start a thread); 0 or -1 with e. */
	int (*start)(struct mode_run *m, struct cli_error *e);
	void (*stop)(struct mode_run *m);
	/* One measurement of slot k in run r into m->s[k]. */
	void (*sample)(struct mode_run *m, size_t k, long r);
	/* The control slot's function, when not NULL. */
	const struct fn *(*control_fn)(const struct mode_run *m);
	/* Fields of its own in a row, when not NULL. */
	void (*finish)(const struct mode_run *m, size_t k, struct row *w);
};

extern const struct mode_def pol_after, pol_concurrent, pol_reread, pol_mixed;

/* Shared by the modes (pollution_aggressors.c). */
extern volatile uintptr_t pol_sink;         /* keeps results alive */
uint64_t pol_aggress(struct ctx *c, const struct fn *f);  /* ns */
/* The first call that refused to run since pol_refused_clear(), with its
 * errno into *err (if not NULL); NULL when none did. */
const struct fn *pol_refused(int *err);
void pol_refused_clear(void);
double pol_gbps(size_t bytes, double ns);
void pol_count(const struct perf_values *a, const struct perf_values *b,
	       double *misses, double *refs);
#define POL_SEED 0x706f6c6c7574ull  /* the chase, the same every run */

/* Allocate, warm up, measure every mode asked for; fills c->rows.
 * Returns 0, or -1 with e (CLI_USAGE for a CPU it cannot run on). */
int pol_measure(struct ctx *c, struct cli_error *e);
void pol_ctx_free(struct ctx *c);

#endif
