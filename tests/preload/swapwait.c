/*
 * swapwait.c - a process for test_report_dir whose record directory is
 * swapped while it runs:
 *
 *   swapwait READY GO   copies PARENT times (its record, made as the shim
 *                       loaded, counts them), creates the file READY,
 *                       waits up to 20 s for the file GO, then forks
 *                       CHILDREN children that each copy CHILD times and
 *                       end, waits for them, and copies PARENT times
 *                       more.  Exit status 0, or 1 when GO never came or
 *                       a child failed.
 *
 * The children ask for their records after GO, that is after the swap:
 * the shim must refuse what the path now leads to and count them in
 * this process's record.
 */
#include "helper.h"

#include <fcntl.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#define COPY 300000
enum { PARENT = 3, CHILD = 5, CHILDREN = 2 };

static unsigned char a[COPY], b[COPY];

static void copies(int n)
{
	for (int i = 0; i < n; i++)
		memcpy(b, a, COPY);
}

static int wait_for(const char *path)
{
	struct timespec tick = {0, 5 * 1000 * 1000};
	struct stat st;
	for (int i = 0; i < 4000; i++) {
		if (!stat(path, &st))
			return 0;
		nanosleep(&tick, NULL);
	}
	return -1;
}

int main(int argc, char **argv)
{
	if (argc != 3) {
		fprintf(stderr, "usage: swapwait READY GO\n");
		return 2;
	}
	copies(PARENT);
	int fd = open(argv[1], O_WRONLY | O_CREAT | O_CLOEXEC, 0600);
	if (fd < 0 || close(fd) || wait_for(argv[2]))
		return 1;
	int failed = 0;
	for (int i = 0; i < CHILDREN; i++) {
		fflush(NULL);
		pid_t pid = fork();
		if (pid == 0) {
			copies(CHILD);
			_exit(0);
		}
		int status = 0;
		failed |= pid < 0 || waitpid(pid, &status, 0) != pid ||
			  !WIFEXITED(status) || WEXITSTATUS(status);
	}
	copies(PARENT);
	return failed;
}
