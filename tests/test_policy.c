/* test_policy.c - where the ladders come from: the built-in default,
 * NTMEM_TUNABLES, the calibration profile; what is ignored and why; the
 * precedence between them; the profile path; the process's policy as
 * ntmem info reports it. */
#define _GNU_SOURCE
#include <errno.h>
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "dispatch/builtin.h"
#include "dispatch/cpu.h"
#include "harness.h"
#include "dispatch/policy.h"
#include "dispatch/profile.h"
#include "dispatch/registry.h"
#include "dispatch/width.h"
#include "entry/entry.h"
#include "util/size.h"


static const char *dir;  /* the scratch directory */
static struct policy pol;  /* large: keep it off the stack */

static int has_note(const struct policy *p, const char *a, const char *b)
{
	for (int i = 0; i < p->note_count; i++)
		if (strstr(p->notes[i], a) && (!b || strstr(p->notes[i], b)))
			return 1;
	return 0;
}

static const char *first_note(const struct policy *p)
{
	return p->note_count ? p->notes[0] : "(no note)";
}

static int all_default(const struct policy *p)
{
	for (int cls = 0; cls < NTMEM_CLASSES; cls++)
		for (unsigned i = 0; i < p->ladder[cls].count; i++)
			if (p->ladder[cls].origin[i] != NTMEM_ORIGIN_DEFAULT)
				return 0;
	return 1;
}

/* Three buffers in turn: a message may show three ladders at once. */
static const char *ladder_text(const struct ladder *l)
{
	static char bufs[3][512];
	static int next;
	char *buf = bufs[next++ % 3];
	if (ntm_ladder_format(l, buf, sizeof bufs[0]))
		snprintf(buf, sizeof bufs[0], "(too long)");
	return buf;
}

/* The architecture streams at all (a portable-only build does not). */
static int streams_here(void)
{
	return ntm_ranked(NTMEM_OP_SET, NTMEM_ROLE_STREAMING, 1, ntm_cpu()->usable) != NULL;
}

#if defined(__x86_64__)
/* The built-in ladders of a CPU: a ladder of (role, upper edge) per class,
 * rung by rung, against pol built for it. */
struct want_rung {
	enum ntmem_role role;
	int zero_only;   /* for a streaming rung: 1 zero-only, 0 any value */
	size_t to;
};

static int ladder_is(const struct ladder *l, const struct want_rung *w)
{
	unsigned i = 0;
	for (; w[i].to; i++)
		if (i >= l->count || l->v[i]->role != w[i].role || l->to[i] != w[i].to ||
		    (w[i].role == NTMEM_ROLE_STREAMING && l->v[i]->zero_only != w[i].zero_only))
			return 0;
	return i == l->count;
}
#endif

static void test_defaults(void)
{
	ntm_policy_build(&pol, ntm_cpu(), NULL, NULL);
	if (!streams_here()) {
		const struct ladder *l = &pol.ladder[NTMEM_CLASS_COPY];
		t_check(pol.note_count == 0 && l->v[l->count - 1]->role != NTMEM_ROLE_STREAMING,
			"defaults: with nothing that streams, no streaming rung",
			"%s", ladder_text(l));
		return;
	}
	/* This CPU: the built-in entry's rungs, each resolved by role and rank
	 * on this CPU, or the C library's where a pick cannot run here. */
	struct builtin scratch;
	char how[512];
	const struct builtin *b = ntm_builtin_for(ntm_cpu(), 0, &scratch, how, sizeof how);
	int ok = pol.note_count == 0 && all_default(&pol);
	for (int cls = 0; cls < NTMEM_CLASSES; cls++) {
		/* Each pick resolved on this CPU (the C library's where it cannot
		 * run here); a rung resolving as the one before extends it. */
		const struct variant *v[BUILTIN_RUNGS];
		size_t to[BUILTIN_RUNGS];
		unsigned n = 0;
		for (int i = 0; i < BUILTIN_RUNGS; i++) {
			const struct builtin_rung *r = &b->rung[cls][i];
			const struct variant *x =
				ntm_builtin_variant(cls, r->run, ntm_cpu()->usable);
			if (!x)
				x = ntm_ranked(ntm_op_of(cls), NTMEM_ROLE_LIBC, 0, ntm_cpu()->usable);
			if (!n || v[n - 1] != x)
				n++;
			v[n - 1] = x;
			to[n - 1] = r->upto;
			if (r->upto == SIZE_MAX)
				break;
		}
		const struct ladder *l = &pol.ladder[cls];
		ok &= l->count == n;
		for (unsigned i = 0; ok && i < l->count; i++)
			ok &= l->to[i] == to[i] && l->v[i] == v[i];
	}
	t_check(ok && !strcmp(pol.default_how[0], how),
		"defaults: this CPU's built-in entry, rung by rung", "%s; notes %d (%s)",
		ladder_text(&pol.ladder[0]), pol.note_count, how);

#if defined(__x86_64__)
	/* CPUs nobody recorded, with a 32 MiB L3 shared by 2 (16 MiB each). */
	struct cpu fake = *ntm_cpu();
	fake.model = 0x10000;
	fake.cpuid_caches = fake.sysfs_caches =
		(struct cache_info){32 * KiB, 1 * MiB, 32 * MiB, 2};
	fake.libc_caches = (struct cache_info){0};  /* plan from the two above */
	snprintf(fake.vendor, sizeof fake.vendor, "GenuineIntel");
	fake.family = 6;
	ntm_policy_build(&pol, &fake, NULL, NULL);
	const struct want_rung intel_set[] = {{NTMEM_ROLE_VECTOR, 0, 32 * KiB},
		{NTMEM_ROLE_LIBC, 0, 16 * MiB}, {NTMEM_ROLE_STREAMING, 0, SIZE_MAX}, {0, 0, 0}};
	const struct want_rung intel_copy[] = {{NTMEM_ROLE_VECTOR, 0, 32 * KiB},
		{NTMEM_ROLE_LIBC, 0, 8 * MiB}, {NTMEM_ROLE_STREAMING, 0, SIZE_MAX}, {0, 0, 0}};
	int intel = ladder_is(&pol.ladder[NTMEM_CLASS_SET_NONZERO], intel_set) &&
		    ladder_is(&pol.ladder[NTMEM_CLASS_COPY], intel_copy) &&
		    pol.ladder[NTMEM_CLASS_COPY].v[2]->shape == NTM_SHAPE_PAGES;
	t_check(intel, "defaults: an unknown Intel CPU: its loop to 32 KiB, libc to "
		"the L3 share (copies half), then streaming (copies four pages at once)",
		"%s | %s",
		ladder_text(&pol.ladder[NTMEM_CLASS_SET_NONZERO]),
		ladder_text(&pol.ladder[NTMEM_CLASS_COPY]));

	/* Zen 1-4 not recorded: zeros stream above the L3 share up to
	 * 512 MiB, other values stay the C library's, copies stream from
	 * half the share; Zen 5 and later: zeros stream from the share on,
	 * copies take rep movsb (it stops allocating above the L3). */
	int zeros_only = ntm_ranked(NTMEM_OP_SET, NTMEM_ROLE_STREAMING, 1,
				    fake.usable)->zero_only;
	snprintf(fake.vendor, sizeof fake.vendor, "AuthenticAMD");
	fake.family = 0x19;
	ntm_policy_build(&pol, &fake, NULL, NULL);
	const struct want_rung zen_zero[] = {{NTMEM_ROLE_VECTOR, 0, 32 * KiB},
		{NTMEM_ROLE_LIBC, 0, 16 * MiB}, {NTMEM_ROLE_STREAMING, zeros_only, 512 * MiB},
		{NTMEM_ROLE_LIBC, 0, SIZE_MAX}, {0, 0, 0}};
	const struct want_rung zen_other[] = {{NTMEM_ROLE_VECTOR, 0, 32 * KiB},
		{NTMEM_ROLE_LIBC, 0, SIZE_MAX}, {0, 0, 0}};
	const struct want_rung zen_copy[] = {{NTMEM_ROLE_VECTOR, 0, 32 * KiB},
		{NTMEM_ROLE_LIBC, 0, 8 * MiB}, {NTMEM_ROLE_STREAMING, 0, SIZE_MAX}, {0, 0, 0}};
	int zen = ladder_is(&pol.ladder[NTMEM_CLASS_SET_ZERO], zen_zero) &&
		  ladder_is(&pol.ladder[NTMEM_CLASS_SET_NONZERO], zen_other) &&
		  ladder_is(&pol.ladder[NTMEM_CLASS_COPY], zen_copy) &&
		  pol.ladder[NTMEM_CLASS_COPY].v[2]->shape == NTM_SHAPE_LINES;
	t_check(zen, "defaults: an AMD Zen 1-4 not recorded: zeros stream to 512 MiB, "
		"copies from half the L3 share", "%s | %s | %s", ladder_text(&pol.ladder[0]),
		ladder_text(&pol.ladder[1]), ladder_text(&pol.ladder[2]));

	fake.family = 0x1a;
	ntm_policy_build(&pol, &fake, NULL, NULL);
	const struct want_rung zen5_zero[] = {{NTMEM_ROLE_VECTOR, 0, 32 * KiB},
		{NTMEM_ROLE_LIBC, 0, 16 * MiB}, {NTMEM_ROLE_STREAMING, zeros_only, SIZE_MAX},
		{0, 0, 0}};
	const struct want_rung zen5_copy[] = {{NTMEM_ROLE_VECTOR, 0, 32 * KiB},
		{NTMEM_ROLE_STRING, 0, 2 * MiB}, {NTMEM_ROLE_LIBC, 0, 8 * MiB},
		{NTMEM_ROLE_STRING, 0, SIZE_MAX}, {0, 0, 0}};
	int zen5 = ladder_is(&pol.ladder[NTMEM_CLASS_SET_ZERO], zen5_zero) &&
		   ladder_is(&pol.ladder[NTMEM_CLASS_SET_NONZERO], zen_other) &&
		   ladder_is(&pol.ladder[NTMEM_CLASS_COPY], zen5_copy);
	t_check(zen5 || !(fake.usable & CPU_ERMS), "defaults: an AMD Zen 5 or later not "
		"recorded: zeros stream from the L3 share, copies take rep movsb in the L2 and above the share",
		"%s | %s | %s", ladder_text(&pol.ladder[0]), ladder_text(&pol.ladder[1]),
		ladder_text(&pol.ladder[2]));

	/* Rows keyed on the hypervisor: model 167 in a KVM guest is the
	 * recorded Xeon; on bare metal it is Rocket Lake, which nobody here
	 * recorded. */
	struct cpu xeon = *ntm_cpu();
	snprintf(xeon.vendor, sizeof xeon.vendor, "GenuineIntel");
	xeon.family = 6;
	xeon.model = 167;
	xeon.guest = 1;
	ntm_policy_build(&pol, &xeon, NULL, NULL);
	int guest = pol.builtin_recorded;
	xeon.guest = 0;
	ntm_policy_build(&pol, &xeon, NULL, NULL);
	t_check(guest && !pol.builtin_recorded, "defaults: the Xeon VM's row matches "
		"its model only in a virtual machine", "guest %d, bare metal %d", guest,
		pol.builtin_recorded);

	/* builtin=generic hides a recorded entry. */
	xeon.guest = 1;
	ntm_policy_build(&pol, &xeon, "builtin=generic", NULL);
	t_check(!pol.builtin_recorded && pol.note_count == 0 &&
			strstr(pol.default_how[0], "not recorded"),
		"tunables: builtin=generic gives a recorded CPU the rule for CPUs not "
		"recorded", "recorded %d, notes %d, %s", pol.builtin_recorded,
		pol.note_count, pol.default_how[0]);
	ntm_policy_build(&pol, &xeon, "builtin=nosuch", NULL);
	t_check(pol.builtin_recorded && pol.note_count == 1 &&
			strstr(pol.notes[0], "builtin=nosuch"),
		"tunables: builtin= other than generic or recorded is noted and ignored",
		"recorded %d, notes %d", pol.builtin_recorded, pol.note_count);

	/* Zen 3, recorded: streaming copies up to half the L3 read their
	 * source ahead, then go line by line. */
	fake.family = 0x19;
	fake.model = 0x01;
	ntm_policy_build(&pol, &fake, NULL, NULL);
	const struct want_rung zen3_copy[] = {{NTMEM_ROLE_VECTOR, 0, 512 * KiB},
		{NTMEM_ROLE_LIBC, 0, 8 * MiB}, {NTMEM_ROLE_STREAMING, 0, 16 * MiB + 1},
		{NTMEM_ROLE_STREAMING, 0, SIZE_MAX}, {0, 0, 0}};
	const struct ladder *zen3 = &pol.ladder[NTMEM_CLASS_COPY];
	t_check(ladder_is(zen3, zen3_copy) && zen3->v[2]->shape == NTM_SHAPE_AHEAD &&
			zen3->v[3]->shape == NTM_SHAPE_LINES,
		"defaults: Zen 3's streaming copies read their source ahead to half "
		"the L3, then go line by line", "%s", ladder_text(&pol.ladder[2]));
#else
	t_skip("defaults: unknown Intel and AMD CPUs", "their rules are x86-64's, "
	       "checked by the x86-64 builds");
#endif
}

/* Each bad item is noted with its reason; the ladders stay the default. */
static void test_bad_tunables(void)
{
	static const struct {
		const char *tunables, *note_a, *note_b;
	} bad[] = {
		{"set_threshold=12Q", "set_threshold=12Q", "unknown unit"},
		{"copy_threshold=99999999999999999999999", "copy_threshold", "too large"},
		{"copy_threshold=-5", "copy_threshold=-5", "not a size"},
		{"foo=1", "unknown key 'foo'", NULL},
		{"set_bogus=1", "unknown key 'set_bogus'", NULL},
		{"set_threshold", "expected key=value", NULL},
		{"copy_nonzero_threshold=1MiB", "unknown key 'copy_nonzero_threshold'", NULL},
		{"set=nosuch", "no set variant named 'nosuch'", NULL},
		{"copy=libc:8MiB", "takes no size", NULL},
		{"copy=libc:8MiB,libc:4MiB,libc", "sizes must rise", NULL},
	};
	for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
		ntm_policy_build(&pol, ntm_cpu(), bad[i].tunables, NULL);
		char name[160];
		snprintf(name, sizeof name, "tunables: '%s' ignored: %s%s%s",
			 bad[i].tunables, bad[i].note_a, bad[i].note_b ? ", " : "",
			 bad[i].note_b ? bad[i].note_b : "");
		t_check(pol.note_count == 1 && all_default(&pol) &&
			has_note(&pol, bad[i].note_a, bad[i].note_b) &&
			has_note(&pol, "NTMEM_TUNABLES", NULL),
			name, "%d notes: %s", pol.note_count, first_note(&pol));
	}

	const struct variant *cached = ntm_ranked(NTMEM_OP_SET, NTMEM_ROLE_LIBC, 0, ntm_cpu()->usable);
	const struct variant *s = ntm_ranked(NTMEM_OP_SET, NTMEM_ROLE_STREAMING, 0, ntm_cpu()->usable);
	if (s) {
		char tun[128];
		snprintf(tun, sizeof tun, "set_cached=%s", s->name);
		ntm_policy_build(&pol, ntm_cpu(), tun, NULL);
		int a = pol.note_count == 1 && has_note(&pol, "is streaming", NULL);
		snprintf(tun, sizeof tun, "set_streaming=%s", cached->name);
		ntm_policy_build(&pol, ntm_cpu(), tun, NULL);
		int b = pol.note_count == 1 && has_note(&pol, "is cached", NULL);
		t_check(a && b, "tunables: a variant of the wrong kind for the key is "
			"refused", "%s", first_note(&pol));
	}

	char many[1000] = "";
	for (int i = 0; i < 20; i++)
		snprintf(many + strlen(many), sizeof many - strlen(many), "%sbad%d=1",
			 i ? "," : "", i);
	ntm_policy_build(&pol, ntm_cpu(), many, NULL);
	t_check(pol.note_count == NTM_MAX_NOTES &&
		strstr(pol.notes[NTM_MAX_NOTES - 1], "more settings were ignored") &&
		strstr(pol.notes[0], "bad0"),
		"tunables: more ignored settings than the list holds are not lost silently",
		"%d notes", pol.note_count);

	char longval[2048];
	memset(longval, 'a', sizeof longval - 1);
	longval[sizeof longval - 1] = '\0';
	ntm_policy_build(&pol, ntm_cpu(), longval, NULL);
	t_check(pol.note_count == 1 && has_note(&pol, "longer than", NULL),
		"tunables: an over-long value is ignored with a note", "%s",
		first_note(&pol));
}

static void test_good_tunables(void)
{
	const struct variant *libc = ntm_ranked(NTMEM_OP_SET, NTMEM_ROLE_LIBC, 0, ntm_cpu()->usable);
	const struct variant *plain = ntm_ranked(NTMEM_OP_SET, NTMEM_ROLE_PLAIN, 0, ntm_cpu()->usable);
	const struct variant *s = ntm_ranked(NTMEM_OP_SET, NTMEM_ROLE_STREAMING, 0, ntm_cpu()->usable);
	if (!s) {
		t_skip("tunables: ladders and edits", "no streaming variant runs here");
		return;
	}
	char tun[256];
	/* A whole ladder, its rungs as further comma items, and a good key
	 * after a bad one. */
	snprintf(tun, sizeof tun, "set=%s:1MiB,%s:64MiB,%s,bogus=1,copy_threshold=max",
		 libc->name, plain->name, s->name);
	ntm_policy_build(&pol, ntm_cpu(), tun, NULL);
	const struct ladder *z = &pol.ladder[NTMEM_CLASS_SET_ZERO];
	const struct ladder *nz = &pol.ladder[NTMEM_CLASS_SET_NONZERO];
	const struct ladder *c = &pol.ladder[NTMEM_CLASS_COPY];
	int ladder = z->count == 3 && z->v[1] == plain && z->to[1] == 64 * MiB &&
		     z->origin[0] == NTMEM_ORIGIN_ENVIRONMENT && nz->count == 3 &&
		     nz->v[2] == s;
	int copy = ntm_ladder_threshold(c) == SIZE_MAX && pol.note_count == 1 &&
		   has_note(&pol, "bogus", NULL);
	t_check(ladder && copy, "tunables: set=LADDER for both memset classes, a bad "
		"item among good ones", "%s; %s", ladder_text(z), first_note(&pol));

	/* set_threshold covers both values unless the non-zero one is given,
	 * in either order; set_nonzero= only the non-zero ladder. */
	ntm_policy_build(&pol, ntm_cpu(), "set_threshold=8MiB", NULL);
	int both = ntm_ladder_threshold(z) == 8 * MiB && ntm_ladder_threshold(nz) == 8 * MiB;
	ntm_policy_build(&pol, ntm_cpu(),
			 "set_nonzero_threshold=64MiB,set_threshold=8MiB", NULL);
	int split = ntm_ladder_threshold(z) == 8 * MiB &&
		    ntm_ladder_threshold(nz) == 64 * MiB;
	snprintf(tun, sizeof tun, "set_nonzero=%s,set=%s", plain->name, s->name);
	ntm_policy_build(&pol, ntm_cpu(), tun, NULL);
	int own = nz->count == 1 && nz->v[0] == plain && z->count == 1 && z->v[0] == s;
	t_check(both && split && own && pol.note_count == 0,
		"tunables: the non-zero ladder follows set= and set_threshold unless "
		"given its own", "both %d split %d own %d: %s", both, split, own,
		first_note(&pol));

	ntm_policy_build(&pol, ntm_cpu(), "threads=3,parallel_min_chunk=1MiB", NULL);
	int par = pol.threads == 3 && pol.min_chunk == 1 * MiB &&
		  pol.threads_origin == NTMEM_ORIGIN_ENVIRONMENT && pol.note_count == 0;
	ntm_policy_build(&pol, ntm_cpu(), "threads=all,threads=0,threads=2x,"
			 "parallel_min_chunk=0", NULL);
	par &= pol.threads == 0 && pol.note_count == 3 &&
	       has_note(&pol, "threads=0", "from 1 to 4096") &&
	       has_note(&pol, "parallel_min_chunk=0", "at least 1 byte");
	t_check(par, "tunables: threads=N|all and parallel_min_chunk, bad values noted",
		"threads %u chunk %zu notes %d: %s", pol.threads, pol.min_chunk,
		pol.note_count, first_note(&pol));

	const struct variant *clz = NULL;
	for (int id = 0; id < ntm_variant_count(); id++)
		if (ntm_variant(id)->zero_only && !ntm_variant_unsupported(ntm_variant(id)))
			clz = ntm_variant(id);
	if (clz) {
		snprintf(tun, sizeof tun, "set=%s", clz->name);
		ntm_policy_build(&pol, ntm_cpu(), tun, NULL);
		t_check(z->v[0] == clz && nz->v[0] != clz && ntm_streams(nz->v[0]) &&
			!nz->v[0]->zero_only && pol.note_count == 0,
			"tunables: a zero-only variant in set= serves zeros; other values "
			"stream with the best other variant", "%s", ladder_text(nz));
	} else {
		t_skip("tunables: a zero-only variant in set=",
		       "this CPU runs no zero-only variant");
	}
}

static void sample_profile(struct profile *p)
{
	const struct variant *libc = ntm_ranked(NTMEM_OP_SET, NTMEM_ROLE_LIBC, 0, ntm_cpu()->usable);
	const struct variant *plain = ntm_ranked(NTMEM_OP_SET, NTMEM_ROLE_PLAIN, 0, ntm_cpu()->usable);
	const struct variant *s = ntm_ranked(NTMEM_OP_SET, NTMEM_ROLE_STREAMING, 1, ntm_cpu()->usable);
	const struct variant *cs = ntm_ranked(NTMEM_OP_COPY, NTMEM_ROLE_STREAMING, 0, ntm_cpu()->usable);
	ntm_profile_init(p, ntm_cpu());
	/* Where nothing streams, the plain loop stands in for the streaming
	 * rungs: a rung like its neighbour would merge with it. */
	snprintf(p->ladder[0].rungs, sizeof p->ladder[0].rungs, "%s:%zu,%s:%zu,%s",
		 plain->name, 1 * MiB, libc->name, 100 * MiB, s ? s->name : plain->name);
	snprintf(p->ladder[0].streaming, sizeof p->ladder[0].streaming, "%s",
		 s ? s->name : "");
	snprintf(p->ladder[1].rungs, sizeof p->ladder[1].rungs, "%s", plain->name);
	snprintf(p->ladder[2].rungs, sizeof p->ladder[2].rungs, "libc:%zu,%s",
		 300 * MiB, cs ? cs->name : "portable");
	p->min_chunk = 3 * MiB;
}

static void path_in_dir(char *buf, size_t len, const char *name)
{
	snprintf(buf, len, "%s/%s", dir, name);
}

/* A rung's reason is its variant's: where NTMEM_TUNABLES puts another
 * variant in place of the built-in one (copy_cached=, copy_streaming=),
 * the built-in reason goes with the variant it explained. */
static void test_reasons_follow_variants(void)
{
	const char *cs = t_streaming_variant(NTMEM_OP_COPY);
	char tun[128];
	snprintf(tun, sizeof tun, "copy_cached=libc%s%s", cs ? ",copy_streaming=" : "",
		 cs ? cs : "");
	ntm_policy_build(&pol, ntm_cpu(), tun, NULL);
	const struct ladder *l = &pol.ladder[NTMEM_CLASS_COPY];
	int bad = 0;
	for (unsigned i = 0; i < l->count; i++)
		bad += l->origin[i] == NTMEM_ORIGIN_ENVIRONMENT && l->why[i] != NULL;
	t_check(pol.note_count == 0 && !bad, "tunables: a rung NTMEM_TUNABLES gives "
		"another variant loses the built-in rung's reason", "%s: %d rungs keep "
		"one (%s)", tun, bad, ladder_text(l));
}

static void test_profile_round_trip(void)
{
	struct profile p, q;
	char path[256], why[256] = "";
	sample_profile(&p);
	path_in_dir(path, sizeof path, "sub/dir/profile");
	int w = ntm_profile_write(path, &p, "a comment\nover two lines", 0);
	memset(&q, 0x5a, sizeof q);
	int r = ntm_profile_read(path, ntm_cpu(), &q, why, sizeof why);
	t_check(w == 0 && r == 0 && !memcmp(&p, &q, sizeof p),
		"profile: write then read gives the same profile (directories created)",
		"write %d read %d: %s", w, r, why);

	ntm_policy_build(&pol, ntm_cpu(), NULL, path);
	const struct ladder *z = &pol.ladder[0], *nz = &pol.ladder[1];
	const struct ladder *c = &pol.ladder[2];
	t_check(pol.profile_loaded && pol.note_count == 0 && z->count == 3 &&
		z->to[0] == 1 * MiB && z->to[1] == 100 * MiB &&
		z->origin[2] == NTMEM_ORIGIN_PROFILE && nz->count == 1 &&
		c->to[0] == 300 * MiB && !strcmp(pol.profile_path, path) &&
		pol.min_chunk == 3 * MiB && pol.min_chunk_origin == NTMEM_ORIGIN_PROFILE,
		"profile: its ladders take effect with origin profile",
		"loaded %d, %s; %s", pol.profile_loaded, ladder_text(z), first_note(&pol));

	path_in_dir(path, sizeof path, "absent");
	ntm_policy_build(&pol, ntm_cpu(), NULL, path);
	t_check(!pol.profile_loaded && pol.note_count == 0 &&
		!strcmp(pol.profile_status, "not present"),
		"profile: a missing default profile is simply not present", "%s",
		pol.profile_status);
}

/* FNV-1a, as the profile's end line carries it. */
static unsigned fnv1a(const char *s)
{
	uint32_t h = 2166136261u;
	for (; *s; s++) {
		h ^= (unsigned char)*s;
		h *= 16777619u;
	}
	return h;
}

static void write_file(const char *path, const char *text)
{
	FILE *f = fopen(path, "w");
	fputs(text, f);
	fclose(f);
}

static char *read_file(const char *path)
{
	FILE *f = fopen(path, "r");
	static char buf[8192];
	size_t n = fread(buf, 1, sizeof buf - 1, f);
	buf[n] = '\0';
	fclose(f);
	return buf;
}

/* A well-formed profile file: body lines, then the checksum line. */
static void write_signed(const char *path, const char *body)
{
	char text[4096];
	snprintf(text, sizeof text, "%send %08x\n", body, fnv1a(body));
	write_file(path, text);
}

static void expect_ignored(const char *path, const char *reason, const char *what)
{
	char name[160];
	snprintf(name, sizeof name, "profile ignored: %s", what);
	ntm_policy_build(&pol, ntm_cpu(), NULL, path);
	t_check(!pol.profile_loaded && all_default(&pol) &&
		has_note(&pol, path, reason) && strstr(pol.profile_status, reason),
		name, "loaded %d: %s", pol.profile_loaded, first_note(&pol));
}

static void test_bad_profiles(void)
{
	struct profile p;
	char good[256], path[256], text[8192], cut[8192];
	sample_profile(&p);
	path_in_dir(good, sizeof good, "good");
	ntm_profile_write(good, &p, NULL, 0);
	snprintf(text, sizeof text, "%s", read_file(good));

	path_in_dir(path, sizeof path, "truncated");
	snprintf(cut, sizeof cut, "%.*s", (int)(strlen(text) * 2 / 3), text);
	write_file(path, cut);
	expect_ignored(path, "truncated", "cut short");

	path_in_dir(path, sizeof path, "no-newline");
	snprintf(cut, sizeof cut, "%.*s", (int)strlen(text) - 1, text);
	write_file(path, cut);
	expect_ignored(path, "truncated", "last newline missing");

	path_in_dir(path, sizeof path, "flipped");
	snprintf(cut, sizeof cut, "%s", text);
	char *rung = strstr(cut, ":1048576");
	rung[1] = '2';
	write_file(path, cut);
	expect_ignored(path, "checksum mismatch", "a value changed");

	path_in_dir(path, sizeof path, "garbage");
	write_file(path, "hello world\n");
	expect_ignored(path, "not an ntmem profile", "not a profile");

	path_in_dir(path, sizeof path, "empty");
	write_file(path, "");
	expect_ignored(path, "not an ntmem profile", "empty file");

	path_in_dir(path, sizeof path, "newer");
	snprintf(cut, sizeof cut, "ntmem-profile %d\n%s", NTM_PROFILE_FORMAT + 1,
		 strchr(text, '\n') + 1);
	write_file(path, cut);
	expect_ignored(path, "newer", "a newer format");

	/* Format 1 held thresholds; its profiles are set aside, with advice. */
	path_in_dir(path, sizeof path, "format-1");
	write_signed(path, "ntmem-profile 1\nset.cached stosb\nset.threshold 12582912\n");
	expect_ignored(path, "older", "the older format 1 (thresholds)");
	t_check(has_note(&pol, "calibrate again", NULL),
		"profile: an old format's note says to calibrate again", "%s",
		first_note(&pol));

	path_in_dir(path, sizeof path, "foreign");
	struct profile other = p;
	other.family += 1;
	snprintf(other.vendor, sizeof other.vendor, "OtherVendor");
	ntm_profile_write(path, &other, NULL, 0);
	expect_ignored(path, "another CPU", "made on another CPU");

	path_in_dir(path, sizeof path, "other-caches");
	other = p;
	other.l3 += 4 * MiB;
	ntm_profile_write(path, &other, NULL, 0);
	expect_ignored(path, "another CPU", "other cache sizes");

	path_in_dir(path, sizeof path, "nul");
	FILE *f = fopen(path, "w");
	fwrite("ntmem-profile 2\n\0end 0\n", 1, 23, f);
	fclose(f);
	expect_ignored(path, "NUL", "a NUL byte");

	path_in_dir(path, sizeof path, "fifo");
	if (mkfifo(path, 0600) == 0)
		expect_ignored(path, "not a regular file", "a FIFO, without blocking");
	else
		t_fail("profile ignored: a FIFO", "mkfifo: %s", strerror(errno));

	path_in_dir(path, sizeof path, "bad-line");
	write_signed(path, "ntmem-profile 2\ncpu.family eleven\n");
	expect_ignored(path, "bad line 2", "a bad line under a good checksum");

	path_in_dir(path, sizeof path, "too-large");
	static char big[12000];
	memset(big, 'x', sizeof big - 1);
	errno = 0;
	t_check(ntm_profile_write(path, &p, big, 0) == -1 && errno == EOVERFLOW &&
		access(path, F_OK) != 0,
		"profile: a comment too large to fit is refused, nothing written",
		"errno %d", errno);

	/* A ladder that cannot serve is ignored, the other classes used. */
	path_in_dir(path, sizeof path, "bad-ladder");
	other = p;
	snprintf(other.ladder[1].rungs, sizeof other.ladder[1].rungs, "nosuch");
	ntm_profile_write(path, &other, NULL, 0);
	ntm_policy_build(&pol, ntm_cpu(), NULL, path);
	t_check(pol.profile_loaded && pol.note_count == 1 &&
		has_note(&pol, "set_nonzero", "nosuch") &&
		pol.ladder[0].origin[0] == NTMEM_ORIGIN_PROFILE &&
		pol.ladder[1].origin[0] == NTMEM_ORIGIN_DEFAULT,
		"profile: a ladder that cannot serve is ignored, the rest used",
		"loaded %d notes %d: %s", pol.profile_loaded, pol.note_count,
		first_note(&pol));

	/* A streaming line belongs to its class's ladder: alone it is
	 * ignored, and info says so, rather than dropped unseen. */
	path_in_dir(path, sizeof path, "streaming-alone");
	other = p;
	other.ladder[2].rungs[0] = '\0';
	snprintf(other.ladder[2].streaming, sizeof other.ladder[2].streaming, "%s",
		 t_streaming_variant(NTMEM_OP_COPY) ? t_streaming_variant(NTMEM_OP_COPY)
						   : "portable");
	ntm_profile_write(path, &other, NULL, 0);
	ntm_policy_build(&pol, ntm_cpu(), NULL, path);
	t_check(pol.profile_loaded && pol.note_count == 1 &&
			has_note(&pol, "streaming.copy", "without a ladder.copy line") &&
			pol.ladder[2].origin[0] == NTMEM_ORIGIN_DEFAULT &&
			pol.ladder[2].streaming_origin == NTMEM_ORIGIN_DEFAULT,
		"profile: a streaming.copy line without ladder.copy is noted, not "
		"dropped unseen", "loaded %d notes %d: %s", pol.profile_loaded,
		pol.note_count, first_note(&pol));
}

static void test_precedence(void)
{
	char path[256];
	if (!streams_here()) {
		t_skip("precedence: environment edits the profile's ladders",
		       "no streaming variant runs on this architecture");
		return;
	}
	path_in_dir(path, sizeof path, "good");
	ntm_policy_build(&pol, ntm_cpu(), "set_threshold=5MiB,copy_cached=portable",
			 path);
	const struct ladder *z = &pol.ladder[0], *c = &pol.ladder[2];
	/* The profile's set ladder (plain to 1 MiB, libc to 100 MiB, streaming)
	 * with its threshold moved to 5 MiB; the profile's copy ladder with
	 * its cached rung replaced. */
	t_check(z->count == 3 && z->to[0] == 1 * MiB &&
		z->origin[0] == NTMEM_ORIGIN_PROFILE && z->to[1] == 5 * MiB &&
		z->origin[1] == NTMEM_ORIGIN_ENVIRONMENT &&
		!strcmp(c->v[0]->name, "portable") &&
		c->origin[0] == NTMEM_ORIGIN_ENVIRONMENT && c->to[0] == 300 * MiB &&
		c->origin[1] == NTMEM_ORIGIN_PROFILE,
		"precedence: environment edits the profile's ladders, rung by rung",
		"set %s; copy %s", ladder_text(z), ladder_text(c));
}

static void test_profile_path(void)
{
	char path[1024];
	const char *why = NULL;
	setenv("NTMEM_PROFILE", "/x/y", 1);
	int a = ntm_profile_path(path, sizeof path, &why) == 0 && !strcmp(path, "/x/y");
	setenv("NTMEM_PROFILE", "none", 1);
	int b = ntm_profile_path(path, sizeof path, &why) == -1 && strstr(why, "disabled");
	setenv("NTMEM_PROFILE", "", 1);
	int c = ntm_profile_path(path, sizeof path, &why) == -1;
	unsetenv("NTMEM_PROFILE");
	setenv("XDG_CACHE_HOME", "/cache", 1);
	int d = ntm_profile_path(path, sizeof path, &why) == 0 &&
		!strcmp(path, "/cache/ntmem/profile");
	unsetenv("XDG_CACHE_HOME");
	setenv("HOME", "/home/u", 1);
	int e = ntm_profile_path(path, sizeof path, &why) == 0 &&
		!strcmp(path, "/home/u/.cache/ntmem/profile");
	unsetenv("HOME");
	int f = ntm_profile_path(path, sizeof path, &why) == -1;
	t_check(a && b && c && d && e && f,
		"profile path: NTMEM_PROFILE, then XDG_CACHE_HOME, then HOME",
		"%d %d %d %d %d %d", a, b, c, d, e, f);
}

/* A user without a profile of their own, or without a home (a daemon),
 * gets the system-wide one; the user's own comes first; NTMEM_PROFILE
 * names one or disables both.  "ntmem info" names the file that served. */
static void test_system_profile(void)
{
	struct profile p;
	char sys[256], home[256], user[512], path[1024], cmd[1400];
	const char *why;
	sample_profile(&p);
	path_in_dir(sys, sizeof sys, "system-profile");
	path_in_dir(home, sizeof home, "home");
	snprintf(user, sizeof user, "%s/.cache/ntmem/profile", home);
	ntm_profile_write(sys, &p, NULL, 0);
	unsetenv("NTMEM_PROFILE");
	unsetenv("XDG_CACHE_HOME");
	setenv("HOME", home, 1);
	setenv("NTMEM_SYSTEM_PROFILE", sys, 1);
	int a = !ntm_profile_in_effect(path, sizeof path, &why) && !strcmp(path, sys);
	ntm_profile_write(user, &p, NULL, 0);
	int b = !ntm_profile_in_effect(path, sizeof path, &why) && !strcmp(path, user);
	unlink(user);
	setenv("NTMEM_PROFILE", "none", 1);
	int c = ntm_profile_in_effect(path, sizeof path, &why) == -1;
	unsetenv("NTMEM_PROFILE");
	unsetenv("HOME");
	int d = !ntm_profile_in_effect(path, sizeof path, &why) && !strcmp(path, sys);
	snprintf(cmd, sizeof cmd, "env -u NTMEM_PROFILE -u HOME -u XDG_CACHE_HOME "
		 "NTMEM_SYSTEM_PROFILE=%s %s info", sys, t_ntmem());
	char *out = NULL;
	int st = t_run(cmd, &out, NULL);
	char want[400];
	snprintf(want, sizeof want, "%s: loaded", sys);
	int e = st == 0 && out && strstr(out, want);
	unsetenv("NTMEM_SYSTEM_PROFILE");
	t_check(a && b && c && d && e,
		"system profile: serves users without their own, and daemons; info names it",
		"no user profile %d, the user's first %d, none %d, no HOME %d, info %d: %.300s",
		a, b, c, d, e, out ? out : "");
	free(out);
}

/* Many threads call at once, at sizes on every rung; each gets the right
 * bytes and the same choices. */
#define THREADS 16
static pthread_barrier_t barrier;
static unsigned char *areas[THREADS];
static int thread_ok[THREADS];
static int thread_choice[THREADS];

static void *racing_call(void *arg)
{
	int i = (int)(intptr_t)arg;
	pthread_barrier_wait(&barrier);
	size_t n = (size_t)(i + 1) * 64 * 1024 + (size_t)i;
	ntmem_set(areas[i], i + 1, n);
	thread_choice[i] = ntmem_policy_choice(NTMEM_OP_SET, 1, 1 * MiB, 0);
	int ok = 1;
	for (size_t k = 0; k < n; k++)
		ok &= areas[i][k] == (unsigned char)(i + 1);
	thread_ok[i] = ok && areas[i][n] == 0xee;
	return NULL;
}

static void test_concurrent_calls(void)
{
	pthread_t t[THREADS];
	pthread_barrier_init(&barrier, NULL, THREADS);
	for (int i = 0; i < THREADS; i++) {
		areas[i] = malloc((size_t)(i + 2) * 64 * 1024 + 64);
		memset(areas[i], 0xee, (size_t)(i + 2) * 64 * 1024 + 64);
		pthread_create(&t[i], NULL, racing_call, (void *)(intptr_t)i);
	}
	int ok = 1;
	for (int i = 0; i < THREADS; i++) {
		pthread_join(t[i], NULL);
		ok &= thread_ok[i] && thread_choice[i] == thread_choice[0];
		free(areas[i]);
	}
	pthread_barrier_destroy(&barrier);
	t_check(ok, "16 threads calling at once agree and write correctly", "mismatch");
}

/* End to end: a process reads NTMEM_TUNABLES and NTMEM_PROFILE as it
 * loads, and "ntmem info --json" reports each rung's origin and what it
 * ignored. */
static void test_info_end_to_end(void)
{
	char cmd[1024], *out = NULL, path[256], err[160];
	if (!streams_here()) {
		t_skip("info --json: each rung's origin", "no streaming variant runs "
		       "on this architecture, so set_threshold is refused");
		return;
	}
	path_in_dir(path, sizeof path, "good");
	snprintf(cmd, sizeof cmd,
		 "NTMEM_PROFILE=%s NTMEM_TUNABLES='set_threshold=5MiB,bogus=1' %s info --json",
		 path, t_ntmem());
	int status = t_run(cmd, &out, NULL);
	struct t_json *j = t_json_parse(out, err, sizeof err);
	const struct t_json *set = t_json_get(t_json_get(j, "policy"), "set_zero");
	const struct t_json *rungs = t_json_get(set, "rungs");
	const struct t_json *ign = t_json_get(j, "ignored");
	const struct t_json *prof = t_json_get(j, "profile");
	int ok = status == 0 && j && rungs && rungs->type == TJ_ARRAY &&
		 rungs->count == 3 && ign && prof &&
		 !strcmp(t_json_get(&rungs->items[0], "origin")->string, "profile") &&
		 strstr(t_json_get(&rungs->items[0], "detail")->string, path) &&
		 t_json_get(&rungs->items[1], "to")->number == 5.0 * MiB &&
		 !strcmp(t_json_get(&rungs->items[1], "origin")->string, "environment") &&
		 ign->type == TJ_ARRAY && ign->count == 1 &&
		 strstr(ign->items[0].string, "unknown key 'bogus'") &&
		 t_json_get(prof, "loaded")->boolean;
	t_check(ok, "info --json: each rung's origin, the profile path, ignored "
		"settings", "status %d %s", status, j ? "" : err);
	t_json_free(j);
	free(out);

	snprintf(cmd, sizeof cmd, "NTMEM_PROFILE=%s/absent %s info", dir, t_ntmem());
	status = t_run(cmd, &out, NULL);
	t_check(status == 0 && strstr(out, "no such file") && strstr(out, "NTMEM_PROFILE"),
		"info: an NTMEM_PROFILE that does not exist is reported", "status %d",
		status);
	free(out);
}

static int same_ladder(const struct ladder *a, const struct ladder *b)
{
	if (a->count != b->count || a->streaming != b->streaming)
		return 0;
	for (unsigned i = 0; i < a->count; i++)
		if (a->to[i] != b->to[i] || a->v[i] != b->v[i] ||
		    a->cached[i] != b->cached[i])
			return 0;
	return 1;
}

/* An edge inside the small path: the rungs below it serve no call, so
 * they go (no band reads "[257 B, 64 B)"), the setting is noted, and
 * every call's choice is what it would be with the edge at reach + 1. */
static void test_edges_inside_small_path(void)
{
	size_t reach = ntm_width_small_max(ntm_width_choose());
	t_check(ntmem_policy_choice(NTMEM_OP_COPY, 0, reach, 0) == NTMEM_SMALL_PATH &&
			ntmem_policy_choice(NTMEM_OP_COPY, 0, reach + 1, 0) != NTMEM_SMALL_PATH,
		"small path: the policy's reach is the entry width's",
		"%zu: %d, one more: %d", reach,
		ntmem_policy_choice(NTMEM_OP_COPY, 0, reach, 0),
		ntmem_policy_choice(NTMEM_OP_COPY, 0, reach + 1, 0));
	static struct policy edge;
	char tun[160], inside[96], want[64];
	/* Whole ladders, with variants every architecture runs; the edge
	 * halfway into the small path (16 B of 32 on the portable width). */
	snprintf(tun, sizeof tun, "copy=portable:%zu,libc:1MiB,portable", reach / 2);
	ntm_policy_build(&pol, ntm_cpu(), tun, NULL);
	snprintf(tun, sizeof tun, "copy=portable:%zu,libc:1MiB,portable", reach + 1);
	ntm_policy_build(&edge, ntm_cpu(), tun, NULL);
	const struct ladder *c = &pol.ladder[NTMEM_CLASS_COPY];
	int dropped = c->count == 2 && !strcmp(c->v[0]->name, "libc") &&
		      c->to[0] == 1 * MiB && same_ladder(c, &edge.ladder[NTMEM_CLASS_COPY]);
	snprintf(inside, sizeof inside, "copy: an edge at %zu B lies inside the "
		 "small path", reach / 2);
	snprintf(want, sizeof want, "calls up to %zu B", reach);
	t_check(dropped && pol.note_count == 1 && has_note(&pol, inside, want) &&
		edge.note_count == 0,
		"tunables: a rung ending inside the small path goes, noted",
		"%s; %d notes: %s; at the edge %d notes", ladder_text(c),
		pol.note_count, first_note(&pol), edge.note_count);
	if (!streams_here()) {
		t_skip("tunables: a threshold inside the small path",
		       "no streaming variant runs here");
		return;
	}
	snprintf(tun, sizeof tun, "copy_threshold=%zu", reach / 2);
	ntm_policy_build(&pol, ntm_cpu(), tun, NULL);
	snprintf(tun, sizeof tun, "copy_threshold=%zu", reach + 1);
	ntm_policy_build(&edge, ntm_cpu(), tun, NULL);
	snprintf(inside, sizeof inside, "NTMEM_TUNABLES: copy: an edge at %zu B",
		 reach / 2);
	t_check(same_ladder(c, &edge.ladder[NTMEM_CLASS_COPY]) &&
		ntm_ladder_threshold(c) == 0 && pol.note_count == 1 &&
		has_note(&pol, inside, NULL) && edge.note_count == 0,
		"tunables: a threshold inside the small path streams from past it, "
		"noted", "%s; %s", ladder_text(c), first_note(&pol));
}

/* Neighbouring rungs of one variant are one rung, from the first one's
 * start to the last one's end. */
static void test_repeats_merge(void)
{
	ntm_policy_build(&pol, ntm_cpu(), "copy=libc:1MiB,libc:8MiB,portable", NULL);
	const struct ladder *c = &pol.ladder[NTMEM_CLASS_COPY];
	t_check(c->count == 2 && !strcmp(c->v[0]->name, "libc") && c->to[0] == 8 * MiB &&
		!strcmp(c->v[1]->name, "portable") && pol.note_count == 0,
		"tunables: neighbouring rungs of one variant merge", "%s; %s",
		ladder_text(c), first_note(&pol));
}

/* What ntmem info shows for such a threshold: no band ends before it
 * starts, and the note is among the ignored settings. */
static void test_info_no_inverted_band(void)
{
	const char *name = "info --json: no inverted band for a copy_threshold "
			   "inside the small path";
	if (!streams_here()) {
		t_skip(name, "no streaming variant runs here");
		return;
	}
	size_t edge = ntm_width_small_max(ntm_width_choose()) / 2;
	char cmd[512], *out = NULL, err[160] = "", want[32];
	snprintf(cmd, sizeof cmd, "NTMEM_PROFILE=none NTMEM_TUNABLES=copy_threshold=%zu "
		 "%s info --json", edge, t_ntmem());
	snprintf(want, sizeof want, "edge at %zu B", edge);
	int status = t_run(cmd, &out, NULL);
	struct t_json *j = t_json_parse(out, err, sizeof err);
	const struct t_json *rungs =
		t_json_get(t_json_get(t_json_get(j, "policy"), "copy"), "rungs");
	const struct t_json *ign = t_json_get(j, "ignored");
	int ok = status == 0 && rungs && rungs->type == TJ_ARRAY && rungs->count > 0 &&
		 ign && ign->type == TJ_ARRAY && ign->count == 1 &&
		 strstr(ign->items[0].string, want);
	for (size_t i = 0; ok && i < rungs->count; i++) {
		const struct t_json *from = t_json_get(&rungs->items[i], "from"),
				    *to = t_json_get(&rungs->items[i], "to");
		ok = from && to && (to->type == TJ_NULL || to->number > from->number);
	}
	t_check(ok, name, "status %d %s", status, err);
	t_json_free(j);
	free(out);
}

int main(void)
{
	if (t_scratch_make("policy"))
		return t_finish();
	dir = t_scratch_dir();
	test_concurrent_calls();
	test_defaults();
	test_bad_tunables();
	test_good_tunables();
	test_reasons_follow_variants();
	if (t_scratch_untrusted()) {
		/* libntmem reads no profile from a directory others can write. */
		t_skip("profiles: written, read, ignored, their precedence and "
		       "info's account of them", t_scratch_untrusted());
	} else {
		test_profile_round_trip();
		test_bad_profiles();
		test_precedence();
		test_system_profile();
		test_info_end_to_end();
	}
	test_profile_path();
	test_edges_inside_small_path();
	test_repeats_merge();
	test_info_no_inverted_band();
	t_scratch_remove();
	return t_finish();
}
