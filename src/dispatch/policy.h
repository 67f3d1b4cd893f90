/* policy.h - the ladders of this process, and where each rung came from. */
#ifndef NTM_POLICY_H
#define NTM_POLICY_H

#include <stddef.h>

#include "cpu.h"
#include "ladder.h"
#include "learn.h"
#include "registry.h"
#include "variants/variant.h"
#include "width.h"

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

/*
 * The process's policy (process.c), built as the library is loaded, by
 * its constructor: reading NTMEM_TUNABLES and the profile there, and the
 * CPU at the least cost (cpu.h), so that no call ever builds, waits,
 * allocates or makes a system call for it.  Three ways in:
 *   ntm_policy_for_call()    the policy, or NULL before the constructor
 *                            has built it (calls then take the baseline,
 *                            select.h): never builds, never waits;
 *   ntm_policy_begun()       whether the constructor has begun, for the
 *                            baseline's choice;
 *   ntm_policy_for_report()  for reports, the tool and calibration: the
 *                            policy with the words that explain it, built
 *                            here where no constructor has run yet (a
 *                            report from another library's constructor).
 */
enum ntm_policy_state {
	NTM_POLICY_NOT_BUILT,  /* before the library's constructor */
	NTM_POLICY_BUILDING,
	NTM_POLICY_READY
};

/* process.c's: the state (enum ntm_policy_state) and the policy. */
extern int ntm_policy_state;
extern struct policy ntm_the_policy;

static inline const struct policy *ntm_policy_for_call(void)
{
	return __atomic_load_n(&ntm_policy_state, __ATOMIC_ACQUIRE) == NTM_POLICY_READY
		       ? &ntm_the_policy : NULL;
}

static inline int ntm_policy_begun(void)
{
	return __atomic_load_n(&ntm_policy_state, __ATOMIC_RELAXED) != NTM_POLICY_NOT_BUILT;
}

const struct policy *ntm_policy_for_report(void);

/* Build a policy from explicit inputs, for the tool and the tests: a
 * pure function of *cpu (which may be a recorded one), the tunables' text
 * and the profile's file, with the words that explain it.  tunables and
 * profile_path may be NULL (absent). */
void ntm_policy_build(struct policy *p, const struct cpu *cpu,
		      const char *tunables, const char *profile_path);

/* The same without the words, into a policy that is all zero: what the
 * constructor builds, at the least cost. */
void ntm_policy_make(struct policy *p, const struct cpu *cpu,
		     const char *tunables, const char *profile_path);

/* The words of a policy ntm_policy_make() built from cpu: where its
 * built-in ladders came from (default_how). */
void ntm_policy_explain(struct policy *p, const struct cpu *cpu);

/* The shim says, in a constructor that runs before the policy is built,
 * that the process's entry points are its own: then NTMEM_TUNABLES
 * shim_width= chooses their width, and the process's policy is built for
 * it.  Elsewhere the width is CPUID's, fixed as the library is loaded. */
void ntm_policy_serve_shim(void);

/* The width of the process's entry points: the forced one, else the
 * widest this process may use (CPUID, less what glibc turned off). */
enum ntm_width ntm_policy_width(void);

/* For "ntmem calibrate" only, which measures each candidate as the entry
 * points will call it: every ladder of op becomes the single rung v (for
 * memset of other values, v's twin if v writes zeros only), the entry
 * points run v inline if it is their own loop, and nothing learns.  Not
 * thread-safe: the caller is the process's only thread using ntmem. */
void ntm_policy_pin(enum ntmem_op op, const struct variant *v);


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
