/* sse2.c - 16-byte vector loops: MOVDQA (cached) and MOVNTDQ (streaming),
 * as in the 2012 clear_page_nocache series (seed 001). */
#include "../cpu.h"
#include "../variant.h"

#ifdef __x86_64__
#include <immintrin.h>

#define VEC_T __m128i
#define VEC_BYTES 16
#define VEC_TARGET "sse2"
#define VEC_SPLAT(c) _mm_set1_epi32((int)(0x01010101u * (unsigned char)(c)))
#define VEC_LOADU(p) _mm_loadu_si128(p)
#define VEC_STORE(p, v) _mm_store_si128((p), (v))
#define VEC_STREAM(p, v) _mm_stream_si128((p), (v))
#define VEC_NAME(stem) ntm_##stem##_sse2
#include "vector.h"

DEFINE_FAMILY(sse2,
	{"vec_sse2", "SSE2 MOVDQA loop, 64 bytes a line, cached",
	 NTMEM_OP_SET, false, false, CPU_SSE2, ntm_set_vec_sse2, NULL},
	{"nt_sse2", "SSE2 MOVNTDQ streaming stores, 16 bytes each",
	 NTMEM_OP_SET, true, false, CPU_SSE2, ntm_set_nt_sse2, NULL},
	{"vec_sse2", "SSE2 MOVDQU loads, MOVDQA stores, cached",
	 NTMEM_OP_COPY, false, false, CPU_SSE2, NULL, ntm_copy_vec_sse2},
	{"nt_sse2", "SSE2 MOVDQU loads, MOVNTDQ streaming stores",
	 NTMEM_OP_COPY, true, false, CPU_SSE2, NULL, ntm_copy_nt_sse2});
#else
DEFINE_EMPTY_FAMILY(sse2);
#endif
