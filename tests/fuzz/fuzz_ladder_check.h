/* fuzz_ladder_check.h - what every ladder must be, whoever built it:
 * shared by the ladder and tunables targets. */
#ifndef NTM_FUZZ_LADDER_CHECK_H
#define NTM_FUZZ_LADDER_CHECK_H

#include <stdint.h>

#include "fuzz.h"
#include "dispatch/ladder.h"
#include "dispatch/registry.h"

/* 1..NTMEM_LADDER_MAX rungs with rising upper edges, each a variant of op
 * that runs here; a zero-only one only if zero_ok. */
static inline void fuzz_check_ladder(const struct ladder *l, enum ntmem_op op,
				     int zero_ok, const char *what)
{
	if (l->count < 1 || l->count > NTMEM_LADDER_MAX)
		FUZZ_FAIL("%s: %u rungs", what, l->count);
	for (unsigned i = 0; i < l->count; i++) {
		const struct variant *v = l->v[i];
		if (i && l->to[i] <= l->to[i - 1])
			FUZZ_FAIL("%s: rung %u ends at %zu, not above %zu", what, i,
				  l->to[i], l->to[i - 1]);
		if (!v || v->op != op)
			FUZZ_FAIL("%s: rung %u has no variant of its operation", what, i);
		if (ntm_variant_unsupported(v))
			FUZZ_FAIL("%s: rung %u is %s, which cannot run here", what, i,
				  v->name);
		if (v->zero_only && !zero_ok)
			FUZZ_FAIL("%s: rung %u is zero-only %s", what, i, v->name);
	}
}

#endif
