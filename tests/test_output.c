/* test_output.c - the tool's output files, from the repros of issue 12:
 * --plot through a symlink, into a FIFO and a character device (never
 * replacing them), naming a directory (refused before measuring), and no
 * file, whole or temporary, left by SIGPIPE, SIGTERM or SIGKILL.
 * Runs of the real tool, tiny (64 KiB, -l 1), and no timing asserted. */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "harness.h"


/* A bench run small enough for any machine. */
#define TINY "bench memset -s 64KB -r 1 -l 1 -f glibc"

/* Entries of the scratch directory whose names start with prefix: the
 * file or its temporaries. */
static int count_prefixed(const char *prefix)
{
	return t_count_prefixed(t_scratch_dir(), prefix);
}

static int is_svg(const char *text)
{
	return strstr(text, "<svg") && strstr(text, "</svg>");
}


/* "ntmem ARGS"; the exit status, stdout and stderr. */
static int tool(const char *args, char **out, char **err)
{
	char cmd[2048];
	snprintf(cmd, sizeof cmd, "%s %s", t_ntmem(), args);
	return t_run(cmd, out, err);
}

static void test_symlink(void)
{
	char args[1024];
	if (symlink("real.svg", t_scratch_path("link.svg"))) {
		t_fail("--plot through a symlink", "symlink: %s", strerror(errno));
		return;
	}
	snprintf(args, sizeof args, TINY " --plot %s", t_scratch_path("link.svg"));
	int st = tool(args, NULL, NULL);
	struct stat sb;
	t_check(st == 0 && !lstat(t_scratch_path("link.svg"), &sb) && S_ISLNK(sb.st_mode) &&
		is_svg(t_file_text(t_scratch_path("real.svg"))),
		"--plot through a symlink writes the file it names; the link stays",
		"status %d", st);
}

static void test_fifo(void)
{
	char args[1024];
	if (mkfifo(t_scratch_path("fifo.svg"), 0600)) {
		t_fail("--plot into a FIFO", "mkfifo: %s", strerror(errno));
		return;
	}
	/* Our read end, open first: the tool's open does not wait, and the
	 * pipe holds the whole plot until we read it. */
	int rd = open(t_scratch_path("fifo.svg"), O_RDWR | O_NONBLOCK);
	if (rd >= 0)
		fcntl(rd, F_SETPIPE_SZ, 1 << 20);
	snprintf(args, sizeof args, TINY " --plot %s", t_scratch_path("fifo.svg"));
	int st = tool(args, NULL, NULL);
	static char got[1 << 20];
	ssize_t n = rd >= 0 ? read(rd, got, sizeof got - 1) : -1;
	got[n > 0 ? n : 0] = '\0';
	if (rd >= 0)
		close(rd);
	struct stat sb;
	t_check(st == 0 && is_svg(got) && !lstat(t_scratch_path("fifo.svg"), &sb) &&
		S_ISFIFO(sb.st_mode), "--plot into a FIFO writes through it; it stays a FIFO",
		"status %d, read %zd bytes", st, n);
}

static void test_device(void)
{
	/* As root, /dev/null's numbers made here, so a regression cannot
	 * replace the real one; otherwise the real one, which a process
	 * that is not root cannot replace anyway. */
	const char *null = t_scratch_path("null");
	int own = geteuid() == 0 && !mknod(null, S_IFCHR | 0666, makedev(1, 3));
	if (!own)
		null = "/dev/null";
	char args[1024];
	snprintf(args, sizeof args, TINY " --plot %s", null);
	int st = tool(args, NULL, NULL);
	struct stat sb;
	char name[128];
	snprintf(name, sizeof name, "--plot %s: written through, still a character device",
		 own ? "a /dev/null node" : "/dev/null");
	t_check(st == 0 && !lstat(null, &sb) && S_ISCHR(sb.st_mode), name,
		"status %d, mode %o", st, sb.st_mode);
}

/* /dev/stdout, redirected to a file: the table, then the plot. */
static void test_stdout(void)
{
	char args[1024], *out = NULL;
	snprintf(args, sizeof args, TINY " --plot /dev/stdout > %s", t_scratch_path("both.txt"));
	int st = tool(args, &out, NULL);
	const char *both = t_file_text(t_scratch_path("both.txt"));
	const char *table = strstr(both, "glibc"), *svg = strstr(both, "<svg");
	t_check(st == 0 && table && svg && table < svg && is_svg(svg),
		"--plot /dev/stdout > FILE: the table, then the plot, in FILE",
		"status %d, %zu bytes", st, strlen(both));
	free(out);
}

static void test_directory(void)
{
	static const char *const commands[] = {"bench memset -s 64KB -r 3", "pollution -s 4KiB"};
	for (size_t i = 0; i < 2; i++) {
		char args[1024], name[160], *out = NULL, *err = NULL;
		mkdir(t_scratch_path("adir"), 0755);
		snprintf(args, sizeof args, "%s --plot %s", commands[i], t_scratch_path("adir"));
		int st = tool(args, &out, &err);
		snprintf(name, sizeof name, "%.9s --plot DIR: exit 2 before measuring "
			 "(nothing on stdout), saying why", commands[i]);
		t_check(st == 2 && out[0] == '\0' && strstr(err, "--plot") &&
			strstr(err, "directory") && count_prefixed("adir.") == 0, name,
			"status %d, stdout %zu bytes, stderr %s", st, strlen(out), err);
		free(out);
		free(err);
	}
}

/* Start "ntmem ARGS" with stdout a pipe nobody reads, or /dev/null. */
static pid_t start(const char *args, int broken_stdout)
{
	int fds[2];
	if (pipe(fds))
		return -1;
	close(fds[0]);  /* no reader: the first write raises SIGPIPE */
	pid_t pid = fork();
	if (pid == 0) {
		int null = open("/dev/null", O_WRONLY);
		dup2(broken_stdout ? fds[1] : null, 1);
		dup2(null, 2);
		signal(SIGPIPE, SIG_DFL);
		char cmd[2048];
		snprintf(cmd, sizeof cmd, "exec %s %s", t_ntmem(), args);
		execl("/bin/sh", "sh", "-c", cmd, (char *)NULL);
		_exit(127);
	}
	close(fds[1]);
	return pid;
}

static void test_sigpipe(void)
{
	char args[1024];
	snprintf(args, sizeof args, TINY " --plot %s", t_scratch_path("pipe.svg"));
	pid_t pid = start(args, 1);
	int status = 0;
	waitpid(pid, &status, 0);
	int died = (WIFSIGNALED(status) && WTERMSIG(status) == SIGPIPE) ||
		   (WIFEXITED(status) && WEXITSTATUS(status) == 1);
	t_check(died && count_prefixed("pipe.svg") == 0,
		"ntmem bench ... --plot p.svg | true: no p.svg, no p.svg.tmp*",
		"status %#x, %d files", status, count_prefixed("pipe.svg"));
}

static void sleep_ms(long ms)
{
	struct timespec ts = {ms / 1000, (ms % 1000) * 1000000};
	while (nanosleep(&ts, &ts) && errno == EINTR)
		;
}

/* Killed while measuring: nothing exists under the plot's name or beside
 * it, neither during the run nor after. */
static void test_killed(int sig, const char *signame)
{
	char args[1024], prefix[32], name[128];
	snprintf(prefix, sizeof prefix, "kill%d.svg", sig);
	snprintf(args, sizeof args, "bench memset -s 64KB -r 1000 -l 1000 -f glibc "
		 "--plot %s", t_scratch_path(prefix));
	pid_t pid = start(args, 0);
	sleep_ms(300);
	int during = count_prefixed(prefix);
	kill(pid, sig);
	int status = 0;
	waitpid(pid, &status, 0);
	snprintf(name, sizeof name, "%s while measuring: no plot file, whole or "
		 "temporary, during or after", signame);
	t_check(WIFSIGNALED(status) && during == 0 && count_prefixed(prefix) == 0, name,
		"status %#x, %d files during, %d after", status, during,
		count_prefixed(prefix));
}

int main(void)
{
	if (t_scratch_make("output"))
		return t_finish();
	test_symlink();
	test_fifo();
	test_device();
	test_stdout();
	test_directory();
	test_sigpipe();
	test_killed(SIGTERM, "SIGTERM");
	test_killed(SIGKILL, "SIGKILL");
	t_scratch_remove();
	return t_finish();
}
