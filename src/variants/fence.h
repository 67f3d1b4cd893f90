/* fence.h - order streaming stores before later stores. */
#ifndef NTM_FENCE_H
#define NTM_FENCE_H

#include "ntmem.h"

/* SFENCE on x86: streaming stores, CLZERO and MOVDIR64B are weakly
 * ordered, and SFENCE orders them before every later store.  DMB ISHST on
 * AArch64, where every store to Normal memory is weakly ordered, STNP and
 * DC ZVA included (fence.c says why this barrier).  Out of line
 * on purpose: it follows a whole streaming call, so the call costs
 * nothing measurable, and the tests can count it (ld --wrap). */
void ntm_fence(void);

/* The one fence rule: a call that streamed fences before it returns,
 * unless the caller asked for NTMEM_F_NOFENCE (and fences itself).  The
 * assembly entry points never stream, so never fence. */
static inline void ntm_fence_after(int streamed, unsigned flags)
{
	if (streamed && !(flags & NTMEM_F_NOFENCE))
		ntm_fence();
}

#endif
