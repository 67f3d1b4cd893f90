/* cli.h - what every ntmem subcommand shares: errors, option values,
 * output files that appear whole or not at all. */
#ifndef NTM_CLI_H
#define NTM_CLI_H

#include <stddef.h>
#include <stdio.h>

/* The subcommand being run, for messages: "bench", "info", ... */
extern const char *cli_command;

/* Print "ntmem CMD: MESSAGE" and a pointer to --help on stderr, then
 * exit with status 2.  For bad arguments and impossible requests. */
void cli_usage_error(const char *fmt, ...)
	__attribute__((format(printf, 1, 2), noreturn));

/* For getopt_long's ':' (missing value) and '?' (unknown option) returns,
 * with opterr = 0 and an optstring starting with ':': exit 2 naming it. */
void cli_option_error(int c, char **argv) __attribute__((noreturn));

/* Exit 2 if arguments are left after the options. */
void cli_no_operands(int argc, char **argv);

/* Print "ntmem CMD: MESSAGE" on stderr and exit 1: the run itself failed. */
void cli_fail(const char *fmt, ...)
	__attribute__((format(printf, 1, 2), noreturn));

/* Parsers that report instead of exiting, for callers that collect
 * errors: each returns 0, or -1 with a message naming opt in err. */
int cli_parse_size(const char *opt, const char *arg, size_t *out, char *err,
		   size_t err_len);
int cli_parse_long(const char *opt, const char *arg, long min, long max,
		   long *out, char *err, size_t err_len);
/* Split arg (a copy is made into buf) at commas into out[max]. */
int cli_parse_list(const char *opt, const char *arg, char *buf, size_t buf_len,
		   char **out, size_t max, size_t *n, char *err, size_t err_len);

/* A size with a unit for option opt; exits 2 on error. */
size_t cli_size(const char *opt, const char *arg);

/* A comma-separated list of sizes into out[max]; returns the count. */
size_t cli_size_list(const char *opt, const char *arg, size_t *out, size_t max);

/* A non-negative integer in [min, max] for option opt; exits 2 on error. */
long cli_long(const char *opt, const char *arg, long min, long max);

/* A byte value, decimal or 0x-hex, 0-255; exits 2 on error. */
int cli_byte(const char *opt, const char *arg);

/* Split a comma-separated list (into buf) into out[max]; returns the
 * count; exits 2 on an empty item or too many. */
size_t cli_split(const char *opt, const char *arg, char *buf, size_t buf_len,
		 char **out, size_t max);

/* An output file that only appears, under its name, once complete:
 * written to NAME.tmpXXXXXX and renamed by cli_output_commit(). */
struct cli_output {
	FILE *f;
	char path[1024];
	char tmp[1040];
};
/* Opens the temporary file; exits 2 if the directory is not writable. */
void cli_output_open(struct cli_output *o, const char *opt, const char *path);
/* Returns 0, or -1 (and removes the temporary) if writing failed. */
int cli_output_commit(struct cli_output *o);
/* Removes the temporary file; for errors between open and commit. */
void cli_output_abandon(struct cli_output *o);

/* stderr is a terminal: progress lines are welcome. */
int cli_progress_wanted(void);

#endif
