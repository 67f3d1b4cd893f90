/* policy.c - the policy and where each of its values came from.  Sources,
 * strongest first: NTMEM_TUNABLES, the calibration profile, the built-in
 * default.  A bad value is skipped and noted, never fatal. */
#define _GNU_SOURCE
#include "policy.h"

#include <errno.h>
#include <pthread.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "profile.h"
#include "registry.h"
#include "size.h"

#define MiB ((size_t)1 << 20)

/* Topology default: the per-thread share of the LLC, kept within bounds.
 * Below the floor streaming always lost in the seeds' tables (2-16 MB);
 * the cap keeps an absurd reported cache (VMs report hundreds of MiB)
 * from turning streaming off.  With no cache information at all, the
 * fallback is a typical server LLC. */
#define THRESHOLD_FLOOR (8 * MiB)
#define THRESHOLD_CAP (256 * MiB)
#define THRESHOLD_NO_CACHE_INFO (32 * MiB)

/* Built-in ranking, best first, used where nothing was measured. */
static const char *const ranking[2][2][8] = {
	[NTMEM_OP_SET] = {
		{"stosb", "vec_avx", "vec_sse2", "stosq", "portable"},
		{"nt_avx", "nt_avx512", "nt_sse2", "movnti"},
	},
	[NTMEM_OP_COPY] = {
		{"movsb", "vec_avx", "vec_sse2", "portable"},
		{"nt_avx", "nt_avx512", "nt_sse2", "movnti"},
	},
};

static const char *const op_prefix[2] = {"set", "copy"};

const struct variant *ntm_ranked_variant(enum ntmem_op op, int streaming)
{
	for (const char *const *name = ranking[op][streaming]; *name; name++) {
		const struct variant *v = ntm_variant_named(op, *name);
		if (v && !ntm_variant_unsupported(v))
			return v;
	}
	return NULL;
}

size_t ntm_topology_threshold(const struct cpu *cpu, char *how, size_t len)
{
	struct cache_info c = ntm_cpu_caches(cpu);
	const char *from = cpu->cpuid_caches.l3 ? "CPUID" : "sysfs";
	if (c.l3 == 0) {
		snprintf(how, len, "no LLC size from CPUID or sysfs: fixed %zu MiB",
			 THRESHOLD_NO_CACHE_INFO / MiB);
		return THRESHOLD_NO_CACHE_INFO;
	}
	size_t share = ntm_cpu_llc_share(cpu);
	size_t t = share;
	const char *bound = "";
	if (t < THRESHOLD_FLOOR) {
		t = THRESHOLD_FLOOR;
		bound = ", raised to the floor";
	} else if (t > THRESHOLD_CAP) {
		t = THRESHOLD_CAP;
		bound = ", lowered to the cap";
	}
	char l3[32], s[32];
	snprintf(how, len, "LLC %s (%s) / %u threads = %s per thread%s",
		 ntm_format_size(c.l3, l3, sizeof l3), from, c.l3_shared_by,
		 ntm_format_size(share, s, sizeof s), bound);
	return t;
}

__attribute__((format(printf, 2, 3)))
static void note(struct policy *p, const char *fmt, ...)
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

/* Look up name as the cached (streaming == 0) or streaming variant of op.
 * Returns NULL and says why in *why if it cannot serve there. */
static const struct variant *variant_for_role(enum ntmem_op op, int streaming,
					      const char *name, char *why,
					      size_t len)
{
	const struct variant *v = ntm_variant_named(op, name);
	const char *missing;
	if (!v)
		snprintf(why, len, "no %s variant named '%s'", op_prefix[op], name);
	else if ((missing = ntm_variant_unsupported(v)))
		snprintf(why, len, "%s: %s", name, missing);
	else if (v->streaming != streaming)
		snprintf(why, len, "%s is %s; this key needs a %s variant", name,
			 v->streaming ? "streaming" : "cached",
			 streaming ? "streaming" : "cached");
	else
		return v;
	return NULL;
}

static void set_role(struct op_policy *o, int streaming,
		     const struct variant *v, enum ntmem_origin origin)
{
	if (streaming) {
		o->streaming = v;
		o->streaming_origin = origin;
	} else {
		o->cached = v;
		o->cached_origin = origin;
	}
}

/* Set o's threshold and, unless keep_nonzero, its non-zero one too. */
static void set_threshold(struct op_policy *o, size_t t,
			  enum ntmem_origin origin, int keep_nonzero)
{
	o->threshold = t;
	o->threshold_origin = origin;
	if (!keep_nonzero) {
		o->threshold_nonzero = t;
		o->threshold_nonzero_origin = origin;
	}
}

static void apply_profile(struct policy *p, const struct cpu *cpu,
			  const char *path)
{
	snprintf(p->profile_path, sizeof p->profile_path, "%s", path);
	struct profile prof;
	char why[NTM_NOTE_LEN - 64];
	if (access(path, F_OK) && errno == ENOENT) {
		snprintf(p->profile_status, sizeof p->profile_status,
			 "not present");
		return;
	}
	if (ntm_profile_read(path, cpu, &prof, why, sizeof why)) {
		snprintf(p->profile_status, sizeof p->profile_status,
			 "ignored: %s", why);
		note(p, "profile %s: %s", path, why);
		return;
	}
	p->profile_loaded = 1;
	snprintf(p->profile_status, sizeof p->profile_status, "loaded");
	for (int op = 0; op < 2; op++) {
		struct op_policy *o = &p->op[op];
		const struct profile_op *po = &prof.op[op];
		const char *names[2] = {po->cached, po->streaming};
		for (int streaming = 0; streaming <= 1; streaming++) {
			if (!names[streaming][0])
				continue;
			const struct variant *v = variant_for_role(
				op, streaming, names[streaming], why, sizeof why);
			if (v)
				set_role(o, streaming, v, NTMEM_ORIGIN_PROFILE);
			else
				note(p, "profile %s: %s.%s: %s", path,
				     op_prefix[op],
				     streaming ? "streaming" : "cached", why);
		}
		if (po->has_threshold)
			set_threshold(o, po->threshold, NTMEM_ORIGIN_PROFILE, 0);
		if (po->has_nonzero_threshold) {
			o->threshold_nonzero = po->nonzero_threshold;
			o->threshold_nonzero_origin = NTMEM_ORIGIN_PROFILE;
		}
	}
}

/* One "key=value" from NTMEM_TUNABLES.  nonzero_given[op]: an explicit
 * non-zero threshold came earlier, which set_threshold must not undo. */
static void apply_tunable(struct policy *p, char *pair, int nonzero_given[2])
{
	char *eq = strchr(pair, '=');
	if (!eq) {
		note(p, "NTMEM_TUNABLES: '%s': expected key=value", pair);
		return;
	}
	*eq = '\0';
	const char *key = pair, *value = eq + 1;
	char why[NTM_NOTE_LEN - 64];
	for (int op = 0; op < 2; op++) {
		size_t plen = strlen(op_prefix[op]);
		if (strncmp(key, op_prefix[op], plen))
			continue;
		const char *field = key + plen;
		struct op_policy *o = &p->op[op];
		int nonzero = op == NTMEM_OP_SET && !strcmp(field, "_nonzero_threshold");
		if (nonzero || !strcmp(field, "_threshold")) {
			size_t t;
			const char *err;
			if (!strcmp(value, "max"))
				t = SIZE_MAX;
			else if (ntm_parse_size(value, &t, &err)) {
				note(p, "NTMEM_TUNABLES: %s=%s: %s", key, value, err);
				return;
			}
			if (nonzero) {
				o->threshold_nonzero = t;
				o->threshold_nonzero_origin = NTMEM_ORIGIN_ENVIRONMENT;
				nonzero_given[op] = 1;
			} else
				set_threshold(o, t, NTMEM_ORIGIN_ENVIRONMENT,
					      nonzero_given[op]);
			return;
		}
		int streaming;
		if (!strcmp(field, "_cached"))
			streaming = 0;
		else if (!strcmp(field, "_streaming"))
			streaming = 1;
		else if (!field[0]) {
			/* set=NAME: NAME for every size. */
			const struct variant *v = ntm_variant_named(op, value);
			streaming = v ? v->streaming : 0;
			if (!variant_for_role(op, streaming, value, why, sizeof why)) {
				note(p, "NTMEM_TUNABLES: %s=%s: %s", key, value, why);
				return;
			}
			set_role(o, streaming, v, NTMEM_ORIGIN_ENVIRONMENT);
			set_threshold(o, streaming ? 0 : SIZE_MAX,
				      NTMEM_ORIGIN_ENVIRONMENT, nonzero_given[op]);
			return;
		} else
			break;
		const struct variant *v =
			variant_for_role(op, streaming, value, why, sizeof why);
		if (v)
			set_role(o, streaming, v, NTMEM_ORIGIN_ENVIRONMENT);
		else
			note(p, "NTMEM_TUNABLES: %s=%s: %s", key, value, why);
		return;
	}
	note(p, "NTMEM_TUNABLES: unknown key '%s'", key);
}

void ntm_policy_build(struct policy *p, const struct cpu *cpu,
		      const char *tunables, const char *profile_path)
{
	memset(p, 0, sizeof *p);
	char how[128];
	size_t topology = ntm_topology_threshold(cpu, how, sizeof how);
	for (int op = 0; op < 2; op++) {
		struct op_policy *o = &p->op[op];
		o->cached = ntm_ranked_variant(op, 0);
		o->streaming = ntm_ranked_variant(op, 1);
		o->threshold = topology;
		/* Without any streaming variant (off x86), never stream. */
		if (!o->streaming) {
			o->streaming = o->cached;
			o->threshold = SIZE_MAX;
		}
		o->threshold_nonzero = o->threshold;
	}

	if (profile_path)
		apply_profile(p, cpu, profile_path);

	if (tunables) {
		char copy[1024];
		if (strlen(tunables) >= sizeof copy)
			note(p, "NTMEM_TUNABLES: longer than %zu bytes",
			     sizeof copy - 1);
		else {
			strcpy(copy, tunables);
			char *save = NULL;
			int nonzero_given[2] = {0, 0};
			for (char *pair = strtok_r(copy, ",", &save); pair;
			     pair = strtok_r(NULL, ",", &save))
				apply_tunable(p, pair, nonzero_given);
		}
	}

	/* A zero-only streaming variant needs a partner for other values. */
	for (int op = 0; op < 2; op++) {
		struct op_policy *o = &p->op[op];
		o->streaming_any_value = o->streaming;
		if (o->streaming->zero_only)
			o->streaming_any_value = ntm_ranked_variant(op, 1);
	}
}

static struct policy the_policy;
static pthread_once_t policy_once = PTHREAD_ONCE_INIT;

static void build_process_policy(void)
{
	char path[1024];
	const char *why;
	int have_path = !ntm_profile_path(path, sizeof path, &why);
	ntm_policy_build(&the_policy, ntm_cpu(),
			 secure_getenv("NTMEM_TUNABLES"),
			 have_path ? path : NULL);
	if (!have_path)
		snprintf(the_policy.profile_status,
			 sizeof the_policy.profile_status, "none: %s", why);
	else if (secure_getenv("NTMEM_PROFILE") && !the_policy.profile_loaded &&
		 !strcmp(the_policy.profile_status, "not present"))
		note(&the_policy, "NTMEM_PROFILE: %s: no such file", path);
}

const struct policy *ntm_policy(void)
{
	pthread_once(&policy_once, build_process_policy);
	return &the_policy;
}

/* The public view. */

int ntmem_policy_info(enum ntmem_op op, struct ntmem_policy_info *info)
{
	if ((op != NTMEM_OP_SET && op != NTMEM_OP_COPY) || !info) {
		errno = EINVAL;
		return -1;
	}
	const struct policy *p = ntm_policy();
	const struct op_policy *o = &p->op[op];
	info->cached = ntm_variant_id(o->cached);
	info->cached_origin = o->cached_origin;
	info->streaming = ntm_variant_id(o->streaming);
	info->streaming_origin = o->streaming_origin;
	info->streaming_any_value = ntm_variant_id(o->streaming_any_value);
	info->threshold = o->threshold;
	info->threshold_origin = o->threshold_origin;
	info->threshold_nonzero = o->threshold_nonzero;
	info->threshold_nonzero_origin = o->threshold_nonzero_origin;
	info->profile_path = p->profile_loaded ? p->profile_path : NULL;
	return 0;
}

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

const char *ntmem_policy_ignored(int i)
{
	const struct policy *p = ntm_policy();
	return i >= 0 && i < p->note_count ? p->notes[i] : NULL;
}
