/* run.h - "ntmem run": the steps of cmd_run(), apart so the tests can
 * check each one. */
#ifndef NTM_RUN_H
#define NTM_RUN_H

#include <stddef.h>

#include "output/cli.h"
#include "run_env.h"

/* ntmem run's own failures, as env(1) reports them: the command's exit
 * status is everything else. */
#define RUN_FAILED 125      /* the shim cannot be found, and the like */
#define RUN_CANNOT_EXEC 126 /* the command exists but cannot be run */
#define RUN_NOT_FOUND 127   /* no such command */

struct run_options {
	char tunables[RUN_TUNABLES_MAX]; /* the policy options as NTMEM_TUNABLES
					    items ("" when none) */
	size_t unforced_len;             /* tunables' length without the
					    thresholds of --stream-above */
	int stream_above;                /* --stream-above given */
	int stream_above_as_s;           /* given as -s, which is to go: -s
					    is --size in ntmem bench */
	int report;                      /* --report */
	const char *report_json;         /* --report-json FILE, or NULL */
	long compare;                    /* --compare N: runs per arm; 0 */
	int show_output;                 /* --show-output (with --compare) */
	char **command;                  /* NULL-terminated, never empty */
};

#define RUN_COMPARE_MAX 1000

/* "ntmem run --report" and --report-json (reported.c): run CMD as a
 * child with every process it starts keeping a record, then report.
 * Returns ntmem run's exit status: the command's. */
int run_reported(const struct run_options *o, const char *shim);

/* "ntmem run --compare" (compare.c): CMD without the shim, with it and,
 * with --stream-above, with streaming forced; shim is the shim's path.
 * Returns ntmem run's exit status. */
int run_compare(const struct run_options *o, const char *shim);

/* Parse "ntmem run" arguments (argv[0] is "run").  Returns 0, or -1 with
 * a CLI_USAGE error naming the argument; *help is set for --help. */
int run_parse(int argc, char **argv, struct run_options *o, int *help,
	      struct cli_error *e);

/* The least SIZE but 0 that --stream-above takes: one past the entry
 * points' small path (small_max + 1, 257 B on AVX2), whose calls never
 * stream; 1 where the library gives no small path. */
size_t run_stream_above_min(void);

/* Check that the library would take every item of tunables (a trial
 * policy on this CPU); -1 with the first reason it gives otherwise. */
int run_check_tunables(const char *tunables, struct cli_error *e);

/* The shim: libntmem-preload.so in exe_dir, else in exe_dir/../lib,
 * else in libdir, as an absolute path; with a width (shim_width_dir()),
 * that width's own library where one of them has it.  -1 (CLI_FAILED,
 * which cmd_run turns into RUN_FAILED) saying where it looked. */
int run_find_shim(const char *exe_dir, const char *libdir, const char *width,
		  char *path, size_t len, struct cli_error *e);

#endif
