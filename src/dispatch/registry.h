/* registry.h - every variant, with a stable id, and whether it can run here. */
#ifndef NTM_REGISTRY_H
#define NTM_REGISTRY_H

#include "variants/variant.h"
#include "width.h"

/* The variants this build has; the table is made on the first call, as
 * the library loads (the policy's build asks). */
int ntm_variant_count(void);

/* The variant with this id, or NULL when the id is out of range. */
const struct variant *ntm_variant(int id);

/* The same, and in *why_not why this CPU cannot run it (NULL: it can). */
const struct variant *ntm_variant_checked(int id, const char **why_not);

/* The features variant id requires, in words ("AVX-512F AVX-512BW"), or
 * NULL for a bad id. */
const char *ntm_variant_requires(int id);

/* The id of v, which must come from ntm_variant(). */
int ntm_variant_id(const struct variant *v);

/* The variant of op named name, or NULL. */
const struct variant *ntm_variant_named(enum ntmem_op op, const char *name);

/* NULL when this CPU and OS can run v, else why not. */
const char *ntm_variant_unsupported(const struct variant *v);

/* The best variant of op in role by rank that a CPU running the
 * features in usable (enum cpu_feature bits) can run, copying line by
 * line where it streams; zero-only ones only if zero_ok.  NULL if none
 * runs there.  Pure: any CPU, real or recorded. */
const struct variant *ntm_ranked(enum ntmem_op op, enum ntmem_role role,
				 int zero_ok, unsigned usable);

/* The best streaming copy by rank that writes its lines in order shape
 * (enum ntm_copy_shape) where usable runs, or NULL.  ntm_ranked gives
 * line by line only. */
const struct variant *ntm_ranked_copy(enum ntm_copy_shape shape,
				      unsigned usable);

/* The cached variant to fall back on where usable runs: the C library's,
 * else the best vector loop, rep string, or plain loop by rank. */
const struct variant *ntm_ranked_cached(enum ntmem_op op, unsigned usable);

/* The cached loop the entry points of width w run inline for op (x86-64;
 * NULL elsewhere, or where usable lacks what it needs). */
const struct variant *ntm_width_loop(enum ntmem_op op, enum ntm_width w,
				     unsigned usable);

/* The variant every CPU of this architecture runs (see
 * NTM_ARCH_BASELINE): the best cached vector loop, or with streaming the
 * best streaming one that writes any value.  Used before the policy is
 * built.  Lock-free and async-signal-safe. */
const struct variant *ntm_baseline(enum ntmem_op op, int streaming);

/* The variant that calls the C library's function for op (variants/
 * libc.h): ntmem's own portable loops until the C library's are handed
 * down.  Lock-free and async-signal-safe. */
const struct variant *ntm_libc_variant(enum ntmem_op op);

#endif
