/* info.c - "ntmem info": every setting in effect and where it came from,
 * from the library's public view of itself. */
#define _GNU_SOURCE
#include <getopt.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "output/cli.h"
#include "commands.h"
#include "introspect.h"
#include "measure/measure.h"
#include "output/json.h"
#include "ntmem.h"
#include "util/size.h"

static const char *const op_names[2] = {"memset", "memcpy"};
static const char *const class_names[3] = {"memset of zeros",
					   "memset of other values", "memcpy"};
static const char *const class_keys[3] = {"set_zero", "set_nonzero", "copy"};

static void usage(FILE *f)
{
	fprintf(f,
		"Usage: ntmem info [--json]\n"
		"Show the CPU and its caches, every variant and whether this CPU\n"
		"can run it, and the policy in effect: for memset of zeros, memset\n"
		"of other values and memcpy, the ladder of methods by size, each\n"
		"rung with where it came from.\n"
		"\n"
		"Options:\n"
		"  -j, --json   one JSON object on stdout\n"
		"  -h, --help   show this help\n"
		"\n"
		"Environment: NTMEM_TUNABLES, NTMEM_PROFILE (see ntmem(3)).\n");
}

static const char *variant_name(int id)
{
	struct ntmem_variant_info v;
	return ntmem_variant_info(id, &v) ? "?" : v.name;
}

/* Where a rung came from, in a word; the details are printed once, below
 * the ladders. */
static const char *origin_word(enum ntmem_origin o)
{
	switch (o) {
	case NTMEM_ORIGIN_ENVIRONMENT:
		return "NTMEM_TUNABLES";
	case NTMEM_ORIGIN_PROFILE:
		return "profile";
	case NTMEM_ORIGIN_DEFAULT:
		break;
	}
	return "built-in";
}

/* Where a rung came from, in words, for JSON's "detail". */
static const char *origin_text(enum ntmem_origin o,
			       const struct ntmem_ladder_info *l,
			       const struct ntmem_policy_status *st,
			       char *buf, size_t len)
{
	switch (o) {
	case NTMEM_ORIGIN_ENVIRONMENT:
		return "NTMEM_TUNABLES";
	case NTMEM_ORIGIN_PROFILE:
		snprintf(buf, len, "profile %s", st->profile_path);
		return buf;
	case NTMEM_ORIGIN_DEFAULT:
		break;
	}
	snprintf(buf, len, "built-in: %s", l->default_how);
	return buf;
}

/* How and when the loaded profile was made, from the file (the policy
 * keeps its ladders, not this): its effort ("quick") and its time in UTC,
 * each "" when the profile does not record it (format 2) or cannot be
 * read again.  Returns 0 when the file was read. */
static int profile_made(const struct ntmem_policy_status *st, char *effort,
			size_t effort_len, char *when, size_t when_len)
{
	static struct profile prof;
	char why[256];
	effort[0] = when[0] = '\0';
	if (!st->profile_loaded || !st->profile_path ||
	    ntm_profile_read(st->profile_path, ntm_cpu(), &prof, why, sizeof why))
		return -1;
	snprintf(effort, effort_len, "%s", prof.effort);
	time_t t = (time_t)prof.made;
	struct tm tm;
	if (prof.made > 0 && gmtime_r(&t, &tm))
		strftime(when, when_len, "%Y-%m-%d %H:%M UTC", &tm);
	return 0;
}

/* "made 2026-12-03 18:00 UTC by ntmem calibrate --quick (...)". */
static void print_profile_made(const struct ntmem_policy_status *st)
{
	char effort[32], when[64];
	if (profile_made(st, effort, sizeof effort, when, sizeof when))
		return;
	if (!effort[0] && !when[0]) {
		printf("               made: not recorded (an older ntmem calibrate)\n");
		return;
	}
	printf("               made %s by ntmem calibrate%s%s%s\n",
	       when[0] ? when : "at a time not recorded",
	       !strcmp(effort, "default") || !effort[0] ? "" : " --",
	       !strcmp(effort, "default") ? "" : effort,
	       !strcmp(effort, "quick") ? " (3 runs a size, every 4x: a full "
	       "'ntmem calibrate' measures more)" : "");
}

/* "[513 B, 32 KiB)" or "[64 MiB, ...)". */
static const char *range_text(size_t from, size_t to, char *buf, size_t len)
{
	char a[32], b[32];
	ntm_format_size(from, a, sizeof a);
	if (to == SIZE_MAX)
		snprintf(buf, len, "[%s, ...)", a);
	else
		snprintf(buf, len, "[%s, %s)", a, ntm_format_size(to, b, sizeof b));
	return buf;
}

/* The L3's "used" column where this CPU's recorded entry gives the
 * built-in ladders: their sizes were measured on the CPU and are written
 * in bytes, so no L3, known or not, moves them. */
static void recorded_l3(const struct ntmem_cpu_info *cpu, char *buf, size_t len)
{
	char l3[32];
	if (cpu->planned.l3)
		snprintf(buf, len, "%s (the recorded ladders do not use it: their "
			 "sizes are absolute)", ntm_format_size(cpu->planned.l3, l3,
								 sizeof l3));
	else
		snprintf(buf, len, "none (the recorded ladders need none: their "
			 "sizes are absolute)");
}

static void print_caches(const struct ntmem_cpu_info *cpu)
{
	const struct ntmem_cache_sizes *c[3] = {&cpu->cpuid, &cpu->sysfs,
						&cpu->planned};
	char s[3][32], l3[128];
	const struct policy *p = ntm_policy_for_report();
	/* Off x86 the first column is what the CPU's own registers give. */
	printf("\nCaches         %-12s %-12s %s\n",
	       strcmp(cpu->arch, "x86_64") ? "CPU" : "CPUID", "sysfs", "used");
	const char *level[3] = {"L1d", "L2", "L3"};
	for (int l = 0; l < 3; l++) {
		for (int k = 0; k < 3; k++) {
			size_t x = l == 0 ? c[k]->l1d : l == 1 ? c[k]->l2 : c[k]->l3;
			if (x)
				ntm_format_size(x, s[k], sizeof s[k]);
			else
				snprintf(s[k], sizeof s[k], "unknown");
		}
		int recorded = l == 2 && p && p->builtin_recorded;
		if (recorded)
			recorded_l3(cpu, l3, sizeof l3);
		printf("  %-12s %-12s %-12s %s\n", level[l], s[0], s[1],
		       recorded ? l3 : s[2]);
	}
	printf("  %-12s %-12u %-12u %u\n", "L3 shared by", c[0]->l3_shared_by,
	       c[1]->l3_shared_by, c[2]->l3_shared_by);
	printf("  used         %s\n", cpu->planned_how);
}

/* The built-in ladders' origin, where the cache plan's own sentence,
 * printed just above under Caches, reads "the L3 used" instead: the rule
 * for CPUs not recorded repeats it for memset and for memcpy. */
static void print_builtin(const char *label, const char *how,
			  const struct ntmem_cpu_info *cpu)
{
	const char *plan = cpu->planned_how;
	size_t n = plan ? strlen(plan) : 0;
	char l3[32], short_plan[64];
	ntm_format_size(cpu->planned.l3, l3, sizeof l3);
	/* No L3 used (none reported, or none that can be trusted): the
	 * sentence above says why, once. */
	if (cpu->planned.l3)
		snprintf(short_plan, sizeof short_plan, "the L3 used (%s)", l3);
	else
		snprintf(short_plan, sizeof short_plan, "the caches used (no L3)");
	printf("  %-12s ", label);
	for (const char *p = how; *p;) {
		const char *at = n ? strstr(p, plan) : NULL;
		if (!at) {
			printf("%s", p);
			break;
		}
		printf("%.*s%s", (int)(at - p), p, short_plan);
		p = at + n;
	}
	printf("\n");
}

/* The policy this process would have without its profile (the same
 * CPU and NTMEM_TUNABLES), to tell which of the profile's rungs change
 * anything; NULL when no profile is loaded. */
static const struct policy *without_profile(void)
{
	static struct policy base;  /* large */
	static int built;
	const struct policy *p = ntm_policy_for_report();
	if (!p || !p->profile_loaded)
		return NULL;
	if (!built) {
		struct cpu cpu = *ntm_cpu();
		cpu.usable = p->usable;  /* a width the shim was forced to */
		ntm_policy_build(&base, &cpu, p->has_tunables ? p->tunables : NULL,
				 NULL);
		built = 1;
	}
	return &base;
}

/* A profile's rung that changes nothing: the built-in rung of base that
 * serves its sizes [from, to) with the same variant v (the first, if
 * several do), or -1 when the built-in ladder serves any of them
 * otherwise. */
static int kept_builtin_rung(const struct ladder *base, size_t from, size_t to,
			     const struct variant *v)
{
	int found = -1;
	size_t lo = 0;
	for (unsigned i = 0; i < base->count; lo = base->to[i], i++) {
		if (base->to[i] <= from || lo >= to)
			continue;
		if (base->v[i] != v || base->origin[i] != NTMEM_ORIGIN_DEFAULT)
			return -1;
		if (found < 0)
			found = (int)i;
	}
	return found;
}

/* Rung i of class cls as the built-in one it equals, or -1: only a rung
 * from a profile can be (one from NTMEM_TUNABLES is the user's word). */
static int as_builtin(enum ntmem_class cls, const struct ntmem_ladder_info *l,
		      int i)
{
	const struct policy *p = ntm_policy_for_report(), *base = without_profile();
	if (!base || l->rung[i].origin != NTMEM_ORIGIN_PROFILE)
		return -1;
	return kept_builtin_rung(&base->ladder[cls], l->rung[i].from, l->rung[i].to,
				 p->ladder[cls].v[i]);
}

/* The NONTEMPORAL variant from a profile that is the built-in one. */
static int streaming_as_builtin(enum ntmem_class cls,
				const struct ntmem_ladder_info *l)
{
	const struct policy *p = ntm_policy_for_report(), *base = without_profile();
	return base && l->streaming_origin == NTMEM_ORIGIN_PROFILE &&
	       base->ladder[cls].streaming == p->ladder[cls].streaming &&
	       base->ladder[cls].streaming_origin == NTMEM_ORIGIN_DEFAULT;
}

/* Each rung with its origin; a rung of the profile that changes nothing
 * is the built-in one, with its reason. */
static void print_ladder(enum ntmem_class cls)
{
	struct ntmem_ladder_info l;
	char a[32], range[64];
	ntmem_ladder_info(cls, &l);
	printf("  %s (small path up to %s: %s)\n", class_names[cls],
	       ntm_format_size(l.small_max, a, sizeof a), l.small_path);
	const struct policy *p = ntm_policy_for_report(), *base = without_profile();
	for (int i = 0; i < l.nrungs; i++) {
		const struct ntmem_rung *r = &l.rung[i];
		int kept = as_builtin(cls, &l, i);
		const char *why = kept >= 0 ? base->ladder[cls].why[kept]
				  : p ? p->ladder[cls].why[i] : NULL;
		printf("    %-13s %-22s %s\n", variant_name(r->variant),
		       range_text(r->from, r->to, range, sizeof range),
		       origin_word(kept >= 0 ? NTMEM_ORIGIN_DEFAULT : r->origin));
		if (why)
			printf("%18s(%s)\n", "", why);
	}
	printf("    %-13s %-22s %s\n", variant_name(l.streaming),
	       "NTMEM_F_NONTEMPORAL", origin_word(streaming_as_builtin(cls, &l)
						   ? NTMEM_ORIGIN_DEFAULT
						   : l.streaming_origin));
}

/* How many rungs the loaded profile sets, and how many of them differ
 * from the built-in ones. */
static void profile_rungs(int *changed, int *total)
{
	*changed = *total = 0;
	for (int cls = 0; cls < 3; cls++) {
		struct ntmem_ladder_info l;
		ntmem_ladder_info(cls, &l);
		for (int i = 0; i < l.nrungs; i++)
			if (l.rung[i].origin == NTMEM_ORIGIN_PROFILE) {
				++*total;
				*changed += as_builtin(cls, &l, i) < 0;
			}
	}
}

/* The command that removes the loaded profile. */
static const char *undo_command(const struct ntmem_policy_status *st)
{
	return st->profile_path && !strcmp(st->profile_path, ntm_profile_system_path())
		       ? "ntmem calibrate --undo --system" : "ntmem calibrate --undo";
}

/* Below the profile's line, once it is loaded: what it changes, and how
 * to remove it. */
static void print_profile_undo(const struct ntmem_policy_status *st)
{
	int changed, total;
	if (!st->profile_loaded)
		return;
	profile_rungs(&changed, &total);
	if (total)
		printf("               changes %d of the %d rungs it sets (the others "
		       "are the built-in\n               ones); undo: %s\n", changed,
		       total, undo_command(st));
	else
		printf("               sets no rung (the ladders are the built-in "
		       "ones); undo: %s\n", undo_command(st));
}

/* Runs of bands with the same sides, as "1 MiB to 32 MiB: a, b, c"; and
 * a band's state where it has had calls (this process's own). */
static void print_bands(const char *label, const struct ntmem_adapt_info *ai)
{
	char a[32], b[32];
	int printed = 0;
	for (int i = 0; i < ai->nbands; i++) {
		const struct ntmem_adapt_band *band = &ai->band[i];
		int last = i;
		while (last + 1 < ai->nbands && ai->band[last + 1].nsides == band->nsides &&
		       !memcmp(ai->band[last + 1].side, band->side, sizeof band->side))
			last++;
		if (band->nsides) {
			size_t to = ai->band[last].to;
			if (!printed)
				printf("    %s\n", label);
			printf("      %s to %s:", ntm_format_size(band->from, a, sizeof a),
			       to == SIZE_MAX ? "any size" : ntm_format_size(to, b, sizeof b));
			for (int k = 0; k < band->nsides; k++)
				printf("%s %s", k ? "," : "", variant_name(band->side[k]));
			printf("\n");
			printed = 1;
		}
		for (int k = i; k <= last; k++)
			if (ai->band[k].calls)
				printf("        %s: %llu calls, %llu trials, %llu switches; "
				       "runs %s\n", ntm_format_size(ai->band[k].from, a, sizeof a),
				       ai->band[k].calls, ai->band[k].trials,
				       ai->band[k].switches, ai->band[k].decided >= 0
				       ? variant_name(ai->band[k].decided) : "the ladder's");
		i = last;
	}
	if (!printed)
		printf("    %s: none (no size from 1 MiB has a rival to the ladder)\n",
		       label);
}

/* Learning on real calls: where, how often, at what cost. */
static void print_learning(void)
{
	struct ntmem_adapt_info ai;
	unsigned bound = 0;  /* the worst of the three classes' */
	for (int cls = 2; cls >= 0; cls--) {
		ntmem_adapt_info(cls, &ai);
		bound = ai.bound > bound ? ai.bound : bound;
	}
	if (!ai.on) {
		printf("  learning     off (adapt=0, from %s)\n",
		       ntmem_origin_name(ai.origin));
		return;
	}
	printf("  learning     from 1 MiB, per power-of-two size and NUMA node (%u "
	       "here):\n"
	       "               the first %u calls of a size run the ladder's choice "
	       "(one atomic add\n"
	       "               each), then trials of %u timed calls a candidate, "
	       "every %u to %u\n"
	       "               calls; at most %u calls of a trial run a candidate that "
	       "loses; what\n"
	       "               a program's learning cost: ntmem run --report "
	       "(NTMEM_TUNABLES adapt=0: off)\n",
	       ai.domains, ai.after, ai.samples, ai.period_min, ai.period_max, bound);
	for (int cls = 0; cls < 3; cls++) {
		ntmem_adapt_info(cls, &ai);
		print_bands(class_names[cls], &ai);
	}
}

static void print_text(void)
{
	struct ntmem_cpu_info cpu;
	struct ntmem_policy_status st;
	char a[32];
	ntmem_cpu_info(&cpu);
	ntmem_policy_status(&st);

	printf("ntmem %s\n\nCPU\n", ntmem_version());
	printf("  arch         %s\n", cpu.arch);
	printf("  vendor       %s\n", cpu.vendor[0] ? cpu.vendor : "unknown");
	printf("  model        %s (family %u, model %u, stepping %u)\n",
	       cpu.brand[0] ? cpu.brand : "unknown", cpu.family, cpu.model,
	       cpu.stepping);
	printf("  hypervisor   %s\n", cpu.hypervisor[0] ? cpu.hypervisor
					       : "none (bare metal, or not said)");
	printf("  features     %s\n", cpu.features[0] ? cpu.features : "none");
	for (const char *m = cpu.missing; *m;) {
		size_t n = strcspn(m, "\n");
		printf("  missing      %.*s\n", (int)n, m);
		m += n + (m[n] == '\n');
	}
	printf("  online CPUs  %u\n", cpu.online_cpus);
	print_caches(&cpu);

	for (int op = 0; op < 2; op++) {
		printf("\nVariants: %s\n", op_names[op]);
		for (int id = 0; id < ntmem_variant_count(); id++) {
			struct ntmem_variant_info v;
			ntmem_variant_info(id, &v);
			if ((int)v.op != op)
				continue;
			printf("  %-13s %-9s %-4s %s", v.name, ntmem_role_name(v.role),
			       v.supported ? "yes" : "no", v.description);
			const char *guard = ntmem_variant_guarded_by(id);
			if (!v.supported)
				printf(" [%s]", v.why_unsupported);
			else if (guard && strcmp(guard, v.name))
				printf(" [safe calls: %s]", guard);
			printf("\n");
		}
	}

	printf("\nPolicy%s: per call class, the variant for each size range\n",
	       st.ready ? "" : " (not built yet: baseline only)");
	for (int cls = 0; cls < 3; cls++)
		print_ladder(cls);
	struct ntmem_ladder_info set, copy;
	ntmem_ladder_info(NTMEM_CLASS_SET_ZERO, &set);
	ntmem_ladder_info(NTMEM_CLASS_COPY, &copy);
	if (strcmp(set.default_how, copy.default_how)) {
		printf("  built-in\n");
		print_builtin("  memset", set.default_how, &cpu);
		print_builtin("  memcpy", copy.default_how, &cpu);
	} else {
		print_builtin("built-in", set.default_how, &cpu);
	}
	printf("  profile      %s%s%s\n", st.profile_path ? st.profile_path : "",
	       st.profile_path ? ": " : "", st.profile_status);
	print_profile_made(&st);
	print_profile_undo(&st);
	if (machine_first_use())
		printf("  first use    %s\n", machine_first_use());
	struct ntmem_parallel_info pi;
	ntmem_parallel_info(&pi);
	printf("  parallel     %u thread%s (%s), at least %s each; %u CPU%s "
	       "allowed\n", pi.threads, pi.threads == 1 ? "" : "s",
	       pi.threads_how, ntm_format_size(pi.min_chunk, a, sizeof a),
	       pi.cpus_allowed, pi.cpus_allowed == 1 ? "" : "s");
	print_learning();
	printf("  shim         %s\n", ntmem_preloaded()
	       ? "libntmem-preload.so serves this process's memset and memcpy"
	       : "not active");
	printf("  tunables     %s\n",
	       st.tunables ? st.tunables : "(NTMEM_TUNABLES not set)");

	printf("\nIgnored settings\n");
	if (!ntmem_policy_ignored(0))
		printf("  none\n");
	for (int i = 0; ntmem_policy_ignored(i); i++)
		printf("  %s\n", ntmem_policy_ignored(i));
}


static void json_size_or_null(struct json *j, const char *key, size_t n)
{
	if (n == SIZE_MAX)
		json_null(j, key);
	else
		json_uint(j, key, n);
}

static void json_adapt(struct json *j)
{
	struct ntmem_adapt_info ai;
	ntmem_adapt_info(NTMEM_CLASS_SET_ZERO, &ai);
	json_object(j, "learning");
	json_bool(j, "on", ai.on);
	json_string(j, "origin", ntmem_origin_name(ai.origin));
	json_uint(j, "after", ai.after);
	json_uint(j, "samples", ai.samples);
	json_uint(j, "period_min", ai.period_min);
	json_uint(j, "period_max", ai.period_max);
	json_uint(j, "domains", ai.domains);
	json_uint(j, "bound", ai.bound);
	json_array(j, "bands");
	for (int cls = 0; cls < 3; cls++) {
		ntmem_adapt_info(cls, &ai);
		for (int i = 0; i < ai.nbands; i++) {
			const struct ntmem_adapt_band *b = &ai.band[i];
			if (!b->nsides)
				continue;
			json_object(j, NULL);
			json_string(j, "class", class_keys[cls]);
			json_uint(j, "from", b->from);
			json_size_or_null(j, "to", b->to);
			json_array(j, "sides");
			for (int k = 0; k < b->nsides; k++)
				json_string(j, NULL, variant_name(b->side[k]));
			json_end(j);
			json_end(j);
		}
	}
	json_end(j);
	json_end(j);
}


static void json_ladder(struct json *j, enum ntmem_class cls,
			const struct ntmem_policy_status *st)
{
	struct ntmem_ladder_info l;
	char buf[1400];
	ntmem_ladder_info(cls, &l);
	json_object(j, class_keys[cls]);
	json_uint(j, "small_max", l.small_max);
	json_string(j, "small_path", l.small_path);
	json_array(j, "rungs");
	for (int i = 0; i < l.nrungs; i++) {
		const struct ntmem_rung *r = &l.rung[i];
		json_object(j, NULL);
		json_string(j, "variant", variant_name(r->variant));
		json_uint(j, "from", r->from);
		json_size_or_null(j, "to", r->to);
		json_string(j, "origin", ntmem_origin_name(r->origin));
		json_string(j, "detail", origin_text(r->origin, &l, st, buf,
						     sizeof buf));
		/* A profile's rung that is the built-in one, as text shows it. */
		json_bool(j, "as_builtin", r->origin == NTMEM_ORIGIN_DEFAULT ||
			  as_builtin(cls, &l, i) >= 0);
		json_end(j);
	}
	json_end(j);
	json_object(j, "nontemporal");
	json_string(j, "variant", variant_name(l.streaming));
	json_string(j, "origin", ntmem_origin_name(l.streaming_origin));
	json_end(j);
	json_end(j);
}

static void json_lines(struct json *j, const char *key, const char *text)
{
	json_array(j, key);
	for (const char *m = text; *m;) {
		char line[256];
		size_t n = strcspn(m, "\n");
		snprintf(line, sizeof line, "%.*s", (int)n, m);
		json_string(j, NULL, line);
		m += n + (m[n] == '\n');
	}
	json_end(j);
}

static void print_json(void)
{
	struct ntmem_cpu_info cpu;
	struct ntmem_policy_status st;
	ntmem_cpu_info(&cpu);
	ntmem_policy_status(&st);
	struct json j;
	json_start(&j, stdout);
	json_string(&j, "version", ntmem_version());

	json_object(&j, "cpu");
	cpu_identity_members(&j, &cpu);
	json_lines(&j, "missing", cpu.missing);
	json_uint(&j, "online_cpus", cpu.online_cpus);
	json_end(&j);

	cpu_caches_object(&j, &cpu);

	json_array(&j, "variants");
	for (int id = 0; id < ntmem_variant_count(); id++) {
		struct ntmem_variant_info v;
		ntmem_variant_info(id, &v);
		json_object(&j, NULL);
		json_uint(&j, "id", (unsigned)id);
		json_string(&j, "name", v.name);
		json_string(&j, "op", op_names[v.op]);
		json_string(&j, "role", ntmem_role_name(v.role));
		json_int(&j, "rank", v.rank);
		json_bool(&j, "streaming", v.streaming);
		json_bool(&j, "zero_only", v.zero_only);
		json_string(&j, "requires", v.requires);
		json_bool(&j, "supported", v.supported);
		json_string(&j, "why_unsupported", v.why_unsupported);
		json_string(&j, "description", v.description);
		json_string(&j, "guarded_by", ntmem_variant_guarded_by(id));
		json_end(&j);
	}
	json_end(&j);

	json_object(&j, "policy");
	json_bool(&j, "ready", st.ready);
	for (int cls = 0; cls < 3; cls++)
		json_ladder(&j, cls, &st);
	json_end(&j);

	json_object(&j, "profile");
	json_string(&j, "path", st.profile_path);
	json_string(&j, "status", st.profile_status);
	json_bool(&j, "loaded", st.profile_loaded);
	char effort[32], when[64];
	profile_made(&st, effort, sizeof effort, when, sizeof when);
	json_string(&j, "effort", effort[0] ? effort : NULL);
	json_string(&j, "made", when[0] ? when : NULL);
	json_string(&j, "undo", st.profile_loaded ? undo_command(&st) : NULL);
	json_end(&j);
	json_string(&j, "tunables", st.tunables);
	json_bool(&j, "preloaded", ntmem_preloaded());
	struct ntmem_parallel_info pi;
	ntmem_parallel_info(&pi);
	json_object(&j, "parallel");
	json_uint(&j, "threads", pi.threads);
	json_string(&j, "threads_how", pi.threads_how);
	json_uint(&j, "min_chunk", pi.min_chunk);
	json_uint(&j, "cpus_allowed", pi.cpus_allowed);
	json_uint(&j, "nodes", pi.nodes);
	json_end(&j);
	json_adapt(&j);
	json_array(&j, "ignored");
	for (int i = 0; ntmem_policy_ignored(i); i++)
		json_string(&j, NULL, ntmem_policy_ignored(i));
	json_end(&j);
	json_finish(&j);
}

int cmd_info(int argc, char **argv)
{
	static const struct option longopts[] = {
		{"json", no_argument, NULL, 'j'},
		{"help", no_argument, NULL, 'h'},
		{NULL, 0, NULL, 0},
	};
	int json = 0, c;
	opterr = 0;
	while ((c = getopt_long(argc, argv, ":jh", longopts, NULL)) != -1) {
		switch (c) {
		case 'j':
			json = 1;
			break;
		case 'h':
			usage(stdout);
			return 0;
		default:
			cli_option_error(c, argv);
		}
	}
	cli_no_operands(argc, argv);
	if (json)
		print_json();
	else
		print_text();
	return 0;
}
