/* split.h - cutting an extent into parts of about equal bytes for the
 * worker threads: pure functions, no system calls, tested on their own. */
#ifndef NTM_SPLIT_H
#define NTM_SPLIT_H

#include <stddef.h>
#include <stdint.h>

/* Most parts one call splits into: the caller and up to
 * NTM_POOL_MAX_WORKERS workers (pool.h). */
#define NTM_MAX_PARTS 64

/* A byte range of the extent, as offsets from its start. */
struct span {
	size_t off, len;
};

/* A piece of one part: the part's bytes that lie in one span. */
struct piece {
	size_t off, len;
	unsigned part;
};

/* A part is at most one piece per span: a part can straddle the gap
 * between two spans (a hot region), never more. */
#define NTM_MAX_SPANS 2
#define NTM_MAX_PIECES (NTM_MAX_PARTS + NTM_MAX_SPANS - 1)

/*
 * The grain the boundaries between parts fall on, for bytes bytes of an
 * extent at address base split into parts parts: the first of
 * candidates[] (descending powers of two) that is either small beside a
 * part (at most an eighth of it: rounding a boundary to it moves at most
 * 1/16 of a part) or that the extent is made of, whole, with one or more
 * per part; else the last candidate.  Large grains keep a huge page or a
 * NUMA page run in one thread's part; the last is at least a 64-byte line,
 * so no two threads ever write the same line.
 */
size_t ntm_split_grain(uintptr_t base, size_t bytes, unsigned parts,
		       const size_t *candidates, unsigned ncandidates);

/*
 * Split spans (ascending, disjoint, nspans <= NTM_MAX_SPANS, of an extent
 * at address base) into at most parts parts (1 .. NTM_MAX_PARTS) of about
 * equal bytes.  Each boundary between parts is the exact share rounded to
 * the nearest address that is a multiple of grain (a power of two), kept
 * inside its span and never before the boundary before it.  Parts left
 * empty are dropped, the others numbered from 0 in address order.
 *
 * Writes the pieces in address order to out[NTM_MAX_PIECES] and returns
 * their count; *nparts gets the number of parts.  Together the pieces
 * cover the spans exactly, once.
 */
size_t ntm_split(uintptr_t base, const struct span *spans, unsigned nspans,
		 unsigned parts, size_t grain, struct piece *out,
		 unsigned *nparts);

#endif
