/* test_fence.c - the fence contract, checked where it is decided: every
 * call that streams ends with exactly one fence unless NTMEM_F_NOFENCE,
 * and no cached call fences.  (A reader thread cannot show a missing
 * SFENCE on x86, which almost never reorders in practice, nor a missing
 * DMB under qemu on an x86 host.)  Linked with -Wl,--wrap=ntm_fence, so
 * the library's fence calls come here first.  On AArch64 the fence must
 * be DMB ISHST (src/entry/fence.c says why). */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "harness.h"
#include "ntmem.h"

void __real_ntm_fence(void);
void __wrap_ntm_fence(void);

static int fences;

void __wrap_ntm_fence(void)
{
	fences++;
	__real_ntm_fence();
}

#define N (64 * 1024)

static unsigned char dst[N + 64], src[N + 64];

/* The fences one call makes. */
static int set_fences(unsigned flags)
{
	fences = 0;
	ntmem_set_flags(dst, 0x11, N, flags);
	return fences;
}

static int copy_fences(unsigned flags)
{
	fences = 0;
	ntmem_copy_flags(dst, src, N, flags);
	return fences;
}

/* The instruction the fence is made of, looked for in its first bytes:
 * what fence.c argues for is what runs. */
static void test_fence_instruction(void)
{
#if defined(__aarch64__)
	const uint32_t dmb_ishst = 0xd5033abf, ret = 0xd65f03c0;
	const uint32_t *code = (const uint32_t *)(uintptr_t)&__real_ntm_fence;
	int found = 0, i = 0;
	for (; i < 16 && code[i] != ret; i++)
		found |= code[i] == dmb_ishst;
	t_check(found, "AArch64: ntm_fence is DMB ISHST", "not in its %d "
		"instructions before RET", i);
#elif defined(__x86_64__)
	const unsigned char *code = (const unsigned char *)(uintptr_t)&__real_ntm_fence;
	int found = 0;
	for (int i = 0; i < 32 && !found; i++)
		found = code[i] == 0x0f && code[i + 1] == 0xae && code[i + 2] == 0xf8;
	t_check(found, "x86-64: ntm_fence is SFENCE", "not in its first 32 bytes");
#else
	t_skip("the fence instruction", "nothing streams on this architecture: "
	       "the fence is the compiler's full fence");
#endif
}

int main(int argc, char **argv)
{
	(void)argc;
	/* The policy streams from 32 KiB. */
	static const char *const env[] = {
		"NTMEM_PROFILE=none",
		"NTMEM_TUNABLES=set_threshold=32KiB,copy_threshold=32KiB", NULL};
	t_reexec_with(argv, env);
	test_fence_instruction();

	struct ntmem_ladder_info l;
	ntmem_ladder_info(NTMEM_CLASS_SET_NONZERO, &l);
	struct ntmem_variant_info v;
	ntmem_variant_info(l.streaming, &v);
	if (!v.streaming) {
		t_skip("fence counts", "no streaming variant runs on this CPU");
		return t_finish();
	}

	t_check(set_fences(0) == 1 && copy_fences(0) == 1,
		"a streaming call ends with one fence", "set %d copy %d",
		set_fences(0), copy_fences(0));
	t_check(set_fences(NTMEM_F_NONTEMPORAL) == 1 &&
		copy_fences(NTMEM_F_NONTEMPORAL) == 1,
		"NTMEM_F_NONTEMPORAL: one fence", "fences missing");
	t_check(set_fences(NTMEM_F_NOFENCE) == 0 && copy_fences(NTMEM_F_NOFENCE) == 0 &&
		set_fences(NTMEM_F_NONTEMPORAL | NTMEM_F_NOFENCE) == 0,
		"NTMEM_F_NOFENCE: no fence", "fenced anyway");
	t_check(set_fences(NTMEM_F_TEMPORAL) == 0 && copy_fences(NTMEM_F_TEMPORAL) == 0,
		"a cached call does not fence", "fenced");

	fences = 0;
	ntmem_set(dst, 0, 100);         /* below the threshold: cached */
	ntmem_copy(dst + 1, dst, 1000); /* overlap: memmove */
	ntmem_set_flags(dst, 0, 0, NTMEM_F_NONTEMPORAL); /* nothing to write */
	t_check(fences == 0, "cached, overlapping and empty calls do not fence",
		"%d fences", fences);

	fences = 0;
	ntmem_fence();
	t_check(fences == 1, "ntmem_fence is the same fence", "%d", fences);

	/* Direct variant calls: streaming ones fence, cached ones do not. */
	int ok = 1;
	for (int id = 0; id < ntmem_variant_count(); id++) {
		ntmem_variant_info(id, &v);
		if (!v.supported)
			continue;
		fences = 0;
		if (v.op == NTMEM_OP_SET)
			ntmem_variant_set(id, dst, 0, N, 0);
		else
			ntmem_variant_copy(id, dst, src, N, 0);
		int with = fences;
		fences = 0;
		if (v.op == NTMEM_OP_SET)
			ntmem_variant_set(id, dst, 0, N, NTMEM_F_NOFENCE);
		else
			ntmem_variant_copy(id, dst, src, N, NTMEM_F_NOFENCE);
		if (with != v.streaming || fences != 0) {
			ok = 0;
			t_fail("direct calls fence exactly when they stream",
			       "%s: %d fences, %d with NOFENCE", v.name, with, fences);
		}
	}
	if (ok)
		t_pass("direct calls fence exactly when they stream");
	return t_finish();
}
