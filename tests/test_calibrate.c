/* test_calibrate.c - "ntmem calibrate": usage errors, --dry-run writes
 * nothing, a written profile is what libntmem then reads and what ntmem
 * info shows of it, --undo removes it; and the pure parts (the rounds
 * against the built-in ladder, the merge, the fit, the parallel verdict)
 * on made-up tables.  The measured values themselves are never
 * asserted: they are the machine's to say. */
#define _GNU_SOURCE  /* memmem */
#include <errno.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "util/size.h"

#include "harness.h"
#include "calibrate/calibrate.h"
#include "calibrate/ladder_fit.h"
#include "calibrate/ladder_merge.h"

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
		{"--undo --quick", "--undo and --quick"},
		{"--undo --dry-run", "--undo and --dry-run"},
		{"--max-size 1MiB --undo", "--undo and --max-size"},
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

	/* A missing directory for --output fails at once, as --plot's does,
	 * and is not made. */
	char missing[300], path[400];
	snprintf(missing, sizeof missing, "%s/missing", dir);
	snprintf(path, sizeof path, "%s/sub/profile", missing);
	snprintf(cmd, sizeof cmd, "%s calibrate --quick --output %s", t_ntmem(), path);
	status = t_run(cmd, NULL, &err);
	t_check(status == 2 && strstr(err, "ntmem calibrate: --output: ") &&
		strstr(err, path) && access(missing, F_OK) != 0,
		"calibrate --output in a missing directory: exit 2 before measuring, "
		"naming it, nothing made", "status %d, %s %s: %s", status, missing,
		access(missing, F_OK) ? "absent" : "made", err);
	free(err);

	char *out = NULL;
	snprintf(cmd, sizeof cmd, "%s calibrate --help", t_ntmem());
	status = t_run(cmd, &out, NULL);
	t_check(status == 0 && strstr(out, "Usage: ntmem calibrate") &&
		strstr(out, "--dry-run") && strstr(out, "--undo") &&
		strstr(out, "at least 3%"), "calibrate --help", "status %d", status);
	free(out);
}

/* One class's rungs in calibrate's JSON equal the ladder ntmem info then
 * reports for it, rung by rung, with origin (profile where calibrate
 * wrote the class, default where it kept the built-in ladder). */
static int same_ladder(const struct t_json *cal, const struct t_json *info,
		       const char *origin)
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
		    strcmp(t_json_get(y, "origin")->string, origin) ||
		    xt->type != yt->type || (xt->type == TJ_NUMBER && xt->number != yt->number))
			return 0;
	}
	return 1;
}

/* Does the built-in ladder (rungs of ntmem info --json without a
 * profile) serve every size of [from, to) (to < 0: no end) with v? */
static int builtin_serves(const struct t_json *rungs, double from, double to,
			  const char *v)
{
	for (size_t i = 0; i < rungs->count; i++) {
		const struct t_json *r = &rungs->items[i];
		const struct t_json *rt = t_json_get(r, "to");
		double lo = t_json_get(r, "from")->number;
		double hi = rt->type == TJ_NUMBER ? rt->number : -1;
		int overlap = (hi < 0 || hi > from) && (to < 0 || lo < to);
		if (overlap && strcmp(t_json_get(r, "variant")->string, v))
			return 0;
	}
	return 1;
}

/* With the profile just written loaded (info, its JSON), a rung the
 * profile sets is "as_builtin" exactly where the built-in ladder (info
 * without the profile) serves its sizes with its variant; the text marks
 * the others "profile", says how many changed, and names --undo. */
static void test_info_marks_changes(const struct t_json *info)
{
	char cmd[1024], *out = NULL, *text = NULL, err[160];
	snprintf(cmd, sizeof cmd, "NTMEM_PROFILE=none %s info --json", t_ntmem());
	int st = t_run(cmd, &out, NULL);
	struct t_json *b = t_json_parse(out, err, sizeof err);
	int ok = st == 0 && b, changed = 0, total = 0;
	for (int cls = 0; ok && cls < 3; cls++) {
		static const char *const key[3] = {"set_zero", "set_nonzero", "copy"};
		const struct t_json *rungs = t_json_get(t_json_get(t_json_get(info,
					"policy"), key[cls]), "rungs");
		const struct t_json *base = t_json_get(t_json_get(t_json_get(b,
					"policy"), key[cls]), "rungs");
		for (size_t i = 0; ok && i < rungs->count; i++) {
			const struct t_json *r = &rungs->items[i], *to = t_json_get(r, "to");
			if (strcmp(t_json_get(r, "origin")->string, "profile"))
				continue;
			int same = builtin_serves(base, t_json_get(r, "from")->number,
						  to->type == TJ_NUMBER ? to->number : -1,
						  t_json_get(r, "variant")->string);
			ok = t_json_get(r, "as_builtin")->boolean == same;
			total++;
			changed += !same;
		}
	}
	t_check(ok, "info: a profile's rung is as_builtin exactly where the built-in "
		"ladder serves its sizes with its variant", "status %d %s", st,
		b ? "" : err);
	t_json_free(b);
	free(out);

	snprintf(cmd, sizeof cmd, "env -u NTMEM_PROFILE XDG_CACHE_HOME=%s/cache %s info",
		 dir, t_ntmem());
	st = t_run(cmd, &text, NULL);
	char want[128];
	int labelled = 0;
	snprintf(want, sizeof want, "changes %d of the %d rungs it sets", changed, total);
	for (const char *l = text; l && *l; l = strchr(l, '\n') ? strchr(l, '\n') + 1 : NULL) {
		size_t n = strcspn(l, "\n");
		labelled += n > 9 && !strncmp(l + n - 9, "  profile", 9) &&
			    !memmem(l, n, "NTMEM_F_NONTEMPORAL", 19);
	}
	t_check(st == 0 && (total == 0 || (strstr(text, want) &&
					  strstr(text, "undo: ntmem calibrate --undo"))) &&
		labelled == changed,
		"info: only the rungs the profile changed are labelled profile; it "
		"says how many and names --undo", "status %d, %d labelled, want '%s'",
		st, labelled, want);
	free(text);
}

/* --undo where the directory is not the user's to change: exit 1, and
 * the profile stays.  Root may change any directory, so as root the
 * command runs as nobody (setpriv), where that can run the tool. */
static void test_undo_denied(void)
{
	const char *name = "calibrate --undo without the right to remove: exit 1, kept";
	char tmp[] = "/tmp/ntmem-undo-XXXXXX", path[64], cmd[1200], *err = NULL;
	const char *as = "";
	if (geteuid() == 0) {
		if (t_run("command -v setpriv >/dev/null", NULL, NULL)) {
			t_skip(name, "running as root, and setpriv (util-linux) is not "
			       "installed to drop to nobody");
			return;
		}
		as = "setpriv --reuid=65534 --regid=65534 --clear-groups ";
		snprintf(cmd, sizeof cmd, "%s%s --version >/dev/null 2>&1", as, t_ntmem());
		if (t_run(cmd, NULL, NULL)) {
			t_skip(name, "running as root, and nobody cannot run the tool "
			       "here (a directory above it is closed)");
			return;
		}
	}
	if (!mkdtemp(tmp) || chmod(tmp, 0755)) {
		t_fail(name, "mkdtemp: %s", strerror(errno));
		return;
	}
	snprintf(path, sizeof path, "%s/profile", tmp);
	FILE *f = fopen(path, "w");
	if (f) {
		fputs("ntmem-profile 3\n", f);
		fclose(f);
	}
	chmod(path, 0644);
	chmod(tmp, 0555);  /* not even its owner may remove from it */
	snprintf(cmd, sizeof cmd, "%s%s calibrate --undo --output %s", as, t_ntmem(), path);
	int st = t_run(cmd, NULL, &err);
	t_check(st == 1 && access(path, F_OK) == 0 && strstr(err, "cannot remove") &&
		strstr(err, "Permission denied"), name, "status %d: %s", st, err);
	free(err);
	chmod(tmp, 0755);
	unlink(path);
	rmdir(tmp);
}

/* --undo: the profile just written goes, then there is none; a file
 * that is not a profile stays; an error is exit 1. */
static void test_undo(const char *profile)
{
	char cmd[1200], *out = NULL, *err = NULL, want[400];
	snprintf(cmd, sizeof cmd, "env -u NTMEM_PROFILE XDG_CACHE_HOME=%s/cache %s "
		 "calibrate --undo", dir, t_ntmem());
	int st = t_run(cmd, &out, &err);
	snprintf(want, sizeof want, "Removed the profile %s.\n", profile);
	t_check(st == 0 && strstr(out, want) && access(profile, F_OK) != 0 &&
		strstr(out, "libntmem now uses "),
		"calibrate --undo: removes the profile, says which and what libntmem "
		"uses now", "status %d: %s%s", st, out, err);
	free(out);
	free(err);
	st = t_run(cmd, &out, &err);
	snprintf(want, sizeof want, "No profile at %s: nothing to remove.", profile);
	t_check(st == 0 && strstr(out, want), "calibrate --undo with no profile: "
		"says so, exit 0", "status %d: %s%s", st, out, err);
	free(out);
	free(err);

	char other[300];
	snprintf(other, sizeof other, "%s/not-a-profile", dir);
	FILE *f = fopen(other, "w");
	if (f) {
		fputs("precious\n", f);
		fclose(f);
	}
	snprintf(cmd, sizeof cmd, "%s calibrate --undo --output %s", t_ntmem(), other);
	st = t_run(cmd, &out, &err);
	t_check(st == 1 && access(other, F_OK) == 0 && strstr(err, "not a profile"),
		"calibrate --undo --output of a file that is no profile: kept, exit 1",
		"status %d: %s", st, err);
	free(out);
	free(err);
	unlink(other);

	/* An error removing it: a name longer than any file system takes. */
	char longname[400];
	memset(longname, 'n', 300);
	longname[300] = '\0';
	snprintf(cmd, sizeof cmd, "%s calibrate --undo --output %s/%s", t_ntmem(), dir,
		 longname);
	st = t_run(cmd, &out, &err);
	t_check(st == 1 && strstr(err, "cannot remove the profile"),
		"calibrate --undo: a path it cannot remove is exit 1, saying why",
		"status %d: %s", st, err);
	free(out);
	free(err);

	/* --system: the system-wide one (NTMEM_SYSTEM_PROFILE). */
	char sys[300];
	snprintf(sys, sizeof sys, "%s/system-profile", dir);
	f = fopen(sys, "w");
	if (f) {
		fputs("ntmem-profile 3\n", f);
		fclose(f);
	}
	snprintf(cmd, sizeof cmd, "NTMEM_SYSTEM_PROFILE=%s %s calibrate --undo --system",
		 sys, t_ntmem());
	st = t_run(cmd, &out, &err);
	snprintf(want, sizeof want, "Removed the system-wide profile %s.", sys);
	t_check(st == 0 && strstr(out, want) && access(sys, F_OK) != 0,
		"calibrate --undo --system: removes the system-wide profile",
		"status %d: %s%s", st, out, err);
	free(out);
	free(err);
	unlink(sys);
	test_undo_denied();
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
		strstr(out, "memset of zeros") && strstr(out, "memcpy") &&
		!strstr(out, "To undo"),
		"calibrate --dry-run: a verdict, and no profile written (nor an undo "
		"named)", "status %d", status);
	/* Each fitted rung with its confidence; no 0.00x for a lone
	 * candidate; the built-in ladder beside it, and where they differ,
	 * the two rounds; a verdict line per class, none of them long. */
	int fitted = 0, builtin = 0, longest = 0;
	for (const char *at = out; (at = strstr(at, "  fitted from the grid: ")); at++)
		fitted++;
	for (const char *at = out; (at = strstr(at, "\n  built-in: ")); at++)
		builtin++;
	const char *verdict = strstr(out, "\nVerdict:\n");
	const char *end = verdict ? strstr(verdict + 1, "\n\n") : NULL;
	for (const char *l = verdict; l && l < end; l = strchr(l + 1, '\n')) {
		int n = (int)strcspn(l + 1, "\n");
		longest = n > longest ? n : longest;
	}
	t_check(fitted == 3 && builtin == 3 && !strstr(out, " 0.00x") &&
		(strstr(out, "clear, at least") || strstr(out, "tied within noise")) &&
		(strstr(out, "the fit picks what the built-in ladder picks") ||
		 strstr(out, "two rounds of ")),
		"calibrate: the fit with its confidence, and the built-in ladder "
		"beside it, per class", "%d fitted, %d built-in lines", fitted, builtin);
	t_check(verdict && strstr(verdict, "\n  memset of zeros ") &&
		strstr(verdict, "\n  memcpy ") && longest <= 80,
		"calibrate: the verdict a line or two per class, none over 80 "
		"columns", "longest line %d:\n%.*s", longest,
		verdict && end ? (int)(end - verdict) : 0, verdict ? verdict : "");
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
		const struct t_json *conf = t_json_get(t_json_get(c, "fitted"), "confidence");
		const struct t_json *inp = t_json_get(c, "in_profile");
		ok &= t_json_get(c, "ladder")->type == TJ_STRING &&
		      t_json_get(c, "words")->type == TJ_STRING && pts &&
		      pts->type == TJ_ARRAY && pts->count >= 5 &&
		      t_json_get(&pts->items[0], "size")->number == 256 &&
		      conf && conf->count && t_json_get(&conf->items[0], "verdict") &&
		      inp && inp->type == TJ_BOOL &&
		      t_json_get(t_json_get(c, "builtin"), "ladder") &&
		      t_json_get(c, "checks") && t_json_get(c, "outcome");
	}
	const struct t_json *undo = t_json_get(j, "undo");
	ok &= undo && undo->type == TJ_STRING && !strcmp(undo->string, "ntmem calibrate --undo");
	t_check(ok, "calibrate --json: three ladders with their confidence, the grid "
		"behind them, profile written at the default path, the command "
		"that undoes it", "status %d %s", status, j ? "" : err);

	/* libntmem then reads exactly what calibrate chose. */
	if (t_scratch_untrusted()) {
		t_skip("calibrate: libntmem reads the ladders back", t_scratch_untrusted());
		t_json_free(j);
		free(out);
		test_undo(profile);
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
		ok &= same_ladder(c, p, t_json_get(c, "in_profile")->boolean
					? "profile" : "default");
	}
	t_check(ok, "calibrate: libntmem reads the ladders back, rung for rung, "
		"the built-in one where calibrate kept it", "status %d %s", status,
		k ? "" : err);
	/* The profile says how and when it was made, and info shows it. */
	const struct t_json *prof = t_json_get(k, "profile");
	const struct t_json *eff = t_json_get(prof, "effort"), *made = t_json_get(prof, "made");
	t_check(eff && eff->type == TJ_STRING && !strcmp(eff->string, "quick") &&
		made && made->type == TJ_STRING && strstr(made->string, " UTC"),
		"calibrate: ntmem info says the profile came from --quick, and when",
		"effort %s, made %s", eff && eff->type == TJ_STRING ? eff->string : "-",
		made && made->type == TJ_STRING ? made->string : "-");
	const char *text = t_file_text(profile);
	t_check(strstr(text, "\nmade.effort quick\n") && strstr(text, "\nmade.time ") &&
		strstr(text, "# Delete this file to go back to ") &&
		strstr(text, "\n# ntmem calibrate --undo\n") &&
		!strstr(text, "topology default"),
		"calibrate: the profile records its effort and time, and says what "
		"deleting it returns to and the command that does", "%s", text);
	test_info_marks_changes(k);
	t_json_free(j);
	t_json_free(k);
	free(out);
	free(info);
	test_undo(profile);
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

/* A round is won when the median ratio clears 1 by more than the
 * spread (the median absolute deviation) and by at least 3%, and only
 * then. */
static void test_rounds(void)
{
	static const struct {
		double r[5];
		int won;
		double median, spread;
	} cases[] = {
		{{1.10, 1.12, 1.11, 1.09, 1.13}, 1, 1.11, 0.01},
		{{0.95, 1.02, 1.01, 1.00, 1.06}, 0, 1.01, 0.01},  /* 1% ahead, 1% spread */
		{{1.00, 1.00, 1.00, 1.00, 1.00}, 0, 1.00, 0.00},
		{{0.94, 1.06, 1.03, 0.99, 1.07}, 0, 1.03, 0.04},  /* 3% ahead, 4% spread */
		{{0.80, 1.30, 1.35, 0.85, 1.32}, 1, 1.30, 0.05},  /* 30% ahead in 3 of 5 */
		{{0.90, 0.92, 0.91, 0.93, 0.90}, 0, 0.91, 0.01},  /* behind */
		/* Clear of a spread of 0, but under 3%: the 1.01-1.02x on
		 * which movdir64b once replaced a built-in rung. */
		{{1.02, 1.02, 1.02, 1.02, 1.02}, 0, 1.02, 0.00},
		{{1.01, 1.02, 1.02, 1.03, 1.02}, 0, 1.02, 0.00},
		{{1.04, 1.05, 1.05, 1.05, 1.06}, 1, 1.05, 0.00},  /* 5%, no spread */
		{{1.03, 1.03, 1.03, 1.03, 1.03}, 1, 1.03, 0.00},  /* 3% itself */
	};
	for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
		double m, s;
		char name[96];
		int won = merge_round_won(cases[i].r, 5, &m, &s);
		snprintf(name, sizeof name, "confirm: round %zu %s", i,
			 cases[i].won ? "won" : "not won");
		t_check(won == cases[i].won && fabs(m - cases[i].median) < 1e-9 &&
			fabs(s - cases[i].spread) < 1e-9, name,
			"won %d, median %.4f, spread %.4f", won, m, s);
	}
}

/* One made-up table of serial against parallel memset: sizes doubling
 * from 256 KiB, the ratios given. */
static void parallel_table(struct cal_parallel *r, const double *ratio, size_t n)
{
	memset(r, 0, sizeof *r);
	r->threads = 2;
	for (size_t i = 0; i < n; i++) {
		r->sizes[i] = ((size_t)256 << 10) << i;
		r->ratio[i] = ratio[i];
		r->serial[i] = 10;
		r->parallel[i] = 10 * ratio[i];
	}
	r->n = n;
	r->min_chunk = cal_parallel_min_chunk(r);
}

/* The sentence above the parallel table and the least size per thread
 * both come from the table: where it pays only inside the cache (1.53x
 * at 2 and 4 MiB, as a 2-CPU Zen 5 VM measured), the sentence says so,
 * not "no size". */
static void test_parallel_words(void)
{
	static const struct {
		double ratio[11];
		size_t min_chunk;
		const char *says, *not_says;
	} cases[] = {
		{{.3, .5, .8, 1.53, 1.53, 1.05, 1, .97, .95, .97, .98}, 0,
		 "parallel memset on 2 threads: pays 1.1x or more from 2 MiB to 4 MiB "
		 "(up to 1.53x), but not at 256 MiB, the largest size measured (0.98x)",
		 "at no size"},
		{{.3, .5, .8, 1.2, 1.5, 1.6, 1.7, 1.8, 1.9, 2, 2.1}, 1 * MiB,
		 "parallel memset on 2 threads: pays 1.1x or more from 2 MiB up (1 MiB "
		 "a thread)", "but not"},
		{{.3, .5, .8, 1.2, 1.0, 1.6, 1.7, 1.8, 1.9, 2, 2.1}, 4 * MiB,
		 "pays 1.1x or more from 8 MiB up (4 MiB a thread)", "2 MiB"},
		{{.3, .5, .8, 1.2, 1.0, 1.6, 1.0, 1.0, 1.0, 1.0, 1.0}, 0,
		 "pays 1.1x or more at 2 sizes from 2 MiB to 8 MiB (up to 1.60x), but "
		 "not at 256 MiB", "a thread)"},
		{{.3, .5, .8, .9, 1.05, .9, .9, .9, .9, .9, .9}, 0,
		 "pays 1.1x at no size up to 256 MiB (at best 1.05x, at 4 MiB)", "but not"},
	};
	for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
		struct cal_parallel r;
		char words[400], name[96];
		parallel_table(&r, cases[i].ratio, 11);
		cal_parallel_words(&r, words, sizeof words);
		snprintf(name, sizeof name, "parallel: table %zu, its least size a thread "
			 "and its sentence agree", i);
		t_check(r.min_chunk == cases[i].min_chunk && strstr(words, cases[i].says) &&
			!strstr(words, cases[i].not_says), name, "min_chunk %zu: '%s'",
			r.min_chunk, words);
	}
	struct cal_parallel r;
	char words[400];
	parallel_table(&r, NULL, 0);
	cal_parallel_words(&r, words, sizeof words);
	int none = r.min_chunk == 0 && !strcmp(words, "parallel memset on 2 threads: "
					       "no size measured");
	r.skipped = "only one CPU is allowed";
	cal_parallel_words(&r, words, sizeof words);
	t_check(none && !strcmp(words, "parallel memset: not measured: only one CPU "
				"is allowed"), "parallel: nothing measured, and skipped, "
		"in words", "'%s'", words);
}

static struct merge_ladder ladder_of(unsigned n, const int *v, const size_t *to)
{
	struct merge_ladder l = {.count = n};
	for (unsigned i = 0; i < n; i++) {
		l.variant[i] = v[i];
		l.to[i] = i + 1 < n ? to[i] : SIZE_MAX;
	}
	return l;
}

/* The fit only where it won both rounds; the built-in ladder elsewhere,
 * between sizes where the two agreed too. */
static void test_merge(void)
{
	enum { A, B, C, S };
	const size_t M = (size_t)1 << 20;
	struct merge_ladder builtin = ladder_of(3, (int[]){A, S, B}, (size_t[]){8 * M, 64 * M});
	struct merge_ladder fit = ladder_of(3, (int[]){A, C, S}, (size_t[]){4 * M, 32 * M});
	size_t sizes[5] = {M, 4 * M, 16 * M, 64 * M, 256 * M};
	/* 1 MiB agrees; the fit lost at 4 MiB (C against A) and 256 MiB (S
	 * against B), won at 16 MiB (C against S) and 64 MiB (S against B). */
	enum merge_owner owner[5] = {MERGE_AGREE, MERGE_BUILTIN, MERGE_FIT,
				     MERGE_FIT, MERGE_BUILTIN};
	struct merge_ladder out;
	int rc = ladder_merge(&fit, &builtin, sizes, owner, 5, 257, &out);
	/* A to 8 MiB (the built-in's, up to the midpoint of 4 and 16 MiB),
	 * then the fit's C to 32 MiB and S on to the midpoint of 64 and
	 * 256 MiB, then the built-in's B. */
	static const int want_v[4] = {A, C, S, B}, want_cal[4] = {0, 1, 1, 0};
	const size_t want_to[4] = {8 * M, 32 * M, 128 * M, SIZE_MAX};
	int ok = rc == 0 && out.count == 4;
	for (unsigned i = 0; ok && i < 4; i++)
		ok = out.variant[i] == want_v[i] && out.to[i] == want_to[i] &&
		     out.calibrated[i] == want_cal[i];
	t_check(ok, "merge: the fit where it won, split halfway to where it "
		"lost, the built-in ladder elsewhere", "rc %d, %u rungs: %d:%zu %d:%zu "
		"%d:%zu %d", rc, out.count, out.variant[0], out.to[0], out.variant[1],
		out.to[1], out.variant[2], out.to[2], out.variant[3]);

	enum merge_owner lost[5] = {MERGE_AGREE, MERGE_BUILTIN, MERGE_BUILTIN,
				    MERGE_BUILTIN, MERGE_BUILTIN};
	rc = ladder_merge(&fit, &builtin, sizes, lost, 5, 257, &out);
	t_check(rc == 0 && merge_same(&out, &builtin, 257) && !merge_same(&out, &fit, 257),
		"merge: nothing won, the built-in ladder whole", "rc %d, %u rungs",
		rc, out.count);
	enum merge_owner won[5] = {MERGE_FIT, MERGE_FIT, MERGE_FIT, MERGE_FIT,
				   MERGE_FIT};
	rc = ladder_merge(&fit, &builtin, sizes, won, 5, 257, &out);
	t_check(rc == 0 && merge_same(&out, &fit, 257),
		"merge: everything won, the fit whole", "rc %d, %u rungs", rc, out.count);

	/* Owners that switch at every size, over ladders of eight rungs
	 * each: more rungs than a ladder holds, so the built-in one stays. */
	size_t many[16];
	enum merge_owner flip[16];
	int v8[8], w8[8];
	size_t t8[7], u8[7];
	for (int i = 0; i < 16; i++) {
		many[i] = (size_t)1 << (12 + i);
		flip[i] = i % 2 ? MERGE_FIT : MERGE_BUILTIN;
	}
	for (int i = 0; i < 8; i++) {
		v8[i] = i % 2 ? A : C;
		w8[i] = i % 2 ? B : S;
		if (i < 7) {
			t8[i] = (size_t)3 << (12 + 2 * i);
			u8[i] = (size_t)1 << (13 + 2 * i);
		}
	}
	struct merge_ladder f8 = ladder_of(8, v8, t8), b8 = ladder_of(8, w8, u8);
	rc = ladder_merge(&f8, &b8, many, flip, 16, 257, &out);
	t_check(rc == -1 && merge_same(&out, &b8, 257) && !out.calibrated[0],
		"merge: more than eight rungs, the built-in ladder whole", "rc %d, %u rungs",
		rc, out.count);
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
	test_rounds();
	test_parallel_words();
	test_merge();
	test_fit();
	test_confidence();
	test_usage_errors();
	test_write_and_read_back();
	test_system();
	t_scratch_remove();
	return t_finish();
}
