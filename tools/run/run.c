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
#include "util/size.h"

#ifndef NTMEM_LIBDIR
#define NTMEM_LIBDIR "/usr/local/lib"
#endif

#define SHIM_NAME "libntmem-preload.so"
#define REPORT_FD_MIN 100  /* out of the way of the command's own fds */

static void usage(FILE *f)
{
	fprintf(f,
		"Usage: ntmem run [OPTIONS] [--] COMMAND [ARG...]\n"
		"Run COMMAND with libntmem-preload.so preloaded: its memset, memcpy,\n"
		"memmove, mempcpy, bzero, explicit_bzero and their _FORTIFY_SOURCE\n"
		"forms choose cached or streaming stores by ntmem's policy.  The\n"
		"programs COMMAND starts inherit the shim.\n"
		"\n"
		"Options (the policy for COMMAND, added to NTMEM_TUNABLES):\n"
		"  -s, --stream-above SIZE  stream every memset and memcpy from SIZE\n"
		"                           up, e.g. 64MiB (a plain number is bytes;\n"
		"                           0: every call above the small path)\n"
		"  -n, --never-stream       never stream\n"
		"  -l, --ladder CLASS=LADDER\n"
		"                           the ladder of set, set_nonzero or copy, as\n"
		"                           NTMEM_TUNABLES takes it, e.g.\n"
		"                           copy=libc:64MiB,nt_sse2; may be repeated\n"
		"  -r, --report             at exit, print on ntmem run's standard error\n"
		"                           how many calls and bytes took each path, per\n"
		"                           function (the command's stderr is untouched)\n"
		"  -h, --help               show this help\n"
		"\n"
		"Exit status: COMMAND's (128+N if signal N killed it, as a shell says);\n"
		"2 for bad arguments, 125 if ntmem run fails (no shim), 126 if COMMAND\n"
		"cannot be run, 127 if it is not found.  See ntmem(1).\n");
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

static const struct option longopts[] = {
	{"stream-above", required_argument, NULL, 's'},
	{"never-stream", no_argument, NULL, 'n'},
	{"ladder", required_argument, NULL, 'l'},
	{"report", no_argument, NULL, 'r'},
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
		p->above = arg;
		return cli_parse_size("--stream-above", arg, &p->bytes, e);
	case 'n':
		p->never = 1;
		return 0;
	case 'l':
		return add_ladder(p->o, arg, e);
	case 'r':
		p->o->report = 1;
		return 0;
	case 'h':
		*p->help = 1;
		return 0;
	default:
		return cli_getopt_error(c, argv, e);
	}
}

/* A threshold from 1 B up to the small path's reach would put an edge
 * where no call ever streams (the entry points' own stores serve them):
 * "--stream-above 64", meant as 64 MiB, would have streamed every call
 * above 256 B.  0 (every call above the small path) and the reach + 1 up
 * say what they do. */
static int stream_above_inside(size_t bytes, struct cli_error *e)
{
	struct ntmem_ladder_info li;
	if (bytes == 0 || ntmem_ladder_info(NTMEM_CLASS_COPY, &li) ||
	    bytes > li.small_max)
		return 0;
	char s[32], m[32], n[32];
	ntm_format_size(bytes, s, sizeof s);
	ntm_format_size(li.small_max, m, sizeof m);
	ntm_format_size(li.small_max + 1, n, sizeof n);
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
	if (cli_getopt(argc, argv, "+:s:nl:rh", longopts, parse_option, &p, help, e))
		return -1;
	if (*help)
		return 0;
	if (p.above && p.never)
		return cli_error(e, CLI_USAGE, "--stream-above and --never-stream: "
				 "choose one");
	if (optind >= argc)
		return cli_error(e, CLI_USAGE, "no command given (ntmem run "
				 "[OPTIONS] -- COMMAND [ARG...])");
	if (p.above && stream_above_inside(p.bytes, e))
		return -1;
	if (p.above) {
		char value[32];
		snprintf(value, sizeof value, "%zu", p.bytes);
		if (add_threshold(o, "--stream-above", value, e))
			return -1;
	}
	if (p.never && add_threshold(o, "--never-stream", "max", e))
		return -1;
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

int run_join_tunables(const char *had, const char *ours, char *buf,
		      size_t len, struct cli_error *e)
{
	int n = snprintf(buf, len, "%s%s%s", had ? had : "",
			 had && *had && *ours ? "," : "", ours);
	if (n < 0 || (size_t)n >= len || (size_t)n >= RUN_TUNABLES_MAX)
		return cli_error(e, CLI_USAGE, "NTMEM_TUNABLES and the policy "
				 "options together are longer than %d bytes",
				 RUN_TUNABLES_MAX - 1);
	return 0;
}

/* Is path one of the entries of list (separated by ':' or blanks, as
 * the dynamic linker reads LD_PRELOAD)? */
static int listed(const char *list, const char *path)
{
	size_t len = strlen(path);
	for (const char *s = list; *s;) {
		size_t n = strcspn(s, ": \t");
		if (n == len && !strncmp(s, path, len))
			return 1;
		s += n;
		s += strspn(s, ": \t");
	}
	return 0;
}

int run_join_preload(const char *had, const char *shim, char *buf,
		     size_t len, struct cli_error *e)
{
	if (strpbrk(shim, ": \t"))
		return cli_error(e, CLI_FAILED, "%s: LD_PRELOAD cannot name a path "
				 "with a colon or a blank", shim);
	int n;
	if (had && listed(had, shim))
		n = snprintf(buf, len, "%s", had);
	else
		n = snprintf(buf, len, "%s%s%s", had ? had : "",
			     had && *had ? ":" : "", shim);
	if (n < 0 || (size_t)n >= len)
		return cli_error(e, CLI_FAILED, "LD_PRELOAD is too long");
	return 0;
}

int run_find_shim(const char *exe_dir, const char *libdir, char *path,
		  size_t len, struct cli_error *e)
{
	/* Next to the binary (the build tree), in ../lib beside its bin/
	 * (an installed tree, wherever PREFIX put it), then in LIBDIR as
	 * the binary was built. */
	const char *dirs[] = {exe_dir, exe_dir, libdir};
	const char *under[] = {"", "/../lib", ""};
	char candidate[PATH_MAX];
	for (size_t i = 0; i < sizeof dirs / sizeof dirs[0]; i++) {
		if (!dirs[i])
			continue;
		snprintf(candidate, sizeof candidate, "%s%s/%s", dirs[i], under[i],
			 SHIM_NAME);
		char *real = realpath(candidate, NULL);
		if (real && access(real, R_OK) == 0 && strlen(real) < len) {
			strcpy(path, real);
			free(real);
			return 0;
		}
		free(real);
	}
	return cli_error(e, CLI_FAILED, "cannot find %s: it is neither next to "
			 "the ntmem binary (%s), nor in ../lib beside it, nor in "
			 "%s; build it with 'make' or install it with 'make "
			 "install'", SHIM_NAME, exe_dir ? exe_dir : "unknown",
			 libdir);
}

/* Keep a copy of stderr open across exec for the shim's report, and say
 * which process writes it and to what file. */
static int arm_report(struct cli_error *e)
{
	int fd = fcntl(STDERR_FILENO, F_DUPFD, REPORT_FD_MIN);
	struct stat st;
	if (fd < 0 || fstat(fd, &st))
		return cli_error(e, CLI_FAILED, "--report: cannot keep standard "
				 "error open for the report: %s", strerror(errno));
	char value[128];
	snprintf(value, sizeof value, "%d:%ld:%llu:%llu", fd, (long)getpid(),
		 (unsigned long long)st.st_dev, (unsigned long long)st.st_ino);
	if (setenv(NTM_REPORT_ENV, value, 1))
		return cli_error(e, CLI_FAILED, "--report: %s", strerror(errno));
	return 0;
}

/* The directory of the running ntmem binary, or NULL. */
static const char *exe_dir(char *buf, size_t len)
{
	ssize_t n = readlink("/proc/self/exe", buf, len - 1);
	if (n <= 0)
		return NULL;
	buf[n] = '\0';
	char *slash = strrchr(buf, '/');
	if (!slash)
		return NULL;
	*slash = '\0';
	return buf;
}

/* Everything before the exec: the environment the command gets. */
static int prepare(const struct run_options *o, struct cli_error *e)
{
	char dir[PATH_MAX], shim[PATH_MAX], preload[8192];
	char tunables[RUN_TUNABLES_MAX + 1];
	if (run_check_tunables(o->tunables, e) ||
	    run_find_shim(exe_dir(dir, sizeof dir), NTMEM_LIBDIR, shim,
			  sizeof shim, e) ||
	    run_join_preload(getenv("LD_PRELOAD"), shim, preload, sizeof preload,
			     e))
		return -1;
	if (*o->tunables) {
		if (run_join_tunables(getenv("NTMEM_TUNABLES"), o->tunables,
				      tunables, sizeof tunables, e))
			return -1;
		if (setenv("NTMEM_TUNABLES", tunables, 1))
			return cli_error(e, CLI_FAILED, "%s", strerror(errno));
	}
	if (setenv("LD_PRELOAD", preload, 1))
		return cli_error(e, CLI_FAILED, "%s", strerror(errno));
	unsetenv(NTM_REPORT_ENV);  /* a report is asked for here or not at all */
	return o->report ? arm_report(e) : 0;
}

int cmd_run(int argc, char **argv)
{
	struct run_options o;
	struct cli_error e;
	int help;
	if (run_parse(argc, argv, &o, &help, &e))
		cli_exit(&e);
	if (help) {
		usage(stdout);
		return 0;
	}
	if (prepare(&o, &e)) {
		if (e.status == CLI_USAGE)
			cli_exit(&e);
		fprintf(stderr, "ntmem run: %s\n", e.msg);
		return RUN_FAILED;
	}
	/* Said once, to a person: a script's stderr stays the program's. */
	const char *hint = machine_first_use();
	if (hint && isatty(STDERR_FILENO))
		fprintf(stderr, "ntmem run: note: %s\n", hint);
	fflush(NULL);
	execvp(o.command[0], o.command);
	int err = errno;
	fprintf(stderr, "ntmem run: %s: %s\n", o.command[0], strerror(err));
	return err == ENOENT ? RUN_NOT_FOUND : RUN_CANNOT_EXEC;
}
