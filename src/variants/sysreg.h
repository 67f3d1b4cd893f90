/* sysreg.h - the AArch64 system registers user space may read.
 *
 * Each read is a function of its own, out of line and in its own object,
 * so that a test can put a value of its choosing in place of the
 * hardware's (ld --wrap=ntm_sysreg_dczid): qemu-user always lets EL0 use
 * DC ZVA, so the prohibited case can be seen only that way.  cpu.c and
 * the DC ZVA variant call them.  Defined on AArch64 only. */
#ifndef NTM_SYSREG_H
#define NTM_SYSREG_H

#include <stdint.h>

#if defined(__aarch64__)
/* DCZID_EL0: DC ZVA's block size (bits 3:0, log2 of 4-byte words) and
 * DZP (bit 4: the instruction is prohibited).  Always readable at EL0. */
uint64_t ntm_sysreg_dczid(void);

/* CTR_EL0: the cache line sizes (DminLine, bits 19:16, log2 of words;
 * CWG, bits 27:24).  Readable at EL0 under Linux (SCTLR_EL1.UCT). */
uint64_t ntm_sysreg_ctr(void);

/* MIDR_EL1: implementer, variant, part number, revision.  An EL1
 * register: only where the kernel emulates the read (HWCAP_CPUID). */
uint64_t ntm_sysreg_midr(void);
#endif

/* DC ZVA's block size in bytes as DCZID_EL0 states it (4 << BS), or 0
 * when BS is above the Arm ARM's largest, 2 KiB.  DZP is not looked at
 * here: it says whether the instruction may be used, not how big its
 * block is.  Pure, for tests. */
static inline unsigned ntm_dczva_block(uint64_t dczid)
{
	unsigned bs = (unsigned)(dczid & 0xf);
	return bs <= 9 ? 4u << bs : 0;
}
#define NTM_DCZID_DZP (1u << 4)

#endif
