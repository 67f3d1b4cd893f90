/* entry_neon.c - the entry points of the AArch64 Advanced SIMD width: a
 * small path of overlapping unaligned Q stores (variants/small.h), the
 * ladder beyond it. */
#include "entry.h"

#ifdef __aarch64__
#include "variants/neon.h"
#include "variants/small.h"

#define ENTRY_WIDTH NTM_WIDTH_NEON
#define ENTRY_NAME(stem) ntm_##stem##_neon
#define ENTRY_TARGET VEC_TARGET
#define ENTRY_SMALL_MAX SMALL_MAX
#define ENTRY_SMALL_NAME "NEON stores"
#define ENTRY_SMALL_SET(d, c, n) ntm_small_set_neon((d), (c), (n))
#define ENTRY_SMALL_COPY(d, s, n) ntm_small_copy_neon((d), (s), (n))
#include "entry_c.h"
#else
/* ISO C wants a translation unit to declare something. */
typedef int ntm_entry_neon_none;
#endif
