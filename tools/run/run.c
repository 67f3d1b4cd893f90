/*
 * run.c - "ntmem run [OPTIONS] -- COMMAND [ARG...]": run a program with
 * libntmem-preload.so preloaded and the policy its options ask for.
 *
 * ntmem run does what env(1) does: it sets LD_PRELOAD (appending the
 * shim to what is there), NTMEM_TUNABLES (appending the options to what
 * is there) and, for --report, NTMEM_PRELOAD_REPORT, then replaces itself
 * with the command.  The command keeps ntmem run's process id, so its
 * exit status, or the signal that killed it, is what the caller sees,
 * and the shim knows the process that is to write the report.
 */
#define _GNU_SOURCE
#include "run.h"

#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "commands.h"
#include "introspect.h"
#include "measure/measure.h"
#include "measure/shim_path.h"
#include "run_env.h"
#include "util/size.h"


static void usage(FILE *f)
{
	fprintf(f,
		"Usage: ntmem run [OPTIONS] [--] COMMAND [ARG...]\n"
		"Run COMMAND with libntmem-preload.so preloaded: its memset, memcpy,\n"
		"memmove, mempcpy, bzero, explicit_bzero and their _FORTIFY_SOURCE\n"
		"forms choose cached or streaming stores by ntmem's policy.  The\n"
		"programs COMMAND starts inherit the shim.\n"
		"\n"
		"Policy options (added to NTMEM_TUNABLES):\n"
		"      --stream-above SIZE  stream every memset and memcpy from SIZE\n"
		"                           up, e.g. 64MiB (a plain number is bytes;\n"
		"                           0: every call above the small path)\n"
		"  -n, --never-stream       never stream\n"
		"  -l, --ladder CLASS=LADDER\n"
		"                           the ladder of set, set_nonzero or copy, as\n"
		"                           NTMEM_TUNABLES takes it, e.g.\n"
		"                           copy=libc:64MiB,nt_sse2; may be repeated\n"
		"\n"
		"What streaming would do for COMMAND:\n"
		"  -r, --report             when COMMAND ends, print on ntmem run's\n"
		"                           standard error what every process it started\n"
		"                           called: per function, calls and bytes by size,\n"
		"                           the path that served them, the time of calls\n"
		"                           from 4 KiB, whether streaming applies, and the\n"
		"                           processes it could not count, and why\n"
		"      --report-json FILE   the same report as JSON, into FILE\n"
		"  -c, --compare N          run COMMAND N times without the shim and N\n"
		"                           times with it (and, with --stream-above, N\n"
		"                           times streaming from SIZE), taking turns\n"
		"                           A B B A ...; print on standard error each\n"
		"                           arm's wall, user and system time, the change\n"
		"                           in wall time with its 95%% interval, and\n"
		"                           whether its standard output was the same\n"
		"      --show-output        with --compare: show each run's standard\n"
		"                           output too, on standard error, each line\n"
		"                           after [ARM RUN]\n"
		"  -h, --help               show this help\n"
		"\n"
		"Exit status: COMMAND's (128+N if signal N killed it, as a shell says);\n"
		"with --compare 0 if every run succeeded, 1 if one failed; 2 for bad\n"
		"arguments, 125 if ntmem run fails (no shim), 126 if COMMAND cannot be\n"
		"run, 127 if it is not found.  See ntmem(1).\n");
}

/* Append ",item" (or "item") to o->tunables. */
static int add_tunable(struct run_options *o, const char *opt,
		       const char *item, struct cli_error *e)
{
	size_t used = strlen(o->tunables);
	int n = snprintf(o->tunables + used, sizeof o->tunables - used, "%s%s",
			 used ? "," : "", item);
	if (n < 0 || (size_t)n >= sizeof o->tunables - used)
		return cli_error(e, CLI_USAGE, "%s: the policy options are longer "
				 "than %d bytes", opt, RUN_TUNABLES_MAX - 1);
	return 0;
}

/* --ladder CLASS=LADDER: the class must be one of the three. */
static int add_ladder(struct run_options *o, const char *arg,
		      struct cli_error *e)
{
	static const char *const classes[] = {"set=", "set_nonzero=", "copy="};
	for (size_t i = 0; i < sizeof classes / sizeof classes[0]; i++)
		if (!strncmp(arg, classes[i], strlen(classes[i])) &&
		    arg[strlen(classes[i])])
			return add_tunable(o, "--ladder", arg, e);
	return cli_error(e, CLI_USAGE, "--ladder: '%s': expected set=LADDER, "
			 "set_nonzero=LADDER or copy=LADDER (LADDER as "
			 "NAME:SIZE,...,NAME)", arg);
}

/* The threshold options apply after the ladders, which they edit. */
static int add_threshold(struct run_options *o, const char *opt,
			 const char *value, struct cli_error *e)
{
	static const char *const keys[] = {"set_threshold", "set_nonzero_threshold",
					   "copy_threshold"};
	char item[64];
	for (size_t i = 0; i < sizeof keys / sizeof keys[0]; i++) {
		snprintf(item, sizeof item, "%s=%s", keys[i], value);
		if (add_tunable(o, opt, item, e))
			return -1;
	}
	return 0;
}

enum { OPT_REPORT_JSON = 256, OPT_STREAM_ABOVE, OPT_SHOW_OUTPUT };

/* -s, once --stream-above's short form, is --size in ntmem bench: it
 * still works here, with a note, and is no longer documented. */
static const struct option longopts[] = {
	{"stream-above", required_argument, NULL, OPT_STREAM_ABOVE},
	{"show-output", no_argument, NULL, OPT_SHOW_OUTPUT},
	{"never-stream", no_argument, NULL, 'n'},
	{"ladder", required_argument, NULL, 'l'},
	{"report", no_argument, NULL, 'r'},
	{"report-json", required_argument, NULL, OPT_REPORT_JSON},
	{"compare", required_argument, NULL, 'c'},
	{"help", no_argument, NULL, 'h'},
	{NULL, 0, NULL, 0},
};

struct run_parse_state {
	struct run_options *o;
	const char *above;  /* --stream-above given */
	size_t bytes;       /* its value */
	int never, *help;
};

static int parse_option(void *ctx, int c, const char *arg, char **argv,
			struct cli_error *e)
{
	struct run_parse_state *p = ctx;
	switch (c) {
	case 's':
	case OPT_STREAM_ABOVE:
		p->o->stream_above_as_s |= c == 's';
		p->above = arg;
		return cli_parse_size("--stream-above", arg, &p->bytes, e);
	case OPT_SHOW_OUTPUT:
		p->o->show_output = 1;
		return 0;
	case 'n':
		p->never = 1;
		return 0;
	case 'l':
		return add_ladder(p->o, arg, e);
	case 'r':
		p->o->report = 1;
		return 0;
	case OPT_REPORT_JSON:
		if (!*arg)
			return cli_error(e, CLI_USAGE, "--report-json: an empty file name");
		p->o->report_json = arg;
		return 0;
	case 'c':
		return cli_parse_long("--compare", arg, 1, RUN_COMPARE_MAX,
				      &p->o->compare, e);
	default:
		return cli_common_option(c, argv, p->help, e);
	}
}

size_t run_stream_above_min(void)
{
	struct ntmem_ladder_info li;
	return ntmem_ladder_info(NTMEM_CLASS_COPY, &li) ? 1 : li.small_max + 1;
}

/* A threshold from 1 B up to the small path's reach would put an edge
 * where no call ever streams (the entry points' own stores serve them):
 * "--stream-above 64", meant as 64 MiB, would have streamed every call
 * above 256 B.  0 (every call above the small path) and
 * run_stream_above_min() up say what they do. */
static int stream_above_inside(size_t bytes, struct cli_error *e)
{
	size_t min = run_stream_above_min();
	if (bytes == 0 || bytes >= min)
		return 0;
	char s[32], m[32], n[32];
	ntm_format_size(bytes, s, sizeof s);
	ntm_format_size(min - 1, m, sizeof m);
	ntm_format_size(min, n, sizeof n);
	return cli_error(e, CLI_USAGE, "--stream-above: %s lies inside the small "
			 "path, which never streams (calls up to %s): give 0 for "
			 "every call above it, or %s or more; a plain number is "
			 "bytes (64MiB for 64 MiB)", s, m, n);
}

int run_parse(int argc, char **argv, struct run_options *o, int *help,
	      struct cli_error *e)
{
	memset(o, 0, sizeof *o);
	*help = 0;
	struct run_parse_state p = {.o = o, .help = help};
	/* '+': the options end at COMMAND, whose own options are its own. */
	if (cli_getopt(argc, argv, "+:s:nl:rc:h", longopts, parse_option, &p, help, e))
		return -1;
	if (*help)
		return 0;
	if (p.above && p.never)
		return cli_error(e, CLI_USAGE, "--stream-above and --never-stream: "
				 "choose one");
	if (o->compare && (o->report || o->report_json))
		return cli_error(e, CLI_USAGE, "--compare and --report%s: choose "
				 "one (a report counts calls, which costs time)",
				 o->report ? "" : "-json");
	if (o->show_output && !o->compare)
		return cli_error(e, CLI_USAGE, "--show-output: only with --compare "
				 "(which otherwise hashes the output; a plain run "
				 "shows it anyway)");
	if (optind >= argc)
		return cli_error(e, CLI_USAGE, "no command given (ntmem run "
				 "[OPTIONS] -- COMMAND [ARG...])");
	if (p.above && stream_above_inside(p.bytes, e))
		return -1;
	if (p.never && add_threshold(o, "--never-stream", "max", e))
		return -1;
	o->unforced_len = strlen(o->tunables);
	o->stream_above = p.above != NULL;
	if (p.above) {
		char value[32];
		snprintf(value, sizeof value, "%zu", p.bytes);
		if (add_threshold(o, "--stream-above", value, e))
			return -1;
	}
	o->command = argv + optind;
	return 0;
}

int run_check_tunables(const char *tunables, struct cli_error *e)
{
	static struct policy trial;  /* large; the tool builds one at a time */
	if (!*tunables)
		return 0;
	ntm_policy_build(&trial, ntm_cpu(), tunables, NULL);
	if (trial.note_count == 0)
		return 0;
	const char *why = trial.notes[0];
	const char *prefix = "NTMEM_TUNABLES: ";
	if (!strncmp(why, prefix, strlen(prefix)))
		why += strlen(prefix);
	return cli_error(e, CLI_USAGE, "the policy options: %s", why);
}

int run_find_shim(const char *exe_dir, const char *libdir, const char *width,
		  char *path, size_t len, struct cli_error *e)
{
	char why[sizeof e->msg];
	if (shim_find(exe_dir, libdir, width, path, len, why, sizeof why))
		return cli_error(e, CLI_FAILED, "%s", why);
	return 0;
}

/* The shim's absolute path, once the policy options are known good: the
 * library of the width the program's shim will run, whose small calls
 * test no width (preload_x86_64.S); for a report, the dispatching one,
 * which alone can count every call. */
static int find_shim(const struct run_options *o, char *shim, size_t len,
		     struct cli_error *e)
{
	char dir[PATH_MAX], joined[RUN_TUNABLES_MAX + 1];
	if (run_check_tunables(o->tunables, e))
		return -1;
	const char *had = getenv("NTMEM_TUNABLES"), *tunables = had;
	if (*o->tunables && !run_join_tunables(had, o->tunables, joined,
						sizeof joined, e))
		tunables = joined;
	const char *width = o->report || o->report_json ? NULL
							: shim_width_dir(tunables);
	return run_find_shim(shim_exe_dir(dir, sizeof dir), shim_libdir(), width,
			     shim, len, e);
}

/* ntmem run's own failure: usage errors exit 2, the rest RUN_FAILED. */
static int failed(const struct cli_error *e)
{
	if (e->status == CLI_USAGE)
		cli_exit(e);
	fprintf(stderr, "ntmem run: %s\n", e->msg);
	return RUN_FAILED;
}

/* Say once, to a person, that this CPU has no measured ladder: a
 * script's stderr stays the program's. */
static void first_use_note(void)
{
	const char *hint = machine_first_use();
	if (hint && isatty(STDERR_FILENO))
		fprintf(stderr, "ntmem run: note: %s\n", hint);
}

int cmd_run(int argc, char **argv)
{
	struct run_options o;
	struct cli_error e;
	struct run_env had;
	char shim[PATH_MAX];
	int help;
	if (run_parse(argc, argv, &o, &help, &e))
		cli_exit(&e);
	if (help) {
		usage(stdout);
		return 0;
	}
	if (o.stream_above_as_s)
		fprintf(stderr, "ntmem run: note: -s is deprecated and will go in "
			"the next release: write --stream-above (in ntmem bench, -s "
			"is --size)\n");
	if (find_shim(&o, shim, sizeof shim, &e))
		return failed(&e);
	if (o.compare)
		return run_compare(&o, shim);
	if (o.report || o.report_json)
		return run_reported(&o, shim);
	run_env_save(&had);
	if (run_set_environment(&had, shim, o.tunables, &e))
		return failed(&e);
	first_use_note();
	fflush(NULL);
	execvp(o.command[0], o.command);
	int err = errno;
	fprintf(stderr, "ntmem run: %s: %s\n", o.command[0], strerror(err));
	return err == ENOENT ? RUN_NOT_FOUND : RUN_CANNOT_EXEC;
}
