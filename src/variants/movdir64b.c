/* movdir64b.c - MOVDIR64B: one 64-byte direct store a line, weakly ordered
 * like streaming stores (Sapphire Rapids and later).  No machine the
 * project tests on has it, so this family is built but untested. */
#include "features.h"
#include "variant.h"

#ifdef __x86_64__
#include <immintrin.h>
#include <string.h>

/* MOVDIR64B reads its 64 bytes from memory, so set needs a source line. */
struct line_of_bytes {
	_Alignas(LINE) unsigned char b[LINE];
};

static inline struct line_of_bytes line_filled_with(int c)
{
	struct line_of_bytes l;
	memset(l.b, c, sizeof l.b);
	return l;
}

#define SHAPE_ATTR __attribute__((target("movdir64b")))
#define SHAPE_VALUE_T struct line_of_bytes
#define SHAPE_VALUE(c) line_filled_with(c)
#define SHAPE_SET ntm_set_movdir64b
#define SHAPE_SET_LINE(d, v) _movdir64b((d), (v).b)
#define SHAPE_COPY ntm_copy_movdir64b
#define SHAPE_COPY_LINE(d, s) _movdir64b((d), (s))
#include "shape.h"

DEFINE_FAMILY(movdir64b,
	{.name = "movdir64b",
	 .description = "MOVDIR64B 64-byte direct stores from a stack line",
	 .op = NTMEM_OP_SET, .role = NTMEM_ROLE_STREAMING, .rank = 35, .requires = CPU_MOVDIR64B,
	 .set = ntm_set_movdir64b},
	{.name = "movdir64b",
	 .description = "MOVDIR64B 64-byte direct stores, memory to memory",
	 .op = NTMEM_OP_COPY, .role = NTMEM_ROLE_STREAMING, .rank = 35, .requires = CPU_MOVDIR64B,
	 .copy = ntm_copy_movdir64b});
#else
DEFINE_EMPTY_FAMILY(movdir64b);
#endif
