/* ladder_fit.h - from measurements on a grid of sizes to a ladder: the
 * pure half of "ntmem calibrate", apart so tests can feed it made-up
 * tables.
 *
 * At each size every measured candidate has a median GB/s and a paired
 * ratio to the size's best (the median over rounds of its GB/s divided by
 * the best's in the same round).  A candidate within the noise margin of
 * 1 is tied for the win there.  Walking up the sizes, the ladder keeps its
 * current candidate while it stays tied; when it is not, it switches to
 * the tied candidate that stays tied the longest, so neighbouring sizes
 * whose winners tie merge into one rung and the rungs are as few as the
 * measurements allow.  The preferred candidate (the entry points' own
 * loop, which they run without a call) wins ties where it is tied.  A
 * one-size rung between two rungs of one candidate, which that candidate
 * serves within 1.5 margins, is taken for noise and merged away.
 */
#ifndef NTM_LADDER_FIT_H
#define NTM_LADDER_FIT_H

#include <stddef.h>

#include "ntmem.h"

#define FIT_MAX_CANDS 16
#define FIT_MAX_POINTS 32

struct fit_point {
	size_t size;
	int measured[FIT_MAX_CANDS];  /* 0: not run at this size */
	double gbps[FIT_MAX_CANDS];   /* median GB/s */
	double ratio[FIT_MAX_CANDS];  /* paired, to the best here: <= ~1 */
	long wins[FIT_MAX_CANDS];     /* rounds it beat the best in (the
					 best: rounds it beat the next) */
	long rounds;                  /* interleaved rounds measured */
};

struct fit_input {
	size_t ncands;
	int preferred;                /* candidate that wins ties, or -1 */
	const struct fit_point *points;
	size_t npoints;               /* sizes ascending */
	double margin;                /* tied: ratio >= 1 - margin */
	unsigned max_rungs;           /* at most NTMEM_LADDER_MAX */
};

struct fit_rung {
	size_t cand;
	size_t first, last;           /* the grid points it won */
	size_t to;                    /* upper edge (exclusive); SIZE_MAX */
};

struct fit_output {
	struct fit_rung rungs[NTMEM_LADDER_MAX];
	unsigned count;
	double margin;                /* the margin used: widened when the
					 measured one needed too many rungs */
};

/* Choose the ladder.  Returns 0, or -1 when some size has no measured
 * candidate at all. */
int fit_ladder(const struct fit_input *in, struct fit_output *out);

/* The edge between grid sizes a < b: their geometric mean, a multiple of
 * 64 bytes, strictly between them when they are at least 128 B apart. */
size_t fit_edge(size_t a, size_t b);

#endif
