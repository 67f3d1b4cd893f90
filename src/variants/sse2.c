/* sse2.c - 16-byte vector loops: MOVDQA (cached) and MOVNTDQ (streaming),
 * as in the 2012 clear_page_nocache series (seed 001). */
#include "features.h"
#include "variant.h"

#ifdef __x86_64__
#include <immintrin.h>

#define VEC_T __m128i
#define VEC_BYTES 16
#define VEC_TARGET "sse2"
#define VEC_SPLAT(c) _mm_set1_epi32((int)(0x01010101u * (unsigned char)(c)))
#define VEC_LOADU(p) _mm_loadu_si128(p)
#define VEC_STOREU(p, v) _mm_storeu_si128((p), (v))
#define VEC_STORE(p, v) _mm_store_si128((p), (v))
#define VEC_STREAM(p, v) _mm_stream_si128((p), (v))
#define VEC_NAME(stem) ntm_##stem##_sse2
#define VEC_COPY_SHAPES  /* the best-ranked where AVX is not */
#include "vector.h"

/* The cached loops are in cached_x86_64.S. */
void *ntm_cached_set_sse2(void *dst, int c, size_t n);
void *ntm_cached_copy_sse2(void *dst, const void *src, size_t n);

DEFINE_FAMILY(sse2,
	{.name = "vec_sse2",
	 .description = "SSE2 MOVDQU/MOVDQA stores, cached, no loop below 128 B",
	 .op = NTMEM_OP_SET, .role = NTMEM_ROLE_VECTOR, .rank = 1, .requires = CPU_SSE2,
	 .set = ntm_cached_set_sse2},
	{.name = "nt_sse2",
	 .description = "SSE2 MOVNTDQ streaming stores, 16 bytes each",
	 .op = NTMEM_OP_SET, .role = NTMEM_ROLE_STREAMING, .rank = 20, .requires = CPU_SSE2,
	 .set = ntm_set_nt_sse2},
	{.name = "vec_sse2",
	 .description = "SSE2 MOVDQU loads, MOVDQA stores, cached, no loop below 128 B",
	 .op = NTMEM_OP_COPY, .role = NTMEM_ROLE_VECTOR, .rank = 1, .requires = CPU_SSE2,
	 .copy = ntm_cached_copy_sse2},
	{.name = "nt_sse2",
	 .description = "SSE2 MOVDQU loads, MOVNTDQ streaming stores",
	 .op = NTMEM_OP_COPY, .role = NTMEM_ROLE_STREAMING, .rank = 20, .requires = CPU_SSE2,
	 .copy = ntm_copy_nt_sse2},
	{.name = "nt_sse2_pages",
	 .description = "SSE2 MOVDQU loads, MOVNTDQ streaming stores, four pages at once, their lines interleaved",
	 .op = NTMEM_OP_COPY, .role = NTMEM_ROLE_STREAMING, .rank = 19, .requires = CPU_SSE2,
	 .shape = NTM_SHAPE_PAGES, .copy = ntm_copy_nt_pages_sse2},
	{.name = "nt_sse2_ahead",
	 .description = "SSE2 MOVDQU loads, MOVNTDQ streaming stores, the source read a page ahead",
	 .op = NTMEM_OP_COPY, .role = NTMEM_ROLE_STREAMING, .rank = 18, .requires = CPU_SSE2,
	 .shape = NTM_SHAPE_AHEAD, .copy = ntm_copy_nt_ahead_sse2});
#else
DEFINE_EMPTY_FAMILY(sse2);
#endif
