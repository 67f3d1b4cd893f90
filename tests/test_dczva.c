/* test_dczva.c - DC ZVA where it is prohibited, and DCZID_EL0's decoding.
 *
 * qemu-user always lets user space use DC ZVA (it sets SCTLR_EL1.DZE), so
 * DCZID_EL0.DZP is never seen set under emulation.  This test is linked
 * with -Wl,--wrap=ntm_sysreg_dczid: on AArch64 the library reads the
 * real register with DZP added, and the whole library must then treat
 * dc_zva as unsupported, with the reason, and clear memory with the next
 * streaming variant.  On other architectures only the decoding is tested
 * (it is pure). */
#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include "dispatch/cpu.h"
#include "variants/sysreg.h"
#include "harness.h"
#include "ntmem.h"

#if defined(__aarch64__)
uint64_t __real_ntm_sysreg_dczid(void);
uint64_t __wrap_ntm_sysreg_dczid(void);

uint64_t __wrap_ntm_sysreg_dczid(void)
{
	return __real_ntm_sysreg_dczid() | NTM_DCZID_DZP;
}
#endif

/* BS is log2 of the block in 4-byte words, up to 9 (2 KiB). */
static void test_decoding(void)
{
	static const struct {
		uint64_t dczid;
		unsigned block;
	} cases[] = {
		{0x4, 64},   {0x6, 256},  {0x7, 512}, {0x9, 2048}, {0x0, 4},
		{0xa, 0},    {0xf, 0},    {0x14, 64}, {0x16, 256},
		{0xffffffffffffffe4ull, 64},
	};
	int ok = 1;
	char why[96] = "";
	for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++)
		if (ntm_dczva_block(cases[i].dczid) != cases[i].block) {
			ok = 0;
			snprintf(why, sizeof why, "DCZID %#llx gave %u, want %u",
				 (unsigned long long)cases[i].dczid,
				 ntm_dczva_block(cases[i].dczid), cases[i].block);
		}
	t_check(ok, "DCZID_EL0: block sizes 4 B-2 KiB, none above, DZP apart",
		"%s", why);
}

#if defined(__aarch64__)
static void test_prohibited(void)
{
	struct ntmem_cpu_info info;
	ntmem_cpu_info(&info);
	t_check(!strstr(info.features, "DC-ZVA") &&
		strstr(info.missing, "DC-ZVA: DC ZVA is prohibited here (DCZID_EL0.DZP is set)") &&
		ntm_cpu()->zva_block == 0,
		"DZP set: DC-ZVA is missing, with the reason",
		"features '%s', missing '%s', block %u", info.features,
		info.missing, ntm_cpu()->zva_block);

	int id = ntmem_variant_find(NTMEM_OP_SET, "dc_zva");
	struct ntmem_variant_info v;
	int listed = id >= 0 && ntmem_variant_info(id, &v) == 0;
	t_check(listed && !v.supported && v.why_unsupported &&
		strstr(v.why_unsupported, "DZP"),
		"DZP set: dc_zva is listed, unsupported, and says why", "%s",
		listed && v.why_unsupported ? v.why_unsupported : "not listed");

	static unsigned char buf[8192];
	memset(buf, 0x33, sizeof buf);
	errno = 0;
	void *ret = listed ? ntmem_variant_set(id, buf, 0, sizeof buf, 0) : buf;
	int untouched = 1;
	for (size_t i = 0; i < sizeof buf; i++)
		untouched &= buf[i] == 0x33;
	t_check(!ret && errno == ENOTSUP && untouched,
		"DZP set: calling dc_zva fails with ENOTSUP and writes nothing",
		"returned %p, errno %d, untouched %d", ret, errno, untouched);

	/* Zeros now stream with STNP, at every size the ladder streams. */
	struct ntmem_ladder_info l;
	ntmem_ladder_info(NTMEM_CLASS_SET_ZERO, &l);
	struct ntmem_variant_info top, nt;
	ntmem_variant_info(l.rung[l.nrungs - 1].variant, &top);
	ntmem_variant_info(l.streaming, &nt);
	t_check(!strcmp(top.name, "stnp") && !strcmp(nt.name, "stnp"),
		"DZP set: the ladder for zeros streams with stnp",
		"top rung %s, NONTEMPORAL %s", top.name, nt.name);

	memset(buf, 0x33, sizeof buf);
	ret = ntmem_set_flags(buf + 3, 0, sizeof buf - 7, NTMEM_F_NONTEMPORAL);
	int right = ret == buf + 3 && buf[0] == 0x33 && buf[2] == 0x33 &&
		    buf[sizeof buf - 4] == 0x33 && buf[sizeof buf - 1] == 0x33;
	for (size_t i = 3; i < sizeof buf - 4; i++)
		right &= buf[i] == 0;
	t_check(right, "DZP set: a streaming clear of zeros is still exact",
		"returned %p", ret);
}
#endif

int main(void)
{
	test_decoding();
#if defined(__aarch64__)
	test_prohibited();
#else
	t_skip("DC ZVA prohibited by DZP", "not an AArch64 build");
#endif
	return t_finish();
}
