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
	unsigned char shape;    /* a streaming copy's order of lines (enum
				   ntm_copy_shape); 0 for every other */
	set_fn *set;            /* op == NTMEM_OP_SET */
	copy_fn *copy;          /* op == NTMEM_OP_COPY */
};

static inline bool ntm_streams(const struct variant *v)
{
	return v->role == NTMEM_ROLE_STREAMING;
}

#define LINE 64  /* the unit streaming stores write */

/* The orders in which a streaming copy writes its lines (shape.h), each
 * a variant of its own, so that a variant's name says what it runs and
 * the ladder says where each serves:
 *   LINES  line by line, four at a time;
 *   PAGES  whole blocks of four pages, their lines interleaved, four
 *          streams at once (faster on the Xeon recorded, slower on Zen 3);
 *   AHEAD  line by line, each block of four lines prefetching the four a
 *          page further on: a source still in the L3 comes sooner. */
enum ntm_copy_shape { NTM_SHAPE_LINES, NTM_SHAPE_PAGES, NTM_SHAPE_AHEAD };

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
