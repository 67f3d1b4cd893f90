/* policy.c - the ladders and where each rung came from.  Sources,
 * strongest first: NTMEM_TUNABLES, the calibration profile, the built-in
 * default.  A bad value is skipped and noted, never fatal. */
#define _GNU_SOURCE
#include "policy.h"

#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "builtin.h"
#include "variants/libc.h"
#include "profile.h"
#include "registry.h"
#include "util/size.h"
#include "width.h"

/* The built-in ladders (builtin.c): a recorded CPU's own, else the rule
 * for its family.  A method this CPU cannot run takes the cached
 * fallback; NONTEMPORAL takes the ladder's own streaming rung where it
 * has one. */
static void default_ladders(struct policy *p, const struct cpu *cpu)
{
	struct builtin scratch;
	const struct builtin *b = ntm_builtin_for(cpu, p->family_only, &scratch,
						  NULL, 0);
	p->builtin_recorded = b->source != NULL;
	for (int cls = 0; cls < NTMEM_CLASSES; cls++) {
		struct ladder l;
		enum ntmem_op op = ntm_op_of(cls);
		memset(&l, 0, sizeof l);
		for (int i = 0; i < BUILTIN_RUNGS && l.count < NTMEM_LADDER_MAX; i++) {
			const struct builtin_rung *r = &b->rung[cls][i];
			const struct variant *v =
				ntm_builtin_variant(cls, r->run, cpu->usable);
			/* The reason and the mark belong to the method the
			 * table names, not to the fallback of a CPU without it. */
			int as_recorded = v != NULL;
			if (!v)
				v = ntm_ranked_cached(op, cpu->usable);
			if (ntm_ladder_push(&l, v, r->upto, NTMEM_ORIGIN_DEFAULT) == 0) {
				l.why[l.count - 1] = as_recorded ? r->why : NULL;
				l.around[l.count - 1] = as_recorded && r->run == RUN_STRING_AROUND;
			}
			if (ntm_streams(v))
				l.streaming = v;
			if (r->upto == SIZE_MAX)
				break;
		}
		if (!l.streaming)
			l.streaming = ntm_fallback_streaming(p, cls);
		l.streaming_origin = NTMEM_ORIGIN_DEFAULT;
		ntm_policy_install(p, &p->ladder[cls], &l, cls);
	}
}

static void apply_profile(struct policy *p, const struct cpu *cpu,
			  const char *path)
{
	snprintf(p->profile_path, sizeof p->profile_path, "%s", path);
	struct profile prof;
	char why[NTM_NOTE_LEN - 64];
	int saved = errno;
	int read = ntm_profile_read(path, cpu, &prof, why, sizeof why);
	errno = saved;
	if (read == NTM_PROFILE_ABSENT) {
		snprintf(p->profile_status, sizeof p->profile_status,
			 "not present");
		return;
	}
	if (read) {
		snprintf(p->profile_status, sizeof p->profile_status,
			 "ignored: %s", why);
		ntm_policy_note(p, "profile %s: %s", path, why);
		return;
	}
	p->profile_loaded = 1;
	snprintf(p->profile_status, sizeof p->profile_status, "loaded");
	if (prof.min_chunk) {
		p->min_chunk = prof.min_chunk;
		p->min_chunk_origin = NTMEM_ORIGIN_PROFILE;
	}
	for (int cls = 0; cls < NTMEM_CLASSES; cls++) {
		const struct profile_ladder *pl = &prof.ladder[cls];
		struct ladder l;
		if (!pl->rungs[0]) {
			if (pl->streaming[0])  /* names a rung of no ladder */
				ntm_policy_note(p, "profile %s: streaming.%s '%s' "
						"without a ladder.%s line: ignored", path,
						ntm_class_key[cls], pl->streaming,
						ntm_class_key[cls]);
			continue;
		}
		if (ntm_ladder_parse(&l, ntm_op_of(cls), cls == NTMEM_CLASS_SET_ZERO,
				     pl->rungs, NTMEM_ORIGIN_PROFILE, why,
				     sizeof why)) {
			ntm_policy_note(p, "profile %s: %s: %s", path, ntm_class_key[cls], why);
			continue;
		}
		if (pl->streaming[0]) {
			const struct variant *s =
				ntm_variant_named(ntm_op_of(cls), pl->streaming);
			if (s && ntm_streams(s) && !ntm_variant_unsupported(s) &&
			    (!s->zero_only || cls == NTMEM_CLASS_SET_ZERO)) {
				l.streaming = s;
				l.streaming_origin = NTMEM_ORIGIN_PROFILE;
			} else {
				ntm_policy_note(p, "profile %s: %s streaming '%s' cannot "
				     "serve here", path, ntm_class_key[cls],
				     pl->streaming);
			}
		}
		ntm_policy_install(p, &p->ladder[cls], &l, cls);
	}
}

/* Rung i of l becomes rung keep (keep <= i), as an edit compacts it. */
static void keep_rung(struct ladder *l, unsigned keep, unsigned i)
{
	l->to[keep] = l->to[i];
	l->v[keep] = l->v[i];
	l->cached[keep] = l->cached[i];
	l->origin[keep] = l->origin[i];
	l->why[keep] = l->why[i];
	l->around[keep] = l->around[i];
}

/* Rungs that end at or below reach + 1 serve no call: the entry points
 * take every call of up to reach bytes themselves (the small path).  Such
 * a rung would read as an empty band, "[257 B, 64 B)", so it goes; a
 * setting that put an edge inside the small path is noted, since what it
 * asked for starts later.  Moving the later rungs down keeps their
 * cached twins, so no call's choice changes. */
static void drop_unreachable(struct policy *p, size_t reach)
{
	for (int cls = 0; cls < NTMEM_CLASSES; cls++) {
		struct ladder *l = &p->ladder[cls];
		unsigned keep = 0;
		size_t inside = 0;  /* the highest edge inside, from a setting */
		enum ntmem_origin from = NTMEM_ORIGIN_DEFAULT;
		for (unsigned i = 0; i < l->count; i++) {
			if (i + 1 < l->count && l->to[i] <= reach + 1) {
				if (l->to[i] <= reach && l->origin[i] != NTMEM_ORIGIN_DEFAULT) {
					inside = l->to[i];
					from = l->origin[i];
				}
				continue;
			}
			keep_rung(l, keep++, i);
		}
		l->count = keep;
		if (!inside)
			continue;
		ntm_policy_note(p, "%s%s: %s: an edge at %zu B lies inside the small "
				"path (calls up to %zu B never reach the ladder): %s "
				"serves from %zu B", from == NTMEM_ORIGIN_PROFILE ?
				"profile " : "NTMEM_TUNABLES", from == NTMEM_ORIGIN_PROFILE ?
				p->profile_path : "", ntm_class_key[cls], inside, reach,
				l->v[0]->name, reach + 1);
	}
}

/* Neighbouring rungs of one variant, cached twin and origin are one
 * rung: the built-in rule gives the portable width 'libc' three times
 * over (no vector variant, no streaming one), which read as three bands. */
static void merge_repeats(struct policy *p)
{
	for (int cls = 0; cls < NTMEM_CLASSES; cls++) {
		struct ladder *l = &p->ladder[cls];
		unsigned keep = 0;
		for (unsigned i = 0; i < l->count; i++) {
			if (keep && l->v[keep - 1] == l->v[i] &&
			    l->cached[keep - 1] == l->cached[i] &&
			    l->origin[keep - 1] == l->origin[i] &&
			    l->around[keep - 1] == l->around[i]) {
				l->to[keep - 1] = l->to[i];
				continue;
			}
			keep_rung(l, keep++, i);
		}
		l->count = keep;
	}
}


/* ------------------------------------------------------------------ */
/* What the selector reads beside the ladders                         */
/* ------------------------------------------------------------------ */

/* v joins b's sides, unless it is one already or b is full. */
static void add_side(struct learn_band *b, const struct variant *v)
{
	for (unsigned i = 0; v && i < b->nsides; i++)
		if (b->side[i] == v)
			return;
	if (v && b->nsides < NTM_LEARN_SIDES)
		b->side[b->nsides++] = v;
}

static int has_role(const struct learn_band *b, enum ntmem_role role)
{
	for (unsigned i = 0; i < b->nsides; i++)
		if (b->side[i]->role == role)
			return 1;
	return 0;
}

/* The kinds of variant a band's sides are drawn from. */
static const enum ntmem_role kinds[] = {
	NTMEM_ROLE_VECTOR, NTMEM_ROLE_STRING, NTMEM_ROLE_STREAMING};
#define NKINDS (sizeof kinds / sizeof kinds[0])

/* The rival of kinds[kind] for rung i of l: the ladder's nearest rung of
 * that role (the profile's or the entry's choice of variant), else its
 * streaming variant, else ranked, the best-ranked of the role; rep
 * string only where the CPU has ERMS. */
static const struct variant *rival(const struct policy *p, const struct ladder *l,
				   unsigned i, size_t kind,
				   const struct variant *ranked)
{
	enum ntmem_role role = kinds[kind];
	for (unsigned d = 1; d < l->count; d++) {
		if (i >= d && l->v[i - d]->role == role)
			return l->v[i - d];
		if (i + d < l->count && l->v[i + d]->role == role)
			return l->v[i + d];
	}
	if (role == NTMEM_ROLE_STREAMING && ntm_streams(l->streaming))
		return l->streaming;
	if (role == NTMEM_ROLE_STRING && !(p->usable & CPU_ERMS))
		return NULL;
	return ranked;
}

/* Band k of class cls: the ladder's variants in it and their rivals of
 * the other kinds (ranked: the best-ranked of each kind, asked once a
 * class).  A band with a rung NTMEM_TUNABLES set does not learn: the
 * user has pinned it. */
static void plan_band(struct policy *p, enum ntmem_class cls, unsigned k,
		      size_t l3, const struct variant *const ranked[NKINDS])
{
	const struct ladder *l = &p->ladder[cls];
	struct learn_band *b = &p->band[cls][k];
	size_t from = ntm_learn_band_from(k);
	size_t last = k + 1 < NTM_LEARN_BANDS ? ntm_learn_band_from(k + 1) - 1
					      : SIZE_MAX;
	unsigned lo = ntm_ladder_rung(l, from), hi = ntm_ladder_rung(l, last);
	memset(b, 0, sizeof *b);
	for (unsigned i = lo; i <= hi; i++) {
		if (l->origin[i] == NTMEM_ORIGIN_ENVIRONMENT) {
			b->nsides = 0;
			return;
		}
		add_side(b, l->v[i]);
	}
	for (size_t i = 0; i < NKINDS; i++)
		if (!has_role(b, kinds[i]))
			add_side(b, rival(p, l, lo, i, ranked[i]));
	b->near_cache = l3 == 0 || from < 4 * l3;
}

/* Bands wholly inside a ladder's last rung have the same sides: each is
 * the one below it, but for how near the cache it is. */
static void plan_learning(struct policy *p, const struct cpu *cpu)
{
	struct cache_plan plan;
	ntm_cpu_plan(cpu, &plan, 0);
	size_t l3 = plan.caches.l3 ? plan.caches.l3 : (size_t)64 << 20;
	for (int cls = 0; cls < NTMEM_CLASSES; cls++) {
		const struct ladder *l = &p->ladder[cls];
		struct learn_band *band = p->band[cls];
		size_t last_edge = l->count > 1 ? l->to[l->count - 2] : 0;
		p->learn_from[cls] = SIZE_MAX;
		if (!p->learn)
			continue;
		const struct variant *ranked[NKINDS];
		for (size_t i = 0; i < NKINDS; i++)
			ranked[i] = ntm_ranked(ntm_op_of(cls), kinds[i],
					       cls == NTMEM_CLASS_SET_ZERO, p->usable);
		unsigned k = 0;
		do
			plan_band(p, cls, k, l3, ranked);
		while (++k < NTM_LEARN_BANDS && ntm_learn_band_from(k - 1) < last_edge);
		for (; k < NTM_LEARN_BANDS; k++) {
			band[k] = band[k - 1];
			band[k].near_cache = l3 == 0 || ntm_learn_band_from(k) < 4 * l3;
		}
		for (k = 0; k < NTM_LEARN_BANDS && p->learn_from[cls] == SIZE_MAX; k++)
			if (band[k].nsides > 1)
				p->learn_from[cls] = ntm_learn_band_from(k);
	}
}

/* The entry points run their own loop inline as far as every ladder of
 * the operation starts with it, and below where any learns. */
void ntm_policy_plan_inline(struct policy *p)
{
	for (int op = 0; op < 2; op++) {
		size_t max = SIZE_MAX;
		for (int cls = 0; cls < NTMEM_CLASSES; cls++) {
			const struct ladder *l = &p->ladder[cls];
			if ((int)ntm_op_of(cls) != op)
				continue;
			size_t upto = p->loop[op] && l->v[0] == p->loop[op] ? l->to[0] - 1 : 0;
			if (upto >= p->learn_from[cls])
				upto = p->learn_from[cls] - 1;
			max = upto < max ? upto : max;
		}
		p->inline_max[op] = max;
	}
}

void ntm_policy_make(struct policy *p, const struct cpu *cpu,
		     const char *tunables, const char *profile_path)
{
	p->usable = cpu->usable;
	p->learn = 1;
	p->learn_after = NTM_LEARN_AFTER;
	p->family_only = tunables && ntm_tunables_family_only(tunables);
	enum ntm_width width = ntm_width_for(cpu->usable);
	p->small_max = ntm_width_small_max(width);
	for (int op = 0; op < 2; op++)
		p->loop[op] = ntm_width_loop(op, width, cpu->usable);
	default_ladders(p, cpu);
	if (profile_path)
		apply_profile(p, cpu, profile_path);
	if (tunables) {
		p->has_tunables = 1;
		snprintf(p->tunables, sizeof p->tunables, "%s", tunables);
		ntm_apply_tunables(p, tunables);
	}
	drop_unreachable(p, p->small_max);
	merge_repeats(p);
	plan_learning(p, cpu);
	ntm_policy_plan_inline(p);
}

void ntm_policy_explain(struct policy *p, const struct cpu *cpu)
{
	struct builtin scratch;
	ntm_builtin_for(cpu, p->family_only, &scratch, p->default_how[0],
			sizeof p->default_how[0]);
	memcpy(p->default_how[1], p->default_how[0], sizeof p->default_how[1]);
}

void ntm_policy_build(struct policy *p, const struct cpu *cpu,
		      const char *tunables, const char *profile_path)
{
	memset(p, 0, sizeof *p);
	ntm_policy_make(p, cpu, tunables, profile_path);
	ntm_policy_explain(p, cpu);
}
