/*
 * cached_x86_64.S - the cached vector loops of each x86-64 width, the
 * vec_sse2, vec_avx2 and vec_avx512 variants (sse2.c, avx.c, avx512.c):
 *
 *   ntm_cached_set_W, ntm_cached_copy_W
 *
 * Size classes up to 8 vectors, then the first and last 4 vectors
 * unaligned and aligned 4-vector stores between (classes_x86_64.h).  The
 * entry points (entry/entry_x86_64.S) run the same loops inline.  Copies
 * above 8 vectors need buffers apart, as every variant's do.
 */
#include "classes_x86_64.h"

	.text

.macro CACHED w, V, movu, mova, movnt, r0, r1, r2, r3, r4, r5, r6, r7, h32a, h32b, h16a, h16b, movh, bcast, qword, vzu
FUNCTION ntm_cached_set_\w
	mov	%rdi, %rax
	CACHED_SET_SIZES \w\()_c, \V, \movu, \r0, \h32a, \h16a, \movh, \qword, \vzu, \bcast
	CACHED_SET_LOOP \V, \movu, \mova, \r0, \vzu
	.size	ntm_cached_set_\w, .-ntm_cached_set_\w

FUNCTION ntm_cached_copy_\w
	mov	%rdi, %rax
	CACHED_COPY_SIZES \w\()_c, \V, \movu, \r0, \r1, \r2, \r3, \r4, \r5, \r6, \r7, \h32a, \h32b, \h16a, \h16b, \movh, \vzu
	CACHED_COPY_LOOP \V, \movu, \mova, \r0, \r1, \r2, \r3, \r4, \r5, \r6, \r7, \vzu
	.size	ntm_cached_copy_\w, .-ntm_cached_copy_\w
.endm

	FOR_EACH_WIDTH CACHED

	.section .note.GNU-stack, "", @progbits
