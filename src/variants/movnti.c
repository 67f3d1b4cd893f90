/* movnti.c - 8-byte MOVNTI streaming stores from general registers: the
 * loop of clear_page_movnt (seed 000) and __copy_user_zeroing_intel_nocache
 * (seed 004), eight stores a line. */
#include "features.h"
#include "variant.h"

#ifdef __x86_64__
#include <immintrin.h>

#define WORDS_PER_LINE (LINE / 8)

static inline long long load_word(const unsigned char *p)
{
	long long w;
	__builtin_memcpy(&w, p, sizeof w);  /* any alignment */
	return w;
}

#define SHAPE_ATTR __attribute__((target("sse2")))
#define SHAPE_VALUE_T long long
#define SHAPE_VALUE(c) ((long long)(0x0101010101010101ull * (unsigned char)(c)))
#define SHAPE_SET ntm_set_movnti
#define SHAPE_SET_LINE(d, v)                                          \
	do {                                                          \
		for (size_t w_ = 0; w_ < WORDS_PER_LINE; w_++)        \
			_mm_stream_si64((long long *)(d) + w_, (v));  \
	} while (0)
#define SHAPE_COPY ntm_copy_movnti
#define SHAPE_COPY_LINE(d, s)                                                \
	do {                                                                 \
		long long line_[WORDS_PER_LINE];                             \
		for (size_t w_ = 0; w_ < WORDS_PER_LINE; w_++)               \
			line_[w_] = load_word((s) + 8 * w_);                 \
		for (size_t w_ = 0; w_ < WORDS_PER_LINE; w_++)               \
			_mm_stream_si64((long long *)(d) + w_, line_[w_]);   \
	} while (0)
#include "shape.h"

DEFINE_FAMILY(movnti,
	{.name = "movnti",
	 .description = "MOVNTI 8-byte streaming stores, as clear_page_movnt",
	 .op = NTMEM_OP_SET, .role = NTMEM_ROLE_STREAMING, .rank = 10, .requires = CPU_SSE2,
	 .set = ntm_set_movnti},
	{.name = "movnti",
	 .description = "MOVNTI 8-byte streaming stores, as the 2005 nocache copy",
	 .op = NTMEM_OP_COPY, .role = NTMEM_ROLE_STREAMING, .rank = 10, .requires = CPU_SSE2,
	 .copy = ntm_copy_movnti});
#else
DEFINE_EMPTY_FAMILY(movnti);
#endif
