/* benchfn.h - the measuring runner every command shares.
 *
 * In the spirit of zstd's programs/benchfn.c: it knows nothing of memset
 * or memcpy, only of callables to time and the order to run them in.
 * Buffers, pinning, the clock and statistics are in measure.h.
 *
 * The method:
 *   - Rounds, interleaved and rotated.  A round runs every callable once;
 *     round r starts at callable r mod n and steps through them by a
 *     stride that changes from round to round.  Drift over the
 *     measurement (clock frequency, other tenants of the machine) then
 *     hits every callable alike, and none always follows the same
 *     neighbour.
 *   - A timed run is L / 8 untimed calls (at least one) of the same
 *     callable, which leave caches, TLB, predictors and the clock as that
 *     callable leaves them, then L timed calls.  One untimed call was not
 *     enough: a cached 16 MiB copy right after a streaming one ran 4%
 *     slower for a few milliseconds.  Where the caller names the caches'
 *     size (settle_bytes), the untimed calls also move at least that
 *     much: at 16 MiB, where L / 8 is one call, a streaming copy ran
 *     0.80x libpmem's right after it and 0.90-0.98x elsewhere, and
 *     0.95-0.99x wherever it ran once its untimed calls had moved 64 MiB.
 *     GB/s is size * L / ns (10^9 bytes per second).
 *   - L is given, or chosen per callable so that a run lasts about a
 *     target time: long enough that a burst of noise averages out.
 *
 * Typical use, comparing n functions at one size:
 *
 *     struct benchfn fns[n] = ...;
 *     double gbps[n * R];
 *     long loops[n];
 *     struct benchfn_plan p = {fns, n, size, R, 0, 20e6};
 *     struct benchfn_result r = {gbps, loops};
 *     if (benchfn_run(&p, &r)) ... fns[r.failed] refused, errno says why
 *     median_of(benchfn_runs(&r, i, R), R): function i's median GB/s
 *     benchfn_paired_ratio(runs of i, runs of j, R, &wins): i against j
 */
#ifndef NTM_BENCHFN_H
#define NTM_BENCHFN_H

#include <stddef.h>

/* A function to time: one complete operation over size bytes.  call
 * returns 0, or -1 with errno when it refused to run: a refused call did
 * nothing, and timing it would be a lie, so the runner stops. */
struct benchfn {
	const char *name;
	int (*call)(void *arg, size_t size);
	void *arg;
};

/*
 * The schedule alone, for measurements that are not a callable's GB/s
 * (pollution times its victim around the callable): for each of rounds
 * rounds, visit(ctx, slot, round) for every slot of nslots, once each,
 * in the rotated order above.  Returns 0, or the first non-zero visit() result.
 */
typedef int (*benchfn_visit)(void *ctx, size_t slot, long round);
int benchfn_rotate(size_t nslots, long rounds, benchfn_visit visit, void *ctx);

/* One timed run of f over size bytes: loops / 8 untimed calls, or as
 * many as move settle_bytes if that is more, then loops timed calls.
 * Returns 0 and *gbps, or -1 with errno when f refused. */
int benchfn_time(const struct benchfn *f, size_t size, long loops,
		 size_t settle_bytes, double *gbps);

#define BENCHFN_MAX_LOOPS 1000000

/* Calls per run for runs of about target_ns (at least 1, at most
 * BENCHFN_MAX_LOOPS): the count grows until a run lasts a quarter of the
 * target, then scales, since one cold call overestimates its own time.
 * Returns 0, or -1 with errno when f refused. */
int benchfn_auto_loops(const struct benchfn *f, size_t size, double target_ns,
		       long *loops);

struct benchfn_plan {
	const struct benchfn *fns;
	size_t nfns;
	size_t size;            /* bytes per call */
	long rounds;            /* timed runs of each function */
	long loops;             /* calls per timed run; 0: auto, per function */
	double target_ns;       /* auto: the length of a run */
	/* Called before every timed run when not NULL, for progress lines. */
	void (*progress)(void *ctx, size_t fn, long round);
	void *progress_ctx;
	/* The bytes a run's untimed calls move at least (0: loops / 8 calls
	 * alone): what the caches hold, so that every run starts from the
	 * caches as its own callable leaves them. */
	size_t settle_bytes;
};

/* Where benchfn_run puts what it measured: arrays the caller owns. */
struct benchfn_result {
	double *gbps;           /* nfns * rounds: [fn * rounds + round] */
	long *loops;            /* nfns: the calls per run each one got */
	size_t failed;          /* after an error: the function that refused */
};

/* Size the loops (unless given), then the rounds.  Returns 0, or -1 with
 * errno and r->failed when a function refused. */
int benchfn_run(const struct benchfn_plan *p, struct benchfn_result *r);

/* Function fn's GB/s, one per round. */
static inline double *benchfn_runs(const struct benchfn_result *r, size_t fn,
				   long rounds)
{
	return r->gbps + fn * (size_t)rounds;
}

/* A paired comparison of two functions timed in the same rounds: the
 * median of the per-round ratios a[r] / b[r], NAN if rounds < 1 or out of
 * memory; *wins (when not NULL) counts the rounds a won. */
double benchfn_paired_ratio(const double *a, const double *b, long rounds,
			    long *wins);

#endif
