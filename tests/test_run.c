/*
 * test_run.c - "ntmem run": its options, the environment it gives the
 * command, where it finds the shim, and its exit status; and the report's
 * merging and verdict, from records written here with known counts.  The
 * parts that run nothing under the shim, so every build checks them, the
 * sanitized one and the emulated ones included.
 */
#include "preload/spawn.h"

#include "dispatch/registry.h"
#include "run/records.h"
#include "run/report.h"
#include "run/run.h"
#include "util/size.h"

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
	const char *compare[] = {"--compare", "5", "--stream-above", "1MiB", "-l",
				 "copy=libc", "--show-output", "--", "cmd", NULL};
	t_check(!parse(compare, &o, &e) && o.compare == 5 && o.stream_above &&
			!o.stream_above_as_s && o.show_output &&
			o.unforced_len == strlen("copy=libc") &&
			!strncmp(o.tunables, "copy=libc,set_threshold=1048576", 31),
		"run: --compare N --show-output; the streaming arm's thresholds "
		"after the others' options", "%ld '%s' %zu", o.compare, o.tunables,
		o.unforced_len);
	/* -s, --size in ntmem bench: still --stream-above here, marked so
	 * that ntmem run says it is going. */
	const char *short_s[] = {"-s", "1MiB", "cmd", NULL};
	t_check(!parse(short_s, &o, &e) && o.stream_above && o.stream_above_as_s &&
			!strcmp(o.tunables, "set_threshold=1048576,set_nonzero_threshold="
					    "1048576,copy_threshold=1048576"),
		"run: -s still means --stream-above, marked as deprecated", "'%s' %d",
		o.tunables, o.stream_above_as_s);
	const char *json[] = {"--report-json", "/tmp/r.json", "cmd", NULL};
	t_check(!parse(json, &o, &e) && !o.report && o.report_json &&
			!strcmp(o.report_json, "/tmp/r.json"),
		"run: --report-json FILE alone", "%d %s", o.report,
		o.report_json ? o.report_json : "(null)");
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
		{{"--compare", "0", "true"}, "--compare"},
		{{"--compare", "x", "true"}, "--compare"},
		{{"--compare", "3", "--report", "true"}, "--report"},
		{{"--report-json", "", "true"}, "--report-json"},
		{{"--show-output", "true"}, "--show-output"},
		{{"--show-output", "--report", "true"}, "--show-output"},
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
	/* The bound the verdict's advice must keep to. */
	size_t min = run_stream_above_min();
	t_check(min == li.small_max + 1,
		"run: run_stream_above_min() is one past the small path", "%zu, "
		"small path to %zu", min, li.small_max);
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
	int r = run_find_shim("/nonexistent/bin", "/nonexistent/lib", NULL, buf,
			      sizeof buf, &e);
	t_check(r == -1 && e.status == CLI_FAILED &&
			strstr(e.msg, "/nonexistent/bin") && strstr(e.msg, "/nonexistent/lib"),
		"run: a missing shim is an error saying where it looked", "'%s'",
		r ? e.msg : buf);
}

/* ------------------------------------------------------------------ */
/* The report, from records of known counts                           */
/* ------------------------------------------------------------------ */

/* The first supported variant of op that streams (streams) or not. */
static int variant_id(enum ntmem_op op, int streams)
{
	for (int id = 0; id < ntm_variant_count(); id++) {
		const struct variant *v = ntm_variant(id);
		if (v->op == op && !v->zero_only && ntm_streams(v) == !!streams &&
		    !ntm_variant_unsupported(v))
			return id;
	}
	return -1;
}

/* A record as the shim writes it, with a copy ladder of a cached rung
 * to 64 MiB, then (with streaming) a streaming one. */
static struct ntm_record *new_record(const char *program, long pid,
				     int streaming)
{
	static struct ntm_record r;
	memset(&r, 0, sizeof r);
	memcpy(r.magic, NTM_RECORD_MAGIC, sizeof NTM_RECORD_MAGIC);
	r.size = sizeof r;
	r.exited = 1;
	r.pid = pid;
	r.small_max = 256;
	snprintf(r.program, sizeof r.program, "%s", program);
	snprintf(r.policy, sizeof r.policy, "built-in test");
	struct ntm_record_ladder *l = &r.ladder[NTMEM_CLASS_COPY];
	l->variant[0] = variant_id(NTMEM_OP_COPY, 0);
	l->to[0] = streaming ? 64 * MiB : SIZE_MAX;
	l->variant[1] = variant_id(NTMEM_OP_COPY, 1);
	l->to[1] = SIZE_MAX;
	l->count = streaming ? 2 : 1;
	/* Path slots 0 and 1: the same two variants. */
	for (int i = 0; i < NTM_RECORD_VARIANTS; i++)
		r.variant[i] = i < 2 ? l->variant[i] : -1;
	for (int cls = 0; cls < 3; cls++)
		r.learn_from[cls] = UINT64_MAX;
	return &r;
}

/* n memcpy calls of size bytes on path slot `rung` in r. */
static void add_copies(struct ntm_record *r, unsigned n, uint64_t size,
		       unsigned rung)
{
	struct ntm_record_cell *c =
		&r->cell[SHIM_memcpy][ntm_record_bucket(size)][NTM_PATH_VARIANT + rung];
	c->calls += n;
	c->bytes += n * size;
}

static int write_record(const char *dir, const char *name,
			const struct ntm_record *r, size_t len)
{
	char path[PATH_MAX];
	snprintf(path, sizeof path, "%s/%s", dir, name);
	FILE *f = fopen(path, "w");
	int ok = f && fwrite(r, 1, len, f) == len;
	return (f && fclose(f)) || !ok ? -1 : 0;
}

/* pids above the kernel's largest (4194304): never alive. */
#define NO_PID 5000000L

/* Every record in dir, as ntmem run folds them once the command with
 * NO_PID has ended: through the directory's descriptor. */
static int fold_dir(struct tree *t, const char *dir, struct cli_error *e)
{
	int fd = open(dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (fd < 0)
		return cli_error(e, CLI_FAILED, "%s: %s", dir, strerror(errno));
	int rc = tree_fold(t, fd, NO_PID, 1, e);
	close(fd);
	return rc;
}

static void test_report_merge(void)
{
	char dir[] = "/tmp/ntmem-run-records-XXXXXX";
	static struct tree t;
	struct cli_error e;
	if (variant_id(NTMEM_OP_COPY, 1) < 0) {
		t_skip("report: records merged, verdicts", "no variant streams on "
		       "this architecture (the portable build)");
		return;
	}
	if (!mkdtemp(dir)) {
		t_fail("report: records", "mkdtemp: %s", strerror(errno));
		return;
	}
	/* The command: a shell that copied nothing and exec'd "db"; db's
	 * copies; a child of db that was killed (its record never says
	 * exited); and a file that is no record. */
	struct ntm_record *r = new_record("sh", NO_PID, 1);
	int bad = write_record(dir, "5000000-0.rec", r, sizeof *r);
	r = new_record("db", NO_PID, 1);
	add_copies(r, 100, MiB, 0);
	add_copies(r, 3, 300 * KiB, 0);
	bad |= write_record(dir, "5000000-1.rec", r, sizeof *r);
	r = new_record("db", NO_PID + 1, 1);
	r->exited = 0;
	add_copies(r, 2, 256 * MiB, 1);
	bad |= write_record(dir, "5000001-0.rec", r, sizeof *r);
	bad |= write_record(dir, "5000002-0.rec", r, 100);
	tree_init(&t);
	int rc = fold_dir(&t, dir, &e);
	const struct tree_line *l = &t.line[SHIM_memcpy];
	int cached = NTM_PATH_VARIANT + variant_id(NTMEM_OP_COPY, 0);
	int streams = NTM_PATH_VARIANT + variant_id(NTMEM_OP_COPY, 1);
	t_check(!bad && !rc && t.nproc == 3 && t.unreadable == 1 &&
			l->cell[ntm_record_bucket(MiB)][cached].calls == 100 &&
			l->cell[ntm_record_bucket(MiB)][cached].bytes == 100 * MiB &&
			l->cell[ntm_record_bucket(300 * KiB)][cached].calls == 3 &&
			l->cell[ntm_record_bucket(256 * MiB)][streams].calls == 2,
		"report: records merged by bucket and by the variant each rung "
		"names", "rc %d, %zu processes, %u unreadable", rc, t.nproc,
		t.unreadable);
	struct tree_program p[4];
	size_t n = tree_programs(&t, p, 4);
	t_check(n == 1 && !strcmp(p[0].name, "db") && p[0].processes == 2 &&
			p[0].calls == 105,
		"report: a shell that exec'd with no calls is not a program; one "
		"program of two processes", "%zu programs, first %s, %u, %llu", n,
		n ? p[0].name : "-", n ? p[0].processes : 0,
		n ? (unsigned long long)p[0].calls : 0);
	struct verdict v;
	report_verdict(&t, NTMEM_CLASS_COPY, &v);
	t_check(v.calls == 105 && v.streamed_calls == 2 &&
			v.streamed_bytes == 512 * MiB && v.streams_from == 64 * MiB &&
			!v.streams_to &&
			strstr(v.text, "84% of the bytes copied were streamed, by ") &&
			strstr(v.text, "(this machine streams from 64 MiB, ") &&
			strstr(v.text, "streaming applies to this program"),
		"report: the verdict where streaming applies", "'%s'", v.text);
	t_check(report_verdict(&t, NTMEM_CLASS_SET_ZERO, &v) == 0,
		"report: no verdict for a class without calls", "'%s'", v.text);
	tree_free(&t);
	memset(&t, 0, sizeof t);

	/* Only the 1 MiB copies: below where the ladder streams. */
	r = new_record("db", NO_PID, 1);
	add_copies(r, 100, MiB, 0);
	add_copies(r, 1, 4 * KiB, 0);
	bad = write_record(dir, "5000000-0.rec", r, sizeof *r);
	tree_init(&t);
	rc = fold_dir(&t, dir, &e);
	report_verdict(&t, NTMEM_CLASS_COPY, &v);
	t_check(!bad && !rc && v.lo == ntm_record_bucket(MiB) && v.hi == v.lo &&
			strstr(v.text, "100% of the bytes copied were in calls of "
				       "1 MiB to 2 MiB, below where this machine "
				       "streams (from 64 MiB, ") &&
			strstr(v.text, "): streaming does not apply"),
		"report: the verdict where streaming does not apply", "'%s'", v.text);
	tree_free(&t);
	memset(&t, 0, sizeof t);

	/* A ladder that never streams. */
	r = new_record("db", NO_PID, 0);
	add_copies(r, 2, 256 * MiB, 0);
	bad = write_record(dir, "5000000-0.rec", r, sizeof *r);
	tree_init(&t);
	rc = fold_dir(&t, dir, &e);
	report_verdict(&t, NTMEM_CLASS_COPY, &v);
	t_check(!bad && !rc && !v.streams_from &&
			strstr(v.text, "writes around the cache at no size"),
		"report: the verdict where the ladder never streams", "'%s'", v.text);
	tree_free(&t);
	int empty = rmdir(dir) == 0;
	t_check(empty, "report: every record read is removed", "%s: %s", dir,
		strerror(errno));
}

/* Processes without a record: markers (one per program of a pid, so a
 * fork child that then exec'd counts once), a pid whose later program
 * has a record (not counted), and children counted in a parent's
 * record; and the verdict they leave. */
static void test_report_lost(void)
{
	char dir[] = "/tmp/ntmem-run-lost-XXXXXX";
	static struct tree t;
	struct cli_error e;
	if (variant_id(NTMEM_OP_COPY, 1) < 0) {
		t_skip("report: processes without a record", "no variant streams on "
		       "this architecture (the portable build)");
		return;
	}
	if (!mkdtemp(dir)) {
		t_fail("report: processes without a record", "mkdtemp: %s", strerror(errno));
		return;
	}
	char path[PATH_MAX];
	/* The command (recorded; two of its fork children had neither a
	 * record nor a marker), pid +1 with two markers (fork, exec), pid +2
	 * with a marker and then a record. */
	struct ntm_record *r = new_record("sh", NO_PID, 1);
	add_copies(r, 10, MiB, 0);
	r->lost_children = 2;
	r->lost_errno = EMFILE;
	int bad = write_record(dir, "5000000-0.rec", r, sizeof *r);
	r = new_record("cc", NO_PID + 2, 1);
	bad |= write_record(dir, "5000002-1.rec", r, sizeof *r);
	static const char *const markers[][2] = {
		{"5000001-0.lost", "errno=28"}, {"5000001-1.lost", "errno=28"},
		{"5000002-0.lost", "errno=24"}, {"5000003-0.lost", "errno=28"},
	};
	for (size_t i = 0; i < sizeof markers / sizeof markers[0]; i++) {
		snprintf(path, sizeof path, "%s/%s", dir, markers[i][0]);
		bad |= symlink(markers[i][1], path);
	}
	tree_init(&t);
	int rc = fold_dir(&t, dir, &e);
	struct tree_lost_why why[4];
	size_t nwhy = 0;
	unsigned lost = tree_lost_processes(&t, why, 4, &nwhy);
	int enospc = -1, emfile = -1;
	for (size_t i = 0; i < nwhy; i++) {
		if (why[i].err == ENOSPC)
			enospc = (int)why[i].processes;
		if (why[i].err == EMFILE)
			emfile = (int)why[i].processes;
	}
	t_check(!bad && !rc && t.nproc == 2 && lost == 4 && enospc == 2 && emfile == 2 &&
			report_verdict_basis(&t) == VERDICT_WITHHELD,
		"report: processes without a record: one per pid, a pid recorded "
		"later not among them, children counted in a parent's; as many as "
		"those recorded withholds the verdict",
		"rc %d bad %d, %zu recorded, %u lost (ENOSPC %d, EMFILE %d), basis %d",
		rc, bad, t.nproc, lost, enospc, emfile, report_verdict_basis(&t));
	tree_free(&t);
	memset(&t, 0, sizeof t);

	/* One lost beside two recorded: the verdict stands, qualified. */
	r = new_record("make", NO_PID, 1);
	add_copies(r, 10, MiB, 0);
	bad = write_record(dir, "5000000-0.rec", r, sizeof *r);
	r = new_record("cc", NO_PID + 1, 1);
	bad |= write_record(dir, "5000001-0.rec", r, sizeof *r);
	snprintf(path, sizeof path, "%s/5000002-0.lost", dir);
	bad |= symlink("errno=28", path);
	tree_init(&t);
	rc = fold_dir(&t, dir, &e);
	char text[4096] = "";
	FILE *f = fmemopen(text, sizeof text - 1, "w");
	struct run_outcome out = {0};
	char *argv[] = {"make", NULL};
	if (f) {
		report_text(f, &t, &out, argv);
		fclose(f);
	}
	t_check(!bad && !rc && report_verdict_basis(&t) == VERDICT_PARTIAL &&
			strstr(text, "1 process left no record (No space left on device)") &&
			strstr(text, "verdict, from the recorded processes only (1 left no "
				     "record)"),
		"report: one process of three without a record qualifies the verdict",
		"rc %d bad %d basis %d\n%s", rc, bad, report_verdict_basis(&t), text);
	tree_free(&t);
	int empty = rmdir(dir) == 0;
	t_check(empty, "report: every marker read is removed", "%s: %s", dir,
		strerror(errno));
}

/* The report text of t, into text (len bytes). */
static void report_to(const struct tree *t, char *text, size_t len)
{
	struct run_outcome out = {.user_s = 0.5, .sys_s = 0.5, .wall_s = 1};
	char *argv[] = {"job", NULL};
	text[0] = '\0';
	FILE *f = fmemopen(text, len - 1, "w");
	if (f) {
		report_text(f, t, &out, argv);
		fclose(f);
	}
}

/* The time of calls from 4 KiB holds the page faults of fresh memory:
 * the report says so under the first such time, with the command's
 * count of minor faults where ntmem run has it; a report without timed
 * calls has no such line.  And a record directory that was replaced
 * says so, and withholds the verdict. */
static void test_report_faults(void)
{
	char dir[] = "/tmp/ntmem-run-faults-XXXXXX";
	static struct tree t;
	static char text[8192];
	struct cli_error e;
	const char *note = "  (this time includes the page faults on the first "
			   "touch of fresh memory";
	if (variant_id(NTMEM_OP_COPY, 1) < 0) {
		t_skip("report: page faults", "no variant streams on this "
		       "architecture (the portable build)");
		return;
	}
	if (!mkdtemp(dir)) {
		t_fail("report: page faults", "mkdtemp: %s", strerror(errno));
		return;
	}
	struct ntm_record *r = new_record("job", NO_PID, 1);
	add_copies(r, 3, MiB, 0);
	r->time[SHIM_memcpy][ntm_record_bucket(MiB)] =
		(struct ntm_record_time){.calls = 3, .ns = 300000000};
	int bad = write_record(dir, "5000000-0.rec", r, sizeof *r);
	tree_init(&t);
	int rc = fold_dir(&t, dir, &e);
	t.minor_faults = 4321;
	report_to(&t, text, sizeof text);
	const char *took = strstr(text, "calls from 4 KiB took 300.0 ms, 30.0% of "
				  "the CPU time\n");
	const char *line = took ? strchr(took, '\n') + 1 : NULL;
	t_check(!bad && !rc && line && !strncmp(line, note, strlen(note)) &&
			strstr(line, "the command's processes took 4321 minor faults in "
				     "all"),
		"report: under the time of calls from 4 KiB, that it includes the "
		"page faults of fresh memory, and how many the command took",
		"rc %d bad %d\n%s", rc, bad, text);
	t.minor_faults = -1;
	report_to(&t, text, sizeof text);
	t_check(strstr(text, note) && !strstr(text, "minor faults"),
		"report: the page-fault note without a count where none is known",
		"%s", text);
	t.dir_replaced = 1;
	report_to(&t, text, sizeof text);
	t_check(report_verdict_basis(&t) == VERDICT_WITHHELD &&
			strstr(text, "the record directory was moved or replaced") &&
			strstr(text, "verdict: none: the record directory was replaced") &&
			!strstr(text, "copies: "),
		"report: a replaced record directory is said, and no verdict given",
		"basis %d\n%s", report_verdict_basis(&t), text);
	tree_free(&t);
	memset(&t, 0, sizeof t);

	/* Only small calls, untimed: no note. */
	r = new_record("job", NO_PID, 1);
	add_copies(r, 5, 100, 0);
	bad = write_record(dir, "5000000-0.rec", r, sizeof *r);
	tree_init(&t);
	rc = fold_dir(&t, dir, &e);
	report_to(&t, text, sizeof text);
	t_check(!bad && !rc && strstr(text, "memcpy: 5 calls") && !strstr(text, note),
		"report: no page-fault note without timed calls", "%s", text);
	tree_free(&t);
	memset(&t, 0, sizeof t);
	rmdir(dir);
}

/* An installed tree: bin/ntmem and lib/libntmem-preload.so under any
 * prefix, whatever LIBDIR the binary was built with; a width's own
 * library, lib/avx2/libntmem-preload.so, where one is asked for and
 * there, else the dispatching one. */
static void test_installed_layout(void)
{
	char root[] = "/tmp/ntmem-run-layout-XXXXXX", bin[64], lib[64], shim[96];
	char wdir[96], wshim[128];
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
	int r = run_find_shim(bin, "/nonexistent/lib", NULL, found, sizeof found, &e);
	t_check(made && r == 0 && realpath(shim, want) && !strcmp(found, want),
		"run: the shim in ../lib beside the binary", "returned %d, '%s'", r,
		r ? e.msg : found);
	r = run_find_shim(bin, "/nonexistent/lib", "avx2", found, sizeof found, &e);
	t_check(made && r == 0 && !strcmp(found, want),
		"run: no library of the width: the dispatching one", "returned %d, '%s'",
		r, r ? e.msg : found);
	snprintf(wdir, sizeof wdir, "%s/avx2", lib);
	snprintf(wshim, sizeof wshim, "%s/libntmem-preload.so", wdir);
	made = made && !mkdir(wdir, 0700) &&
	       close(open(wshim, O_WRONLY | O_CREAT, 0600)) == 0;
	r = run_find_shim(bin, "/nonexistent/lib", "avx2", found, sizeof found, &e);
	t_check(made && r == 0 && realpath(wshim, want) && !strcmp(found, want),
		"run: the width's own library where it is there", "returned %d, '%s'",
		r, r ? e.msg : found);
	r = run_find_shim(bin, "/nonexistent/lib", NULL, found, sizeof found, &e);
	t_check(r == 0 && realpath(shim, want) && !strcmp(found, want),
		"run: no width asked (a report): the dispatching one",
		"returned %d, '%s'", r, r ? e.msg : found);
	unlink(wshim);
	rmdir(wdir);
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
	t_check(exited(&o, 127) && strstr(o.err, "/nonexistent/program") &&
			!strstr(o.err, "deprecated"),
		"run: a command that is not there exits 127", "status 0x%x: %s",
		o.status, o.err);
	outcome_free(&o);
	char *short_s[] = {at.ntmem, "run", "-s", "64MiB", "--", "/nonexistent/program",
			   NULL};
	spawn(short_s, NULL, 30, &o);
	t_check(exited(&o, 127) && strstr(o.err, "-s is deprecated") &&
			strstr(o.err, "--stream-above"),
		"run: -s still works, with a note on stderr to write --stream-above",
		"status 0x%x: %s", o.status, o.err);
	outcome_free(&o);
	spawn(help, NULL, 30, &o);
	t_check(!strstr(o.out, "-s,") && strstr(o.out, "--stream-above SIZE") &&
			strstr(o.out, "--show-output"),
		"run --help: --stream-above alone, and --show-output", "%s", o.out);
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
	test_report_merge();
	test_report_lost();
	test_report_faults();
	if (spawn_unavailable())
		t_skip("run: the ntmem binary itself", spawn_unavailable());
	else
		test_binary();
	return t_finish();
}
