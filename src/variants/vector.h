/* vector.h - cached and streaming set and copy for one vector width.
 *
 * Before including, define:
 *   VEC_T, VEC_BYTES     the vector type and its size (a divisor of 64)
 *   VEC_TARGET           the target attribute string, e.g. "avx"
 *   VEC_SPLAT(c)         a vector with every byte equal to (unsigned char)c
 *   VEC_LOADU(p)         load from any alignment
 *   VEC_STOREU(p, v)     cached store to any alignment
 *   VEC_STORE(p, v)      aligned cached store
 *   VEC_STREAM(p, v)     aligned streaming store
 *   VEC_NAME(stem)       the function name for stem (set_vec, copy_nt, ...)
 * Defines the static functions VEC_NAME(set_nt) and VEC_NAME(copy_nt)
 * (streaming, in shape.h's loop, their partial lines by small.h's small
 * path), and with VEC_COPY_SHAPES defined VEC_NAME(copy_nt_pages) and
 * VEC_NAME(copy_nt_ahead), the copy in shape.h's other orders.  A width
 * whose entry points are written in C includes entry_c.h after this
 * file; on x86-64 they are in entry_x86_64.S.
 */
#include "small.h"
#define VEC_PER_LINE (LINE / VEC_BYTES)

#define VEC_SET_LINE(store, d, v)                                  \
	do {                                                       \
		for (size_t vi_ = 0; vi_ < VEC_PER_LINE; vi_++)    \
			store((VEC_T *)(d) + vi_, (v));            \
	} while (0)

/* All loads of the line before any store, so the stores issue back to
 * back and fill the write-combining buffer in one go. */
#define VEC_COPY_LINE(store, d, s)                                         \
	do {                                                               \
		VEC_T line_[VEC_PER_LINE];                                 \
		for (size_t vi_ = 0; vi_ < VEC_PER_LINE; vi_++)            \
			line_[vi_] = VEC_LOADU((const VEC_T *)(s) + vi_);  \
		for (size_t vi_ = 0; vi_ < VEC_PER_LINE; vi_++)            \
			store((VEC_T *)(d) + vi_, line_[vi_]);             \
	} while (0)

#define SHAPE_ATTR __attribute__((target(VEC_TARGET)))
#define SHAPE_SET_PARTIAL(d, c, n) VEC_NAME(small_set)((d), (c), (n))
#define SHAPE_COPY_PARTIAL(d, s, n) VEC_NAME(small_copy)((d), (s), (n))
#define SHAPE_VALUE_T VEC_T
#define SHAPE_VALUE(c) VEC_SPLAT(c)

/* A width whose streaming store writes two vectors at once (AArch64 STNP)
 * defines VEC_STREAM_LINE(d, v) and VEC_STREAM_COPY_LINE(d, s) for a
 * whole line instead of VEC_STREAM. */
#ifndef VEC_STREAM_LINE
#define VEC_STREAM_LINE(d, v) VEC_SET_LINE(VEC_STREAM, d, v)
#define VEC_STREAM_COPY_LINE(d, s) VEC_COPY_LINE(VEC_STREAM, d, s)
#endif

#define SHAPE_SET VEC_NAME(set_nt)
#define SHAPE_SET_LINE(d, v) VEC_STREAM_LINE(d, v)
#define SHAPE_COPY VEC_NAME(copy_nt)
#ifdef VEC_COPY_SHAPES
#define SHAPE_COPY_PAGES VEC_NAME(copy_nt_pages)
#define SHAPE_COPY_AHEAD VEC_NAME(copy_nt_ahead)
#endif
#define SHAPE_COPY_LINE(d, s) VEC_STREAM_COPY_LINE(d, s)
#include "shape.h"

