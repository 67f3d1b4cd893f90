/* test_pollution.c - "ntmem pollution": the pointer chase visits every
 * line once per pass, options parse (and fail) as documented, the JSON
 * report is valid JSON with its keys, the perf_event_open fallback says
 * why, and the tool exits 2 on bad arguments without leaving a plot file.
 * No timing is asserted anywhere. */
#define _GNU_SOURCE
#include <sched.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "measure/chase.h"
#include "measure/functions.h"
#include "harness.h"
#include "util/size.h"
#include "ntmem.h"
#include "measure/perfcount.h"
#include "pollution/pollution.h"
#include "pollution/pollution_report.h"

/* ------------------------------------------------------------------ */
/* The chase                                                           */
/* ------------------------------------------------------------------ */

static void test_chase_permutation(void)
{
	static const size_t sizes[] = {1, 2, 3, 7, 64, 1000, 4096, 65537};
	for (size_t s = 0; s < sizeof sizes / sizeof sizes[0]; s++) {
		size_t lines = sizes[s];
		unsigned char *buf = aligned_alloc(CHASE_LINE, lines * CHASE_LINE);
		unsigned char *seen = calloc(lines, 1);
		char name[64];
		snprintf(name, sizeof name, "chase visits each of %zu lines once", lines);
		if (!buf || !seen) {
			t_fail(name, "out of memory");
			free(buf);
			free(seen);
			continue;
		}
		chase_build(buf, lines, 12345 + s);
		unsigned char *p = buf;
		int bad = 0;
		size_t step;
		for (step = 0; step < lines && !bad; step++) {
			size_t off = (size_t)(p - buf);
			if (p < buf || off >= lines * CHASE_LINE || off % CHASE_LINE) {
				t_fail(name, "step %zu left the buffer or a line start", step);
				bad = 1;
				break;
			}
			if (seen[off / CHASE_LINE]++) {
				t_fail(name, "line %zu visited twice, at step %zu",
				       off / CHASE_LINE, step);
				bad = 1;
				break;
			}
			p = *(unsigned char **)p;
		}
		if (!bad) {
			size_t missed = 0;
			for (size_t i = 0; i < lines; i++)
				missed += !seen[i];
			if (missed)
				t_fail(name, "%zu lines never visited", missed);
			else if (p != buf)
				t_fail(name, "one pass did not return to line 0");
			else if (chase_run(buf, lines) != buf)
				t_fail(name, "chase_run(lines) did not return to line 0");
			else
				t_pass(name);
		}
		free(buf);
		free(seen);
	}

	/* Sattolo gives one cycle, never a fixed point (for n >= 2), and
	 * different seeds give different orders. */
	size_t lines = 512;
	unsigned char *a = aligned_alloc(CHASE_LINE, lines * CHASE_LINE);
	unsigned char *b = aligned_alloc(CHASE_LINE, lines * CHASE_LINE);
	if (!a || !b) {
		t_fail("chase seeds differ", "out of memory");
	} else {
		chase_build(a, lines, 1);
		chase_build(b, lines, 2);
		size_t same = 0, fixed = 0;
		for (size_t i = 0; i < lines; i++) {
			uintptr_t na = *(uintptr_t *)(a + i * CHASE_LINE) - (uintptr_t)a;
			uintptr_t nb = *(uintptr_t *)(b + i * CHASE_LINE) - (uintptr_t)b;
			same += na == nb;
			fixed += na == i * CHASE_LINE;
		}
		t_check(same < lines / 2, "chase seeds give different orders",
			"%zu of %zu successors equal", same, lines);
		t_check(fixed == 0, "chase has no line pointing to itself",
			"%zu fixed points", fixed);
	}
	free(a);
	free(b);

	/* Lookups read only inside the table. */
	uint64_t state = 99;
	unsigned char *t = aligned_alloc(CHASE_LINE, 16 * CHASE_LINE);
	if (t) {
		for (size_t i = 0; i < 16; i++)
			*(uint64_t *)(t + i * CHASE_LINE) = 1;
		t_check(chase_lookups(t, 16, 1000, &state) == 1000,
			"chase_lookups reads one table word per lookup", "wrong sum");
	}
	free(t);
}

/* ------------------------------------------------------------------ */
/* Option parsing                                                      */
/* ------------------------------------------------------------------ */

#define MAXARGS 32

/* Parse a space-separated command line (after "pollution"). */
/* argv for "pollution LINE", split at spaces; returns argc.  The words
 * live in a static buffer until the next call. */
static int split_args(const char *line, char **argv)
{
	static char buf[1024];
	int argc = 0;
	snprintf(buf, sizeof buf, "%s", line);
	argv[argc++] = "pollution";
	for (char *tok = strtok(buf, " "); tok && argc < MAXARGS - 1;
	     tok = strtok(NULL, " "))
		argv[argc++] = tok;
	argv[argc] = NULL;
	return argc;
}

static int parse_line(const char *line, char *desc, size_t dlen, char *err,
		      size_t elen)
{
	char *argv[MAXARGS];
	int argc = split_args(line, argv);
	desc[0] = err[0] = '\0';
	return pollution_parse_describe(argc, argv, desc, dlen, err, elen);
}

static void expect_ok(const char *line, const char *const *wants)
{
	char desc[2048], err[512], name[256];
	snprintf(name, sizeof name, "parse '%s'", line);
	int r = parse_line(line, desc, sizeof desc, err, sizeof err);
	if (r != 0) {
		t_fail(name, "returned %d: %s", r, err);
		return;
	}
	for (size_t i = 0; wants[i]; i++)
		if (!strstr(desc, wants[i])) {
			t_fail(name, "'%s' not in '%s'", wants[i], desc);
			return;
		}
	t_pass(name);
}

static void expect_error(const char *line, const char *const *wants)
{
	char desc[2048], err[512], name[256];
	snprintf(name, sizeof name, "parse '%s' fails", line);
	int r = parse_line(line, desc, sizeof desc, err, sizeof err);
	if (r != -1) {
		t_fail(name, "returned %d (%s)", r, desc);
		return;
	}
	for (size_t i = 0; wants[i]; i++)
		if (!strstr(err, wants[i])) {
			t_fail(name, "'%s' not in message '%s'", wants[i], err);
			return;
		}
	t_pass(name);
}

#define W(...) ((const char *const[]){__VA_ARGS__, NULL})

/* Per architecture: the string instructions the defaults include (after
 * glibc), and a function of memset alone (none where every variant does
 * both operations). */
#if defined(__x86_64__)
#define STRING_SET "stosb,"
#define STRING_COPY "movsb,"
#define SET_ONLY_FN "stosb"
#elif defined(__aarch64__)
#define STRING_SET ""
#define STRING_COPY ""
#define SET_ONLY_FN "dc_zva"
#else
#define STRING_SET ""
#define STRING_COPY ""
#endif

/* A function of one operation only: -f implies the operation, and other
 * operations refuse it. */
static void test_one_op_function(void)
{
#ifdef SET_ONLY_FN
	expect_ok("-f " SET_ONLY_FN, W("ops=memset ", "fn.memset=" SET_ONLY_FN " "));
	expect_error("-o memcpy -f " SET_ONLY_FN,
		     W("--function", "memcpy", "'" SET_ONLY_FN "'"));
	expect_error("-o memset,memcpy -f " SET_ONLY_FN, W("--function", "memcpy"));
#else
	t_skip("parse: a memset-only function", "every variant here does both "
	       "memset and memcpy");
#endif
}

/* The policy's streaming memset, where this build has one (the portable
 * build has none). */
static int streaming_memset(struct ntmem_variant_info *v)
{
	struct ntmem_ladder_info p;
	return !ntmem_ladder_info(NTMEM_CLASS_SET_ZERO, &p) &&
	       !ntmem_variant_info(p.streaming, v) && v->streaming;
}

static void test_parsing(void)
{
	expect_ok("", W("modes=after,concurrent,reread,mixed", "ops=memset,memcpy",
			"fn.memset=glibc," STRING_SET, ",auto",
			"fn.memcpy=glibc," STRING_COPY, "size=268435456", "runs=5",
			"pages=2MB"));
	expect_ok("-m after,reread -o memset -s 1MiB --victim 64KiB,1MiB -r 3",
		  W("modes=after,reread ", "ops=memset ", "size=1048576",
		    "victim=65536,1048576 ", "runs=3"));
	expect_ok("--mode=all --op memcpy", W("modes=after,concurrent,reread,mixed",
					      "ops=memcpy "));
	expect_ok("--mode reread,after", W("modes=after,reread "));
#if defined(__x86_64__)
	expect_ok("-f stosb,movsb", W("ops=memset,memcpy", "fn.memset=stosb ",
				      "fn.memcpy=movsb "));
#endif
	test_one_op_function();
	expect_ok("-f glibc,glibc,auto -o copy", W("fn.memcpy=glibc,auto "));
	expect_ok("--lookups 1000 --rounds 3 --pages 4KB --json --plot x.svg",
		  W("lookups=1000", "rounds=3", "pages=4KB", "json=1", "plot=x.svg"));

	struct ntmem_variant_info v;
	if (streaming_memset(&v)) {
		char want[64];
		snprintf(want, sizeof want, "fn.memset=%s ", v.name);
		expect_ok("-o memset -f streaming", W(want));
		snprintf(want, sizeof want, "fn.memset=glibc," STRING_SET "%s,auto",
			 v.name);
		expect_ok("-o memset", W(want));
	} else {
		t_skip("parse: -f streaming", "no streaming variant runs here");
	}

	/* "cached": the policy's cached choice at the aggressor's size */
	struct ntmem_variant_info cached;
	char want_cached[64];
	ntmem_variant_info(ntmem_policy_choice(NTMEM_OP_SET, 0, 256 * MiB,
					       NTMEM_F_TEMPORAL), &cached);
	snprintf(want_cached, sizeof want_cached, "fn.memset=hinted,%s ",
		 cached.role == NTMEM_ROLE_LIBC ? "glibc" : cached.name);
	expect_ok("-f hinted,cached -o memset --hot 2MiB",
		  W(want_cached, "hot=2097152"));
	expect_ok("-f streamread -o memcpy", W("fn.memcpy=streamread "));
	expect_error("--hot 0", W("--hot", "at least 1 byte"));
	expect_error("--mode nope", W("--mode", "'nope'"));
	expect_error("--mode after,", W("--mode", "empty item"));
	expect_error("--victim 12Q", W("--victim: '12Q': unknown unit"));
	expect_error("--victim 64", W("--victim", "two 64-byte lines"));
	expect_error("-s 1KiB", W("--size", "4 KiB"));
	expect_error("-s lots", W("--size: 'lots'"));
	expect_error("-f nosuch", W("--function", "'nosuch'"));
	expect_error("-o memmove", W("--op", "'memmove'"));
	expect_error("-r 0", W("--runs", "out of range"));
	expect_error("--lookups x", W("--lookups: 'x' is not a whole number"));
	expect_error("--rounds -1", W("--rounds"));
	expect_error("--pages 3MB", W("--pages", "'3MB'"));
	expect_error("--frob", W("unknown option '--frob'"));
	expect_error("-z", W("unknown option '-z'"));
	expect_error("--mode", W("'--mode' needs a value"));
	expect_error("stray", W("unexpected argument 'stray'"));
	expect_error("--cpu 0 --victim-cpu 0", W("--victim-cpu", "differ"));
	expect_error("--cpu 1023", W("--cpu", "1023"));
	expect_error("--victim 1024TiB", W("--victim", "1024 TiB",
					   "does not fit in available memory"));
	expect_error("-s 1024TiB", W("--size", "fit in available memory"));

	char desc[256], err[256];
	t_check(parse_line("--help", desc, sizeof desc, err, sizeof err) == 1 &&
		!strcmp(desc, "help"), "parse '--help' asks for help", "got '%s'", desc);
	t_check(parse_line("-f help", desc, sizeof desc, err, sizeof err) == 1 &&
		!strcmp(desc, "list"), "parse '-f help' asks for the list",
		"got '%s'", desc);

	/* A function this CPU cannot run, chosen explicitly, is skipped with
	 * its reason, never dropped silently. */
	struct fn fns[FN_MAX];
	size_t n = fn_list(NTMEM_OP_SET, fns, FN_MAX);
	const char *unsupported = NULL;
	for (size_t i = 0; i < n && !unsupported; i++)
		if (!fns[i].supported)
			unsupported = fns[i].name;
	if (!unsupported) {
		t_skip("parse: unsupported function is skipped",
		       "every memset variant runs on this CPU");
	} else {
		char line[128], want[64];
		snprintf(line, sizeof line, "-o memset -f glibc,%s", unsupported);
		snprintf(want, sizeof want, "skip=memset:%s", unsupported);
		expect_ok(line, W("fn.memset=glibc ", want));
		snprintf(line, sizeof line, "-o memset -f %s", unsupported);
		expect_error(line, W("--function: nothing to run", unsupported));
	}
}

/* ------------------------------------------------------------------ */
/* JSON report and the perf fallback                                   */
/* ------------------------------------------------------------------ */

static char *run_json(const char *line, char *err, size_t elen, int *rc)
{
	char *argv[MAXARGS];
	int argc = split_args(line, argv);
	char *text = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&text, &len);
	if (!f) {
		snprintf(err, elen, "open_memstream: %s", strerror(errno));
		*rc = -1;
		return NULL;
	}
	*rc = pollution_json(argc, argv, f, err, elen);
	fclose(f);
	return text;
}

static void test_json(void)
{
	char err[512] = "";
	int rc;
	setenv("NTMEM_NO_PERF", "1", 1);
	char *text = run_json("-m all -s 1MiB --victim 64KiB -r 1 --rounds 2 "
			      "--lookups 1000", err, sizeof err, &rc);
	unsetenv("NTMEM_NO_PERF");
	if (rc) {
		t_fail("json: a tiny run succeeds", "%s", err);
		free(text);
		return;
	}
	t_pass("json: a tiny run succeeds");
	char perr[160] = "";
	struct t_json *j = t_json_parse(text, perr, sizeof perr);
	t_check(j != NULL, "json: the report is valid JSON", "%s", perr);
	static const char *const keys[] = {
		"command", "machine", "settings", "victim_pages", "counters",
		"results", "verdicts", "skipped",
	};
	for (size_t i = 0; i < sizeof keys / sizeof keys[0]; i++) {
		char name[64];
		snprintf(name, sizeof name, "json: top-level key \"%s\"", keys[i]);
		t_check(t_json_get(j, keys[i]) != NULL, name, "missing");
	}
	/* Every mode and operation has rows, and every row its fields. */
	static const char *const fields[] = {
		"mode", "op", "function", "nontemporal", "aggressor_gbps", "victim_ns_baseline", "victim_ns_polluted",
		"slowdown",
	};
	const struct t_json *results = t_json_get(j, "results");
	int seen_mode[4] = {0}, seen_op[2] = {0}, fields_ok = results &&
		results->type == TJ_ARRAY && results->count > 0;
	static const char *const modes[] = {"after", "concurrent", "reread", "mixed"};
	for (size_t r = 0; fields_ok && r < results->count; r++) {
		const struct t_json *row = &results->items[r];
		for (size_t i = 0; i < sizeof fields / sizeof fields[0]; i++)
			fields_ok &= t_json_get(row, fields[i]) != NULL;
		const struct t_json *m = t_json_get(row, "mode"), *o = t_json_get(row, "op");
		if (!fields_ok)
			break;
		/* reread reads part of the destination, not a victim */
		fields_ok &= !strcmp(m->string, "reread") ? !!t_json_get(row, "reread_bytes")
							  : !!t_json_get(row, "victim_size");
		for (int k = 0; k < 4; k++)
			seen_mode[k] |= !strcmp(m->string, modes[k]);
		seen_op[0] |= o && !strcmp(o->string, "memset");
		seen_op[1] |= o && !strcmp(o->string, "memcpy");
	}
	t_check(fields_ok, "json: every result row holds every field", "a field is missing");
	/* concurrent may be skipped on a single CPU; the others always run. */
	t_check(seen_mode[0] && seen_mode[2] && seen_mode[3] && seen_op[0] && seen_op[1],
		"json: rows for after, reread and mixed, memset and memcpy", "a mode is missing");
	/* The fallback: unavailable, the reason, and no numbers for counts. */
	const struct t_json *counters = t_json_get(j, "counters");
	const struct t_json *avail = t_json_get(counters, "available");
	const struct t_json *reason = t_json_get(counters, "reason");
	t_check(avail && avail->type == TJ_BOOL && !avail->boolean && reason &&
		reason->type == TJ_STRING &&
		!strcmp(reason->string, "disabled by NTMEM_NO_PERF"),
		"json: counters unavailable with the reason", "not found");
	int counts_null = fields_ok;
	for (size_t r = 0; counts_null && r < results->count; r++) {
		const struct t_json *c = t_json_get(&results->items[r], "cache_misses_polluted");
		counts_null &= c && c->type == TJ_NULL;
	}
	t_check(counts_null, "json: no estimated counts when unavailable", "counts present");
	t_json_free(j);
	free(text);
}

/* hinted and streamread run as aggressors of their own: rows for both,
 * and streamread always streams, whatever the policy says at the size. */
static void test_composite_aggressors(void)
{
	char err[512] = "";
	int rc;
	setenv("NTMEM_NO_PERF", "1", 1);
	char *text = run_json("-m after,reread -o memset -s 1MiB --hot 64KiB "
			      "--victim 64KiB -r 1 -f hinted,streamread", err,
			      sizeof err, &rc);
	unsetenv("NTMEM_NO_PERF");
	struct t_json *j = rc ? NULL : t_json_parse(text, err, sizeof err);
	const struct t_json *results = t_json_get(j, "results");
	int hinted = 0, streamread = 0, streams = 1;
	for (size_t r = 0; results && r < results->count; r++) {
		const struct t_json *f = t_json_get(&results->items[r], "function");
		const struct t_json *nt = t_json_get(&results->items[r], "nontemporal");
		if (!f || f->type != TJ_STRING)
			continue;
		hinted += !strcmp(f->string, "hinted");
		if (!strcmp(f->string, "streamread")) {
			streamread++;
			streams &= nt && nt->type == TJ_BOOL && nt->boolean;
		}
	}
	t_check(j && hinted == 2 && streamread == 2 && streams,
		"json: hinted and streamread rows, in after and reread; "
		"streamread streams", "rc=%d hinted=%d streamread=%d streams=%d %s",
		rc, hinted, streamread, streams, err);
	t_json_free(j);
	free(text);
}

static void test_perf_fallback(void)
{
	struct perfcount pc;
	struct perf_values v;
	setenv("NTMEM_NO_PERF", "1", 1);
	int r = perfcount_open(&pc);
	unsetenv("NTMEM_NO_PERF");
	t_check(r == -1 && !pc.available &&
		!strcmp(pc.reason, "disabled by NTMEM_NO_PERF"),
		"perf: NTMEM_NO_PERF=1 forces unavailable, with the reason",
		"r=%d available=%d reason='%s'", r, pc.available, pc.reason);
	v.misses = v.refs = 7;
	t_check(perfcount_read(&pc, &v) == -1 && v.misses == 0 && v.refs == 0,
		"perf: reading unavailable counters gives no numbers", "read");
	perfcount_close(&pc);

	/* Without it: either real counters or a reason from the kernel. */
	r = perfcount_open(&pc);
	if (r == 0) {
		struct perf_values a, b;
		int ok = !perfcount_read(&pc, &a);
		volatile unsigned char *m = malloc(1 << 22);
		for (size_t i = 0; m && i < (1u << 22); i += 64)
			m[i] = 1;
		free((void *)m);
		ok = ok && !perfcount_read(&pc, &b);
		t_check(ok && b.refs >= a.refs && b.misses >= a.misses,
			"perf: available counters count up", "read failed");
	} else {
		t_check(!pc.available && !strncmp(pc.reason, "perf_event_open", 15) &&
			strstr(pc.reason, "perf_event_paranoid="),
			"perf: unavailable counters say why", "reason '%s'", pc.reason);
	}
	perfcount_close(&pc);
}

/* ------------------------------------------------------------------ */
/* The verdict, from made-up rows                                      */
/* ------------------------------------------------------------------ */

/* The verdict for memset after one 256 MiB call, a 512 KiB victim: a
 * streaming function 36.9x, rep stosb 1.2x, and the idle control idle. */
static const char *verdict_with_control(double idle)
{
	static struct popts o;
	static struct row rows[3];
	static char v[768];
	static const struct fn nt = {.name = "nt_made_up", .kind = FN_VARIANT,
				     .role = NTMEM_ROLE_STREAMING, .streaming = 1};
	static const struct fn ca = {.name = "stosb", .kind = FN_VARIANT,
				     .role = NTMEM_ROLE_STRING};
	memset(&o, 0, sizeof o);
	o.size = 256 * MiB;
	o.verdict_victim = 512 * KiB;
	o.streaming[0] = &nt;
	o.cached[0] = &ca;
	const struct fn *fns[3] = {&nt, &ca, &pol_idle[0]};
	const double slow[3] = {36.9, 1.2, idle};
	for (int i = 0; i < 3; i++)
		rows[i] = (struct row){.mode = MODE_AFTER, .op = 0, .f = fns[i],
				       .victim = 512 * KiB, .slowdown = slow[i]};
	struct ctx c = {.o = &o, .rows = rows, .nrows = 3};
	pol_verdict(&c, 0, v, sizeof v);
	return v;
}

static void test_verdict_control(void)
{
	const char *v = verdict_with_control(1.1);
	t_check(strstr(v, "streaming (nt_made_up) left a 512 KiB victim 36.9x slower") &&
		strstr(v, "rep stosb 1.2x") && strstr(v, "idle as long 1.1x") &&
		!strstr(v, "no verdict"),
		"verdict: a control near 1x, the streaming and cached figures", "%s", v);
	static const double broken[] = {141.2, 2.5, 0.4};
	for (size_t i = 0; i < 3; i++) {
		char name[96], want[64];
		v = verdict_with_control(broken[i]);
		snprintf(name, sizeof name, "verdict: withheld when the idle control "
			 "shows %.1fx", broken[i]);
		snprintf(want, sizeof want, "victim %.2fx slower", broken[i]);
		t_check(strstr(v, "no verdict") && strstr(v, "idle control") &&
			strstr(v, want) && !strstr(v, "36.9x"), name, "%s", v);
	}
	v = verdict_with_control(2.0);
	t_check(!strstr(v, "no verdict") && strstr(v, "36.9x"),
		"verdict: given at the edge, a control of 2.0x", "%s", v);
}

/* ------------------------------------------------------------------ */
/* The real tool: exit status, no partial plot                         */
/* ------------------------------------------------------------------ */


/* Run "ntmem pollution ARGS"; the exit status, with stdout and stderr. */
static int run_tool(const char *args, char **out, char **err)
{
	char cmd[2048];
	snprintf(cmd, sizeof cmd, "%s pollution %s", t_ntmem(), args);
	return t_run(cmd, out, err);
}

static void tool_case(const char *args, int want, const char *stream_has,
		      int in_stdout, const char *name)
{
	char *out = NULL, *err = NULL;
	int st = run_tool(args, &out, &err);
	t_check(st == want && strstr(in_stdout ? out : err, stream_has), name,
		"status %d, stderr: %s", st, err);
	free(out);
	free(err);
}

static void test_tool(void)
{
	char dir[] = "/tmp/ntmem-pollution-testXXXXXX";
	if (!mkdtemp(dir)) {
		t_fail("tool: exit statuses", "mkdtemp: %s", strerror(errno));
		return;
	}
	char args[1200];
	tool_case("--help", 0, "--mode LIST", 1, "tool: --help prints usage and exits 0");
	snprintf(args, sizeof args, "--mode nope --plot %s/p.svg", dir);
	tool_case(args, 2, "ntmem pollution: --mode", 0, "tool: unknown mode exits 2 naming it");
	t_check(t_count_prefixed(dir, "p.svg") == 0,
		"tool: no plot file, whole or partial, after an error", "found a p.svg* file");
	tool_case("--victim 12Q", 2, "ntmem pollution: --victim: '12Q': unknown unit", 0,
		  "tool: bad victim size exits 2 naming it");
	tool_case("-f nosuch", 2, "'nosuch'", 0, "tool: unknown function exits 2 naming it");
	tool_case("--victim 1024TiB", 2, "1024 TiB", 0,
		  "tool: a victim larger than memory exits 2 naming it");
	snprintf(args, sizeof args,
		 "-m after -s 4KiB --victim 4KiB -r 1 --plot %s/no/such/dir/p.svg", dir);
	tool_case(args, 2, "--plot", 0, "tool: an unwritable plot exits 2 before measuring");
	tool_case("-f help", 0, "memset functions:", 1, "tool: -f help lists functions");

	/* The plot: a panel per operation, the idle control as a band and
	 * not among the lines, bars on every line. */
	char path[300];
	snprintf(path, sizeof path, "%s/pol.svg", dir);
	snprintf(args, sizeof args, "-m after -s 1MiB --victim 64KiB -r 2 --plot %s", path);
	char *out = NULL, *err = NULL;
	setenv("NTMEM_NO_PERF", "1", 1);
	int st = run_tool(args, &out, &err);
	unsetenv("NTMEM_NO_PERF");
	const char *svg = t_file_text(path);
	size_t lines = 0, bars = 0;
	for (const char *p = svg; (p = strstr(p, "<polyline")); p++)
		lines++;
	for (const char *p = svg; (p = strstr(p, "stroke-opacity=\"0.7\"")); p++)
		bars++;
	t_check(st == 0 && strstr(svg, ">memset (after): victim slowdown") &&
		strstr(svg, ">memcpy (after): victim slowdown") &&
		strstr(svg, "<polygon") && strstr(svg, ">idle control (no call)</text>") &&
		!strstr(svg, ">idle</text>") && !strstr(svg, "memset idle") &&
		lines >= 2 && bars == lines,
		"tool: the plot has a panel per operation, the control as a band",
		"status %d, %zu lines, %zu with bars: %s", st, lines, bars, err);
	free(out);
	free(err);
	unlink(path);
	rmdir(dir);
}

/* The CPUs this test may use, as it started: measuring in-process pins
 * it (test_json), and the tool's children inherit that. */
static cpu_set_t start_cpus;

/* --victim -- COMMAND: the user's program as the victim. */
static void test_victim_command(void)
{
	sched_setaffinity(0, sizeof start_cpus, &start_cpus);
	expect_ok("-o memset --victim -- ls -m nope", W("ops=memset"));
	expect_error("--victim --", W("--victim --: no command"));
	expect_error("--plot p.svg --victim -- true", W("--plot"));
	expect_error("--victim 1MiB --victim -- true", W("--victim SIZES"));
	if (CPU_COUNT(&start_cpus) < 2) {
		tool_case("-o memset -s 1MiB -r 1 --victim -- true", 2, "a CPU each", 0,
			  "victim command: one CPU is a usage error");
		t_skip("victim command: measured", "one CPU: the command and the "
		       "aggressor need one each");
		return;
	}
	tool_case("-o memset -f streaming -s 1MiB -r 1 --victim -- false", 1,
		  "the victim false exited with status 1", 0,
		  "victim command: one that fails stops the run, named");
	char *out = NULL, *err = NULL, perr[200] = "";
	int st = run_tool("-o memset -f streaming,cached -s 1MiB -r 3 --json "
			  "--victim -- sh -c 'i=0; while [ $i -lt 3000 ]; do "
			  "i=$((i+1)); done'", &out, &err);
	struct t_json *j = st == 0 ? t_json_parse(out, perr, sizeof perr) : NULL;
	const struct t_json *arms = j ? t_json_get(j, "arms") : NULL;
	const struct t_json *verdicts = j ? t_json_get(j, "verdicts") : NULL;
	/* The control, then each function that runs here: no streaming one
	 * in the portable build, and the verdict then says why. */
	struct ntmem_variant_info v;
	size_t want_arms = streaming_memset(&v) ? 3 : 2;
	int sane = arms && arms->type == TJ_ARRAY && arms->count == want_arms &&
		   verdicts && verdicts->count == 1;
	for (size_t i = 0; sane && i < arms->count; i++) {
		const struct t_json *a = &arms->items[i];
		double lo = t_json_get(a, "seconds_min")->number;
		double med = t_json_get(a, "seconds_median")->number;
		double hi = t_json_get(a, "seconds_max")->number;
		sane = lo > 0 && lo <= med && med <= hi &&
		       (i || t_json_get(a, "slowdown")->number == 1.0);
	}
	t_check(sane, "victim command: the control and each function's times, "
		"one verdict", "status %d %s %s\n%s", st, perr, err, out);
	t_json_free(j);
	free(out);
	free(err);

	/* One run has no spread: no "vary by 0.0%", and no verdict. */
	const char *one = "-o memset -f streaming,cached -s 1MiB -r 1 %s--victim -- true";
	char args[200];
	snprintf(args, sizeof args, one, "");
	st = run_tool(args, &out, &err);
	t_check(st == 0 && strstr(out, "one run: no spread, so no verdict") &&
			!strstr(out, "vary by") && strstr(out, "verdict (memset): none: ") &&
			!strstr(out, "streaming spares") && !strstr(out, "streaming costs") &&
			!strstr(out, "too noisy"),
		"victim command, -r 1: no spread, no verdict", "status %d %s\n%s", st,
		err, out);
	free(out);
	free(err);
	snprintf(args, sizeof args, one, "--json ");
	st = run_tool(args, &out, &err);
	j = st == 0 ? t_json_parse(out, perr, sizeof perr) : NULL;
	const struct t_json *spread = j ? t_json_get(j, "control_spread") : NULL;
	verdicts = j ? t_json_get(j, "verdicts") : NULL;
	arms = j ? t_json_get(j, "arms") : NULL;
	int nulls = arms && arms->count > 1;
	for (size_t i = 0; nulls && i < arms->count; i++)
		nulls = t_json_get(&arms->items[i], "noisy")->type == TJ_NULL;
	t_check(spread && spread->type == TJ_NULL && nulls && verdicts &&
			verdicts->count == 1 &&
			!strncmp(verdicts->items[0].string, "none: one run", 13),
		"victim command, -r 1, JSON: control_spread and noisy null, the "
		"verdict none", "status %d %s %s\n%s", st, perr, err, out);
	t_json_free(j);
	free(out);
	free(err);
}

int main(void)
{
	sched_getaffinity(0, sizeof start_cpus, &start_cpus);
	test_chase_permutation();
	test_parsing();
	test_perf_fallback();
	test_json();
	test_composite_aggressors();
	test_verdict_control();
	test_tool();
	test_victim_command();
	return t_finish();
}
