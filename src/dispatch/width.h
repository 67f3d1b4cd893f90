/* width.h - which entry width (enum ntm_width) this CPU uses: the choice
 * is made here, the widths themselves live in src/entry/. */
#ifndef NTM_WIDTH_H
#define NTM_WIDTH_H

#include <stddef.h>

#include "variants/features.h"

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

/* The bytes of one vector of width w (16 for the portable words), and
 * so the small path's reach: 8 vectors on x86-64 (entry_x86_64.S). */
NTM_HIDDEN unsigned ntm_width_bytes(enum ntm_width w);

/* The small path's reach for width w: the entry points serve every call
 * of up to this many bytes with their own stores, never the ladder.  The
 * entry widths' tables (src/entry/) say the same; test_policy checks the
 * width this CPU uses. */
NTM_HIDDEN size_t ntm_width_small_max(enum ntm_width w);

#endif
