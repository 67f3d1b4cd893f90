/* split.c - cutting an extent into parts for the worker threads. */
#include "split.h"

size_t ntm_split_grain(uintptr_t base, size_t bytes, unsigned parts,
		       const size_t *candidates, unsigned ncandidates)
{
	size_t share = bytes / (parts ? parts : 1);
	for (unsigned i = 0; i + 1 < ncandidates; i++) {
		size_t g = candidates[i];
		if (share / 8 >= g)
			return g;
		if (base % g == 0 && bytes % g == 0 && bytes / g >= parts)
			return g;
	}
	return candidates[ncandidates - 1];
}

/* The offset of the byte at virtual position v, counting only the bytes
 * of the spans; *span_index gets the span it lies in.  v < their total. */
static size_t locate(const struct span *spans, unsigned nspans, size_t v,
		     unsigned *span_index)
{
	unsigned r = 0;
	while (r + 1 < nspans && v >= spans[r].len) {
		v -= spans[r].len;
		r++;
	}
	*span_index = r;
	return spans[r].off + v;
}

/* Offset x moved to the nearest multiple of grain in absolute addresses,
 * kept inside span s. */
static size_t round_in_span(uintptr_t base, size_t x, size_t grain,
			    const struct span *s)
{
	uintptr_t a = base + x;
	uintptr_t down = a & ~(uintptr_t)(grain - 1);
	uintptr_t up = down + grain;
	uintptr_t lo = base + s->off, hi = base + s->off + s->len;
	uintptr_t r = down;
	if (up > down && up - a <= a - down)  /* nearer up, and no wrap */
		r = up;
	if (r < lo)
		r = lo;
	if (r > hi)
		r = hi;
	return (size_t)(r - base);
}

size_t ntm_split(uintptr_t base, const struct span *spans, unsigned nspans,
		 unsigned parts, size_t grain, struct piece *out,
		 unsigned *nparts)
{
	size_t total = 0;
	for (unsigned r = 0; r < nspans; r++)
		total += spans[r].len;
	if (parts < 1)
		parts = 1;
	if (parts > NTM_MAX_PARTS)
		parts = NTM_MAX_PARTS;

	size_t bound[NTM_MAX_PARTS + 1];
	bound[0] = nspans ? spans[0].off : 0;
	bound[parts] = nspans ? spans[nspans - 1].off + spans[nspans - 1].len : 0;
	for (unsigned p = 1; p < parts; p++) {
		/* The exact share; 128-bit, as total * p can pass 2^64. */
		size_t v = (size_t)((unsigned __int128)total * p / parts);
		unsigned r;
		size_t x = locate(spans, nspans, v, &r);
		x = round_in_span(base, x, grain, &spans[r]);
		bound[p] = x < bound[p - 1] ? bound[p - 1] : x;
	}

	size_t count = 0;
	unsigned used = 0;
	for (unsigned p = 0; p < parts; p++) {
		int any = 0;
		for (unsigned r = 0; r < nspans; r++) {
			size_t lo = bound[p] > spans[r].off ? bound[p] : spans[r].off;
			size_t end = spans[r].off + spans[r].len;
			size_t hi = bound[p + 1] < end ? bound[p + 1] : end;
			if (lo >= hi)
				continue;
			out[count++] = (struct piece){lo, hi - lo, used};
			any = 1;
		}
		used += any;
	}
	*nparts = used;
	return count;
}
