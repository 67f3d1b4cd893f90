/* width.c - the entry width this CPU uses (width.h). */
#include "width.h"

#include <stdint.h>
#include <string.h>

#include "cpu.h"

NTM_NO_SANITIZE enum ntm_width ntm_width_for(unsigned usable)
{
#if defined(__x86_64__)
	const unsigned evex = CPU_AVX512F | CPU_AVX512BW | CPU_AVX512VL;
	if ((usable & evex) == evex)
		return NTM_WIDTH_AVX512;
	if (usable & CPU_AVX2)
		return NTM_WIDTH_AVX2;
	return NTM_WIDTH_SSE2;
#elif defined(__aarch64__)
	(void)usable;
	return NTM_WIDTH_NEON;  /* part of every AArch64 Linux target */
#else
	(void)usable;
	return NTM_WIDTH_PORTABLE;
#endif
}

NTM_NO_SANITIZE enum ntm_width ntm_width_choose(void)
{
#if defined(__x86_64__)
	unsigned reported;
	uint64_t xcr0;
	return ntm_width_for(ntm_cpu_probe(&reported, &xcr0));
#else
	return ntm_width_for(0);
#endif
}

const char *ntm_width_name(enum ntm_width w)
{
	switch (w) {
	case NTM_WIDTH_SSE2:
		return "sse2";
	case NTM_WIDTH_AVX2:
		return "avx2";
	case NTM_WIDTH_AVX512:
		return "avx512";
	default:
		return NULL;
	}
}

enum ntm_width ntm_width_named(const char *name)
{
	for (enum ntm_width w = NTM_WIDTH_NONE; w < NTM_WIDTHS; w++)
		if (ntm_width_name(w) && !strcmp(name, ntm_width_name(w)))
			return w;
	return NTM_WIDTH_NONE;
}

unsigned ntm_width_loop_requires(enum ntm_width w)
{
	switch (w) {
	case NTM_WIDTH_SSE2:
		return CPU_SSE2;
	case NTM_WIDTH_AVX2:
		return CPU_AVX2;
	case NTM_WIDTH_AVX512:
		return CPU_AVX512F | CPU_AVX512BW | CPU_AVX512VL;
	default:
		return 0;  /* NEON and the portable words: no inline loop */
	}
}

unsigned ntm_width_bytes(enum ntm_width w)
{
	switch (w) {
	case NTM_WIDTH_AVX512:
		return 64;
	case NTM_WIDTH_AVX2:
		return 32;
	default:
		return 16;
	}
}

size_t ntm_width_small_max(enum ntm_width w)
{
	return w == NTM_WIDTH_PORTABLE ? NTM_PORTABLE_SMALL_MAX
				       : NTM_SMALL_VECTORS * (size_t)ntm_width_bytes(w);
}

unsigned ntm_width_usable(enum ntm_width w, unsigned usable)
{
	const unsigned avx512 = CPU_AVX512F | CPU_AVX512BW | CPU_AVX512VL;
	if (w <= NTM_WIDTH_SSE2)
		usable &= ~(CPU_AVX | CPU_AVX2 | avx512);
	else if (w == NTM_WIDTH_AVX2)
		usable &= ~avx512;
	return usable;
}
