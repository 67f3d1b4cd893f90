/* test_calibrate.c - "ntmem calibrate": usage errors, --dry-run writes
 * nothing, a written profile is what libntmem then reads.  The measured
 * values themselves are never asserted: they are the machine's to say. */
#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "harness.h"
#include "calibrate/calibrate.h"
#include "calibrate/ladder_fit.h"

static const char *dir;  /* the scratch directory */

static void test_usage_errors(void)
{
	static const struct {
		const char *args, *must_say;
	} cases[] = {
		{"--quick --thorough", "choose one"},
		{"--bogus", "unknown option '--bogus'"},
		{"--output", "needs a value"},
		{"--output ''", "--output: empty path"},
		{"--cpu 99999", "--cpu"},
		{"extra", "unexpected argument 'extra'"},
	};
	for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
		char cmd[512], name[128], *err = NULL;
		snprintf(cmd, sizeof cmd, "%s calibrate %s", t_ntmem(), cases[i].args);
		int status = t_run(cmd, NULL, &err);
		snprintf(name, sizeof name, "calibrate %s: exit 2, says '%s'", cases[i].args,
			 cases[i].must_say);
		t_check(status == 2 && strstr(err, cases[i].must_say) &&
			strstr(err, "ntmem calibrate: "), name, "status %d: %s", status, err);
		free(err);
	}

	char cmd[512], *err = NULL;
	snprintf(cmd, sizeof cmd, "NTMEM_PROFILE=none %s calibrate --quick", t_ntmem());
	int status = t_run(cmd, NULL, &err);
	t_check(status == 2 && strstr(err, "--output"),
		"calibrate with profiles disabled and no --output: exit 2", "status %d: %s",
		status, err);
	free(err);

	char *out = NULL;
	snprintf(cmd, sizeof cmd, "%s calibrate --help", t_ntmem());
	status = t_run(cmd, &out, NULL);
	t_check(status == 0 && strstr(out, "Usage: ntmem calibrate") &&
		strstr(out, "--dry-run"), "calibrate --help", "status %d", status);
	free(out);
}

/* One class's rungs in calibrate's JSON equal the ladder ntmem info then
 * reports for it, rung by rung, with origin profile. */
static int same_ladder(const struct t_json *cal, const struct t_json *info)
{
	const struct t_json *a = t_json_get(cal, "rungs");
	const struct t_json *b = t_json_get(info, "rungs");
	if (!a || !b || a->type != TJ_ARRAY || b->type != TJ_ARRAY ||
	    a->count != b->count || a->count == 0)
		return 0;
	for (size_t i = 0; i < a->count; i++) {
		const struct t_json *x = &a->items[i], *y = &b->items[i];
		const struct t_json *xt = t_json_get(x, "to"), *yt = t_json_get(y, "to");
		if (strcmp(t_json_get(x, "variant")->string,
			   t_json_get(y, "variant")->string) ||
		    strcmp(t_json_get(y, "origin")->string, "profile") ||
		    xt->type != yt->type || (xt->type == TJ_NUMBER && xt->number != yt->number))
			return 0;
	}
	return 1;
}

static void test_write_and_read_back(void)
{
	char cmd[1024], *out = NULL, err[160], profile[300];
	snprintf(profile, sizeof profile, "%s/cache/ntmem/profile", dir);
	const char *small = "--quick --max-size 16MiB";

	/* --dry-run writes nothing, not even at the default path. */
	snprintf(cmd, sizeof cmd, "env -u NTMEM_PROFILE XDG_CACHE_HOME=%s/cache %s calibrate %s --dry-run",
		 dir, t_ntmem(), small);
	int status = t_run(cmd, &out, NULL);
	t_check(status == 0 && access(profile, F_OK) != 0 && strstr(out, "Verdict:") &&
		strstr(out, "memset of zeros") && strstr(out, "memcpy"),
		"calibrate --dry-run: a verdict, and no profile written", "status %d", status);
	/* Each rung with its confidence; no 0.00x for a lone candidate. */
	int rungs = 0;
	for (const char *at = out; (at = strstr(at, "  rung ")); at++)
		rungs++;
	t_check(rungs == 3 && !strstr(out, " 0.00x") &&
		(strstr(out, "clear, at least") || strstr(out, "tied within noise")),
		"calibrate: a confidence for every ladder's rungs", "%d rung lines", rungs);
#ifdef __x86_64__
	t_check(strstr(out, "GLIBC_TUNABLES=glibc.cpu.x86_non_temporal_threshold=0x") != NULL,
		"calibrate: the glibc tunable nearest the memcpy ladder", "not printed");
#endif
	free(out);

	snprintf(cmd, sizeof cmd, "env -u NTMEM_PROFILE XDG_CACHE_HOME=%s/cache %s calibrate %s --json",
		 dir, t_ntmem(), small);
	status = t_run(cmd, &out, NULL);
	struct t_json *j = t_json_parse(out, err, sizeof err);
	const struct t_json *cls = t_json_get(j, "classes");
	int ok = status == 0 && j && cls && cls->type == TJ_ARRAY && cls->count == 3 &&
		 t_json_get(j, "written")->boolean && access(profile, F_OK) == 0;
	for (size_t i = 0; ok && i < cls->count; i++) {
		const struct t_json *c = &cls->items[i];
		const struct t_json *pts = t_json_get(c, "points");
		const struct t_json *rung0 = t_json_get(c, "rungs");
		const struct t_json *conf = rung0 && rung0->count
			? t_json_get(&rung0->items[0], "confidence") : NULL;
		ok &= t_json_get(c, "ladder")->type == TJ_STRING &&
		      t_json_get(c, "words")->type == TJ_STRING && pts &&
		      pts->type == TJ_ARRAY && pts->count >= 5 &&
		      t_json_get(&pts->items[0], "size")->number == 256 &&
		      conf && t_json_get(conf, "verdict");
	}
	t_check(ok, "calibrate --json: three ladders with their confidence, the grid "
		"behind them, profile written at the default path", "status %d %s",
		status, j ? "" : err);

	/* libntmem then reads exactly what calibrate chose. */
	if (t_scratch_untrusted()) {
		t_skip("calibrate: libntmem reads the ladders back", t_scratch_untrusted());
		t_json_free(j);
		free(out);
		return;
	}
	char *info = NULL;
	snprintf(cmd, sizeof cmd, "env -u NTMEM_PROFILE XDG_CACHE_HOME=%s/cache %s info --json", dir, t_ntmem());
	status = t_run(cmd, &info, NULL);
	struct t_json *k = t_json_parse(info, err, sizeof err);
	ok = status == 0 && k && ok;
	for (size_t i = 0; ok && i < 3; i++) {
		const struct t_json *c = &cls->items[i];
		const struct t_json *p = t_json_get(t_json_get(k, "policy"),
						    t_json_get(c, "class")->string);
		ok &= same_ladder(c, p);
	}
	t_check(ok, "calibrate: libntmem reads the ladders back, rung for rung",
		"status %d %s", status, k ? "" : err);
	t_json_free(j);
	t_json_free(k);
	free(out);
	free(info);
}

/* The fit, on made-up tables: what each rule does. */
static struct fit_point table[FIT_MAX_POINTS];

/* ratios[p][c]: candidate c's ratio at point p (0: not measured). */
static size_t make_table(const double (*ratios)[3], size_t npoints)
{
	for (size_t p = 0; p < npoints; p++) {
		memset(&table[p], 0, sizeof table[p]);
		table[p].size = (size_t)1024 << p;
		for (size_t c = 0; c < 3; c++) {
			table[p].measured[c] = ratios[p][c] > 0;
			table[p].ratio[c] = ratios[p][c];
			table[p].gbps[c] = 10 * ratios[p][c];
		}
	}
	return npoints;
}

static void test_fit(void)
{
	/* A wins, then A and B tie, then B wins, then C (streaming). */
	static const double crossing[][3] = {
		{1, .8, .2}, {1, .99, .2}, {.99, 1, .3}, {.9, 1, .5}, {.5, .6, 1}, {.4, .5, 1}};
	struct fit_input in = {3, -1, table, make_table(crossing, 6), 0.03, 8};
	struct fit_output out;
	int rc = fit_ladder(&in, &out);
	t_check(rc == 0 && out.count == 3 && out.rungs[0].cand == 0 &&
		out.rungs[0].last == 2 && out.rungs[1].cand == 1 &&
		out.rungs[1].first == 3 && out.rungs[2].cand == 2 &&
		out.rungs[0].to > table[2].size && out.rungs[0].to < table[3].size &&
		out.rungs[2].to == SIZE_MAX,
		"fit: a tie keeps the current rung; edges fall between the sizes",
		"rc %d, %u rungs", rc, out.count);

	/* The preferred candidate takes a rung where it ties at the start,
	 * though another would reach further. */
	static const double ties[][3] = {{.99, 1, .2}, {1, .98, .2}, {1, .9, .2}};
	in = (struct fit_input){3, -1, table, make_table(ties, 3), 0.03, 8};
	int plain = fit_ladder(&in, &out) == 0 && out.count == 1 && out.rungs[0].cand == 0;
	in.preferred = 1;
	rc = fit_ladder(&in, &out);
	t_check(plain && rc == 0 && out.count == 2 && out.rungs[0].cand == 1 &&
		out.rungs[0].last == 1 && out.rungs[1].cand == 0,
		"fit: the preferred candidate wins the ties where a rung starts",
		"without preference %d; rc %d, %u rungs", plain, rc, out.count);

	/* One size of noise between two of A's: merged away. */
	static const double noisy[][3] = {{1, .9, .1}, {.96, 1, .1}, {1, .9, .1}, {1, .9, .1}};
	in = (struct fit_input){3, -1, table, make_table(noisy, 4), 0.03, 8};
	rc = fit_ladder(&in, &out);
	t_check(rc == 0 && out.count == 1 && out.rungs[0].cand == 0,
		"fit: a one-size rung within 1.5 margins between two of one candidate merges",
		"rc %d, %u rungs", rc, out.count);

	/* Several sizes where A trails by 4%: a pattern, kept as its own rung
	 * (this is memcpy streaming from 2 MiB and cached from 4 to 32 MiB). */
	static const double pattern[][3] = {{1, .9, .1}, {.96, 1, .1}, {.96, 1, .1},
					     {.96, 1, .1}, {1, .9, .1}};
	in = (struct fit_input){3, -1, table, make_table(pattern, 5), 0.03, 8};
	rc = fit_ladder(&in, &out);
	t_check(rc == 0 && out.count == 3 && out.rungs[1].cand == 1 &&
			out.rungs[1].first == 1 && out.rungs[1].last == 3,
		"fit: a rung of several sizes between two of one candidate stays",
		"rc %d, %u rungs", rc, out.count);

	/* One size where A trails by 6%: beyond 1.5 margins, kept. */
	static const double deep[][3] = {{1, .9, .1}, {.94, 1, .1}, {1, .9, .1}};
	in = (struct fit_input){3, -1, table, make_table(deep, 3), 0.03, 8};
	rc = fit_ladder(&in, &out);
	t_check(rc == 0 && out.count == 3 && out.rungs[1].cand == 1,
		"fit: a spike deeper than 1.5 margins stays", "rc %d, %u rungs",
		rc, out.count);

	/* Alternating winners need more rungs than fit: the margin widens. */
	static const double flapping[][3] = {
		{1, .95, .1}, {.95, 1, .1}, {1, .95, .1}, {.95, 1, .1}, {1, .95, .1},
		{.95, 1, .1}, {1, .95, .1}, {.95, 1, .1}, {1, .95, .1}, {.95, 1, .1}};
	in = (struct fit_input){3, -1, table, make_table(flapping, 10), 0.03, 8};
	rc = fit_ladder(&in, &out);
	t_check(rc == 0 && out.count <= 8 && out.margin > 0.03,
		"fit: too many rungs widen the margin", "rc %d, %u rungs, margin %.2f",
		rc, out.count, out.margin);

	static const double hole[][3] = {{1, .9, .1}, {0, 0, 0}};
	in = (struct fit_input){3, -1, table, make_table(hole, 2), 0.03, 8};
	t_check(fit_ladder(&in, &out) == -1, "fit: a size with nothing measured fails",
		"accepted");

	t_check(fit_edge(1024, 2048) == 1408 && fit_edge(64, 128) == 65 &&
		fit_edge(1 << 20, 1 << 22) == 1 << 21,
		"fit: edges are geometric means, multiples of 64, strictly between",
		"%zu %zu %zu", fit_edge(1024, 2048), fit_edge(64, 128),
		fit_edge(1 << 20, 1 << 22));
}

/* A rung's confidence: its least lead over the best other candidate at
 * the sizes it serves, and the rounds it won there. */
static void test_confidence(void)
{
	static const double two[][3] = {{1, .5, 0}, {1, .8, 0}, {.99, 1, 0}, {.5, 1, 0}};
	static struct cal_class k;
	memset(&k, 0, sizeof k);
	k.ncands = 2;
	k.cands[0].name = "a";
	k.cands[1].name = "b";
	size_t n = make_table(two, 4);
	for (size_t p = 0; p < n; p++) {
		k.points[p] = table[p];
		k.points[p].rounds = 5;
		k.points[p].wins[0] = p < 2 ? 5 : 2;
	}
	k.npoints = n;
	struct fit_input in = {2, -1, k.points, n, 0.03, 8};
	struct cal_confidence c0, c1;
	int rc = fit_ladder(&in, &k.fit);
	cal_rung_confidence(&k, 0, &c0);
	cal_rung_confidence(&k, 1, &c1);
	/* a serves 1-4 KiB (the last a tie at 0.99x), b the rest */
	t_check(rc == 0 && k.fit.count == 2 && c0.rival && !strcmp(c0.rival, "b") &&
		c0.lead > 0.98 && c0.lead < 1.0 && c0.wins == 2 && c1.lead >= 2.0 - 1e-9,
		"calibrate: a rung's confidence is its least lead, with the rounds it won",
		"rc %d, %u rungs, lead %.3f (%s, %ld won), %.3f", rc, k.fit.count,
		c0.lead, c0.rival ? c0.rival : "-", c0.wins, c1.lead);
}

static mode_t mode_of(const char *path)
{
	struct stat st;
	return stat(path, &st) ? 07777 : st.st_mode & 07777;
}

/* --system: directories 0755 and the file 0644 whatever the umask, so
 * that every user's processes read it; and a warning where libntmem
 * would not (here: a profile under /tmp, which it never trusts). */
static void test_system(void)
{
	char cmd[1024], *out = NULL, *err = NULL, path[300];
	const char *tiny = "--quick --max-size 4KiB";
	if (t_scratch_untrusted()) {
		t_skip("calibrate --system", t_scratch_untrusted());
		return;
	}
	chmod(dir, 0755);  /* as /var/lib is: others may search it */
	snprintf(path, sizeof path, "%s/sys/ntmem/profile", dir);
	snprintf(cmd, sizeof cmd, "umask 077; NTMEM_SYSTEM_PROFILE=%s %s calibrate "
		 "%s --system", path, t_ntmem(), tiny);
	int st = t_run(cmd, &out, &err);
	char sys[300], sys_ntmem[300];
	snprintf(sys, sizeof sys, "%s/sys", dir);
	snprintf(sys_ntmem, sizeof sys_ntmem, "%s/sys/ntmem", dir);
	t_check(st == 0 && mode_of(sys) == 0755 && mode_of(sys_ntmem) == 0755 &&
			mode_of(path) == 0644,
		"calibrate --system under umask 077: directories 0755, the file "
		"0644", "status %d, modes %o %o %o: %s", st, mode_of(sys),
		mode_of(sys_ntmem), mode_of(path), err);
	/* Where a directory above the build is closed to others (/root),
	 * the warning is right to say so. */
	if (t_scratch_closed())
		t_check(strstr(err, "other users cannot search it") != NULL,
			"calibrate --system: a directory above closed to others is "
			"warned of", "%s", err);
	else
		t_check(!strstr(err, "warning"), "calibrate --system: no warning "
			"where every user can read the profile", "%s", err);
	free(out);
	free(err);
	chmod(dir, 0700);

	char tmp[] = "/tmp/ntmem-calibrate-system-XXXXXX";
	if (!mkdtemp(tmp)) {
		t_fail("calibrate --system: a profile under /tmp", "mkdtemp: %s",
		       strerror(errno));
		return;
	}
	snprintf(cmd, sizeof cmd, "NTMEM_SYSTEM_PROFILE=%s/profile %s calibrate %s "
		 "--system", tmp, t_ntmem(), tiny);
	st = t_run(cmd, &out, &err);
	t_check(st == 0 && strstr(err, "warning") &&
			strstr(err, "libntmem will ignore this profile: not trusted: "
				    "/tmp is writable by others"),
		"calibrate --system: a profile libntmem would not trust is written "
		"with a warning saying why", "status %d: %s", st, err);
	free(out);
	free(err);
	snprintf(path, sizeof path, "%s/profile", tmp);
	unlink(path);
	rmdir(tmp);
}

int main(void)
{
	if (t_scratch_make("calibrate"))
		return t_finish();
	dir = t_scratch_dir();
	test_fit();
	test_confidence();
	test_usage_errors();
	test_write_and_read_back();
	test_system();
	t_scratch_remove();
	return t_finish();
}
