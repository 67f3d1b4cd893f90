/*
 * reported.c - "ntmem run --report": the command runs as ntmem run's
 * child, every process of its tree keeps a record in a private directory
 * (record.h, report_dir.h), and when it ends ntmem run merges the records
 * and reports.  The programs get no descriptor: only NTMEM_PRELOAD_REPORT,
 * naming the directory; ntmem run reads it through its own descriptor.
 */
#define _GNU_SOURCE
#include "run.h"

#include <errno.h>
#include <limits.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>

#include "introspect.h"
#include "records.h"
#include "report.h"
#include "report_dir.h"
#include "measure/supervise.h"

struct fold_state {
	struct tree *tree;
	const struct report_dir *dir;
	long pid;
	int failed;
	struct cli_error e;
};

static void started(void *ctx, long pid)
{
	((struct fold_state *)ctx)->pid = pid;
}

/* Merge what the directory holds: while the command runs (not final),
 * the records that are final, so a long build keeps files only for the
 * processes alive; and note whether its path still leads to it. */
static int fold(struct fold_state *s, int final, struct cli_error *e)
{
	if (!report_dir_intact(s->dir))
		s->tree->dir_replaced = 1;
	return tree_fold(s->tree, s->dir->fd, s->pid, final, e);
}

static void fold_final(void *ctx)
{
	struct fold_state *s = ctx;
	if (!s->failed && fold(s, 0, &s->e))
		s->failed = 1;
}

/* The report, once the command has ended: 0, or -1 with an error. */
static int report(const struct run_options *o, struct fold_state *s,
		  const struct run_outcome *out, struct cli_output *json,
		  struct cli_error *e)
{
	if (s->failed || fold(s, 1, e)) {
		if (s->failed)
			*e = s->e;
		return -1;
	}
	struct rusage ru;  /* ntmem run's only children: the command's tree */
	if (!getrusage(RUSAGE_CHILDREN, &ru))
		s->tree->minor_faults = ru.ru_minflt;
	int code = WEXITSTATUS(out->status);
	int not_run = !WIFSIGNALED(out->status) && (code == RUN_NOT_FOUND ||
						     code == RUN_CANNOT_EXEC);
	if (not_run && !s->tree->nproc && !s->tree->dir_replaced)
		return 0;  /* the command never ran: nothing to report */
	if (o->report)
		report_text(stderr, s->tree, out, o->command);
	if (!json->f)
		return 0;
	report_json(json->f, s->tree, out, o->command);
	return cli_output_commit(json, e);
}

/* The record directory, NTMEM_PRELOAD_REPORT naming it, and the rest of
 * the command's environment: 0, or -1 with an error. */
static int prepare(const struct run_options *o, const char *shim,
		   const struct run_env *had, struct report_dir *dir,
		   struct cli_error *e)
{
	if (report_dir_make(dir, e) ||
	    run_set_environment(had, shim, o->tunables, e))
		return -1;
	if (setenv(NTM_REPORT_ENV, dir->path, 1))
		return cli_error(e, CLI_FAILED, "%s: %s", NTM_REPORT_ENV,
				 strerror(errno));
	return 0;
}

int run_reported(const struct run_options *o, const char *shim)
{
	struct cli_output json = {0};
	struct cli_error e;
	struct run_env had;
	struct report_dir dir = {.parent = -1, .fd = -1};
	if (o->report_json && cli_output_open(&json, "--report-json", o->report_json, &e))
		cli_exit(&e);
	run_env_save(&had);
	int rc = prepare(o, shim, &had, &dir, &e);
	struct tree *tree = rc ? NULL : calloc(1, sizeof *tree);
	if (!rc && !tree)
		rc = cli_error(&e, CLI_FAILED, "out of memory");
	struct fold_state state = {.tree = tree, .dir = &dir, .pid = -1};
	struct supervise_io io = {.cpu = -1, .tick = fold_final, .tick_ms = 1000,
				  .started = started, .ctx = &state};
	struct run_outcome out;
	if (!rc) {
		tree_init(tree);
		rc = supervise(o->command, &io, &out, &e);
	}
	/* The command has ended: a closed pipe on standard error (ntmem run
	 * --report ... 2>&1 | head -1) must not kill ntmem run now, before it
	 * writes the JSON, removes its directory and passes on the command's
	 * exit status.  The command itself ran with SIGPIPE as it was. */
	if (!rc)
		signal(SIGPIPE, SIG_IGN);
	if (!rc)
		rc = report(o, &state, &out, &json, &e);
	report_dir_remove(&dir);
	if (tree) {
		tree_free(tree);
		free(tree);
	}
	run_env_free(&had);
	if (rc) {
		if (json.f)
			cli_output_abandon(&json);
		if (e.status == CLI_USAGE)
			cli_exit(&e);
		fprintf(stderr, "ntmem run: %s\n", e.msg);
		return RUN_FAILED;
	}
	return supervise_exit_status(out.status);
}
