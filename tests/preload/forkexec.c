/*
 * forkexec.c - a program that forks and execs under the shim, with calls
 * whose number and size it knows.
 *
 *   forkexec parent   known calls; a child that execs this program again
 *                     ("exec-child"), which must find the shim serving it
 *                     too; a child that calls exit() after calls of its
 *                     own; more known calls.  It prints the calls the
 *                     three processes made as "EXPECT FUNCTION KIND CALLS
 *                     BYTES" lines, KIND being small, set, set_nonzero,
 *                     copy or overlap, for test_preload to compare with
 *                     "ntmem run --report-json", which counts them all.
 */
#include "helper.h"

#include <string.h>
#include <strings.h>
#include <sys/wait.h>
#include <unistd.h>

#define SMALL 100
#define BIG (1u << 20)

static unsigned char small_buf[SMALL], big_a[BIG + 64], big_b[BIG + 64];

struct expect {
	const char *function, *kind;
	unsigned long calls;
};

/* The calls the reporting process makes, before and after the fork. */
static const struct expect parent_calls[] = {
	{"memset", "small", 3}, {"memset", "set", 2}, {"memset", "set_nonzero", 1},
	{"memcpy", "copy", 3}, {"memmove", "overlap", 1}, {"mempcpy", "small", 4},
	{"bzero", "small", 1},
};

static void make_calls(const struct expect *e, unsigned long times)
{
	for (unsigned long i = 0; i < times; i++) {
		int big = strcmp(e->kind, "small") != 0;
		if (!strcmp(e->function, "memset"))
			memset(big ? big_a : small_buf,
			       !strcmp(e->kind, "set_nonzero") ? 7 : 0, big ? BIG : SMALL);
		else if (!strcmp(e->function, "memcpy"))
			memcpy(big_b, big_a, BIG);
		else if (!strcmp(e->function, "memmove"))
			memmove(big_a + 1, big_a, BIG);
		else if (!strcmp(e->function, "mempcpy"))
			mempcpy(small_buf, big_a, SMALL);
		else
			bzero(small_buf, SMALL);
	}
}

/* The shim serves this process: its memset is the one LD_PRELOAD names. */
static int shim_serves(void)
{
	const char *preload = getenv("LD_PRELOAD");
	const char *definer = helper_definer("memset");
	return preload && strstr(definer, "libntmem-preload.so") &&
	       strstr(preload, definer);
}

static int exec_child(void)
{
	ref_pattern(big_a, BIG, 5);
	memcpy(big_b, big_a, BIG);
	if (!shim_serves())
		helper_fail("exec child", "memset comes from %s, LD_PRELOAD is '%s'",
			    helper_definer("memset"), getenv("LD_PRELOAD"));
	else if (ref_differ(big_a, big_b, BIG) >= 0)
		helper_fail("exec child", "a copy was wrong");
	else
		helper_pass("exec child: the shim serves it");
	return helper_exit();
}

static int wait_for(pid_t pid, const char *name)
{
	int status;
	if (pid < 0 || waitpid(pid, &status, 0) != pid) {
		helper_fail(name, "fork or wait failed");
		return -1;
	}
	if (!WIFEXITED(status) || WEXITSTATUS(status))
		helper_fail(name, "status 0x%x", status);
	else
		helper_pass(name);
	return 0;
}

static int parent(const char *self)
{
	size_t n = sizeof parent_calls / sizeof parent_calls[0];
	for (size_t i = 0; i < n; i++)  /* before the fork: one of each, */
		make_calls(&parent_calls[i], 1);
	fflush(stdout);
	pid_t execer = fork();
	if (execer == 0) {
		make_calls(&parent_calls[3], 5);  /* then 1 after the exec */
		execl(self, self, "exec-child", (char *)NULL);
		_exit(127);
	}
	wait_for(execer, "fork and exec");
	pid_t leaver = fork();
	if (leaver == 0) {
		make_calls(&parent_calls[0], 9);
		exit(shim_serves() ? 0 : 1);  /* runs the destructors */
	}
	wait_for(leaver, "fork and exit");
	for (size_t i = 0; i < n; i++) {  /* the rest after it */
		make_calls(&parent_calls[i], parent_calls[i].calls - 1);
		int big = strcmp(parent_calls[i].kind, "small") != 0;
		/* and the children's: 5 + 1 copies, 9 small memsets */
		unsigned long calls = parent_calls[i].calls + (i == 3 ? 6 : i == 0 ? 9 : 0);
		printf("EXPECT %s %s %lu %lu\n", parent_calls[i].function,
		       parent_calls[i].kind, calls, calls * (big ? BIG : SMALL));
	}
	return helper_exit();
}

int main(int argc, char **argv)
{
	if (argc == 2 && !strcmp(argv[1], "parent"))
		return parent(argv[0]);
	if (argc == 2 && !strcmp(argv[1], "exec-child"))
		return exec_child();
	fprintf(stderr, "usage: forkexec parent\n");
	return 2;
}
