/* test_policy.c - where the policy's values come from: NTMEM_TUNABLES, the
 * calibration profile, the topology default; what is ignored and why; the
 * decision at the threshold; concurrent first calls. */
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

#include "cpu.h"
#include "harness.h"
#include "policy.h"
#include "profile.h"
#include "registry.h"

#define MiB ((size_t)1 << 20)

static char dir[] = "/tmp/ntmem-policy-test-XXXXXX";
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

static void test_defaults(void)
{
	ntm_policy_build(&pol, ntm_cpu(), NULL, NULL);
	char how[160];
	size_t t = ntm_topology_threshold(ntm_cpu(), how, sizeof how);
	int ok = pol.note_count == 0 && pol.op[0].threshold == t &&
		 pol.op[1].threshold == t && t >= 8 * MiB && t <= 256 * MiB &&
		 pol.op[0].cached == ntm_ranked_variant(NTMEM_OP_SET, 0) &&
		 pol.op[1].streaming == ntm_ranked_variant(NTMEM_OP_COPY, 1) &&
		 pol.op[0].threshold_origin == NTMEM_ORIGIN_DEFAULT;
	t_check(ok, "defaults: ranking and topology threshold within floor and cap",
		"threshold %zu (%s), notes %d", pol.op[0].threshold, how, pol.note_count);
}

static void test_tunables(void)
{
	ntm_policy_build(&pol, ntm_cpu(),
			 "set_threshold=64MiB,copy_threshold=max,set_cached=stosq,"
			 "copy_streaming=nt_sse2,", NULL);
	const struct op_policy *s = &pol.op[NTMEM_OP_SET], *c = &pol.op[NTMEM_OP_COPY];
	t_check(pol.note_count == 0 && s->threshold == 64 * MiB &&
		s->threshold_origin == NTMEM_ORIGIN_ENVIRONMENT &&
		c->threshold == SIZE_MAX && !strcmp(s->cached->name, "stosq") &&
		s->cached_origin == NTMEM_ORIGIN_ENVIRONMENT &&
		!strcmp(c->streaming->name, "nt_sse2") &&
		s->streaming_origin == NTMEM_ORIGIN_DEFAULT,
		"tunables: valid keys take effect with origin environment",
		"notes %d: %s", pol.note_count, first_note(&pol));

	static const struct {
		const char *tunables, *note_a, *note_b;
	} bad[] = {
		{"set_threshold=12Q", "set_threshold=12Q", "unknown unit"},
		{"copy_threshold=99999999999999999999999", "copy_threshold", "too large"},
		{"copy_threshold=-5", "copy_threshold=-5", "not a size"},
		{"foo=1", "unknown key 'foo'", NULL},
		{"set_bogus=1", "unknown key 'set_bogus'", NULL},
		{"set_threshold", "expected key=value", NULL},
		{"set_cached=nt_sse2", "nt_sse2 is streaming", NULL},
		{"copy_streaming=movsb", "movsb is cached", NULL},
		{"set_streaming=nosuch", "no set variant named 'nosuch'", NULL},
		{"copy=clzero", "no copy variant named 'clzero'", NULL},
	};
	for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
		ntm_policy_build(&pol, ntm_cpu(), bad[i].tunables, NULL);
		char name[128];
		snprintf(name, sizeof name, "tunables: '%s' ignored: %s%s%s", bad[i].tunables,
			 bad[i].note_a, bad[i].note_b ? ", " : "",
			 bad[i].note_b ? bad[i].note_b : "");
		int defaults = pol.op[0].threshold_origin == NTMEM_ORIGIN_DEFAULT &&
			       pol.op[1].threshold_origin == NTMEM_ORIGIN_DEFAULT &&
			       pol.op[0].cached_origin == NTMEM_ORIGIN_DEFAULT &&
			       pol.op[1].streaming_origin == NTMEM_ORIGIN_DEFAULT;
		t_check(pol.note_count == 1 && defaults &&
			has_note(&pol, bad[i].note_a, bad[i].note_b) &&
			has_note(&pol, "NTMEM_TUNABLES", NULL),
			name, "%d notes: %s", pol.note_count, first_note(&pol));
	}

	/* set_threshold covers both values unless the non-zero one is given,
	 * in either order. */
	ntm_policy_build(&pol, ntm_cpu(), "set_threshold=8MiB", NULL);
	int both = pol.op[0].threshold == 8 * MiB && pol.op[0].threshold_nonzero == 8 * MiB &&
		   pol.op[0].threshold_nonzero_origin == NTMEM_ORIGIN_ENVIRONMENT;
	ntm_policy_build(&pol, ntm_cpu(), "set_nonzero_threshold=64MiB,set_threshold=8MiB", NULL);
	int split = pol.op[0].threshold == 8 * MiB && pol.op[0].threshold_nonzero == 64 * MiB;
	ntm_policy_build(&pol, ntm_cpu(), "set_threshold=8MiB,set_nonzero_threshold=max", NULL);
	split &= pol.op[0].threshold == 8 * MiB && pol.op[0].threshold_nonzero == SIZE_MAX &&
		 pol.note_count == 0;
	ntm_policy_build(&pol, ntm_cpu(), "copy_nonzero_threshold=1MiB", NULL);
	int copy_refused = pol.note_count == 1 &&
			   has_note(&pol, "unknown key 'copy_nonzero_threshold'", NULL);
	t_check(both && split && copy_refused,
		"tunables: set_nonzero_threshold, and set_threshold covering both",
		"both %d split %d copy_refused %d", both, split, copy_refused);

	/* A good key after a bad one still counts. */
	ntm_policy_build(&pol, ntm_cpu(), "set_threshold=1x,set_threshold=3MiB", NULL);
	t_check(pol.note_count == 1 && pol.op[0].threshold == 3 * MiB,
		"tunables: a bad pair does not spoil the good ones", "threshold %zu",
		pol.op[0].threshold);

	/* set=NAME keeps an explicit non-zero threshold given before it. */
	ntm_policy_build(&pol, ntm_cpu(), "set_nonzero_threshold=1MiB,set=stosq", NULL);
	t_check(pol.op[0].threshold == SIZE_MAX && pol.op[0].threshold_nonzero == 1 * MiB,
		"tunables: set=NAME keeps an explicit set_nonzero_threshold",
		"%zu %zu", pol.op[0].threshold, pol.op[0].threshold_nonzero);

	/* More bad settings than the list holds: the cut is said. */
	char many[1000] = "";
	for (int i = 0; i < 20; i++)
		snprintf(many + strlen(many), sizeof many - strlen(many), "%sbad%d=1",
			 i ? "," : "", i);
	ntm_policy_build(&pol, ntm_cpu(), many, NULL);
	t_check(pol.note_count == NTM_MAX_NOTES &&
		strstr(pol.notes[NTM_MAX_NOTES - 1], "more settings were ignored") &&
		strstr(pol.notes[0], "bad0"),
		"tunables: more ignored settings than the list holds are not lost silently",
		"%d notes, last: %s", pol.note_count,
		pol.note_count ? pol.notes[pol.note_count - 1] : "");

	char longval[2048];
	memset(longval, 'a', sizeof longval - 1);
	longval[sizeof longval - 1] = '\0';
	ntm_policy_build(&pol, ntm_cpu(), longval, NULL);
	t_check(pol.note_count == 1 && has_note(&pol, "longer than", NULL),
		"tunables: an over-long value is ignored with a note", "%s", first_note(&pol));

	/* Unsupported variants are refused with the CPU's reason. */
	const struct variant *unsupported = NULL;
	for (int id = 0; id < ntm_variant_count(); id++)
		if (ntm_variant_unsupported(ntm_variant(id)))
			unsupported = ntm_variant(id);
	if (unsupported) {
		char tun[96];
		snprintf(tun, sizeof tun, "%s_%s=%s",
			 unsupported->op == NTMEM_OP_SET ? "set" : "copy",
			 unsupported->streaming ? "streaming" : "cached", unsupported->name);
		ntm_policy_build(&pol, ntm_cpu(), tun, NULL);
		t_check(pol.note_count == 1 &&
			has_note(&pol, ntm_variant_unsupported(unsupported), NULL),
			"tunables: a variant this CPU lacks is refused with the reason",
			"%s", first_note(&pol));
	} else
		t_skip("tunables: a variant this CPU lacks is refused",
		       "this CPU runs every variant");

	ntm_policy_build(&pol, ntm_cpu(), "set=stosq,copy=nt_sse2", NULL);
	t_check(!strcmp(pol.op[0].cached->name, "stosq") && pol.op[0].threshold == SIZE_MAX &&
		!strcmp(pol.op[1].streaming->name, "nt_sse2") && pol.op[1].threshold == 0,
		"tunables: set=NAME and copy=NAME force one variant at every size",
		"%s %zu %s %zu", pol.op[0].cached->name, pol.op[0].threshold,
		pol.op[1].streaming->name, pol.op[1].threshold);
}

static void sample_profile(struct profile *p)
{
	ntm_profile_init(p, ntm_cpu());
	snprintf(p->op[0].cached, NTM_NAME_MAX, "stosq");
	snprintf(p->op[0].streaming, NTM_NAME_MAX, "nt_sse2");
	p->op[0].has_threshold = 1;
	p->op[0].threshold = 100 * MiB;
	p->op[0].has_nonzero_threshold = 1;
	p->op[0].nonzero_threshold = 300 * MiB;
	snprintf(p->op[1].cached, NTM_NAME_MAX, "vec_sse2");
	p->op[1].has_threshold = 1;
	p->op[1].threshold = SIZE_MAX;
}

static void path_in_dir(char *buf, size_t len, const char *name)
{
	snprintf(buf, len, "%s/%s", dir, name);
}

static void test_profile_round_trip(void)
{
	struct profile p, q;
	char path[256], why[256] = "";
	sample_profile(&p);
	path_in_dir(path, sizeof path, "sub/dir/profile");
	int w = ntm_profile_write(path, &p, "a comment\nover two lines");
	memset(&q, 0x5a, sizeof q);
	int r = ntm_profile_read(path, ntm_cpu(), &q, why, sizeof why);
	t_check(w == 0 && r == 0 && !memcmp(&p, &q, sizeof p),
		"profile: write then read gives the same profile (directories created)",
		"write %d read %d: %s", w, r, why);

	ntm_policy_build(&pol, ntm_cpu(), NULL, path);
	const struct op_policy *s = &pol.op[0], *c = &pol.op[1];
	t_check(pol.profile_loaded && pol.note_count == 0 &&
		!strcmp(s->cached->name, "stosq") && s->cached_origin == NTMEM_ORIGIN_PROFILE &&
		!strcmp(s->streaming->name, "nt_sse2") && s->threshold == 100 * MiB &&
		s->threshold_origin == NTMEM_ORIGIN_PROFILE && s->threshold_nonzero == 300 * MiB &&
		s->threshold_nonzero_origin == NTMEM_ORIGIN_PROFILE && c->threshold == SIZE_MAX &&
		c->threshold_nonzero == SIZE_MAX &&
		!strcmp(c->cached->name, "vec_sse2") &&
		c->streaming_origin == NTMEM_ORIGIN_DEFAULT && !strcmp(pol.profile_path, path),
		"profile: its values take effect with origin profile",
		"loaded %d, %s", pol.profile_loaded, first_note(&pol));

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

/* Write text as a profile file. */
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

static void expect_ignored(const char *path, const char *reason, const char *what)
{
	char name[160];
	snprintf(name, sizeof name, "profile ignored: %s", what);
	ntm_policy_build(&pol, ntm_cpu(), NULL, path);
	int defaults = pol.op[0].threshold_origin == NTMEM_ORIGIN_DEFAULT &&
		       pol.op[0].cached_origin == NTMEM_ORIGIN_DEFAULT &&
		       pol.op[1].threshold_origin == NTMEM_ORIGIN_DEFAULT;
	t_check(!pol.profile_loaded && defaults && has_note(&pol, path, reason) &&
		strstr(pol.profile_status, reason), name, "loaded %d: %s",
		pol.profile_loaded, first_note(&pol));
}

static void test_bad_profiles(void)
{
	struct profile p;
	char good[256], path[256];
	sample_profile(&p);
	path_in_dir(good, sizeof good, "good");
	ntm_profile_write(good, &p, NULL);
	char text[8192];
	snprintf(text, sizeof text, "%s", read_file(good));

	path_in_dir(path, sizeof path, "truncated");
	char cut[8192];
	snprintf(cut, sizeof cut, "%.*s", (int)(strlen(text) * 2 / 3), text);
	write_file(path, cut);
	expect_ignored(path, "truncated", "cut short");

	path_in_dir(path, sizeof path, "no-newline");
	snprintf(cut, sizeof cut, "%.*s", (int)strlen(text) - 1, text);
	write_file(path, cut);
	expect_ignored(path, "truncated", "last newline missing");

	path_in_dir(path, sizeof path, "flipped");
	snprintf(cut, sizeof cut, "%s", text);
	char *th = strstr(cut, "set.threshold 1");
	th[strlen("set.threshold ")] = '9';
	write_file(path, cut);
	expect_ignored(path, "checksum mismatch", "a value changed");

	path_in_dir(path, sizeof path, "garbage");
	write_file(path, "hello world\n");
	expect_ignored(path, "not an ntmem profile", "not a profile");

	path_in_dir(path, sizeof path, "empty");
	write_file(path, "");
	expect_ignored(path, "not an ntmem profile", "empty file");

	path_in_dir(path, sizeof path, "newer");
	snprintf(cut, sizeof cut, "ntmem-profile 2\n%s", strchr(text, '\n') + 1);
	write_file(path, cut);
	expect_ignored(path, "newer", "a newer format");

	path_in_dir(path, sizeof path, "foreign");
	struct profile other = p;
	other.family += 1;
	snprintf(other.vendor, sizeof other.vendor, "OtherVendor");
	ntm_profile_write(path, &other, NULL);
	expect_ignored(path, "another CPU", "made on another CPU");

	path_in_dir(path, sizeof path, "other-caches");
	other = p;
	other.l3 = 480 * MiB;
	ntm_profile_write(path, &other, NULL);
	expect_ignored(path, "another CPU", "other cache sizes");

	path_in_dir(path, sizeof path, "nul");
	FILE *f = fopen(path, "w");
	fwrite("ntmem-profile 1\n\0end 0\n", 1, 23, f);
	fclose(f);
	expect_ignored(path, "NUL", "a NUL byte");

	/* A FIFO must not hang the first call that reads it. */
	path_in_dir(path, sizeof path, "fifo");
	if (mkfifo(path, 0600) == 0)
		expect_ignored(path, "not a regular file", "a FIFO, without blocking");
	else
		t_fail("profile ignored: a FIFO", "mkfifo: %s", strerror(errno));

	/* A bad line under a good checksum. */
	path_in_dir(path, sizeof path, "bad-line");
	char body[256];
	snprintf(body, sizeof body, "ntmem-profile 1\ncpu.family eleven\n");
	snprintf(cut, sizeof cut, "%send %08x\n", body, fnv1a(body));
	write_file(path, cut);
	expect_ignored(path, "bad line 2", "a bad line under a good checksum");

	/* A profile too large to write is refused, not written short. */
	path_in_dir(path, sizeof path, "too-large");
	static char big[12000];
	memset(big, 'x', sizeof big - 1);
	errno = 0;
	t_check(ntm_profile_write(path, &p, big) == -1 && errno == EOVERFLOW &&
		access(path, F_OK) != 0,
		"profile: a comment too large to fit is refused, nothing written",
		"errno %d", errno);

	/* A well-formed profile naming a variant that cannot serve: that
	 * value is ignored, the rest is used. */
	path_in_dir(path, sizeof path, "bad-variant");
	other = p;
	snprintf(other.op[0].cached, NTM_NAME_MAX, "nt_sse2");
	snprintf(other.op[1].streaming, NTM_NAME_MAX, "nosuch");
	ntm_profile_write(path, &other, NULL);
	ntm_policy_build(&pol, ntm_cpu(), NULL, path);
	t_check(pol.profile_loaded && pol.note_count == 2 &&
		has_note(&pol, "set.cached", "streaming") &&
		has_note(&pol, "copy.streaming", "nosuch") &&
		pol.op[0].threshold == 100 * MiB &&
		pol.op[0].cached_origin == NTMEM_ORIGIN_DEFAULT,
		"profile: a variant that cannot serve is ignored, the rest used",
		"loaded %d notes %d: %s", pol.profile_loaded, pol.note_count, first_note(&pol));
}

static void test_precedence(void)
{
	char path[256];
	path_in_dir(path, sizeof path, "good");
	ntm_policy_build(&pol, ntm_cpu(), "set_threshold=5MiB,copy_cached=portable", path);
	const struct op_policy *s = &pol.op[0], *c = &pol.op[1];
	t_check(s->threshold == 5 * MiB && s->threshold_origin == NTMEM_ORIGIN_ENVIRONMENT &&
		!strcmp(s->cached->name, "stosq") && s->cached_origin == NTMEM_ORIGIN_PROFILE &&
		!strcmp(c->cached->name, "portable") &&
		c->cached_origin == NTMEM_ORIGIN_ENVIRONMENT &&
		c->threshold == SIZE_MAX && c->threshold_origin == NTMEM_ORIGIN_PROFILE &&
		s->streaming_origin == NTMEM_ORIGIN_PROFILE &&
		c->streaming_origin == NTMEM_ORIGIN_DEFAULT &&
		s->threshold_nonzero == 5 * MiB &&
		s->threshold_nonzero_origin == NTMEM_ORIGIN_ENVIRONMENT,
		"precedence: environment over profile over default, key by key",
		"set threshold %zu from %d", s->threshold, s->threshold_origin);
}

static void test_decision(void)
{
	ntm_policy_build(&pol, ntm_cpu(), "set_threshold=1MiB", NULL);
	const struct op_policy *o = &pol.op[0];
	size_t t = o->threshold;
	int ok = ntm_choose(o, t - 1, 0, 0) == o->cached &&
		 ntm_choose(o, t, 0, 0) == o->streaming &&
		 ntm_choose(o, t + 1, 0, 0) == o->streaming &&
		 ntm_choose(o, 1, 0, NTMEM_F_NONTEMPORAL) == o->streaming &&
		 ntm_choose(o, SIZE_MAX, 0, NTMEM_F_TEMPORAL) == o->cached &&
		 ntm_choose(o, t, 0, NTMEM_F_NOFENCE) == o->streaming;
	t_check(ok, "decision: cached below the threshold, streaming from it up; flags win",
		"wrong variant");

	ntm_policy_build(&pol, ntm_cpu(), "set_threshold=1MiB,set_nonzero_threshold=4MiB", NULL);
	o = &pol.op[0];
	ok = ntm_choose(o, 2 * MiB, 0, 0) == o->streaming &&
	     ntm_choose(o, 2 * MiB, 0x100, 0) == o->streaming &&  /* (unsigned char)0 */
	     ntm_choose(o, 2 * MiB, 0x5a, 0) == o->cached &&
	     ntm_choose(o, 4 * MiB - 1, -1, 0) == o->cached &&
	     ntm_choose(o, 4 * MiB, -1, 0) == o->streaming_any_value &&
	     ntm_choose(o, 1, 0x5a, NTMEM_F_NONTEMPORAL) == o->streaming_any_value &&
	     ntm_choose(&pol.op[1], 1 * MiB, 0, 0) == pol.op[1].cached;
	t_check(ok, "decision: memset of other values uses its own threshold",
		"wrong variant");

	const struct variant *clz = ntm_variant_named(NTMEM_OP_SET, "clzero");
	if (clz && !ntm_variant_unsupported(clz)) {
		ntm_policy_build(&pol, ntm_cpu(), "set_streaming=clzero", NULL);
		o = &pol.op[0];
		t_check(o->streaming == clz && o->streaming_any_value != clz &&
			o->streaming_any_value->streaming &&
			ntm_choose(o, SIZE_MAX, 0, 0) == clz &&
			ntm_choose(o, SIZE_MAX, 0x100, 0) == clz &&
			ntm_choose(o, SIZE_MAX, 7, 0) == o->streaming_any_value,
			"decision: a zero-only streaming variant serves zeros only",
			"any-value variant %s", o->streaming_any_value->name);
	} else
		t_skip("decision: a zero-only streaming variant serves zeros only",
		       "this CPU lacks CLZERO");
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

/* Many threads make the process's first calls at once; each must get the
 * right bytes, and all the same policy.  Run in a fresh child. */
#define THREADS 16
static pthread_barrier_t barrier;
static unsigned char *areas[THREADS];
static int thread_ok[THREADS];
static int thread_cached[THREADS];

static void *first_call(void *arg)
{
	int i = (int)(intptr_t)arg;
	pthread_barrier_wait(&barrier);
	size_t n = (size_t)(i + 1) * 64 * 1024 + (size_t)i;
	ntmem_set(areas[i], i + 1, n);
	struct ntmem_policy_info info;
	ntmem_policy_info(NTMEM_OP_SET, &info);
	thread_cached[i] = info.cached;
	int ok = 1;
	for (size_t k = 0; k < n; k++)
		ok &= areas[i][k] == (unsigned char)(i + 1);
	thread_ok[i] = ok && areas[i][n] == 0xee;
	return NULL;
}

static void test_concurrent_first_calls(void)
{
	pid_t pid = fork();
	if (pid == 0) {
		pthread_t t[THREADS];
		pthread_barrier_init(&barrier, NULL, THREADS);
		for (int i = 0; i < THREADS; i++) {
			areas[i] = malloc((size_t)(i + 2) * 64 * 1024 + 64);
			memset(areas[i], 0xee, (size_t)(i + 2) * 64 * 1024 + 64);
			pthread_create(&t[i], NULL, first_call, (void *)(intptr_t)i);
		}
		int ok = 1;
		for (int i = 0; i < THREADS; i++) {
			pthread_join(t[i], NULL);
			ok &= thread_ok[i] && thread_cached[i] == thread_cached[0];
		}
		_exit(ok ? 0 : 1);
	}
	int status;
	waitpid(pid, &status, 0);
	t_check(WIFEXITED(status) && WEXITSTATUS(status) == 0,
		"16 threads making the first calls at once agree and write correctly",
		"child status %d", status);
}

/* End to end: a process reads NTMEM_TUNABLES and NTMEM_PROFILE lazily and
 * "ntmem info --json" reports each value's origin and what it ignored. */
static void test_info_end_to_end(void)
{
	char cmd[1024], *out = NULL, path[256], err[160];
	path_in_dir(path, sizeof path, "good");
	snprintf(cmd, sizeof cmd,
		 "NTMEM_PROFILE=%s NTMEM_TUNABLES='set_threshold=5MiB,bogus=1' %s info --json",
		 path, t_ntmem());
	int status = t_run(cmd, &out, NULL);
	struct t_json *j = t_json_parse(out, err, sizeof err);
	const struct t_json *set = t_json_get(t_json_get(j, "policy"), "memset");
	const struct t_json *th = t_json_get(set, "threshold");
	const struct t_json *cached = t_json_get(set, "cached");
	const struct t_json *ign = t_json_get(j, "ignored");
	const struct t_json *prof = t_json_get(j, "profile");
	int ok = status == 0 && j && th && cached && ign && prof &&
		 t_json_get(th, "bytes")->number == 5.0 * MiB &&
		 !strcmp(t_json_get(th, "origin")->string, "environment") &&
		 !strcmp(t_json_get(cached, "name")->string, "stosq") &&
		 !strcmp(t_json_get(cached, "origin")->string, "profile") &&
		 strstr(t_json_get(cached, "detail")->string, path) &&
		 ign->type == TJ_ARRAY && ign->count == 1 &&
		 strstr(ign->items[0].string, "unknown key 'bogus'") &&
		 t_json_get(prof, "loaded")->boolean;
	t_check(ok, "info --json: origins, profile path and ignored settings",
		"status %d %s", status, j ? "" : err);
	t_json_free(j);
	free(out);

	snprintf(cmd, sizeof cmd, "NTMEM_PROFILE=%s/absent %s info", dir, t_ntmem());
	status = t_run(cmd, &out, NULL);
	t_check(status == 0 && strstr(out, "no such file") && strstr(out, "NTMEM_PROFILE"),
		"info: an NTMEM_PROFILE that does not exist is reported", "status %d", status);
	free(out);
}

int main(void)
{
	test_concurrent_first_calls();  /* first: before anything initializes */
	if (!mkdtemp(dir)) {
		t_fail("mkdtemp", "%s", strerror(errno));
		return t_finish();
	}
	test_defaults();
	test_tunables();
	test_profile_round_trip();
	test_bad_profiles();
	test_precedence();
	test_decision();
	test_profile_path();
	test_info_end_to_end();
	char cmd[300];
	snprintf(cmd, sizeof cmd, "rm -rf %s", dir);
	if (system(cmd))
		t_fail("cleanup", "%s", cmd);
	return t_finish();
}
