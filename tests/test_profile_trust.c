/*
 * test_profile_trust.c - libntmem reads a calibration profile only when
 * nobody but root and the process's own user could have written it: the
 * file and every directory above it owned by root or the effective uid,
 * none writable by group or others, a link counted only when it and its
 * target pass too (src/dispatch/profile_trust.c).  Otherwise the profile
 * is ignored and the reason is in ntmem info; the library prints nothing.
 *
 * The files are made with each owner, mode and path of issue 30: owned
 * by an unprivileged user (nobody, 65534, by chown: the test runs as
 * root here and in CI, and skips with the reason where it cannot chown),
 * world-writable, group-writable with a user's group, a root link to a
 * user's file, in a user's directory, in a 1777 directory.  And the
 * user's side: a process of uid 65534 reads its own profile and root's,
 * and no one else's.  The profile writer's modes (point 2 of the issue)
 * are test_outfile's; ntmem calibrate --system's, test_calibrate's.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <grp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "dispatch/cpu.h"
#include "dispatch/policy.h"
#include "dispatch/profile.h"
#include "harness.h"

#define NOBODY 65534
#define OTHER 65533   /* a uid that is neither this process's nor root */

static struct policy pol;  /* large: off the stack */
static int can_chown;      /* root, or CAP_CHOWN */

/* A profile that loads here: the built-in ladders' first rungs as the
 * profile's, so that "loaded" alone tells. */
static int write_profile(const char *path)
{
	struct profile p;
	ntm_profile_init(&p, ntm_cpu());
	snprintf(p.ladder[2].rungs, sizeof p.ladder[2].rungs, "libc");
	return ntm_profile_write(path, &p, NULL, 0);
}

/* path: a profile owned by uid:gid (-1: as made) with mode. */
static int make_file(const char *path, int uid, int gid, mode_t mode)
{
	return write_profile(path) || chmod(path, mode) ||
	       ((uid >= 0 || gid >= 0) && chown(path, (uid_t)uid, (gid_t)gid));
}

static int make_dir(const char *path, int uid, mode_t mode)
{
	return (mkdir(path, 0700) && errno != EEXIST) || chmod(path, mode) ||
	       (uid >= 0 && chown(path, (uid_t)uid, (gid_t)-1));
}

/* The policy built from path: loaded, or ignored with want in its reason
 * (status and note alike). */
static void expect(const char *name, const char *path, const char *want)
{
	ntm_policy_build(&pol, ntm_cpu(), NULL, path);
	int noted = 0;
	for (int i = 0; i < pol.note_count; i++)
		noted |= want && strstr(pol.notes[i], path) && strstr(pol.notes[i], want);
	if (!want)
		t_check(pol.profile_loaded && !strcmp(pol.profile_status, "loaded") &&
				pol.note_count == 0,
			name, "%s", pol.profile_status);
	else
		t_check(!pol.profile_loaded && strstr(pol.profile_status, "ignored: ") &&
				strstr(pol.profile_status, want) && noted,
			name, "status '%s', want '%s'; %d notes", pol.profile_status,
			want, pol.note_count);
}

static const char *at(const char *name)
{
	return t_scratch_path(name);
}

/* What any process may make: modes, links, paths of its own files. */
static void test_modes_and_paths(void)
{
	char want[300];
	make_dir(at("etc"), -1, 0755);
	make_file(at("etc/good"), -1, -1, 0644);
	expect("trust: a file of this user, 0644, in trusted directories: loaded",
	       at("etc/good"), NULL);

	make_file(at("etc/world"), -1, -1, 0666);
	snprintf(want, sizeof want, "not trusted: %s is writable by others (mode 0666)",
		 at("etc/world"));
	expect("trust: a file writable by others (0666): ignored", at("etc/world"), want);

	make_file(at("etc/group"), -1, -1, 0664);
	expect("trust: a file writable by its group (0664): ignored", at("etc/group"),
	       "is writable by its group (mode 0664)");

	make_dir(at("sticky"), -1, 01777);
	make_file(at("sticky/profile"), -1, -1, 0644);
	snprintf(want, sizeof want, "%s is writable by others (mode 1777)", at("sticky"));
	expect("trust: a file in a 1777 directory: ignored", at("sticky/profile"), want);

	make_dir(at("shared"), -1, 0775);
	make_dir(at("shared/deep"), -1, 0755);
	make_file(at("shared/deep/profile"), -1, -1, 0644);
	snprintf(want, sizeof want, "%s is writable by its group (mode 0775)", at("shared"));
	expect("trust: a group-writable directory two levels up: ignored",
	       at("shared/deep/profile"), want);

	symlink("good", at("etc/link"));
	expect("trust: a link of this user to a trusted file: loaded", at("etc/link"), NULL);
	symlink("../sticky/profile", at("etc/to-sticky"));
	snprintf(want, sizeof want, "%s is writable by others", at("sticky"));
	expect("trust: a trusted link to a file in a 1777 directory: ignored",
	       at("etc/to-sticky"), want);
	symlink(at("sticky"), at("dirlink"));
	expect("trust: a path through a link to a 1777 directory: ignored",
	       at("dirlink/profile"), want);
	symlink("world", at("etc/to-world"));
	expect("trust: a trusted link to a world-writable file: ignored",
	       at("etc/to-world"), "is writable by others (mode 0666)");

	char dots[512];
	snprintf(dots, sizeof dots, "%s/../etc/./good", at("sticky"));
	expect("trust: '..' leaving a 1777 directory the path passed through: loaded",
	       dots, NULL);
	symlink(at("etc"), at("sticky/planted"));
	snprintf(dots, sizeof dots, "%s/planted/../etc/good", at("sticky"));
	expect("trust: a link in a 1777 directory, then '..': ignored", dots,
	       "is writable by others (mode 1777)");

	char cwd[4096];
	if (getcwd(cwd, sizeof cwd) && !chdir(at("etc"))) {
		expect("trust: a relative path, the directories above the working "
		       "directory checked too: loaded", "good", NULL);
		expect("trust: a relative path to a world-writable file: ignored", "world",
		       "is writable by others");
		if (chdir(cwd))
			t_fail("trust: back to the working directory", "%s", strerror(errno));
	}

	/* Absent is absent, wherever: no note for a file that is not there. */
	ntm_policy_build(&pol, ntm_cpu(), NULL, at("sticky/absent"));
	t_check(!strcmp(pol.profile_status, "not present") && pol.note_count == 0,
		"trust: no file in an untrusted directory is simply not present",
		"'%s'", pol.profile_status);

	if (mkfifo(at("etc/fifo"), 0644) == 0)
		expect("trust: a FIFO in a trusted directory: not opened", at("etc/fifo"),
		       "not a regular file");
}

/* What only root can make: files and directories of other users. */
static void test_owners(void)
{
	char want[300];
	if (!can_chown) {
		t_skip("trust: files and directories owned by another user",
		       "this process cannot chown (not root): no file of another "
		       "owner can be made");
		return;
	}
	/* The unprivileged user's file, 0644. */
	make_file(at("etc/nobody"), NOBODY, -1, 0644);
	snprintf(want, sizeof want, "%s is owned by uid %d, not root or uid %u",
		 at("etc/nobody"), NOBODY, (unsigned)geteuid());
	expect("trust: a file owned by an unprivileged user, 0644: ignored",
	       at("etc/nobody"), want);

	/* Root's file, 0664, its group the user's. */
	make_file(at("etc/usergroup"), -1, NOBODY, 0664);
	expect("trust: root's file, 0664, its group a user's: ignored",
	       at("etc/usergroup"), "is writable by its group (mode 0664)");

	/* A root-owned link to the user's file. */
	symlink("nobody", at("etc/root-link"));
	expect("trust: a root link to a user's file: ignored", at("etc/root-link"),
	       "owned by uid 65534");

	/* The user's link to root's file. */
	symlink("good", at("etc/user-link"));
	lchown(at("etc/user-link"), NOBODY, (gid_t)-1);
	snprintf(want, sizeof want, "%s is owned by uid %d", at("etc/user-link"), NOBODY);
	expect("trust: a user's link to a trusted file: ignored", at("etc/user-link"), want);

	/* Root's file in the user's directory. */
	make_dir(at("userdir"), NOBODY, 0755);
	make_file(at("userdir/profile"), -1, -1, 0644);
	snprintf(want, sizeof want, "%s is owned by uid %d", at("userdir"), NOBODY);
	expect("trust: root's file in a user's directory: ignored",
	       at("userdir/profile"), want);

	/* Root's file in a trusted directory inside the user's. */
	make_dir(at("userdir/sub"), -1, 0755);
	make_file(at("userdir/sub/profile"), -1, -1, 0644);
	expect("trust: root's file two levels below a user's directory: ignored",
	       at("userdir/sub/profile"), want);
}

/* In a child of uid 65534: 0 when path loads, 1 when it is ignored for
 * a reason containing want, 2 otherwise. */
static int as_nobody(const char *path, const char *want)
{
	pid_t pid = fork();
	if (pid == 0) {
		if (setgroups(0, NULL) || setgid(NOBODY) || setuid(NOBODY))
			_exit(3);
		ntm_policy_build(&pol, ntm_cpu(), NULL, path);
		if (pol.profile_loaded)
			_exit(0);
		_exit(want && strstr(pol.profile_status, want) ? 1 : 2);
	}
	int status;
	if (pid < 0 || waitpid(pid, &status, 0) != pid || !WIFEXITED(status))
		return -1;
	return WEXITSTATUS(status);
}

/* The user's own profile, as $XDG_CACHE_HOME/ntmem/profile is: the same
 * test for the process's own uid. */
static void test_users_own(void)
{
	if (!can_chown || t_scratch_closed()) {
		t_skip("trust: the user's own profile", can_chown ? t_scratch_closed()
		       : "this process cannot chown or change its uid (not root)");
		return;
	}
	/* The scratch directory is 0700 root's: open it for the user. */
	chmod(t_scratch_dir(), 0755);
	make_dir(at("home"), NOBODY, 0755);
	make_dir(at("home/cache"), NOBODY, 0700);
	make_file(at("home/cache/mine"), NOBODY, NOBODY, 0644);
	make_file(at("home/cache/roots"), -1, -1, 0644);
	make_file(at("home/cache/other"), OTHER, -1, 0644);
	make_file(at("home/cache/open"), NOBODY, NOBODY, 0666);
	int mine = as_nobody(at("home/cache/mine"), NULL);
	int roots = as_nobody(at("home/cache/roots"), NULL);
	int other = as_nobody(at("home/cache/other"), "owned by uid 65533, not root or uid 65534");
	int open = as_nobody(at("home/cache/open"), "writable by others");
	t_check(mine == 0 && roots == 0 && other == 1 && open == 1,
		"trust: a user reads its own profile and root's, not another "
		"user's nor a world-writable one",
		"own %d, root's %d, another's %d, 0666 %d (0 loaded, 1 ignored)",
		mine, roots, other, open);
	chmod(t_scratch_dir(), 0700);
}

/* End to end, as a daemon is: no HOME, the system-wide profile one that
 * should not be trusted.  ntmem info gives the reason; the library, in
 * ntmem info as in any program, prints nothing of its own (the tool's
 * note under an emulator is not about the profile). */
static void test_info(void)
{
	char cmd[1024], *out = NULL, *err = NULL, want[400];
	snprintf(cmd, sizeof cmd, "env -u HOME -u XDG_CACHE_HOME -u NTMEM_PROFILE "
		 "NTMEM_SYSTEM_PROFILE=%s %s info", at("sticky/profile"), t_ntmem());
	int st = t_run(cmd, &out, &err);
	snprintf(want, sizeof want, "%s: ignored: not trusted: %s is writable by "
		 "others (mode 1777)", at("sticky/profile"), at("sticky"));
	const char *ignored = out ? strstr(out, "\nIgnored") : NULL;
	t_check(st == 0 && strstr(out, want) && ignored &&
			strstr(ignored, at("sticky/profile")) && err &&
			!strstr(err, "profile") && !strstr(err, "trust"),
		"trust: ntmem info, no HOME: the system profile ignored, the "
		"reason given and listed", "status %d\n%s\nstderr: %s", st,
		out ? out : "", err ? err : "");
	free(out);
	free(err);

	snprintf(cmd, sizeof cmd, "NTMEM_PROFILE=%s %s info --json", at("etc/world"),
		 t_ntmem());
	st = t_run(cmd, &out, NULL);
	char perr[160];
	struct t_json *j = t_json_parse(out, perr, sizeof perr);
	const struct t_json *status = t_json_get(t_json_get(j, "profile"), "status");
	const struct t_json *ign = t_json_get(j, "ignored");
	t_check(st == 0 && status && strstr(status->string, "not trusted") &&
			ign && ign->count == 1 && strstr(ign->items[0].string, "writable by others"),
		"trust: NTMEM_PROFILE naming a world-writable file: the same rule, in "
		"info --json", "status %d %s", st, j ? "" : perr);
	t_json_free(j);
	free(out);
}

/* A profile that exists but cannot be read is ignored with the reason,
 * never "not present" (issue 30, point 2): a system profile in a 0700
 * directory, as calibrate --system made them, read by another user. */
static void test_unreadable(void)
{
	const char *why = !can_chown ? "this process cannot change its uid (not root)"
			  : t_scratch_closed() ? t_scratch_closed()
			  : system("setpriv --help >/dev/null 2>&1")
			  ? "setpriv (util-linux) is not installed" : NULL;
	if (why) {
		t_skip("trust: a profile another user cannot read", why);
		return;
	}
	chmod(t_scratch_dir(), 0755);
	make_dir(at("closed"), -1, 0700);
	make_file(at("closed/profile"), -1, -1, 0644);
	char cmd[1400], *out = NULL;
	snprintf(cmd, sizeof cmd, "env -u HOME -u XDG_CACHE_HOME -u NTMEM_PROFILE "
		 "NTMEM_SYSTEM_PROFILE=%s setpriv --reuid=%d --regid=%d "
		 "--clear-groups %s info", at("closed/profile"), NOBODY, NOBODY,
		 t_ntmem());
	int st = t_run(cmd, &out, NULL);
	char want[400];
	snprintf(want, sizeof want, "%s: ignored: cannot open: Permission denied",
		 at("closed/profile"));
	t_check(st == 0 && strstr(out, want) && !strstr(out, "not present"),
		"trust: a profile that exists but cannot be read is ignored with "
		"the reason, not 'not present'", "status %d\n%s", st, out ? out : "");
	free(out);
	chmod(t_scratch_dir(), 0700);
}

int main(void)
{
	if (t_scratch_make("trust"))
		return t_finish();
	if (t_scratch_untrusted()) {
		t_skip("trust: profiles by owner, mode and path", t_scratch_untrusted());
		t_scratch_remove();
		return t_finish();
	}
	/* Can this process give a file away?  Then it is root (or has
	 * CAP_CHOWN), and every case can be made. */
	close(open(at("probe"), O_WRONLY | O_CREAT, 0600));
	can_chown = chown(at("probe"), NOBODY, NOBODY) == 0 && geteuid() == 0;
	unlink(at("probe"));
	test_modes_and_paths();
	test_owners();
	test_users_own();
	test_info();
	test_unreadable();
	t_scratch_remove();
	return t_finish();
}
