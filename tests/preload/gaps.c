/*
 * gaps.c - processes that "ntmem run --report" cannot record, for
 * test_report_gaps:
 *
 *   gaps emfile       fills its descriptor table, then forks a child
 *                     that copies COPY bytes CHILD times and ends: the
 *                     child can open no record (EMFILE).  The parent
 *                     copies PARENT times.
 *   gaps emfile-exec  the same, but the child execs "gaps leaf", whose
 *                     descriptors the exec closes (close-on-exec): one
 *                     process, whose first program has no record and
 *                     whose second has.
 *   gaps drop         forks a child that unsets LD_PRELOAD and execs
 *                     "sleep 2", and ends once that exec has happened:
 *                     the child runs on without the shim.
 *   gaps leaf         copies LEAF times.
 */
#include "helper.h"

#include <fcntl.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>

#define COPY 300000
enum { PARENT = 3, CHILD = 5, LEAF = 7 };

static unsigned char a[COPY], b[COPY];

static void copies(int n)
{
	for (int i = 0; i < n; i++)
		memcpy(b, a, COPY);
}

/* Open /dev/null until the table is full (under a small limit, so it
 * takes few); returns how many were opened.  cloexec: an exec closes
 * them, so that the next program can load its libraries. */
static int fill_table(int cloexec)
{
	struct rlimit r = {64, 64};
	setrlimit(RLIMIT_NOFILE, &r);
	int n = 0;
	while (open("/dev/null", O_RDONLY | (cloexec ? O_CLOEXEC : 0)) >= 0)
		n++;
	return n;
}

static int emfile(const char *self, int exec_leaf)
{
	copies(PARENT);
	fflush(stdout);
	fill_table(exec_leaf);
	pid_t pid = fork();
	if (pid == 0) {
		if (exec_leaf) {
			execl(self, "gaps", "leaf", (char *)NULL);
			_exit(127);
		}
		copies(CHILD);
		_exit(0);
	}
	int status = 0;
	if (pid < 0 || waitpid(pid, &status, 0) != pid || !WIFEXITED(status) ||
	    WEXITSTATUS(status))
		helper_fail("a child with a full descriptor table", "status 0x%x", status);
	else
		helper_pass("a child with a full descriptor table");
	return helper_exit();
}

/* The child's exec closes the pipe's write end (close-on-exec): EOF here
 * means the child runs sleep, without the shim. */
static int drop(void)
{
	int fds[2];
	if (pipe2(fds, O_CLOEXEC))
		return 1;
	pid_t pid = fork();
	if (pid == 0) {
		close(fds[0]);
		unsetenv("LD_PRELOAD");
		execlp("sleep", "sleep", "2", (char *)NULL);
		_exit(127);
	}
	close(fds[1]);
	char c;
	while (read(fds[0], &c, 1) > 0)
		;
	helper_pass("a child that dropped the shim");
	return helper_exit();
}

int main(int argc, char **argv)
{
	if (argc == 2 && !strcmp(argv[1], "emfile"))
		return emfile(argv[0], 0);
	if (argc == 2 && !strcmp(argv[1], "emfile-exec"))
		return emfile(argv[0], 1);
	if (argc == 2 && !strcmp(argv[1], "drop"))
		return drop();
	if (argc == 2 && !strcmp(argv[1], "leaf")) {
		copies(LEAF);
		return 0;
	}
	fprintf(stderr, "usage: gaps emfile|emfile-exec|drop|leaf\n");
	return 2;
}
