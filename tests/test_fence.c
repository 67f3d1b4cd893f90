/* test_fence.c - the fence contract, checked where it is decided: every
 * call that streams ends with exactly one fence unless NTMEM_F_NOFENCE,
 * and no cached call fences.  (A reader thread cannot show a missing
 * SFENCE on x86, which almost never reorders in practice.)  Linked with
 * -Wl,--wrap=ntm_fence, so the library's fence calls come here first. */
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

int main(int argc, char **argv)
{
	(void)argc;
	/* The policy streams from 32 KiB. */
	static const char *const env[] = {
		"NTMEM_PROFILE=none",
		"NTMEM_TUNABLES=set_threshold=32KiB,copy_threshold=32KiB", NULL};
	t_reexec_with(argv, env);

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
