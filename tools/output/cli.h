/* cli.h - what every ntmem subcommand shares: one error model, option
 * values, output files that appear whole or not at all.
 *
 * The error model: helpers return errors (a struct cli_error saying how
 * the command should end, and why, naming the argument); only a command
 * decides to print one and exit, with cli_exit().  The older exiting
 * forms at the end serve the commands that still use them. */
#ifndef NTM_CLI_H
#define NTM_CLI_H

#include <stddef.h>
#include <stdio.h>

#include "util/outfile.h"

/* The subcommand being run, for messages: "bench", "info", ... */
extern const char *cli_command;

/* How a command ends: its exit status. */
enum cli_status {
	CLI_OK = 0,
	CLI_FAILED = 1,  /* the run itself failed */
	CLI_USAGE = 2    /* a bad argument or an impossible request */
};

struct cli_error {
	enum cli_status status;
	char msg[512];   /* names the argument: "--size: '12Q': bad unit" */
};

/* Fill *e; returns -1, so a helper can end with return cli_error(...). */
int cli_error(struct cli_error *e, enum cli_status status, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));

/* For commands: print "ntmem CMD: MESSAGE" on stderr (for CLI_USAGE with a
 * pointer to --help) and exit with e->status. */
void cli_exit(const struct cli_error *e) __attribute__((noreturn));

/* Parsers: each returns 0, or -1 with a CLI_USAGE error naming opt. */
int cli_parse_size(const char *opt, const char *arg, size_t *out,
		   struct cli_error *e);
/* A comma-separated list of sizes, each at least 1 byte, into out[max]. */
int cli_parse_size_list(const char *opt, const char *arg, size_t *out,
			size_t max, size_t *n, struct cli_error *e);
/* A whole number in [min, max]. */
int cli_parse_long(const char *opt, const char *arg, long min, long max,
		   long *out, struct cli_error *e);
/* A CPU number for opt (--cpu and its like): 0 to CPU_SETSIZE - 1. */
int cli_parse_cpu(const char *opt, const char *arg, int *cpu,
		  struct cli_error *e);
/* A byte value, decimal or 0x-hex, 0-255. */
int cli_parse_byte(const char *opt, const char *arg, int *out,
		   struct cli_error *e);
/* Split arg (a copy is made into buf) at commas into out[max]; an empty
 * item or more than max is an error. */
int cli_parse_list(const char *opt, const char *arg, char *buf, size_t buf_len,
		   char **out, size_t max, size_t *n, struct cli_error *e);

/* For getopt_long's ':' (missing value) and '?' (unknown option) returns,
 * with opterr = 0 and an optstring starting with ':'.  Returns -1. */
int cli_getopt_error(int c, char **argv, struct cli_error *e);
/* The options every command shares, for the default of its switch:
 * 'h' (--help) sets *help and returns 0; anything else is
 * cli_getopt_error's. */
int cli_common_option(int c, char **argv, int *help, struct cli_error *e);
/* -1 with an error if arguments are left after the options, else 0. */
int cli_check_no_operands(int argc, char **argv, struct cli_error *e);

/*
 * Read the options of argv (argv[0] the command's name) from the start:
 * getopt_long with shortopts (which must start with ':', or with "+:"
 * for a command whose options end at its first operand) and longopts,
 * each option handed to one(ctx, c, optarg, argv, e), whose error ends
 * the loop.  Stops early, successfully, once *help is set (--help asks
 * for nothing else).  No operand may follow the options, except after
 * "+:": then the operands start at optind.  Returns 0, or -1 with a
 * usage error.
 */
struct option;
typedef int (*cli_option_fn)(void *ctx, int c, const char *arg, char **argv,
			     struct cli_error *e);
int cli_getopt(int argc, char **argv, const char *shortopts,
	       const struct option *longopts, cli_option_fn one, void *ctx,
	       const int *help, struct cli_error *e);

/* A list of names, each setting its bit: names[i] (or aliases[i], when
 * aliases is not NULL) sets 1 << i, "all" every bit.  what names the kind
 * in the message: "--mode: unknown mode 'x' (use after, ... or all)". */
int cli_parse_bits(const char *opt, const char *what, const char *arg,
		   const char *const *names, const char *const *aliases, int n,
		   unsigned *bits, struct cli_error *e);

/*
 * An output file (--plot) that only appears, under its name, once
 * complete, written the one way src/util/outfile.h describes.  Open it before
 * measuring: a target that cannot be written (a directory, a missing
 * directory, a block device) is then an error at once.  Everything goes
 * to f, in memory, until cli_output_commit() writes it out.
 */
struct cli_output {
	const char *opt;           /* "--plot", for messages */
	struct ntm_outfile target;
	FILE *f;
	char *data;
	size_t len;
};
/* Check the target and open f.  Returns 0, or -1 with a CLI_USAGE error. */
int cli_output_open(struct cli_output *o, const char *opt, const char *path,
		    struct cli_error *e);
/* Write what went to f to the target and close.  Returns 0, or -1 with a
 * CLI_FAILED error (nothing then written, unless the target is a device
 * or FIFO). */
int cli_output_commit(struct cli_output *o, struct cli_error *e);
/* Close without writing anything. */
void cli_output_abandon(struct cli_output *o);

/* The end of a command that wrote its results to stdout and, with plot
 * (NULL: none), drew a plot into it: undrawn is nonzero when there was
 * nothing to draw.  The plot is written only if stdout was.  Exits 1 on
 * any failure. */
void cli_output_finish(struct cli_output *plot, int undrawn);

/* argv (NULL-terminated) as one line for a message: words with blanks or
 * quotes in single quotes, newlines and tabs shown as \n and \t. */
void cli_format_command(char *const *argv, char *buf, size_t len);

/* stderr is a terminal: progress lines are welcome. */
int cli_progress_wanted(void);

/* The exiting forms (calibrate and info): each prints as cli_exit() does
 * and exits 2 (usage) or 1 (fail). */
void cli_usage_error(const char *fmt, ...)
	__attribute__((format(printf, 1, 2), noreturn));
void cli_fail(const char *fmt, ...)
	__attribute__((format(printf, 1, 2), noreturn));
void cli_option_error(int c, char **argv) __attribute__((noreturn));
void cli_no_operands(int argc, char **argv);

#endif
