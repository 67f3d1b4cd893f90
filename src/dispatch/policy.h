/* policy.h - the ladders of this process, and where each rung came from. */
#ifndef NTM_POLICY_H
#define NTM_POLICY_H

#include <stddef.h>

#include "cpu.h"
#include "ladder.h"
#include "registry.h"
#include "variants/variant.h"

#define NTM_CLASSES 3           /* enum ntmem_class */
#define NTM_MAX_NOTES 16
#define NTM_NOTE_LEN 256
/* The rule for CPUs not recorded explains both operations' thresholds,
 * each from the cache plan: longer than a note. */
#define NTM_HOW_LEN 768

struct policy {
	struct ladder ladder[NTM_CLASSES];
	/* NTMEM_F_PARALLEL: threads per call (0: the caller's CPUs) and the
	 * least bytes per thread (0: the built-in), each with its origin. */
	unsigned threads;
	size_t min_chunk;
	enum ntmem_origin threads_origin, min_chunk_origin;
	/* Trials at contested edges (adapt.h): on unless NTMEM_TUNABLES
	 * says adapt=0; per class, the edges that take part (a bit per
	 * edge) and the least size tried (SIZE_MAX: none). */
	int adapt;
	enum ntmem_origin adapt_origin;
	unsigned adapt_edges[NTM_CLASSES];
	size_t adapt_from[NTM_CLASSES];
	char default_how[2][NTM_HOW_LEN]; /* per op: where the built-in
					     ladders came from */
	int builtin_recorded;          /* this CPU has a recorded entry */
	int interleave_pages;          /* the built-in entry's: streaming
					  copies move four pages at once */
	size_t prefetch_below;         /* and below this many bytes they read
					  their source a page ahead; 0: never */
	char profile_path[1024];       /* "" when none was looked for */
	char profile_status[NTM_NOTE_LEN]; /* "loaded", "not present", ... */
	int profile_loaded;
	char tunables[1024];           /* NTMEM_TUNABLES as read */
	int has_tunables;
	int note_count;
	char notes[NTM_MAX_NOTES][NTM_NOTE_LEN]; /* ignored settings, why */
};

static inline enum ntmem_class ntm_class_of(enum ntmem_op op, int c)
{
	if (op == NTMEM_OP_COPY)
		return NTMEM_CLASS_COPY;
	return (unsigned char)c ? NTMEM_CLASS_SET_NONZERO : NTMEM_CLASS_SET_ZERO;
}

static inline enum ntmem_op ntm_op_of(enum ntmem_class cls)
{
	return cls == NTMEM_CLASS_COPY ? NTMEM_OP_COPY : NTMEM_OP_SET;
}

/* The policy of this process once the constructor has built it, else
 * NULL: the caller then uses ntm_baseline().  Lock-free, so safe from
 * signal handlers and from inside the build itself. */
static inline const struct policy *ntm_policy_ready(void)
{
	extern int ntm_policy_state;
	extern struct policy ntm_the_policy;
	return __atomic_load_n(&ntm_policy_state, __ATOMIC_ACQUIRE) == 2
		       ? &ntm_the_policy : NULL;
}

/* For "ntmem calibrate" only, which measures each candidate as the entry
 * points will call it: every ladder of op becomes the single rung v (for
 * memset of other values, v's twin if v writes zeros only), and the entry
 * points run v inline if it is their own loop.  Not thread-safe: the
 * caller is the process's only thread using ntmem. */
void ntm_policy_trial(enum ntmem_op op, const struct variant *v);

/* Per operation (enum ntmem_op), the size up to which the entry points
 * run their own vector loop instead of asking the ladder: set whenever a
 * policy is installed, to where every ladder of the operation starts with
 * that loop (0: nowhere).  Read by the entry points' assembly. */
extern size_t ntm_inline_max[2] NTM_HIDDEN;

/* The variant a call of op beyond the small path uses: its ladder's for
 * n and flags (valid), or the baseline before the policy is built. */
static inline const struct variant *ntm_choose(enum ntmem_op op, int c,
					       size_t n, unsigned flags)
{
	const struct policy *p = ntm_policy_ready();
	if (__builtin_expect(!p, 0))
		return ntm_baseline(op, !!(flags & NTMEM_F_NONTEMPORAL));
	return ntm_ladder_pick(&p->ladder[ntm_class_of(op, c)], n, flags);
}

/* Build a policy from explicit inputs, for the tool and the tests.
 * tunables and profile_path may be NULL (absent). */
void ntm_policy_build(struct policy *p, const struct cpu *cpu,
		      const char *tunables, const char *profile_path);


/* The best supported variant of op in role by rank; zero-only ones only
 * if zero_ok.  NULL if none runs here. */
const struct variant *ntm_ranked(enum ntmem_op op, enum ntmem_role role,
				 int zero_ok);

/* For the sources of settings (policy.c, tunables.c). */

/* Record an ignored setting and why. */
void ntm_policy_note(struct policy *p, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));

/* The streaming variant cls falls back on: the best by rank that writes
 * its values, else its cached one (no streaming on this CPU). */
const struct variant *ntm_fallback_streaming(enum ntmem_class cls);

/* Finish ladder from and make it cls's ladder l; for memset of values
 * other than zero, zero-only rungs first give way to the best streaming
 * variant that writes any value. */
void ntm_policy_install(struct ladder *l, struct ladder *from,
			enum ntmem_class cls);

/* Apply NTMEM_TUNABLES text to p (tunables.c). */
void ntm_apply_tunables(struct policy *p, const char *text);

#endif
