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
