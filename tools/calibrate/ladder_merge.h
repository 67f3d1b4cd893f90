/* ladder_merge.h - where a calibrated ladder may replace the built-in
 * one: the pure half of "ntmem calibrate"'s last step, apart so that
 * tests can feed it made-up rounds.
 *
 * At each grid size where the fitted ladder and the built-in ladder pick
 * different variants, the two are timed against each other in two rounds,
 * one after the other over all such sizes.  The fit wins a size when in
 * both rounds the median of the paired ratios (fit over built-in) lies
 * above 1 by more than their spread and by at least MERGE_MIN_WIN; only
 * there does it replace the built-in ladder.  Calibration has fitted the
 * host's noise before (a Zen 4 calibrated to 0.885x glibc at one size,
 * and a Zen 5 VM wrote movdir64b for zeros at 32-128 MiB on 1.01-1.02x);
 * a choice that cannot beat the recorded one twice, clearly, is not worth
 * the risk. */
#ifndef NTM_LADDER_MERGE_H
#define NTM_LADDER_MERGE_H

#include <stddef.h>

#include "ntmem.h"

/* A ladder as variant ids: rung i serves [to[i-1], to[i]), the last to
 * SIZE_MAX; calibrated[i]: the rung is the fit's where the built-in
 * ladder has another variant (merge output only). */
struct merge_ladder {
	unsigned count;
	int variant[NTMEM_LADDER_MAX];
	size_t to[NTMEM_LADDER_MAX];
	int calibrated[NTMEM_LADDER_MAX];
};

/* The variant l picks for n bytes. */
int merge_pick(const struct merge_ladder *l, size_t n);

/* The least lead that wins a round, besides clearing the spread: 3%, the
 * margin within which the fit itself calls two candidates tied (MARGIN
 * in calibrate.h).  Medians of 5 interleaved runs move by 1-2% from one
 * run of calibrate to the next (docs/results.md), so a round's spread can
 * be narrower than that drift: a lead under 3% is one the next run may
 * not repeat, and replacing a recorded rung on it trades a measured
 * choice for the host's mood. */
#define MERGE_MIN_WIN 0.03

/* One round of paired ratios (fit over built-in, one per run): their
 * median into *median and their spread, the median absolute deviation
 * from it, into *spread.  Returns 1 when the fit wins the round (median
 * above 1 by more than the spread and by at least MERGE_MIN_WIN), else
 * 0. */
int merge_round_won(const double *ratios, size_t n, double *median,
		    double *spread);

/* Who serves the sizes around a grid size: the ladders agree there; the
 * fit won both rounds; or it did not, and the built-in ladder stays. */
enum merge_owner { MERGE_AGREE, MERGE_FIT, MERGE_BUILTIN };

/*
 * The ladder to write, from sizes `from` up: the fit's around the grid
 * sizes it won, the built-in ladder's everywhere else.  sizes[0..n)
 * ascend, owner[i] is sizes[i]'s.  Between two sizes the fit won (or one
 * it won and one where both agree) the fit serves; between one it won
 * and one it lost, each serves up to their geometric mean; elsewhere,
 * between agreeing sizes too, the built-in ladder, whose edges were
 * measured on full grids.  Neighbouring rungs of one variant merge.
 * Returns 0, or -1 when the result needs more than NTMEM_LADDER_MAX rungs
 * (*out is then the built-in ladder).
 */
int ladder_merge(const struct merge_ladder *fit,
		 const struct merge_ladder *builtin, const size_t *sizes,
		 const enum merge_owner *owner, size_t n, size_t from,
		 struct merge_ladder *out);

/* The two ladders serve every size from `from` up alike. */
int merge_same(const struct merge_ladder *a, const struct merge_ladder *b,
	       size_t from);

#endif
