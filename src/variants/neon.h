/* neon.h - the AArch64 Advanced SIMD width for the templates (small.h,
 * vector.h, cached_c.h, and entry/entry_c.h through entry_neon.c): 16-byte
 * Q registers, unaligned loads and stores.
 * AArch64 only; Advanced SIMD is part of every AArch64 Linux target, so
 * the target attribute only restates the default. */
#ifndef NTM_NEON_H
#define NTM_NEON_H

#include <arm_neon.h>

#define VEC_T uint8x16_t
#define VEC_BYTES 16
#ifdef __clang__
#define VEC_TARGET "neon"
#else
#define VEC_TARGET "+simd"
#endif
#define VEC_SPLAT(c) vdupq_n_u8((uint8_t)(c))
#define VEC_LOADU(p) vld1q_u8((const uint8_t *)(const void *)(p))
#define VEC_STOREU(p, v) vst1q_u8((uint8_t *)(void *)(p), (v))
#define VEC_STORE(p, v) VEC_STOREU((p), (v))
#define VEC_NAME(stem) ntm_##stem##_neon

#endif
