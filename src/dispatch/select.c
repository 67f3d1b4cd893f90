/* select.c - the selector's out-of-line parts (select.h): the learning's
 * side of a call, running a route, the limits the assembly reads, and
 * the process's own policy, built as the library is loaded or by the
 * first call that needs it. */
#define _GNU_SOURCE
#include "select.h"

#include <errno.h>
#include <pthread.h>
#include <sched.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "builtin.h"
#include "profile.h"
#include "util/clock.h"
#include "variants/libc.h"
#include "variants/fence.h"
#include "width.h"

/* The shim's limits start shut: before the constructor every call is routed. */
struct ntm_limits ntm_limits;

size_t ntm_select_small_max(void)
{
	const struct policy *p = ntm_policy_if_built();
	static size_t memo;  /* CPUID is slow in a VM: once */
	size_t m = __atomic_load_n(&memo, __ATOMIC_RELAXED);
	if (p)
		return p->small_max;
	if (!m) {
		m = ntm_width_small_max(ntm_width_choose());
		__atomic_store_n(&memo, m, __ATOMIC_RELAXED);
	}
	return m;
}

/* The index of v among b's sides, or b->nsides when it is none. */
static unsigned side_of(const struct learn_band *b, const struct variant *v)
{
	unsigned i = 0;
	while (i < b->nsides && b->side[i] != v)
		i++;
	return i;
}

const struct learn_band *ntm_select_band(const struct policy *p,
					 enum ntmem_class cls, size_t n,
					 unsigned *prior)
{
	if (!p || n < p->learn_from[cls])
		return NULL;
	const struct learn_band *b = &p->band[cls][ntm_learn_band_of(n)];
	*prior = side_of(b, ntm_ladder_variant(&p->ladder[cls], n, 0));
	return b->nsides > 1 && *prior < b->nsides ? b : NULL;
}

/* Only the process's own policy has learning state; a policy built for a
 * look (the tool, the tests, the replay) reports its ladder. */
void ntm_select_learned(struct ntm_route *r, const struct policy *p,
			enum ntmem_class cls, size_t n, unsigned flags,
			enum ntm_caller caller)
{
	unsigned prior;
	const struct learn_band *b = ntm_select_band(p, cls, n, &prior);
	if (!b || p != ntm_policy_if_built())
		return;
	struct learn_slot *s = ntm_learn_slot(cls, ntm_learn_band_of(n), p->learn_after);
	if (!s)
		return;
	unsigned side = caller == NTM_CALLER_ENTRY && !flags
				? ntm_learn_begin(s, b, prior, &r->ticket)
				: ntm_learn_in_use(s, prior);
	r->kind = NTM_ROUTE_LEARNED;
	r->v = b->side[side];
	r->band = b;
}

void *ntm_route_set(const struct ntm_route *r, void *dst, int c, size_t n,
		    unsigned flags)
{
	uint64_t t0 = r->ticket.slot ? ntm_now_ns() : 0;
	r->v->set(dst, c, n);
	ntm_fence_after(ntm_streams(r->v), flags);
	if (r->ticket.slot)
		ntm_learn_end(&r->ticket, r->band, n, ntm_now_ns() - t0);
	return dst;
}

void *ntm_route_copy(const struct ntm_route *r, void *dst, const void *src,
		     size_t n, unsigned flags)
{
	uint64_t t0 = r->ticket.slot ? ntm_now_ns() : 0;
	r->v->copy(dst, src, n);
	ntm_fence_after(ntm_streams(r->v), flags);
	if (r->ticket.slot)
		ntm_learn_end(&r->ticket, r->band, n, ntm_now_ns() - t0);
	return dst;
}

void ntm_select_set_inline(const struct policy *p)
{
	for (int op = 0; op < 2; op++)
		__atomic_store_n(&ntm_limits.inline_max[op], p->inline_max[op],
				 __ATOMIC_RELAXED);
}

/* The dispatching shim runs the classes of its width, and where that is
 * neither AVX-512 nor AVX2 the SSE2 width's to 128 bytes
 * (preload_x86_64.S); while counting, none. */
void ntm_select_set_shim(int width, int counting)
{
	size_t evex_end = 0, avx2_end = 0, sse2_below = 0;
#if defined(__x86_64__)
	if (!counting && width == NTM_WIDTH_AVX512)
		evex_end = SIZE_MAX;
	else if (!counting && width == NTM_WIDTH_AVX2)
		avx2_end = SIZE_MAX;
	if (!counting)
		sse2_below = NTM_SMALL_VECTORS * 16 + 1;
#else
	(void)width;
	(void)counting;
#endif
	/* The wider widths' limits shut first and opened last: each width's
	 * classes serve any size below its limit. */
	__atomic_store_n(&ntm_limits.shim_evex_end, 0, __ATOMIC_RELEASE);
	__atomic_store_n(&ntm_limits.shim_avx2_end, 0, __ATOMIC_RELEASE);
	__atomic_store_n(&ntm_limits.shim_sse2_below, sse2_below, __ATOMIC_RELEASE);
	__atomic_store_n(&ntm_limits.shim_avx2_end, avx2_end, __ATOMIC_RELEASE);
	__atomic_store_n(&ntm_limits.shim_evex_end, evex_end, __ATOMIC_RELEASE);
}

/* ------------------------------------------------------------------ */
/* The process's policy                                               */
/* ------------------------------------------------------------------ */

struct policy ntm_the_policy;
int ntm_policy_state;  /* enum ntm_policy_state */

/* Set by the shim before the policy is built: the process's entry points
 * are the shim's, whose width NTMEM_TUNABLES shim_width= may choose. */
static int serving_shim;
static enum ntm_width process_width;

void ntm_select_serve_shim(void)
{
	serving_shim = 1;
}

enum ntm_width ntm_select_width(void)
{
	enum ntm_width w = __atomic_load_n(&process_width, __ATOMIC_ACQUIRE);
	return w != NTM_WIDTH_NONE ? w : ntm_width_choose();
}


void ntm_select_pin(enum ntmem_op op, const struct variant *v)
{
	ntm_policy_now();  /* built first, or the build would undo this */
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

/* Where the process's policy comes from, read as the library is loaded:
 * the profile's path (or why there is none) and whether a file is there. */
static struct {
	char path[1024];
	const char *why;
	int have_path, absent;
} source;

/* Build the process's policy from cpu, tunables (NULL: none) and the
 * profile source names, and publish it.  Inside a call
 * (ntm_policy_deferred) tunables are NULL and the profile is absent:
 * then it reads no file, takes no lock and allocates nothing. */
static void build(const struct cpu *detected, const char *tunables)
{
	struct policy *p = &ntm_the_policy;
	/* The shim's entry points at a forced width: the policy of a CPU that
	 * runs no wider, so that its ladders are that CPU's too. */
	struct cpu cpu = *detected;
	enum ntm_width forced = serving_shim && tunables
					? ntm_tunables_shim_width(tunables) : NTM_WIDTH_NONE;
	if (forced != NTM_WIDTH_NONE && forced <= ntm_width_for(cpu.usable))
		cpu.usable = ntm_width_usable(forced, cpu.usable);
	else
		forced = NTM_WIDTH_NONE;
	int read_profile = source.have_path && !source.absent;
	ntm_policy_build(p, &cpu, tunables, read_profile ? source.path : NULL);
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
	__atomic_store_n(&process_width, forced, __ATOMIC_RELEASE);
	ntm_select_set_inline(p);
	__atomic_store_n(&ntm_policy_state, NTM_POLICY_READY, __ATOMIC_RELEASE);
}

/* Until the policy is built, the entry points run their loop inline as
 * far as every built-in ladder starts with it (ntm_builtin_loop_reach);
 * the first call beyond builds the policy.  Most short-lived programs
 * make none.  The features are read here, at load, so that a build inside
 * a call never waits for a read that call interrupted. */
static void plan_provisional_inline(void)
{
	unsigned usable = ntm_cpu_features()->usable;
	int loop = ntm_width_loop_requires(ntm_width_for(usable)) != 0;
	for (int op = 0; op < 2; op++) {
		size_t reach = loop ? ntm_builtin_loop_reach(op) : 0;
		if (reach > NTM_LEARN_MIN)
			reach = NTM_LEARN_MIN;  /* learning starts there */
		__atomic_store_n(&ntm_limits.inline_max[op], reach ? reach - 1 : 0,
				 __ATOMIC_RELAXED);
	}
}

/* In a fork child: a build, a detection or a variant table that another
 * thread of the parent had under way never ends here, so the next call
 * that needs them starts them again (pthread_once does the same). */
static void after_fork(void)
{
	int building = NTM_POLICY_BUILDING;
	__atomic_compare_exchange_n(&ntm_policy_state, &building, NTM_POLICY_DEFERRED,
				    0, __ATOMIC_RELAXED, __ATOMIC_RELAXED);
	ntm_cpu_after_fork();
	ntm_variants_after_fork();
}

/*
 * As the library is loaded: where NTMEM_TUNABLES or a profile file says
 * anything, the policy is built now.  Otherwise it is built by the first
 * call that needs it (ntm_policy_ready()): the CPU's caches (sysfs,
 * CPUID) and the ladders cost a short-lived program more than all its
 * calls, and most never make one beyond the entry points' own loop.
 * Either way no call waits for it, takes a lock or allocates, so the
 * entry points stay async-signal-safe.  errno is left as it was: loading
 * a library must not change it.
 */
__attribute__((constructor(102))) static void build_process_policy(void)
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
	const char *tunables = secure_getenv("NTMEM_TUNABLES");
	if (!tunables && (!source.have_path || source.absent)) {
		pthread_atfork(NULL, NULL, after_fork);
		plan_provisional_inline();
		__atomic_store_n(&ntm_policy_state, NTM_POLICY_DEFERRED, __ATOMIC_RELEASE);
	} else {
		build(ntm_cpu(), tunables);
	}
	errno = saved;
}

/* A signal handler's call may build it, and qemu-user (7.2) enters a
 * handler with its stack 8 bytes off the 16 the ABI promises: the build's
 * struct copies, aligned vector stores on the stack, then fault. */
#if defined(__x86_64__) || defined(__i386__)
#define REALIGN_STACK __attribute__((force_align_arg_pointer))
#else
#define REALIGN_STACK
#endif

/* Whether this call runs on an alternate signal stack, which may be as
 * small as the 8 KiB of the old SIGSTKSZ: the build takes about that.
 * One set up with SS_AUTODISARM reads as none inside its handler, and is
 * not recognised. */
static int on_alternate_stack(void)
{
	stack_t ss;
	int saved = errno;
	int on = !sigaltstack(NULL, &ss) && (ss.ss_flags & SS_ONSTACK);
	errno = saved;
	return on;
}

/* The first call that needs the policy builds it, unless another call is
 * building it, the variant table or the CPU's description, or it runs on
 * an alternate signal stack: then it takes the baseline. */
REALIGN_STACK const struct policy *ntm_policy_deferred(void)
{
	if (on_alternate_stack())
		return NULL;
	int expected = NTM_POLICY_DEFERRED;
	if (!__atomic_compare_exchange_n(&ntm_policy_state, &expected,
					 NTM_POLICY_BUILDING, 0,
					 __ATOMIC_ACQUIRE, __ATOMIC_ACQUIRE))
		return expected == NTM_POLICY_READY ? &ntm_the_policy : NULL;
	int saved = errno;
	const struct cpu *cpu = ntm_variants_try() ? ntm_cpu_try() : NULL;
	if (cpu)
		build(cpu, NULL);
	else
		__atomic_store_n(&ntm_policy_state, NTM_POLICY_DEFERRED, __ATOMIC_RELEASE);
	errno = saved;
	return cpu ? &ntm_the_policy : NULL;
}

const struct policy *ntm_policy_deferred_call(size_t n, unsigned flags)
{
	static unsigned calls;
	if (n < NTM_LEARN_MIN && !flags &&
	    __atomic_fetch_add(&calls, 1, __ATOMIC_RELAXED) < NTM_DEFERRED_CALLS)
		return NULL;
	return ntm_policy_deferred();
}

const struct policy *ntm_policy_now(void)
{
	build_process_policy();  /* where no constructor has run yet */
	const struct policy *p;
	while (!(p = ntm_policy_ready()))
		sched_yield();
	return p;
}
