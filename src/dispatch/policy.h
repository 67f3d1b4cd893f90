/* policy.h - the ladders of this process, and where each rung came from. */
#ifndef NTM_POLICY_H
#define NTM_POLICY_H

#include <stddef.h>

#include "cpu.h"
#include "ladder.h"
#include "learn.h"
#include "registry.h"
#include "variants/variant.h"

#define NTM_MAX_NOTES 16
#define NTM_NOTE_LEN 256
/* The rule for CPUs not recorded explains both operations' thresholds,
 * each from the cache plan: longer than a note. */
#define NTM_HOW_LEN 768

struct policy {
	unsigned usable;               /* the CPU's features it was built for */
	struct ladder ladder[NTMEM_CLASSES];
	/* The entry width's (built for this CPU): its small path's reach,
	 * its own loop per op (NULL: none), and how far the entry points run
	 * that loop inline (the selector's INLINE route). */
	size_t small_max;
	const struct variant *loop[2];
	size_t inline_max[2];
	/* NTMEM_F_PARALLEL: threads per call (0: the caller's CPUs) and the
	 * least bytes per thread (0: the built-in), each with its origin. */
	unsigned threads;
	size_t min_chunk;
	enum ntmem_origin threads_origin, min_chunk_origin;
	/* Learning on real calls (learn.h): on unless NTMEM_TUNABLES says
	 * adapt=0; calls of a size the ladder serves before the first trial;
	 * per class the least size that learns (SIZE_MAX: none) and each
	 * band's rivals. */
	int learn;
	enum ntmem_origin learn_origin;
	unsigned learn_after;
	size_t learn_from[NTMEM_CLASSES];
	struct learn_band band[NTMEM_CLASSES][NTM_LEARN_BANDS];
	int family_only;               /* NTMEM_TUNABLES builtin=generic */
	char default_how[2][NTM_HOW_LEN]; /* per op: where the built-in
					     ladders came from */
	int builtin_recorded;          /* this CPU's recorded entry is used */
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

enum ntm_policy_state {
	NTM_POLICY_NOT_BUILT,  /* before the library's constructor */
	NTM_POLICY_BUILDING,
	NTM_POLICY_READY,
	NTM_POLICY_DEFERRED    /* to be built by the first call needing it */
};

/* The process's policy and how it stands (enum ntm_policy_state):
 * select.c's. */
extern int ntm_policy_state;
extern struct policy ntm_the_policy;

/* Build the deferred policy now, unless another call is building it,
 * the CPU's description or the variant table, or this one runs on an
 * alternate signal stack: then NULL (select.c). */
const struct policy *ntm_policy_deferred(void);

/* The policy of this process if it is built, else NULL: never builds it. */
static inline const struct policy *ntm_policy_if_built(void)
{
	return __atomic_load_n(&ntm_policy_state, __ATOMIC_ACQUIRE) == NTM_POLICY_READY
		       ? &ntm_the_policy : NULL;
}

/* The policy of this process, built here if the constructor deferred it;
 * else NULL (before the constructor, or while another call builds it):
 * the caller then uses ntm_select_baseline().  Never waits, takes no lock and
 * allocates nothing, so safe from signal handlers and from inside the
 * build itself. */
static inline const struct policy *ntm_policy_ready(void)
{
	int s = __atomic_load_n(&ntm_policy_state, __ATOMIC_ACQUIRE);
	if (__builtin_expect(s == NTM_POLICY_READY, 1))
		return &ntm_the_policy;
	return s == NTM_POLICY_DEFERRED ? ntm_policy_deferred() : NULL;
}

/* While the policy is deferred, the calls an entry point hands to C take
 * the C library's function without building it (ntm_select_baseline),
 * unless they have a flag, reach NTM_LEARN_MIN, or number more than this:
 * a process that makes a few such calls (Python's start makes two) is
 * spared the build, and one that keeps making them soon has the ladder.
 * Below NTM_LEARN_MIN every built-in ladder runs cached stores. */
#define NTM_DEFERRED_CALLS 64

const struct policy *ntm_policy_deferred_call(size_t n, unsigned flags);

/* The policy for an entry point's call of n bytes with flags: the
 * process's, or NULL for the baseline (as ntm_policy_ready(), and while
 * deferred, above). */
static inline const struct policy *ntm_policy_for_call(size_t n, unsigned flags)
{
	int s = __atomic_load_n(&ntm_policy_state, __ATOMIC_ACQUIRE);
	if (__builtin_expect(s == NTM_POLICY_READY, 1))
		return &ntm_the_policy;
	return s == NTM_POLICY_DEFERRED ? ntm_policy_deferred_call(n, flags) : NULL;
}

/* The policy of this process, built and waited for: for the tool, the
 * reports and calibration, never for a call that may run in a signal
 * handler. */
const struct policy *ntm_policy_now(void);

/* Build a policy from explicit inputs, for the process, the tool and the
 * tests: a pure function of *cpu (which may be a recorded one), the
 * tunables' text and the profile's file.  tunables and profile_path may
 * be NULL (absent). */
void ntm_policy_build(struct policy *p, const struct cpu *cpu,
		      const char *tunables, const char *profile_path);


/* For the sources of settings (policy.c, tunables.c). */

/* Record an ignored setting and why. */
void ntm_policy_note(struct policy *p, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));

/* The streaming variant cls falls back on, on p's CPU: the best by rank
 * that writes its values, else its cached one (no streaming there). */
const struct variant *ntm_fallback_streaming(const struct policy *p,
					     enum ntmem_class cls);

/* Finish ladder from and make it cls's ladder l of p; for memset of
 * values other than zero, zero-only rungs first give way to the best
 * streaming variant that writes any value. */
void ntm_policy_install(const struct policy *p, struct ladder *l,
			struct ladder *from, enum ntmem_class cls);

/* Where the entry points may run their own loop inline: as far as every
 * ladder of an operation starts with it, and below where any learns. */
void ntm_policy_plan_inline(struct policy *p);

/* Apply NTMEM_TUNABLES text to p (tunables.c). */
void ntm_apply_tunables(struct policy *p, const char *text);

/* NTMEM_TUNABLES asks for the family rule (builtin=generic), read before
 * the built-in ladders are (tunables.c). */
int ntm_tunables_family_only(const char *text);

/* The width NTMEM_TUNABLES shim_width= names, NTM_WIDTH_NONE if none (a
 * bad one is noted as the tunables are applied). */
enum ntm_width ntm_tunables_shim_width(const char *text);

#define NTM_LEARN_AFTER_MAX (1u << 30)

#endif
