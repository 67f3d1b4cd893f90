/* avx.c - 32-byte vector loops: VMOVDQA (cached, AVX2 for the byte
 * broadcast) and VMOVNTDQ (streaming, AVX alone), as in the AVX
 * clear_page_nocache of seed 001. */
#include "features.h"
#include "variant.h"

#ifdef __x86_64__
#include <immintrin.h>

#define VEC_T __m256i
#define VEC_BYTES 32
#define VEC_TARGET "avx"
#define VEC_SPLAT(c) _mm256_set1_epi32((int)(0x01010101u * (unsigned char)(c)))
#define VEC_LOADU(p) _mm256_loadu_si256(p)
#define VEC_STOREU(p, v) _mm256_storeu_si256((p), (v))
#define VEC_STORE(p, v) _mm256_store_si256((p), (v))
#define VEC_STREAM(p, v) _mm256_stream_si256((p), (v))
#define VEC_NAME(stem) ntm_##stem##_avx
/* The copy in shape.h's other orders too: this family and SSE2 hold
 * the best-ranked streaming copy of every x86-64 CPU. */
#define VEC_COPY_SHAPES
#include "vector.h"

/* The cached loops are in cached_x86_64.S. */
void *ntm_cached_set_avx2(void *dst, int c, size_t n);
void *ntm_cached_copy_avx2(void *dst, const void *src, size_t n);

DEFINE_FAMILY(avx,
	{.name = "vec_avx2",
	 .description = "AVX2 VMOVDQA stores, cached, no loop below 256 B",
	 .op = NTMEM_OP_SET, .role = NTMEM_ROLE_VECTOR, .rank = 2, .requires = CPU_AVX2,
	 .set = ntm_cached_set_avx2},
	{.name = "nt_avx",
	 .description = "AVX VMOVNTDQ streaming stores, 32 bytes each",
	 .op = NTMEM_OP_SET, .role = NTMEM_ROLE_STREAMING, .rank = 40, .requires = CPU_AVX,
	 .set = ntm_set_nt_avx},
	{.name = "vec_avx2",
	 .description = "AVX2 VMOVDQU loads, VMOVDQA stores, cached, no loop below 256 B",
	 .op = NTMEM_OP_COPY, .role = NTMEM_ROLE_VECTOR, .rank = 2, .requires = CPU_AVX2,
	 .copy = ntm_cached_copy_avx2},
	{.name = "nt_avx",
	 .description = "AVX VMOVDQU loads, VMOVNTDQ streaming stores",
	 .op = NTMEM_OP_COPY, .role = NTMEM_ROLE_STREAMING, .rank = 40, .requires = CPU_AVX,
	 .copy = ntm_copy_nt_avx},
	{.name = "nt_avx_pages",
	 .description = "AVX VMOVDQU loads, VMOVNTDQ streaming stores, four pages at once, their lines interleaved",
	 .op = NTMEM_OP_COPY, .role = NTMEM_ROLE_STREAMING, .rank = 39, .requires = CPU_AVX,
	 .shape = NTM_SHAPE_PAGES, .copy = ntm_copy_nt_pages_avx},
	{.name = "nt_avx_ahead",
	 .description = "AVX VMOVDQU loads, VMOVNTDQ streaming stores, the source read a page ahead",
	 .op = NTMEM_OP_COPY, .role = NTMEM_ROLE_STREAMING, .rank = 38, .requires = CPU_AVX,
	 .shape = NTM_SHAPE_AHEAD, .copy = ntm_copy_nt_ahead_avx});
#else
DEFINE_EMPTY_FAMILY(avx);
#endif
