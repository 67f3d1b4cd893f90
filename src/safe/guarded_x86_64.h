/*
 * guarded_x86_64.h - what the guarded loops (guarded_x86_64.S) and the
 * safe calls' entry points (safe_entry_x86_64.S) share, as assembler
 * macros: the exception table's entries, the ends of a size class, the
 * cached loops, and each width's partial-line macros.  The contract the
 * loops keep is in guarded_x86_64.S.
 */
/* The flags, fault kinds and gate offsets, from the C that owns them
 * (src/asm_constants.c). */
#include "asm_constants.h"

/* Flags the entry points handle themselves, besides UNBLOCKED, which they
 * need: without it the signal mask must be looked at, which C does.  Any
 * other bit (NONTEMPORAL, unknown ones) goes to C, which checks them. */
#define ENTRY_FLAGS (NTMEM_F_TEMPORAL | NTMEM_F_NOFENCE | NTMEM_F_NOZEROFILL)

/* Jump to \to unless flags (ecx) hold UNBLOCKED and otherwise only
 * ENTRY_FLAGS: taking UNBLOCKED away leaves only ENTRY_FLAGS exactly
 * then (without it the subtraction borrows into the high bits).
 * Clobbers eax. */
.macro ENTRY_FLAGS_OR to
	lea	-NTMEM_F_UNBLOCKED(%rcx), %eax
	test	$~ENTRY_FLAGS, %eax
	jnz	\to
.endm

#include "variants/classes_x86_64.h"

/* ------------------------------------------------------------------ */
/* The exception table                                                 */
/* ------------------------------------------------------------------ */

/* Entries are three offsets, each relative to itself, so the table needs
 * no relocation in a shared library.  The linker gathers every file's
 * entries into one section and names its bounds __start_ntm_extable and
 * __stop_ntm_extable (safe.h). */
/* Faults of instructions in [from, to) continue at fixup.  Labels only:
 * "." would mean the table itself here. */
.macro GUARD from, to, fixup
	.pushsection ntm_extable, "a"
	.balign	4
	.long	\from - .
	.long	\to - .
	.long	\fixup - .
	.popsection
.endm


.macro END name
	.size	\name, . - \name
.endm

.macro VZU vzu
	.if \vzu
	vzeroupper
	.endif
.endm

/* Ends of a size class: a guarded loop returns {0, no fault}, an entry
 * point 0, anything else jumps on to a label. */
.macro RET_DONE vzu
	xor	%eax, %eax
	xor	%edx, %edx
	VZU	\vzu
	ret
.endm

.macro RET_ENTRY vzu
	xor	%eax, %eax
	VZU	\vzu
	ret
.endm

.macro JMP_TO label
	jmp	\label
.endm

/* ------------------------------------------------------------------ */
/* Cached loops: n > 8 vectors, buffers apart                          */
/* ------------------------------------------------------------------ */

/*
 * Four unaligned vectors at the start, aligned 4-vector blocks from
 * within them, four unaligned vectors ending at dst + n.  rcx advances
 * past each block only after its stores, which keeps the contract at
 * the top of this file.  Clobbers r9 and r0-r3; keeps rdi, rsi, rdx and
 * r11, which the entry points need in their fixups.
 */
.macro COPY_LOOP V, movu, mova, r0, r1, r2, r3, fin, arg
	mov	%rdi, %rcx
	mov	%rsi, %r8
	sub	%rdi, %r8
	lea	(%rdi,%rdx), %r10
	LOAD_4V	\V, \movu, \r0, \r1, \r2, \r3, %rsi
	STORE_4V \V, \movu, \r0, \r1, \r2, \r3, %rdi
	lea	4*\V(%rdi), %rcx
	and	$-\V, %rcx
	lea	-4*\V(%r10), %r9
	COPY_BLOCKS \V, \movu, \mova, \r0, \r1, \r2, %r9
	LOAD_4V	\V, \movu, \r0, \r1, \r2, \r3, %r9, %r8
	STORE_4V \V, \movu, \r0, \r1, \r2, \r3, %r9
	\fin	\arg
.endm

/* The same for sets: the pattern in \r0; keeps rdi, rsi, rdx, r11. */
.macro SET_LOOP V, movu, mova, r0, fin, arg
	mov	%rdi, %rcx
	lea	(%rdi,%rdx), %r10
	SET_4V	\V, \movu, \r0, %rdi
	lea	4*\V(%rdi), %rcx
	and	$-\V, %rcx
	lea	-4*\V(%r10), %r9
	SET_BLOCKS \V, \mova, \r0, %r9
	SET_4V	\V, \movu, \r0, %r9
	\fin	\arg
.endm

/* The partial-line macros of one width (FOR_EACH_WIDTH gives the
 * arguments), with its registers bound: COPY_SMALL_w, SET_SMALL_w and
 * FILL_w. */
.macro WIDTH_CLASSES w, V, movu, mova, movnt, r0, r1, r2, r3, r4, r5, r6, r7, h32a, h32b, h16a, h16b, movh, bcast, qword, vzu
.macro COPY_SMALL_\w d, s, n, fin, arg, above, not2
	COPY_SMALL \V, \movu, \r0, \r1, \r2, \r3, \r4, \r5, \r6, \r7, \h32a, \h32b, \h16a, \h16b, \movh, d=\d, s=\s, n=\n, tail_first=1, fin=\fin, arg=\arg, above=\above, not2=\not2
.endm
.macro SET_SMALL_\w d, n, fin, arg, above, not2
	SET_SMALL \V, \movu, \r0, \h32a, \h16a, \movh, \qword, \d, \n, \fin, \arg, \above, \not2
.endm
.macro FILL_\w
	\bcast
.endm
.endm
