/*
 * reported.c - "ntmem run --report": the command runs as ntmem run's
 * child, every process of its tree keeps a record in a private directory
 * (record.h), and when it ends ntmem run merges the records and reports.
 * The programs get no descriptor: only NTMEM_PRELOAD_REPORT, naming the
 * directory.
 */
#define _GNU_SOURCE
#include "run.h"

#include <dirent.h>
#include <errno.h>
#include <limits.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "introspect.h"
#include "records.h"
#include "report.h"
#include "measure/supervise.h"

/* A directory of our own, closed to others, for the records. */
static int make_report_dir(char *dir, size_t len, struct cli_error *e)
{
	const char *tmp = getenv("TMPDIR");
	if (!tmp || tmp[0] != '/' || access(tmp, W_OK | X_OK))
		tmp = "/tmp";
	if ((size_t)snprintf(dir, len, "%s/ntmem-run.XXXXXX", tmp) >= len ||
	    !mkdtemp(dir))
		return cli_error(e, CLI_FAILED, "--report: cannot make a directory "
				 "for the records in %s: %s", tmp, strerror(errno));
	return 0;
}

/* Remove dir and what is left in it: records of processes that outlive
 * the command, which then keep their counts to themselves. */
static void remove_report_dir(const char *dir)
{
	DIR *d = opendir(dir);
	struct dirent *de;
	while (d && (de = readdir(d)))
		if (strcmp(de->d_name, ".") && strcmp(de->d_name, ".."))
			unlinkat(dirfd(d), de->d_name, 0);
	if (d)
		closedir(d);
	rmdir(dir);
}

struct fold_state {
	struct tree *tree;
	const char *dir;
	long pid;
	int failed;
	struct cli_error e;
};

static void started(void *ctx, long pid)
{
	((struct fold_state *)ctx)->pid = pid;
}

/* While the command runs: merge the records that are final, so a long
 * build keeps files only for the processes alive. */
static void fold_final(void *ctx)
{
	struct fold_state *s = ctx;
	if (!s->failed && tree_fold(s->tree, s->dir, s->pid, 0, &s->e))
		s->failed = 1;
}

/* The report, once the command has ended: 0, or -1 with an error. */
static int report(const struct run_options *o, struct fold_state *s,
		  const struct run_outcome *out, struct cli_output *json,
		  struct cli_error *e)
{
	if (s->failed || tree_fold(s->tree, s->dir, s->pid, 1, e)) {
		if (s->failed)
			*e = s->e;
		return -1;
	}
	int code = WEXITSTATUS(out->status);
	int not_run = !WIFSIGNALED(out->status) && (code == RUN_NOT_FOUND ||
						     code == RUN_CANNOT_EXEC);
	if (not_run && !s->tree->nproc)
		return 0;  /* the command never ran: nothing to report */
	if (o->report)
		report_text(stderr, s->tree, out, o->command);
	if (!json->f)
		return 0;
	report_json(json->f, s->tree, out, o->command);
	return cli_output_commit(json, e);
}

int run_reported(const struct run_options *o, const char *shim)
{
	struct cli_output json = {0};
	struct cli_error e;
	struct run_env had;
	char dir[PATH_MAX];
	if (o->report_json && cli_output_open(&json, "--report-json", o->report_json, &e))
		cli_exit(&e);
	run_env_save(&had);
	int rc = make_report_dir(dir, sizeof dir, &e), made = !rc;
	if (!rc)
		rc = run_set_environment(&had, shim, o->tunables, &e);
	if (!rc && setenv(NTM_REPORT_ENV, dir, 1))
		rc = cli_error(&e, CLI_FAILED, "%s: %s", NTM_REPORT_ENV, strerror(errno));
	struct tree *tree = rc ? NULL : calloc(1, sizeof *tree);
	if (!rc && !tree)
		rc = cli_error(&e, CLI_FAILED, "out of memory");
	struct fold_state state = {.tree = tree, .dir = dir, .pid = -1};
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
	if (made)
		remove_report_dir(dir);
	if (tree) {
		tree_free(tree);
		free(tree);
	}
	run_env_free(&had);
	if (rc) {
		if (json.f)
			cli_output_abandon(&json);
		fprintf(stderr, "ntmem run: %s\n", e.msg);
		return RUN_FAILED;
	}
	return supervise_exit_status(out.status);
}
