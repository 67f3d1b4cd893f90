/* introspect.c - the public view of the library: the policy (ladders,
 * the choice a call would make, the learning, the profile's status and
 * the ignored settings), the variants, the machine and the worker pool.
 * Each is a thin call into the layer that knows. */
#include <errno.h>
#include <stdint.h>

#include "dispatch/args.h"
#include "dispatch/cpu.h"
#include "dispatch/registry.h"
#include "dispatch/select.h"
#include "entry.h"
#include "parallel/parallel.h"
#include "safe/safe.h"
#include "ntmem.h"

const char *ntmem_origin_name(enum ntmem_origin origin)
{
	switch (origin) {
	case NTMEM_ORIGIN_DEFAULT:
		return "default";
	case NTMEM_ORIGIN_PROFILE:
		return "profile";
	case NTMEM_ORIGIN_ENVIRONMENT:
		return "environment";
	}
	return "?";
}

int ntmem_ladder_info(enum ntmem_class cls, struct ntmem_ladder_info *info)
{
	if ((unsigned)cls >= NTMEM_CLASSES || !info) {
		errno = EINVAL;
		return -1;
	}
	const struct entry_width *w = ntm_entry_width();
	const struct policy *p = ntm_policy_for_report();
	struct ladder baseline;
	const struct ladder *l;
	if (p) {
		l = &p->ladder[cls];
	} else {
		enum ntmem_op op = ntm_op_of(cls);
		ntm_ladder_single(&baseline, ntm_select_baseline(op, 0),
				  ntm_select_baseline(op, 1), NTMEM_ORIGIN_DEFAULT);
		l = &baseline;
	}
	info->small_max = p ? p->small_max : ntm_select_small_max();
	info->small_path = w->small_name;
	info->nrungs = (int)l->count;
	size_t from = info->small_max + 1;
	for (unsigned i = 0; i < l->count; i++) {
		info->rung[i] = (struct ntmem_rung){
			.from = from, .to = l->to[i],
			.variant = ntm_variant_id(l->v[i]), .origin = l->origin[i]};
		from = l->to[i] > from ? l->to[i] : from;
	}
	info->streaming = ntm_variant_id(l->streaming);
	info->streaming_origin = l->streaming_origin;
	info->default_how = p ? p->default_how[ntm_op_of(cls)]
			      : "the policy is not built yet: baseline only";
	return 0;
}

/* Band k of class cls in *out, with the calling thread's domain's state
 * (none before the band's first learn_after calls). */
static void band_info(const struct policy *p, enum ntmem_class cls, unsigned k,
		      struct ntmem_adapt_band *out)
{
	const struct learn_band *b = &p->band[cls][k];
	*out = (struct ntmem_adapt_band){
		.from = ntm_learn_band_from(k),
		.to = k + 1 < NTM_LEARN_BANDS ? ntm_learn_band_from(k + 1) : SIZE_MAX,
		.nsides = b->nsides > 1 ? b->nsides : 0, .decided = -1,
		.period = NTM_LEARN_PERIOD_MIN};
	for (int i = 0; i < out->nsides; i++)
		out->side[i] = ntm_variant_id(b->side[i]);
	if (!out->nsides)
		return;
	unsigned long long gate = *ntm_learn_gate_of(cls, k);
	struct learn_state st;
	ntm_learn_state(ntm_learn_slot(cls, k), &st);
	out->decided = st.decided >= 0 ? out->side[st.decided] : -1;
	/* Before the gate opens, the calls are the gate's count and the
	 * first trial is the rest of learn_after away. */
	out->calls = gate < p->learn_after ? gate : p->learn_after + st.calls;
	out->trials = st.trials;
	out->switches = st.switches;
	out->next_trial_in = gate < p->learn_after ? p->learn_after - gate : st.next_trial_in;
	out->period = st.period;
}

int ntmem_adapt_info(enum ntmem_class cls, struct ntmem_adapt_info *info)
{
	if ((unsigned)cls >= NTMEM_CLASSES || !info) {
		errno = EINVAL;
		return -1;
	}
	const struct policy *p = ntm_policy_for_report();
	*info = (struct ntmem_adapt_info){
		.on = p ? p->learn : 0,
		.origin = p ? p->learn_origin : NTMEM_ORIGIN_DEFAULT,
		.from = p ? p->learn_from[cls] : SIZE_MAX,
		.after = p ? p->learn_after : NTM_LEARN_AFTER,
		.samples = NTM_LEARN_SAMPLES,
		.period_min = NTM_LEARN_PERIOD_MIN, .period_max = NTM_LEARN_PERIOD_MAX,
		.domains = ntm_learn_domains()};
	if (!p || !p->learn)
		return 0;
	for (unsigned k = 0; k < NTM_LEARN_BANDS; k++) {
		const struct learn_band *b = &p->band[cls][k];
		unsigned t = ntm_learn_trial_calls(b), bound = ntm_learn_bound(b);
		if (b->nsides > 1 && t > info->trial_calls)
			info->trial_calls = t;
		if (b->nsides > 1 && bound > info->bound)
			info->bound = bound;
		band_info(p, cls, k, &info->band[info->nbands++]);
	}
	return 0;
}

int ntmem_adapt_costs(enum ntmem_class cls, struct ntmem_adapt_costs *costs)
{
	if ((unsigned)cls >= NTMEM_CLASSES || !costs) {
		errno = EINVAL;
		return -1;
	}
	*costs = (struct ntmem_adapt_costs){.nbands = NTM_LEARN_BANDS};
	for (unsigned k = 0; k < NTM_LEARN_BANDS; k++)
		for (unsigned d = 0; d < NTM_LEARN_DOMAINS; d++) {
			struct learn_state st;
			ntm_learn_state(ntm_learn_domain_slot(d, cls, k), &st);
			costs->losing[k] += st.losing;
			costs->timed[k] += st.timed;
			costs->clock_ns[k] += st.clock_ns;
		}
	return 0;
}

int ntmem_policy_choice(enum ntmem_op op, int c, size_t n, unsigned flags)
{
	/* A parallel call's parts use the whole extent's choice. */
	flags &= ~NTMEM_F_PARALLEL;
	if ((op != NTMEM_OP_SET && op != NTMEM_OP_COPY) ||
	    ntm_bad_flags(flags, NTM_CALL_FLAGS)) {
		errno = EINVAL;
		return -1;
	}
	struct ntm_route r = ntm_select(ntm_policy_for_report(), ntm_class_of(op, c), n,
					flags, 0);
	if (r.kind == NTM_ROUTE_SMALL)
		return NTMEM_SMALL_PATH;
	return ntm_variant_id(r.kind == NTM_ROUTE_LEARNED ? ntm_learned_in_use(r) : r.v);
}

int ntmem_policy_status(struct ntmem_policy_status *status)
{
	if (!status) {
		errno = EINVAL;
		return -1;
	}
	const struct policy *p = ntm_policy_for_report();
	*status = (struct ntmem_policy_status){.ready = p != NULL};
	if (p) {
		status->profile_path = p->profile_path[0] ? p->profile_path : NULL;
		status->profile_status = p->profile_status;
		status->profile_loaded = p->profile_loaded;
		status->tunables = p->has_tunables ? p->tunables : NULL;
	} else {
		status->profile_status = "not read yet";
	}
	return 0;
}

const char *ntmem_policy_ignored(int i)
{
	const struct policy *p = ntm_policy_for_report();
	return p && i >= 0 && i < p->note_count ? p->notes[i] : NULL;
}

/* ------------------------------------------------------------------ */
/* The variants, the machine, the pool                                 */
/* ------------------------------------------------------------------ */

int ntmem_variant_count(void)
{
	return ntm_variant_count();
}

int ntmem_variant_info(int id, struct ntmem_variant_info *info)
{
	const struct variant *v = ntm_variant(id);
	if (!v || !info) {
		errno = EINVAL;
		return -1;
	}
	info->name = v->name;
	info->description = v->description;
	info->op = v->op;
	info->streaming = ntm_streams(v);
	info->role = v->role;
	info->rank = v->rank;
	info->zero_only = v->zero_only;
	info->requires = ntm_variant_requires(id);
	ntm_variant_checked(id, &info->why_unsupported);
	info->supported = info->why_unsupported == NULL;
	return 0;
}

const char *ntmem_role_name(enum ntmem_role role)
{
	static const char *const names[] = {
		[NTMEM_ROLE_LIBC] = "libc",
		[NTMEM_ROLE_PLAIN] = "plain",
		[NTMEM_ROLE_VECTOR] = "vector",
		[NTMEM_ROLE_STRING] = "string",
		[NTMEM_ROLE_STREAMING] = "streaming",
	};
	return (unsigned)role < sizeof names / sizeof names[0] ? names[role] : "?";
}

int ntmem_variant_find(enum ntmem_op op, const char *name)
{
	const struct variant *v = ntm_variant_named(op, name);
	if (!v) {
		errno = ENOENT;
		return -1;
	}
	return ntm_variant_id(v);
}

const char *ntmem_variant_guarded_by(int id)
{
	const char *why_not;
	const struct variant *v = ntm_variant_checked(id, &why_not);
	if (!v) {
		errno = EINVAL;
		return NULL;
	}
	if (why_not) {
		errno = ENOTSUP;
		return NULL;
	}
	return ntm_guarded_by(v)->name;
}

int ntmem_cpu_info(struct ntmem_cpu_info *info)
{
	if (!info) {
		errno = EINVAL;
		return -1;
	}
	ntm_cpu_describe(info);
	return 0;
}

int ntmem_parallel_info(struct ntmem_parallel_info *info)
{
	if (!info) {
		errno = EINVAL;
		return -1;
	}
	ntm_parallel_describe(info);
	info->populate_write = ntm_populate_writes();
	return 0;
}
