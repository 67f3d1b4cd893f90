/* entry_x86.c - the x86-64 entry widths: tables over the functions of
 * entry_x86_64.S. */
#include "entry.h"

#ifdef __x86_64__
#define DECLARE_WIDTH(w)                                                     \
	void *ntm_entry_set_##w(void *, int, size_t);                        \
	void *ntm_entry_copy_##w(void *, const void *, size_t);              \
	set_flags_fn ntm_entry_set_flags_##w;                                \
	copy_flags_fn ntm_entry_copy_flags_##w

#define WIDTH_TABLE(w, W, name)                                              \
	const struct entry_width ntm_entry_##w = {                           \
		NTM_WIDTH_##W, ntm_entry_set_##w, ntm_entry_copy_##w,        \
		ntm_entry_set_flags_##w, ntm_entry_copy_flags_##w,           \
		ntm_safe_copy_##w, ntm_safe_set_##w, name}

DECLARE_WIDTH(sse2);
DECLARE_WIDTH(avx2);
DECLARE_WIDTH(avx512);

WIDTH_TABLE(sse2, SSE2, "SSE2 stores");
WIDTH_TABLE(avx2, AVX2, "AVX2 stores");
WIDTH_TABLE(avx512, AVX512, "AVX-512 stores");
#endif
