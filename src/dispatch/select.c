/* select.c - the selector's out-of-line parts (select.h): the learning's
 * side of a call, running a route, the limits the assembly reads, and
 * the process's own policy, built as the library is loaded. */
#define _GNU_SOURCE
#include "select.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "profile.h"
#include "util/clock.h"
#include "variants/libc.h"
#include "variants/fence.h"
#include "width.h"

/* The shim's limits start shut: before the constructor every call is routed. */
struct ntm_limits ntm_limits;

size_t ntm_select_small_max(void)
{
	const struct policy *p = ntm_policy_ready();
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
	if (!b || p != ntm_policy_ready())
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
int ntm_policy_state;  /* 0 not built, 1 building, 2 ready */

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

/* Built once, as the library is loaded: no call ever waits for it, takes
 * a lock or allocates, so the entry points stay async-signal-safe.  errno
 * is left as it was: loading a library must not change it. */
__attribute__((constructor(102))) static void build_process_policy(void)
{
	int expected = 0;
	if (!__atomic_compare_exchange_n(&ntm_policy_state, &expected, 1, 0,
					 __ATOMIC_ACQUIRE, __ATOMIC_RELAXED))
		return;
	int saved = errno;
	ntm_libc_resolve();
	char path[1024];
	const char *why;
	int have_path = !ntm_profile_in_effect(path, sizeof path, &why);
	struct policy *p = &ntm_the_policy;
	const char *tunables = secure_getenv("NTMEM_TUNABLES");
	/* The shim's entry points at a forced width: the policy of a CPU that
	 * runs no wider, so that its ladders are that CPU's too. */
	struct cpu cpu = *ntm_cpu();
	enum ntm_width forced = serving_shim && tunables
					? ntm_tunables_shim_width(tunables) : NTM_WIDTH_NONE;
	if (forced != NTM_WIDTH_NONE && forced <= ntm_width_for(cpu.usable))
		cpu.usable = ntm_width_usable(forced, cpu.usable);
	else
		forced = NTM_WIDTH_NONE;
	ntm_policy_build(p, &cpu, tunables, have_path ? path : NULL);
	if (!have_path)
		snprintf(p->profile_status, sizeof p->profile_status, "none: %s", why);
	else if (secure_getenv("NTMEM_PROFILE") && !p->profile_loaded &&
		 !strcmp(p->profile_status, "not present"))
		ntm_policy_note(p, "NTMEM_PROFILE: %s: no such file", path);
	__atomic_store_n(&process_width, forced, __ATOMIC_RELEASE);
	ntm_select_set_inline(p);
	__atomic_store_n(&ntm_policy_state, 2, __ATOMIC_RELEASE);
	errno = saved;
}
