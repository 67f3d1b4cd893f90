/*
 * test_run.c - "ntmem run": its options, the environment it gives the
 * command, where it finds the shim, and its exit status.  The parts that
 * run nothing under the shim, so every build checks them, the sanitized
 * one included.
 */
#include "preload/spawn.h"

#include "run/run.h"

static struct places at;

/* Parse "run ARGS... -- true"; returns run_parse's result. */
static int parse(const char *const *args, struct run_options *o,
		 struct cli_error *e)
{
	char *argv[32];
	int argc = 0, help;
	argv[argc++] = "run";
	for (; *args; args++)
		argv[argc++] = (char *)*args;
	argv[argc] = NULL;
	return run_parse(argc, argv, o, &help, e);
}

static void test_options(void)
{
	struct run_options o;
	struct cli_error e;
	const char *above[] = {"--stream-above", "64MiB", "--", "true", "-x", NULL};
	t_check(!parse(above, &o, &e) &&
			!strcmp(o.tunables, "set_threshold=67108864,"
					    "set_nonzero_threshold=67108864,"
					    "copy_threshold=67108864") &&
			!strcmp(o.command[0], "true") && !strcmp(o.command[1], "-x") &&
			!o.command[2] && !o.report,
		"run: --stream-above sets all three thresholds", "'%s'", o.tunables);
	const char *never[] = {"-n", "-r", "true", NULL};
	t_check(!parse(never, &o, &e) && o.report &&
			!strcmp(o.tunables, "set_threshold=max,set_nonzero_threshold="
					    "max,copy_threshold=max"),
		"run: --never-stream, --report, and no '--'", "'%s'", o.tunables);
	const char *ladder[] = {"--stream-above", "0", "--ladder",
				"copy=libc:1MiB,libc", "--", "cat", NULL};
	t_check(!parse(ladder, &o, &e) &&
			!strcmp(o.tunables, "copy=libc:1MiB,libc,set_threshold=0,"
					    "set_nonzero_threshold=0,copy_threshold=0"),
		"run: ladders first, then the threshold that edits them", "'%s'",
		o.tunables);
	const char *stop[] = {"--", "cmd", "--stream-above", "1", NULL};
	t_check(!parse(stop, &o, &e) && !o.tunables[0] &&
			!strcmp(o.command[1], "--stream-above"),
		"run: the command's own options are its own", "'%s'", o.tunables);
}

/* Each of these must be a usage error whose message names want. */
static void test_bad_options(void)
{
	static const struct {
		const char *args[6], *want;
	} bad[] = {
		{{"--stream-above", "12Q", "true"}, "--stream-above"},
		{{"--stream-above", "1M", "--never-stream", "true"}, "--never-stream"},
		{{"--ladder", "fast", "true"}, "--ladder"},
		{{"--ladder", "copy=", "true"}, "--ladder"},
		{{"--bogus", "true"}, "--bogus"},
		{{"--stream-above"}, "--stream-above"},
		{{"--report"}, "no command"},
	};
	for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
		struct run_options o;
		struct cli_error e;
		char name[128];
		snprintf(name, sizeof name, "run: usage error for %s %s",
			 bad[i].args[0], bad[i].args[1] ? bad[i].args[1] : "");
		int r = parse(bad[i].args, &o, &e);
		t_check(r == -1 && e.status == CLI_USAGE && strstr(e.msg, bad[i].want),
			name, "returned %d, status %d, '%s'", r, r ? (int)e.status : 0,
			r ? e.msg : "");
	}
	/* A threshold inside the small path is refused, naming the option;
	 * 0 and the first size past it are not. */
	struct ntmem_ladder_info li;
	ntmem_ladder_info(NTMEM_CLASS_COPY, &li);
	char half[32], inside[32], past[32], want[80];
	snprintf(half, sizeof half, "%zu", li.small_max / 2);  /* 64 on AVX2 */
	snprintf(inside, sizeof inside, "%zu", li.small_max);
	snprintf(past, sizeof past, "%zu", li.small_max + 1);
	snprintf(want, sizeof want, "--stream-above: %zu B lies inside the small path",
		 li.small_max / 2);
	const char *small[] = {"--stream-above", half, "true", NULL};
	const char *top[] = {"--stream-above", inside, "true", NULL};
	const char *zero[] = {"--stream-above", "0", "true", NULL};
	const char *beyond[] = {"--stream-above", past, "true", NULL};
	struct run_options o;
	struct cli_error e;
	int r64 = parse(small, &o, &e);
	int ok = r64 == -1 && e.status == CLI_USAGE && strstr(e.msg, want);
	ok = ok && parse(top, &o, &e) == -1 && strstr(e.msg, "--stream-above");
	t_check(ok && !parse(zero, &o, &e) && !parse(beyond, &o, &e),
		"run: --stream-above inside the small path is a usage error; 0 "
		"and past it are not", "%d '%s'", r64, e.msg);
	int r = run_check_tunables("copy=no_such_variant", &e);
	t_check(r == -1 && e.status == CLI_USAGE && strstr(e.msg, "no_such_variant"),
		"run: a ladder naming no variant is a usage error", "%d '%s'", r,
		r ? e.msg : "");
	t_check(run_check_tunables("copy=libc:1MiB,libc", &e) == 0,
		"run: a good ladder passes the trial policy", "%s", e.msg);
}

static void test_environment_joins(void)
{
	char buf[256] = "";
	struct cli_error e;
	const char *s = "/lib/shim.so";
	t_check(!run_join_preload(NULL, s, buf, sizeof buf, &e) && !strcmp(buf, s),
		"run: LD_PRELOAD unset: the shim alone", "'%s'", buf);
	t_check(!run_join_preload("libm.so.6", s, buf, sizeof buf, &e) &&
			!strcmp(buf, "libm.so.6:/lib/shim.so"),
		"run: LD_PRELOAD set: the shim appended", "'%s'", buf);
	t_check(!run_join_preload("a.so /lib/shim.so", s, buf, sizeof buf, &e) &&
			!strcmp(buf, "a.so /lib/shim.so"),
		"run: LD_PRELOAD naming the shim already: unchanged", "'%s'", buf);
	t_check(run_join_preload(NULL, "/a b/shim.so", buf, sizeof buf, &e) == -1,
		"run: a shim path LD_PRELOAD cannot hold is refused", "'%s'", buf);
	t_check(!run_join_tunables("copy_threshold=1MiB", "set_threshold=0", buf,
				   sizeof buf, &e) &&
			!strcmp(buf, "copy_threshold=1MiB,set_threshold=0"),
		"run: NTMEM_TUNABLES kept, the options after it", "'%s'", buf);
	t_check(!run_join_tunables(NULL, "a=1", buf, sizeof buf, &e) &&
			!strcmp(buf, "a=1"),
		"run: NTMEM_TUNABLES unset: the options alone", "'%s'", buf);
	int r = run_find_shim("/nonexistent/bin", "/nonexistent/lib", buf,
			      sizeof buf, &e);
	t_check(r == -1 && e.status == CLI_FAILED &&
			strstr(e.msg, "/nonexistent/bin") && strstr(e.msg, "/nonexistent/lib"),
		"run: a missing shim is an error saying where it looked", "'%s'",
		r ? e.msg : buf);
}

/* An installed tree: bin/ntmem and lib/libntmem-preload.so under any
 * prefix, whatever LIBDIR the binary was built with. */
static void test_installed_layout(void)
{
	char root[] = "/tmp/ntmem-run-layout-XXXXXX", bin[64], lib[64], shim[96];
	char found[PATH_MAX] = "", want[PATH_MAX] = "";
	struct cli_error e;
	if (!mkdtemp(root)) {
		t_fail("run: the shim in ../lib", "mkdtemp: %s", strerror(errno));
		return;
	}
	snprintf(bin, sizeof bin, "%s/bin", root);
	snprintf(lib, sizeof lib, "%s/lib", root);
	snprintf(shim, sizeof shim, "%s/libntmem-preload.so", lib);
	int made = !mkdir(bin, 0700) && !mkdir(lib, 0700) &&
		   close(open(shim, O_WRONLY | O_CREAT, 0600)) == 0;
	int r = run_find_shim(bin, "/nonexistent/lib", found, sizeof found, &e);
	t_check(made && r == 0 && realpath(shim, want) && !strcmp(found, want),
		"run: the shim in ../lib beside the binary", "returned %d, '%s'", r,
		r ? e.msg : found);
	unlink(shim);
	rmdir(lib);
	rmdir(bin);
	rmdir(root);
}

/* The tool itself: help, usage errors, a command that is not there. */
static void test_binary(void)
{
	struct outcome o;
	char *help[] = {at.ntmem, "run", "--help", NULL};
	spawn(help, NULL, 30, &o);
	t_check(exited(&o, 0) && strstr(o.out, "Usage: ntmem run"),
		"run --help", "status 0x%x", o.status);
	outcome_free(&o);
	char *bad[] = {at.ntmem, "run", "--ladder", "copy=no_such", "--", "true", NULL};
	spawn(bad, NULL, 30, &o);
	t_check(exited(&o, 2) && strstr(o.err, "no_such"),
		"run: a bad ladder exits 2 naming it", "status 0x%x: %s", o.status,
		o.err);
	outcome_free(&o);
	char *none[] = {at.ntmem, "run", "--report", NULL};
	spawn(none, NULL, 30, &o);
	t_check(exited(&o, 2), "run without a command exits 2", "status 0x%x",
		o.status);
	outcome_free(&o);
	char *missing[] = {at.ntmem, "run", "--", "/nonexistent/program", NULL};
	spawn(missing, NULL, 30, &o);
	t_check(exited(&o, 127) && strstr(o.err, "/nonexistent/program"),
		"run: a command that is not there exits 127", "status 0x%x: %s",
		o.status, o.err);
	outcome_free(&o);
}

int main(void)
{
	if (find_places(&at)) {
		t_fail("run: the build's ntmem and libntmem-preload.so",
		       "not found next to %s", t_ntmem());
		return t_finish();
	}
	test_options();
	test_bad_options();
	test_environment_joins();
	test_installed_layout();
	if (spawn_unavailable())
		t_skip("run: the ntmem binary itself", spawn_unavailable());
	else
		test_binary();
	return t_finish();
}
