/*
 * test_report_gaps.c - what "ntmem run --report" cannot see, said rather
 * than left out (issue 30):
 *
 *   - TMPDIR on a full tmpfs: no process can keep a record; the report
 *     counts them, gives the reason and no verdict;
 *   - room for one record: the shell is recorded, its two children are
 *     counted as without a record, and the verdict is withheld;
 *   - a descriptor table full before fork: the child is counted, with
 *     EMFILE; a child that then execs a program that can keep a record
 *     is that one process, counted once and recorded;
 *   - a child that drops the shim (LD_PRELOAD unset, then exec) and
 *     outlives the command is found running without it;
 *   - standard error a closed pipe (ntmem run --report ... 2>&1 | head):
 *     the JSON is written, the command's exit status passed on, and the
 *     record directory removed.
 *
 * The tmpfs cases mount one (root, here and in CI) and skip with the
 * reason where that is refused.
 */
#include "preload/spawn.h"

#include <sys/mount.h>

#include "introspect.h"

static struct places at;

/* The report's JSON of "ntmem run --report-json F -- HELPER ARGS", with
 * TMPDIR as tmpdir (NULL: as it is). */
static void run_report(const char *tmpdir, const char *helper,
		       const char *const *args, struct report *r, struct outcome *o)
{
	const char *opts[] = {"--report", "--report-json", report_file(r), NULL};
	char env_tmp[PATH_MAX + 8];
	snprintf(env_tmp, sizeof env_tmp, "TMPDIR=%s", tmpdir ? tmpdir : "");
	const char *env[] = {env_tmp, NULL};
	spawn(run_argv(&at, opts, helper, args), tmpdir ? env : NULL, 120, o);
	report_read(r);
}

static const struct t_json *lost_reason(const struct report *r, int err)
{
	const struct t_json *w = t_json_get(r->json, "without_record");
	for (size_t i = 0; w && i < w->count; i++)
		if (tj_num(&w->items[i], "errno") == err)
			return &w->items[i];
	return NULL;
}

static const char *basis(const struct report *r)
{
	return tj_str(r->json, "verdict_basis");
}

static size_t count_array(const struct report *r, const char *key)
{
	const struct t_json *a = t_json_get(r->json, key);
	return a && a->type == TJ_ARRAY ? a->count : (size_t)-1;
}

/* A tmpfs of size bytes at dir, filled with fill bytes. */
static const char *mount_tmpfs(const char *dir, size_t size, size_t fill)
{
	static char why[160];
	char opts[64];
	snprintf(opts, sizeof opts, "size=%zu,mode=1777", size);
	if (mount("tmpfs", dir, "tmpfs", 0, opts)) {
		snprintf(why, sizeof why, "cannot mount a tmpfs (%s): needs root "
			 "or CAP_SYS_ADMIN", strerror(errno));
		return why;
	}
	char path[PATH_MAX];
	snprintf(path, sizeof path, "%s/fill", dir);
	FILE *f = fopen(path, "w");
	static char zeros[4096];
	for (size_t n = 0; f && n < fill; n += sizeof zeros)
		fwrite(zeros, 1, sizeof zeros, f);
	if (f)
		fclose(f);
	return NULL;
}

static void test_full_tmpfs(void)
{
	const char *dir = t_scratch_path("full");
	mkdir(dir, 0755);
	const char *why = mount_tmpfs(dir, 4096, 4096);
	if (why) {
		t_skip("report gaps: TMPDIR on a full tmpfs", why);
		return;
	}
	static struct report r;
	struct outcome o;
	char script[2 * PATH_MAX + 64];
	snprintf(script, sizeof script, "'%s/gaps' leaf; '%s/gaps' leaf", at.helpers,
		 at.helpers);
	const char *args[] = {"sh", "-c", script, NULL};
	run_report(dir, NULL, args, &r, &o);
	const struct t_json *enospc = lost_reason(&r, ENOSPC);
	t_check(exited(&o, 0) && r.json &&
			tj_num(r.json, "processes_without_record") == 3 && enospc &&
			tj_num(enospc, "processes") == 3 && !strcmp(basis(&r), "withheld") &&
			count_array(&r, "verdicts") == 0 && count_array(&r, "processes") == 0 &&
			strstr(o.err, "3 processes left no record (No space left on device)") &&
			!strstr(o.err, "statically linked"),
		"report gaps: TMPDIR on a full tmpfs: 3 processes without a record, "
		"why, no verdict", "status 0x%x %s\n%s", o.status, r.why, o.err);
	report_free(&r);
	outcome_free(&o);
	t_check(t_count_prefixed(dir, "ntmem-run.") == 0,
		"report gaps: the full tmpfs keeps no record directory", "left one");

	/* Room for one record: the shell's.  Its children are counted. */
	umount2(dir, MNT_DETACH);
	size_t page = (size_t)sysconf(_SC_PAGESIZE);
	size_t one = (sizeof(struct ntm_record) + page - 1) / page * page;
	if ((why = mount_tmpfs(dir, one, 0))) {
		t_skip("report gaps: room for one record", why);
		return;
	}
	run_report(dir, NULL, args, &r, &o);
	enospc = lost_reason(&r, ENOSPC);
	t_check(exited(&o, 0) && r.json && count_array(&r, "processes") == 1 &&
			tj_num(r.json, "processes_without_record") == 2 && enospc &&
			!strcmp(basis(&r), "withheld") && count_array(&r, "verdicts") == 0 &&
			strstr(o.err, "2 processes left no record") &&
			strstr(o.err, "verdict: none: 2 of the 3 processes left no record"),
		"report gaps: room for one record: the shell recorded, its two "
		"children counted, the verdict withheld", "status 0x%x %s\n%s",
		o.status, r.why, o.err);
	report_free(&r);
	outcome_free(&o);
	umount2(dir, MNT_DETACH);
}

static void test_full_table(void)
{
	static struct report r;
	struct outcome o;
	const char *emfile[] = {"emfile", NULL};
	run_report(NULL, "gaps", emfile, &r, &o);
	relay("report gaps, full descriptor table", &o);
	const struct t_json *e = lost_reason(&r, EMFILE);
	unsigned long long calls, bytes;
	report_sum(&r, "memcpy", "any", &calls, &bytes);
	t_check(r.json && tj_num(r.json, "processes_without_record") == 1 && e &&
			tj_num(e, "processes") == 1 && strcmp(basis(&r), "complete") &&
			strstr(o.err, "1 process left no record (Too many open files)"),
		"report gaps: a child forked with the descriptor table full is "
		"counted, with EMFILE", "%s\n%s", r.why, o.err);
	report_free(&r);
	outcome_free(&o);

	const char *exec_leaf[] = {"emfile-exec", NULL};
	run_report(NULL, "gaps", exec_leaf, &r, &o);
	relay("report gaps, full table then exec", &o);
	const struct t_json *b = report_bucket(&r, "memcpy", "copy", 300000);
	t_check(r.json && tj_num(r.json, "processes_without_record") == 0 &&
			!strcmp(basis(&r), "complete") && b && tj_num(b, "calls") == 3 + 7,
		"report gaps: a child without a record that execs a program with one "
		"is recorded, counted once", "%s; %g copies\n%s", r.why,
		b ? tj_num(b, "calls") : -1, o.err);
	report_free(&r);
	outcome_free(&o);
}

static void test_dropped_shim(void)
{
	static struct report r;
	struct outcome o;
	const char *drop[] = {"drop", NULL};
	run_report(NULL, "gaps", drop, &r, &o);
	relay("report gaps, a child dropping the shim", &o);
	t_check(r.json && tj_num(r.json, "processes_without_shim") == 1 &&
			!strcmp(basis(&r), "partial") &&
			strstr(o.err, "1 process went on to run a program without the shim"),
		"report gaps: a child that unset LD_PRELOAD and exec'd is found "
		"running without the shim", "%s\n%s", r.why, o.err);
	report_free(&r);
	outcome_free(&o);

	/* Every report says what it cannot see. */
	const char *leaf[] = {"leaf", NULL};
	run_report(NULL, "gaps", leaf, &r, &o);
	t_check(r.json && !strcmp(basis(&r), "complete") &&
			tj_num(r.json, "processes_without_record") == 0 &&
			strstr(o.err, "not seen at all: programs started without the shim"),
		"report gaps: a complete report still says that programs without "
		"the shim are not seen", "%s\n%s", r.why, o.err);
	report_free(&r);
	outcome_free(&o);
}

/* ntmem run --report -- CMD 2>&1 | head -1: standard error closed. */
static void test_closed_stderr(void)
{
	static struct report r;
	const char *dir = t_scratch_path("tmp");
	mkdir(dir, 0700);
	int fds[2];
	if (pipe(fds)) {
		t_fail("report gaps: a closed standard error", "pipe: %s", strerror(errno));
		return;
	}
	close(fds[0]);  /* the reader is gone, as head's after one line */
	const char *opts[] = {"--report", "--report-json", report_file(&r), NULL};
	const char *args[] = {"sh", "-c", "exit 3", NULL};
	char **argv = run_argv(&at, opts, NULL, args);
	fflush(NULL);
	pid_t pid = fork();
	if (pid == 0) {
		int null = open("/dev/null", O_RDWR);
		dup2(null, 0);
		dup2(fds[1], 1);
		dup2(fds[1], 2);
		setenv("TMPDIR", dir, 1);
		signal(SIGPIPE, SIG_DFL);
		execv(argv[0], argv);
		_exit(127);
	}
	close(fds[1]);
	int status = 0;
	waitpid(pid, &status, 0);
	report_read(&r);
	t_check(WIFEXITED(status) && WEXITSTATUS(status) == 3 && r.json &&
			tj_num(r.json, "exit_status") == 3 &&
			t_count_prefixed(dir, "ntmem-run.") == 0,
		"report gaps: standard error a closed pipe: the JSON written, the "
		"command's status (3), no directory left",
		"status 0x%x, %s, %d left", status, r.why, t_count_prefixed(dir, "ntmem-run."));
	report_free(&r);
}

int main(void)
{
	if (spawn_unavailable()) {
		t_skip("report gaps", spawn_unavailable());
		return t_finish();
	}
	if (SHIM_SANITIZED) {
		t_skip("report gaps", SHIM_SANITIZED_WHY);
		return t_finish();
	}
	if (find_places(&at)) {
		t_fail("report gaps: the build's ntmem and libntmem-preload.so",
		       "not found next to %s", t_ntmem());
		return t_finish();
	}
	if (t_scratch_make("gaps"))
		return t_finish();
	test_full_tmpfs();
	test_full_table();
	test_dropped_shim();
	test_closed_stderr();
	t_scratch_remove();
	return t_finish();
}
