/* stnp.h - AArch64 STNP of Q registers: 32 bytes with a non-temporal
 * hint, two to a 64-byte line.
 *
 * The hint tells the memory system the data will not be read again soon,
 * so it need not be cached; whether the core allocates the line anyway is
 * its own choice (implementation defined).  An STNP is ordered like any
 * other store, so publishing needs the DMB of fence.c.  ACLE has no
 * intrinsic for it (gcc 12), hence the asm. */
#ifndef NTM_STNP_H
#define NTM_STNP_H

#include <arm_neon.h>

/* The four vectors, in order, to the aligned 64-byte line at d.  The
 * memory operand tells the compiler which bytes change; the address is
 * passed apart so the second pair can use an immediate offset. */
__attribute__((always_inline)) static inline void ntm_stnp_line(
	unsigned char *d, uint8x16_t a, uint8x16_t b, uint8x16_t x, uint8x16_t y)
{
	__asm__ volatile("stnp %q2, %q3, [%1]\n\t"
			 "stnp %q4, %q5, [%1, #32]"
			 : "=m"(*(unsigned char(*)[64])(void *)d)
			 : "r"(d), "w"(a), "w"(b), "w"(x), "w"(y));
}

/* Value v in every byte of the aligned line at d. */
__attribute__((always_inline)) static inline void ntm_stnp_set_line(
	unsigned char *d, uint8x16_t v)
{
	ntm_stnp_line(d, v, v, v, v);
}

/* The line at s (any alignment) to the aligned line at d: all four loads
 * before the stores, so the pairs issue back to back. */
__attribute__((always_inline)) static inline void ntm_stnp_copy_line(
	unsigned char *d, const unsigned char *s)
{
	uint8x16_t a = vld1q_u8(s), b = vld1q_u8(s + 16);
	uint8x16_t x = vld1q_u8(s + 32), y = vld1q_u8(s + 48);
	ntm_stnp_line(d, a, b, x, y);
}

#endif
