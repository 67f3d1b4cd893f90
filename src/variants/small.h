/* small.h - set and copy of up to SMALL_MAX bytes with overlapping
 * unaligned vector stores: the small path of the entry points, and the
 * partial lines around the variants' loops.
 *
 * No loop and no lookup: a size class picks two, four or eight vector
 * stores, the second half of them anchored at the end, so that any n in
 * the class is covered with overlap.  Copies load everything before they
 * store anything, so they give memmove's result too.
 *
 * Include after the VEC_* macros of vector.h (VEC_T, VEC_BYTES,
 * VEC_TARGET, VEC_SPLAT, VEC_LOADU, VEC_NAME) and VEC_STOREU(p, v).
 * Defines VEC_NAME(small_set) and VEC_NAME(small_copy), and SMALL_MAX.
 */
#include <stdint.h>

#include "features.h"

#define SMALL_MAX (NTM_SMALL_VECTORS * VEC_BYTES)  /* features.h */

/* Loops over the vectors of a line are fixed-count: unroll them fully,
 * or a 16-byte width runs four times the branches it needs. */
#ifndef NTM_UNROLL
#define NTM_UNROLL _Pragma("GCC unroll 16")
#endif

#ifndef NTM_SMALL_SCALAR
#define NTM_SMALL_SCALAR
/* Below 16 bytes: two overlapping stores of the widest word that fits.
 * __builtin_memcpy of a constant size is one move, even with -fno-builtin. */
static inline void ntm_set_below16(unsigned char *d, int c, size_t n)
{
	uint64_t w = 0x0101010101010101ull * (unsigned char)c;
	if (n >= 8) {
		__builtin_memcpy(d, &w, 8);
		__builtin_memcpy(d + n - 8, &w, 8);
	} else if (n >= 4) {
		__builtin_memcpy(d, &w, 4);
		__builtin_memcpy(d + n - 4, &w, 4);
	} else if (n >= 2) {
		__builtin_memcpy(d, &w, 2);
		__builtin_memcpy(d + n - 2, &w, 2);
	} else if (n) {
		*d = (unsigned char)c;
	}
}

static inline void ntm_copy_below16(unsigned char *d, const unsigned char *s,
				    size_t n)
{
	if (n >= 8) {
		uint64_t a, b;
		__builtin_memcpy(&a, s, 8);
		__builtin_memcpy(&b, s + n - 8, 8);
		__builtin_memcpy(d, &a, 8);
		__builtin_memcpy(d + n - 8, &b, 8);
	} else if (n >= 4) {
		uint32_t a, b;
		__builtin_memcpy(&a, s, 4);
		__builtin_memcpy(&b, s + n - 4, 4);
		__builtin_memcpy(d, &a, 4);
		__builtin_memcpy(d + n - 4, &b, 4);
	} else if (n >= 2) {
		uint16_t a, b;
		__builtin_memcpy(&a, s, 2);
		__builtin_memcpy(&b, s + n - 2, 2);
		__builtin_memcpy(d, &a, 2);
		__builtin_memcpy(d + n - 2, &b, 2);
	} else if (n) {
		*d = *s;
	}
}
#endif

/* Below one vector: halve the width until it fits, then words. */
__attribute__((target(VEC_TARGET), always_inline)) static inline void
VEC_NAME(set_below_vec)(unsigned char *d, int c, size_t n)
{
#if VEC_BYTES > 32
	if (n >= 32) {
		__m256i v = _mm256_set1_epi8((char)c);
		_mm256_storeu_si256((__m256i *)(void *)d, v);
		_mm256_storeu_si256((__m256i *)(void *)(d + n - 32), v);
		return;
	}
#endif
#if VEC_BYTES > 16
	if (n >= 16) {
		__m128i v = _mm_set1_epi8((char)c);
		_mm_storeu_si128((__m128i *)(void *)d, v);
		_mm_storeu_si128((__m128i *)(void *)(d + n - 16), v);
		return;
	}
#endif
	ntm_set_below16(d, c, n);
}

__attribute__((target(VEC_TARGET), always_inline)) static inline void
VEC_NAME(copy_below_vec)(unsigned char *d, const unsigned char *s, size_t n)
{
#if VEC_BYTES > 32
	if (n >= 32) {
		__m256i a = _mm256_loadu_si256((const __m256i *)(const void *)s);
		__m256i b = _mm256_loadu_si256(
			(const __m256i *)(const void *)(s + n - 32));
		_mm256_storeu_si256((__m256i *)(void *)d, a);
		_mm256_storeu_si256((__m256i *)(void *)(d + n - 32), b);
		return;
	}
#endif
#if VEC_BYTES > 16
	if (n >= 16) {
		__m128i a = _mm_loadu_si128((const __m128i *)(const void *)s);
		__m128i b = _mm_loadu_si128((const __m128i *)(const void *)(s + n - 16));
		_mm_storeu_si128((__m128i *)(void *)d, a);
		_mm_storeu_si128((__m128i *)(void *)(d + n - 16), b);
		return;
	}
#endif
	ntm_copy_below16(d, s, n);
}

#define SMALL_AT(p, i) ((VEC_T *)(void *)((p) + (i)))
#define SMALL_AT_C(p, i) ((const VEC_T *)(const void *)((p) + (i)))

/* n <= SMALL_MAX. */
__attribute__((target(VEC_TARGET), always_inline)) static inline void
VEC_NAME(small_set)(unsigned char *d, int c, size_t n)
{
	const size_t V = VEC_BYTES;
	if (n < V) {
		VEC_NAME(set_below_vec)(d, c, n);
		return;
	}
	VEC_T v = VEC_SPLAT(c);
	VEC_STOREU(SMALL_AT(d, 0), v);
	VEC_STOREU(SMALL_AT(d, n - V), v);
	if (n <= 2 * V)
		return;
	VEC_STOREU(SMALL_AT(d, V), v);
	VEC_STOREU(SMALL_AT(d, n - 2 * V), v);
	if (n <= 4 * V)
		return;
	VEC_STOREU(SMALL_AT(d, 2 * V), v);
	VEC_STOREU(SMALL_AT(d, 3 * V), v);
	VEC_STOREU(SMALL_AT(d, n - 4 * V), v);
	VEC_STOREU(SMALL_AT(d, n - 3 * V), v);
}

/* n <= SMALL_MAX; src and dst may overlap. */
__attribute__((target(VEC_TARGET), always_inline)) static inline void
VEC_NAME(small_copy)(unsigned char *d, const unsigned char *s, size_t n)
{
	const size_t V = VEC_BYTES;
	if (n < V) {
		VEC_NAME(copy_below_vec)(d, s, n);
		return;
	}
	if (n <= 2 * V) {
		VEC_T a = VEC_LOADU(SMALL_AT_C(s, 0));
		VEC_T b = VEC_LOADU(SMALL_AT_C(s, n - V));
		VEC_STOREU(SMALL_AT(d, 0), a);
		VEC_STOREU(SMALL_AT(d, n - V), b);
		return;
	}
	if (n <= 4 * V) {
		VEC_T a = VEC_LOADU(SMALL_AT_C(s, 0));
		VEC_T b = VEC_LOADU(SMALL_AT_C(s, V));
		VEC_T y = VEC_LOADU(SMALL_AT_C(s, n - 2 * V));
		VEC_T z = VEC_LOADU(SMALL_AT_C(s, n - V));
		VEC_STOREU(SMALL_AT(d, 0), a);
		VEC_STOREU(SMALL_AT(d, V), b);
		VEC_STOREU(SMALL_AT(d, n - 2 * V), y);
		VEC_STOREU(SMALL_AT(d, n - V), z);
		return;
	}
	VEC_T a = VEC_LOADU(SMALL_AT_C(s, 0));
	VEC_T b = VEC_LOADU(SMALL_AT_C(s, V));
	VEC_T e = VEC_LOADU(SMALL_AT_C(s, 2 * V));
	VEC_T f = VEC_LOADU(SMALL_AT_C(s, 3 * V));
	VEC_T w = VEC_LOADU(SMALL_AT_C(s, n - 4 * V));
	VEC_T x = VEC_LOADU(SMALL_AT_C(s, n - 3 * V));
	VEC_T y = VEC_LOADU(SMALL_AT_C(s, n - 2 * V));
	VEC_T z = VEC_LOADU(SMALL_AT_C(s, n - V));
	VEC_STOREU(SMALL_AT(d, 0), a);
	VEC_STOREU(SMALL_AT(d, V), b);
	VEC_STOREU(SMALL_AT(d, 2 * V), e);
	VEC_STOREU(SMALL_AT(d, 3 * V), f);
	VEC_STOREU(SMALL_AT(d, n - 4 * V), w);
	VEC_STOREU(SMALL_AT(d, n - 3 * V), x);
	VEC_STOREU(SMALL_AT(d, n - 2 * V), y);
	VEC_STOREU(SMALL_AT(d, n - V), z);
}
