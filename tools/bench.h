/* bench.h - the bench subcommand's options and results, shared with
 * calibrate and the tests. */
#ifndef NTM_BENCH_H
#define NTM_BENCH_H

#include <stddef.h>

#include "functions.h"
#include "measure.h"

#define BENCH_MAX_SIZES 32
#define BENCH_MAX_FNS FN_MAX
#define BENCH_MAX_RUNS 1000
#define BENCH_MAX_SKIPS 64
/* Auto loops: bench's timed runs last about 20 ms, long enough that a
 * burst of noise on a shared host averages out even at 64 KiB. */
#define BENCH_MIN_RUN_NS 20000000

struct bench_skip {
	char what[48];   /* a function name or a size */
	char why[160];
};

struct bench_result {
	const struct fn *fn;
	size_t size;
	long loops;           /* calls per timed run */
	int nontemporal;      /* 1, 0, or -1 unknown */
	struct stats stats;   /* GB/s */
	double diff_pct;      /* against the baseline at this size */
	char pages[64];
};

struct bench_opts {
	enum ntmem_op op;
	size_t sizes[BENCH_MAX_SIZES];
	size_t nsizes;
	int sizes_given;
	struct fn fns[BENCH_MAX_FNS];
	size_t nfns;
	long baseline;        /* index into fns */
	long loops, runs;     /* loops 0: auto */
	enum page_request pages;
	size_t chunk;         /* 0: the whole buffer in one call */
	int value;            /* -1: memcpy from random bytes */
	int cpu;
	int json, csv, progress;
	const char *plot;
	struct bench_skip skipped[BENCH_MAX_SKIPS];
	size_t nskipped;
	struct bench_result results[BENCH_MAX_SIZES * BENCH_MAX_FNS];
	size_t nresults;
};

/* Parse argv (argv[0] is "bench") into *o; pins to the CPU.  Exits 2
 * with a message on bad usage, 0 after --help or -f help. */
void bench_parse(int argc, char **argv, struct bench_opts *o);

/* Run every function at every size; fills o->results. */
int bench_measure(struct bench_opts *o);

/* One timed run: an untimed call of f, then loops timed calls, each over
 * size bytes in pieces of chunk (0: whole).  Returns GB/s (10^9 B/s). */
double bench_run(const struct fn *f, unsigned char *dst,
		 const unsigned char *src, size_t size, size_t chunk,
		 int value, long loops);

/* Calls per timed run for a run of about min_ns (one call when a single
 * call takes longer). */
long bench_auto_loops(const struct fn *f, unsigned char *dst,
		      const unsigned char *src, size_t size, size_t chunk,
		      int value, double min_ns);

#endif
