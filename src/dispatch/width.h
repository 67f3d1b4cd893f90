/* width.h - which entry width (enum ntm_width) this CPU uses: the choice
 * is made here, the widths themselves live in src/entry/. */
#ifndef NTM_WIDTH_H
#define NTM_WIDTH_H

#include <stddef.h>

#include "variants/features.h"

/* The vector widths of the entry points (src/entry/): each has its small
 * path, and the x86-64 ones a vector loop they run inline.  Named here,
 * in the layer that chooses among them, so that the selector can; entry/
 * implements them. */
enum ntm_width {
	NTM_WIDTH_NONE,      /* none: no width forced, or none named */
	NTM_WIDTH_PORTABLE,  /* plain C words, any architecture */
	NTM_WIDTH_SSE2,      /* 16-byte XMM */
	NTM_WIDTH_AVX2,      /* 32-byte YMM */
	NTM_WIDTH_AVX512,    /* 64-byte ZMM, EVEX encoded (AVX-512F/BW/VL) */
	NTM_WIDTH_NEON,      /* 16-byte AArch64 Q registers */
	NTM_WIDTHS
};

/* The portable width's small path: 32 bytes of words
 * (entry/entry_portable.c). */
#define NTM_PORTABLE_SMALL_MAX 32

/* The widest vector the CPU and OS run: on x86-64 AVX-512 (with BW and
 * VL: the entries broadcast a byte into registers above 15 at every
 * width, and store below one vector under a byte mask), else AVX2, else
 * SSE2; NEON on AArch64; plain words elsewhere.  From CPUID alone, so an
 * IFUNC resolver may call it before the program is relocated. */
NTM_HIDDEN enum ntm_width ntm_width_choose(void);

/* The same for a CPU that runs the features in usable (enum cpu_feature
 * bits): pure, for the replay of recorded machines. */
NTM_HIDDEN enum ntm_width ntm_width_for(unsigned usable);

/* usable without the vector features wider than w: what a CPU of width
 * w would run (for NTMEM_TUNABLES shim_width=, select.c). */
NTM_HIDDEN unsigned ntm_width_usable(enum ntm_width w, unsigned usable);

/* The name of width w where NTMEM_TUNABLES shim_width= and the shim's
 * libraries of one width each (build/<name>/libntmem-preload.so) spell
 * it: "sse2", "avx2" or "avx512"; NULL for the other widths. */
NTM_HIDDEN const char *ntm_width_name(enum ntm_width w);

/* The width of that name, NTM_WIDTH_NONE for any other. */
NTM_HIDDEN enum ntm_width ntm_width_named(const char *name);

/* The features of the cached vector loop that the entry points of width
 * w run inline (a variant of role NTMEM_ROLE_VECTOR that requires exactly
 * these, registry.c's ntm_width_loop), 0 where they run none. */
NTM_HIDDEN unsigned ntm_width_loop_requires(enum ntm_width w);

/* The bytes of one vector of width w (16 for the portable words), and
 * so the small path's reach: 8 vectors on x86-64 (entry_x86_64.S). */
NTM_HIDDEN unsigned ntm_width_bytes(enum ntm_width w);

/* The small path's reach for width w: the entry points serve every call
 * of up to this many bytes with their own stores, never the ladder.  The
 * entry widths' tables (src/entry/) say the same; test_policy checks the
 * width this CPU uses. */
NTM_HIDDEN size_t ntm_width_small_max(enum ntm_width w);

#endif
