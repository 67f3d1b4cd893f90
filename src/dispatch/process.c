/* process.c - the process's policy, whole: built once, as the library is
 * loaded, and read by every call after (policy.h names the three ways
 * in).  As glibc's IFUNC resolvers run before main and never inside a
 * memcpy, nothing here runs inside a call: a memcpy on a signal stack, on
 * a coroutine's small stack, in a seccomp sandbox installed after start
 * or in the child of _Fork() finds the policy built, or (before the
 * constructor) takes the baseline. */
#define _GNU_SOURCE
#include "policy.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "profile.h"
#include "select.h"
#include "util/once.h"
#include "variants/libc.h"
#include "width.h"

struct policy ntm_the_policy;
int ntm_policy_state;  /* enum ntm_policy_state */

/* Set by the shim before the policy is built: the process's entry points
 * are the shim's, whose width NTMEM_TUNABLES shim_width= may choose. */
static int serving_shim;
static enum ntm_width process_width;

void ntm_policy_serve_shim(void)
{
	serving_shim = 1;
}

enum ntm_width ntm_policy_width(void)
{
	enum ntm_width w = __atomic_load_n(&process_width, __ATOMIC_ACQUIRE);
	return w != NTM_WIDTH_NONE ? w : ntm_width_choose();
}

/* Where the process's policy comes from, read as the library is loaded:
 * the profile's path (or why there is none) and whether a file is there. */
static struct {
	char path[1024];
	const char *why;
	int have_path, absent;
} source;

/* The profile's status in words, as the build left it or the source
 * says. */
static void note_profile(struct policy *p)
{
	if (!source.have_path) {
		snprintf(p->profile_status, sizeof p->profile_status, "none: %s",
			 source.why);
	} else if (source.absent) {
		snprintf(p->profile_path, sizeof p->profile_path, "%s", source.path);
		snprintf(p->profile_status, sizeof p->profile_status, "not present");
	} else if (secure_getenv("NTMEM_PROFILE") && !p->profile_loaded &&
		   !strcmp(p->profile_status, "not present")) {
		ntm_policy_note(p, "NTMEM_PROFILE: %s: no such file", source.path);
	}
}

/* Build the process's policy from the CPU, NTMEM_TUNABLES (NULL: none)
 * and the profile, and publish it. */
static void build(const char *tunables)
{
	struct policy *p = &ntm_the_policy;
	/* The shim's entry points at a forced width: the policy of a CPU that
	 * runs no wider, so that its ladders are that CPU's too. */
	struct cpu cpu = *ntm_cpu();
	enum ntm_width forced = serving_shim && tunables
					? ntm_tunables_shim_width(tunables) : NTM_WIDTH_NONE;
	if (forced != NTM_WIDTH_NONE && forced <= ntm_width_for(cpu.usable))
		cpu.usable = ntm_width_usable(forced, cpu.usable);
	else
		forced = NTM_WIDTH_NONE;
	int read_profile = source.have_path && !source.absent;
	ntm_policy_make(p, &cpu, tunables, read_profile ? source.path : NULL);
	note_profile(p);
	__atomic_store_n(&process_width, forced, __ATOMIC_RELEASE);
	ntm_select_set_inline(p);
}

/* As the library is loaded.  What it reads costs a program's start little
 * (docs/results.md, "Start-up"): the features and the caches glibc read
 * as the process started, one CPUID (the vendor), the online CPUs and the
 * NUMA nodes (a sysfs file each), the environment and whether a profile
 * file exists.  errno is left as it was: loading a library must not
 * change it. */
static void build_process_policy(void)
{
	int expected = NTM_POLICY_NOT_BUILT;
	if (!__atomic_compare_exchange_n(&ntm_policy_state, &expected,
					 NTM_POLICY_BUILDING, 0,
					 __ATOMIC_ACQUIRE, __ATOMIC_RELAXED))
		return;
	int saved = errno;
	ntm_libc_resolve();
	int found = ntm_profile_in_effect(source.path, sizeof source.path, &source.why);
	source.have_path = found >= 0;
	source.absent = found == 1;
	ntm_learn_setup();
	build(secure_getenv("NTMEM_TUNABLES"));
	__atomic_store_n(&ntm_policy_state, NTM_POLICY_READY, __ATOMIC_RELEASE);
	errno = saved;
}

__attribute__((constructor(102))) static void at_load(void)
{
	build_process_policy();
}

/* The words a report shows, made by the first report: the constructor
 * leaves them out, as most programs never ask. */
static int words_once;  /* util/once.h */

static void explain(void)
{
	int saved = errno;
	ntm_policy_explain(&ntm_the_policy, ntm_cpu());
	errno = saved;
}

const struct policy *ntm_policy_for_report(void)
{
	build_process_policy();  /* where no constructor has run yet */
	const struct policy *p = ntm_policy_for_call();
	if (p)
		ntm_once(&words_once, explain);
	return p;
}

void ntm_policy_pin(enum ntmem_op op, const struct variant *v)
{
	ntm_policy_for_report();  /* built first, or the build would undo this */
	struct policy *p = &ntm_the_policy;
	for (int cls = 0; cls < NTMEM_CLASSES; cls++) {
		if ((int)ntm_op_of(cls) != (int)op)
			continue;
		struct ladder l;
		ntm_ladder_single(&l, v, ntm_fallback_streaming(p, cls),
				  NTMEM_ORIGIN_ENVIRONMENT);
		ntm_policy_install(p, &p->ladder[cls], &l, cls);
		p->learn_from[cls] = SIZE_MAX;
	}
	ntm_policy_plan_inline(p);
	ntm_select_set_inline(p);
}
