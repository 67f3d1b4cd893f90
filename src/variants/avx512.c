/* avx512.c - 64-byte vector loops: one VMOVDQA64 (cached) or VMOVNTDQ
 * (streaming) store per line.  Needs AVX-512F and its OS state. */
#include "features.h"
#include "variant.h"

#ifdef __x86_64__
#include <immintrin.h>

#define VEC_T __m512i
#define VEC_BYTES 64
#define VEC_TARGET "avx512f"
#define VEC_SPLAT(c) _mm512_set1_epi32((int)(0x01010101u * (unsigned char)(c)))
#define VEC_LOADU(p) _mm512_loadu_si512(p)
#define VEC_STOREU(p, v) _mm512_storeu_si512((p), (v))
#define VEC_STORE(p, v) _mm512_store_si512((p), (v))
#define VEC_STREAM(p, v) _mm512_stream_si512((p), (v))
#define VEC_NAME(stem) ntm_##stem##_avx512
#include "vector.h"

/* The cached loops are in cached_x86_64.S (ZMM16-31: no VZEROUPPER). */
void *ntm_cached_set_avx512(void *dst, int c, size_t n);
void *ntm_cached_copy_avx512(void *dst, const void *src, size_t n);

DEFINE_FAMILY(avx512,
	{.name = "vec_avx512",
	 .description = "AVX-512 VMOVDQA64 stores, cached, no loop below 512 B",
	 .op = NTMEM_OP_SET, .role = NTMEM_ROLE_VECTOR, .rank = 3,
	 .requires = CPU_AVX512F | CPU_AVX512BW | CPU_AVX512VL, .set = ntm_cached_set_avx512},
	{.name = "nt_avx512",
	 .description = "AVX-512 VMOVNTDQ streaming stores, one a line",
	 .op = NTMEM_OP_SET, .role = NTMEM_ROLE_STREAMING, .rank = 30, .requires = CPU_AVX512F,
	 .set = ntm_set_nt_avx512},
	{.name = "vec_avx512",
	 .description = "AVX-512 VMOVDQU64 loads, VMOVDQA64 stores, cached, no loop below 512 B",
	 .op = NTMEM_OP_COPY, .role = NTMEM_ROLE_VECTOR, .rank = 3,
	 .requires = CPU_AVX512F | CPU_AVX512BW | CPU_AVX512VL, .copy = ntm_cached_copy_avx512},
	{.name = "nt_avx512",
	 .description = "AVX-512 VMOVDQU64 loads, VMOVNTDQ streaming stores",
	 .op = NTMEM_OP_COPY, .role = NTMEM_ROLE_STREAMING, .rank = 30, .requires = CPU_AVX512F,
	 .copy = ntm_copy_nt_avx512});
#else
DEFINE_EMPTY_FAMILY(avx512);
#endif
