/* fence.c - the one fence every streaming path ends with. */
#include "fence.h"

#if defined(__x86_64__) || defined(__i386__)
#include <immintrin.h>

void ntm_fence(void)
{
	_mm_sfence();
}
#elif defined(__aarch64__)
/*
 * DMB ISHST.  What ntm_fence promises is SFENCE's effect on x86: every
 * earlier store of this thread, streaming or not, is observed before any
 * later store of it.  From the Arm ARM (DDI 0487):
 *
 * - STNP's non-temporal part is a hint about caching.  The ordering the
 *   architecture relaxes for the non-temporal pair instructions is an
 *   address dependency into an LDNP; nothing orders an STNP against a
 *   later store but a barrier, and a DMB orders every explicit store of
 *   this PE before it against every one after it, hinted or not.  DC ZVA
 *   counts as a store to each byte of its block.  So streaming stores
 *   need what any store to Normal memory needs to be seen before a later
 *   one, as Normal memory gives no store-to-store order by itself.
 * - ST: stores before stores is the whole promise.  A full DMB (ISH)
 *   would also hold back the later loads, which SFENCE does not and no
 *   caller needs.
 * - ISH: the observers are other threads, which run on the processing
 *   elements of one OS, all in the Inner Shareable domain.  Handing data
 *   to a device that reads Non-cacheable memory by DMA takes DMB OSHST or
 *   DSB ST (Linux's dma_wmb() and wmb()); that is the driver's business.
 * - DMB, not DSB: the promise is order, not completion.
 *
 * A release store (STLR) after a call orders everything before it even
 * without this fence; the fence serves publication by plain stores and
 * keeps the contract the same on every architecture.
 */
void ntm_fence(void)
{
	__asm__ volatile("dmb ishst" ::: "memory");
}
#else
/* No variant streams here: a full fence, never reached on a hot path. */
void ntm_fence(void)
{
	__atomic_thread_fence(__ATOMIC_SEQ_CST);
}
#endif
