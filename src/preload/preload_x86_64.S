/*
 * preload_x86_64.S - the shim's busiest names on x86-64: memcpy, memmove,
 * memset and their _FORTIFY_SOURCE forms.
 *
 * A small call runs its stores right here: no jump between the caller
 * and its stores.  A jump more, to an entry point or through a route,
 * costs a small call a measurable share of its time; in the fleet's size
 * mixes it put the shim behind glibc's memcpy on every one
 * (docs/results.md, "Size mixes and peers").
 * So does a compare more: each limit is therefore one of the compares
 * that pick the size class, not a test in front of them.
 *
 * This file builds four shims.  Each width's own library (SHIM_WIDTH_*
 * defined: build/<width>/libntmem-preload.so) runs that width's classes
 * behind one compare, whether the process may use the width (none for
 * SSE2, which every x86-64 process may); ntmem run preloads the one for
 * the CPU.  The dispatching library (libntmem-preload.so, for LD_PRELOAD
 * by hand and for ntmem run --report) puts each width's classes behind
 * a limit of the selector's (ntm_limits, dispatch/select.h).  Every limit
 * is 0 until the constructor has routed the calls, and while counting:
 * every call then goes on to its route, ntm_shim_routed_NAME in
 * preload.c.  A call the classes hand on (beyond the inline loop, or an
 * overlapping copy) goes to ntm_shim_beyond_NAME there, and from there
 * straight to the large-call path (entry/large.c): the classes run once
 * per call.
 * The small paths read no data but those limits, RIP-relative in the
 * shim's own data, so they are safe before this object is relocated.
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
 * The classes of one width, written once for the three (COPY_CLASSES,
 * SET_CLASSES).  Each tests its classes in the order glibc's do: below
 * one vector, up to two, then up to 8; the 4- and 8-vector classes are
 * one taken branch away.  Every compare on the way to a class costs a
 * small call a few percent of its time (65-128 byte copies on the Xeon:
 * docs/results.md, the fifth pass, "What changed, and why"), so the
 * width's own libraries (SHIM_WIDTH, below) make no compare but these,
 * and the dispatching library one more per width it passes.  Beyond
 * its reach a class sequence jumps to the name's route, which is safe
 * before the constructor has run (preload.c).
 */

/*
 * Below one vector: from 32 bytes (the AVX-512 width) a pair of 32-byte
 * moves, from 16 a pair of 16-byte moves, then the classes above, the
 * smallest sizes first.
 */
.macro COPY_BELOW tag, V
	.if \V == 64
	cmp	$32, %rdx
	jae	.Lpair32_\tag
	.endif
	.if \V >= 32
	cmp	$16, %rdx
	jae	.Lpair16_\tag
	.endif
	cmp	$4, %rdx
	jae	.Lfrom4_\tag
	test	%rdx, %rdx
	jz	.Lnone_\tag
	COPY_1_TO_3
.Lnone_\tag:
	ret
	.p2align 4
.Lfrom4_\tag:
	COPY_4_TO_16
	ret
	.if \V >= 32
	.p2align 4
.Lpair16_\tag:
	COPY_PAIR 16, movdqu, %xmm0, %xmm1, movdqu, %xmm0, %xmm1, %rdi, %rsi, %rdx, 0
	ret
	.endif
	.if \V == 64
	.p2align 4
.Lpair32_\tag:
	COPY_PAIR 32, vmovdqu64, %ymm16, %ymm17, vmovdqu64, %ymm16, %ymm17, %rdi, %rsi, %rdx, 0
	ret
	.endif
.endm

/* 128 < n <= 256 on the SSE2 width: the first and the last 8 of XMM0-15,
 * all loaded before any is stored (so also memmove).  The cached loop
 * there, its end mispredicted as sizes vary, was slower than glibc's
 * SSE2 memcpy; this is faster (docs/results.md, the fifth pass, "What
 * changed, and why"). */
.macro COPY_16X16
	.irp i, 0, 1, 2, 3, 4, 5, 6, 7
	movdqu	\i*16(%rsi), %xmm\i
	.endr
	.irp i, 8, 9, 10, 11, 12, 13, 14, 15
	movdqu	(\i-16)*16(%rsi,%rdx), %xmm\i
	.endr
	.irp i, 0, 1, 2, 3, 4, 5, 6, 7
	movdqu	%xmm\i, \i*16(%rdi)
	.endr
	.irp i, 8, 9, 10, 11, 12, 13, 14, 15
	movdqu	%xmm\i, (\i-16)*16(%rdi,%rdx)
	.endr
.endm

/* rdi <- rsi, rdx bytes, rax = rdi; the pair of one to two vectors, below
 * one vector COPY_BELOW, then the classes of vector width V to 8V;
 * above, as the entry points do, V's cached loop up to the selector's
 * inline limit for buffers apart, else the route.
 *
 * The pair is the way on from the entry and the classes below one vector
 * a jump, as in glibc's memcpy: with the classes below one vector first
 * (the fleet's copies are mostly under 16 bytes), every class above took
 * one more taken branch, and 33-64 bytes at the AVX2 and SSE2 widths
 * were slower than glibc's; with the pair first they are level or
 * faster, and the branch-free classes below 16 bytes still far faster
 * (docs/results.md, the sixth pass, "What changed in the shim, and
 * why").
 *
 * On the SSE2 width the way to the loop passes more classes (8 vectors
 * are only 128 bytes, and COPY_16X16 follows), so it tests for more than
 * 8 vectors before the 4- and 8-vector classes, and for COPY_16X16 out of
 * the loop's way.  With 2 more taken branches, its copies of 257-512
 * bytes and of GoogleA were slower than glibc's SSE2 memcpy
 * (docs/results.md, the sixth pass, and "Figures the code's comments
 * quoted").
 * Its loop copies 8 vectors a block (CACHED_COPY_LOOP8).  The way to the
 * loop starts a 64-byte line (LOOP_LINE). */
.macro COPY_CLASSES name, tag, V, movu, mova, r0, r1, r2, r3, r4, r5, r6, r7, vzu
	cmp	$\V, %rdx
	jb	.Lbelow1_\tag
	cmp	$2*\V, %rdx
	ja	.Lover2_\tag
	COPY_PAIR \V, \movu, \r0, \r1, \movu, \r0, \r1, %rdi, %rsi, %rdx, 0
	RETURN	\vzu
	.p2align 4
.Lover2_\tag:
	.if \V == 16
	cmp	$8*\V, %rdx
	ja	.Lover8_\tag
	COPY_SMALL \V, \movu, \r0, \r1, \r2, \r3, \r4, \r5, \r6, \r7, none, none, none, none, none, arg=\vzu, not2=1, over1=1
	.else
	COPY_SMALL \V, \movu, \r0, \r1, \r2, \r3, \r4, \r5, \r6, \r7, none, none, none, none, none, arg=\vzu, above=.Lover8_\tag, not2=1, over1=1
	.endif
	.p2align 4
.Lbelow1_\tag:
	COPY_BELOW \tag, \V
	.p2align 6
.Lover8_\tag:
	.if \V == 16
	cmp	$256, %rdx
	jbe	.L16x16_\tag
	.endif
	cmp	ntm_limits+LIMITS_INLINE_COPY(%rip), %rdx
	ja	ntm_shim_beyond_\name
	JUMP_IF_OVERLAP ntm_shim_beyond_\name
	.if \V == 16
	CACHED_COPY_LOOP8 \V, \movu, \mova, \vzu
	.else
	CACHED_COPY_LOOP \V, \movu, \mova, \r0, \r1, \r2, \r3, \r4, \r5, \r6, \r7, \vzu
	.endif
	.if \V == 16
	.p2align 4
.L16x16_\tag:
	COPY_16X16
	ret
	.endif
.endm

/* Each width's classes, by the arguments the classes take. */
#define EVEX_COPY 64, vmovdqu64, vmovdqa64, %zmm16, %zmm17, %zmm18, %zmm19, %zmm20, %zmm21, %zmm22, %zmm23, 0
#define AVX2_COPY 32, vmovdqu, vmovdqa, %ymm0, %ymm1, %ymm2, %ymm3, %ymm4, %ymm5, %ymm6, %ymm7, 1
#define SSE2_COPY 16, movdqu, movdqa, %xmm0, %xmm1, %xmm2, %xmm3, %xmm4, %xmm5, %xmm6, %xmm7, 0
#define EVEX_SET 64, vmovdqu64, vmovdqa64, %zmm16, %ymm16, %xmm16, vmovdqu64, BCAST_EVEX, QWORD_EVEX, 0
#define AVX2_SET 32, vmovdqu, vmovdqa, %ymm0, none, %xmm0, vmovdqu, BCAST_AVX2, QWORD_AVX2, 1
#define SSE2_SET 16, movdqu, movdqa, %xmm0, none, none, movdqu, BCAST_SSE2, QWORD_SSE2, 0

/* CLASSES_OF(name, tag, kind, width): the classes of name (its route),
 * their labels made unique by tag; kind COPY or SET, width EVEX, AVX2 or
 * SSE2 (a macro naming one is expanded first).  KIND_CLASSES: the same
 * inside SHIM_ENTRY, whose \kind says which. */
#define CLASSES_OF(name, tag, kind, width) CLASSES_OF_(name, tag, kind, width)
#define CLASSES_OF_(name, tag, kind, width) kind##_CLASSES name, tag, width##_##kind
#define KIND_CLASSES(tag, width) \
	.ifc \kind, COPY ; CLASSES_OF(\name, tag, COPY, width) ; \
	.else ; CLASSES_OF(\name, tag, SET, width) ; .endif

#if defined(SHIM_WIDTH_AVX512) || defined(SHIM_WIDTH_AVX2) || defined(SHIM_WIDTH_SSE2)
/*
 * A width's own library (SHIM_WIDTH_*): its classes and nothing else
 * but, for a width wider than SSE2, one compare: whether this process may
 * use it (its limit, all ones once the constructor has found that it
 * may).  ntmem run preloads the library of the width the CPU runs, and
 * the programs it starts inherit it: one of them may turn the width off
 * (GLIBC_TUNABLES glibc.cpu.hwcaps=-AVX512F ...), and its calls then go
 * on to their routes, the entry points of the width it allows.  So does
 * every call before the constructor.  An IFUNC cannot choose here
 * (preload.c).
 */
#if defined(SHIM_WIDTH_AVX512)
#define SHIM_W EVEX
#define SHIM_W_LIMIT LIMITS_SHIM_EVEX_END
#elif defined(SHIM_WIDTH_AVX2)
#define SHIM_W AVX2
#define SHIM_W_LIMIT LIMITS_SHIM_AVX2_END
#else
#define SHIM_W SSE2
#endif
#else
/*
 * The dispatching library: each width's classes behind its limit
 * (shim_evex_end, shim_avx2_end, shim_sse2_end: all ones where the width
 * serves, else 0).  The limits are 0 until the constructor has routed
 * the calls, and while counting for ntmem run --report: every call then
 * goes to its route.
 */
#endif

/* name(dst, src or c, n[, dstlen]): kind COPY or SET, chk the _chk forms. */
.macro SHIM_ENTRY name, chk, kind
SHIM_FUNCTION \name
	CHECK_DSTLEN \chk
	mov	%rdi, %rax
#ifdef SHIM_W
#ifdef SHIM_W_LIMIT
	cmp	ntm_limits+SHIM_W_LIMIT(%rip), %rdx
	jae	ntm_shim_routed_\name
#endif
	KIND_CLASSES(\name, SHIM_W)
#else
	cmp	ntm_limits+LIMITS_SHIM_EVEX_END(%rip), %rdx
	jae	.Lnot_evex_\name
	KIND_CLASSES(\name\()_evex, EVEX)
	.p2align 4
.Lnot_evex_\name:
	cmp	ntm_limits+LIMITS_SHIM_AVX2_END(%rip), %rdx
	jae	.Lnot_avx2_\name
	KIND_CLASSES(\name\()_avx2, AVX2)
	.p2align 4
.Lnot_avx2_\name:
	cmp	ntm_limits+LIMITS_SHIM_SSE2_END(%rip), %rdx
	jae	ntm_shim_routed_\name
	KIND_CLASSES(\name\()_sse2, SSE2)
#endif
	.size	\name, .-\name
.endm

	SHIM_ENTRY memcpy, 0, COPY
	SHIM_ENTRY memmove, 0, COPY
	SHIM_ENTRY __memcpy_chk, 1, COPY
	SHIM_ENTRY __memmove_chk, 1, COPY
	SHIM_ENTRY memset, 0, SET
	SHIM_ENTRY __memset_chk, 1, SET

	.section .note.GNU-stack, "", @progbits
