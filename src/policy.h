/* policy.h - per operation: which cached and which streaming variant, and
 * the size from which to stream; each value with where it came from. */
#ifndef NTM_POLICY_H
#define NTM_POLICY_H

#include <stddef.h>

#include "cpu.h"
#include "variant.h"

struct op_policy {
	const struct variant *cached;
	const struct variant *streaming;
	const struct variant *streaming_any_value; /* == streaming unless
						      that one is zero-only */
	size_t threshold;                          /* stream when n >= it */
	size_t threshold_nonzero;                  /* the same, memset c != 0 */
	enum ntmem_origin cached_origin, streaming_origin, threshold_origin,
		threshold_nonzero_origin;
};

#define NTM_MAX_NOTES 16
#define NTM_NOTE_LEN 256

struct policy {
	struct op_policy op[2];        /* indexed by enum ntmem_op */
	char profile_path[1024];       /* "" when none was looked for */
	char profile_status[NTM_NOTE_LEN]; /* "loaded", "not present", ... */
	int profile_loaded;
	int note_count;
	char notes[NTM_MAX_NOTES][NTM_NOTE_LEN]; /* ignored settings, why */
};

/* The variant a call of op uses: cached or streaming by flag, else by
 * size (streaming from the threshold for the value up); a zero-only
 * streaming variant only for c == 0.  Copies pass c == 0.  flags must
 * already be valid.  Inline: the hot path. */
static inline const struct variant *ntm_choose(const struct op_policy *o,
					       size_t n, int c, unsigned flags)
{
	int zero = (unsigned char)c == 0;
	size_t threshold = zero ? o->threshold : o->threshold_nonzero;
	int stream = (flags & NTMEM_F_NONTEMPORAL) ||
		     (!(flags & NTMEM_F_TEMPORAL) && n >= threshold);
	if (!stream)
		return o->cached;
	return zero ? o->streaming : o->streaming_any_value;
}

/* The policy of this process, built on first use from NTMEM_TUNABLES, the
 * profile and the topology.  Thread-safe. */
const struct policy *ntm_policy(void);

/* Build a policy from explicit inputs, for the tool and the tests.
 * tunables and profile_path may be NULL (absent). */
void ntm_policy_build(struct policy *p, const struct cpu *cpu,
		      const char *tunables, const char *profile_path);

/* The topology default threshold, and a line saying how it was derived. */
size_t ntm_topology_threshold(const struct cpu *cpu, char *how, size_t len);

/* The best supported variant of op by the built-in ranking; streaming
 * ones only if streaming, and never a zero-only one. */
const struct variant *ntm_ranked_variant(enum ntmem_op op, int streaming);

#endif
