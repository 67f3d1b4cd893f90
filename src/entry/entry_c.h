/* entry_c.h - the cached vector loops and the entry points of one vector
 * width, in C, for architectures without them in assembly: include after
 * vector.h, with VEC_SMALL_NAME (e.g. "NEON stores") defined.  Defines
 * VEC_NAME(cached_set), VEC_NAME(cached_copy) and the table
 * VEC_NAME(entry) of struct entry_width (src/entry/entry.h).
 */
#include "entry.h"

/* Any n: the small path up to SMALL_MAX; beyond it, one unaligned line at
 * each end and whole aligned lines between them, four per iteration.
 * The ends overlap the loop instead of being measured out byte by byte,
 * so the loop has no head or tail to branch over. */
__attribute__((target(VEC_TARGET))) static void *VEC_NAME(cached_set)(
	void *dst, int c, size_t n)
{
	unsigned char *d = dst;
	if (n <= SMALL_MAX) {
		VEC_NAME(small_set)(d, c, n);
		return dst;
	}
	const size_t V = VEC_BYTES;
	VEC_T v = VEC_SPLAT(c);
	NTM_UNROLL for (size_t i = 0; i < LINE; i += V) {
		VEC_STOREU(SMALL_AT(d, i), v);
		VEC_STOREU(SMALL_AT(d, n - LINE + i), v);
	}
	unsigned char *p = (unsigned char *)(((uintptr_t)d + LINE) & ~(uintptr_t)(LINE - 1));
	unsigned char *end = (unsigned char *)((uintptr_t)(d + n) & ~(uintptr_t)(LINE - 1));
	for (; end - p >= 4 * LINE; p += 4 * LINE)
		NTM_UNROLL for (size_t i = 0; i < 4 * LINE; i += V)
			VEC_STORE(SMALL_AT(p, i), v);
	for (; p < end; p += LINE)
		NTM_UNROLL for (size_t i = 0; i < LINE; i += V)
			VEC_STORE(SMALL_AT(p, i), v);
	return dst;
}

/* The same for copies; the buffers must not overlap. */
__attribute__((target(VEC_TARGET))) static void *VEC_NAME(cached_copy)(
	void *dst, const void *src, size_t n)
{
	unsigned char *d = dst;
	const unsigned char *s = src;
	if (n <= SMALL_MAX) {
		VEC_NAME(small_copy)(d, s, n);
		return dst;
	}
	const size_t V = VEC_BYTES;
	NTM_UNROLL for (size_t i = 0; i < LINE; i += V) {
		VEC_STOREU(SMALL_AT(d, i), VEC_LOADU(SMALL_AT_C(s, i)));
		VEC_STOREU(SMALL_AT(d, n - LINE + i),
			   VEC_LOADU(SMALL_AT_C(s, n - LINE + i)));
	}
	size_t skip = LINE - ((uintptr_t)d & (LINE - 1));
	unsigned char *p = d + skip;
	const unsigned char *q = s + skip;
	unsigned char *end = (unsigned char *)((uintptr_t)(d + n) & ~(uintptr_t)(LINE - 1));
	for (; end - p >= 4 * LINE; p += 4 * LINE, q += 4 * LINE) {
		VEC_T line[4 * LINE / VEC_BYTES];
		NTM_UNROLL for (size_t i = 0; i < 4 * LINE / V; i++)
			line[i] = VEC_LOADU(SMALL_AT_C(q, i * V));
		NTM_UNROLL for (size_t i = 0; i < 4 * LINE / V; i++)
			VEC_STORE(SMALL_AT(p, i * V), line[i]);
	}
	for (; p < end; p += LINE, q += LINE)
		NTM_UNROLL for (size_t i = 0; i < LINE; i += V)
			VEC_STORE(SMALL_AT(p, i), VEC_LOADU(SMALL_AT_C(q, i)));
	return dst;
}

/* The entry points of this width: the small path inline, the ladder
 * beyond it (ntmem.c picks a width once, by CPU, for ntmem_set & co.). */
__attribute__((target(VEC_TARGET))) void *VEC_NAME(entry_set)(void *dst, int c,
							       size_t n)
{
	if (__builtin_expect(n <= SMALL_MAX, 1)) {
		VEC_NAME(small_set)(dst, c, n);
		return dst;
	}
	return ntm_set_large(dst, c, n, 0);
}

__attribute__((target(VEC_TARGET))) void *VEC_NAME(entry_copy)(
	void *dst, const void *src, size_t n)
{
	if (__builtin_expect(n <= SMALL_MAX, 1)) {
		VEC_NAME(small_copy)(dst, src, n);
		return dst;
	}
	return ntm_copy_large(dst, src, n, 0);
}

/* flags are valid.  Only NONTEMPORAL leaves the small path: it asks for
 * streaming at any size (but an empty call streams nothing, so it does
 * not fence either). */
__attribute__((target(VEC_TARGET))) void *VEC_NAME(entry_set_flags)(
	void *dst, int c, size_t n, unsigned flags)
{
	if (n <= SMALL_MAX && (!(flags & NTMEM_F_NONTEMPORAL) || n == 0)) {
		VEC_NAME(small_set)(dst, c, n);
		return dst;
	}
	return ntm_set_large(dst, c, n, flags);
}

__attribute__((target(VEC_TARGET))) void *VEC_NAME(entry_copy_flags)(
	void *dst, const void *src, size_t n, unsigned flags)
{
	if (n <= SMALL_MAX && (!(flags & NTMEM_F_NONTEMPORAL) || n == 0)) {
		VEC_NAME(small_copy)(dst, src, n);
		return dst;
	}
	return ntm_copy_large(dst, src, n, flags);
}

const struct entry_width VEC_NAME(entry) = {
	VEC_NAME(entry_set), VEC_NAME(entry_copy), VEC_NAME(entry_set_flags),
	VEC_NAME(entry_copy_flags), SMALL_MAX, VEC_SMALL_NAME, NULL, NULL,
};
