/* variant.h - one implementation of memset or memcpy, as the registry sees it.
 *
 * Contract of every variant function:
 *   - gives exactly memset's or memcpy's result; copy buffers never overlap;
 *   - streaming variants write only whole, 64-byte aligned lines with
 *     streaming stores, everything else with cached stores, and do NOT
 *     fence: the caller issues ntmem_fence() before publishing the data;
 *   - runs only where ntm_cpu()->usable covers its `requires`.
 */
#ifndef NTM_VARIANT_H
#define NTM_VARIANT_H

#include <stdbool.h>
#include <stddef.h>

#include "features.h"
#include "ntmem.h"

/* Each returns dst, so that a caller can hand on a call as a tail call. */
typedef void *set_fn(void *dst, int c, size_t n);
typedef void *copy_fn(void *dst, const void *src, size_t n);

struct variant {
	const char *name;
	const char *description;
	enum ntmem_op op;
	enum ntmem_role role;   /* what kind of method; see ntmem.h */
	unsigned char rank;     /* preference within the role where nothing
				   was measured: the highest supported wins */
	bool zero_only;         /* writes zeros only (CLZERO, DC ZVA) */
	unsigned requires;      /* enum cpu_feature bits */
	unsigned char inline_width;  /* enum ntm_width whose entry points run
					this loop inline; NTM_WIDTH_NONE */
	set_fn *set;            /* op == NTMEM_OP_SET */
	copy_fn *copy;          /* op == NTMEM_OP_COPY */
};

static inline bool ntm_streams(const struct variant *v)
{
	return v->role == NTMEM_ROLE_STREAMING;
}

#define LINE 64  /* the unit streaming stores write */

/* The streaming copies' one setting (shape.h): 1 to move whole blocks of
 * four pages with their lines interleaved, 0 to go line by line.  Set
 * once, by the policy, from the CPU's built-in entry (dispatch/builtin.c:
 * interleaving measured faster on a Xeon, four times slower on Zen 3);
 * 0 until then. */
extern int ntm_stream_copy_pages NTM_HIDDEN;

/* Streaming copies of fewer bytes than this read their source ahead:
 * each block of four lines prefetches the four lines a page further on.
 * Set by the policy from the CPU's built-in entry, to half the L3 where
 * the entry asks for it (a source that small can still be in the L3,
 * and the prefetches fetch it ahead of the loads; from DRAM they cost
 * more than they gain), else 0, which never prefetches. */
extern size_t ntm_stream_prefetch_below NTM_HIDDEN;

/* Each family file (src/variants/<family>.c) defines its table; registry.c
 * gathers them.  Families that cannot build on this architecture define
 * empty tables. */
struct variant_family {
	const struct variant *variants;
	size_t count;
};

#define DEFINE_FAMILY(family, ...)                                          \
	static const struct variant family##_variants[] = {__VA_ARGS__};   \
	const struct variant_family ntm_family_##family = {                 \
		family##_variants,                                          \
		sizeof family##_variants / sizeof family##_variants[0]}

#define DEFINE_EMPTY_FAMILY(family) \
	const struct variant_family ntm_family_##family = {NULL, 0}

#endif
