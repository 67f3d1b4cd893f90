/* test_outfile.c - the one output writer (src/util/outfile.h) and the profile
 * writer built on it: what is at the path decides how it is written, a
 * link is followed, a device or FIFO is written through and never
 * replaced, a directory is refused before anything is created, modes
 * follow the umask, no temporary file is left, errno is kept on success. */
#define _GNU_SOURCE
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <sys/wait.h>
#include <unistd.h>

#include "dispatch/cpu.h"
#include "harness.h"
#include "util/outfile.h"
#include "dispatch/profile.h"

static const char text[] = "<svg>the data</svg>\n";


/* Entries of d whose names contain ".tmp": temporaries left behind. */
static int leftovers(const char *d)
{
	DIR *h = opendir(d);
	int n = 0;
	struct dirent *e;
	while (h && (e = readdir(h)))
		n += strstr(e->d_name, ".tmp") != NULL;
	if (h)
		closedir(h);
	return n;
}

static mode_t mode_of(const char *path)
{
	struct stat st;
	return stat(path, &st) ? (mode_t)-1 : st.st_mode & 07777;
}

static void test_new_and_replaced(void)
{
	umask(027);
	errno = 4242;
	int r = ntm_outfile_write(t_scratch_path("new.svg"), text, sizeof text - 1, 0);
	t_check(r == 0 && errno == 4242, "outfile: a new file is written, errno kept",
		"r %d errno %d", r, errno);
	t_check(!strcmp(t_file_text(t_scratch_path("new.svg")), text) && mode_of(t_scratch_path("new.svg")) == 0640,
		"outfile: a new file has mode 0666 less the umask (027: 0640)",
		"mode %o, contents '%s'", mode_of(t_scratch_path("new.svg")), t_file_text(t_scratch_path("new.svg")));
	umask(022);

	/* A regular file is replaced whole: a new inode, its mode kept. */
	chmod(t_scratch_path("new.svg"), 0600);
	struct stat before, after;
	stat(t_scratch_path("new.svg"), &before);
	r = ntm_outfile_write(t_scratch_path("new.svg"), "v2\n", 3, 0);
	stat(t_scratch_path("new.svg"), &after);
	t_check(r == 0 && !strcmp(t_file_text(t_scratch_path("new.svg")), "v2\n") &&
		before.st_ino != after.st_ino && (after.st_mode & 07777) == 0600,
		"outfile: a regular file is replaced by rename, keeping its mode",
		"r %d ino %lu -> %lu mode %o", r, (unsigned long)before.st_ino,
		(unsigned long)after.st_ino, after.st_mode & 07777);
	t_check(leftovers(t_scratch_dir()) == 0, "outfile: no temporary file is left", "found one");
}

static void test_links(void)
{
	int r;
	if (symlink("real.svg", t_scratch_path("link.svg")) || symlink("link.svg", t_scratch_path("link2.svg")) ||
	    symlink("gone.svg", t_scratch_path("dangling.svg")) || symlink("loop.svg", t_scratch_path("loop.svg"))) {
		t_fail("outfile: links", "symlink: %s", strerror(errno));
		return;
	}
	FILE *f = fopen(t_scratch_path("real.svg"), "w");
	if (f)
		fclose(f);
	r = ntm_outfile_write(t_scratch_path("link2.svg"), text, sizeof text - 1, 0);
	struct stat st;
	int still_link = !lstat(t_scratch_path("link.svg"), &st) && S_ISLNK(st.st_mode) &&
			 !lstat(t_scratch_path("link2.svg"), &st) && S_ISLNK(st.st_mode);
	t_check(r == 0 && still_link && !strcmp(t_file_text(t_scratch_path("real.svg")), text),
		"outfile: a chain of links is followed; the file it points to is written",
		"r %d, links kept %d, real '%s'", r, still_link, t_file_text(t_scratch_path("real.svg")));

	r = ntm_outfile_write(t_scratch_path("dangling.svg"), text, sizeof text - 1, 0);
	t_check(r == 0 && !lstat(t_scratch_path("dangling.svg"), &st) && S_ISLNK(st.st_mode) &&
		!strcmp(t_file_text(t_scratch_path("gone.svg")), text),
		"outfile: a dangling link creates the file it names", "r %d: %s", r,
		strerror(errno));

	errno = 0;
	r = ntm_outfile_write(t_scratch_path("loop.svg"), text, sizeof text - 1, 0);
	t_check(r == -1 && errno == ELOOP, "outfile: a loop of links fails with ELOOP",
		"r %d errno %d", r, errno);
}

static void test_fifo(void)
{
	if (mkfifo(t_scratch_path("fifo"), 0600)) {
		t_fail("outfile: FIFO", "mkfifo: %s", strerror(errno));
		return;
	}
	/* Our own read end, so the writer's open does not wait. */
	int rd = open(t_scratch_path("fifo"), O_RDWR | O_NONBLOCK);
	int r = ntm_outfile_write(t_scratch_path("fifo"), text, sizeof text - 1, 0);
	char got[256] = "";
	ssize_t n = rd >= 0 ? read(rd, got, sizeof got - 1) : -1;
	got[n > 0 ? n : 0] = '\0';
	struct stat st;
	t_check(r == 0 && !strcmp(got, text) && !lstat(t_scratch_path("fifo"), &st) &&
		S_ISFIFO(st.st_mode), "outfile: a FIFO is written through and stays a FIFO",
		"r %d, read '%s'", r, got);
	if (rd >= 0)
		close(rd);
}

static void test_devices(void)
{
	/* /dev/null's own numbers, made here: a failure cannot damage the
	 * real one.  Root only; else the real /dev/null, which a process
	 * that is not root cannot replace anyway. */
	const char *null = t_scratch_path("null");
	if (geteuid() != 0 || mknod(null, S_IFCHR | 0666, makedev(1, 3)))
		null = "/dev/null";
	int r = ntm_outfile_write(null, text, sizeof text - 1, 0);
	struct stat st;
	t_check(r == 0 && !lstat(null, &st) && S_ISCHR(st.st_mode),
		"outfile: a character device is written through and stays one",
		"%s: r %d: %s", null, r, strerror(errno));

	/* A block device is refused.  An unassigned major: nothing real. */
	if (geteuid() != 0 || mknod(t_scratch_path("disk"), S_IFBLK | 0600, makedev(240, 0))) {
		t_skip("outfile: a block device is refused", "mknod needs root");
	} else {
		struct ntm_outfile o;
		r = ntm_outfile_prepare(&o, t_scratch_path("disk"), 0);
		t_check(r == -1 && errno == EINVAL && o.why && strstr(o.why, "block device") &&
			!lstat(t_scratch_path("disk"), &st) && S_ISBLK(st.st_mode),
			"outfile: a block device is refused", "r %d: %s", r, strerror(errno));
	}
}

/* Root may write anywhere: check as nobody, in a child. */
static void test_unwritable(void)
{
	mkdir(t_scratch_path("ro"), 0555);
	chmod(t_scratch_dir(), 0755);
	pid_t pid = fork();
	if (pid == 0) {
		if (geteuid() == 0 && setresuid(65534, 65534, 65534))
			_exit(3);
		struct ntm_outfile o;
		int r = ntm_outfile_prepare(&o, t_scratch_path("ro/x.svg"), 0);
		_exit(r == -1 && errno == EACCES ? 0 : r == 0 ? 1 : 2);
	}
	int status = -1;
	waitpid(pid, &status, 0);
	chmod(t_scratch_dir(), 0700);
	if (WIFEXITED(status) && WEXITSTATUS(status) == 3)
		t_skip("outfile: an unwritable directory fails at prepare",
		       "cannot drop root to check it");
	else
		t_check(WIFEXITED(status) && WEXITSTATUS(status) == 0,
			"outfile: an unwritable directory fails at prepare (EACCES)",
			"child status %#x", status);
}

/* /proc/self/fd/N (and /dev/stdout) name an open file: appended to, not
 * replaced, even when it is a regular file. */
static void test_open_file(void)
{
	int fd = open(t_scratch_path("opened.txt"), O_WRONLY | O_CREAT | O_TRUNC, 0644);
	if (fd < 0 || write(fd, "table\n", 6) != 6) {
		t_fail("outfile: an open file", "%s", strerror(errno));
		return;
	}
	struct stat before, after;
	fstat(fd, &before);
	char self[64];
	snprintf(self, sizeof self, "/proc/self/fd/%d", fd);
	int r = ntm_outfile_write(self, text, sizeof text - 1, 0);
	close(fd);
	stat(t_scratch_path("opened.txt"), &after);
	char want[256];
	snprintf(want, sizeof want, "table\n%s", text);
	t_check(r == 0 && before.st_ino == after.st_ino &&
		!strcmp(t_file_text(t_scratch_path("opened.txt")), want),
		"outfile: /proc/self/fd/N is written through, after what it holds",
		"r %d: '%s'", r, t_file_text(t_scratch_path("opened.txt")));
}

static void test_refused(void)
{
	mkdir(t_scratch_path("adir"), 0755);
	struct ntm_outfile o;
	int r = ntm_outfile_prepare(&o, t_scratch_path("adir"), 0);
	t_check(r == -1 && errno == EISDIR, "outfile: a directory is refused (EISDIR)",
		"r %d errno %d", r, errno);
	r = ntm_outfile_prepare(&o, t_scratch_path("nodir/x.svg"), 0);
	t_check(r == -1 && errno == ENOENT && access(t_scratch_path("nodir"), F_OK) != 0,
		"outfile: a missing directory fails at prepare, creating nothing",
		"r %d errno %d", r, errno);
	r = ntm_outfile_prepare(&o, t_scratch_path("new.svg/x.svg"), 0);
	t_check(r == -1 && errno == ENOTDIR, "outfile: a file as directory fails (ENOTDIR)",
		"r %d errno %d", r, errno);
	int before = leftovers(t_scratch_dir());
	r = ntm_outfile_prepare(&o, t_scratch_path("fine.svg"), 0);
	t_check(r == 0 && access(t_scratch_path("fine.svg"), F_OK) != 0 && leftovers(t_scratch_dir()) == before,
		"outfile: prepare creates nothing", "r %d", r);

	/* Permission bits are not all: root may write anywhere by them, yet
	 * /proc creates no file.  prepare must find out before the caller
	 * measures for minutes. */
	r = ntm_outfile_prepare(&o, "/proc/ntmem-test-outfile.svg", 0);
	t_check(r == -1, "outfile: a directory that creates no file (/proc) fails at prepare",
		"prepare returned %d", r);

	/* A target that changes between prepare and commit is looked at again. */
	r = ntm_outfile_prepare(&o, t_scratch_path("later"), 0);
	mkdir(t_scratch_path("later"), 0755);
	int c = r ? 0 : ntm_outfile_commit(&o, text, sizeof text - 1);
	t_check(r == 0 && c == -1 && errno == EISDIR,
		"outfile: commit looks again: a directory made meanwhile is refused",
		"prepare %d commit %d errno %d", r, c, errno);

	test_unwritable();
}

static void test_mkdir(void)
{
	umask(022);
	int r = ntm_outfile_write(t_scratch_path("a/b/out"), text, sizeof text - 1, NTM_OUTFILE_MKDIR);
	t_check(r == 0 && mode_of(t_scratch_path("a")) == 0700 && mode_of(t_scratch_path("a/b")) == 0700 &&
		!strcmp(t_file_text(t_scratch_path("a/b/out")), text),
		"outfile: NTM_OUTFILE_MKDIR makes the missing directories 0700",
		"r %d modes %o %o", r, mode_of(t_scratch_path("a")), mode_of(t_scratch_path("a/b")));
}

/* The profile: its directory 0700, the file 0644 as far as the umask
 * allows; the system-wide one 0755 and 0644 whatever the umask. */
static void test_profile_modes(void)
{
	struct profile p;
	ntm_profile_init(&p, ntm_cpu());
	snprintf(p.ladder[0].rungs, sizeof p.ladder[0].rungs, "%s", "");
	umask(022);
	int r = ntm_profile_write(t_scratch_path("cache/ntmem/profile"), &p, NULL, 0);
	t_check(r == 0 && mode_of(t_scratch_path("cache")) == 0700 && mode_of(t_scratch_path("cache/ntmem")) == 0700,
		"profile: the directory is created 0700", "r %d modes %o %o", r,
		mode_of(t_scratch_path("cache")), mode_of(t_scratch_path("cache/ntmem")));
	t_check(mode_of(t_scratch_path("cache/ntmem/profile")) == 0644,
		"profile: a new profile under umask 022 is 0644", "mode %o",
		mode_of(t_scratch_path("cache/ntmem/profile")));
	unlink(t_scratch_path("cache/ntmem/profile"));
	umask(077);
	r = ntm_profile_write(t_scratch_path("cache/ntmem/profile"), &p, NULL, 0);
	umask(022);
	t_check(r == 0 && mode_of(t_scratch_path("cache/ntmem/profile")) == 0600,
		"profile: a new profile under umask 077 is 0600, not 0644", "r %d mode %o",
		r, mode_of(t_scratch_path("cache/ntmem/profile")));
	/* Never writable by group or others, which libntmem would refuse:
	 * not under umask 000, not when replacing a file that was. */
	unlink(t_scratch_path("cache/ntmem/profile"));
	umask(0);
	r = ntm_profile_write(t_scratch_path("cache/ntmem/profile"), &p, NULL, 0);
	int fresh = mode_of(t_scratch_path("cache/ntmem/profile"));
	chmod(t_scratch_path("cache/ntmem/profile"), 0666);
	int again = ntm_profile_write(t_scratch_path("cache/ntmem/profile"), &p, NULL, 0);
	umask(022);
	t_check(r == 0 && again == 0 && fresh == 0644 &&
			mode_of(t_scratch_path("cache/ntmem/profile")) == 0644,
		"profile: under umask 000 a new profile is 0644, and a 0666 one "
		"replaced becomes 0644", "r %d %d, modes %o then %o", r, again, fresh,
		mode_of(t_scratch_path("cache/ntmem/profile")));

	/* The system-wide profile: every user reads it, only its owner
	 * writes it, whatever the umask (ntmem calibrate --system). */
	umask(077);
	r = ntm_profile_write(t_scratch_path("lib/ntmem/profile"), &p, NULL,
			      NTM_PROFILE_SHARED);
	fresh = mode_of(t_scratch_path("lib/ntmem/profile"));
	chmod(t_scratch_path("lib/ntmem/profile"), 0600);
	again = ntm_profile_write(t_scratch_path("lib/ntmem/profile"), &p, NULL,
				  NTM_PROFILE_SHARED);
	umask(022);
	t_check(r == 0 && again == 0 && mode_of(t_scratch_path("lib")) == 0755 &&
			mode_of(t_scratch_path("lib/ntmem")) == 0755 && fresh == 0644 &&
			mode_of(t_scratch_path("lib/ntmem/profile")) == 0644 &&
			leftovers(t_scratch_path("lib/ntmem")) == 0,
		"profile, shared: under umask 077 its new directories are 0755 and "
		"the file 0644, new or replacing a 0600 one",
		"r %d %d, directories %o %o, file %o then %o", r, again,
		mode_of(t_scratch_path("lib")), mode_of(t_scratch_path("lib/ntmem")),
		fresh, mode_of(t_scratch_path("lib/ntmem/profile")));

	struct profile back;
	char why[256] = "";
	r = symlink("cache/ntmem/profile", t_scratch_path("plink"));
	int w = r ? -1 : ntm_profile_write(t_scratch_path("plink"), &p, "via a link", 0);
	struct stat st;
	t_check(w == 0 && !lstat(t_scratch_path("plink"), &st) && S_ISLNK(st.st_mode) &&
		strstr(t_file_text(t_scratch_path("cache/ntmem/profile")), "# via a link"),
		"profile: a link is followed", "w %d", w);
	if (t_scratch_untrusted())
		t_skip("profile: written through a link, it reads back", t_scratch_untrusted());
	else
		t_check(!ntm_profile_read(t_scratch_path("plink"), ntm_cpu(), &back, why,
					  sizeof why),
			"profile: written through a link, it reads back", "%s", why);
	t_check(leftovers(t_scratch_path("cache/ntmem")) == 0, "profile: no temporary file is left",
		"found one");
}

int main(void)
{
	if (t_scratch_make("outfile"))
		return t_finish();
	test_new_and_replaced();
	test_links();
	test_fifo();
	test_devices();
	test_open_file();
	test_refused();
	test_mkdir();
	test_profile_modes();
	t_scratch_remove();
	return t_finish();
}
