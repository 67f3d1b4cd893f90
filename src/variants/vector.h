/* vector.h - cached and streaming set and copy for one vector width.
 *
 * Before including, define:
 *   VEC_T, VEC_BYTES     the vector type and its size (a divisor of 64)
 *   VEC_TARGET           the target attribute string, e.g. "avx"
 *   VEC_SPLAT(c)         a vector with every byte equal to (unsigned char)c
 *   VEC_LOADU(p)         load from any alignment
 *   VEC_STOREU(p, v)     cached store to any alignment
 *   VEC_STORE(p, v)      aligned cached store
 *   VEC_STREAM(p, v)     aligned streaming store
 *   VEC_NAME(stem)       the function name for stem (set_vec, copy_nt, ...)
 * Defines the static functions VEC_NAME(set_nt) and VEC_NAME(copy_nt)
 * (streaming, in shape.h's loop), the cached VEC_NAME(cached_set) and
 * VEC_NAME(cached_copy) and the small path (small.h), and the entry
 * points of this width (see entry.h).
 */
#include "small.h"
#include "../entry.h"
#define VEC_PER_LINE (LINE / VEC_BYTES)

#define VEC_SET_LINE(store, d, v)                                  \
	do {                                                       \
		for (size_t vi_ = 0; vi_ < VEC_PER_LINE; vi_++)    \
			store((VEC_T *)(d) + vi_, (v));            \
	} while (0)

/* All loads of the line before any store, so the stores issue back to
 * back and fill the write-combining buffer in one go. */
#define VEC_COPY_LINE(store, d, s)                                         \
	do {                                                               \
		VEC_T line_[VEC_PER_LINE];                                 \
		for (size_t vi_ = 0; vi_ < VEC_PER_LINE; vi_++)            \
			line_[vi_] = VEC_LOADU((const VEC_T *)(s) + vi_);  \
		for (size_t vi_ = 0; vi_ < VEC_PER_LINE; vi_++)            \
			store((VEC_T *)(d) + vi_, line_[vi_]);             \
	} while (0)

#define SHAPE_ATTR __attribute__((target(VEC_TARGET)))
#define SHAPE_SET_PARTIAL(d, c, n) VEC_NAME(small_set)((d), (c), (n))
#define SHAPE_COPY_PARTIAL(d, s, n) VEC_NAME(small_copy)((d), (s), (n))
#define SHAPE_VALUE_T VEC_T
#define SHAPE_VALUE(c) VEC_SPLAT(c)

#define SHAPE_SET VEC_NAME(set_nt)
#define SHAPE_SET_LINE(d, v) VEC_SET_LINE(VEC_STREAM, d, v)
#define SHAPE_COPY VEC_NAME(copy_nt)
#define SHAPE_COPY_LINE(d, s) VEC_COPY_LINE(VEC_STREAM, d, s)
#include "shape.h"

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
	VEC_NAME(entry_copy_flags), SMALL_MAX, VEC_SMALL_NAME,
};
