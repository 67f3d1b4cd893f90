/*
 * tree.c - a process tree whose calls are known, for the whole-tree
 * report of "ntmem run --report-json":
 *
 *   tree parent   copies of COPY bytes in itself; in a child that ends
 *                 with _exit; in a child killed by SIGKILL; in a child
 *                 that execs this program as "tree-exec", which execs it
 *                 again as "tree-again"; and in a "sh -c 'tree leaf |
 *                 tree leaf'" pipeline.  It prints "EXPECT COPIES N", the
 *                 copies of COPY bytes all of them made.
 *   tree fds      prints "FD N TARGET" for each descriptor it holds but
 *                 the one reading /proc/self/fd: what the command's
 *                 programs inherit.
 *
 * COPY bytes is a size no shell or C library start-up copies.
 */
#include "helper.h"

#include <dirent.h>
#include <signal.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#define COPY 300000

static unsigned char a[COPY], b[COPY];

enum {
	PARENT = 3, EXITER = 5, KILLED = 7, BEFORE_EXEC = 2, EXECED = 11,
	EXECED_AGAIN = 13, LEAF = 17
};

static void copies(int n)
{
	for (int i = 0; i < n; i++)
		memcpy(b, a, COPY);
}

static void wait_for(pid_t pid, const char *name, int want_signal)
{
	int status;
	if (pid < 0 || waitpid(pid, &status, 0) != pid)
		helper_fail(name, "fork or wait failed");
	else if (want_signal ? !WIFSIGNALED(status) || WTERMSIG(status) != want_signal
			     : !WIFEXITED(status) || WEXITSTATUS(status))
		helper_fail(name, "status 0x%x", status);
	else
		helper_pass(name);
}

static int parent(const char *self)
{
	copies(PARENT);
	fflush(stdout);
	pid_t pid = fork();
	if (pid == 0) {
		copies(EXITER);
		_exit(0);
	}
	wait_for(pid, "a child that ends with _exit", 0);
	pid = fork();
	if (pid == 0) {
		copies(KILLED);
		raise(SIGKILL);
		_exit(1);
	}
	wait_for(pid, "a child killed by SIGKILL", SIGKILL);
	pid = fork();
	if (pid == 0) {
		copies(BEFORE_EXEC);
		execl(self, "tree-exec", "exec", self, (char *)NULL);
		_exit(127);
	}
	wait_for(pid, "a child that execs twice", 0);
	char pipeline[2 * PATH_MAX + 32];
	snprintf(pipeline, sizeof pipeline, "'%s' leaf | '%s' leaf", self, self);
	int status = system(pipeline);
	if (status)
		helper_fail("a sh -c pipeline", "status 0x%x", status);
	else
		helper_pass("a sh -c pipeline");
	printf("EXPECT COPIES %d\n", PARENT + EXITER + KILLED + BEFORE_EXEC +
				       EXECED + EXECED_AGAIN + 2 * LEAF);
	return helper_exit();
}

static int list_fds(void)
{
	DIR *d = opendir("/proc/self/fd");
	struct dirent *de;
	if (!d)
		return 1;
	while ((de = readdir(d))) {
		char link[64], target[PATH_MAX];
		if (de->d_name[0] == '.' || atoi(de->d_name) == dirfd(d))
			continue;
		snprintf(link, sizeof link, "/proc/self/fd/%s", de->d_name);
		ssize_t n = readlink(link, target, sizeof target - 1);
		target[n > 0 ? n : 0] = '\0';
		printf("FD %s %s\n", de->d_name, target);
	}
	closedir(d);
	return 0;
}

int main(int argc, char **argv)
{
	if (argc == 2 && !strcmp(argv[1], "parent"))
		return parent(argv[0]);
	if (argc == 3 && !strcmp(argv[1], "exec")) {
		copies(EXECED);
		execl(argv[2], "tree-again", "again", (char *)NULL);
		return 127;
	}
	if (argc == 2 && !strcmp(argv[1], "again")) {
		copies(EXECED_AGAIN);
		return 0;
	}
	if (argc == 2 && !strcmp(argv[1], "leaf")) {
		copies(LEAF);
		return 0;
	}
	if (argc == 2 && !strcmp(argv[1], "fds"))
		return list_fds();
	fprintf(stderr, "usage: tree parent|fds\n");
	return 2;
}
