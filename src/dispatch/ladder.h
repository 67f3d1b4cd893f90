/* ladder.h - one call class's methods by size: an ordered list of rungs,
 * each serving the sizes below its upper edge with one variant. */
#ifndef NTM_LADDER_H
#define NTM_LADDER_H

#include <stddef.h>
#include <stdint.h>

#include "ntmem.h"
#include "variants/variant.h"

struct ladder {
	unsigned count;                          /* 1 .. NTMEM_LADDER_MAX */
	size_t to[NTMEM_LADDER_MAX];             /* rung i serves sizes in
						    [to[i-1], to[i]); the
						    last to is SIZE_MAX */
	const struct variant *v[NTMEM_LADDER_MAX];
	const struct variant *cached[NTMEM_LADDER_MAX]; /* for TEMPORAL */
	enum ntmem_origin origin[NTMEM_LADDER_MAX];
	const char *why[NTMEM_LADDER_MAX];       /* a built-in rung's reason,
						    for "ntmem info"; NULL */
	unsigned char around[NTMEM_LADDER_MAX];  /* a built-in rung whose
						    variant writes around the
						    cache at its sizes without
						    streaming (builtin.h) */
	const struct variant *streaming;         /* for NONTEMPORAL */
	enum ntmem_origin streaming_origin;
};

/* "set", "set_nonzero", "copy": each class's name in tunables and
 * profiles, indexed by enum ntmem_class. */
extern const char *const ntm_class_key[NTMEM_CLASSES];

/* The rung serving n bytes.  Inline: the hot path.  The bound on i keeps
 * n == SIZE_MAX inside the table. */
static inline unsigned ntm_ladder_rung(const struct ladder *l, size_t n)
{
	unsigned i = 0;
	while (i + 1 < l->count && n >= l->to[i])
		i++;
	return i;
}

/* The variant for a call of n bytes with valid flags. */
static inline const struct variant *ntm_ladder_variant(const struct ladder *l,
						     size_t n, unsigned flags)
{
	if (flags & NTMEM_F_NONTEMPORAL)
		return l->streaming;
	unsigned i = ntm_ladder_rung(l, n);
	return flags & NTMEM_F_TEMPORAL ? l->cached[i] : l->v[i];
}

/* A one-rung ladder: v at every size, streaming for NONTEMPORAL. */
void ntm_ladder_single(struct ladder *l, const struct variant *v,
		       const struct variant *streaming,
		       enum ntmem_origin origin);

/* Append a rung serving up to (not including) to; SIZE_MAX ends the
 * ladder.  Returns 0, or -1 when full or to does not rise. */
int ntm_ladder_push(struct ladder *l, const struct variant *v, size_t to,
		    enum ntmem_origin origin);

/* Work out cached[] and, if it is NULL, streaming.  Call after building
 * or editing.  fallback_streaming serves NONTEMPORAL when the ladder has
 * no streaming rung. */
void ntm_ladder_finish(struct ladder *l,
		       const struct variant *fallback_streaming);

/* Edits that keep the rest of the ladder.  threshold: stream from t up
 * (SIZE_MAX: never) with l->streaming; below t each size keeps the
 * cached variant that served it (a streaming rung's band goes to the
 * cached rung below it), the last cached rung ends at t.  cached: v
 * serves every cached rung, each in its own band.  streaming: v serves
 * the streaming rungs and NONTEMPORAL.  cached and streaming move no
 * edge; threshold moves only those at and above t. */
void ntm_ladder_set_threshold(struct ladder *l, size_t t,
			      enum ntmem_origin origin);
void ntm_ladder_set_cached(struct ladder *l, const struct variant *v,
			   enum ntmem_origin origin);
void ntm_ladder_set_streaming(struct ladder *l, const struct variant *v,
			      enum ntmem_origin origin);

/* The first size at which l streams, SIZE_MAX if it never does. */
size_t ntm_ladder_threshold(const struct ladder *l);

/*
 * Parse "NAME:SIZE,NAME:SIZE,...,NAME" into *l for op; zero_ok allows a
 * zero-only variant.  Every variant must exist and run here, sizes must
 * rise, only the last rung has no size.  Returns 0, or -1 with the reason
 * in why.  Does not finish the ladder.
 */
int ntm_ladder_parse(struct ladder *l, enum ntmem_op op, int zero_ok,
		     const char *text, enum ntmem_origin origin, char *why,
		     size_t why_len);

/* Write l as parse reads it, sizes in bytes; returns -1 if it does not
 * fit. */
int ntm_ladder_format(const struct ladder *l, char *buf, size_t len);

#endif
