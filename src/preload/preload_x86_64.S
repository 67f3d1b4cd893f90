/*
 * preload_x86_64.S - the shim's busiest names on x86-64: memcpy, memmove,
 * memset and their _FORTIFY_SOURCE forms.
 *
 * A small call runs its stores right here: no jump between the caller
 * and its stores.  A jump more, to an entry point or through a route,
 * costs a small call a measurable share of its time; in the fleet's size
 * mixes it put the shim 5-15% behind glibc's memcpy (docs/results.md).
 * So does a compare more: each limit is therefore one of the compares
 * that pick the size class, not a test in front of them.
 *
 * The limits are the selector's (ntm_limits, dispatch/select.h).  The
 * AVX-512 width's classes serve below shim_evex_end (to 512 bytes), the
 * AVX2 width's behind shim_avx2_gate (to 512 bytes, the copies to 256:
 * SHIM_SET says how a gate works); elsewhere the SSE2 width's classes
 * below shim_sse2_below.
 * The small paths read no data but those limits, RIP-relative in the
 * shim's own data, so they are safe before this object is relocated; the
 * limits are 0 and the AVX2 gate shut until the constructor has routed the
 * calls, and while counting for ntmem run --report, so that every call
 * then goes on to its route: ntm_shim_routed_NAME, in preload.c.
 */
#include "asm_constants.h"
#include "variants/classes_x86_64.h"

	.text

/* An exported name: the program's calls of the C library's bind here. */
.macro SHIM_FUNCTION name
	.globl	\name
	.type	\name, @function
	.p2align 6
\name:
.endm

/* The _chk forms: the destination's size (rcx) against n first. */
.macro CHECK_DSTLEN chk
	.if \chk
	cmp	%rdx, %rcx
	jb	ntm_shim_overflow
	.endif
.endm

/*
 * The copies below 16 bytes, with fewer branches than the entry points'
 * classes.  In a program's mix of sizes the branches that pick a class
 * are most of what a small copy costs, each mispredicted one some 15
 * cycles.  Below 16 bytes the entry points test for 8, 4, 0 and 1 bytes;
 * these test for 4 and 0: 4-15 bytes are four 4-byte moves and 1-3 three
 * byte moves, with no branch inside.  With the limits below as class
 * compares, that made the shim faster on every fleet mix
 * (docs/results.md, "Size mixes and peers").
 * Scratch: rcx, r8-r11; everything is loaded before anything is stored,
 * so these are also memmove.
 */

/* 1 <= n <= 3: the bytes at 0, n/2 and n - 1, which are all n. */
.macro COPY_1_TO_3
	mov	%rdx, %r8
	shr	%r8
	movzbl	(%rsi), %ecx
	movzbl	(%rsi,%r8), %r9d
	movzbl	-1(%rsi,%rdx), %r10d
	mov	%cl, (%rdi)
	mov	%r9b, (%rdi,%r8)
	mov	%r10b, -1(%rdi,%rdx)
.endm

/* 4 <= n <= 16: 4 bytes at 0, p, n - 4 - p and n - 4, where p is 4 from
 * 8 bytes on, else 0 (the middle two then repeat the outer two).  rsi
 * is loaded last, over itself. */
.macro COPY_4_TO_16
	mov	%edx, %ecx
	and	$8, %ecx
	shr	%ecx
	lea	-4(%rdx), %r8
	sub	%rcx, %r8
	mov	(%rsi), %r9d
	mov	(%rsi,%rcx), %r10d
	mov	(%rsi,%r8), %r11d
	mov	-4(%rsi,%rdx), %esi
	mov	%r9d, (%rdi)
	mov	%r10d, (%rdi,%rcx)
	mov	%r11d, (%rdi,%r8)
	mov	%esi, -4(%rdi,%rdx)
.endm

/*
 * name(dst, src, n[, dstlen]).  On the AVX-512 width (n below
 * shim_evex_end) the classes from 64 to 512 bytes come first, with no
 * taken branch to 128 bytes, then the pair of 32-byte moves to 64, and
 * below 32 the SSE2 classes: 16-32 bytes in a pair of 16-byte moves,
 * below 16 the two classes above.  Compared with the SSE2 classes first,
 * this took the shim from 0.6-0.95x glibc's time to 0.4-0.7x on the
 * fleet's mixes (docs/results.md).  The narrower widths come to the
 * same SSE2 classes below shim_copy_sse2_end, then to their own.
 */
.macro SHIM_COPY name, chk
SHIM_FUNCTION \name
	CHECK_DSTLEN \chk
	mov	%rdi, %rax
	cmp	ntm_limits+LIMITS_SHIM_EVEX_END(%rip), %rdx
	jae	.Lnarrow_\name
	cmp	$64, %rdx
	jb	.Lbelow64_\name
	COPY_SMALL 64, vmovdqu64, %zmm16, %zmm17, %zmm18, %zmm19, %zmm20, %zmm21, %zmm22, %zmm23, %ymm16, %ymm17, %xmm16, %xmm17, vmovdqu64, over1=1
	.p2align 4
.Lbelow64_\name:
	cmp	$32, %rdx
	ja	.Lpair32_\name
.Lupto32_\name:
	cmp	$16, %rdx
	jb	.Lbelow16_\name
	COPY_PAIR 16, movdqu, %xmm0, %xmm1, movdqu, %xmm0, %xmm1, %rdi, %rsi, %rdx, 0
	ret
	.p2align 4
.Lbelow16_\name:
	cmp	$4, %rdx
	jb	.Lbelow4_\name
	COPY_4_TO_16
	ret
.Lbelow4_\name:
	test	%rdx, %rdx
	jz	.Lnone_\name
	COPY_1_TO_3
.Lnone_\name:
	ret
	.p2align 4
.Lpair32_\name:
	COPY_PAIR 32, vmovdqu64, %ymm16, %ymm17, vmovdqu64, %ymm16, %ymm17, %rdi, %rsi, %rdx, 0
	ret
	.p2align 4
.Lnarrow_\name:
	cmp	ntm_limits+LIMITS_SHIM_COPY_SSE2_END(%rip), %rdx
	jb	.Lupto32_\name
	.p2align 4
.Lavx2_\name:
	/* The AVX2 width's classes to 256 bytes behind their own gate. */
	mov	ntm_limits+LIMITS_SHIM_AVX2_GATE(%rip), %rcx
	or	%rdx, %rcx
	cmp	$256, %rcx
	ja	.Lsse2_\name
	cmp	$64, %rdx
	ja	.Lavx2_over64_\name
	COPY_PAIR 32, vmovdqu, %ymm0, %ymm1, vmovdqu, %ymm0, %ymm1, %rdi, %rsi, %rdx, 0
	RETURN	1
	.p2align 4
.Lavx2_over64_\name:
	COPY_SMALL 32, vmovdqu, %ymm0, %ymm1, %ymm2, %ymm3, %ymm4, %ymm5, %ymm6, %ymm7, none, none, %xmm0, %xmm1, vmovdqu, arg=1, not2=1, over1=1
	.p2align 4
.Lsse2_\name:
	/* Where no gate is open, the SSE2 width's 4 and 8 vectors. */
	cmp	ntm_limits+LIMITS_SHIM_SSE2_BELOW(%rip), %rdx
	jae	ntm_shim_routed_\name
	COPY_SMALL 16, movdqu, %xmm0, %xmm1, %xmm2, %xmm3, %xmm4, %xmm5, %xmm6, %xmm7, none, none, none, none, movdqu, not2=1, over1=1
	.size	\name, .-\name
.endm

/* name(dst, c, n[, dstlen]).  On the AVX-512 width, below shim_evex_end
 * (to 512 bytes), its entry's classes: the masked store below one vector
 * has no branch on the size, where the SSE2 classes below 16 bytes took
 * three times glibc's time on a mix of random sizes (docs/results.md).
 * The AVX2 width's to 512 bytes behind a gate that is no compare of its
 * own: shim_avx2_gate (0, or all ones) ORed into a copy of n that the
 * class compares read, so that a closed gate sends every call past the
 * largest class, and one value serves memset to 512 bytes and the copies
 * to 256.  (A limit of 513, as on the AVX-512 width, cost the AVX2 copies
 * above 256 bytes two compares more on their way to the route.)
 * Where neither is open, the SSE2 width's below shim_sse2_below. */
.macro SHIM_SET name, chk
SHIM_FUNCTION \name
	CHECK_DSTLEN \chk
	mov	%rdi, %rax
	cmp	ntm_limits+LIMITS_SHIM_EVEX_END(%rip), %rdx
	jae	.Lavx2_\name
	CACHED_SET_SIZES \name\()_evex, 64, vmovdqu64, %zmm16, %ymm16, %xmm16, vmovdqu64, QWORD_EVEX, 0, BCAST_EVEX, half_below=1
	.p2align 4
.Lavx2_\name:
	mov	ntm_limits+LIMITS_SHIM_AVX2_GATE(%rip), %rcx
	or	%rdx, %rcx
	cmp	$512, %rcx
	ja	.Lsse2_\name
	CACHED_SET_SIZES \name\()_avx2, 32, vmovdqu, %ymm0, none, %xmm0, vmovdqu, QWORD_AVX2, 1, BCAST_AVX2
	CACHED_SET_LOOP 32, vmovdqu, vmovdqa, %ymm0, 1
	.p2align 4
.Lsse2_\name:
	cmp	ntm_limits+LIMITS_SHIM_SSE2_BELOW(%rip), %rdx
	jae	ntm_shim_routed_\name
	CACHED_SET_SIZES \name, 16, movdqu, %xmm0, none, none, movdqu, QWORD_SSE2, 0, BCAST_SSE2
	jmp	ntm_shim_routed_\name
	.size	\name, .-\name
.endm

	SHIM_COPY memcpy, 0
	SHIM_COPY memmove, 0
	SHIM_COPY __memcpy_chk, 1
	SHIM_COPY __memmove_chk, 1
	SHIM_SET memset, 0
	SHIM_SET __memset_chk, 1

	.section .note.GNU-stack, "", @progbits
