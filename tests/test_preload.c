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
 *     calls of every process of the tree, however each ends (exit, _exit,
 *     exec, SIGKILL), through sh -c pipelines, and leaks no descriptor
 *     into them;
 *   - ntmem_preloaded(), and what ntmem run gives the command: its
 *     environment and its exit status.
 */
#include "preload/spawn.h"

#include "dispatch/cpu.h"

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

/* Every rung path of r streams (want 1) or none does (want 0). */
static void check_streaming(const char *name, const struct report *r, int want)
{
	int rungs, streaming;
	unsigned long long calls;
	report_rungs(r, NULL, &rungs, &streaming, &calls);
	t_check(r->json && rungs > 0 && streaming == (want ? rungs : 0), name,
		"%d rung paths, %d of them streaming; %s", rungs, streaming, r->why);
}

static void test_results(void)
{
	static struct report r;
	static const struct {
		const char *label, *opts[5];
		int streams;  /* -1: whatever the default policy says */
	} policies[] = {
		{"results, default policy", {NULL}, -1},
		{"results, streaming at every size",
		 {"--stream-above", "0", "--report-json", r.path}, 1},
		{"results, never streaming", {"--never-stream", "--report-json", r.path}, 0},
	};
	const char *args[] = {"results", NULL};
	for (size_t i = 0; i < sizeof policies / sizeof policies[0]; i++) {
		struct outcome o;
		report_file(&r);
		spawn(run_argv(&at, policies[i].opts, "verify", args), NULL, 120, &o);
		relay(policies[i].label, &o);
		report_read(&r);
		if (policies[i].streams >= 0) {
			char name[128];
			snprintf(name, sizeof name, "%s: the report says so",
				 policies[i].label);
			check_streaming(name, &r, policies[i].streams);
		}
		report_free(&r);
		outcome_free(&o);
	}
}

/* Every class of every width the shim can run here, forced with
 * NTMEM_TUNABLES shim_width=: through ntmem run, which preloads that
 * width's own library, and the dispatching library preloaded by hand (a
 * CPU without AVX-512 or AVX2 runs the narrower ones only; qemu's
 * Nehalem and Haswell run this test too). */
static void test_widths(void)
{
	static const struct {
		const char *name;
		unsigned need;
	} widths[] = {{"sse2", 0}, {"avx2", CPU_AVX2},
		      {"avx512", CPU_AVX512F | CPU_AVX512BW | CPU_AVX512VL}};
	const char *args[] = {"results", NULL};
	for (size_t i = 0; i < sizeof widths / sizeof widths[0]; i++) {
		char label[64], tun[64];
		snprintf(label, sizeof label, "results, shim_width=%s", widths[i].name);
#if defined(__x86_64__)
		if ((ntm_cpu()->usable & widths[i].need) != widths[i].need) {
			t_skip(label, "this CPU does not run that width");
			continue;
		}
#else
		t_skip(label, "the shim's widths are x86-64's");
		continue;
#endif
		snprintf(tun, sizeof tun, "NTMEM_TUNABLES=shim_width=%s", widths[i].name);
		const char *env[] = {tun, NULL};
		struct outcome o;
		spawn(run_argv(&at, NULL, "verify", args), env, 120, &o);
		relay(label, &o);
		outcome_free(&o);
		char preload[PATH_MAX + 16];
		snprintf(preload, sizeof preload, "LD_PRELOAD=%s", at.dispatching);
		const char *by_hand[] = {tun, preload, NULL};
		snprintf(label, sizeof label, "results, the dispatching shim, "
			 "shim_width=%s", widths[i].name);
		spawn(run_argv(&at, NULL, "verify", args) + 3, by_hand, 120, &o);
		relay(label, &o);
		outcome_free(&o);
		const char *symbols[] = {"symbols", at.dispatching, NULL};
		spawn(run_argv(&at, NULL, "verify", symbols) + 3, by_hand, 60, &o);
		t_check(relay(label, &o) == 13, label, "%s",
			"not all 13 names are the dispatching shim's");
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
	const char *ok[] = {"ok", "40", NULL}, *report[] = {"--report-json", r.path, NULL};
	report_file(&r);
	spawn(run_argv(&at, report, "fortify", ok), NULL, 60, &o);
	relay("fortify", &o);
	report_read(&r);
	static const char *const forms[] = {"__memcpy_chk", "__memmove_chk",
		"__mempcpy_chk", "__memset_chk", "__explicit_bzero_chk"};
	int right = 0;
	for (size_t i = 0; i < 5; i++) {
		unsigned long long calls, bytes;
		report_sum(&r, forms[i], "small", &calls, &bytes);
		right += calls == 1 && bytes == (i == 1 ? 39u : 40u);
	}
	t_check(right == 5, "fortify: each checking form reached the shim once",
		"%d of 5; %s", right, r.why);
	report_free(&r);
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

/* forkexec's EXPECT lines against the report: every count exact; those
 * of small calls only where no other program shares the report. */
static void check_counts(const char *name, const struct outcome *o,
			 const struct report *r, int small_too)
{
	int expected = 0, right = 0;
	char why[512] = "";
	for (const char *s = o->out; (s = strstr(s, "EXPECT ")); s++) {
		char function[32], kind[32];
		unsigned long long calls, bytes, got_calls, got_bytes;
		if (sscanf(s, "EXPECT %31s %31s %llu %llu", function, kind, &calls,
			   &bytes) != 4 || (!small_too && !strcmp(kind, "small")))
			continue;
		expected++;
		report_sum(r, function, kind, &got_calls, &got_bytes);
		if (got_calls == calls && got_bytes == bytes)
			right++;
		else
			snprintf(why, sizeof why, "%s %s: %llu calls, %llu bytes; want "
				 "%llu, %llu", function, kind, got_calls, got_bytes,
				 calls, bytes);
	}
	t_check(r->json && expected >= (small_too ? 7 : 4) && right == expected, name,
		"%d of %d counts right; %s %s", right, expected, why, r->why);
}

/* The path the report names for function's calls of n bytes is the rung
 * ntmem_policy_choice() gives in this process, whose policy is the same
 * (NTMEM_PROFILE=none, no NTMEM_TUNABLES). */
static void check_choice(const struct report *r, const char *function,
			 const char *cls, enum ntmem_op op, int c, size_t n)
{
	struct ntmem_variant_info v;
	int id = ntmem_policy_choice(op, c, n, 0);
	const char *want = id >= 0 && !ntmem_variant_info(id, &v) ? v.name : "?";
	const struct t_json *b = report_bucket(r, function, cls, (double)n);
	const char *got = b ? tj_str(b, "rung") : "(no bucket)";
	char name[128];
	snprintf(name, sizeof name, "report: %s of %zu bytes on the rung "
		 "ntmem_policy_choice names", function, n);
	t_check(!strcmp(got, want), name, "report '%s', ntmem_policy_choice '%s'",
		got, want);
}

static void test_fork_exec_report(void)
{
	struct outcome o;
	static struct report r;
	const char *parent[] = {"parent", NULL};
	const char *opts[] = {"--stream-above", "0", "--report-json", r.path, NULL};
	report_file(&r);
	spawn(run_argv(&at, opts, "forkexec", parent), NULL, 60, &o);
	report_read(&r);
	t_check(relay("fork and exec", &o) == 3, "fork and exec: both children",
		"%s", o.out);
	check_counts("report: exact counts, the parent's and its children's", &o,
		     &r, 1);
	report_free(&r);
	outcome_free(&o);

	/* Through a shell; the command's own stderr goes elsewhere, the
	 * report does not. */
	char cmd[PATH_MAX + 64];
	snprintf(cmd, sizeof cmd, "exec %s/forkexec parent 2>/dev/null", at.helpers);
	const char *shell[] = {"sh", "-c", cmd, NULL};
	const char *report[] = {"--report", "--report-json", r.path, NULL};
	report_file(&r);
	spawn(run_argv(&at, report, NULL, shell), NULL, 60, &o);
	report_read(&r);
	check_counts("report: through sh -c, the same counts", &o, &r, 0);
	t_check(strstr(o.err, "ntmem run: report for") && strstr(o.err, "verdict"),
		"report: the text on ntmem run's stderr, the command's own elsewhere",
		"%s", o.err);
	check_choice(&r, "memset", "set", NTMEM_OP_SET, 0, 1u << 20);
	check_choice(&r, "memset", "set_nonzero", NTMEM_OP_SET, 7, 1u << 20);
	check_choice(&r, "memcpy", "copy", NTMEM_OP_COPY, 0, 1u << 20);
	report_free(&r);
	outcome_free(&o);

	spawn(run_argv(&at, NULL, "forkexec", parent), NULL, 60, &o);
	t_check(exited(&o, 0) && !strstr(o.err, "ntmem run: report"),
		"report: none without --report", "status 0x%x: %s", o.status, o.err);
	outcome_free(&o);
}

/* The copies of the tree helper's processes, one program at a time. */
static void check_program(const struct report *r, const char *name,
			  unsigned processes)
{
	const struct t_json *p = report_program(r, name);
	char label[96];
	snprintf(label, sizeof label, "process tree: %u %s process%s", processes,
		 name, processes == 1 ? "" : "es");
	t_check(p && tj_num(p, "processes") == processes, label, "%g; %s",
		p ? tj_num(p, "processes") : -1, r->why);
}

static void test_process_tree(void)
{
	struct outcome o;
	static struct report r;
	const char *parent[] = {"parent", NULL};
	const char *opts[] = {"--report-json", r.path, NULL};
	report_file(&r);
	spawn(run_argv(&at, opts, "tree", parent), NULL, 120, &o);
	report_read(&r);
	relay("process tree", &o);
	int want = -1;
	const char *expect = strstr(o.out, "EXPECT COPIES ");
	if (expect)
		want = atoi(expect + 14);
	const struct t_json *b = report_bucket(&r, "memcpy", "copy", 300000);
	double calls = b ? tj_num(b, "calls") : -1, bytes = b ? tj_num(b, "bytes") : -1;
	t_check(want > 0 && calls == want && bytes == 300000.0 * want,
		"process tree: every process's copies, merged (exit, _exit, SIGKILL, "
		"exec, a pipeline)", "%g calls, %g bytes; want %d; %s", calls, bytes,
		want, r.why);
	/* tree: the parent, the _exit and SIGKILL children, the exec'ing
	 * child before its exec, the two leaves. */
	check_program(&r, "tree", 6);
	check_program(&r, "tree-exec", 1);
	check_program(&r, "tree-again", 1);
	t_check(report_program(&r, "sh") != NULL, "process tree: the shell is a "
		"program of the report", "%s", r.why);
	report_free(&r);
	outcome_free(&o);

	/* The descriptors a program gets are the same with a report and
	 * without, and none is the report's. */
	const char *fds[] = {"fds", NULL};
	struct outcome plain;
	spawn(run_argv(&at, NULL, "tree", fds), NULL, 60, &plain);
	report_file(&r);
	spawn(run_argv(&at, opts, "tree", fds), NULL, 60, &o);
	report_read(&r);
	char plain_fds[256] = "", report_fds[256] = "";
	for (const char *s = plain.out; (s = strstr(s, "FD ")); s++)
		snprintf(plain_fds + strlen(plain_fds), sizeof plain_fds - strlen(plain_fds),
			 "%d ", atoi(s + 3));
	for (const char *s = o.out; (s = strstr(s, "FD ")); s++)
		snprintf(report_fds + strlen(report_fds),
			 sizeof report_fds - strlen(report_fds), "%d ", atoi(s + 3));
	t_check(exited(&plain, 0) && exited(&o, 0) && *plain_fds &&
			!strcmp(plain_fds, report_fds) && !strstr(o.out, "ntmem-run."),
		"process tree: no descriptor leaked into the command",
		"without a report: %s; with: %s\n%s", plain_fds, report_fds, o.out);
	report_free(&r);
	outcome_free(&plain);
	outcome_free(&o);
}

/* "ntmem run --compare N": its arms and what it says of their output,
 * all of it on standard error (as --report's), none on standard output,
 * which stays the command's. */
static void check_compare(const char *name, const char *const *opts,
			  const char *script, int status, const char *want_err)
{
	struct outcome o;
	const char *args[] = {"sh", "-c", script, NULL};
	spawn(run_argv(&at, opts, NULL, args), NULL, 120, &o);
	t_check(exited(&o, status) && !*o.out && strstr(o.err, want_err),
		name, "status 0x%x\nstdout: '%s'\nstderr: %s", o.status, o.out,
		o.err);
	outcome_free(&o);
}

static void test_compare(void)
{
	const char *three[] = {"--compare", "3", NULL};
	const char *forced[] = {"--compare", "3", "--stream-above", "0", NULL};
	check_compare("compare: two arms, the same output, on stderr", three,
		      "echo same", 0, "standard output: identical in all 6 runs");
	check_compare("compare: --stream-above adds a third arm", forced,
		      "echo same", 0, "identical in all 9 runs");
	check_compare("compare: the arms' table", forced, "echo same", 0,
		      "  without ");
	check_compare("compare: an output the shim changes is found, exit 1",
		      three, "echo ${LD_PRELOAD:+shim}", 1, "DIFFERS between the arms");
	check_compare("compare: an output that changes every run is called so",
		      three, "echo $$", 0, "differs from run to run");
	check_compare("compare: a failing command stops it, naming the arm",
		      three, "exit 3", 1, "exited with status 3 in the 'without' arm");
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
 * serves memmove itself (so the report shows memcpy, not memmove), it
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
	static struct report r;
	const char *report[] = {"--report-json", r.path, NULL};
	struct outcome o;
	unsigned long long calls, bytes;
	report_file(&r);
	spawn(run_argv(&at, report, "verify", args), env, 300, &o);
	relay("sanitized shim behind ASan", &o);
	report_read(&r);
	/* ASan moves memmove's bytes itself; memcpy it hands on. */
	report_sum(&r, "memcpy", "any", &calls, &bytes);
	t_check(calls > 0, "sanitized shim behind ASan: the report", "%s %s",
		r.why, o.err);
	report_free(&r);
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
static void run_emulated(const char *label, const char *shim, const char *tunables,
			 const char *helper, const char *const *args)
{
	char path[PATH_MAX + 64], tun[256];
	snprintf(path, sizeof path, "%s/%s", at.helpers, helper);
	snprintf(tun, sizeof tun, "NTMEM_TUNABLES=%s", tunables);
	char *argv[16] = {"/bin/sh", "-c",
			  "shim=$1 tunables=$2; shift 2; exec $TEST_WRAPPER "
			  "-E LD_PRELOAD=\"$shim\" -E \"$tunables\" \"$@\"",
			  "sh", (char *)shim, tun, path};
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
	run_emulated("emulated symbols", at.shim, "", "verify", symbols);
	run_emulated("emulated results, default policy", at.shim, "", "verify", results);
	run_emulated("emulated results, the dispatching shim", at.dispatching, "",
		     "verify", results);
	run_emulated("emulated results, streaming at every size", at.shim,
		     "set_threshold=0,set_nonzero_threshold=0,copy_threshold=0",
		     "verify", results);
	run_emulated("emulated early", at.shim, "", "early", NULL);
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
	test_widths();
	test_early_and_signals();
	test_fortify();
	test_fork_exec_report();
	test_process_tree();
	test_compare();
	test_query();
	test_command_sees();
	return t_finish();
}
