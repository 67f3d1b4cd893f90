/* test_bench.c - "ntmem bench": option parsing, error exits, and the
 * JSON, CSV and SVG it writes.  Never asserts a timing. */
#include <dirent.h>
#include <fcntl.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/wait.h>
#include <unistd.h>

#include "bench/bench.h"
#include "measure/benchfn.h"
#include "output/cli.h"
#include "harness.h"
#include "measure/measure.h"

static struct bench_opts opts;


static size_t count_argv(char **argv)
{
	size_t n = 0;
	while (argv[n])
		n++;
	return n;
}

/* What the command does before measuring: parse, then plan.  0 or -1. */
static int parse_and_plan(int argc, char **argv, struct bench_opts *o,
			  struct cli_error *e)
{
	return bench_parse(argc, argv, o, e) || bench_plan(o, e) ? -1 : 0;
}

/* The functions these tests name, per architecture: a memset variant
 * every CPU of it runs, a memcpy variant, the default baseline of a
 * memcpy run (the best string variant, else glibc) and a zero-only
 * variant (none off x86-64 and AArch64). */
#if defined(__x86_64__)
#define SET_FN "stosq"
#define COPY_FN "movsb"
#define COPY_BASELINE "movsb"
#define ZERO_FN "clzero"
#elif defined(__aarch64__)
#define SET_FN "neon"
#define COPY_FN "neon"
#define COPY_BASELINE "glibc"
#define ZERO_FN "dc_zva"
#else
#define SET_FN "portable"
#define COPY_FN "portable"
#define COPY_BASELINE "glibc"
#endif

static void test_valid_options(void)
{
	char *argv[] = {"bench", "memset", "-s", "1MB,2MiB", "-f", SET_FN ",glibc," SET_FN,
			"-l", "2", "-r", "3", "-p", "2MB", "-k", "64KB",
			"--value", "0x5a", "--baseline", "glibc", "--cpu", "0",
			"--json", NULL};
	struct cli_error e;
	int parsed = parse_and_plan((int)count_argv(argv), argv, &opts, &e);
	int ok = !parsed && opts.op == NTMEM_OP_SET && opts.nsizes == 2 &&
		 opts.sizes[0] == (1u << 20) && opts.sizes[1] == (2u << 20) &&
		 opts.nfns == 2 && !strcmp(opts.fns[0].name, SET_FN) &&
		 !strcmp(opts.fns[1].name, "glibc") && opts.baseline == 1 &&
		 opts.loops == 2 && opts.runs == 3 && opts.pages == PAGES_2M &&
		 opts.chunk == 65536 && opts.value == 0x5a && opts.cpu == 0 &&
		 opts.json && !opts.csv;
	t_check(ok, "bench options: every option parsed", "op %d nsizes %zu nfns %zu "
		"baseline %ld loops %ld runs %ld chunk %zu value %d",
		opts.op, opts.nsizes, opts.nfns, opts.baseline, opts.loops,
		opts.runs, opts.chunk, opts.value);

	char *argv2[] = {"bench", "memcpy", "-f", "glibc", NULL};
	parsed = parse_and_plan(4, argv2, &opts, &e);
	/* The default baseline joins the run, in front; default sizes are
	 * either kept or skipped with a note, never dropped silently. */
	size_t size_skips = 0;
	for (size_t i = 0; i < opts.nskipped; i++)
		size_skips += strstr(opts.skipped[i].why, "memory") != NULL;
	t_check(!parsed && opts.op == NTMEM_OP_COPY &&
		opts.nfns == (strcmp(COPY_BASELINE, "glibc") ? 2u : 1u) &&
		!strcmp(opts.fns[0].name, COPY_BASELINE) && opts.baseline == 0 &&
		opts.nsizes + size_skips == 5 && opts.runs == 5 && opts.loops == 0 &&
		opts.value == -1 && opts.pages == PAGES_4K,
		"bench options: defaults", "nfns %zu baseline %ld nsizes %zu",
		opts.nfns, opts.baseline, opts.nsizes);

#ifdef ZERO_FN
	char *argv3[] = {"bench", "memset", "--value", "7", NULL};
	parsed = parse_and_plan(4, argv3, &opts, &e);
	int zero_kept = fn_find(opts.fns, opts.nfns, ZERO_FN) != NULL;
	int zero_noted = 0;
	for (size_t i = 0; i < opts.nskipped; i++)
		zero_noted |= !strcmp(opts.skipped[i].what, ZERO_FN) &&
				strstr(opts.skipped[i].why, "zeros only");
	struct ntmem_variant_info v;
	int id = ntmem_variant_find(NTMEM_OP_SET, ZERO_FN);
	ntmem_variant_info(id, &v);
	t_check(!parsed && !zero_kept && (zero_noted || !v.supported),
		"bench options: a zero-only function is skipped for --value 7",
		"kept %d noted %d", zero_kept, zero_noted);
#else
	t_skip("bench options: a zero-only function is skipped for --value 7",
	       "no zero-only variant on this architecture");
#endif
}

/* What cmd_bench does before measuring, in a child: its exit status and
 * what it printed. */
static int parse_in_child(char **argv, char *err, size_t len)
{
	int fds[2];
	if (pipe(fds))
		return -1;
	pid_t pid = fork();
	if (pid == 0) {
		close(fds[0]);
		dup2(fds[1], 2);
		int devnull = open("/dev/null", O_WRONLY);
		dup2(devnull, 1);
		static struct bench_opts child;
		struct cli_error e;
		if (parse_and_plan((int)count_argv(argv), argv, &child, &e) ||
		    bench_pin(&child, &e))
			cli_exit(&e);
		_exit(0);
	}
	close(fds[1]);
	size_t got = 0;
	ssize_t n;
	while ((n = read(fds[0], err + got, len - 1 - got)) > 0)
		got += (size_t)n;
	err[got] = '\0';
	close(fds[0]);
	int status;
	waitpid(pid, &status, 0);
	return WIFEXITED(status) ? WEXITSTATUS(status) : -1;
}

static void test_bad_options(void)
{
	static const struct {
		char *argv[10];
		const char *must_say;
	} cases[] = {
		{{"bench", NULL}, "memset"},
		{{"bench", "memmove", NULL}, "unknown benchmark"},
		{{"bench", "memset", "-f", "nosuch", NULL}, "--function: unknown function 'nosuch'"},
		{{"bench", "memset", "-f", SET_FN ",,glibc", NULL}, "--function: empty"},
		{{"bench", "memset", "-s", "12Q", NULL}, "--size: '12Q'"},
		{{"bench", "memset", "-s", "1MB,,2MB", NULL}, "--size: empty"},
		{{"bench", "memset", "-s", "0", NULL}, "--size"},
		{{"bench", "memset", "-s", "99999999999999999999", NULL}, "too large"},
		{{"bench", "memset", "-s", "4TB", NULL}, "--size: 4 TiB: needs"},
		{{"bench", "memset", "-s", "1MB", "-k", "2MB", NULL}, "--chunk"},
		{{"bench", "memset", "-p", "3MB", NULL}, "--page: '3MB'"},
		{{"bench", "memset", "-r", "0", NULL}, "--runs"},
		{{"bench", "memset", "-l", "x", NULL}, "--nr_loops"},
		{{"bench", "memset", "--value", "256", NULL}, "--value"},
		{{"bench", "memset", "--value", "-1", NULL}, "--value"},
		{{"bench", "memset", "--baseline", "nosuch", NULL}, "--baseline"},
		{{"bench", "memset", "--json", "--csv", NULL}, "--json and --csv"},
		{{"bench", "memset", "--bogus", NULL}, "unknown option '--bogus'"},
		{{"bench", "memset", "-s", NULL}, "needs a value"},
		{{"bench", "memset", "--cpu", "4000", NULL}, "--cpu"},
		{{"bench", "memset", "--cpu", "1023", NULL}, "(this process may use CPU"},
		{{"bench", "memset", "extra", NULL}, "unexpected argument 'extra'"},
		{{"bench", "memset", "--threads", "0", NULL}, "--threads: 0 is out of range"},
		{{"bench", "memset", "--threads", "2,x", NULL}, "--threads: 'x'"},
		{{"bench", "memset", "--threads", "1,,2", NULL}, "--threads: empty"},
		{{"bench", "memset", "-x5", NULL}, "unknown option '-x'"},
		{{"bench", "memset", "--value", " -5", NULL}, "--value: ' -5'"},
		{{"bench", "memset", "-s", "18446744073709551615", "-f", SET_FN, NULL},
		 "--size: 16777216.0 TiB: needs"},
		{{"bench", "memcpy", "-s", "8388608TB", NULL}, "--size: 8388608 TiB: needs"},
#ifdef ZERO_FN
		/* zero-only (or, off AMD, unsupported) baseline with a value */
		{{"bench", "memset", "-f", SET_FN, "--baseline", ZERO_FN, "--value", "1",
		  NULL}, "--baseline: " ZERO_FN},
#endif
	};
	for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
		char err[1024], name[160];
		int status = parse_in_child((char **)cases[i].argv, err, sizeof err);
		snprintf(name, sizeof name, "bench error exit 2: %s", cases[i].must_say);
		t_check(status == 2 && strstr(err, cases[i].must_say) &&
			strstr(err, "ntmem bench: "), name,
			"status %d, stderr: %s", status, err);
	}
}

/* name is one of the candidates the learning may run for a call of op
 * and size bytes of zeros (the bench process learns on its own calls). */
static int learned_side(enum ntmem_op op, size_t size, const char *name)
{
	struct ntmem_adapt_info ai;
	struct ntmem_variant_info v;
	ntmem_adapt_info(op == NTMEM_OP_COPY ? NTMEM_CLASS_COPY : NTMEM_CLASS_SET_ZERO,
			 &ai);
	for (int i = 0; i < ai.nbands; i++) {
		const struct ntmem_adapt_band *b = &ai.band[i];
		if (size < b->from || size >= b->to)
			continue;
		for (int k = 0; k < b->nsides; k++)
			if (!ntmem_variant_info(b->side[k], &v) && !strcmp(v.name, name))
				return 1;
	}
	return 0;
}

static void check_result_fields(const struct t_json *r, const char *op,
				size_t runs, int *bad, char *why, size_t len)
{
	static const char *const nums[] = {"size", "runs", "gbps_mean",
					   "gbps_stdev", "gbps_median",
					   "gbps_min", "gbps_max"};
	const struct t_json *o = t_json_get(r, "op"), *f = t_json_get(r, "function"),
			    *nt = t_json_get(r, "nontemporal");
	if (!o || o->type != TJ_STRING || strcmp(o->string, op) || !f ||
	    f->type != TJ_STRING || !nt ||
	    (nt->type != TJ_BOOL && !(nt->type == TJ_NULL && !strcmp(f->string, "glibc")))) {
		*bad = 1;
		snprintf(why, len, "bad op/function/nontemporal");
		return;
	}
	for (size_t i = 0; i < sizeof nums / sizeof nums[0]; i++) {
		const struct t_json *n = t_json_get(r, nums[i]);
		int stdev = !strcmp(nums[i], "gbps_stdev");
		if (!n || n->type != TJ_NUMBER ||
		    !(stdev ? n->number >= 0 : n->number > 0)) {
			*bad = 1;
			snprintf(why, len, "%s: %s is not a positive number",
				 f->string, nums[i]);
			return;
		}
	}
	double lo = t_json_get(r, "gbps_min")->number,
	       mid = t_json_get(r, "gbps_median")->number,
	       hi = t_json_get(r, "gbps_max")->number;
	if (!(lo <= mid && mid <= hi) || t_json_get(r, "runs")->number != (double)runs) {
		*bad = 1;
		snprintf(why, len, "%s: min/median/max out of order or runs wrong",
			 f->string);
	}
	/* auto says which variant its size dispatched to: the one the
	 * library names for that call (the test process has the same
	 * policy: NTMEM_PROFILE=none, no tunables). */
	enum ntmem_op eop = strcmp(op, "memset") ? NTMEM_OP_COPY : NTMEM_OP_SET;
	const struct t_json *dispatch = t_json_get(r, "dispatch");
	if (!strcmp(f->string, "auto")) {
		struct ntmem_variant_info d;
		size_t size = (size_t)t_json_get(r, "size")->number;
		int want = ntmem_policy_choice(eop, 0, size, 0);
		const char *name = want == NTMEM_SMALL_PATH ? "small path"
				   : ntmem_variant_info(want, &d) ? "?" : d.name;
		if (!dispatch || dispatch->type != TJ_STRING ||
		    (strcmp(dispatch->string, name) &&
		     !learned_side(eop, size, dispatch->string))) {
			*bad = 1;
			snprintf(why, len, "auto: dispatch %s, want %s",
				 dispatch ? dispatch->string : "missing", name);
		}
	} else if (dispatch) {
		*bad = 1;
		snprintf(why, len, "%s has a dispatch field", f->string);
	}
	/* noisy: the sample stdev over 5% of the median, from the row's
	 * own figures (a tie at the limit is not judged). */
	const struct t_json *noisy = t_json_get(r, "noisy");
	double sd = t_json_get(r, "gbps_stdev")->number;
	if (!noisy || noisy->type != TJ_BOOL ||
	    (fabs(sd - 0.05 * mid) > 1e-6 * mid && noisy->boolean != (sd > 0.05 * mid))) {
		*bad = 1;
		snprintf(why, len, "%s: noisy %s with stdev %g, median %g", f->string,
			 noisy ? noisy->boolean ? "true" : "false" : "missing", sd, mid);
	}
	/* A streaming variant always reports nontemporal true. */
	struct ntmem_variant_info v;
	int id = ntmem_variant_find(eop, f->string);
	if (id >= 0 && ntmem_variant_info(id, &v) == 0 &&
	    nt->type == TJ_BOOL && nt->boolean != v.streaming) {
		*bad = 1;
		snprintf(why, len, "%s: nontemporal is %d", f->string, nt->boolean);
	}
}

static void test_json(const char *op)
{
	char cmd[256], name[96], why[256] = "";
	snprintf(cmd, sizeof cmd, "%s bench %s -s 64KB,1MB -r 2 --json", t_ntmem(), op);
	char *out = NULL;
	int status = t_run(cmd, &out, NULL);
	char err[160];
	struct t_json *j = t_json_parse(out, err, sizeof err);
	snprintf(name, sizeof name, "bench %s --json is valid JSON", op);
	t_check(status == 0 && j != NULL, name, "status %d: %s", status,
		j ? "" : err);

	int bad = !j;
	const struct t_json *results = t_json_get(j, "results");
	struct fn all[FN_MAX];
	size_t nall = fn_list(strcmp(op, "memset") ? NTMEM_OP_COPY : NTMEM_OP_SET,
			      all, FN_MAX);
	size_t supported = 0;
	for (size_t i = 0; i < nall; i++)
		supported += all[i].supported;
	if (!results || results->type != TJ_ARRAY ||
	    results->count != 2 * supported) {
		bad = 1;
		snprintf(why, sizeof why, "%zu results, want %zu",
			 results ? results->count : 0, 2 * supported);
	}
	for (size_t i = 0; !bad && i < results->count; i++)
		check_result_fields(&results->items[i], op, 2, &bad, why, sizeof why);
	const struct t_json *m = t_json_get(j, "machine");
	if (!bad && (!t_json_get(m, "cpu") || !t_json_get(m, "kernel") ||
		     !t_json_get(m, "thp") || !t_json_get(j, "skipped"))) {
		bad = 1;
		snprintf(why, sizeof why, "machine facts or skipped missing");
	}
	snprintf(name, sizeof name, "bench %s --json has every field", op);
	t_check(!bad, name, "%s", why);
	t_json_free(j);
	free(out);
}

/* The table of made-up results: "~" and its footnote on the noisy row
 * alone, and the summary's ranges and auto against glibc.  The figures:
 *            glibc          SET_FN         auto
 *   1 MiB    10 +- 0.1      20 +- 0.1      20 +- 0.1   (auto +100%)
 *   2 MiB    10 +- 0.1      21 +- 0.2      10.05 +- 0.1 (level)
 *   4 MiB    30 +- 3 (10%)  10 +- 0.1      15 +- 0.1   (auto -50%) */
static const double made_up_mean[3][3] = {{10, 20, 20}, {10, 21, 10.05},
					  {30, 10, 15}};
static const double made_up_sd[3][3] = {{0.1, 0.1, 0.1}, {0.1, 0.2, 0.1},
					{3, 0.1, 0.1}};

/* The table bench prints for the nfns functions of fns (comma-separated,
 * auto last) at 1, 2 and 4 MiB, means and stdevs mean[size][function],
 * over runs runs; auto ran "small path" at 1 MiB, SET_FN above. */
static const char *made_up(const char *fns, size_t nfns, const double *mean,
			   const double *sd, long runs)
{
	static char text[16384];
	char list[128];
	snprintf(list, sizeof list, "%s", fns);
	char *argv[] = {"bench", "memset", "-s", "1MB,2MB,4MB", "-f", list,
			"--baseline", "glibc", NULL};
	struct cli_error e;
	if (parse_and_plan((int)count_argv(argv), argv, &opts, &e) || opts.nfns != nfns)
		return "";
	opts.runs = runs;
	opts.nresults = 0;
	for (size_t si = 0; si < 3; si++)
		for (size_t fi = 0; fi < nfns; fi++) {
			struct bench_result *r = &opts.results[opts.nresults++];
			double m = mean[si * nfns + fi];
			memset(r, 0, sizeof *r);
			r->fn = &opts.fns[fi];
			r->size = opts.sizes[si];
			r->threads = 1;
			r->nontemporal = opts.fns[fi].kind == FN_LIBC ? -1 : 0;
			r->stats = (struct stats){m, sd[si * nfns + fi], m, m, m};
			r->diff_pct = (m / mean[si * nfns] - 1) * 100;
			if (opts.fns[fi].kind == FN_AUTO)
				r->dispatch = si == 0 ? "small path" : SET_FN;
			snprintf(r->pages, sizeof r->pages, "4 KiB pages");
		}
	struct machine m = {.cpu = "Made-up CPU", .kernel = "Linux", .thp = "never",
			    .online_cpus = 1};
	FILE *tmp = tmpfile();
	if (!tmp)
		return "";
	fflush(stdout);
	int saved = dup(STDOUT_FILENO);
	dup2(fileno(tmp), STDOUT_FILENO);
	bench_print_table(&opts, &m);
	fflush(stdout);
	dup2(saved, STDOUT_FILENO);
	close(saved);
	rewind(tmp);
	size_t n = fread(text, 1, sizeof text - 1, tmp);
	text[n] = '\0';
	fclose(tmp);
	return text;
}

/* s from its "# summary" on, each line the summary wrapped (a "#" and
 * ten spaces or more) joined to the one before, so that what it says is
 * matched whatever the width; "" when s has no summary. */
static const char *from_summary(const char *s)
{
	static char flat[16384];
	const char *from = strstr(s, "\n# summary");
	size_t n = 0;
	for (const char *p = from; p && *p && n + 1 < sizeof flat; p++) {
		size_t spaces = 0;
		if (p[0] == '\n' && p[1] == '#')
			while (p[2 + spaces] == ' ')
				spaces++;
		if (spaces >= 10) {
			flat[n++] = ' ';
			p += 1 + spaces;
		} else {
			flat[n++] = *p;
		}
	}
	flat[n] = '\0';
	return flat;
}

/* The same for glibc, SET_FN and auto. */
static const char *made_up_table(const double (*mean)[3], const double (*sd)[3],
				 long runs)
{
	return made_up("glibc," SET_FN ",auto", 3, &mean[0][0], &sd[0][0], runs);
}

static void test_table_noise_and_summary(void)
{
	const char *t = made_up_table(made_up_mean, made_up_sd, 5);
	t_check(strstr(t, "     30.00~ (+-  3.00)") && strstr(t, "     10.00  (+-  0.10)") &&
		strstr(t, "# ~ noisy: the runs' stdev is over 5% of their median"),
		"bench table: the noisy row marked ~, with the footnote", "%s", t);
	int marks = 0;
	for (const char *p = t; (p = strstr(p, "~ (+-")); p++)
		marks++;
	t_check(strstr(t, "\n# cpu       Made-up CPU, 1 online,") &&
		strstr(t, "\n# pages     4 KiB requested, 4 KiB pages\n"),
		"bench table: the header's CPU and pages, one spelling", "%s", t);
	t_check(marks == 1, "bench table: only the noisy row is marked",
		"%d marks", marks);
	const char *sum = from_summary(t);
	/* At 4 MiB glibc's row is noisy, but it leads beyond the stdevs. */
	t_check(sum && strstr(sum, "\n# memset, 0x00 written\n") &&
		strstr(sum, "#   1 MiB to 2 MiB         " SET_FN ", cached\n") &&
		strstr(sum, "#   4 MiB                  glibc\n"),
		"bench summary: the fastest method over each range of sizes, a "
		"lead beyond the stdevs ranked though noisy", "%s", sum ? sum : t);
	t_check(sum && strstr(sum, "#   auto against glibc: faster at 1 MiB (+100.0%); "
			      "level at 2 MiB (+0.5%); slower at 4 MiB (-50.0%)\n"),
		"bench summary: auto against glibc, faster, level and slower", "%s",
		sum ? sum : t);
	t_check(sum && strstr(sum, "\"too noisy to rank\" (or, of auto against "
			      "glibc, \"to tell\"):\n#   a row of the tie is marked ~"),
		"bench summary: its header states the rule for too noisy", "%s",
		sum ? sum : t);
	t_check(!strstr(t, "n/a") && strstr(t, "mean and sample stdev of 5 runs"),
		"bench table: five runs have a stdev", "%s", t);
	/* Every function of the table described under it, before the
	 * summary. */
	const char *key = strstr(t, "\n# functions (ntmem bench memset -f help");
	const char *sum_at = strstr(t, "\n# summary");
	t_check(key && sum_at && key < sum_at && strstr(key, "\n#   glibc          the C library's memset\n") &&
		strstr(key, "\n#   auto           ntmem_set: ") &&
		strstr(key, "\n#   " SET_FN),
		"bench table: a line under it says what each function is", "%s", t);
}

/* A second variant beside SET_FN, for summaries of three methods. */
#if defined(__x86_64__) || defined(__aarch64__)
#define SET_FN2 "portable"
#endif

/* Every method level with the fastest is named, fastest first; a size
 * where the fastest is level with another and a row of the two is noisy
 * is "too noisy to rank"; a noisy row behind the fastest beyond the
 * stdevs is not.  Of auto against glibc, level with a noisy row is "too
 * noisy to tell".  The figures (glibc, SET_FN, SET_FN2, auto):
 *   1 MiB  100 +- 4, 95 +- 2, 97 +- 1, 96 +- 1: both level, none noisy
 *   2 MiB  87.11 +- 13.71 (noisy), 80 +- 10, 60 +- 1, 85 +- 12: SET_FN
 *          level, auto level with glibc, both noisy
 *   4 MiB  100 +- 1, 50 +- 6 (noisy), 60 +- 1, 70 +- 1: glibc alone */
static void test_summary_level_and_noise(void)
{
#ifdef SET_FN2
	const double mean[3][4] = {{100, 95, 97, 96}, {87.11, 80, 60, 85},
				   {100, 50, 60, 70}};
	const double sd[3][4] = {{4, 2, 1, 1}, {13.71, 10, 1, 12}, {1, 6, 1, 1}};
	const char *t = made_up("glibc," SET_FN "," SET_FN2 ",auto", 4, &mean[0][0],
				&sd[0][0], 5);
	const char *sum = from_summary(t);
	t_check(sum && strstr(sum, "#   1 MiB                  glibc; level with it: "
			      SET_FN2 ", " SET_FN "\n"),
		"bench summary: every method level with the fastest, fastest first",
		"%s", sum ? sum : t);
	t_check(sum && strstr(sum, "#   2 MiB                  too noisy to rank; by "
			      "mean: glibc; level with it: " SET_FN "\n"),
		"bench summary: a noisy fastest row: too noisy to rank, the level "
		"ones still named", "%s", sum ? sum : t);
	t_check(sum && strstr(sum, "#   4 MiB                  glibc\n"),
		"bench summary: a noisy row behind the fastest leaves it ranked",
		"%s", sum ? sum : t);
	t_check(sum && strstr(sum, "#   auto against glibc: level at 1 MiB (-4.0%); too "
			      "noisy to tell at 2 MiB (-2.4%); slower at 4 MiB "
			      "(-30.0%)\n"),
		"bench summary: auto level with glibc, and a noisy row: too noisy "
		"to tell", "%s", sum ? sum : t);
	/* A row level with the fastest, noisy: the tie may be noise. */
	const double mean2[3][4] = {{100, 99, 60, 70}, {100, 99, 60, 70},
				    {100, 99, 60, 70}};
	const double sd2[3][4] = {{1, 6, 1, 1}, {1, 6, 1, 1}, {1, 6, 1, 1}};
	t = made_up("glibc," SET_FN "," SET_FN2 ",auto", 4, &mean2[0][0],
		    &sd2[0][0], 5);
	sum = from_summary(t);
	t_check(sum && strstr(sum, "#   1 MiB to 4 MiB         too noisy to rank; by "
			      "mean: glibc; level with it: " SET_FN "\n"),
		"bench summary: a noisy row level with the fastest: too noisy to "
		"rank", "%s", sum ? sum : t);
#else
	t_skip("bench summary: every method level with the fastest",
	       "one variant of memset on this architecture");
#endif
}

/* Fewer runs than BENCH_MIN_JUDGED_RUNS: no spread to judge by, so the
 * summary ranks nothing and claims nothing: the highest mean, and auto
 * against glibc in figures; one run's stdev reads n/a.  From enough
 * runs, auto ahead of every method beyond their stdevs is named beside
 * the fastest (its small path at 1 MiB, 30 against 20), and auto ahead
 * running the fastest method itself is said to be no faster method. */
static void test_few_runs_and_auto_ahead(void)
{
	const double nan3[3][3] = {{NAN, NAN, NAN}, {NAN, NAN, NAN}, {NAN, NAN, NAN}};
	const double tight[3][3] = {{0.1, 0.1, 0.1}, {0.1, 0.1, 0.1}, {0.1, 0.1, 0.1}};
	const double mean[3][3] = {{10, 20, 30}, {10, 20, 25}, {30, 10, 15}};
	const char *t = made_up_table(mean, nan3, 1);
	int na = 0;
	for (const char *p = t; (p = strstr(p, "(+-   n/a)")); p++)
		na++;
	t_check(na == 9 && !strstr(t, "0.00)") && strstr(t, "of 1 run (a stdev needs two"),
		"bench table: one run's stdev reads n/a, every row", "%d n/a\n%s", na, t);
	for (long runs = 1; runs < BENCH_MIN_JUDGED_RUNS; runs++) {
		char name[96];
		t = made_up_table(mean, runs == 1 ? nan3 : tight, runs);
		const char *sum = from_summary(t);
		snprintf(name, sizeof name, "bench summary of %ld run%s: too few to "
			 "rank, the highest mean and figures only", runs,
			 runs == 1 ? "" : "s");
		t_check(sum && strstr(sum, "too few to rank or compare") &&
			strstr(sum, "#   1 MiB to 2 MiB         highest mean: " SET_FN
				    ", cached\n") &&
			strstr(sum, "#   4 MiB                  highest mean: glibc\n") &&
			strstr(sum, "#   auto against glibc, not judged: +200.0% at "
				    "1 MiB, +150.0% at 2 MiB, -50.0% at 4 MiB\n") &&
			!strstr(sum, "faster") && !strstr(sum, "level") &&
			!strstr(sum, "slower") && !strstr(sum, "noisy"),
			name, "%s", sum ? sum : t);
	}
	t = made_up_table(mean, tight, BENCH_MIN_JUDGED_RUNS);
	const char *sum = from_summary(t);
	t_check(sum && strstr(sum, "#   1 MiB                  " SET_FN ", cached; auto "
			      "faster still (+50.0%, running the small path)\n") &&
		strstr(sum, "#   2 MiB                  " SET_FN ", cached; auto "
			    "measured +25.0%, running " SET_FN " itself: a difference "
			    "of conditions, not of method\n") &&
		strstr(sum, "#   4 MiB                  glibc\n") &&
		strstr(sum, "auto is not ranked"),
		"bench summary: auto named where it beats every method, with "
		"what it ran; running the fastest itself, no faster method", "%s",
		sum ? sum : t);
}

/* --threads 1,2: every function on each, interleaved, with the count in
 * the JSON; bytes right whatever the split (the run checks nothing, so
 * only the shape is asserted here; test_parallel checks the bytes). */
static void test_threads(void)
{
	char cmd[256], err[160], *out = NULL, *msg = NULL, want[96];
	struct ntmem_parallel_info pi;
	ntmem_parallel_info(&pi);
	/* More threads than CPUs: refused, naming the option and the count. */
	unsigned over = pi.cpus_allowed + 1;
	snprintf(cmd, sizeof cmd, "%s bench memset -s 64KB -f glibc --threads 1,%u "
		 "-r 1", t_ntmem(), over);
	snprintf(want, sizeof want, "--threads: %u is more than the %u CPUs this "
		 "process may use", over, pi.cpus_allowed);
	int status = over > 64 ? 2 : t_run(cmd, &out, &msg);
	if (over > 64)
		t_skip("bench --threads above the CPUs: exit 2", "more than 64 CPUs: "
		       "--threads takes at most 64");
	else
		t_check(status == 2 && msg && strstr(msg, want) && out && !*out,
			"bench --threads above the CPUs: exit 2, naming both counts",
			"status %d, '%s'", status, msg ? msg : "");
	free(out);
	free(msg);
	out = NULL;
	if (pi.cpus_allowed < 2) {
		t_skip("bench --threads 1,2: each function on each count",
		       "this process may use one CPU only");
		return;
	}
	snprintf(cmd, sizeof cmd, "%s bench memset -s 9MB -f auto,glibc "
		 "--threads 1,2 -r 1 -l 1 --json", t_ntmem());
	status = t_run(cmd, &out, NULL);
	struct t_json *j = t_json_parse(out, err, sizeof err);
	const struct t_json *rs = t_json_get(j, "results");
	/* auto, glibc and the baseline the run may add, each on 1 and 2 */
	int ok = status == 0 && rs && rs->type == TJ_ARRAY &&
		 (rs->count == 4 || rs->count == 6);
	unsigned seen = 0;
	for (size_t i = 0; ok && i < rs->count; i++) {
		const struct t_json *t = t_json_get(&rs->items[i], "threads");
		ok &= t && t->type == TJ_NUMBER && (t->number == 1 || t->number == 2);
		if (ok)
			seen |= 1u << (unsigned)t->number;
	}
	t_check(ok && seen == 6, "bench --threads 1,2: each function on each count, "
		"threads in the JSON", "status %d %s", status, j ? "" : err);
	t_json_free(j);
	free(out);
}

static void test_csv(void)
{
	char cmd[256];
	snprintf(cmd, sizeof cmd, "%s bench memcpy -s 64KB -r 2 -f " COPY_FN ",glibc,auto --csv",
		 t_ntmem());
	char *out = NULL;
	int status = t_run(cmd, &out, NULL);
	const char *header = "op,function,nontemporal,size,runs,gbps_mean,gbps_stdev,"
			     "gbps_median,gbps_min,gbps_max,diff_pct,pages\n";
	int ok = status == 0 && !strncmp(out, header, strlen(header));
	size_t rows = 0;
	char why[200] = "";
	for (char *line = ok ? strchr(out, '\n') + 1 : NULL; ok && line && *line;
	     line = strchr(line, '\n') ? strchr(line, '\n') + 1 : NULL) {
		char op[16], fn[32], nt[8] = "";
		size_t size;
		long runs;
		double v[6];
		/* nontemporal is empty where glibc's thresholds are not known
		 * (they are read on x86 only), as JSON's null. */
		int at = 0, nt_at = 0, n = sscanf(line, "%15[^,],%31[^,],%n", op, fn, &at);
		if (n == 2 && line[at] != ',' && sscanf(line + at, "%7[^,]%n", nt, &nt_at) == 1)
			n++;
		else if (n == 2 && !strcmp(fn, "glibc"))
			n++;
		n += sscanf(line + at + nt_at, ",%zu,%ld,%lf,%lf,%lf,%lf,%lf,%lf,\"",
			    &size, &runs, &v[0], &v[1], &v[2], &v[3], &v[4], &v[5]);
		if (n != 11 || strcmp(op, "memcpy") || size != 65536 || runs != 2 ||
		    (strcmp(nt, "true") && strcmp(nt, "false") && nt[0]) || !(v[0] > 0)) {
			ok = 0;
			snprintf(why, sizeof why, "bad row: %.80s", line);
		}
		rows++;
	}
	t_check(ok && rows == 3, "bench --csv: header and one row per function",
		"status %d, %zu rows; %s", status, rows, why);
	free(out);
}

static int leftover_tmp(const char *dir, const char *stem)
{
	DIR *d = opendir(dir);
	int found = 0;
	struct dirent *e;
	while (d && (e = readdir(d)))
		found |= !strncmp(e->d_name, stem, strlen(stem));
	if (d)
		closedir(d);
	return found;
}

static void test_plot_and_errors(void)
{
	char dir[] = "/tmp/ntmem-bench-test-XXXXXX";
	if (!mkdtemp(dir)) {
		t_fail("bench --plot", "mkdtemp failed");
		return;
	}
	char cmd[512], path[256], *out = NULL, *err = NULL;
	snprintf(path, sizeof path, "%s/bw.svg", dir);
	snprintf(cmd, sizeof cmd, "%s bench memset -s 64KB,256KB -r 2 -f " SET_FN ",glibc,auto --plot %s",
		 t_ntmem(), path);
	int status = t_run(cmd, &out, NULL);
	FILE *f = fopen(path, "r");
	char svg[65536] = "";
	size_t len = f ? fread(svg, 1, sizeof svg - 1, f) : 0;
	svg[len] = '\0';
	if (f)
		fclose(f);
	t_check(status == 0 && strstr(svg, "<svg") && strstr(svg, "</svg>") &&
		strstr(svg, SET_FN) && strstr(svg, "glibc") && strstr(svg, "auto") &&
		strstr(out, SET_FN),
		"bench --plot writes an SVG naming every function", "status %d, %zu bytes",
		status, len);
	size_t lines = 0, bars = 0;
	for (const char *p = svg; (p = strstr(p, "<title>")); p++)
		lines++;
	for (const char *p = svg; (p = strstr(p, "stroke-opacity=\"0.7\"")); p++)
		bars++;
	/* Three functions (and the baseline the run may add), then auto over
	 * glibc in the panel below with glibc's band, which has no bars. */
	t_check(bars >= 4 && lines == bars + 1 &&
		strstr(svg, "bars: the slowest run to the fastest") &&
		strstr(svg, ">memset: auto against glibc<") &&
		strstr(svg, "<title>auto / glibc</title>"),
		"bench --plot: bars on every line, the caption says what they span, "
		"and a panel of auto over glibc", "%zu lines, %zu with bars", lines, bars);
	const char *a = strstr(svg, "<title>auto</title>");
	const char *g = strstr(svg, "<title>glibc</title>");
	t_check(a && g && strstr(a, "stroke=\"#000000\" stroke-width=\"3.4\"") &&
		strstr(g, "stroke=\"#d62728\" stroke-width=\"3.4\"") &&
		strstr(svg, ">64 KiB</text>") && strstr(svg, ">256 KiB</text>") &&
		!strstr(svg, ">128 KiB</text>"),
		"bench --plot: auto black and glibc red, both wide, in every plot; "
		"ticks at the sizes measured", "auto %d glibc %d", !!a, !!g);
	free(out);
	out = NULL;

	/* An error leaves no file behind, not even a temporary one. */
	snprintf(path, sizeof path, "%s/never.svg", dir);
	snprintf(cmd, sizeof cmd, "%s bench memset -s 64KB,12Q --plot %s", t_ntmem(), path);
	status = t_run(cmd, &out, &err);
	t_check(status == 2 && access(path, F_OK) != 0 && !leftover_tmp(dir, "never") &&
		strstr(err, "--size") && out[0] == '\0',
		"bench error: exit 2, nothing on stdout, no plot file", "status %d, err %s",
		status, err);
	free(out);
	free(err);

	snprintf(cmd, sizeof cmd, "%s bench memset -s 64KB --plot /nonexistent/dir/x.svg",
		 t_ntmem());
	status = t_run(cmd, &out, &err);
	t_check(status == 2 && strstr(err, "--plot"), "bench --plot to an unwritable path: exit 2",
		"status %d, err %s", status, err);
	free(out);
	free(err);

	snprintf(cmd, sizeof cmd, "rm -rf %s", dir);
	if (system(cmd))
		t_fail("cleanup", "%s", cmd);
}

/* s as SVG text holds it: the five characters XML escapes, escaped. */
static const char *xml_escaped(const char *s, char *buf, size_t len)
{
	size_t n = 0;
	for (; *s && n + 7 < len; s++) {
		const char *e = *s == '&' ? "&amp;" : *s == '<' ? "&lt;" : *s == '>' ? "&gt;"
				: *s == '"' ? "&quot;" : *s == '\'' ? "&apos;" : NULL;
		if (e) {
			memcpy(buf + n, e, strlen(e));
			n += strlen(e);
		} else {
			buf[n++] = *s;
		}
	}
	buf[n] = '\0';
	return buf;
}

/* The styles of the polylines of one line of the plot, the group whose
 * title is at t: "colour dash" each (dash "-" when solid), at most two
 * (solid and dashed stretches); returns how many. */
static size_t line_styles(const char *t, char styles[2][48])
{
	const char *end = strstr(t + 1, "<g");  /* its bars, or the next line */
	const char *close = strstr(t, "</g>");
	if (!end || (close && close < end))
		end = close;
	size_t n = 0;
	for (const char *p = strstr(t, "<polyline"); p && (!end || p < end) && n < 2;
	     p = strstr(p + 1, "<polyline")) {
		char c[16] = "", d[24] = "-", style[48];
		const char *st = strstr(p, " stroke=\""), *da = strstr(p, " stroke-dasharray=\"");
		const char *gt = strchr(p, '>');
		if (st && st < gt)
			sscanf(st, " stroke=\"%15[^\"]", c);
		if (da && da < gt)
			sscanf(da, " stroke-dasharray=\"%23[^\"]", d);
		snprintf(style, sizeof style, "%s %s", c, d);
		if (!n || strcmp(styles[0], style))
			snprintf(styles[n++], sizeof styles[0], "%s", style);
	}
	return n;
}

/* Every function bench can show for op, the peers included whether they
 * run here or not, plotted at two sizes (auto and glibc streaming at the
 * second only): no two lines share a colour and dash, and the key under
 * the plot says what each function is. */
static void test_plot_every_function(enum ntmem_op op)
{
	const char *opname = op == NTMEM_OP_SET ? "memset" : "memcpy";
	memset(&opts, 0, sizeof opts);
	opts.op = op;
	opts.runs = 1;
	opts.value = op == NTMEM_OP_SET ? 0 : -1;
	opts.nfns = fn_list_peers(op, opts.fns, fn_list(op, opts.fns, FN_MAX), FN_MAX);
	opts.threads[0] = 1;
	opts.nthreads = 1;
	for (size_t si = 0; si < 2; si++)
		for (size_t fi = 0; fi < opts.nfns; fi++) {
			struct bench_result *r = &opts.results[opts.nresults++];
			const struct fn *f = &opts.fns[fi];
			double mean = 10 + (double)fi + (double)si;
			*r = (struct bench_result){.fn = f, .size = si ? 1u << 30 : 4096,
						   .threads = 1, .loops = 1};
			r->nontemporal = f->streaming ? 1 : f->kind == FN_VARIANT ? 0 : (int)si;
			r->stats = (struct stats){mean, NAN, mean, mean, mean};
			r->dispatch = f->kind == FN_AUTO ? "small path" : NULL;
			snprintf(r->pages, sizeof r->pages, "4 KiB pages");
		}
	struct machine m = {.cpu = "Made-up CPU", .kernel = "Linux", .thp = "never"};
	char *svg = NULL, name[128], why[256] = "";
	size_t len = 0;
	FILE *f = open_memstream(&svg, &len);
	int rc = f ? bench_write_plot(&opts, &m, f) : -1;
	if (f)
		fclose(f);
	char styles[FN_MAX][2][48], esc[512];
	size_t nstyles[FN_MAX] = {0};
	const char *panel2 = svg ? strstr(svg, "<g transform=") : NULL;
	int ok = rc == 0 && svg && panel2;
	for (size_t fi = 0; ok && fi < opts.nfns; fi++) {
		char title[96];
		snprintf(title, sizeof title, "<g>\n<title>%s</title>",
			 xml_escaped(opts.fns[fi].name, esc, sizeof esc));
		const char *t = strstr(svg, title);
		nstyles[fi] = t && t < panel2 ? line_styles(t, styles[fi]) : 0;
		if (!nstyles[fi]) {
			ok = 0;
			snprintf(why, sizeof why, "no line for %s", opts.fns[fi].name);
		}
		for (size_t j = 0; ok && j < fi; j++)
			for (size_t a = 0; a < nstyles[fi]; a++)
				for (size_t b = 0; b < nstyles[j]; b++)
					if (!strcasecmp(styles[fi][a], styles[j][b])) {
						ok = 0;
						snprintf(why, sizeof why, "%s and %s: %s",
							 opts.fns[j].name, opts.fns[fi].name,
							 styles[fi][a]);
					}
	}
	snprintf(name, sizeof name, "bench --plot, every %s function (%zu): no two "
		 "lines share a colour and dash", opname, opts.nfns);
	t_check(ok && opts.nfns >= 8, name, "rc %d: %s", rc, why);
	/* The key: each function's name, then its description. */
	ok = rc == 0 && svg;
	for (size_t fi = 0; ok && fi < opts.nfns; fi++) {
		char row[96];
		snprintf(row, sizeof row, ">%s</text>", xml_escaped(opts.fns[fi].name, esc,
								    sizeof esc));
		const char *at = panel2 ? strstr(panel2, row) : NULL;
		snprintf(row, sizeof row, ">%.80s", xml_escaped(opts.fns[fi].description,
								esc, sizeof esc));
		const char *next = at ? strstr(at + 1, "<text") : NULL;
		ok = at && next && strstr(next, row) == strchr(next, '>');
		if (!ok)
			snprintf(why, sizeof why, "%s: no key row", opts.fns[fi].name);
	}
	snprintf(name, sizeof name, "bench --plot, every %s function: the key says "
		 "what each is", opname);
	t_check(ok, name, "%s", why);
	free(svg);
}

/* The --mix table says what its functions are too, from the function
 * list's own descriptions. */
static void test_mix_key(void)
{
	char cmd[256], want[256], *out = NULL;
	struct fn all[FN_MAX];
	size_t n = fn_list(NTMEM_OP_COPY, all, FN_MAX);
	const struct fn *safe = fn_find(all, n, "safe_unblocked");
	snprintf(cmd, sizeof cmd, "%s bench memcpy --mix GoogleA -f glibc,"
		 "safe_unblocked -r 1 -l 1", t_ntmem());
	int status = t_run(cmd, &out, NULL);
	snprintf(want, sizeof want, "\n#   safe_unblocked %.40s", safe ? safe->description : "?");
	t_check(status == 0 && out && strstr(out, "\n# functions (ntmem bench memcpy") &&
		strstr(out, want) && strstr(out, "\n#   glibc          the C library's memcpy\n"),
		"bench --mix: a line under the table says what each function is",
		"status %d: %s", status, out ? out : "");
	free(out);
}

static void test_help(void)
{
	char cmd[256], *out = NULL;
	snprintf(cmd, sizeof cmd, "%s bench memset -f help", t_ntmem());
	int status = t_run(cmd, &out, NULL);
	t_check(status == 0 && strstr(out, "glibc") && strstr(out, "auto") &&
		strstr(out, SET_FN), "bench -f help lists the functions", "status %d", status);
	free(out);
	snprintf(cmd, sizeof cmd, "%s bench --help", t_ntmem());
	status = t_run(cmd, &out, NULL);
	t_check(status == 0 && strstr(out, "Usage: ntmem bench") && strstr(out, "--nr_loops"),
		"bench --help", "status %d", status);
	free(out);
}

/* The schedule: every slot once per round, and over the rounds a slot
 * follows several different slots, not always the same one. */
struct schedule {
	size_t n, last, seen;
	unsigned char visits[16];
	unsigned char before[16][16];  /* before[x][y]: y ran right before x */
};

static int record_visit(void *ctx, size_t slot, long round)
{
	struct schedule *s = ctx;
	if (s->seen % s->n && slot < s->n && s->last < s->n)
		s->before[slot][s->last] = 1;
	s->visits[slot < 16 ? slot : 15]++;
	s->last = slot;
	s->seen++;
	return round == 99 ? -7 : 0;
}

static void test_schedule(void)
{
	static const size_t sizes[] = {1, 2, 6, 13};
	for (size_t i = 0; i < sizeof sizes / sizeof sizes[0]; i++) {
		struct schedule s = {.n = sizes[i], .last = SIZE_MAX};
		int rc = benchfn_rotate(s.n, 5, record_visit, &s);
		int each_five = 1;
		size_t fewest = s.n;
		for (size_t x = 0; x < s.n; x++) {
			size_t preds = 0;
			for (size_t y = 0; y < s.n; y++)
				preds += s.before[x][y];
			each_five &= s.visits[x] == 5;
			fewest = preds < fewest ? preds : fewest;
		}
		/* With n slots and 5 rounds a slot can follow at most n - 1
		 * others; with 6 (two strides coprime with 6) at least 2. */
		size_t want = s.n <= 2 ? s.n - 1 : s.n == 6 ? 2 : 4;
		t_check(rc == 0 && each_five && fewest >= want,
			"benchfn_rotate: each slot once a round, after varying neighbours",
			"n %zu: rc %d, every slot 5 times %d, fewest predecessors %zu (want %zu)",
			s.n, rc, each_five, fewest, want);
	}
	struct schedule s = {.n = 3, .last = SIZE_MAX};
	t_check(benchfn_rotate(3, 200, record_visit, &s) == -7 && s.seen == 99 * 3 + 1,
		"benchfn_rotate: stops at the first visit that fails, with its result",
		"seen %zu", s.seen);
}

/* A callable that only counts its calls. */
static int count_call(void *arg, size_t size)
{
	(void)size;
	++*(long *)arg;
	return 0;
}

/* Before a run: loops / 8 untimed calls, or as many as move settle_bytes
 * when that is more, so that a large size starts from its own caches. */
static void test_settle(void)
{
	static const struct {
		size_t size, settle;
		long loops, want;
	} cases[] = {
		{16u << 20, 0, 8, 1 + 8},             /* at least one untimed */
		{16u << 20, 64u << 20, 8, 4 + 8},     /* 64 MiB in 16 MiB calls */
		{16u << 20, (64u << 20) + 1, 8, 5 + 8}, /* rounded up */
		{16u << 20, 64u << 20, 80, 10 + 80},  /* loops / 8 is more */
		{1u << 30, 64u << 20, 1, 1 + 1},      /* one call moves more */
	};
	for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
		long calls = 0;
		double gbps = 0;
		struct benchfn f = {"count", count_call, &calls};
		int rc = benchfn_time(&f, cases[i].size, cases[i].loops,
				      cases[i].settle, &gbps);
		t_check(rc == 0 && calls == cases[i].want && gbps > 0,
			"benchfn_time: untimed calls settle the caches first",
			"size %zu, settle %zu, loops %ld: %ld calls (want %ld), rc %d",
			cases[i].size, cases[i].settle, cases[i].loops, calls,
			cases[i].want, rc);
	}
}

/* A thread bench starts after pinning its own must still see every CPU
 * the process had: the plain split puts its parts there. */
static void test_allowed_after_pin(void)
{
	int before[64], after[64];
	unsigned n = allowed_cpus(before, 64);
	int pinned = n ? pin_to_cpu(before[0]) : -1;
	unsigned m = allowed_cpus(after, 64);
	t_check(n >= 1 && pinned == 0 && m == n && !memcmp(before, after, n * sizeof(int)),
		"allowed_cpus: the CPUs from before the first pin, after it",
		"%u CPUs before, pin %d, %u after", n, pinned, m);
}

int main(void)
{
	cli_command = "bench";
	test_schedule();
	test_settle();
	test_valid_options();
	test_bad_options();
	test_json("memset");
	test_json("memcpy");
	test_table_noise_and_summary();
	test_summary_level_and_noise();
	test_few_runs_and_auto_ahead();
	test_csv();
	test_threads();
	test_plot_and_errors();
	test_plot_every_function(NTMEM_OP_SET);
	test_plot_every_function(NTMEM_OP_COPY);
	test_help();
	test_mix_key();
	test_allowed_after_pin();  /* last: it pins this process */
	return t_finish();
}
