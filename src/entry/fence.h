/* fence.h - order streaming stores before later stores. */
#ifndef NTM_FENCE_H
#define NTM_FENCE_H

/* SFENCE on x86: streaming stores, CLZERO and MOVDIR64B are weakly
 * ordered, and SFENCE orders them before every later store.  DMB ISHST on
 * AArch64, where every store to Normal memory is weakly ordered, STNP and
 * DC ZVA included (fence.c says why this barrier).  Out of line
 * on purpose: it follows a whole streaming call, so the call costs
 * nothing measurable, and the tests can count it (ld --wrap). */
void ntm_fence(void);

#endif
