/*
 * entry_x86_64.S - the entry points and the cached vector loops, written
 * once as macros and instantiated per vector width:
 *
 *   sse2  16-byte XMM0-7
 *   avx2  32-byte YMM0-7, VZEROUPPER before returning
 *   evex  64-byte ZMM16-23 (AVX-512F/BW/VL): registers above 15 leave no
 *         dirty upper state, so no VZEROUPPER is needed, as in glibc
 *
 * Per width W:
 *   ntm_cached_set_W, ntm_cached_copy_W     the registry's vec_* variants
 *   ntm_entry_set_W, ntm_entry_copy_W       ntmem_set, ntmem_copy
 *   ntm_entry_set_flags_W, ntm_entry_copy_flags_W
 *
 * Size classes: below one vector, words and narrower vectors, two
 * overlapping stores each; up to 2, 4 and 8 vectors, that many unaligned
 * stores, half anchored at the end.  Copies load everything before they
 * store, so up to 8 vectors they are also memmove.  Beyond 8 vectors: the
 * first and last 4 vectors unaligned, aligned 4-vector stores between.
 * That is no lookup and no loop below 8 vectors, and no head or tail to
 * branch over above.  These are written in assembly because the cost of
 * a small call is a few instructions: the compiler's VZEROUPPER, its
 * choice of registers and its branch layout each cost more than that.
 *
 * The entries serve sizes above 8 vectors themselves up to ntm_inline_max
 * (set by the policy when the ladder's first rung is this width's vector
 * loop) and hand larger ones to the ladder: ntm_set_large/ntm_copy_large,
 * with flags in %ecx.  Copies above 8 vectors that overlap go to the
 * ladder too, which moves them with memmove.
 */

#define NTMEM_F_NONTEMPORAL 2

#include "variants/classes_x86_64.h"

	.text

/* Return; on the AVX2 width after clearing the upper YMM state. */
.macro RETURN vzu
	.if \vzu
	vzeroupper
	.endif
	ret
.endm

/* SET_SIZES: rdi = dst, rdx = n, \r0 = c in every byte, rax = dst.
 * Handles n <= 8 vectors and returns; larger n falls through. */
.macro SET_SIZES w, V, movu, r0, h32, h16, movh, qword, vzu
	SET_SMALL \V, \movu, \r0, \h32, \h16, \movh, \qword, %rdi, %rdx, RETURN, \vzu, .Lset_above8_\w
.Lset_above8_\w:
.endm

/* SET_LOOP: n > 8 vectors; stores everything and returns. */
.macro SET_LOOP V, movu, mova, r0, vzu
	SET_4V	\V, \movu, \r0, %rdi
	SET_4V	\V, \movu, \r0, %rdi, %rdx
	/* Aligned from within the first 4 vectors up to the last 4. */
	lea	4*\V(%rdi), %rcx
	and	$-\V, %rcx
	lea	-4*\V(%rdi,%rdx), %rdx
	SET_BLOCKS \V, \mova, \r0, %rdx
	RETURN	\vzu
.endm

/* COPY_SIZES: rdi = dst, rsi = src, rdx = n, rax = dst.  Handles
 * n <= 8 vectors (loads before stores) and returns; larger n falls
 * through. */
.macro COPY_SIZES w, V, movu, r0, r1, r2, r3, r4, r5, r6, r7, h32a, h32b, h16a, h16b, movh, vzu
	COPY_SMALL \V, \movu, \r0, \r1, \r2, \r3, \r4, \r5, \r6, \r7, \h32a, \h32b, \h16a, \h16b, \movh, %rdi, %rsi, %rdx, 0, RETURN, \vzu, .Lcopy_above8_\w
.Lcopy_above8_\w:
.endm

/* COPY_LOOP: n > 8 vectors, buffers apart; copies and returns. */
.macro COPY_LOOP V, movu, mova, r0, r1, r2, r3, r4, r5, r6, r7, vzu
	LOAD_8V	\V, \movu, \r0, \r1, \r2, \r3, \r4, \r5, \r6, \r7, %rsi, %rdx
	STORE_4V \V, \movu, \r0, \r1, \r2, \r3, %rdi
	/* rcx: aligned dst from within the first 4 vectors; r8: src - dst;
	 * r9: dst + n - 4 vectors, where the last 4 (held in r4-r7) go. */
	lea	4*\V(%rdi), %rcx
	and	$-\V, %rcx
	mov	%rsi, %r8
	sub	%rdi, %r8
	lea	-4*\V(%rdi,%rdx), %r9
	COPY_BLOCKS \V, \movu, \mova, \r0, \r1, \r2, \r3, %r9
	STORE_4V \V, \movu, \r4, \r5, \r6, \r7, %r9
	RETURN	\vzu
.endm

/* On to the ladder (ntm_set_large, ntm_copy_large) with no flags. */
.macro TO_LADDER op, vzu
	.if \vzu
	vzeroupper
	.endif
	xor	%ecx, %ecx
	jmp	ntm_\op\()_large
.endm

/* ntm_entry_OP_flags_W, flags (valid) in %ecx.  NONTEMPORAL streams at
 * any size but zero; other flags change nothing up to 8 vectors. */
.macro FLAGS_ENTRY op, w, V
FUNCTION ntm_entry_\op\()_flags_\w
	test	$NTMEM_F_NONTEMPORAL, %ecx
	jnz	1f
	test	%ecx, %ecx
	jz	ntm_entry_\op\()_\w
	cmp	$8*\V, %rdx
	jbe	ntm_entry_\op\()_\w
	jmp	ntm_\op\()_large
1:	test	%rdx, %rdx
	jnz	ntm_\op\()_large
	mov	%rdi, %rax
	ret
	.size	ntm_entry_\op\()_flags_\w, .-ntm_entry_\op\()_flags_\w
.endm

/*
 * WIDTH instantiates the six functions of one width.  bcast: a macro that
 * fills \r0 with the byte in %esi; qword: one that copies 8 bytes of
 * \r0 into the named general register.
 */
.macro WIDTH w, V, movu, mova, r0, r1, r2, r3, r4, r5, r6, r7, h32a, h32b, h16a, h16b, movh, bcast, qword, vzu

FUNCTION ntm_cached_set_\w
	mov	%rdi, %rax
	\bcast
	SET_SIZES \w\()_c, \V, \movu, \r0, \h32a, \h16a, \movh, \qword, \vzu
	SET_LOOP \V, \movu, \mova, \r0, \vzu
	.size	ntm_cached_set_\w, .-ntm_cached_set_\w

FUNCTION ntm_entry_set_\w
	mov	%rdi, %rax
	\bcast
	SET_SIZES \w\()_e, \V, \movu, \r0, \h32a, \h16a, \movh, \qword, \vzu
	cmp	ntm_inline_max(%rip), %rdx
	ja	.Lset_large_\w
	SET_LOOP \V, \movu, \mova, \r0, \vzu
.Lset_large_\w:
	TO_LADDER set, \vzu
	.size	ntm_entry_set_\w, .-ntm_entry_set_\w

	FLAGS_ENTRY set, \w, \V

FUNCTION ntm_cached_copy_\w
	mov	%rdi, %rax
	COPY_SIZES \w\()_c, \V, \movu, \r0, \r1, \r2, \r3, \r4, \r5, \r6, \r7, \h32a, \h32b, \h16a, \h16b, \movh, \vzu
	COPY_LOOP \V, \movu, \mova, \r0, \r1, \r2, \r3, \r4, \r5, \r6, \r7, \vzu
	.size	ntm_cached_copy_\w, .-ntm_cached_copy_\w

FUNCTION ntm_entry_copy_\w
	mov	%rdi, %rax
	COPY_SIZES \w\()_e, \V, \movu, \r0, \r1, \r2, \r3, \r4, \r5, \r6, \r7, \h32a, \h32b, \h16a, \h16b, \movh, \vzu
	cmp	ntm_inline_max+8(%rip), %rdx
	ja	.Lcopy_large_\w
	/* Overlap: dst - src < n or src - dst < n (unsigned). */
	mov	%rdi, %r8
	sub	%rsi, %r8
	cmp	%rdx, %r8
	jb	.Lcopy_large_\w
	mov	%rsi, %r8
	sub	%rdi, %r8
	cmp	%rdx, %r8
	jb	.Lcopy_large_\w
	COPY_LOOP \V, \movu, \mova, \r0, \r1, \r2, \r3, \r4, \r5, \r6, \r7, \vzu
.Lcopy_large_\w:
	TO_LADDER copy, \vzu
	.size	ntm_entry_copy_\w, .-ntm_entry_copy_\w

	FLAGS_ENTRY copy, \w, \V
.endm

WIDTH sse2, 16, movdqu, movdqa, %xmm0, %xmm1, %xmm2, %xmm3, %xmm4, %xmm5, %xmm6, %xmm7, none, none, none, none, movdqu, BCAST_SSE2, QWORD_SSE2, 0
WIDTH avx2, 32, vmovdqu, vmovdqa, %ymm0, %ymm1, %ymm2, %ymm3, %ymm4, %ymm5, %ymm6, %ymm7, none, none, %xmm0, %xmm1, vmovdqu, BCAST_AVX2, QWORD_AVX2, 1
WIDTH evex, 64, vmovdqu64, vmovdqa64, %zmm16, %zmm17, %zmm18, %zmm19, %zmm20, %zmm21, %zmm22, %zmm23, %ymm16, %ymm17, %xmm16, %xmm17, vmovdqu64, BCAST_EVEX, QWORD_EVEX, 0

	.section .note.GNU-stack, "", @progbits
