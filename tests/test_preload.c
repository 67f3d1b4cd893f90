/*
 * test_preload.c - libntmem-preload.so in programs that know nothing of
 * ntmem (the helpers in tests/preload/), run through "ntmem run":
 *
 *   - every interposed name resolves to the shim, under LD_BIND_NOW too,
 *     and (the control, so the check can fail) to the C library without;
 *   - every function's bytes, return value and guard bytes against a
 *     reference at every size class, under the default policy, with
 *     streaming at every size and with streaming off;
 *   - calls before any library's constructor, and from signal handlers;
 *   - _FORTIFY_SOURCE: the checking forms reach the shim, and too small a
 *     destination aborts the program as the C library's forms do;
 *   - fork and exec: children keep the shim; --report counts exactly the
 *     calls of the process ntmem run started, and only that one writes;
 *   - ntmem_preloaded(), and what ntmem run gives the command: its
 *     environment and its exit status.
 */
#include "preload/spawn.h"

#include <dlfcn.h>

static struct places at;

static int count_lines(const char *s, const char *prefix)
{
	int n = 0;
	for (; (s = strstr(s, prefix)); s++)
		n++;
	return n;
}

static void test_symbols(void)
{
	struct outcome o;
	const char *args[] = {"symbols", at.shim, NULL};
	spawn(run_argv(&at, NULL, "verify", args), NULL, 60, &o);
	t_check(relay("symbols", &o) == 13, "symbols: all 13 names", "%s", o.out);
	outcome_free(&o);

	const char *bind_now[] = {"LD_BIND_NOW=1", NULL};
	spawn(run_argv(&at, NULL, "verify", args), bind_now, 60, &o);
	relay("symbols under LD_BIND_NOW", &o);
	t_check(!*o.err, "symbols: the loader has nothing to say under LD_BIND_NOW",
		"%s", o.err);
	outcome_free(&o);

	char **plain = run_argv(&at, NULL, "verify", args) + 3;  /* no ntmem run */
	const char *no_shim[] = {"-LD_PRELOAD", NULL};
	spawn(plain, no_shim, 60, &o);
	t_check(exited(&o, 1) && count_lines(o.out, "FAIL symbol ") == 13,
		"symbols: without the shim all 13 are the C library's (the check "
		"can fail)", "status 0x%x, %d failures", o.status,
		count_lines(o.out, "FAIL symbol "));
	outcome_free(&o);
}

/* Every rung row of r streams (want 1) or none does (want 0). */
static void check_streaming(const char *name, const struct report *r, int want)
{
	int rungs = 0, wrong = 0;
	for (int i = 0; i < r->nrows; i++) {
		const char *kind = row_kind(&r->rows[i]);
		if (strcmp(kind, "set") && strcmp(kind, "set_nonzero") &&
		    strcmp(kind, "copy"))
			continue;
		rungs++;
		if (row_streams(&r->rows[i]) != want)
			wrong++;
	}
	t_check(r->headers == 1 && rungs > 0 && !wrong, name,
		"%d reports, %d rung rows, %d of them %s", r->headers, rungs, wrong,
		want ? "cached" : "streaming");
}

static void test_results(void)
{
	static const struct {
		const char *label, *opts[4];
		int streams;  /* -1: whatever the default policy says */
	} policies[] = {
		{"results, default policy", {NULL}, -1},
		{"results, streaming at every size", {"--stream-above", "0", "--report"}, 1},
		{"results, never streaming", {"--never-stream", "--report"}, 0},
	};
	const char *args[] = {"results", NULL};
	for (size_t i = 0; i < sizeof policies / sizeof policies[0]; i++) {
		struct outcome o;
		spawn(run_argv(&at, policies[i].opts, "verify", args), NULL, 120, &o);
		relay(policies[i].label, &o);
		if (policies[i].streams >= 0) {
			static struct report r;
			char name[128];
			parse_report(o.err, &r);
			snprintf(name, sizeof name, "%s: the report says so",
				 policies[i].label);
			check_streaming(name, &r, policies[i].streams);
		}
		outcome_free(&o);
	}
}

static void test_early_and_signals(void)
{
	struct outcome o;
	spawn(run_argv(&at, NULL, "early", NULL), NULL, 60, &o);
	relay("early", &o);
	t_check(strstr(o.out, at.shim) != NULL, "early: the shim served those calls",
		"%s", o.out);
	outcome_free(&o);
	/* A library relocated before the shim calls memcpy from its IFUNC
	 * resolver: the shim's memcpy runs unrelocated. */
	spawn(run_argv(&at, NULL, "resolver", NULL), NULL, 60, &o);
	relay("resolver", &o);
	outcome_free(&o);
	const char *opts[] = {"--stream-above", "0", NULL};
	spawn(run_argv(&at, opts, "signals", NULL), NULL, 60, &o);
	relay("signals", &o);
	outcome_free(&o);
}

/* A checking form called with too small a destination, with the shim and
 * without it: both must abort with the C library's message. */
static void check_abort(const char *label, const char *const *args)
{
	static const char *const fatal_to_stderr[] = {"LIBC_FATAL_STDERR_=1", NULL};
	static const char *const plain_env[] = {"LIBC_FATAL_STDERR_=1",
						"-LD_PRELOAD", NULL};
	struct outcome shim, libc;
	spawn(run_argv(&at, NULL, "fortify", args), fatal_to_stderr, 60, &shim);
	spawn(run_argv(&at, NULL, "fortify", args) + 3, plain_env, 60, &libc);
	int aborted = WIFSIGNALED(shim.status) && WTERMSIG(shim.status) == SIGABRT;
	int like_libc = WIFSIGNALED(libc.status) &&
			WTERMSIG(libc.status) == SIGABRT &&
			strstr(libc.err, "buffer overflow detected");
	char name[160];
	snprintf(name, sizeof name, "fortify: %s aborts as the C library's does",
		 label);
	t_check(aborted && like_libc && strstr(shim.err, "buffer overflow detected") &&
			strstr(shim.out, at.shim),
		name, "status 0x%x (C library 0x%x), stderr '%s', stdout '%s'",
		shim.status, libc.status, shim.err, shim.out);
	outcome_free(&shim);
	outcome_free(&libc);
}

static void test_fortify(void)
{
	struct outcome o;
	static struct report r;
	const char *ok[] = {"ok", "40", NULL}, *report[] = {"--report", NULL};
	spawn(run_argv(&at, report, "fortify", ok), NULL, 60, &o);
	relay("fortify", &o);
	parse_report(o.err, &r);
	static const char *const forms[] = {"__memcpy_chk", "__memmove_chk",
		"__mempcpy_chk", "__memset_chk", "__explicit_bzero_chk"};
	int right = 0;
	for (size_t i = 0; i < 5; i++) {
		unsigned long long calls, bytes;
		report_sum(&r, forms[i], "small", &calls, &bytes);
		right += calls == 1 && bytes == (i == 1 ? 39u : 40u);
	}
	t_check(right == 5, "fortify: each checking form reached the shim once",
		"%d of 5; report:\n%s", right, o.err);
	outcome_free(&o);
	static const char *const fortified[] = {"memcpy", "memmove", "memset",
						"explicit_bzero"};
	for (size_t i = 0; i < 4; i++) {
		const char *args[] = {"overflow", fortified[i], "16", NULL};
		check_abort(fortified[i], args);
	}
	for (size_t i = 0; i < 5; i++) {
		const char *args[] = {"chk", forms[i], "16", NULL};
		check_abort(forms[i], args);
	}
}

/* forkexec's EXPECT lines against the report: every count exact. */
static void check_counts(const char *name, const struct outcome *o)
{
	static struct report r;
	parse_report(o->err, &r);
	int expected = 0, right = 0;
	char why[512] = "";
	for (const char *s = o->out; (s = strstr(s, "EXPECT ")); s++) {
		char function[32], kind[32];
		unsigned long long calls, bytes, got_calls, got_bytes;
		if (sscanf(s, "EXPECT %31s %31s %llu %llu", function, kind, &calls,
			   &bytes) != 4)
			continue;
		expected++;
		report_sum(&r, function, kind, &got_calls, &got_bytes);
		if (got_calls == calls && got_bytes == bytes)
			right++;
		else
			snprintf(why, sizeof why, "%s %s: %llu calls, %llu bytes; want "
				 "%llu, %llu", function, kind, got_calls, got_bytes,
				 calls, bytes);
	}
	t_check(r.headers == 1 && expected >= 7 && right == expected, name,
		"%d reports; %d of %d counts right; %s", r.headers, right, expected,
		why);
}

/* The rung the report names for function's calls of n bytes is the one
 * ntmem_policy_choice() gives in this process, whose policy is the same
 * (NTMEM_PROFILE=none, no NTMEM_TUNABLES). */
static void check_choice(const struct outcome *o, const char *function,
			 const char *kind, enum ntmem_op op, int c, size_t n)
{
	static struct report r;
	struct ntmem_variant_info v;
	parse_report(o->err, &r);
	int id = ntmem_policy_choice(op, c, n, 0);
	const char *want = id >= 0 && !ntmem_variant_info(id, &v) ? v.name : "?";
	const char *got = "(no row)";
	for (int i = 0; i < r.nrows; i++)
		if (!strcmp(r.rows[i].function, function) &&
		    !strcmp(row_kind(&r.rows[i]), kind))
			got = strstr(r.rows[i].path, ": ") ? strstr(r.rows[i].path, ": ") + 2
							    : r.rows[i].path;
	char name[128];
	snprintf(name, sizeof name, "report: %s of %zu bytes on the rung "
		 "ntmem_policy_choice names", function, n);
	t_check(!strncmp(got, want, strlen(want)) && got[strlen(want)] == ',', name,
		"report '%s', ntmem_policy_choice '%s'", got, want);
}

static void test_fork_exec_report(void)
{
	struct outcome o;
	const char *parent[] = {"parent", NULL};
	const char *opts[] = {"--stream-above", "0", "--report", NULL};
	spawn(run_argv(&at, opts, "forkexec", parent), NULL, 60, &o);
	t_check(relay("fork and exec", &o) == 3, "fork and exec: both children",
		"%s", o.out);
	check_counts("report: exact counts, from the parent alone", &o);
	outcome_free(&o);

	/* The command's own stderr goes elsewhere; the report does not. */
	char cmd[PATH_MAX + 64];
	snprintf(cmd, sizeof cmd, "exec %s/forkexec parent 2>/dev/null", at.helpers);
	const char *shell[] = {"sh", "-c", cmd, NULL}, *report[] = {"--report", NULL};
	spawn(run_argv(&at, report, NULL, shell), NULL, 60, &o);
	check_counts("report: on ntmem run's stderr, the command's own elsewhere", &o);
	check_choice(&o, "memset", "set", NTMEM_OP_SET, 0, 1u << 20);
	check_choice(&o, "memset", "set_nonzero", NTMEM_OP_SET, 7, 1u << 20);
	check_choice(&o, "memcpy", "copy", NTMEM_OP_COPY, 0, 1u << 20);
	outcome_free(&o);

	spawn(run_argv(&at, NULL, "forkexec", parent), NULL, 60, &o);
	t_check(exited(&o, 0) && !strstr(o.err, "ntmem run: report"),
		"report: none without --report", "status 0x%x: %s", o.status, o.err);
	outcome_free(&o);
}

static void test_query(void)
{
	struct outcome o;
	const char *self[] = {"/proc/self/exe", "--print-preloaded", NULL};
	char exe[PATH_MAX];
	ssize_t n = readlink("/proc/self/exe", exe, sizeof exe - 1);
	exe[n > 0 ? n : 0] = '\0';
	self[0] = exe;
	t_check(ntmem_preloaded() == 0, "ntmem_preloaded: 0 without the shim", "1");
	spawn(run_argv(&at, NULL, NULL, self), NULL, 60, &o);
	t_check(exited(&o, 0) && !strcmp(o.out, "1\n"),
		"ntmem_preloaded: 1 under the shim, from a static copy of the library",
		"status 0x%x, '%s'", o.status, o.out);
	outcome_free(&o);
}

static void test_command_sees(void)
{
	struct outcome o;
	const char *env[] = {"LD_PRELOAD=libm.so.6", "NTMEM_TUNABLES=copy_threshold=1MiB",
			     NULL};
	const char *show[] = {"sh", "-c", "printf '%s\\n%s\\n' \"$LD_PRELOAD\" "
				    "\"$NTMEM_TUNABLES\"", NULL};
	const char *opts[] = {"--stream-above", "0", NULL};
	char want[2 * PATH_MAX];
	snprintf(want, sizeof want, "libm.so.6:%s\ncopy_threshold=1MiB,set_threshold"
		 "=0,set_nonzero_threshold=0,copy_threshold=0\n", at.shim);
	spawn(run_argv(&at, opts, NULL, show), env, 60, &o);
	t_check(exited(&o, 0) && !strcmp(o.out, want),
		"run: LD_PRELOAD and NTMEM_TUNABLES kept, the shim and options "
		"appended", "'%s'", o.out);
	outcome_free(&o);

	const char *seven[] = {"sh", "-c", "exit 7", NULL};
	spawn(run_argv(&at, NULL, NULL, seven), NULL, 60, &o);
	t_check(exited(&o, 7), "run: the command's exit status", "0x%x", o.status);
	outcome_free(&o);
	const char *term[] = {"sh", "-c", "kill -TERM $$", NULL};
	spawn(run_argv(&at, NULL, NULL, term), NULL, 60, &o);
	t_check(WIFSIGNALED(o.status) && WTERMSIG(o.status) == SIGTERM,
		"run: the signal that killed the command", "0x%x", o.status);
	outcome_free(&o);
	char *in_shell[] = {"sh", "-c", "\"$0\" run -- sh -c 'kill -TERM $$'; "
				      "echo \"$?\"", at.ntmem, NULL};
	spawn(in_shell, NULL, 60, &o);
	t_check(exited(&o, 0) && !strcmp(o.out, "143\n"),
		"run: a shell sees 128+15 for SIGTERM", "'%s'", o.out);
	outcome_free(&o);
}

/*
 * A sanitized build's shim behind the ASan runtime: with LD_PRELOAD
 * naming the runtime, ntmem run appends the shim after it, as ASan
 * requires.  ASan's memset and memcpy then come first and hand each call
 * on to the next definition, the shim's, whose own code (the routes, the
 * counting, the report) runs checked by ASan and UBSan.  What this cannot
 * check, the gcc and clang builds do: ASan refuses overlapping memcpy
 * before the shim sees it (so overlaps are checked for memmove only), it
 * counts its own calls in the report, and it clears its shadow memory
 * with memset, which an instrumented streaming loop may not touch (so the
 * default policy only, whose large rungs are the C library's).
 */
static void test_sanitized_shim(void)
{
	Dl_info asan;
	void *init = dlsym(RTLD_DEFAULT, "__asan_init");
	if (!init || !dladdr(init, &asan) || !asan.dli_fname) {
		t_skip("sanitized shim", "the ASan runtime is linked in statically");
		return;
	}
	char ld[PATH_MAX + 16];
	snprintf(ld, sizeof ld, "LD_PRELOAD=%s", asan.dli_fname);
	const char *env[] = {ld, NULL};
	const char *args[] = {"results", "memmove-only", NULL};
	const char *report[] = {"--report", NULL};
	struct outcome o;
	static struct report r;
	spawn(run_argv(&at, report, "verify", args), env, 300, &o);
	relay("sanitized shim behind ASan", &o);
	parse_report(o.err, &r);
	t_check(r.headers == 1 && r.nrows > 0,
		"sanitized shim behind ASan: the report", "%s", o.err);
	outcome_free(&o);
	spawn(run_argv(&at, NULL, "signals", NULL), env, 60, &o);
	relay("sanitized shim behind ASan", &o);
	outcome_free(&o);
}

/*
 * Under qemu-user (a cross build in make check) ntmem run cannot exec a
 * foreign helper, but the emulator can start one itself with the shim in
 * the guest's environment (-E LD_PRELOAD=...): the shim's own code then
 * runs on the emulated CPU, its portable or AArch64 entry points.
 */
static void run_emulated(const char *label, const char *tunables,
			 const char *helper, const char *const *args)
{
	char path[PATH_MAX + 64], tun[256];
	snprintf(path, sizeof path, "%s/%s", at.helpers, helper);
	snprintf(tun, sizeof tun, "NTMEM_TUNABLES=%s", tunables);
	char *argv[16] = {"/bin/sh", "-c",
			  "shim=$1 tunables=$2; shift 2; exec $TEST_WRAPPER "
			  "-E LD_PRELOAD=\"$shim\" -E \"$tunables\" \"$@\"",
			  "sh", at.shim, tun, path};
	int n = 7;
	for (; args && *args && n < 15; args++)
		argv[n++] = (char *)*args;
	argv[n] = NULL;
	struct outcome o;
	spawn(argv, NULL, 300, &o);
	relay(label, &o);
	outcome_free(&o);
}

static void test_emulated(void)
{
	const char *wrapper = getenv("TEST_WRAPPER");
	if (!strstr(wrapper, "qemu")) {
		t_skip("preload: programs under the shim", spawn_unavailable());
		return;
	}
	const char *symbols[] = {"symbols", at.shim, NULL}, *results[] = {"results", NULL};
	run_emulated("emulated symbols", "", "verify", symbols);
	run_emulated("emulated results, default policy", "", "verify", results);
	run_emulated("emulated results, streaming at every size",
		     "set_threshold=0,set_nonzero_threshold=0,copy_threshold=0",
		     "verify", results);
	run_emulated("emulated early", "", "early", NULL);
	t_skip("preload: ntmem run, fortify, fork and exec, the report",
	       spawn_unavailable());
}

int main(int argc, char **argv)
{
	if (argc == 2 && !strcmp(argv[1], "--print-preloaded")) {
		printf("%d\n", ntmem_preloaded());
		return 0;
	}
	if (find_places(&at)) {
		t_fail("preload: the build's ntmem and libntmem-preload.so",
		       "not found next to %s", t_ntmem());
		return t_finish();
	}
	if (spawn_unavailable()) {
		t_check(ntmem_preloaded() == 0, "ntmem_preloaded: 0 without the shim",
			"1");
		test_emulated();
		return t_finish();
	}
	if (SHIM_SANITIZED) {
		t_skip("preload: programs under ntmem run", SHIM_SANITIZED_WHY);
		test_sanitized_shim();
		return t_finish();
	}
	test_symbols();
	test_results();
	test_early_and_signals();
	test_fortify();
	test_fork_exec_report();
	test_query();
	test_command_sees();
	return t_finish();
}
