/* clzero.c - AMD CLZERO: zero a whole line without reading it, weakly
 * ordered like streaming stores.  Zero only: the caller guarantees c == 0. */
#include "features.h"
#include "variant.h"

#ifdef __x86_64__
#include <x86intrin.h>

#define SHAPE_ATTR __attribute__((target("clzero")))
#define SHAPE_VALUE_T int
#define SHAPE_VALUE(c) (c)
#define SHAPE_SET ntm_set_clzero
#define SHAPE_SET_LINE(d, v) ((void)(v), _mm_clzero(d))
#include "shape.h"

DEFINE_FAMILY(clzero,
	{.name = "clzero",
	 .description = "AMD CLZERO, one whole line at a time, zeros only",
	 .op = NTMEM_OP_SET, .role = NTMEM_ROLE_STREAMING, .rank = 50, .zero_only = true, .requires = CPU_CLZERO,
	 .set = ntm_set_clzero});
#else
DEFINE_EMPTY_FAMILY(clzero);
#endif
