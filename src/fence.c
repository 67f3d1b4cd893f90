/* fence.c - the one fence every streaming path ends with. */
#include "fence.h"

#if defined(__x86_64__) || defined(__i386__)
#include <immintrin.h>

void ntm_fence(void)
{
	_mm_sfence();
}
#else
void ntm_fence(void)
{
	__atomic_thread_fence(__ATOMIC_SEQ_CST);
}
#endif
