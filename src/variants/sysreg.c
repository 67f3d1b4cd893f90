/* sysreg.c - AArch64 system register reads; see sysreg.h for why they
 * sit apart from cpu.c. */
#include "sysreg.h"

#if defined(__aarch64__)
uint64_t ntm_sysreg_dczid(void)
{
	uint64_t v;
	__asm__ volatile("mrs %0, dczid_el0" : "=r"(v));
	return v;
}

uint64_t ntm_sysreg_ctr(void)
{
	uint64_t v;
	__asm__ volatile("mrs %0, ctr_el0" : "=r"(v));
	return v;
}

uint64_t ntm_sysreg_midr(void)
{
	uint64_t v;
	__asm__ volatile("mrs %0, midr_el1" : "=r"(v));
	return v;
}
#else
/* ISO C wants a translation unit to declare something. */
typedef int ntm_sysreg_none;
#endif
