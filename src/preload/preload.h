/* preload.h - what the files of the LD_PRELOAD shim share (preload.c, the
 * interposed functions; preload_count.c, the counters behind
 * "ntmem run --report").  None of this is in libntmem itself. */
#ifndef NTM_PRELOAD_H
#define NTM_PRELOAD_H

#include <stddef.h>

#include "entry/entry.h"
#include "variants/variant.h"

/*
 * Every C library name the shim defines, by the operation it performs.
 * The set names hand (dst, c, n) to the entry point, the copy names
 * (dst, src, n); each adapts its own arguments and return value around
 * that call.
 */
#define NTM_SHIM_SET_FUNCTIONS(X) \
	X(memset) X(bzero) X(__bzero) X(explicit_bzero) X(__memset_chk) \
	X(__explicit_bzero_chk)
#define NTM_SHIM_COPY_FUNCTIONS(X) \
	X(memcpy) X(memmove) X(mempcpy) X(__mempcpy) X(__memcpy_chk) \
	X(__memmove_chk) X(__mempcpy_chk)

#define NTM_SHIM_ENUM(f) SHIM_##f,
#define NTM_SHIM_ONE(f) +1
enum shim_fn {
	NTM_SHIM_SET_FUNCTIONS(NTM_SHIM_ENUM)
	NTM_SHIM_COPY_FUNCTIONS(NTM_SHIM_ENUM)
	SHIM_FUNCTIONS
};
/* Set functions come first. */
enum { SHIM_SET_FUNCTIONS = 0 NTM_SHIM_SET_FUNCTIONS(NTM_SHIM_ONE) };

static inline enum ntmem_op ntm_shim_op(int f)
{
	return f < SHIM_SET_FUNCTIONS ? NTMEM_OP_SET : NTMEM_OP_COPY;
}

/* Where one function's calls go: the entry point of this CPU's vector
 * width, or a counting wrapper around it.  Set functions use .set, copy
 * functions .copy. */
union shim_route {
	set_fn *set;
	copy_fn *copy;
};

/* The entry width the shim calls: ntm_entry_width(), asked once. */
NTM_HIDDEN const struct entry_width *ntm_shim_width(void);

/* Point every function at the entry points, or (counting) at
 * ntm_shim_counted.  Lock-free: each route is one atomic store. */
NTM_HIDDEN void ntm_shim_route_all(int counting);

/* preload_count.c */

/* The counting wrappers, indexed by enum shim_fn: each counts the call
 * against the path the entry point will take, then makes it. */
NTM_HIDDEN extern const union shim_route ntm_shim_counted[SHIM_FUNCTIONS];

/* Read NTMEM_PRELOAD_REPORT; returns 1 if it asks this process for a
 * report (the caller then routes through ntm_shim_counted), else 0.
 * Called once, from the shim's constructor. */
NTM_HIDDEN int ntm_shim_report_setup(void);

/*
 * NTMEM_PRELOAD_REPORT=FD:PID:DEV:INO, set by "ntmem run --report": the
 * process PID writes its report at exit to FD, provided FD is still the
 * file (st_dev, st_ino) = (DEV, INO) that ntmem run opened for it.
 */
#define NTM_REPORT_ENV "NTMEM_PRELOAD_REPORT"

#endif
