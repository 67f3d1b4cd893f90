/*
 * classes_x86_64.h - the size classes up to 8 vectors, the aligned
 * 4-vector loops, the byte broadcasts and the widths themselves, as
 * assembler macros, written once for the cached vector loops
 * (cached_x86_64.S), the entry points (entry/entry_x86_64.S), their
 * guarded twins (safe/guarded_x86_64.S) and the shim
 * (preload/preload_x86_64.S), which alone include it.
 *
 * The classes: up to 2, 4 and 8 vectors, that many unaligned moves, half
 * anchored at the end; below one vector, the 32-, 16-, 8- and 4-byte
 * classes, two overlapping moves each (a memset: 4-15 bytes as one class,
 * SET_4_TO_15), then up to 3 bytes as a byte and a word.  On the AVX-512
 * width a memset below one vector is a single masked store.  A copy loads
 * everything before it stores anything, so up to 8 vectors it is also
 * memmove.  Its stores go in address order, except with tail_first=1
 * (the guarded forms): the store holding the last byte goes first and
 * the one holding the first byte second.  Up to 8 vectors those two
 * touch every page the destination spans, so after they succeed no later
 * store can fault (safe.c relies on this for overlapping buffers).
 *
 * Each class ends with "\fin \arg": a return macro and its argument, or
 * JMP_TO and a label.  Scratch: r9 and r11, and the vector registers
 * named; rcx, r8 and r10 are left alone (the guarded loops' contract).
 * The loops, and SET_CLASSES, which runs one, use rcx too.
 */

/* A hidden global function, 64-byte aligned. */
.macro FUNCTION name
	.globl	\name
	.hidden	\name
	.type	\name, @function
	.p2align 6
\name:
.endm

/*
 * LOOP_LINE bytes: start a loop of at most that many bytes where it lies
 * in one 64-byte line of code (the front end fetches and caches decoded
 * code by such lines): 32-byte aligned up to 32 bytes, else on a line of
 * its own.  On the Xeon a loop across two lines cost a few percent more
 * time on some mixes of sizes (the AVX-512 memset of GoogleD, the SSE2
 * one of 513 bytes to 4 KiB), and far more with sequences of sizes the
 * branch predictor had learnt (docs/results.md, "Where the code lies"
 * and "Figures the code's comments quoted").  tests/test_loops.c checks
 * every cached loop.
 */
.macro LOOP_LINE bytes
	.if \bytes <= 32
	.p2align 5
	.else
	.p2align 6
	.endif
.endm

/* ------------------------------------------------------------------ */
/* Copies                                                              */
/* ------------------------------------------------------------------ */

/* W <= n <= 2W: the first and the last W bytes.  ld and st differ where
 * a narrow load zero-extends into a wider register. */
.macro COPY_PAIR W, ld, la, lb, st, sa, sb, d, s, n, tail_first
	\ld	(\s), \la
	\ld	-\W(\s,\n), \lb
	.if \tail_first
	\st	\sb, -\W(\d,\n)
	.endif
	\st	\sa, (\d)
	.ifeq \tail_first
	\st	\sb, -\W(\d,\n)
	.endif
.endm

/*
 * Below one vector: a ladder of compares on to the class of n, label
 * \p\()W for W <= n < 2W, W = 32, 16 (where V is larger), 8 and 4,
 * falling through for n < 4.  Each class is one taken branch away, and
 * the smallest sizes none, as in glibc's memcpy.
 */
.macro BELOW_LADDER V, n, p
	.if \V > 32
	cmp	$32, \n
	jae	\p\()32
	.endif
	.if \V > 16
	cmp	$16, \n
	jae	\p\()16
	.endif
	cmp	$8, \n
	jae	\p\()8
	cmp	$4, \n
	jae	\p\()4
.endm

/* The class of W at label \at: n in [W, 2W). */
.macro COPY_CLASS at, W, ld, la, lb, st, sa, sb, d, s, n, tail_first, fin, arg
	.p2align 5
\at:
	COPY_PAIR \W, \ld, \la, \lb, \st, \sa, \sb, \d, \s, \n, \tail_first
	\fin	\arg
.endm

/* The 4 vectors at \s (plus \i, if given) into r0-r3. */
.macro LOAD_4V V, movu, r0, r1, r2, r3, s, i
	.ifb \i
	\movu	(\s), \r0
	\movu	\V(\s), \r1
	\movu	2*\V(\s), \r2
	\movu	3*\V(\s), \r3
	.else
	\movu	(\s,\i), \r0
	\movu	\V(\s,\i), \r1
	\movu	2*\V(\s,\i), \r2
	\movu	3*\V(\s,\i), \r3
	.endif
.endm

/* The first and last 4 vectors into r0-r3 and r4-r7. */
.macro LOAD_8V V, movu, r0, r1, r2, r3, r4, r5, r6, r7, s, n
	LOAD_4V	\V, \movu, \r0, \r1, \r2, \r3, \s
	\movu	-4*\V(\s,\n), \r4
	\movu	-3*\V(\s,\n), \r5
	\movu	-2*\V(\s,\n), \r6
	\movu	-\V(\s,\n), \r7
.endm

/* r0-r3 to the first 4 vectors at \d. */
.macro STORE_4V V, movu, r0, r1, r2, r3, d
	\movu	\r0, (\d)
	\movu	\r1, \V(\d)
	\movu	\r2, 2*\V(\d)
	\movu	\r3, 3*\V(\d)
.endm

/*
 * n <= 8 vectors; above 8, a jump to \above (blank: n is at most 8
 * vectors).  Where the caller knows more (non-blank): not2, n is not one
 * to two vectors; upto2, n is at most two, and only those classes are
 * written; over1, n is over one vector, and no class below is written.
 * The width's registers come by position (V, the vector moves, 8 full
 * vectors, two each of 32 and 16 bytes ("none" where V is no wider), the
 * narrow move); the rest by name, each defaulting to the entry points'
 * use: copy rdi <- rsi, rdx bytes, stores in address order, "ret".
 *
 * Every class up to 8 vectors is at most one taken branch from the
 * entry, and the one past 4 vectors starts a 64-byte line: on Zen 3 a
 * second taken branch, or a target mid-line, cost a 256-byte copy
 * measurably (docs/results.md, "The small path past 4 vectors"), and
 * glibc's memcpy takes one there.
 */
.macro COPY_SMALL V, movu, r0, r1, r2, r3, r4, r5, r6, r7, h32a, h32b, h16a, h16b, movh, d=%rdi, s=%rsi, n=%rdx, tail_first=0, fin=RETURN, arg=0, above, not2, upto2, over1
	.ifb \over1
	cmp	$\V, \n
	jb	.Lcs_below_\@
	.endif
	.ifnb \upto2
	COPY_PAIR \V, \movu, \r0, \r1, \movu, \r0, \r1, \d, \s, \n, \tail_first
	\fin	\arg
	.else
	cmp	$4*\V, \n
	ja	.Lcs_above4_\@
	.ifb \not2
	cmp	$2*\V, \n
	ja	.Lcs_above2_\@
	COPY_PAIR \V, \movu, \r0, \r1, \movu, \r0, \r1, \d, \s, \n, \tail_first
	\fin	\arg
	.p2align 4
.Lcs_above2_\@:
	.endif
	\movu	(\s), \r0
	\movu	\V(\s), \r1
	\movu	-2*\V(\s,\n), \r2
	\movu	-\V(\s,\n), \r3
	.if \tail_first
	\movu	\r3, -\V(\d,\n)
	.endif
	\movu	\r0, (\d)
	\movu	\r1, \V(\d)
	\movu	\r2, -2*\V(\d,\n)
	.ifeq \tail_first
	\movu	\r3, -\V(\d,\n)
	.endif
	\fin	\arg
	.p2align 6
.Lcs_above4_\@:
	.ifnb \above
	cmp	$8*\V, \n
	ja	\above
	.endif
	LOAD_8V \V, \movu, \r0, \r1, \r2, \r3, \r4, \r5, \r6, \r7, \s, \n
	.if \tail_first
	\movu	\r7, -\V(\d,\n)
	.endif
	STORE_4V \V, \movu, \r0, \r1, \r2, \r3, \d
	\movu	\r4, -4*\V(\d,\n)
	\movu	\r5, -3*\V(\d,\n)
	\movu	\r6, -2*\V(\d,\n)
	.ifeq \tail_first
	\movu	\r7, -\V(\d,\n)
	.endif
	\fin	\arg
	.endif
	.ifb \over1
	.p2align 6
.Lcs_below_\@:
	BELOW_LADDER \V, \n, .Lcs\@_
	/* 0 to 3 bytes: the first byte, and for 2 or 3 the last two. */
	test	\n, \n
	jz	.Lcs_none_\@
	movzbl	(\s), %r9d
	cmp	$1, \n
	je	.Lcs_one_\@
	movzwl	-2(\s,\n), %r11d
	mov	%r11w, -2(\d,\n)
.Lcs_one_\@:
	mov	%r9b, (\d)
.Lcs_none_\@:
	\fin	\arg
	.if \V > 32
	COPY_CLASS .Lcs\@_32, 32, \movh, \h32a, \h32b, \movh, \h32a, \h32b, \d, \s, \n, \tail_first, \fin, \arg
	.endif
	.if \V > 16
	COPY_CLASS .Lcs\@_16, 16, \movh, \h16a, \h16b, \movh, \h16a, \h16b, \d, \s, \n, \tail_first, \fin, \arg
	.endif
	COPY_CLASS .Lcs\@_8, 8, mov, %r9, %r11, mov, %r9, %r11, \d, \s, \n, \tail_first, \fin, \arg
	COPY_CLASS .Lcs\@_4, 4, mov, %r9d, %r11d, mov, %r9d, %r11d, \d, \s, \n, \tail_first, \fin, \arg
	.endif
.endm

/* Aligned 4-vector blocks from rcx while rcx < \end, from rcx + r8, in
 * address order, with three registers: the fourth vector reuses \r0.
 * With \src (a free register), the loads come from it, advanced beside
 * rcx: with loads indexed by r8 the SSE2 loop was slower than glibc's
 * from 513 bytes to 4 KiB, with \src faster (docs/results.md, the fifth
 * pass, "What changed, and why").  The guarded loops keep r8 indexed:
 * their fault handler reads rcx and r8 alone. */
.macro COPY_BLOCKS V, movu, mova, r0, r1, r2, end, src
	.ifnb \src
	lea	(%rcx,%r8), \src
	.endif
	LOOP_LINE 64
.Lcb_\@:
	.ifnb \src
	\movu	(\src), \r0
	\movu	\V(\src), \r1
	\movu	2*\V(\src), \r2
	.else
	\movu	(%rcx,%r8), \r0
	\movu	\V(%rcx,%r8), \r1
	\movu	2*\V(%rcx,%r8), \r2
	.endif
	\mova	\r0, (%rcx)
	\mova	\r1, \V(%rcx)
	\mova	\r2, 2*\V(%rcx)
	.ifnb \src
	\movu	3*\V(\src), \r0
	add	$4*\V, \src
	.else
	\movu	3*\V(%rcx,%r8), \r0
	.endif
	\mova	\r0, 3*\V(%rcx)
	add	$4*\V, %rcx
	cmp	\end, %rcx
	jb	.Lcb_\@
.endm

/* ------------------------------------------------------------------ */
/* Sets: the pattern in every byte of \r0, \h32 and \h16 its low halves */
/* ------------------------------------------------------------------ */

/* W <= n <= 2W: the first and the last W bytes, from the register \r. */
.macro SET_PAIR W, mov, r, d, n
	\mov	\r, (\d)
	\mov	\r, -\W(\d,\n)
.endm

/* The class of W at label \at, as COPY_CLASS. */
.macro SET_CLASS at, W, mov, r, d, n, fin, arg
	.p2align 5
\at:
	SET_PAIR \W, \mov, \r, \d, \n
	\fin	\arg
.endm

/* \r0 to the first 4 vectors at \d, and with \n the last 4 below \d + n. */
.macro SET_4V V, movu, r0, d, n
	.ifb \n
	\movu	\r0, (\d)
	\movu	\r0, \V(\d)
	\movu	\r0, 2*\V(\d)
	\movu	\r0, 3*\V(\d)
	.else
	\movu	\r0, -4*\V(\d,\n)
	\movu	\r0, -3*\V(\d,\n)
	\movu	\r0, -2*\V(\d,\n)
	\movu	\r0, -\V(\d,\n)
	.endif
.endm

/* As COPY_SMALL (over1 too); gpr_from copies 8 bytes of the pattern into
 * a register (r9 here) for the sizes below 4 bytes. */
.macro SET_SMALL V, movu, r0, h32, h16, movh, gpr_from, d, n, fin, arg, above, not2, over1
	.ifb \over1
	cmp	$\V, \n
	jb	.Lss_below_\@
	.endif
	cmp	$4*\V, \n
	ja	.Lss_above4_\@
	.ifb \not2
	cmp	$2*\V, \n
	ja	.Lss_above2_\@
	SET_PAIR \V, \movu, \r0, \d, \n
	\fin	\arg
	.p2align 4
.Lss_above2_\@:
	.endif
	\movu	\r0, (\d)
	\movu	\r0, \V(\d)
	\movu	\r0, -2*\V(\d,\n)
	\movu	\r0, -\V(\d,\n)
	\fin	\arg
	.p2align 6
.Lss_above4_\@:
	.ifnb \above
	cmp	$8*\V, \n
	ja	\above
	.endif
	SET_4V	\V, \movu, \r0, \d
	SET_4V	\V, \movu, \r0, \d, \n
	\fin	\arg
	.ifb \over1
	.p2align 6
.Lss_below_\@:
	SET_BELOW \V, \r0, \movh, \h32, \h16, \gpr_from, \d, \n, \fin, \arg
	.endif
.endm

/* n < W bytes of the pattern in the W-byte register r to d under a mask,
 * or on to \cross where the W bytes at d would cross a page. */
.macro MASKED_SET W, r, d, n, cross
	lea	\W(\d), %r9d
	test	$4096 - \W, %r9d
	jz	\cross
	mov	$-1, %r9
	bzhi	\n, %r9, %r9
	kmovq	%r9, %k1
	vmovdqu8 \r, (\d){%k1}
.endm

/*
 * 4 <= n <= 15: the low 4 bytes of the pattern in x (an XMM register,
 * stored by mov: MOVD, or VMOVD where the width is VEX) at 0, p,
 * n - 4 - p and n - 4, where p is 4 from 8 bytes on (below, the middle
 * two repeat the outer two), as the shim's COPY_4_TO_16.  No branch
 * between 4 and 8 bytes: in the fleet's mixes those are the commonest
 * memsets below 16 bytes, and the compare between them was mispredicted
 * often; with it the shim's AVX2 memset of GoogleB was slower than
 * glibc's, without it faster (docs/results.md, "One class for 4-15
 * bytes").  Scratch: r9 (n may be in r11, and is kept).
 */
.macro SET_4_TO_15 mov, x, d, n
	mov	\n, %r9
	and	$8, %r9d
	shr	%r9d
	\mov	\x, (\d)
	\mov	\x, (\d,%r9)
	\mov	\x, -4(\d,\n)
	neg	%r9
	add	\n, %r9
	\mov	\x, -4(\d,%r9)
.endm

/* n < V, for SET_SMALL or for a caller that has compared n itself. */
.macro SET_BELOW V, r0, movh, h32, h16, gpr_from, d, n, fin, arg
	.if \V == 64
	/* One store under a mask of n bytes (AVX-512BW; BZHI: every
	 * AVX-512 CPU has BMI2), unless the 64 bytes it spans cross a page,
	 * as (dst + 64) mod 4096 < 64 says: there the CPU would have to
	 * suppress a fault on the masked-off bytes, which is slow (glibc's
	 * memset takes the same care).  No compare on n: in a mix of sizes
	 * each one is a branch mispredicted now and then (docs/results.md). */
	MASKED_SET 64, \r0, \d, \n, .Lsb_ladder_\@
	\fin	\arg
.Lsb_ladder_\@:
	.endif
	.if \V > 32
	cmp	$32, \n
	jae	.Lsb\@_32
	.endif
	.if \V > 16
	cmp	$16, \n
	jae	.Lsb\@_16
	.endif
	cmp	$4, \n
	jae	.Lsb\@_4
	/* 0 to 3 bytes, as for copies. */
	\gpr_from %r9
	test	\n, \n
	jz	.Lsb_none_\@
	cmp	$1, \n
	je	.Lsb_one_\@
	mov	%r9w, -2(\d,\n)
.Lsb_one_\@:
	mov	%r9b, (\d)
.Lsb_none_\@:
	\fin	\arg
	.if \V > 32
	SET_CLASS .Lsb\@_32, 32, \movh, \h32, \d, \n, \fin, \arg
	.endif
	.if \V > 16
	SET_CLASS .Lsb\@_16, 16, \movh, \h16, \d, \n, \fin, \arg
	.endif
	.p2align 5
.Lsb\@_4:
	.if \V == 16
	SET_4_TO_15 movd, \r0, \d, \n
	.else
	SET_4_TO_15 vmovd, \h16, \d, \n
	.endif
	\fin	\arg
.endm

/* Aligned 4-vector blocks from rcx while rcx < \end (a loop of 28, 31
 * and 39 bytes on the SSE2, AVX2 and AVX-512 widths). */
.macro SET_BLOCKS V, mova, r0, end
	LOOP_LINE 32+32*(\V/64)
.Lsb_\@:
	\mova	\r0, (%rcx)
	\mova	\r0, \V(%rcx)
	\mova	\r0, 2*\V(%rcx)
	\mova	\r0, 3*\V(%rcx)
	add	$4*\V, %rcx
	cmp	\end, %rcx
	jb	.Lsb_\@
.endm

/* ------------------------------------------------------------------ */
/* The byte in sil in every byte of a vector; 8 of them into a register */
/* ------------------------------------------------------------------ */

/* SSE2 spreads it in r9d first; AVX2 with VPBROADCASTB; AVX-512BW from
 * the general register.  (gas compares macro names without case: these
 * must differ from the files' own in more than case.) */
.macro BCAST_SSE2
	movzbl	%sil, %r9d
	imul	$0x01010101, %r9d, %r9d
	movd	%r9d, %xmm0
	pshufd	$0, %xmm0, %xmm0
.endm
.macro QWORD_SSE2 reg
	movq	%xmm0, \reg
.endm
.macro BCAST_AVX2
	vmovd	%esi, %xmm0
	vpbroadcastb %xmm0, %ymm0
.endm
.macro QWORD_AVX2 reg
	vmovq	%xmm0, \reg
.endm
.macro BCAST_EVEX
	vpbroadcastb %esi, %zmm16
.endm
.macro QWORD_EVEX reg
	vmovq	%xmm16, \reg
.endm

/* ------------------------------------------------------------------ */
/* The cached loops, whole                                             */
/* ------------------------------------------------------------------ */

/* Return; on the AVX2 width after clearing the upper YMM state. */
.macro RETURN vzu
	.if \vzu
	vzeroupper
	.endif
	ret
.endm

/* CACHED_SET_SIZES: rdi = dst, esi = c, rdx = n, rax = dst.  Puts c in
 * every byte of \r0 (\bcast), handles n <= 8 vectors and returns; larger
 * n falls through with \r0 set (\tag makes the labels unique).  The
 * broadcast comes first, as the stores of a call of one size repeated
 * wait on it least there. */
.macro CACHED_SET_SIZES tag, V, movu, r0, h32, h16, movh, qword, vzu, bcast
	\bcast
	SET_SMALL \V, \movu, \r0, \h32, \h16, \movh, \qword, %rdi, %rdx, RETURN, \vzu, .Lset_above8_\tag
.Lset_above8_\tag:
.endm

/* CACHED_SET_LOOP: n > 8 vectors; stores everything and returns.  The
 * first 4 vectors (unless the caller has: head=0) and the last 4, then
 * aligned 4-vector blocks between them. */
.macro CACHED_SET_LOOP V, movu, mova, r0, vzu, head=1
	.if \head
	SET_4V	\V, \movu, \r0, %rdi
	.endif
	SET_4V	\V, \movu, \r0, %rdi, %rdx
	/* Aligned from within the first 4 vectors up to the last 4. */
	lea	4*\V(%rdi), %rcx
	and	$-\V, %rcx
	lea	-4*\V(%rdi,%rdx), %rdx
	SET_BLOCKS \V, \mova, \r0, %rdx
	RETURN	\vzu
.endm

/*
 * CACHED_SET_LOOP8: the same after the caller has stored the first 4
 * vectors, in aligned 8-vector blocks (none where n is at most 12
 * vectors), then the last 8.  The shim's SSE2 width: in 16-byte blocks
 * of 4 its memsets of 257 bytes to 4 KiB were slower than glibc's SSE2
 * memset, in these level or faster (docs/results.md, the sixth pass,
 * "What changed in the shim, and why").
 */
.macro CACHED_SET_LOOP8 V, movu, mova, r0, vzu
	lea	4*\V(%rdi), %rcx
	and	$-\V, %rcx
	lea	-8*\V(%rdi,%rdx), %rdx
	cmp	%rdx, %rcx
	jae	.Lcsl8_last_\@
	LOOP_LINE 64
.Lcsl8_\@:
	.irp i, 0, 1, 2, 3, 4, 5, 6, 7
	\mova	\r0, \i*\V(%rcx)
	.endr
	sub	$-8*\V, %rcx
	cmp	%rdx, %rcx
	jb	.Lcsl8_\@
.Lcsl8_last_\@:
	.irp i, 0, 1, 2, 3, 4, 5, 6, 7
	\movu	\r0, \i*\V(%rdx)
	.endr
	RETURN	\vzu
.endm

/* The classes' way on: to route, or where it is blank to the shim's
 * ntm_shim_beyond_NAME. */
.macro JUMP_TO_ROUTE name, route
	.ifb \route
	jmp	ntm_shim_beyond_\name
	.else
	jmp	\route
	.endif
.endm

/*
 * SET_CLASSES: memset's classes of one width, for the shim (beyond the
 * inline limit, ntm_shim_beyond_NAME) and the entry
 * points of the AVX2 and AVX-512 widths (route: where to go instead).
 * rdi <- c (esi), rdx bytes, rax = rdi.  Below one vector the width's
 * narrow classes, to two vectors a pair of stores.  Above, the stores go
 * as the size is learnt, as in glibc's memset: the first two vectors,
 * then to 4 vectors the last two, else the next two, then to 8 vectors
 * the last 4; above, V's cached loop up to the selector's inline limit,
 * and the route above.  Each
 * store made before a compare is one that a mispredicted compare does
 * not hold up: in the fleet's mixes, a ladder of compares first and all
 * the stores after made the SSE2 width slower than glibc's, the stores
 * first level with it.  On the AVX2 and AVX-512 widths the loop is the
 * way on from the last compare, not a jump: as a jump, one more taken
 * branch, the AVX2 width was slower than glibc's at 257-512 bytes, as
 * the fall-through faster.  On the SSE2 width the loop is out of the way
 * of the classes up to 8 vectors (128 bytes; most of the fleet's
 * memsets), which made GoogleW slower than glibc's with the loop among
 * them; up to 16 vectors it stores straight on, and above in 8-vector
 * blocks (CACHED_SET_LOOP8) (docs/results.md, the sixth pass, "What
 * changed in the shim, and why").
 *
 * The class most calls fall through to: on the AVX-512 and AVX2 widths
 * the ones below one vector, on the SSE2 width the pair of 16 to 32
 * bytes (most of the memsets in GoogleA, L, U and W are of 16 to 32
 * bytes: docs/results.md, the fifth pass), whose classes below 16 bytes
 * are then out of the way, after the others.  On the AVX-512 width a
 * memset below 64 bytes is one store under a mask, with no compare on
 * its size (SET_BELOW): the shim's earlier split at 32 bytes made every
 * fleet memset mix slower than glibc's once the mixes' sequences no
 * longer repeated within the branch predictor's reach (docs/results.md,
 * "The measurement: 4096 calls were learnt").
 */
.macro SET_CLASSES name, tag, V, movu, mova, r0, h32, h16, movh, bcast, qword, vzu, route
	.if \V == 16
	\bcast
	cmp	$\V, %rdx
	jb	.Lbelow1_\tag
	.else
	/* AVX2: the byte into XMM0 before the compare, for both ways. */
	.if \vzu
	vmovd	%esi, %xmm0
	.endif
	cmp	$\V, %rdx
	jae	.Lover1_\tag
	.if \vzu
	/* Below 32 bytes from XMM0 alone, so no upper state for
	 * VZEROUPPER to clear: from YMM0, then VZEROUPPER, 0-15 bytes
	 * were slower than glibc's (docs/results.md, the sixth pass, "What
	 * changed in the shim, and why"). */
	vpbroadcastb %xmm0, %xmm0
	SET_BELOW \V, \r0, \movh, \h32, \h16, \qword, %rdi, %rdx, RETURN, 0
	.else
	\bcast
	SET_BELOW \V, \r0, \movh, \h32, \h16, \qword, %rdi, %rdx, RETURN, \vzu
	.endif
	.p2align 6
.Lover1_\tag:
	.if \vzu
	vpbroadcastb %xmm0, %ymm0
	.else
	\bcast
	.endif
	.endif
	cmp	$2*\V, %rdx
	ja	.Lover2_\tag
	SET_PAIR \V, \movu, \r0, %rdi, %rdx
	RETURN	\vzu
	.p2align 4
.Lover2_\tag:
	\movu	\r0, (%rdi)
	\movu	\r0, \V(%rdi)
	cmp	$4*\V, %rdx
	jbe	.Llast2_\tag
	\movu	\r0, 2*\V(%rdi)
	\movu	\r0, 3*\V(%rdi)
	cmp	$8*\V, %rdx
	.if \V == 16
	ja	.Lover8_\tag
	.else
	jbe	.Llast4_\tag
	cmp	ntm_limits+LIMITS_INLINE_SET(%rip), %rdx
	ja	.Lroute_\tag
	CACHED_SET_LOOP \V, \movu, \mova, \r0, \vzu, head=0
	.endif
.Llast4_\tag:
	SET_4V	\V, \movu, \r0, %rdi, %rdx
	RETURN	\vzu
.Llast2_\tag:
	\movu	\r0, -2*\V(%rdi,%rdx)
	\movu	\r0, -\V(%rdi,%rdx)
	RETURN	\vzu
	.if \V == 16
	.p2align 4
.Lbelow1_\tag:
	SET_BELOW \V, \r0, \movh, \h32, \h16, \qword, %rdi, %rdx, RETURN, \vzu
	.endif
	.if \V == 16
	.p2align 6
.Lover8_\tag:
	/* To 16 vectors (256 bytes), the next 4 and the last 8, no loop:
	 * with the loop 129-256 bytes were slower than glibc's, so faster
	 * (docs/results.md, the sixth pass, "What changed in the shim, and
	 * why"). */
	cmp	$16*\V, %rdx
	ja	.Lover16_\tag
	.irp i, 4, 5, 6, 7
	\movu	\r0, \i*\V(%rdi)
	.endr
	.irp i, 8, 7, 6, 5, 4, 3, 2, 1
	\movu	\r0, -\i*\V(%rdi,%rdx)
	.endr
	ret
.Lover16_\tag:
	cmp	ntm_limits+LIMITS_INLINE_SET(%rip), %rdx
	ja	.Lroute_\tag
	CACHED_SET_LOOP8 \V, \movu, \mova, \r0, \vzu
	.endif
.Lroute_\tag:
	.if \vzu
	vzeroupper
	.endif
	JUMP_TO_ROUTE \name, \route
.endm

/*
 * CACHED_COPY_LOOP8: n > 8 vectors, buffers apart; copies and returns.
 * Aligned 8-vector blocks from within the first vector (none where n is
 * at most about 9 vectors), then the last 8 and the first vector.  The
 * shim's SSE2 width (16 registers of 16 bytes): in blocks of 4 its
 * copies of 257-512 bytes were slower than glibc's SSE2 memcpy
 * (docs/results.md, the sixth pass, "What changed in the shim, and
 * why").  Scratch: rcx, r8-r11, XMM0-8.
 */
.macro CACHED_COPY_LOOP8 V, movu, mova, vzu
	\movu	(%rsi), %xmm8
	lea	\V(%rdi), %rcx
	and	$-\V, %rcx
	mov	%rcx, %r10
	sub	%rdi, %r10
	add	%rsi, %r10
	lea	-8*\V(%rdi,%rdx), %r9
	cmp	%r9, %rcx
	jae	.Lccl8_last_\@
	LOOP_LINE 64
.Lccl8_\@:
	.irp i, 0, 1, 2, 3, 4, 5, 6, 7
	\movu	\i*\V(%r10), %xmm\i
	.endr
	.irp i, 0, 1, 2, 3, 4, 5, 6, 7
	\mova	%xmm\i, \i*\V(%rcx)
	.endr
	sub	$-8*\V, %r10
	sub	$-8*\V, %rcx
	cmp	%r9, %rcx
	jb	.Lccl8_\@
.Lccl8_last_\@:
	lea	-8*\V(%rsi,%rdx), %r11
	.irp i, 0, 1, 2, 3, 4, 5, 6, 7
	\movu	\i*\V(%r11), %xmm\i
	.endr
	.irp i, 0, 1, 2, 3, 4, 5, 6, 7
	\movu	%xmm\i, \i*\V(%r9)
	.endr
	\movu	%xmm8, (%rdi)
	RETURN	\vzu
.endm

/* CACHED_COPY_SIZES: rdi = dst, rsi = src, rdx = n, rax = dst.  Handles
 * n <= 8 vectors (loads before stores) and returns; larger n falls
 * through. */
.macro CACHED_COPY_SIZES tag, V, movu, r0, r1, r2, r3, r4, r5, r6, r7, h32a, h32b, h16a, h16b, movh, vzu
	COPY_SMALL \V, \movu, \r0, \r1, \r2, \r3, \r4, \r5, \r6, \r7, \h32a, \h32b, \h16a, \h16b, \movh, arg=\vzu, above=.Lcopy_above8_\tag
.Lcopy_above8_\tag:
.endm

/* On to \to where the n bytes at rdi and rsi overlap: dst - src < n or
 * src - dst < n, unsigned.  Scratch: r8. */
.macro JUMP_IF_OVERLAP to
	mov	%rdi, %r8
	sub	%rsi, %r8
	cmp	%rdx, %r8
	jb	\to
	mov	%rsi, %r8
	sub	%rdi, %r8
	cmp	%rdx, %r8
	jb	\to
.endm

/*
 * CACHED_COPY_LOOP: n > 8 vectors, buffers apart; copies and returns.
 * The first vector and the last 4 are loaded first and stored last: one
 * unaligned store at the start, where storing the first 4 vectors before
 * the blocks made four, two of them splitting lines when dst is not
 * vector-aligned, and cost most at odd offsets (docs/results.md).
 */
.macro CACHED_COPY_LOOP V, movu, mova, r0, r1, r2, r3, r4, r5, r6, r7, vzu
	/* rcx: dst aligned, from within the first vector; r8: src - dst;
	 * r9: dst + n - 4 vectors, where the last 4 (held in r4-r7) go. */
	\movu	(%rsi), \r0
	lea	\V(%rdi), %rcx
	and	$-\V, %rcx
	mov	%rsi, %r8
	sub	%rdi, %r8
	lea	-4*\V(%rdi,%rdx), %r9
	LOAD_4V	\V, \movu, \r4, \r5, \r6, \r7, %r9, %r8
	COPY_BLOCKS \V, \movu, \mova, \r1, \r2, \r3, %r9, %r10
	STORE_4V \V, \movu, \r4, \r5, \r6, \r7, %r9
	\movu	\r0, (%rdi)
	RETURN	\vzu
.endm

/*
 * CACHED_COPY_LOOP_BACK: as CACHED_COPY_LOOP, from the end down, for
 * buffers whose page offsets put dst a little above src (ALIASING_BACK).
 * A forward loop's loads there fall on the page offsets of its own
 * stores still in flight, which the CPU takes for a dependence (4 KiB
 * aliasing); going down, the loads move away from the stores.  The
 * first 4 vectors and the last one are loaded first and stored last.
 */
.macro CACHED_COPY_LOOP_BACK V, movu, mova, r0, r1, r2, r3, r4, r5, r6, r7, vzu
	/* rcx: the end of dst aligned down; r10: as far into src; r9:
	 * dst + 4 vectors, below which the first 4 (held in r4-r7) go. */
	\movu	-\V(%rsi,%rdx), \r0
	LOAD_4V	\V, \movu, \r4, \r5, \r6, \r7, %rsi
	lea	(%rdi,%rdx), %rcx
	and	$-\V, %rcx
	mov	%rsi, %r10
	sub	%rdi, %r10
	add	%rcx, %r10
	lea	4*\V(%rdi), %r9
	LOOP_LINE 64
.Lccb_\@:
	\movu	-\V(%r10), \r1
	\movu	-2*\V(%r10), \r2
	\movu	-3*\V(%r10), \r3
	\mova	\r1, -\V(%rcx)
	\mova	\r2, -2*\V(%rcx)
	\mova	\r3, -3*\V(%rcx)
	\movu	-4*\V(%r10), \r1
	add	$-4*\V, %r10
	\mova	\r1, -4*\V(%rcx)
	add	$-4*\V, %rcx
	cmp	%r9, %rcx
	ja	.Lccb_\@
	STORE_4V \V, \movu, \r4, \r5, \r6, \r7, %rdi
	\movu	\r0, -\V(%rdi,%rdx)
	RETURN	\vzu
.endm

/* On to \to where dst lies less than ALIAS_WINDOW bytes, and less than
 * half of n, above src modulo 4 KiB: there a forward loop's loads run
 * into its own stores' page offsets.  glibc's memmove turns back on a
 * narrower test (256 bytes), which left most of the cost on the Zen 5
 * guest; at half of n or more, the forward loop lost nothing and the
 * backward one a little (docs/results.md, "Copies a little above their
 * source").  Buffers apart; scratch: r8. */
#define ALIAS_WINDOW 1024
.macro ALIASING_BACK to
	mov	%edi, %r8d
	sub	%esi, %r8d
	and	$0xfff, %r8d
	cmp	$ALIAS_WINDOW, %r8d
	jae	.Lab_\@
	add	%r8, %r8
	cmp	%rdx, %r8
	jb	\to
.Lab_\@:
.endm

/* ------------------------------------------------------------------ */
/* The copy classes of the shim and the entry points                   */
/* ------------------------------------------------------------------ */

/*
 * The copies below 16 bytes, with fewer branches than COPY_SMALL's
 * classes.  In a program's mix of sizes the branches that pick a class
 * are most of what a small copy costs, each mispredicted one some 15
 * cycles.  Below 16 bytes COPY_SMALL tests for 8, 4, 0 and 1 bytes;
 * these test for 4 and 0: 4-15 bytes are four 4-byte moves and 1-3 three
 * byte moves, with no branch inside.  With the shim's limits as class
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
 * COPY_CLASSES: the copy classes of one width, for the shim's memcpy
 * and memmove and the entry points' ntmem_copy (with COPY_SMALL's
 * classes ntmem_copy was slower than glibc's SSSE3 and SSE2 memcpy on
 * some fleet mixes: docs/results.md, "One set of copy classes").  They
 * test their classes in the order glibc's do: below one vector, up to
 * two, then up to 8; the 4- and 8-vector classes are one taken branch
 * away.  Every compare on the way to a class costs a small call a few
 * percent of its time (65-128 byte copies on the Xeon: docs/results.md,
 * the fifth pass, "What changed, and why"), so the shim's width
 * libraries make no compare but these, and the dispatching library one
 * more per width it passes.  Past 8 vectors they run the cached loop,
 * down from the end where dst lies a little above src modulo 4 KiB
 * (ALIASING_BACK).  Beyond the inline limit, and for buffers that
 * overlap beyond 8 vectors, they jump to route (default: the shim's
 * ntm_shim_beyond_NAME), which is safe before the constructor has run
 * (preload.c), with no upper state to clear.
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

/* rdi <- rsi, rdx bytes, rax = rdi: the pair of one to two vectors, below
 * one vector COPY_BELOW, then the classes of vector width V to 8V, and
 * past them the loop or the route (above).
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
.macro COPY_CLASSES name, tag, V, movu, mova, r0, r1, r2, r3, r4, r5, r6, r7, vzu, route
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
	ja	.Lroute_\tag
	JUMP_IF_OVERLAP .Lroute_\tag
	ALIASING_BACK .Lback_\tag
	.if \V == 16
	CACHED_COPY_LOOP8 \V, \movu, \mova, \vzu
	.else
	CACHED_COPY_LOOP \V, \movu, \mova, \r0, \r1, \r2, \r3, \r4, \r5, \r6, \r7, \vzu
	.endif
.Lback_\tag:
	CACHED_COPY_LOOP_BACK \V, \movu, \mova, \r0, \r1, \r2, \r3, \r4, \r5, \r6, \r7, \vzu
	.if \V == 16
	.p2align 4
.L16x16_\tag:
	COPY_16X16
	ret
	.endif
.Lroute_\tag:
	JUMP_TO_ROUTE \name, \route
.endm

/* ------------------------------------------------------------------ */
/* The widths                                                          */
/* ------------------------------------------------------------------ */

/*
 * FOR_EACH_WIDTH m: \m once per vector width (enum ntm_width), with
 *   w                  its name: sse2, avx2, avx512
 *   V                  vector bytes
 *   movu, mova, movnt  unaligned, aligned and streaming moves
 *   r0-r7              eight vector registers (avx512: ZMM16-23, which
 *                      leave no dirty upper state, as in glibc)
 *   h32a, h32b, h16a, h16b   32- and 16-byte registers for the classes
 *                      below one vector (the a's are the low halves of
 *                      r0); movh their move
 *   bcast, qword       fill r0 with the byte in sil; copy 8 bytes of it
 *                      into a general register
 *   vzu                1: VZEROUPPER before returning (avx2)
 */
.macro FOR_EACH_WIDTH m
	\m sse2, 16, movdqu, movdqa, movntdq, %xmm0, %xmm1, %xmm2, %xmm3, %xmm4, %xmm5, %xmm6, %xmm7, none, none, none, none, movdqu, BCAST_SSE2, QWORD_SSE2, 0
	\m avx2, 32, vmovdqu, vmovdqa, vmovntdq, %ymm0, %ymm1, %ymm2, %ymm3, %ymm4, %ymm5, %ymm6, %ymm7, none, none, %xmm0, %xmm1, vmovdqu, BCAST_AVX2, QWORD_AVX2, 1
	\m avx512, 64, vmovdqu64, vmovdqa64, vmovntdq, %zmm16, %zmm17, %zmm18, %zmm19, %zmm20, %zmm21, %zmm22, %zmm23, %ymm16, %ymm17, %xmm16, %xmm17, vmovdqu64, BCAST_EVEX, QWORD_EVEX, 0
.endm
