/* parallel.h - one extent's work over the worker pool: how many threads,
 * which part each gets, where each runs; parallel and hinted calls'
 * extents, and populating.  The public functions are entry/'s. */
#ifndef NTM_PARALLEL_H
#define NTM_PARALLEL_H

#include <stddef.h>

#include "ntmem.h"
#include "split.h"
#include "variants/variant.h"

/* The least bytes worth a thread, unless the options or the policy say
 * otherwise: waking a sleeping worker should cost a small part of the
 * time 4 MiB take to clear (an estimate, never measured: docs/results.md,
 * "Figures the code's comments quoted").  Calibration is to measure it
 * (see parallel.c). */
#define NTM_PARALLEL_MIN_CHUNK ((size_t)4 << 20)

struct extent_work;

/* Do the work for bytes [off, off + len) of the extent.  Returns 0 or an
 * errno value. */
typedef int piece_fn(const struct extent_work *w, size_t off, size_t len);

struct extent_work {
	piece_fn *fn;
	unsigned char *dst;         /* the extent */
	const unsigned char *src;   /* a copy's source, or NULL */
	int c;                      /* a memset's value */
	const struct variant *v;    /* what writes the parts */
};

/*
 * Run w->fn over spans (1 .. NTM_MAX_SPANS, ascending) of the extent at
 * w->dst, on up to threads threads (0: the policy's count; the caller is
 * one of them), none with less than min_chunk bytes (0: the policy's),
 * parts ending on the first fitting grain of grains[ngrains] (see
 * ntm_split_grain; the last is the smallest unit of work).  When the
 * pool cannot help (too small, in use, no threads) the calling thread
 * does it all.  Returns 0, or the errno value of the failed piece at
 * the lowest address.  Does not fence the caller's stores.
 */
int ntm_extent_run(const struct extent_work *w, const struct span *spans,
		   unsigned nspans, unsigned threads, size_t min_chunk,
		   const size_t *grains, unsigned ngrains);

/* 1 when ntmem_populate uses MADV_POPULATE_WRITE, 0 when it writes
 * (populate.c). */
int ntm_populate_writes(void);

/* For the tests: nonzero makes ntmem_populate write each page (the
 * guarded fallback) even where MADV_POPULATE_WRITE works. */
extern int ntm_populate_force_touch;

/* One clear or copy with options, as the entry points hand it here: the
 * options checked, n > 0, a copy's buffers apart. */
struct ntm_request {
	enum ntmem_op op;
	unsigned char *dst;
	const unsigned char *src;
	int c;
	size_t n;
	struct ntmem_opts o;
};

/* Does r want what this file does (a hot region, or NTMEM_F_PARALLEL and
 * enough bytes for two threads)?  Otherwise the entry points write it as
 * a plain call, at the same cost. */
int ntm_parallel_applies(const struct ntm_request *r);

/* Write r but its hot region, which the caller then writes last, cached:
 * split over threads with NTMEM_F_PARALLEL, every part with the variant
 * the selector gives the whole extent; fenced unless NTMEM_F_NOFENCE. */
void ntm_parallel_write(const struct ntm_request *r);

/* ntmem_parallel_info()'s answer but populate_write (populate.c's
 * ntm_populate_writes, which calls into this file), info not NULL. */
void ntm_parallel_describe(struct ntmem_parallel_info *info);

/* ntmem_populate_opts(), with the same contract (populate.c). */
int ntm_populate(void *addr, size_t len, const struct ntmem_opts *opts);

#endif
