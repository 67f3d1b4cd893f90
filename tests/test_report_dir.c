/*
 * test_report_dir.c - the record directory of "ntmem run --report" cannot
 * be turned against its user (issue 43).  Before, another user who could
 * rename entries in TMPDIR swapped ntmem-run.XXXXXX for a link to a
 * directory of the victim's while the command ran, and ntmem run emptied
 * that directory at the end, reporting whatever the swap left.
 *
 *   - which directories ntmem run takes as TMPDIR (report_dir_trusted),
 *     on directories this user can make;
 *   - as root, another user (nobody) trying the swap: TMPDIR that user's
 *     (0755, and 1777), writable by all without the sticky bit, a link to
 *     such a directory, and one below a directory of that user's are all
 *     refused up front (exit 2, naming TMPDIR), the victim untouched; a
 *     root-owned 1777 TMPDIR, as /tmp, refuses the swap itself and the
 *     report is whole;
 *   - this user swapping the directory for a link while the command runs
 *     (what no other user can do any more): the victim untouched, nothing
 *     written to it, the records read and removed through the descriptor,
 *     the processes that could keep no record counted, the report saying
 *     the directory was replaced, and no verdict.
 *
 * The command is tests/preload/swapwait, which says when its record
 * exists and waits to be told that the swap is done before it forks.
 */
#include "preload/spawn.h"

#include <dirent.h>
#include <grp.h>
#include <pwd.h>

#include "run/report_dir.h"

static struct places at;

/* ------------------------------------------------------------------ */
/* Which TMPDIR is taken                                               */
/* ------------------------------------------------------------------ */

/* The scratch directory's name, made with mode; a path of its own
 * (t_scratch_path's last only four), up to DIRS of them. */
#define DIRS 16
static const char *made_dir(const char *name, mode_t mode)
{
	static char paths[DIRS][PATH_MAX];
	static int used;
	char *path = paths[used++ % DIRS];
	snprintf(path, PATH_MAX, "%s", t_scratch_path(name));
	mkdir(path, 0700);
	chmod(path, mode);
	return path;
}

static void test_trusted(void)
{
	static const struct {
		const char *name;
		mode_t mode;
		const char *want;  /* NULL: taken */
	} cases[] = {
		{"private", 0700, NULL},
		{"sticky", 01777, NULL},  /* this user's: others rename only theirs */
		{"world", 0777, "is writable by every user and not sticky"},
		{"group", 0770, "is writable by its group and not sticky"},
	};
	for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
		struct cli_error e = {0};
		char name[128];
		const char *dir = made_dir(cases[i].name, cases[i].mode);
		int r = report_dir_trusted(dir, "TMPDIR", &e);
		snprintf(name, sizeof name, "report dir: TMPDIR mode %04o is %s",
			 (unsigned)cases[i].mode, cases[i].want ? "refused" : "taken");
		t_check(cases[i].want ? r == -1 && e.status == CLI_USAGE &&
						!strncmp(e.msg, "TMPDIR=", 7) &&
						strstr(e.msg, cases[i].want)
				      : r == 0,
			name, "returned %d: %s", r, r ? e.msg : "");
	}
	struct cli_error e = {0};
	char link[PATH_MAX];
	snprintf(link, sizeof link, "%s", t_scratch_path("link"));
	int r = symlink(t_scratch_path("world"), link) ? -2
		: report_dir_trusted(link, "TMPDIR", &e);
	t_check(r == -1 && strstr(e.msg, "/world is writable by every user"),
		"report dir: a link to a world-writable TMPDIR is refused, naming "
		"the directory", "returned %d: %s", r, e.msg);
	r = report_dir_trusted(made_dir("world/inner", 0700), "TMPDIR", &e);
	t_check(r == -1 && strstr(e.msg, "/world is writable by every user"),
		"report dir: a private TMPDIR below a world-writable directory is "
		"refused", "returned %d: %s", r, e.msg);
}

/* ------------------------------------------------------------------ */
/* The swap                                                            */
/* ------------------------------------------------------------------ */

/* A victim's directory: three files of known content. */
static const char *make_victim(void)
{
	const char *dir = made_dir("victim", 0755);
	for (char c = 'a'; c <= 'c'; c++) {
		char path[PATH_MAX];
		snprintf(path, sizeof path, "%s/%c", dir, c);
		FILE *f = fopen(path, "w");
		if (f) {
			fprintf(f, "victim %c\n", c);
			fclose(f);
		}
	}
	return dir;
}

/* Still exactly those three files, as made? */
static int victim_intact(const char *dir)
{
	char path[PATH_MAX], want[16];
	int files = 0;
	for (char c = 'a'; c <= 'c'; c++) {
		snprintf(path, sizeof path, "%s/%c", dir, c);
		snprintf(want, sizeof want, "victim %c\n", c);
		files += !strcmp(t_file_text(path), want);
	}
	DIR *d = opendir(dir);
	int entries = 0;
	struct dirent *de;
	while (d && (de = readdir(d)))
		entries += de->d_name[0] != '.';
	if (d)
		closedir(d);
	return files == 3 && entries == 3;
}

enum { SWAPPED, NOTHING, RENAME_REFUSED, LINK_FAILED, NO_USER = 10 };

/* In tmpdir: ntmem-run.* renamed away and a link to target in its place;
 * what happened. */
static int swap_in(const char *tmpdir, const char *target)
{
	char entry[PATH_MAX] = "", moved[PATH_MAX + 8];
	DIR *d = opendir(tmpdir);
	struct dirent *de;
	while (d && (de = readdir(d)))
		if (!strncmp(de->d_name, "ntmem-run.", 10) && !strchr(de->d_name + 10, '.'))
			snprintf(entry, sizeof entry, "%s/%s", tmpdir, de->d_name);
	if (d)
		closedir(d);
	if (!entry[0])
		return NOTHING;
	snprintf(moved, sizeof moved, "%s.moved", entry);
	if (rename(entry, moved))
		return RENAME_REFUSED;
	return symlink(target, entry) ? LINK_FAILED : SWAPPED;
}

/* swap_in() as user pw (NULL: as this one), in a child. */
static int swap_as(const struct passwd *pw, const char *tmpdir, const char *target)
{
	fflush(NULL);
	pid_t pid = fork();
	if (pid == 0) {
		if (pw && (setgroups(0, NULL) || setresgid(pw->pw_gid, pw->pw_gid, pw->pw_gid) ||
			   setresuid(pw->pw_uid, pw->pw_uid, pw->pw_uid)))
			_exit(NO_USER);
		_exit(swap_in(tmpdir, target));
	}
	int status = 0;
	waitpid(pid, &status, 0);
	return WIFEXITED(status) ? WEXITSTATUS(status) : NO_USER;
}

struct swap_run {
	struct report r;
	struct outcome o;
	int swap;          /* swap_as's result */
};

static int exists(const char *path)
{
	struct stat st;
	return !stat(path, &st);
}

/* "ntmem run --report --report-json F -- swapwait READY GO" with TMPDIR
 * tmpdir: once READY is there (the command's record made), pw (NULL:
 * this user) swaps the record directory for a link to victim, then GO. */
static void run_swapped(const char *tmpdir, const struct passwd *pw,
			const char *victim, struct swap_run *s)
{
	char err[] = "/tmp/ntmem-swap-err-XXXXXX", ready[PATH_MAX], go[PATH_MAX];
	snprintf(ready, sizeof ready, "%s", t_scratch_path("ready"));
	snprintf(go, sizeof go, "%s", t_scratch_path("go"));
	unlink(ready);
	unlink(go);
	const char *opts[] = {"--report", "--report-json", report_file(&s->r), NULL};
	const char *args[] = {ready, go, NULL};
	char **argv = run_argv(&at, opts, "swapwait", args);
	int fe = mkstemp(err);
	memset(&s->o, 0, sizeof s->o);
	fflush(NULL);
	pid_t pid = fork();
	if (pid == 0) {
		int null = open("/dev/null", O_RDWR);
		dup2(null, 0);
		dup2(null, 1);
		dup2(fe, 2);
		setenv("TMPDIR", tmpdir, 1);
		execv(argv[0], argv);
		_exit(127);
	}
	close(fe);
	struct timespec tick = {0, 5 * 1000 * 1000};
	int ended = 0;
	for (int i = 0; i < 4000 && !exists(ready) && !ended; i++) {
		ended = waitpid(pid, &s->o.status, WNOHANG) == pid;
		nanosleep(&tick, NULL);
	}
	s->swap = swap_as(pw, tmpdir, victim);
	close(open(go, O_WRONLY | O_CREAT, 0600));
	for (int i = 0; i < 4000 && !ended; i++) {
		ended = waitpid(pid, &s->o.status, WNOHANG) == pid;
		if (!ended)
			nanosleep(&tick, NULL);
	}
	if (!ended) {
		kill(pid, SIGKILL);
		waitpid(pid, &s->o.status, 0);
		s->o.timed_out = 1;
	}
	s->o.out = spawn_slurp("/dev/null");
	s->o.err = spawn_slurp(err);
	unlink(err);
	report_read(&s->r);
}

static void swap_free(struct swap_run *s)
{
	report_free(&s->r);
	outcome_free(&s->o);
}

/* Another user's TMPDIR and the like: refused before anything runs. */
static void check_refused(const char *what, const char *tmpdir,
			  const char *named, const struct passwd *pw,
			  const char *victim)
{
	struct swap_run s;
	char name[160];
	run_swapped(tmpdir, pw, victim, &s);
	snprintf(name, sizeof name, "report dir: %s: refused up front, exit 2, "
		 "naming TMPDIR; the victim untouched", what);
	t_check(exited(&s.o, 2) && strstr(s.o.err, "TMPDIR=") &&
			strstr(s.o.err, named) && s.swap == NOTHING &&
			victim_intact(victim) && t_count_prefixed(tmpdir, "ntmem-run.") == 0,
		name, "status 0x%x, swap %d, victim %s\n%s", s.o.status, s.swap,
		victim_intact(victim) ? "intact" : "CHANGED", s.o.err);
	swap_free(&s);
}

static void test_other_user(void)
{
	if (geteuid() != 0) {
		t_skip("report dir: another user's swap", "needs root, to act as "
		       "another user (nobody) and to give directories to it");
		return;
	}
	const struct passwd *pw = getpwnam("nobody");
	if (!pw || !pw->pw_uid) {
		t_skip("report dir: another user's swap", "no user 'nobody' here");
		return;
	}
	if (t_scratch_closed()) {
		t_skip("report dir: another user's swap", t_scratch_closed());
		return;
	}
	chmod(t_scratch_dir(), 0755);  /* nobody must reach its TMPDIR */
	const char *victim = make_victim();
	const char *theirs = made_dir("theirs", 0755);
	const char *their_sticky = made_dir("their-sticky", 01777);
	const char *below = made_dir("theirs/mine", 0700);
	const char *world = made_dir("all", 0777);
	char link[PATH_MAX];
	snprintf(link, sizeof link, "%s", t_scratch_path("all-link"));
	symlink(world, link);
	if (chown(theirs, pw->pw_uid, pw->pw_gid) ||
	    chown(their_sticky, pw->pw_uid, pw->pw_gid)) {
		t_fail("report dir: another user's swap", "chown: %s", strerror(errno));
		return;
	}
	check_refused("TMPDIR nobody's, mode 0755", theirs, theirs, pw, victim);
	check_refused("TMPDIR nobody's, mode 1777", their_sticky, their_sticky, pw,
		      victim);
	check_refused("TMPDIR writable by all, not sticky", world, world, pw, victim);
	check_refused("TMPDIR a link to one writable by all", link, world, pw, victim);
	check_refused("TMPDIR below a directory of nobody's", below, theirs, pw,
		      victim);

	/* The control: root's and sticky, as /tmp.  The kernel refuses
	 * nobody the rename; the report is whole. */
	const char *sticky = made_dir("root-sticky", 01777);
	struct swap_run s;
	run_swapped(sticky, pw, victim, &s);
	const struct t_json *b = report_bucket(&s.r, "memcpy", "copy", 300000);
	const struct t_json *moved = s.r.json ? t_json_get(s.r.json,
							  "record_directory_replaced")
					      : NULL;
	t_check(exited(&s.o, 0) && s.swap == RENAME_REFUSED && s.r.json &&
			!strcmp(tj_str(s.r.json, "verdict_basis"), "complete") &&
			tj_num(s.r.json, "processes_without_record") == 0 && moved &&
			moved->type == TJ_BOOL && !moved->boolean && b &&
			tj_num(b, "calls") == 3 + 3 + 2 * 5 && victim_intact(victim) &&
			t_count_prefixed(sticky, "ntmem-run.") == 0,
		"report dir: TMPDIR root's and sticky: nobody's rename refused, "
		"every copy reported, the directory removed",
		"status 0x%x, swap %d, %s, %g copies\n%s", s.o.status, s.swap,
		s.r.why, b ? tj_num(b, "calls") : -1, s.o.err);
	swap_free(&s);
}

/* What only this user (or root) can still do: the swap itself. */
static void test_own_swap(void)
{
	const char *victim = make_victim();
	const char *own = made_dir("own", 0700);
	struct swap_run s;
	run_swapped(own, NULL, victim, &s);
	char moved_dir[PATH_MAX] = "";
	DIR *d = opendir(own);
	struct dirent *de;
	while (d && (de = readdir(d)))
		if (strstr(de->d_name, ".moved"))
			snprintf(moved_dir, sizeof moved_dir, "%s/%s", own, de->d_name);
	if (d)
		closedir(d);
	const struct t_json *b = report_bucket(&s.r, "memcpy", "copy", 300000);
	const struct t_json *moved = s.r.json ? t_json_get(s.r.json,
							  "record_directory_replaced")
					      : NULL;
	int left = moved_dir[0] ? t_count_prefixed(moved_dir, "") - 2 : -1;
	t_check(exited(&s.o, 0) && s.swap == SWAPPED && victim_intact(victim),
		"report dir: the record directory swapped for a link to another: "
		"that one untouched, nothing written to it", "status 0x%x, swap %d, "
		"victim %s\n%s", s.o.status, s.swap,
		victim_intact(victim) ? "intact" : "CHANGED", s.o.err);
	t_check(s.r.json && moved && moved->type == TJ_BOOL && moved->boolean &&
			tj_num(s.r.json, "processes_without_record") == 2 &&
			!strcmp(tj_str(s.r.json, "verdict_basis"), "withheld") &&
			b && tj_num(b, "calls") == 3 + 3 &&
			strstr(s.o.err, "2 processes left no record") &&
			strstr(s.o.err, "the record directory was moved or replaced") &&
			strstr(s.o.err, "verdict: none: the record directory was replaced"),
		"report dir: after the swap, the children that could keep no record "
		"are counted, the report says the directory was replaced, no verdict",
		"%s; %g copies\n%s", s.r.why, b ? tj_num(b, "calls") : -1, s.o.err);
	t_check(left == 0, "report dir: the records were read and removed through "
		"the descriptor, wherever the directory went", "%s holds %d", moved_dir,
		left);
	swap_free(&s);
}

int main(void)
{
	if (find_places(&at)) {
		t_fail("report dir: the build's ntmem and libntmem-preload.so",
		       "not found next to %s", t_ntmem());
		return t_finish();
	}
	if (t_scratch_make("swap"))
		return t_finish();
	test_trusted();
	if (spawn_unavailable())
		t_skip("report dir: swaps while the command runs", spawn_unavailable());
	else if (SHIM_SANITIZED)
		t_skip("report dir: swaps while the command runs", SHIM_SANITIZED_WHY);
	else {
		test_other_user();
		test_own_swap();
	}
	t_scratch_remove();
	return t_finish();
}
