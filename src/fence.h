/* fence.h - order streaming stores before later stores. */
#ifndef NTM_FENCE_H
#define NTM_FENCE_H

#if defined(__x86_64__) || defined(__i386__)
#include <immintrin.h>
/* SFENCE: streaming stores, CLZERO and MOVDIR64B are weakly ordered;
 * SFENCE orders them before every later store. */
static inline void ntm_fence(void)
{
	_mm_sfence();
}
#else
static inline void ntm_fence(void)
{
	__atomic_thread_fence(__ATOMIC_SEQ_CST);
}
#endif

#endif
