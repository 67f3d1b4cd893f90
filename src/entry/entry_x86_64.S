/*
 * entry_x86_64.S - the entry points and the cached vector loops, written
 * once as macros and instantiated per vector width:
 *
 *   sse2  16-byte XMM0-7
 *   avx2  32-byte YMM0-7, VZEROUPPER before returning
 *   avx512 64-byte ZMM16-23 (AVX-512F/BW/VL): registers above 15 leave no
 *         dirty upper state, so no VZEROUPPER is needed, as in glibc
 *
 * Per width W:
 *   ntm_entry_set_W, ntm_entry_copy_W       ntmem_set, ntmem_copy
 *   ntm_entry_set_flags_W, ntm_entry_copy_flags_W
 *
 * They run the cached loops of variants/cached_x86_64.S (the vec_*
 * variants) inline, from the same macros.
 *
 * Size classes: below one vector, words and narrower vectors, two
 * overlapping stores each; up to 2, 4 and 8 vectors, that many unaligned
 * stores, half anchored at the end.  Copies load everything before they
 * store, so up to 8 vectors they are also memmove.  Beyond 8 vectors: the
 * first and last 4 vectors unaligned, aligned 4-vector stores between
 * (8-vector blocks for the SSE2 memset and copy).  The copies, and the
 * AVX2 and AVX-512 memsets, run the shim's classes (COPY_CLASSES,
 * SET_CLASSES); those memsets store as the size is learnt.
 * That is no lookup and no loop below 8 vectors, and no head or tail to
 * branch over above.  These are written in assembly because the cost of
 * a small call is a few instructions: the compiler's VZEROUPPER, its
 * choice of registers and its branch layout each cost more than that.
 *
 * These are the selector's SMALL and INLINE routes (dispatch/select.h,
 * which test_select checks them against): the entries serve sizes above
 * 8 vectors themselves up to ntm_limits.inline_max[op] (where the
 * ladder's first rung is this width's vector loop) and hand larger ones,
 * with flags in %ecx, to ntm_set_large/ntm_copy_large, which ask the
 * selector.  Copies above 8 vectors that overlap go there too, and the
 * selector sends them to memmove.
 */

/* The constants, from the C that owns them (src/asm_constants.c). */
#include "asm_constants.h"
#include "variants/classes_x86_64.h"

	.text

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
 * ENTRY instantiates the four entry points of one width (FOR_EACH_WIDTH
 * gives the arguments).  Past the small path they run the width's cached
 * loop up to the selector's inline limit, else go to the selector.
 */
.macro ENTRY w, V, movu, mova, movnt, r0, r1, r2, r3, r4, r5, r6, r7, h32a, h32b, h16a, h16b, movh, bcast, qword, vzu

FUNCTION ntm_entry_set_\w
	mov	%rdi, %rax
	.if \V == 16
	CACHED_SET_SIZES \w\()_e, \V, \movu, \r0, \h32a, \h16a, \movh, \qword, \vzu, \bcast
	cmp	ntm_limits+LIMITS_INLINE_SET(%rip), %rdx
	ja	.Lset_large_\w
	/* In 8-vector blocks, as the shim's SSE2 width: in blocks of 4 the
	 * memsets of 513 bytes to 4 KiB were slower than glibc's SSE2
	 * memset (docs/results.md, "Every width, auto included"). */
	SET_4V	\V, \movu, \r0, %rdi
	CACHED_SET_LOOP8 \V, \movu, \mova, \r0, \vzu
.Lset_large_\w:
	TO_LADDER set, \vzu
	.else
	/* The shim's classes: with SET_SMALL's, the AVX2 entry's memsets of
	 * 65-128 bytes were slower than glibc's AVX2 memset
	 * (docs/results.md, "Every width, auto included").  Their way
	 * beyond the inline limit has cleared the upper state already. */
	SET_CLASSES \w, \w\()_e, \V, \movu, \mova, \r0, \h32a, \h16a, \movh, \bcast, \qword, \vzu, route=.Lset_large_\w
.Lset_large_\w:
	TO_LADDER set, 0
	.endif
	.size	ntm_entry_set_\w, .-ntm_entry_set_\w

	FLAGS_ENTRY set, \w, \V

FUNCTION ntm_entry_copy_\w
	mov	%rdi, %rax
	/* The shim's classes, whose way on leaves no upper state. */
	COPY_CLASSES \w, copy_\w, \V, \movu, \mova, \r0, \r1, \r2, \r3, \r4, \r5, \r6, \r7, \vzu, route=.Lcopy_large_\w
.Lcopy_large_\w:
	TO_LADDER copy, 0
	.size	ntm_entry_copy_\w, .-ntm_entry_copy_\w

	FLAGS_ENTRY copy, \w, \V
.endm

	FOR_EACH_WIDTH ENTRY

	.section .note.GNU-stack, "", @progbits
