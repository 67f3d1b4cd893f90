/* test_ladder.c - ladders: parsing good and bad ones, the decision at
 * every band edge for each class, the edits tunables make, and the
 * topology sanity rules fed with fake CPU descriptions. */
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include "dispatch/builtin.h"
#include "dispatch/cpu.h"
#include "harness.h"
#include "dispatch/ladder.h"
#include "dispatch/policy.h"
#include "dispatch/registry.h"
#include "util/size.h"


static struct policy pol;  /* large: keep it off the stack */

/* The nth (0-based) supported variant of op in role, zero-only ones only
 * if zero_ok; NULL if there are fewer.  Tests name variants this way so
 * that they hold on every CPU and architecture. */
static const struct variant *nth(enum ntmem_op op, enum ntmem_role role,
				 int zero_ok, int k)
{
	for (int id = 0; id < ntm_variant_count(); id++) {
		const struct variant *v = ntm_variant(id);
		if (v->op == op && v->role == role && (zero_ok || !v->zero_only) &&
		    !ntm_variant_unsupported(v) && k-- == 0)
			return v;
	}
	return NULL;
}

/* Two cached variants and a streaming one for op, or 0 when this CPU
 * lacks them (a portable-only build has no streaming variant). */
static int three(enum ntmem_op op, const struct variant **a,
		 const struct variant **b, const struct variant **s)
{
	*a = ntm_ranked(op, NTMEM_ROLE_LIBC, 0, ntm_cpu()->usable);
	*b = ntm_ranked(op, NTMEM_ROLE_PLAIN, 0, ntm_cpu()->usable);
	*s = ntm_ranked(op, NTMEM_ROLE_STREAMING, 0, ntm_cpu()->usable);
	return *a && *b && *s;
}

static void test_parse_good(void)
{
	const struct variant *a, *b, *s;
	if (!three(NTMEM_OP_SET, &a, &b, &s)) {
		t_skip("parse: a three-rung ladder", "no streaming variant runs here");
		return;
	}
	char text[256], why[128] = "", back[256] = "";
	snprintf(text, sizeof text, "%s:4KiB,%s:8MiB,%s", a->name, b->name, s->name);
	struct ladder l;
	int rc = ntm_ladder_parse(&l, NTMEM_OP_SET, 0, text,
				  NTMEM_ORIGIN_ENVIRONMENT, why, sizeof why);
	l.cached[0] = a;
	ntm_ladder_finish(&l, s);
	ntm_ladder_format(&l, back, sizeof back);
	char want[256];
	snprintf(want, sizeof want, "%s:4096,%s:8388608,%s", a->name, b->name, s->name);
	t_check(rc == 0 && l.count == 3 && l.v[0] == a && l.v[1] == b && l.v[2] == s &&
		l.to[0] == 4 * KiB && l.to[1] == 8 * MiB && l.to[2] == SIZE_MAX &&
		l.cached[2] == b && l.streaming == s &&
		l.origin[1] == NTMEM_ORIGIN_ENVIRONMENT && !strcmp(back, want),
		"parse: NAME:SIZE,NAME:SIZE,NAME, and format writes it back",
		"rc %d (%s), got '%s'", rc, why, back);

	rc = ntm_ladder_parse(&l, NTMEM_OP_COPY, 0, "libc", NTMEM_ORIGIN_PROFILE,
			      why, sizeof why);
	t_check(rc == 0 && l.count == 1 && l.to[0] == SIZE_MAX,
		"parse: a single rung serves every size", "rc %d: %s", rc, why);
}

/* Each bad ladder is refused with a reason that says what is wrong. */
static void test_parse_bad(void)
{
	const struct variant *a, *b, *s;
	if (!three(NTMEM_OP_SET, &a, &b, &s)) {
		t_skip("parse: bad ladders", "no streaming variant runs here");
		return;
	}
	static char texts[12][600];
	const char *reasons[12];
	int n = 0;
#define BAD(reason, ...) \
	(snprintf(texts[n], sizeof texts[n], __VA_ARGS__), reasons[n++] = (reason))
	BAD("sizes must rise", "%s:8MiB,%s:1MiB,%s", a->name, b->name, s->name);
	BAD("sizes must rise", "%s:1MiB,%s:1MiB,%s", a->name, b->name, s->name);
	BAD("no set variant named 'nosuch'", "nosuch:1MiB,%s", s->name);
	BAD("too large", "%s:99999999999999999999999B,%s", a->name, s->name);
	BAD("too large", "%s:18446744073709551615,%s", a->name, s->name);
	BAD("unknown unit", "%s:12Q,%s", a->name, s->name);
	BAD("above 0", "%s:0,%s", a->name, s->name);
	BAD("takes no size", "%s:1MiB,%s:2MiB", a->name, s->name);
	BAD("needs a size", "%s,%s", a->name, s->name);
	BAD("an empty rung", "%s:1MiB,,%s", a->name, s->name);
	BAD("more than 8 rungs",
	    "%s:1K,%s:2K,%s:3K,%s:4K,%s:5K,%s:6K,%s:7K,%s:8K,%s", a->name, b->name,
	    a->name, b->name, a->name, b->name, a->name, b->name, s->name);
#undef BAD
	for (int i = 0; i < n; i++) {
		struct ladder l;
		char why[128] = "", name[160];
		int rc = ntm_ladder_parse(&l, NTMEM_OP_SET, 1, texts[i],
					  NTMEM_ORIGIN_ENVIRONMENT, why, sizeof why);
		snprintf(name, sizeof name, "parse refuses '%.60s': %s", texts[i],
			 reasons[i]);
		t_check(rc == -1 && strstr(why, reasons[i]), name, "rc %d: '%s'", rc, why);
	}

	/* A zero-only variant in a ladder for other values, whether or not
	 * this CPU runs it: the value class decides first. */
	const struct variant *zero_only = NULL;
	for (int id = 0; id < ntm_variant_count(); id++)
		if (ntm_variant(id)->zero_only)
			zero_only = ntm_variant(id);
	if (zero_only) {
		struct ladder l;
		char text[64], why[128] = "";
		snprintf(text, sizeof text, "%s", zero_only->name);
		int rc = ntm_ladder_parse(&l, NTMEM_OP_SET, 0, text,
					  NTMEM_ORIGIN_ENVIRONMENT, why, sizeof why);
		t_check(rc == -1 && strstr(why, "zeros only"),
			"parse refuses a zero-only variant in a ladder for other values",
			"rc %d: %s", rc, why);
	} else {
		t_skip("parse refuses a zero-only variant for other values",
		       "this architecture has no zero-only variant");
	}

	const struct variant *missing = NULL;
	for (int id = 0; id < ntm_variant_count(); id++)
		if (ntm_variant_unsupported(ntm_variant(id)))
			missing = ntm_variant(id);
	if (missing) {
		struct ladder l;
		char why[128] = "";
		int rc = ntm_ladder_parse(&l, missing->op, 1, missing->name,
					  NTMEM_ORIGIN_ENVIRONMENT, why, sizeof why);
		t_check(rc == -1 && strstr(why, ntm_variant_unsupported(missing)),
			"parse refuses a variant this CPU lacks, with the CPU's reason",
			"rc %d: %s", rc, why);
	} else {
		t_skip("parse refuses a variant this CPU lacks", "this CPU runs them all");
	}
}

/* Three rungs with edges e1 < e2 in every class, from one NTMEM_TUNABLES;
 * then every edge's n - 1, n and n + 1, with and without flags. */
static void test_band_edges(void)
{
	const size_t e1 = 100 * KiB + 3, e2 = 3 * MiB + 1;
	for (int cls = 0; cls < NTMEM_CLASSES; cls++) {
		enum ntmem_op op = ntm_op_of(cls);
		const struct variant *a, *b, *s;
		char name[128];
		snprintf(name, sizeof name, "decision at every band edge, n-1, n, n+1: %s",
			 ntm_class_key[cls]);
		if (!three(op, &a, &b, &s)) {
			t_skip(name, "no streaming variant runs here");
			continue;
		}
		char tun[256];
		snprintf(tun, sizeof tun, "%s=%s:%zu,%s:%zu,%s", ntm_class_key[cls],
			 a->name, e1, b->name, e2, s->name);
		ntm_policy_build(&pol, ntm_cpu(), tun, NULL);
		const struct ladder *l = &pol.ladder[cls];
		const struct variant *want[6] = {a, b, b, b, s, s};
		const size_t at[6] = {e1 - 1, e1, e1 + 1, e2 - 1, e2, e2 + 1};
		int ok = pol.note_count == 0;
		for (int i = 0; i < 6; i++) {
			ok &= ntm_ladder_variant(l, at[i], 0) == want[i];
			ok &= ntm_ladder_variant(l, at[i], NTMEM_F_NOFENCE) == want[i];
			/* TEMPORAL: the nearest cached rung at or below. */
			ok &= ntm_ladder_variant(l, at[i], NTMEM_F_TEMPORAL) ==
			      (want[i] == s ? b : want[i]);
			ok &= ntm_ladder_variant(l, at[i], NTMEM_F_NONTEMPORAL) == s;
		}
		ok &= ntm_ladder_variant(l, SIZE_MAX, 0) == s &&
		      ntm_ladder_variant(l, 0, 0) == a;
		t_check(ok, name, "notes %d: %s", pol.note_count,
			pol.note_count ? pol.notes[0] : "wrong variant");
	}
}

/* The class of a call: memset of zero (any int whose low byte is 0),
 * memset of anything else, memcpy. */
static void test_class_of(void)
{
	t_check(ntm_class_of(NTMEM_OP_SET, 0) == NTMEM_CLASS_SET_ZERO &&
		ntm_class_of(NTMEM_OP_SET, 0x100) == NTMEM_CLASS_SET_ZERO &&
		ntm_class_of(NTMEM_OP_SET, -256) == NTMEM_CLASS_SET_ZERO &&
		ntm_class_of(NTMEM_OP_SET, 1) == NTMEM_CLASS_SET_NONZERO &&
		ntm_class_of(NTMEM_OP_SET, -1) == NTMEM_CLASS_SET_NONZERO &&
		ntm_class_of(NTMEM_OP_COPY, 7) == NTMEM_CLASS_COPY,
		"class: memset's value is its low byte, as memset's is", "wrong class");
}

/* The single-setting edits keep what they do not name. */
static void test_edits(void)
{
	const struct variant *a, *b, *s;
	if (!three(NTMEM_OP_COPY, &a, &b, &s)) {
		t_skip("edits: threshold, cached, streaming", "no streaming variant runs here");
		return;
	}
	char tun[256];
	snprintf(tun, sizeof tun, "copy=%s:1MiB,%s:8MiB,%s,copy_threshold=4MiB",
		 a->name, b->name, s->name);
	ntm_policy_build(&pol, ntm_cpu(), tun, NULL);
	const struct ladder *l = &pol.ladder[NTMEM_CLASS_COPY];
	int cut = l->count == 3 && l->v[0] == a && l->to[0] == 1 * MiB &&
		  l->v[1] == b && l->to[1] == 4 * MiB && l->v[2] == s;

	snprintf(tun, sizeof tun, "copy=%s:1MiB,%s:8MiB,%s,copy_threshold=20MiB",
		 a->name, b->name, s->name);
	ntm_policy_build(&pol, ntm_cpu(), tun, NULL);
	int stretched = l->count == 3 && l->to[1] == 20 * MiB && l->v[2] == s;

	snprintf(tun, sizeof tun, "copy=%s:1MiB,%s:8MiB,%s,copy_threshold=max",
		 a->name, b->name, s->name);
	ntm_policy_build(&pol, ntm_cpu(), tun, NULL);
	int never = l->count == 2 && l->v[1] == b && l->to[1] == SIZE_MAX &&
		    l->streaming == s;

	snprintf(tun, sizeof tun, "copy=%s:1MiB,%s:8MiB,%s,copy_cached=%s",
		 a->name, b->name, s->name, b->name);
	ntm_policy_build(&pol, ntm_cpu(), tun, NULL);
	int merged = l->count == 2 && l->v[0] == b && l->to[0] == 8 * MiB &&
		     l->v[1] == s && l->origin[1] == NTMEM_ORIGIN_ENVIRONMENT;

	const struct variant *s2 = nth(NTMEM_OP_COPY, NTMEM_ROLE_STREAMING, 0, 0);
	for (int k = 1; s2 == s && nth(NTMEM_OP_COPY, NTMEM_ROLE_STREAMING, 0, k); k++)
		s2 = nth(NTMEM_OP_COPY, NTMEM_ROLE_STREAMING, 0, k);
	snprintf(tun, sizeof tun, "copy=%s:1MiB,%s,copy_streaming=%s", a->name,
		 s->name, s2->name);
	ntm_policy_build(&pol, ntm_cpu(), tun, NULL);
	int replaced = l->count == 2 && l->v[1] == s2 && l->streaming == s2;

	t_check(cut && stretched && never && merged && replaced && pol.note_count == 0,
		"edits: threshold cuts or stretches the cached rungs, cached merges "
		"them, streaming replaces the top",
		"cut %d stretched %d never %d merged %d replaced %d", cut, stretched,
		never, merged, replaced);
}

/* A fake CPU: only what ntm_cpu_plan reads. */
static struct cpu fake(size_t id_l3, unsigned id_shared, size_t fs_l3,
		       unsigned fs_shared, unsigned online)
{
	struct cpu c;
	memset(&c, 0, sizeof c);
	c.cpuid_caches = (struct cache_info){48 * KiB, 2 * MiB, id_l3, id_shared};
	c.sysfs_caches = (struct cache_info){48 * KiB, 2 * MiB, fs_l3, fs_shared};
	c.online_cpus = online;
	return c;
}

static void expect_plan(const char *what, struct cpu c, size_t l3,
			unsigned shared, int distrusted, const char *words,
			size_t set_t, size_t copy_t)
{
	struct cache_plan p;
	char how[NTM_NOTE_LEN], name[160];
	ntm_cpu_plan(&c, &p, 1);
	size_t st = ntm_default_threshold(&c, NTMEM_OP_SET, how, sizeof how);
	size_t ct = ntm_default_threshold(&c, NTMEM_OP_COPY, how, sizeof how);
	/* how: the copy threshold's words, which include the plan's. */
	snprintf(name, sizeof name, "topology: %s", what);
	t_check(p.caches.l3 == l3 && p.caches.l3_shared_by == shared &&
		p.distrusted == distrusted && strstr(how, words) &&
		st == set_t && ct == copy_t,
		name, "l3 %zu shared %u distrusted %d thresholds %zu %zu: %s",
		p.caches.l3, p.caches.l3_shared_by, p.distrusted, st, ct, p.how);
}

static void test_topology(void)
{
	expect_plan("a sane L3, sysfs's sharing wins over CPUID's ID count",
		    fake(32 * MiB, 16, 32 * MiB, 2, 2), 32 * MiB, 2, 0,
		    "L3 32 MiB from CPUID", 16 * MiB, 8 * MiB);
	expect_plan("480 MiB for 2 CPUs is not trusted (a VM's view of its host)",
		    fake(480 * MiB, 2, 480 * MiB, 2, 2), 0, 2, 1,
		    "240 MiB a CPU", 64 * MiB, 32 * MiB);
	expect_plan("480 MiB for 96 CPUs is (a Xeon 6 socket)",
		    fake(480 * MiB, 128, 480 * MiB, 96, 96), 480 * MiB, 96, 0,
		    "L3 480 MiB from CPUID", 8 * MiB, 8 * MiB);
	expect_plan("64 MiB for 1 CPU is trusted",
		    fake(64 * MiB, 1, 64 * MiB, 1, 1), 64 * MiB, 1, 0,
		    "L3 64 MiB from CPUID", 64 * MiB, 32 * MiB);
	expect_plan("65 MiB for 1 CPU is not trusted",
		    fake(65 * MiB, 1, 65 * MiB, 1, 1), 0, 1, 1,
		    "not trusted", 64 * MiB, 32 * MiB);
	expect_plan("CPUID's 508 MiB shared by 0, no sysfs",
		    fake(508 * MiB, 0, 0, 0, 2), 0, 2, 1, "shared by 0", 64 * MiB,
		    32 * MiB);
	expect_plan("shared by 0 with a plausible size: the online CPUs",
		    fake(32 * MiB, 0, 0, 0, 4), 32 * MiB, 4, 1, "shared by 0",
		    8 * MiB, 8 * MiB);
	expect_plan("CPUID and sysfs disagree: the smaller",
		    fake(16 * MiB, 2, 480 * MiB, 2, 2), 16 * MiB, 2, 1,
		    "cannot both be right", 8 * MiB, 8 * MiB);
	expect_plan("no L3 at all: a fixed share",
		    fake(0, 0, 0, 0, 8), 0, 8, 0, "no L3 size", 64 * MiB, 32 * MiB);
	expect_plan("a share below the floor is raised to it",
		    fake(32 * MiB, 16, 32 * MiB, 16, 16), 32 * MiB, 16, 0,
		    "raised to the floor", 8 * MiB, 8 * MiB);
}

int main(void)
{
	test_parse_good();
	test_parse_bad();
	test_band_edges();
	test_class_of();
	test_edits();
	test_topology();
	return t_finish();
}
