/* supervise.h - run a command as ntmem's child and wait for it, as a
 * shell would, timing it: for "ntmem run --report", "--compare" and
 * "ntmem pollution --victim -- CMD". */
#ifndef NTM_MEASURE_SUPERVISE_H
#define NTM_MEASURE_SUPERVISE_H

#include <stddef.h>
#include <stdint.h>

#include <pthread.h>

#include "output/cli.h"

/* How the command ended and what it cost. */
struct run_outcome {
	int status;              /* the command's wait status */
	double wall_s;           /* start to end of the command */
	double user_s, sys_s;    /* of every process it waited for */
};

struct supervise_io {
	int stdin_null;       /* the command reads /dev/null, not our stdin */
	/* The command's stdout goes to output() (NULL: to ours). */
	void (*output)(void *ctx, const char *buf, size_t n);
	int cpu;              /* pin the command to this CPU (-1: anywhere) */
	/* Called about every tick_ms while the command runs (NULL: never). */
	void (*tick)(void *ctx);
	unsigned tick_ms;
	/* Called with the child's pid once it runs (NULL: never). */
	void (*started)(void *ctx, long pid);
	void *ctx;                /* for the callbacks */
};

/*
 * Run command (NULL-terminated; searched in PATH) in a child with the
 * environment as it now is, and wait for it: SIGINT and SIGQUIT, which
 * the terminal sends to the command too, are ignored meanwhile; SIGTERM
 * and SIGHUP are passed on to it.  *out gets its wait status (a command
 * that cannot be run exits 126, one not found 127, after a message on
 * stderr), its wall time, and the user and system time of it and the
 * descendants it waited for.  Returns 0, or -1 with a CLI_FAILED error
 * when it cannot be started.
 */
int supervise(char *const *command, const struct supervise_io *io,
	      struct run_outcome *out, struct cli_error *e);

/* Start a thread that runs beside a supervised command, with every signal
 * blocked: the command's SIGCHLD, and SIGTERM and SIGHUP, must reach the
 * thread waiting in supervise(), not run its handlers on a thread that
 * outlives the handlers (qemu-user then jumped to a handler already reset
 * to SIG_DFL).  Returns pthread_create's result. */
int supervise_thread(pthread_t *id, void *(*fn)(void *), void *arg);

/* The exit status a shell gives for a wait status: 128 + N for signal N. */
int supervise_exit_status(int status);

#endif
