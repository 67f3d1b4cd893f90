/*
 * asm_constants.c - the numbers the assembly needs, taken from the C that
 * owns them, as the Linux kernel makes asm-offsets.h: this file is only
 * ever compiled to assembly, where each CONSTANT leaves a line
 * "->NAME value" that the Makefile turns into ".set NAME, value" in
 * $(O)/gen/asm_constants.h.  A change in C then changes the assembly with
 * it, instead of silently disagreeing with a number written in by hand.
 */
#include <stddef.h>

#include "dispatch/select.h"
#include "ntmem.h"
#include "safe/safe.h"
#include "dispatch/width.h"
#include "variants/features.h"

#define CONSTANT(name, value) \
	__asm__ volatile("\n.ascii \"->" #name " %c0\"" : : "i"((long)(value)))

void ntm_asm_constants(void);
void ntm_asm_constants(void)
{
	/* The flags the entry points test. */
	CONSTANT(NTMEM_F_TEMPORAL, NTMEM_F_TEMPORAL);
	CONSTANT(NTMEM_F_NONTEMPORAL, NTMEM_F_NONTEMPORAL);
	CONSTANT(NTMEM_F_NOFENCE, NTMEM_F_NOFENCE);
	CONSTANT(NTMEM_F_NOZEROFILL, NTMEM_F_NOZEROFILL);
	CONSTANT(NTMEM_F_UNBLOCKED, NTMEM_F_UNBLOCKED);
	/* What a guarded loop returns in rdx (enum ntm_fault). */
	CONSTANT(FAULT_READ, NTM_FAULT_READ);
	CONSTANT(FAULT_WRITE, NTM_FAULT_WRITE);
	/* Byte offsets into ntm_limits (the selector's, select.h) and
	 * ntm_safe_gate[width]. */
	CONSTANT(LIMITS_INLINE_SET, offsetof(struct ntm_limits, inline_max[NTMEM_OP_SET]));
	CONSTANT(LIMITS_INLINE_COPY, offsetof(struct ntm_limits, inline_max[NTMEM_OP_COPY]));
	CONSTANT(LIMITS_SHIM_SSE2_BELOW, offsetof(struct ntm_limits, shim_sse2_below));
	CONSTANT(LIMITS_SHIM_SSE2_END, offsetof(struct ntm_limits, shim_sse2_end));
	CONSTANT(LIMITS_SHIM_EVEX_END, offsetof(struct ntm_limits, shim_evex_end));
	CONSTANT(LIMITS_SHIM_AVX2_END, offsetof(struct ntm_limits, shim_avx2_end));
	CONSTANT(SAFE_GATE_sse2, NTM_WIDTH_SSE2 * sizeof(size_t));
	CONSTANT(SAFE_GATE_avx2, NTM_WIDTH_AVX2 * sizeof(size_t));
	CONSTANT(SAFE_GATE_avx512, NTM_WIDTH_AVX512 * sizeof(size_t));
}
