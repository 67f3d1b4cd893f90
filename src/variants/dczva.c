/* dczva.c - AArch64 DC ZVA: zero a whole block without reading it first,
 * as glibc, the kernel and PMDK clear memory there.  Zeros only.
 *
 * The block is DCZID_EL0's (64 B on most cores, 256 B on A64FX; qemu's
 * "max" CPU says 512 B).  Only whole blocks at block-aligned addresses go
 * to DC ZVA, the body aligned to the larger of the block and a 64-byte
 * line, so it always covers whole aligned lines; the head and tail, and
 * any span too short to hold one aligned block, take cached NEON stores.
 * The registry offers the variant only where DCZID_EL0.DZP is clear. */
#include "features.h"
#include "sysreg.h"
#include "variant.h"

#ifdef __aarch64__
#include "neon.h"
#include "small.h"

/* The block size, read once from DCZID_EL0: the variant runs only after
 * the registry has checked that DC ZVA is usable (DZP clear). */
static size_t zva_block(void)
{
	static unsigned block;
	unsigned b = __atomic_load_n(&block, __ATOMIC_RELAXED);
	if (!b) {
		b = ntm_dczva_block(ntm_sysreg_dczid());
		__atomic_store_n(&block, b, __ATOMIC_RELAXED);
	}
	return b;
}

/* n zeros with cached stores; n may exceed the small path's reach when
 * the block is large. */
__attribute__((target(VEC_TARGET))) static void zero_cached(unsigned char *d,
							    size_t n)
{
	for (; n > SMALL_MAX; d += SMALL_MAX, n -= SMALL_MAX)
		ntm_small_set_neon(d, 0, SMALL_MAX);
	ntm_small_set_neon(d, 0, n);
}

/* c is 0: the registry refuses other values for a zero-only variant. */
__attribute__((target(VEC_TARGET))) static void *ntm_set_dczva(void *dst, int c,
							       size_t n)
{
	(void)c;
	unsigned char *d = dst;
	size_t block = zva_block();
	size_t align = block > LINE ? block : LINE;
	size_t head = (size_t)(-(uintptr_t)d) & (align - 1);
	if (!block || n < head + align) {
		zero_cached(d, n);
		return dst;
	}
	zero_cached(d, head);
	d += head;
	n -= head;
	unsigned char *body_end = d + (n & ~(align - 1));
	for (; d < body_end; d += block)
		__asm__ volatile("dc zva, %0" : : "r"(d) : "memory");
	zero_cached(d, n & (align - 1));
	return dst;
}

DEFINE_FAMILY(dc_zva,
	{.name = "dc_zva",
	 .description = "DC ZVA, whole DCZID_EL0 blocks without reading them, zeros only",
	 .op = NTMEM_OP_SET, .role = NTMEM_ROLE_STREAMING, .rank = 50, .zero_only = true,
	 .requires = CPU_ASIMD | CPU_DCZVA,
	 .set = ntm_set_dczva});
#else
DEFINE_EMPTY_FAMILY(dc_zva);
#endif
