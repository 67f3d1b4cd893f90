/* avx512.c - 64-byte vector loops: one VMOVDQA64 (cached) or VMOVNTDQ
 * (streaming) store per line.  Needs AVX-512F and its OS state. */
#include "../cpu.h"
#include "../variant.h"

#ifdef __x86_64__
#include <immintrin.h>

#define VEC_T __m512i
#define VEC_BYTES 64
#define VEC_TARGET "avx512f"
#define VEC_SPLAT(c) _mm512_set1_epi32((int)(0x01010101u * (unsigned char)(c)))
#define VEC_LOADU(p) _mm512_loadu_si512(p)
#define VEC_STORE(p, v) _mm512_store_si512((p), (v))
#define VEC_STREAM(p, v) _mm512_stream_si512((p), (v))
#define VEC_NAME(stem) ntm_##stem##_avx512
#include "vector.h"

DEFINE_FAMILY(avx512,
	{"vec_avx512", "AVX-512 VMOVDQA64 loop, one store a line, cached",
	 NTMEM_OP_SET, false, false, CPU_AVX512F, ntm_set_vec_avx512, NULL},
	{"nt_avx512", "AVX-512 VMOVNTDQ streaming stores, one a line",
	 NTMEM_OP_SET, true, false, CPU_AVX512F, ntm_set_nt_avx512, NULL},
	{"vec_avx512", "AVX-512 VMOVDQU64 loads, VMOVDQA64 stores, cached",
	 NTMEM_OP_COPY, false, false, CPU_AVX512F, NULL, ntm_copy_vec_avx512},
	{"nt_avx512", "AVX-512 VMOVDQU64 loads, VMOVNTDQ streaming stores",
	 NTMEM_OP_COPY, true, false, CPU_AVX512F, NULL, ntm_copy_nt_avx512});
#else
DEFINE_EMPTY_FAMILY(avx512);
#endif
