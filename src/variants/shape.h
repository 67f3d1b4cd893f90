/* shape.h - the one loop shape every line-at-a-time variant uses.
 *
 *   head:  cached stores up to the first 64-byte boundary of dst
 *   body:  whole aligned lines, four per iteration, then one at a time
 *   tail:  cached stores for what is left after the last whole line
 *
 * Spans too short to hold a whole aligned line are written entirely with
 * cached stores.  Heads and tails go through libc's memset and memcpy on
 * fewer than 64 bytes, which are cached stores on every libc.  Nothing
 * here fences; see variant.h for the contract.
 *
 * Include this file once per instance, after defining:
 *   SHAPE_ATTR             attributes of the generated functions (target)
 *   SHAPE_SET              name of the set function to define (optional)
 *   SHAPE_VALUE_T          what one line is written from
 *   SHAPE_VALUE(c)         that value for byte c
 *   SHAPE_SET_LINE(d, v)   write value v to the aligned line at d
 *   SHAPE_COPY             name of the copy function to define (optional)
 *   SHAPE_COPY_LINE(d, s)  copy a line from s (any alignment) to aligned d
 * SHAPE_SET, SHAPE_COPY and the *_LINE macros are undefined at the end so
 * the next instance can define its own.
 */
#include <stdint.h>
#include <string.h>

#include "../variant.h"

#ifdef SHAPE_SET
SHAPE_ATTR static void SHAPE_SET(void *dst, int c, size_t n)
{
	unsigned char *d = dst;
	size_t head = (size_t)(-(uintptr_t)d) & (LINE - 1);
	if (n < head + LINE) {
		memset(d, c, n);
		return;
	}
	memset(d, c, head);
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

	memset(d, c, n & (LINE - 1));
}
#endif

#ifdef SHAPE_COPY
SHAPE_ATTR static void SHAPE_COPY(void *dst, const void *src, size_t n)
{
	unsigned char *d = dst;
	const unsigned char *s = src;
	size_t head = (size_t)(-(uintptr_t)d) & (LINE - 1);
	if (n < head + LINE) {
		memcpy(d, s, n);
		return;
	}
	memcpy(d, s, head);
	d += head;
	s += head;
	n -= head;

	unsigned char *body_end = d + (n & ~(size_t)(LINE - 1));
	for (; body_end - d >= 4 * LINE; d += 4 * LINE, s += 4 * LINE) {
		SHAPE_COPY_LINE(d, s);
		SHAPE_COPY_LINE(d + LINE, s + LINE);
		SHAPE_COPY_LINE(d + 2 * LINE, s + 2 * LINE);
		SHAPE_COPY_LINE(d + 3 * LINE, s + 3 * LINE);
	}
	for (; d < body_end; d += LINE, s += LINE)
		SHAPE_COPY_LINE(d, s);

	memcpy(d, s, n & (LINE - 1));
}
#endif

#undef SHAPE_SET
#undef SHAPE_SET_LINE
#undef SHAPE_COPY
#undef SHAPE_COPY_LINE
