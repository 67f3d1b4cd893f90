/*
 * preload_x86_64.S - the shim's busiest names on x86-64: memcpy, memmove,
 * memset and their _FORTIFY_SOURCE forms.
 *
 * A call below ntm_shim_direct_below bytes runs the SSE2 width's small
 * path (up to 8 vectors) right here, from the same macros as the entry
 * points: no jump between the caller and its stores.  A jump more, to an
 * entry point or through a route, costs a small call a measurable share
 * of its time; in the fleet's size mixes it put the shim 5-15% behind
 * glibc's memcpy (docs/results.md).  The small path reads no data but
 * that limit, RIP-relative in .bss, so it is safe before this object is
 * relocated; the limit is 0 until the constructor has routed the calls,
 * and while counting for ntmem run --report, so that every call then
 * goes on to its route: ntm_shim_routed_NAME, in preload.c.
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

/* name(dst, src, n[, dstlen]) */
.macro SHIM_COPY name, chk
SHIM_FUNCTION \name
	CHECK_DSTLEN \chk
	cmp	ntm_shim_direct_below(%rip), %rdx
	jae	ntm_shim_routed_\name
	mov	%rdi, %rax
	CACHED_COPY_SIZES \name, 16, movdqu, %xmm0, %xmm1, %xmm2, %xmm3, %xmm4, %xmm5, %xmm6, %xmm7, none, none, none, none, movdqu, 0
	jmp	ntm_shim_routed_\name
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
