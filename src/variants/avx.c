/* avx.c - 32-byte vector loops: VMOVDQA (cached) and VMOVNTDQ (streaming),
 * as in the AVX clear_page_nocache of seed 001.  Needs AVX, not AVX2. */
#include "../cpu.h"
#include "../variant.h"

#ifdef __x86_64__
#include <immintrin.h>

#define VEC_T __m256i
#define VEC_BYTES 32
#define VEC_TARGET "avx"
#define VEC_SPLAT(c) _mm256_set1_epi32((int)(0x01010101u * (unsigned char)(c)))
#define VEC_LOADU(p) _mm256_loadu_si256(p)
#define VEC_STOREU(p, v) _mm256_storeu_si256((p), (v))
#define VEC_STORE(p, v) _mm256_store_si256((p), (v))
#define VEC_SMALL_NAME "AVX stores"
#define VEC_STREAM(p, v) _mm256_stream_si256((p), (v))
#define VEC_NAME(stem) ntm_##stem##_avx
#include "vector.h"

DEFINE_FAMILY(avx,
	{.name = "vec_avx",
	 .description = "AVX VMOVDQA loop, 64 bytes a line, cached",
	 .op = NTMEM_OP_SET, .role = NTMEM_ROLE_VECTOR, .rank = 2, .requires = CPU_AVX,
	 .set = ntm_cached_set_avx},
	{.name = "nt_avx",
	 .description = "AVX VMOVNTDQ streaming stores, 32 bytes each",
	 .op = NTMEM_OP_SET, .role = NTMEM_ROLE_STREAMING, .rank = 40, .requires = CPU_AVX,
	 .set = ntm_set_nt_avx},
	{.name = "vec_avx",
	 .description = "AVX VMOVDQU loads, VMOVDQA stores, cached",
	 .op = NTMEM_OP_COPY, .role = NTMEM_ROLE_VECTOR, .rank = 2, .requires = CPU_AVX,
	 .copy = ntm_cached_copy_avx},
	{.name = "nt_avx",
	 .description = "AVX VMOVDQU loads, VMOVNTDQ streaming stores",
	 .op = NTMEM_OP_COPY, .role = NTMEM_ROLE_STREAMING, .rank = 40, .requires = CPU_AVX,
	 .copy = ntm_copy_nt_avx});
#else
DEFINE_EMPTY_FAMILY(avx);
#endif
