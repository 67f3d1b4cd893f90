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
#define VEC_STORE(p, v) _mm256_store_si256((p), (v))
#define VEC_STREAM(p, v) _mm256_stream_si256((p), (v))
#define VEC_NAME(stem) ntm_##stem##_avx
#include "vector.h"

DEFINE_FAMILY(avx,
	{"vec_avx", "AVX VMOVDQA loop, 64 bytes a line, cached",
	 NTMEM_OP_SET, false, false, CPU_AVX, ntm_set_vec_avx, NULL},
	{"nt_avx", "AVX VMOVNTDQ streaming stores, 32 bytes each",
	 NTMEM_OP_SET, true, false, CPU_AVX, ntm_set_nt_avx, NULL},
	{"vec_avx", "AVX VMOVDQU loads, VMOVDQA stores, cached",
	 NTMEM_OP_COPY, false, false, CPU_AVX, NULL, ntm_copy_vec_avx},
	{"nt_avx", "AVX VMOVDQU loads, VMOVNTDQ streaming stores",
	 NTMEM_OP_COPY, true, false, CPU_AVX, NULL, ntm_copy_nt_avx});
#else
DEFINE_EMPTY_FAMILY(avx);
#endif
