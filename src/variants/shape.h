/* shape.h - the one loop shape every line-at-a-time variant uses.
 *
 *   head:  cached stores up to the first 64-byte boundary of dst
 *   body:  whole aligned lines: four lines per iteration, then one at a
 *          time (copies: or in another order, enum ntm_copy_shape)
 *   tail:  cached stores for what is left after the last whole line
 *
 * Spans too short to hold a whole aligned line are written entirely with
 * cached stores.  Heads and tails (under 64 bytes) are cached stores too,
 * never a call: a call into libc would cost more than the bytes.  Nothing
 * here fences; see variant.h for the contract.
 *
 * Include this file once per instance, after defining:
 *   SHAPE_ATTR             attributes of the generated functions (target)
 *   SHAPE_SET              name of the set function to define (optional)
 *   SHAPE_VALUE_T          what one line is written from
 *   SHAPE_VALUE(c)         that value for byte c
 *   SHAPE_SET_LINE(d, v)   write value v to the aligned line at d
 *   SHAPE_COPY             name of the copy function to define (optional),
 *                          line by line (NTM_SHAPE_LINES, variant.h)
 *   SHAPE_COPY_PAGES, SHAPE_COPY_AHEAD
 *                          optional, with SHAPE_COPY: names of the copies
 *                          in the other orders
 *   SHAPE_COPY_LINE(d, s)  copy a line from s (any alignment) to aligned d
 *   SHAPE_SET_PARTIAL(d, c, n), SHAPE_COPY_PARTIAL(d, s, n)
 *                          optional: cached stores of n < 64 bytes, for
 *                          the head and tail (default: word stores)
 * SHAPE_SET, SHAPE_COPY and the *_LINE macros are undefined at the end so
 * the next instance can define its own.
 */
#include <stdint.h>

#include "variant.h"

#ifndef NTM_SHAPE_WORDS
#define NTM_SHAPE_WORDS
#define SHAPE_PAGE 4096
/* The default head and tail: 8-byte stores, the last one anchored at the
 * end, then bytes only when n < 8. */
static inline void ntm_set_words(unsigned char *d, int c, size_t n)
{
	uint64_t w = 0x0101010101010101ull * (unsigned char)c;
	if (n < 8) {
		while (n--)
			*d++ = (unsigned char)c;
		return;
	}
	for (size_t i = 0; i + 8 < n; i += 8)
		__builtin_memcpy(d + i, &w, 8);
	__builtin_memcpy(d + n - 8, &w, 8);
}

static inline void ntm_copy_words(unsigned char *d, const unsigned char *s,
				  size_t n)
{
	if (n < 8) {
		while (n--)
			*d++ = *s++;
		return;
	}
	uint64_t w;
	for (size_t i = 0; i + 8 < n; i += 8) {
		__builtin_memcpy(&w, s + i, 8);
		__builtin_memcpy(d + i, &w, 8);
	}
	__builtin_memcpy(&w, s + n - 8, 8);
	__builtin_memcpy(d + n - 8, &w, 8);
}
#endif

/* Four lines from s to the aligned d. */
#define SHAPE_COPY_4_LINES(d, s)                                        \
	do {                                                            \
		SHAPE_COPY_LINE((d), (s));                              \
		SHAPE_COPY_LINE((d) + LINE, (s) + LINE);                \
		SHAPE_COPY_LINE((d) + 2 * LINE, (s) + 2 * LINE);        \
		SHAPE_COPY_LINE((d) + 3 * LINE, (s) + 3 * LINE);        \
	} while (0)

#ifndef SHAPE_SET_PARTIAL
#define SHAPE_SET_PARTIAL(d, c, n) ntm_set_words((d), (c), (n))
#endif
#ifndef SHAPE_COPY_PARTIAL
#define SHAPE_COPY_PARTIAL(d, s, n) ntm_copy_words((d), (s), (n))
#endif

#ifdef SHAPE_SET
SHAPE_ATTR static void *SHAPE_SET(void *dst, int c, size_t n)
{
	unsigned char *d = dst;
	size_t head = (size_t)(-(uintptr_t)d) & (LINE - 1);
	if (n < head + LINE) {
		SHAPE_SET_PARTIAL(d, c, n);
		return dst;
	}
	SHAPE_SET_PARTIAL(d, c, head);
	d += head;
	n -= head;

	const SHAPE_VALUE_T value = SHAPE_VALUE(c);
	unsigned char *body_end = d + (n & ~(size_t)(LINE - 1));
	for (; body_end - d >= 4 * LINE; d += 4 * LINE) {
		SHAPE_SET_LINE(d, value);
		SHAPE_SET_LINE(d + LINE, value);
		SHAPE_SET_LINE(d + 2 * LINE, value);
		SHAPE_SET_LINE(d + 3 * LINE, value);
	}
	for (; d < body_end; d += LINE)
		SHAPE_SET_LINE(d, value);

	SHAPE_SET_PARTIAL(d, c, n & (LINE - 1));
	return dst;
}
#endif

#ifdef SHAPE_COPY
#define SHAPE_CAT_(a, b) a##b
#define SHAPE_CAT(a, b) SHAPE_CAT_(a, b)
/* The copy in order shape, a constant in each caller below, which the
 * compiler folds away. */
SHAPE_ATTR static inline __attribute__((always_inline)) void *
SHAPE_CAT(SHAPE_COPY, _in)(void *dst, const void *src, size_t n,
			   enum ntm_copy_shape shape)
{
	unsigned char *d = dst;
	const unsigned char *s = src;
	size_t head = (size_t)(-(uintptr_t)d) & (LINE - 1);
	if (n < head + LINE) {
		SHAPE_COPY_PARTIAL(d, s, n);
		return dst;
	}
	SHAPE_COPY_PARTIAL(d, s, head);
	d += head;
	s += head;
	n -= head;

	unsigned char *body_end = d + (n & ~(size_t)(LINE - 1));
	/* Whole blocks of four pages: two lines from each page in turn, so
	 * four streams run at once (docs/results.md, "Streaming copies,
	 * line by line": faster on the Xeon, slower on Zen 3). */
	if (shape == NTM_SHAPE_PAGES)
		for (; body_end - d >= 4 * SHAPE_PAGE;
		     d += 4 * SHAPE_PAGE, s += 4 * SHAPE_PAGE)
			for (size_t off = 0; off < SHAPE_PAGE; off += 2 * LINE)
				for (size_t p = 0; p < 4 * SHAPE_PAGE; p += SHAPE_PAGE) {
					SHAPE_COPY_LINE(d + p + off, s + p + off);
					SHAPE_COPY_LINE(d + p + off + LINE,
							s + p + off + LINE);
				}
	/* The source read a page ahead: a source still in the L3 arrives
	 * sooner; from memory the prefetches cost more than they gain
	 * (docs/results.md, "Size mixes and peers"). */
	if (shape == NTM_SHAPE_AHEAD)
		for (; body_end - d >= 4 * LINE; d += 4 * LINE, s += 4 * LINE) {
			for (size_t l = 0; l < 4 * LINE; l += LINE)
				__builtin_prefetch(s + SHAPE_PAGE + l, 0, 3);
			SHAPE_COPY_4_LINES(d, s);
		}
	for (; body_end - d >= 4 * LINE; d += 4 * LINE, s += 4 * LINE)
		SHAPE_COPY_4_LINES(d, s);
	for (; d < body_end; d += LINE, s += LINE)
		SHAPE_COPY_LINE(d, s);

	SHAPE_COPY_PARTIAL(d, s, n & (LINE - 1));
	return dst;
}

SHAPE_ATTR static void *SHAPE_COPY(void *dst, const void *src, size_t n)
{
	return SHAPE_CAT(SHAPE_COPY, _in)(dst, src, n, NTM_SHAPE_LINES);
}
#ifdef SHAPE_COPY_PAGES
SHAPE_ATTR static void *SHAPE_COPY_PAGES(void *dst, const void *src, size_t n)
{
	return SHAPE_CAT(SHAPE_COPY, _in)(dst, src, n, NTM_SHAPE_PAGES);
}
#endif
#ifdef SHAPE_COPY_AHEAD
SHAPE_ATTR static void *SHAPE_COPY_AHEAD(void *dst, const void *src, size_t n)
{
	return SHAPE_CAT(SHAPE_COPY, _in)(dst, src, n, NTM_SHAPE_AHEAD);
}
#endif
#endif

#undef SHAPE_SET
#undef SHAPE_SET_LINE
#undef SHAPE_COPY
#undef SHAPE_COPY_PAGES
#undef SHAPE_COPY_AHEAD
#undef SHAPE_COPY_LINE
