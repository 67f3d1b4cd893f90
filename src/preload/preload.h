/* preload.h - what the files of the LD_PRELOAD shim share (preload.c, the
 * interposed functions; preload_routes.c, where their calls go;
 * preload_count.c, the counters behind "ntmem run --report").  None of this is in libntmem itself. */
#ifndef NTM_PRELOAD_H
#define NTM_PRELOAD_H

#include <stddef.h>

#include "entry/entry.h"
#include "record.h"
#include "variants/variant.h"

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

/* preload_routes.c */

/* The entry width the shim calls: ntm_entry_width(), asked once, until
 * the constructor sets the one the policy was built for. */
NTM_HIDDEN const struct entry_width *ntm_shim_width(void);
NTM_HIDDEN void ntm_shim_set_width(const struct entry_width *w);

/* Each function's routes, by enum shim_fn: empty (zero, in .bss) until
 * ntm_shim_route_all(); the callers then take ntm_shim_early_set/copy,
 * which are safe before this object is even relocated.  ntm_shim_routes
 * for a call no size class has served (the entry point of the shim's
 * width, which runs them); ntm_shim_beyond for one the classes of the
 * shim's assembly handed on (the large-call path, which runs none). */
NTM_HIDDEN extern union shim_route ntm_shim_routes[SHIM_FUNCTIONS];
NTM_HIDDEN extern union shim_route ntm_shim_beyond[SHIM_FUNCTIONS];
NTM_HIDDEN void *ntm_shim_early_set(void *dst, int c, size_t n);
NTM_HIDDEN void *ntm_shim_early_copy(void *dst, const void *src, size_t n);

/* Point every function at the entry points, or, with counted (a table by
 * enum shim_fn), at its counting wrapper.  Lock-free: each route is one
 * atomic store. */
NTM_HIDDEN void ntm_shim_route_all(const union shim_route *counted);

/* preload_count.c */

/* The counting wrappers, indexed by enum shim_fn: each counts the call
 * against the path the entry point will take, then makes it. */
NTM_HIDDEN extern const union shim_route ntm_shim_counted[SHIM_FUNCTIONS];

/* Read NTMEM_PRELOAD_REPORT; returns 1 if ntmem run asked for a report
 * (a record of this process's calls now exists, and the caller routes
 * through ntm_shim_counted), else 0.  Called once, from the shim's
 * constructor, after the policy is built. */
NTM_HIDDEN int ntm_shim_report_setup(void);

#endif
