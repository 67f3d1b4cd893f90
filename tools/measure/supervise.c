/*
 * supervise.c - run one command as a child and wait for it.
 *
 * The wait is exact: SIGCHLD interrupts ppoll(), which also drains the
 * command's output when it is captured, so the wall time ends when the
 * command does, not at the next tick.
 */
#define _GNU_SOURCE
#include "supervise.h"

#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <sched.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

static volatile sig_atomic_t child_pid;

static void pass_on(int sig)
{
	if (child_pid > 0)
		kill((pid_t)child_pid, sig);
}

static void on_child(int sig)
{
	(void)sig;  /* only to interrupt ppoll() */
}

/* The signals ntmem handles while a command runs, and how. */
static const struct {
	int sig;
	void (*handler)(int);
} handled[] = {
	{SIGCHLD, on_child}, {SIGINT, SIG_IGN}, {SIGQUIT, SIG_IGN},
	{SIGTERM, pass_on},  {SIGHUP, pass_on},
};
#define HANDLED (sizeof handled / sizeof handled[0])

static double seconds(const struct timespec *a, const struct timespec *b)
{
	return (double)(b->tv_sec - a->tv_sec) + 1e-9 * (double)(b->tv_nsec - a->tv_nsec);
}

static double tv_seconds(struct timeval tv)
{
	return (double)tv.tv_sec + 1e-6 * (double)tv.tv_usec;
}

/* In the child: the caller's signal state back, the I/O asked for, then
 * the command. */
static void __attribute__((noreturn))
start_child(char *const *command, const struct supervise_io *io,
	    const struct sigaction *old, const sigset_t *old_mask, int out_fd)
{
	for (size_t i = 0; i < HANDLED; i++)
		sigaction(handled[i].sig, &old[i], NULL);
	sigprocmask(SIG_SETMASK, old_mask, NULL);
	if (io->cpu >= 0) {
		cpu_set_t set;
		CPU_ZERO(&set);
		CPU_SET(io->cpu, &set);
		sched_setaffinity(0, sizeof set, &set);
	}
	if (io->stdin_null) {
		int fd = open("/dev/null", O_RDONLY);
		if (fd >= 0 && fd != STDIN_FILENO) {
			dup2(fd, STDIN_FILENO);
			close(fd);
		}
	}
	if (out_fd >= 0)
		dup2(out_fd, STDOUT_FILENO);  /* dup2 clears close-on-exec */
	execvp(command[0], command);
	int err = errno;
	fprintf(stderr, "ntmem %s: %s: %s\n", cli_command, command[0],
		strerror(err));
	_exit(err == ENOENT ? 127 : 126);
}

/* Read what the command wrote; 0 at its end, -1 (EAGAIN) when nothing
 * is waiting. */
static int drain(int fd, const struct supervise_io *io)
{
	char buf[65536];
	for (;;) {
		ssize_t n = read(fd, buf, sizeof buf);
		if (n > 0) {
			io->output(io->ctx, buf, (size_t)n);
			continue;
		}
		if (n < 0 && errno == EINTR)
			continue;
		return n < 0 && errno == EAGAIN ? -1 : 0;
	}
}

/* Wait for pid, draining out_fd (-1: none) and ticking meanwhile. */
static void wait_child(pid_t pid, int out_fd, const struct supervise_io *io,
		       const sigset_t *wait_mask, int *status, struct rusage *ru)
{
	struct timespec tick = {io->tick_ms / 1000, (long)(io->tick_ms % 1000) * 1000000};
	while (wait4(pid, status, WNOHANG, ru) != pid) {
		struct pollfd p = {.fd = out_fd, .events = POLLIN};
		int r = ppoll(&p, out_fd >= 0, io->tick ? &tick : NULL, wait_mask);
		if (r > 0 && drain(out_fd, io) == 0) {
			close(out_fd);
			out_fd = -1;
		}
		if (r == 0 && io->tick)
			io->tick(io->ctx);
	}
	if (out_fd >= 0) {  /* what is left; a descendant holding the pipe
			       open does not keep us waiting */
		drain(out_fd, io);
		close(out_fd);
	}
}

int supervise(char *const *command, const struct supervise_io *io,
	      struct run_outcome *out, struct cli_error *e)
{
	int pipefd[2] = {-1, -1};
	if (io->output && pipe2(pipefd, O_CLOEXEC | O_NONBLOCK))
		return cli_error(e, CLI_FAILED, "pipe: %s", strerror(errno));
	/* The command's end of the pipe blocks, as a pipe normally does. */
	if (pipefd[1] >= 0)
		fcntl(pipefd[1], F_SETFL, 0);
	sigset_t block, old_mask, wait_mask;
	struct sigaction old[HANDLED];
	sigemptyset(&block);
	sigaddset(&block, SIGCHLD);
	sigprocmask(SIG_BLOCK, &block, &old_mask);
	for (size_t i = 0; i < HANDLED; i++) {
		struct sigaction sa = {.sa_handler = handled[i].handler};
		sigemptyset(&sa.sa_mask);
		sigaction(handled[i].sig, &sa, &old[i]);
	}
	wait_mask = old_mask;
	sigdelset(&wait_mask, SIGCHLD);

	struct timespec t0, t1;
	struct rusage ru;
	int rc = 0;
	fflush(NULL);
	clock_gettime(CLOCK_MONOTONIC, &t0);
	pid_t pid = fork();
	if (pid == 0)
		start_child(command, io, old, &old_mask, pipefd[1]);
	if (pipefd[1] >= 0)
		close(pipefd[1]);
	if (pid < 0) {
		rc = cli_error(e, CLI_FAILED, "fork: %s", strerror(errno));
		if (pipefd[0] >= 0)
			close(pipefd[0]);
	} else {
		child_pid = pid;
		if (io->started)
			io->started(io->ctx, (long)pid);
		wait_child(pid, pipefd[0], io, &wait_mask, &out->status, &ru);
		clock_gettime(CLOCK_MONOTONIC, &t1);
		child_pid = 0;
		out->wall_s = seconds(&t0, &t1);
		out->user_s = tv_seconds(ru.ru_utime);
		out->sys_s = tv_seconds(ru.ru_stime);
	}
	for (size_t i = 0; i < HANDLED; i++)
		sigaction(handled[i].sig, &old[i], NULL);
	sigprocmask(SIG_SETMASK, &old_mask, NULL);
	return rc;
}

int supervise_thread(pthread_t *id, void *(*fn)(void *), void *arg)
{
	sigset_t all, old;
	sigfillset(&all);
	pthread_sigmask(SIG_BLOCK, &all, &old);
	int err = pthread_create(id, NULL, fn, arg);
	pthread_sigmask(SIG_SETMASK, &old, NULL);
	return err;
}

int supervise_exit_status(int status)
{
	return WIFSIGNALED(status) ? 128 + WTERMSIG(status) : WEXITSTATUS(status);
}
