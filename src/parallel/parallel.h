/* parallel.h - one extent's work over the worker pool: how many threads,
 * which part each gets, where each runs; and the entry points of
 * parallel and hinted calls. */
#ifndef NTM_PARALLEL_H
#define NTM_PARALLEL_H

#include <stddef.h>

#include "ntmem.h"
#include "split.h"
#include "variants/variant.h"

/* The least bytes worth a thread, unless the options or the policy say
 * otherwise.  Waking a sleeping worker costs some 5-50 us; 4 MiB take
 * 100-400 us to clear, so the wake-up stays a small part even where
 * memory is slow.  Calibration is to measure it (see parallel.c). */
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

/* ntmem_set_flags and ntmem_copy_flags with NTMEM_F_PARALLEL; ntmem.c
 * hands such calls here once the flags are checked. */
void *ntm_parallel_set(void *dst, int c, size_t n, unsigned flags);
void *ntm_parallel_copy(void *dst, const void *src, size_t n, unsigned flags);

#endif
