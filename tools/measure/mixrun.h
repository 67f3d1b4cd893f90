/* mixrun.h - a function run over a whole sequence of calls of mixed sizes
 * (sizedist.h), as one callable for the runner (benchfn.h).
 *
 * One call of the callable is one pass over the sequence: MIX_CALLS
 * calls, each at its own offset into the buffers.  Give the runner
 * MIX_CALLS as the size: what it reports as GB/s is then calls per
 * nanosecond, and 1 / that the nanoseconds per call. */
#ifndef NTM_MIXRUN_H
#define NTM_MIXRUN_H

#include "benchfn.h"
#include "functions.h"
#include "peers.h"
#include "sizedist.h"

struct mix_target {
	const struct fn *f;
	unsigned char *dst;         /* seq->buffer bytes */
	const unsigned char *src;   /* memcpy's source, as many; else NULL */
	int value;                  /* what memset writes */
	const struct mix_seq *seq;
	/* Set by mix_callable: the function the shared loops call. */
	peer_set_fn *set;
	peer_copy_fn *copy;
};

/* The callable for t, which must outlive it. */
struct benchfn mix_callable(struct mix_target *t);

#endif
