/*
 * preload_x86_64.S - the shim's busiest names on x86-64: memcpy, memmove,
 * memset and their _FORTIFY_SOURCE forms.
 *
 * A small call runs its stores right here, from the same macros as the
 * entry points: no jump between the caller and its stores.  A jump more,
 * to an entry point or through a route, costs a small call a measurable
 * share of its time; in the fleet's size mixes it put the shim 5-15%
 * behind glibc's memcpy (docs/results.md).  The sets run the SSE2
 * width's small path below ntm_shim_direct_below; the copies run SSE2's
 * up to 32 bytes and AVX2's above, below ntm_shim_copy_below, which
 * admits no copy over 32 bytes where the CPU lacks AVX2.  The small paths
 * read no data but those limits, RIP-relative in .bss, so they are safe
 * before this object is relocated; the limits are 0 until the
 * constructor has routed the calls, and while counting for ntmem run
 * --report, so that every call then goes on to its route:
 * ntm_shim_routed_NAME, in preload.c.
 */
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
 * name(dst, src, n[, dstlen]).  Up to 32 bytes the SSE2 classes, whose
 * 16-32 byte pair takes no branch; above, the AVX2 width's, 33-64 bytes
 * in two moves where SSE2 needs four.  With the SSE2 classes throughout,
 * the shim took 1.10x glibc's time on a mix of 33-64 byte copies and up
 * to 1.12x on the fleet mixes richest in them; now 0.98x and at most
 * 0.98x (docs/results.md).  The limit admits calls above 32 bytes only
 * where the CPU has AVX2, so no other test is needed.
 */
.macro SHIM_COPY name, chk
SHIM_FUNCTION \name
	CHECK_DSTLEN \chk
	cmp	ntm_shim_copy_below(%rip), %rdx
	jae	ntm_shim_routed_\name
	mov	%rdi, %rax
	cmp	$32, %rdx
	ja	.Lwide_\name
	COPY_SMALL 16, movdqu, %xmm0, %xmm1, %xmm2, %xmm3, %xmm4, %xmm5, %xmm6, %xmm7, none, none, none, none, movdqu, %rdi, %rsi, %rdx, 0, RETURN, 0, , , upto2
	.p2align 6
.Lwide_\name:
	COPY_SMALL 32, vmovdqu, %ymm0, %ymm1, %ymm2, %ymm3, %ymm4, %ymm5, %ymm6, %ymm7, none, none, %xmm0, %xmm1, vmovdqu, %rdi, %rsi, %rdx, 0, RETURN, 1, , , , over1
	.size	\name, .-\name
.endm

/* name(dst, c, n[, dstlen]) */
.macro SHIM_SET name, chk
SHIM_FUNCTION \name
	CHECK_DSTLEN \chk
	cmp	ntm_shim_direct_below(%rip), %rdx
	jae	ntm_shim_routed_\name
	mov	%rdi, %rax
	BCAST_SSE2
	CACHED_SET_SIZES \name, 16, movdqu, %xmm0, none, none, movdqu, QWORD_SSE2, 0
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
