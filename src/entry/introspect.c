/* introspect.c - the public view of the policy: ladders, the choice a
 * call would make, the profile's status and the ignored settings. */
#include <errno.h>
#include <stdint.h>

#include "dispatch/adapt.h"
#include "dispatch/args.h"
#include "entry.h"
#include "ntmem.h"
#include "dispatch/policy.h"
#include "dispatch/registry.h"

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
	if ((unsigned)cls >= NTM_CLASSES || !info) {
		errno = EINVAL;
		return -1;
	}
	const struct entry_width *w = ntm_entry_width();
	const struct policy *p = ntm_policy_ready();
	struct ladder baseline;
	const struct ladder *l;
	if (p) {
		l = &p->ladder[cls];
	} else {
		enum ntmem_op op = ntm_op_of(cls);
		ntm_ladder_single(&baseline, ntm_baseline(op, 0),
				  ntm_baseline(op, 1), NTMEM_ORIGIN_DEFAULT);
		l = &baseline;
	}
	info->small_max = w->small_max;
	info->small_path = w->small_name;
	info->nrungs = (int)l->count;
	size_t from = w->small_max + 1;
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

int ntmem_adapt_info(enum ntmem_class cls, struct ntmem_adapt_info *info)
{
	if ((unsigned)cls >= NTM_CLASSES || !info) {
		errno = EINVAL;
		return -1;
	}
	const struct policy *p = ntm_policy_ready();
	*info = (struct ntmem_adapt_info){
		.on = p ? p->adapt : 0,
		.origin = p ? p->adapt_origin : NTMEM_ORIGIN_DEFAULT,
		.period = NTM_ADAPT_PERIOD, .streamed = NTM_ADAPT_STREAMED,
		.cached = NTM_ADAPT_CACHED, .cached_warm = NTM_ADAPT_CACHED_WARM};
	if (!p || !p->adapt)
		return 0;
	const struct ladder *l = &p->ladder[cls];
	for (unsigned j = 0; j + 1 < l->count; j++) {
		struct ntmem_adapt_edge *e = &info->edge[info->nedges];
		if (!(p->adapt_edges[cls] >> j & 1) ||
		    !ntm_adapt_band(l, j, &e->from, &e->to))
			continue;
		info->nedges++;
		e->at = l->to[j];
		e->lower = ntm_variant_id(l->v[j]);
		e->upper = ntm_variant_id(l->v[j + 1]);
		ntm_adapt_counts(cls, (int)j, &e->trials, &e->switches);
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
	if (ntm_entry_small(n, ntm_entry_width()->small_max, flags))
		return NTMEM_SMALL_PATH;
	return ntm_variant_id(ntm_choose(op, c, n, flags));
}

int ntmem_policy_status(struct ntmem_policy_status *status)
{
	if (!status) {
		errno = EINVAL;
		return -1;
	}
	const struct policy *p = ntm_policy_ready();
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
	const struct policy *p = ntm_policy_ready();
	return p && i >= 0 && i < p->note_count ? p->notes[i] : NULL;
}
