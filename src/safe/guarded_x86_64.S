/*
 * guarded_x86_64.S - the guarded (fault-tolerant) loops behind
 * ntmem_copy_safe() and ntmem_set_safe(), and their exception table
 * entries; the entry points that run them inline are
 * safe_entry_x86_64.S.
 *
 * How a fault is survived (see src/safe/safe_handler.c for the handler):
 * every instruction here that may fault lies in a range listed in the
 * table ntm_extable, with the fixup that range continues at.  The one
 * SIGSEGV/SIGBUS handler looks the interrupted RIP up in the table and,
 * if it is there, sets RIP to the fixup and returns, as the kernel's
 * exception table does for copy_from_user.  Guarded code runs only inside
 * a safe call of the faulting thread, so the RIP alone identifies the
 * call: the loops keep no bookkeeping and cost nothing when nothing
 * faults.
 *
 * The fixups need to know how far a loop got.  Every guarded loop keeps,
 * at every instruction that may fault, this register contract:
 *
 *   rcx   the progress point: dst[0, rcx - dst) is complete
 *   r8    src - dst (copies)
 *   r10   dst + n
 *   sil   the fill byte (sets)
 *
 * and its fixup is the byte-at-a-time replay from rcx, which is itself
 * guarded and faults again at the exact first byte that cannot be read
 * (src + rcx - dst) or written (rcx).  Loops write in address order
 * above rcx only, so the replay never needs more than one iteration's
 * bytes, and it re-reads only source bytes no store has changed (the
 * loops are given buffers that do not overlap; safe.c splits overlapping
 * copies into pieces that do not).
 *
 * Per vector width (sse2: XMM0-7, avx2: YMM0-7 and VZEROUPPER, avx512:
 * ZMM16-23, which leave no dirty upper state) the macros below make:
 *
 *   ntm_guarded_copy_vec_W, ..._set_vec_W   cached loops (vec_* variants)
 *   ntm_guarded_copy_nt_W, ..._set_nt_W     streaming loops (nt_*)
 *
 * and once: rep movsb/stosb, MOVNTI, MOVDIR64B and the byte replays.
 * Every guarded loop is a leaf without a frame, so a fixup may return
 * straight to the caller.  They return struct ntm_guarded_result
 * (src/safe/safe.h): rax = bytes not done, rdx = 0, FAULT_READ or FAULT_WRITE.
 */

#include "guarded_x86_64.h"

	.section .text.ntm_guarded, "ax", @progbits

/* ------------------------------------------------------------------ */
/* The byte replays: the fixup of every loop, and C-callable            */
/* ------------------------------------------------------------------ */

/*
 * ntm_guarded_bytes_copy(dst, src, n), and ntm_replay_copy with the loop
 * contract (rcx, r8, r10) already set: one byte at a time, read then
 * write, so the faulting instruction says which side failed.
 */
FUNCTION ntm_guarded_bytes_copy
	mov	%rdi, %rcx
	mov	%rsi, %r8
	sub	%rdi, %r8
	lea	(%rdi,%rdx), %r10
	.globl	ntm_replay_copy
	.hidden	ntm_replay_copy
ntm_replay_copy:
	cmp	%r10, %rcx
	jae	.Lrc_done
.Lrc_load:
	movzbl	(%rcx,%r8), %eax
.Lrc_store:
	mov	%al, (%rcx)
.Lrc_stored:
	inc	%rcx
	cmp	%r10, %rcx
	jb	.Lrc_load
.Lrc_done:
	xor	%eax, %eax
	xor	%edx, %edx
	ret
	END	ntm_guarded_bytes_copy

.Lrc_read_fault:
	mov	%r10, %rax
	sub	%rcx, %rax
	mov	$FAULT_READ, %edx
	ret
.Lrc_write_fault:
	mov	%r10, %rax
	sub	%rcx, %rax
	mov	$FAULT_WRITE, %edx
	ret
	GUARD	.Lrc_load, .Lrc_store, .Lrc_read_fault
	GUARD	.Lrc_store, .Lrc_stored, .Lrc_write_fault

/* ntm_guarded_bytes_set(dst, c, n), and ntm_replay_set (rcx, r10, sil). */
FUNCTION ntm_guarded_bytes_set
	mov	%rdi, %rcx
	lea	(%rdi,%rdx), %r10
	.globl	ntm_replay_set
	.hidden	ntm_replay_set
ntm_replay_set:
	cmp	%r10, %rcx
	jae	.Lrs_done
.Lrs_store:
	mov	%sil, (%rcx)
.Lrs_stored:
	inc	%rcx
	cmp	%r10, %rcx
	jb	.Lrs_store
.Lrs_done:
	xor	%eax, %eax
	xor	%edx, %edx
	ret
	END	ntm_guarded_bytes_set

.Lrs_write_fault:
	mov	%r10, %rax
	sub	%rcx, %rax
	mov	$FAULT_WRITE, %edx
	ret
	GUARD	.Lrs_store, .Lrs_stored, .Lrs_write_fault

/* ------------------------------------------------------------------ */
/* The streaming shape                                                 */
/* ------------------------------------------------------------------ */

/*
 * As src/variants/shape.h: cached stores up to the first 64-byte
 * boundary of dst, whole aligned lines with \line (four per iteration,
 * then one at a time), cached stores for the rest; spans too short for a
 * whole line are all cached.  \line OFF writes the line at OFF(%rcx)
 * (from OFF(%rcx,%r8) for copies) and may clobber rax, rdx, rsi and r11.
 * \small is the partial-line macro: COPY_SMALL or SET_SMALL with the
 * arguments of its width, which \smallargs names.  Keeps r8 and r10;
 * the body end lives in rdi.
 */
/* Whole lines with \line from rcx up to \end (64-byte aligned), four an
 * iteration, then one at a time; rcx ends at \end. */
.macro NT_LINES line, end
	lea	256(%rcx), %r9
	cmp	\end, %r9
	ja	.Lnl_one_\@
	.p2align 4
.Lnl_four_\@:
	\line	0
	\line	64
	\line	128
	\line	192
	add	$256, %rcx
	lea	256(%rcx), %r9
	cmp	\end, %r9
	jbe	.Lnl_four_\@
.Lnl_one_\@:
	cmp	\end, %rcx
	jae	.Lnl_done_\@
.Lnl_oneloop_\@:
	\line	0
	add	$64, %rcx
	cmp	\end, %rcx
	jb	.Lnl_oneloop_\@
.Lnl_done_\@:
.endm

.macro NT_COPY name, line, smallargs, fix, vzu
FUNCTION \name
	mov	%rdi, %rcx
	mov	%rsi, %r8
	sub	%rdi, %r8
	lea	(%rdi,%rdx), %r10
	mov	%edi, %eax
	neg	%eax
	and	$63, %eax
	lea	64(%rax), %r9
	cmp	%r9, %rdx
	jb	.Lnc_cached_\@
	\smallargs %rdi, %rsi, %rax, JMP_TO, .Lnc_head_\@
.Lnc_head_\@:
	add	%rax, %rcx
	mov	%r10, %rdi
	and	$-64, %rdi
	/* Blocks of four pages, two lines from each page in turn, as
	 * shape.h's copies (four streams run at once).  The first round
	 * touches each page's first line in order, so a fault in page p
	 * comes at the latest at page p + 1's first line, before anything
	 * past it is written: after a fault nothing beyond the faulting
	 * byte has been stored, as in the other loops.  The fixup replays
	 * from rcx, the first page's cursor, below every byte not yet
	 * copied. */
.Lnc_block_\@:
	lea	16384(%rcx), %r9
	cmp	%rdi, %r9
	ja	.Lnc_lines_\@
	lea	4096(%rcx), %r9
	.p2align 4
.Lnc_pages_\@:
	\line	0
	\line	64
	\line	4096
	\line	4096+64
	\line	8192
	\line	8192+64
	\line	12288
	\line	12288+64
	add	$128, %rcx
	cmp	%r9, %rcx
	jb	.Lnc_pages_\@
	add	$12288, %rcx
	jmp	.Lnc_block_\@
.Lnc_lines_\@:
	NT_LINES \line, %rdi
	mov	%r10, %rdx
	sub	%rcx, %rdx
	lea	(%rcx,%r8), %rsi
	mov	%rcx, %rdi
	\smallargs %rdi, %rsi, %rdx, RET_DONE, \vzu
.Lnc_cached_\@:
	\smallargs %rdi, %rsi, %rdx, RET_DONE, \vzu
	END	\name
.Lnc_end_\@:
	GUARD	\name, .Lnc_end_\@, \fix
.endm

/* The same for sets; \setup fills the vector (MOVNTI's also rax) with
 * the byte, and \line may clobber rax.  Keeps sil for the replay; the
 * body end lives in r8. */
.macro NT_SET name, setup, line, smallargs, fix, vzu
FUNCTION \name
	mov	%rdi, %rcx
	lea	(%rdi,%rdx), %r10
	\setup
	mov	%edi, %r11d
	neg	%r11d
	and	$63, %r11d
	lea	64(%r11), %r9
	cmp	%r9, %rdx
	jb	.Lns_cached_\@
	\smallargs %rdi, %r11, JMP_TO, .Lns_head_\@
.Lns_head_\@:
	add	%r11, %rcx
	mov	%r10, %r8
	and	$-64, %r8
	NT_LINES \line, %r8
	mov	%r10, %rdx
	sub	%rcx, %rdx
	mov	%rcx, %rdi
	\smallargs %rdi, %rdx, RET_DONE, \vzu
.Lns_cached_\@:
	\smallargs %rdi, %rdx, RET_DONE, \vzu
	END	\name
.Lns_end_\@:
	GUARD	\name, .Lns_end_\@, \fix
.endm

/*
 * WIDTH w, V, ...: the cached loops and streaming loops of one width.  bcast: fills \r0 with the byte in sil (may clobber r9);
 * qword: copies 8 bytes of it into a register.  h32a/h32b and h16a/h16b:
 * 32- and 16-byte registers for the classes below one vector (the a's
 * are the low halves of \r0), movh their move (FOR_EACH_WIDTH,
 * classes_x86_64.h, gives them).  Its slot in ntm_safe_gate is at
 * SAFE_GATE_w.
 */
.macro WIDTH w, V, movu, mova, movnt, r0, r1, r2, r3, r4, r5, r6, r7, h32a, h32b, h16a, h16b, movh, bcast, qword, vzu
	WIDTH_CLASSES \w, \V, \movu, \mova, \movnt, \r0, \r1, \r2, \r3, \r4, \r5, \r6, \r7, \h32a, \h32b, \h16a, \h16b, \movh, \bcast, \qword, \vzu

/* One line of streaming stores at OFF(%rcx), from a..d (the registers
 * this width needs of them). */
.macro NT_STORE_LINE_\w off, a, b, c, d
	\movnt	\a, \off(%rcx)
	.if \V < 64
	\movnt	\b, \off+\V(%rcx)
	.endif
	.if \V < 32
	\movnt	\c, \off+2*\V(%rcx)
	\movnt	\d, \off+3*\V(%rcx)
	.endif
.endm
.macro NT_COPY_LINE_\w off
	\movu	\off(%rcx,%r8), \r0
	.if \V < 64
	\movu	\off+\V(%rcx,%r8), \r1
	.endif
	.if \V < 32
	\movu	\off+2*\V(%rcx,%r8), \r2
	\movu	\off+3*\V(%rcx,%r8), \r3
	.endif
	NT_STORE_LINE_\w \off, \r0, \r1, \r2, \r3
.endm
.macro NT_SET_LINE_\w off
	NT_STORE_LINE_\w \off, \r0, \r0, \r0, \r0
.endm

/* A loop that faulted: clear the upper state (AVX), then replay. */
.Lfix_copy_\w:
	VZU	\vzu
	jmp	ntm_replay_copy
.Lfix_set_\w:
	VZU	\vzu
	jmp	ntm_replay_set

/* Cached loops (the vec_* variants' guarded forms): any n. */
FUNCTION ntm_guarded_copy_vec_\w
	COPY_SMALL_\w %rdi, %rsi, %rdx, RET_DONE, \vzu, .Lgcv_loop_\w
.Lgcv_loop_\w:
	COPY_LOOP \V, \movu, \mova, \r0, \r1, \r2, \r3, RET_DONE, \vzu
	END	ntm_guarded_copy_vec_\w
	/* The small path leaves rcx unset: start the replay at dst. */
.Lfix_copy_small_\w:
	mov	%rdi, %rcx
	mov	%rsi, %r8
	sub	%rdi, %r8
	lea	(%rdi,%rdx), %r10
	jmp	.Lfix_copy_\w
	GUARD	ntm_guarded_copy_vec_\w, .Lgcv_loop_\w, .Lfix_copy_small_\w
	GUARD	.Lgcv_loop_\w, .Lfix_copy_small_\w, .Lfix_copy_\w

FUNCTION ntm_guarded_set_vec_\w
	FILL_\w
	SET_SMALL_\w %rdi, %rdx, RET_DONE, \vzu, .Lgsv_loop_\w
.Lgsv_loop_\w:
	SET_LOOP \V, \movu, \mova, \r0, RET_DONE, \vzu
	END	ntm_guarded_set_vec_\w
.Lfix_set_small_\w:
	mov	%rdi, %rcx
	lea	(%rdi,%rdx), %r10
	jmp	.Lfix_set_\w
	GUARD	ntm_guarded_set_vec_\w, .Lgsv_loop_\w, .Lfix_set_small_\w
	GUARD	.Lgsv_loop_\w, .Lfix_set_small_\w, .Lfix_set_\w

/* Streaming loops (the nt_* variants' guarded forms). */
	NT_COPY ntm_guarded_copy_nt_\w, NT_COPY_LINE_\w, COPY_SMALL_\w, .Lfix_copy_\w, \vzu
	NT_SET ntm_guarded_set_nt_\w, FILL_\w, NT_SET_LINE_\w, SET_SMALL_\w, .Lfix_set_\w, \vzu

.endm

	FOR_EACH_WIDTH WIDTH

/* ------------------------------------------------------------------ */
/* rep movsb, rep stosb                                                */
/* ------------------------------------------------------------------ */

/* A faulting rep stops with rdi at the element that faulted: the fixups
 * take the progress point from it alone.  The end (r10) and src - dst
 * (r8) are set before the rep, not derived from rcx at the fault:
 * valgrind's emulation of a rep string instruction counts rcx down
 * before the element's access, so at a fault its rcx is one short, while
 * rdi is exact there as it is on the CPU. */
FUNCTION ntm_guarded_copy_movsb
	mov	%rdx, %rcx
	lea	(%rdi,%rdx), %r10
	mov	%rsi, %r8
	sub	%rdi, %r8
.Lmovsb:
	rep movsb
.Lmovsb_done:
	xor	%eax, %eax
	xor	%edx, %edx
	ret
	END	ntm_guarded_copy_movsb
.Lfix_movsb:
	mov	%rdi, %rcx
	jmp	ntm_replay_copy
	GUARD	.Lmovsb, .Lmovsb_done, .Lfix_movsb

FUNCTION ntm_guarded_set_stosb
	mov	%esi, %eax
	mov	%rdx, %rcx
	lea	(%rdi,%rdx), %r10
.Lstosb:
	rep stosb
.Lstosb_done:
	xor	%eax, %eax
	xor	%edx, %edx
	ret
	END	ntm_guarded_set_stosb
.Lfix_stosb:
	mov	%rdi, %rcx
	jmp	ntm_replay_set
	GUARD	.Lstosb, .Lstosb_done, .Lfix_stosb

/* ------------------------------------------------------------------ */
/* MOVNTI and MOVDIR64B, in the streaming shape with SSE2 partials      */
/* ------------------------------------------------------------------ */

.macro MOVNTI_COPY_LINE off
	mov	\off(%rcx,%r8), %rax
	mov	\off+8(%rcx,%r8), %rdx
	mov	\off+16(%rcx,%r8), %rsi
	mov	\off+24(%rcx,%r8), %r11
	movnti	%rax, \off(%rcx)
	movnti	%rdx, \off+8(%rcx)
	movnti	%rsi, \off+16(%rcx)
	movnti	%r11, \off+24(%rcx)
	mov	\off+32(%rcx,%r8), %rax
	mov	\off+40(%rcx,%r8), %rdx
	mov	\off+48(%rcx,%r8), %rsi
	mov	\off+56(%rcx,%r8), %r11
	movnti	%rax, \off+32(%rcx)
	movnti	%rdx, \off+40(%rcx)
	movnti	%rsi, \off+48(%rcx)
	movnti	%r11, \off+56(%rcx)
.endm
.macro MOVNTI_SET_LINE off
	.irp	w, 0, 8, 16, 24, 32, 40, 48, 56
	movnti	%rax, \off+\w(%rcx)
	.endr
.endm

	NT_COPY ntm_guarded_copy_movnti, MOVNTI_COPY_LINE, COPY_SMALL_sse2, .Lfix_copy_sse2, 0
.macro MOVNTI_SETUP
	FILL_sse2
	QWORD_SSE2 %rax
.endm
	NT_SET ntm_guarded_set_movnti, MOVNTI_SETUP, MOVNTI_SET_LINE, SET_SMALL_sse2, .Lfix_set_sse2, 0

/* MOVDIR64B: one 64-byte direct store a line, to an aligned address in a
 * register.  Sets store from a line of the pattern kept in the red zone
 * below rsp, which signal delivery leaves alone. */
.macro DIR64_COPY_LINE off
	lea	\off(%rcx), %rax
	movdir64b \off(%rcx,%r8), %rax
.endm
.macro DIR64_SET_LINE off
	lea	\off(%rcx), %rax
	movdir64b -64(%rsp), %rax
.endm
.macro DIR64_SETUP
	FILL_sse2
	movdqu	%xmm0, -64(%rsp)
	movdqu	%xmm0, -48(%rsp)
	movdqu	%xmm0, -32(%rsp)
	movdqu	%xmm0, -16(%rsp)
.endm
	NT_COPY ntm_guarded_copy_movdir64b, DIR64_COPY_LINE, COPY_SMALL_sse2, .Lfix_copy_sse2, 0
	NT_SET ntm_guarded_set_movdir64b, DIR64_SETUP, DIR64_SET_LINE, SET_SMALL_sse2, .Lfix_set_sse2, 0

	.section .note.GNU-stack, "", @progbits
