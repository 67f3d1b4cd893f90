/*
 * safe_entry_x86_64.S - the entry points of ntmem_copy_safe() and
 * ntmem_set_safe(), one pair per vector width (entry/ chooses one by
 * CPUID, as for ntmem_copy): the small path and the cached loop inline,
 * guarded as the loops of guarded_x86_64.S are, and C (safe.c) for
 * everything else and after a fault.
 */
#include "guarded_x86_64.h"

	.section .text.ntm_guarded, "ax", @progbits

/*
 * The end of entry point ntm_safe_OP_W, whose labels start .LP: on to C
 * for the rest (.LP_c_W), and the fixups.  A fault in the small path
 * (.LP_small_W up to .LP_large_W) goes to C with the arguments; one in
 * the loop (.LP_loop_W up to .LP_c_W), with how far it got in r8 and the
 * flags, kept in r11d, back in ecx.
 */
.macro SAFE_EXITS op, p, w, vzu
.L\p\()_c_\w:
	VZU	\vzu
	jmp	ntm_\op\()_safe_slow
	END	ntm_safe_\op\()_\w
.L\p\()_small_fault_\w:
	VZU	\vzu
	jmp	ntm_\op\()_safe_small_fault
.L\p\()_loop_fault_\w:
	VZU	\vzu
	mov	%rcx, %r8
	sub	%rdi, %r8
	mov	%r11d, %ecx
	jmp	ntm_\op\()_safe_resume
	GUARD	.L\p\()_small_\w, .L\p\()_large_\w, .L\p\()_small_fault_\w
	GUARD	.L\p\()_loop_\w, .L\p\()_c_\w, .L\p\()_loop_fault_\w
.endm

/* ENTRIES w, V, ...: the entry points of one width (FOR_EACH_WIDTH gives
 * the arguments).  Its slot in ntm_safe_gate is at SAFE_GATE_w. */
.macro ENTRIES w, V, movu, mova, movnt, r0, r1, r2, r3, r4, r5, r6, r7, h32a, h32b, h16a, h16b, movh, bcast, qword, vzu
	WIDTH_CLASSES \w, \V, \movu, \mova, \movnt, \r0, \r1, \r2, \r3, \r4, \r5, \r6, \r7, \h32a, \h32b, \h16a, \h16b, \movh, \bcast, \qword, \vzu

/*
 * The entry points, flags in ecx.  Only calls with NTMEM_F_UNBLOCKED and
 * flags the entries handle, and only once the handler is installed, stay
 * here: the small path, then the cached loop up to the selector's inline
 * limit (ntm_limits, dispatch/select.h), as ntmem_copy's entry does.  Everything else goes to C.  A fault goes to C as well, with the
 * arguments: the small path's to ..._small_fault, the loop's to
 * ..._resume with how far it got.
 *
 * The commonest class, one to two vectors, comes first, and one compare
 * both picks it and checks that the handler is installed:
 * ntm_safe_gate[width] is V + 1 once it is and 0 before, and n - V
 * (unsigned) is below V + 1 exactly when V <= n <= 2V.  Other sizes test
 * the same loaded value for non-zero, and then know n is outside that
 * class, so their classes start one compare later, as ntmem_copy's do
 * (a second load could see the gate opening in between).  So a small
 * call costs a flags test and a gate test more than ntmem_copy's.
 */
FUNCTION ntm_safe_copy_\w
	ENTRY_FLAGS_OR .Lsc_c_\w
	mov	ntm_safe_gate+SAFE_GATE_\w(%rip), %r9
	lea	-\V(%rdx), %rax
	cmp	%r9, %rax
	jae	.Lsc_other_\w
.Lsc_small_\w:
	COPY_PAIR \V, \movu, \r0, \r1, \movu, \r0, \r1, %rdi, %rsi, %rdx, 1
	RET_ENTRY \vzu
.Lsc_other_\w:
	/* The same load of the gate: installed, so n is not one to two
	 * vectors and that class is skipped. */
	test	%r9, %r9
	jz	.Lsc_c_\w
	COPY_SMALL_\w %rdi, %rsi, %rdx, RET_ENTRY, \vzu, .Lsc_large_\w, not2
.Lsc_large_\w:
	cmp	ntm_limits+LIMITS_INLINE_COPY(%rip), %rdx
	ja	.Lsc_c_\w
	/* Overlap: dst - src < n or src - dst < n (unsigned). */
	mov	%rdi, %r9
	sub	%rsi, %r9
	cmp	%rdx, %r9
	jb	.Lsc_c_\w
	mov	%rsi, %r9
	sub	%rdi, %r9
	cmp	%rdx, %r9
	jb	.Lsc_c_\w
	mov	%ecx, %r11d
.Lsc_loop_\w:
	COPY_LOOP \V, \movu, \mova, \r0, \r1, \r2, \r3, RET_ENTRY, \vzu
	SAFE_EXITS copy, sc, \w, \vzu

FUNCTION ntm_safe_set_\w
	ENTRY_FLAGS_OR .Lss_c_\w
	FILL_\w
	mov	ntm_safe_gate+SAFE_GATE_\w(%rip), %r9
	lea	-\V(%rdx), %rax
	cmp	%r9, %rax
	jae	.Lss_other_\w
.Lss_small_\w:
	SET_PAIR \V, \movu, \r0, %rdi, %rdx
	RET_ENTRY \vzu
.Lss_other_\w:
	test	%r9, %r9         /* as for copies */
	jz	.Lss_c_\w
	SET_SMALL_\w %rdi, %rdx, RET_ENTRY, \vzu, .Lss_large_\w, not2
.Lss_large_\w:
	cmp	ntm_limits+LIMITS_INLINE_SET(%rip), %rdx
	ja	.Lss_c_\w
	mov	%ecx, %r11d
.Lss_loop_\w:
	SET_LOOP \V, \movu, \mova, \r0, RET_ENTRY, \vzu
	SAFE_EXITS set, ss, \w, \vzu
.endm

	FOR_EACH_WIDTH ENTRIES

	.section .note.GNU-stack, "", @progbits
