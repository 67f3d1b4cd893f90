/* neon.c - the AArch64 Advanced SIMD width: cached Q-register loops
 * (family neon) and STNP streaming loops in shape.h's loop (family stnp).
 * The entry points of the width are src/entry/entry_neon.c. */
#include "features.h"
#include "variant.h"

#ifdef __aarch64__
#include "neon.h"
#include "stnp.h"

/* STNP stores two vectors at once: vector.h takes whole lines. */
#define VEC_STREAM_LINE(d, v) ntm_stnp_set_line((d), (v))
#define VEC_STREAM_COPY_LINE(d, s) ntm_stnp_copy_line((d), (s))
#include "vector.h"
#include "cached_c.h"

DEFINE_FAMILY(neon,
	{.name = "neon",
	 .description = "Advanced SIMD Q-register stores, cached",
	 .op = NTMEM_OP_SET, .role = NTMEM_ROLE_VECTOR, .rank = 1, .requires = CPU_ASIMD,
	 .set = ntm_cached_set_neon},
	{.name = "neon",
	 .description = "Advanced SIMD Q-register loads and stores, cached",
	 .op = NTMEM_OP_COPY, .role = NTMEM_ROLE_VECTOR, .rank = 1, .requires = CPU_ASIMD,
	 .copy = ntm_cached_copy_neon});

DEFINE_FAMILY(stnp,
	{.name = "stnp",
	 .description = "STNP Q-register pairs, non-temporal hint, whole 64 B lines",
	 .op = NTMEM_OP_SET, .role = NTMEM_ROLE_STREAMING, .rank = 30, .requires = CPU_ASIMD,
	 .set = ntm_set_nt_neon},
	{.name = "stnp",
	 .description = "Q-register loads, STNP pair stores, whole 64 B lines",
	 .op = NTMEM_OP_COPY, .role = NTMEM_ROLE_STREAMING, .rank = 30, .requires = CPU_ASIMD,
	 .copy = ntm_copy_nt_neon});
#else
DEFINE_EMPTY_FAMILY(neon);
DEFINE_EMPTY_FAMILY(stnp);
#endif
