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

	.text

/* Return; on the AVX2 width after clearing the upper YMM state. */
.macro RETURN vzu
	.if \vzu
	vzeroupper
	.endif
	ret
.endm

.macro FUNCTION name
	.globl	\name
	.hidden	\name
	.type	\name, @function
	.p2align 6
\name:
.endm

/*
 * SET_SIZES: rdi = dst, rdx = n, \r0 = c in every byte, rax = dst.
 * Handles n <= 8 vectors and returns; larger n falls through.
 */
.macro SET_SIZES w, V, movu, r0, h32, h16, movh, gpr_from, vzu
	cmp	$\V, %rdx
	jb	.Lset_below_\w
	cmp	$2*\V, %rdx
	ja	.Lset_above2_\w
	\movu	\r0, (%rdi)
	\movu	\r0, -\V(%rdi,%rdx)
	RETURN	\vzu
.Lset_above2_\w:
	/* Each class returns from its own fall-through: one taken branch
	 * on the way, as many as glibc's memset takes. */
	cmp	$4*\V, %rdx
	ja	.Lset_above4_\w
	\movu	\r0, (%rdi)
	\movu	\r0, \V(%rdi)
	\movu	\r0, -2*\V(%rdi,%rdx)
	\movu	\r0, -\V(%rdi,%rdx)
	RETURN	\vzu
.Lset_above4_\w:
	cmp	$8*\V, %rdx
	ja	.Lset_above8_\w
	\movu	\r0, (%rdi)
	\movu	\r0, \V(%rdi)
	\movu	\r0, 2*\V(%rdi)
	\movu	\r0, 3*\V(%rdi)
	\movu	\r0, -4*\V(%rdi,%rdx)
	\movu	\r0, -3*\V(%rdi,%rdx)
	\movu	\r0, -2*\V(%rdi,%rdx)
	\movu	\r0, -\V(%rdi,%rdx)
	RETURN	\vzu
.Lset_below_\w:
	.if \V > 32
	cmp	$32, %rdx
	jb	.Lset_below32_\w
	vmovdqu64 \h32, (%rdi)
	vmovdqu64 \h32, -32(%rdi,%rdx)
	RETURN	\vzu
.Lset_below32_\w:
	.endif
	.if \V > 16
	cmp	$16, %rdx
	jb	.Lset_below16_\w
	\movh	\h16, (%rdi)
	\movh	\h16, -16(%rdi,%rdx)
	RETURN	\vzu
.Lset_below16_\w:
	.endif
	\gpr_from %rcx
	cmp	$8, %rdx
	jb	.Lset_below8_\w
	mov	%rcx, (%rdi)
	mov	%rcx, -8(%rdi,%rdx)
	RETURN	\vzu
.Lset_below8_\w:
	cmp	$4, %rdx
	jb	.Lset_below4_\w
	mov	%ecx, (%rdi)
	mov	%ecx, -4(%rdi,%rdx)
	RETURN	\vzu
.Lset_below4_\w:
	cmp	$2, %rdx
	jb	.Lset_below2_\w
	mov	%cx, (%rdi)
	mov	%cx, -2(%rdi,%rdx)
	RETURN	\vzu
.Lset_below2_\w:
	test	%rdx, %rdx
	jz	.Lset_none_\w
	mov	%cl, (%rdi)
.Lset_none_\w:
	RETURN	\vzu
.Lset_above8_\w:
.endm

/* SET_LOOP: n > 8 vectors; stores everything and returns. */
.macro SET_LOOP w, V, movu, mova, r0, vzu
	\movu	\r0, (%rdi)
	\movu	\r0, \V(%rdi)
	\movu	\r0, 2*\V(%rdi)
	\movu	\r0, 3*\V(%rdi)
	\movu	\r0, -4*\V(%rdi,%rdx)
	\movu	\r0, -3*\V(%rdi,%rdx)
	\movu	\r0, -2*\V(%rdi,%rdx)
	\movu	\r0, -\V(%rdi,%rdx)
	/* Aligned from within the first 4 vectors up to the last 4. */
	lea	4*\V(%rdi), %rcx
	and	$-\V, %rcx
	lea	-4*\V(%rdi,%rdx), %rdx
	.p2align 4
.Lset_loop_\w:
	\mova	\r0, (%rcx)
	\mova	\r0, \V(%rcx)
	\mova	\r0, 2*\V(%rcx)
	\mova	\r0, 3*\V(%rcx)
	add	$4*\V, %rcx
	cmp	%rdx, %rcx
	jb	.Lset_loop_\w
	RETURN	\vzu
.endm

/*
 * COPY_SIZES: rdi = dst, rsi = src, rdx = n, rax = dst.  Handles
 * n <= 8 vectors (loads before stores) and returns; larger n falls
 * through.
 */
.macro COPY_SIZES w, V, movu, r0, r1, r2, r3, r4, r5, r6, r7, h32a, h32b, h16a, h16b, movh, vzu
	cmp	$\V, %rdx
	jb	.Lcopy_below_\w
	cmp	$2*\V, %rdx
	ja	.Lcopy_above2_\w
	\movu	(%rsi), \r0
	\movu	-\V(%rsi,%rdx), \r1
	\movu	\r0, (%rdi)
	\movu	\r1, -\V(%rdi,%rdx)
	RETURN	\vzu
.Lcopy_above2_\w:
	cmp	$4*\V, %rdx
	ja	.Lcopy_above4_\w
	\movu	(%rsi), \r0
	\movu	\V(%rsi), \r1
	\movu	-2*\V(%rsi,%rdx), \r2
	\movu	-\V(%rsi,%rdx), \r3
	\movu	\r0, (%rdi)
	\movu	\r1, \V(%rdi)
	\movu	\r2, -2*\V(%rdi,%rdx)
	\movu	\r3, -\V(%rdi,%rdx)
	RETURN	\vzu
.Lcopy_above4_\w:
	cmp	$8*\V, %rdx
	ja	.Lcopy_above8_\w
	\movu	(%rsi), \r0
	\movu	\V(%rsi), \r1
	\movu	2*\V(%rsi), \r2
	\movu	3*\V(%rsi), \r3
	\movu	-4*\V(%rsi,%rdx), \r4
	\movu	-3*\V(%rsi,%rdx), \r5
	\movu	-2*\V(%rsi,%rdx), \r6
	\movu	-\V(%rsi,%rdx), \r7
	\movu	\r0, (%rdi)
	\movu	\r1, \V(%rdi)
	\movu	\r2, 2*\V(%rdi)
	\movu	\r3, 3*\V(%rdi)
	\movu	\r4, -4*\V(%rdi,%rdx)
	\movu	\r5, -3*\V(%rdi,%rdx)
	\movu	\r6, -2*\V(%rdi,%rdx)
	\movu	\r7, -\V(%rdi,%rdx)
	RETURN	\vzu
.Lcopy_below_\w:
	.if \V > 32
	cmp	$32, %rdx
	jb	.Lcopy_below32_\w
	vmovdqu64 (%rsi), \h32a
	vmovdqu64 -32(%rsi,%rdx), \h32b
	vmovdqu64 \h32a, (%rdi)
	vmovdqu64 \h32b, -32(%rdi,%rdx)
	RETURN	\vzu
.Lcopy_below32_\w:
	.endif
	.if \V > 16
	cmp	$16, %rdx
	jb	.Lcopy_below16_\w
	\movh	(%rsi), \h16a
	\movh	-16(%rsi,%rdx), \h16b
	\movh	\h16a, (%rdi)
	\movh	\h16b, -16(%rdi,%rdx)
	RETURN	\vzu
.Lcopy_below16_\w:
	.endif
	cmp	$8, %rdx
	jb	.Lcopy_below8_\w
	mov	(%rsi), %rcx
	mov	-8(%rsi,%rdx), %r8
	mov	%rcx, (%rdi)
	mov	%r8, -8(%rdi,%rdx)
	RETURN	\vzu
.Lcopy_below8_\w:
	cmp	$4, %rdx
	jb	.Lcopy_below4_\w
	mov	(%rsi), %ecx
	mov	-4(%rsi,%rdx), %r8d
	mov	%ecx, (%rdi)
	mov	%r8d, -4(%rdi,%rdx)
	RETURN	\vzu
.Lcopy_below4_\w:
	cmp	$2, %rdx
	jb	.Lcopy_below2_\w
	movzwl	(%rsi), %ecx
	movzwl	-2(%rsi,%rdx), %r8d
	mov	%cx, (%rdi)
	mov	%r8w, -2(%rdi,%rdx)
	RETURN	\vzu
.Lcopy_below2_\w:
	test	%rdx, %rdx
	jz	.Lcopy_none_\w
	movzbl	(%rsi), %ecx
	mov	%cl, (%rdi)
.Lcopy_none_\w:
	RETURN	\vzu
.Lcopy_above8_\w:
.endm

/* COPY_LOOP: n > 8 vectors, buffers apart; copies and returns. */
.macro COPY_LOOP w, V, movu, mova, r0, r1, r2, r3, r4, r5, r6, r7, vzu
	\movu	(%rsi), \r0
	\movu	\V(%rsi), \r1
	\movu	2*\V(%rsi), \r2
	\movu	3*\V(%rsi), \r3
	\movu	-4*\V(%rsi,%rdx), \r4
	\movu	-3*\V(%rsi,%rdx), \r5
	\movu	-2*\V(%rsi,%rdx), \r6
	\movu	-\V(%rsi,%rdx), \r7
	\movu	\r0, (%rdi)
	\movu	\r1, \V(%rdi)
	\movu	\r2, 2*\V(%rdi)
	\movu	\r3, 3*\V(%rdi)
	/* rcx: aligned dst from within the first 4 vectors; r8: src - dst;
	 * r9: dst + n - 4 vectors, where the last 4 (held in r4-r7) go. */
	lea	4*\V(%rdi), %rcx
	and	$-\V, %rcx
	mov	%rsi, %r8
	sub	%rdi, %r8
	lea	-4*\V(%rdi,%rdx), %r9
	.p2align 4
.Lcopy_loop_\w:
	\movu	(%rcx,%r8), \r0
	\movu	\V(%rcx,%r8), \r1
	\movu	2*\V(%rcx,%r8), \r2
	\movu	3*\V(%rcx,%r8), \r3
	\mova	\r0, (%rcx)
	\mova	\r1, \V(%rcx)
	\mova	\r2, 2*\V(%rcx)
	\mova	\r3, 3*\V(%rcx)
	add	$4*\V, %rcx
	cmp	%r9, %rcx
	jb	.Lcopy_loop_\w
	\movu	\r4, (%r9)
	\movu	\r5, \V(%r9)
	\movu	\r6, 2*\V(%r9)
	\movu	\r7, 3*\V(%r9)
	RETURN	\vzu
.endm

/*
 * WIDTH instantiates the six functions of one width.  bcast: a macro that
 * fills \r0 with the byte in %esi; gpr_from: one that copies 8 bytes of
 * \r0 into the named general register.
 */
.macro WIDTH w, V, movu, mova, r0, r1, r2, r3, r4, r5, r6, r7, h32a, h32b, h16a, h16b, movh, bcast, gpr_from, vzu

FUNCTION ntm_cached_set_\w
	mov	%rdi, %rax
	\bcast
	SET_SIZES \w\()_c, \V, \movu, \r0, \h32a, \h16a, \movh, \gpr_from, \vzu
	SET_LOOP \w\()_c, \V, \movu, \mova, \r0, \vzu
	.size	ntm_cached_set_\w, .-ntm_cached_set_\w

FUNCTION ntm_entry_set_\w
	mov	%rdi, %rax
	\bcast
	SET_SIZES \w\()_e, \V, \movu, \r0, \h32a, \h16a, \movh, \gpr_from, \vzu
	cmp	ntm_inline_max(%rip), %rdx
	ja	.Lset_large_\w
	SET_LOOP \w\()_e, \V, \movu, \mova, \r0, \vzu
.Lset_large_\w:
	.if \vzu
	vzeroupper
	.endif
	xor	%ecx, %ecx
	jmp	ntm_set_large
	.size	ntm_entry_set_\w, .-ntm_entry_set_\w

/* flags (valid) in %ecx.  NONTEMPORAL streams at any size but zero;
 * other flags change nothing up to 8 vectors. */
FUNCTION ntm_entry_set_flags_\w
	test	$NTMEM_F_NONTEMPORAL, %ecx
	jnz	1f
	test	%ecx, %ecx
	jz	ntm_entry_set_\w
	cmp	$8*\V, %rdx
	jbe	ntm_entry_set_\w
	jmp	ntm_set_large
1:	test	%rdx, %rdx
	jnz	ntm_set_large
	mov	%rdi, %rax
	ret
	.size	ntm_entry_set_flags_\w, .-ntm_entry_set_flags_\w

FUNCTION ntm_cached_copy_\w
	mov	%rdi, %rax
	COPY_SIZES \w\()_c, \V, \movu, \r0, \r1, \r2, \r3, \r4, \r5, \r6, \r7, \h32a, \h32b, \h16a, \h16b, \movh, \vzu
	COPY_LOOP \w\()_c, \V, \movu, \mova, \r0, \r1, \r2, \r3, \r4, \r5, \r6, \r7, \vzu
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
	COPY_LOOP \w\()_e, \V, \movu, \mova, \r0, \r1, \r2, \r3, \r4, \r5, \r6, \r7, \vzu
.Lcopy_large_\w:
	.if \vzu
	vzeroupper
	.endif
	xor	%ecx, %ecx
	jmp	ntm_copy_large
	.size	ntm_entry_copy_\w, .-ntm_entry_copy_\w

FUNCTION ntm_entry_copy_flags_\w
	test	$NTMEM_F_NONTEMPORAL, %ecx
	jnz	1f
	test	%ecx, %ecx
	jz	ntm_entry_copy_\w
	cmp	$8*\V, %rdx
	jbe	ntm_entry_copy_\w
	jmp	ntm_copy_large
1:	test	%rdx, %rdx
	jnz	ntm_copy_large
	mov	%rdi, %rax
	ret
	.size	ntm_entry_copy_flags_\w, .-ntm_entry_copy_flags_\w
.endm

/* Broadcasts of the byte in %esi, and 8 of those bytes into a GPR. */
.macro BCAST_SSE2
	movzbl	%sil, %ecx
	imul	$0x01010101, %ecx, %ecx
	movd	%ecx, %xmm0
	pshufd	$0, %xmm0, %xmm0
.endm
.macro GPR_SSE2 reg
	movq	%xmm0, \reg
.endm
.macro BCAST_AVX2
	vmovd	%esi, %xmm0
	vpbroadcastb %xmm0, %ymm0
.endm
.macro GPR_AVX2 reg
	vmovq	%xmm0, \reg
.endm
.macro BCAST_EVEX
	vpbroadcastb %esi, %zmm16
.endm
.macro GPR_EVEX reg
	vmovq	%xmm16, \reg
.endm

WIDTH sse2, 16, movdqu, movdqa, %xmm0, %xmm1, %xmm2, %xmm3, %xmm4, %xmm5, %xmm6, %xmm7, none, none, none, none, movdqu, BCAST_SSE2, GPR_SSE2, 0
WIDTH avx2, 32, vmovdqu, vmovdqa, %ymm0, %ymm1, %ymm2, %ymm3, %ymm4, %ymm5, %ymm6, %ymm7, none, none, %xmm0, %xmm1, vmovdqu, BCAST_AVX2, GPR_AVX2, 1
WIDTH evex, 64, vmovdqu64, vmovdqa64, %zmm16, %zmm17, %zmm18, %zmm19, %zmm20, %zmm21, %zmm22, %zmm23, %ymm16, %ymm17, %xmm16, %xmm17, vmovdqu64, BCAST_EVEX, GPR_EVEX, 0

	.section .note.GNU-stack, "", @progbits
