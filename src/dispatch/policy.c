/* policy.c - the ladders and where each rung came from.  Sources,
 * strongest first: NTMEM_TUNABLES, the calibration profile, the built-in
 * default.  A bad value is skipped and noted, never fatal. */
#define _GNU_SOURCE
#include "policy.h"

#include <errno.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "adapt.h"
#include "builtin.h"
#include "variants/libc.h"
#include "profile.h"
#include "registry.h"
#include "util/size.h"
#include "width.h"




const struct variant *ntm_ranked(enum ntmem_op op, enum ntmem_role role,
				 int zero_ok)
{
	const struct variant *best = NULL;
	for (int id = 0; id < ntm_variant_count(); id++) {
		const struct variant *v = ntm_variant(id);
		if (v->op != op || v->role != role || (v->zero_only && !zero_ok) ||
		    ntm_variant_unsupported(v))
			continue;
		if (!best || v->rank > best->rank)
			best = v;
	}
	return best;
}

/* The cached variant to fall back on: libc, else the best cached one. */
static const struct variant *ranked_cached(enum ntmem_op op)
{
	static const enum ntmem_role order[] = {
		NTMEM_ROLE_LIBC, NTMEM_ROLE_VECTOR, NTMEM_ROLE_STRING,
		NTMEM_ROLE_PLAIN};
	for (size_t i = 0; i < sizeof order / sizeof order[0]; i++) {
		const struct variant *v = ntm_ranked(op, order[i], 0);
		if (v)
			return v;
	}
	return NULL;  /* not reached: portable always runs */
}

void ntm_policy_note(struct policy *p, const char *fmt, ...)
{
	if (p->note_count >= NTM_MAX_NOTES)
		return;
	if (p->note_count == NTM_MAX_NOTES - 1) {
		/* Say that the list is cut, rather than cut it silently. */
		snprintf(p->notes[p->note_count++], NTM_NOTE_LEN,
			 "more settings were ignored; only the first %d are listed",
			 NTM_MAX_NOTES - 1);
		return;
	}
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(p->notes[p->note_count++], NTM_NOTE_LEN, fmt, ap);
	va_end(ap);
}

/* The streaming variant a class falls back on: the best by rank that can
 * write its values, else its cached one (no streaming on this CPU). */
const struct variant *ntm_fallback_streaming(enum ntmem_class cls)
{
	enum ntmem_op op = ntm_op_of(cls);
	const struct variant *v =
		ntm_ranked(op, NTMEM_ROLE_STREAMING, cls == NTMEM_CLASS_SET_ZERO);
	return v ? v : ranked_cached(op);
}

/* Install a ladder built elsewhere, keeping l's cached fallback. */
/* The nonzero twin of a memset ladder: zero-only rungs give way to the
 * best streaming variant that writes any value. */
static void nonzero_twin(struct ladder *l)
{
	const struct variant *any = ntm_fallback_streaming(NTMEM_CLASS_SET_NONZERO);
	for (unsigned i = 0; i < l->count; i++)
		if (l->v[i]->zero_only)
			l->v[i] = any;
	if (l->streaming && l->streaming->zero_only)
		l->streaming = any;
}

void ntm_policy_install(struct ladder *l, struct ladder *from,
			enum ntmem_class cls)
{
	if (cls == NTMEM_CLASS_SET_NONZERO)
		nonzero_twin(from);
	from->cached[0] = ranked_cached(ntm_op_of(cls));
	ntm_ladder_finish(from, ntm_fallback_streaming(cls));
	*l = *from;
}

/* The registry variant that is the entry points' own vector loop, which
 * they run inline, or NULL. */
static const struct variant *entry_loop(enum ntmem_op op)
{
	enum ntm_width w = ntm_width_choose();
	for (int id = 0; id < ntm_variant_count(); id++) {
		const struct variant *v = ntm_variant(id);
		if (v->op == op && v->inline_width == w &&
		    !ntm_variant_unsupported(v))
			return v;
	}
	return NULL;
}

/* The built-in ladders (builtin.c): a recorded CPU's own, else the rule
 * for other CPUs.  A pick this CPU cannot run takes the cached fallback;
 * NONTEMPORAL takes the ladder's own streaming rung where it has one. */
static void default_ladders(struct policy *p, const struct cpu *cpu)
{
	struct builtin scratch;
	const struct builtin *b = ntm_builtin_for(cpu, &scratch, p->default_how[0],
						  sizeof p->default_how[0]);
	memcpy(p->default_how[1], p->default_how[0], sizeof p->default_how[1]);
	p->builtin_recorded = b->source != NULL;
	p->interleave_pages = b->interleave_pages;
	struct cache_plan plan;
	ntm_cpu_plan(cpu, &plan);
	p->prefetch_below = b->prefetch_source && plan.caches.l3
				    ? plan.caches.l3 / 2 + 1 : 0;
	for (int cls = 0; cls < NTM_CLASSES; cls++) {
		struct ladder l;
		enum ntmem_op op = ntm_op_of(cls);
		memset(&l, 0, sizeof l);
		for (int i = 0; i < BUILTIN_RUNGS && l.count < NTMEM_LADDER_MAX; i++) {
			const struct builtin_rung *r = &b->rung[cls][i];
			const struct variant *v =
				ntm_builtin_variant(cls, r->pick, cpu->usable);
			if (!v)
				v = ranked_cached(op);
			ntm_ladder_push(&l, v, r->upto, NTMEM_ORIGIN_DEFAULT);
			if (ntm_streams(v))
				l.streaming = v;
			if (r->upto == SIZE_MAX)
				break;
		}
		if (!l.streaming)
			l.streaming = ntm_fallback_streaming(cls);
		l.streaming_origin = NTMEM_ORIGIN_DEFAULT;
		ntm_policy_install(&p->ladder[cls], &l, cls);
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
	for (int cls = 0; cls < NTM_CLASSES; cls++) {
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
		ntm_policy_install(&p->ladder[cls], &l, cls);
	}
}

/* Rung i of l becomes rung keep (keep <= i), as an edit compacts it. */
static void keep_rung(struct ladder *l, unsigned keep, unsigned i)
{
	l->to[keep] = l->to[i];
	l->v[keep] = l->v[i];
	l->cached[keep] = l->cached[i];
	l->origin[keep] = l->origin[i];
}

/* Rungs that end at or below reach + 1 serve no call: the entry points
 * take every call of up to reach bytes themselves (the small path).  Such
 * a rung would read as an empty band, "[257 B, 64 B)", so it goes; a
 * setting that put an edge inside the small path is noted, since what it
 * asked for starts later.  Moving the later rungs down keeps their
 * cached twins, so no call's choice changes. */
static void drop_unreachable(struct policy *p, size_t reach)
{
	for (int cls = 0; cls < NTM_CLASSES; cls++) {
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
	for (int cls = 0; cls < NTM_CLASSES; cls++) {
		struct ladder *l = &p->ladder[cls];
		unsigned keep = 0;
		for (unsigned i = 0; i < l->count; i++) {
			if (keep && l->v[keep - 1] == l->v[i] &&
			    l->cached[keep - 1] == l->cached[i] &&
			    l->origin[keep - 1] == l->origin[i]) {
				l->to[keep - 1] = l->to[i];
				continue;
			}
			keep_rung(l, keep++, i);
		}
		l->count = keep;
	}
}

/* Per class, the edges that take part in trials and the least size that
 * does (none with adapt=0). */
static void plan_trials(struct policy *p, const struct cpu *cpu)
{
	struct cache_plan plan;
	ntm_cpu_plan(cpu, &plan);
	for (int cls = 0; cls < NTM_CLASSES; cls++) {
		const struct ladder *l = &p->ladder[cls];
		p->adapt_edges[cls] = p->adapt ? ntm_adapt_edges(l, plan.caches.l3) : 0;
		p->adapt_from[cls] = ntm_adapt_from(l, p->adapt_edges[cls]);
	}
}

struct policy ntm_the_policy;
int ntm_policy_state;  /* 0 not built, 1 building, 2 ready */

void ntm_policy_build(struct policy *p, const struct cpu *cpu,
		      const char *tunables, const char *profile_path)
{
	memset(p, 0, sizeof *p);
	p->adapt = 1;
	default_ladders(p, cpu);
	if (profile_path)
		apply_profile(p, cpu, profile_path);
	if (tunables) {
		p->has_tunables = 1;
		snprintf(p->tunables, sizeof p->tunables, "%s", tunables);
		ntm_apply_tunables(p, tunables);
	}
	drop_unreachable(p, ntm_width_small_max(ntm_width_for(cpu->usable)));
	merge_repeats(p);
	plan_trials(p, cpu);
}

size_t ntm_inline_max[2];

/* Let the entry points run their own loop inline as far as every ladder
 * of the operation starts with it, and no trial (adapt.h) begins. */
static void set_inline_max(const struct policy *p)
{
	for (int op = 0; op < 2; op++) {
		const struct variant *loop = entry_loop(op);
		size_t max = SIZE_MAX;
		for (int cls = 0; cls < NTM_CLASSES; cls++) {
			const struct ladder *l = &p->ladder[cls];
			if ((int)ntm_op_of(cls) != op)
				continue;
			size_t upto = loop && l->v[0] == loop ? l->to[0] - 1 : 0;
			if (upto >= p->adapt_from[cls])
				upto = p->adapt_from[cls] - 1;
			max = upto < max ? upto : max;
		}
		ntm_inline_max[op] = max;
	}
}

void ntm_policy_trial(enum ntmem_op op, const struct variant *v)
{
	for (int cls = 0; cls < NTM_CLASSES; cls++) {
		if ((int)ntm_op_of(cls) != (int)op)
			continue;
		struct ladder l;
		ntm_ladder_single(&l, v, ntm_fallback_streaming(cls),
				  NTMEM_ORIGIN_ENVIRONMENT);
		ntm_policy_install(&ntm_the_policy.ladder[cls], &l, cls);
	}
	plan_trials(&ntm_the_policy, ntm_cpu());
	set_inline_max(&ntm_the_policy);
}

/* Built once, as the library is loaded: no call ever waits for it, takes
 * a lock or allocates, so the entry points stay async-signal-safe.  errno
 * is left as it was: loading a library must not change it. */
__attribute__((constructor(101))) static void build_process_policy(void)
{
	int expected = 0;
	if (!__atomic_compare_exchange_n(&ntm_policy_state, &expected, 1, 0,
					 __ATOMIC_ACQUIRE, __ATOMIC_RELAXED))
		return;
	int saved = errno;
	ntm_libc_resolve(&ntm_libc);
	char path[1024];
	const char *why;
	int have_path = !ntm_profile_in_effect(path, sizeof path, &why);
	ntm_policy_build(&ntm_the_policy, ntm_cpu(), secure_getenv("NTMEM_TUNABLES"),
			 have_path ? path : NULL);
	if (!have_path)
		snprintf(ntm_the_policy.profile_status,
			 sizeof ntm_the_policy.profile_status, "none: %s", why);
	else if (secure_getenv("NTMEM_PROFILE") && !ntm_the_policy.profile_loaded &&
		 !strcmp(ntm_the_policy.profile_status, "not present"))
		ntm_policy_note(&ntm_the_policy, "NTMEM_PROFILE: %s: no such file", path);
	set_inline_max(&ntm_the_policy);
	__atomic_store_n(&ntm_stream_copy_pages, ntm_the_policy.interleave_pages,
			 __ATOMIC_RELAXED);
	__atomic_store_n(&ntm_stream_prefetch_below, ntm_the_policy.prefetch_below,
			 __ATOMIC_RELAXED);
	__atomic_store_n(&ntm_policy_state, 2, __ATOMIC_RELEASE);
	errno = saved;
}
