/* cli.c - shared argument handling, errors and output files for the tool. */
#define _GNU_SOURCE  /* CPU_SETSIZE */
#include "cli.h"

#include <ctype.h>
#include <errno.h>
#include <getopt.h>
#include <sched.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "util/size.h"

const char *cli_command = "";

int cli_error(struct cli_error *e, enum cli_status status, const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(e->msg, sizeof e->msg, fmt, ap);
	va_end(ap);
	e->status = status;
	return -1;
}

void cli_exit(const struct cli_error *e)
{
	fprintf(stderr, "ntmem%s%s: %s\n", cli_command[0] ? " " : "", cli_command,
		e->msg);
	if (e->status == CLI_USAGE)
		fprintf(stderr, "Try 'ntmem %s%s--help' for more information.\n",
			cli_command, cli_command[0] ? " " : "");
	exit(e->status == CLI_OK ? CLI_FAILED : (int)e->status);
}

int cli_parse_size(const char *opt, const char *arg, size_t *out,
		   struct cli_error *e)
{
	const char *why;
	if (!ntm_parse_size(arg, out, &why))
		return 0;
	return cli_error(e, CLI_USAGE, "%s: '%s': %s", opt, arg, why);
}

int cli_parse_size_list(const char *opt, const char *arg, size_t *out,
			size_t max, size_t *n, struct cli_error *e)
{
	char buf[1024];
	char *items[64];
	if (cli_parse_list(opt, arg, buf, sizeof buf, items, max < 64 ? max : 64,
			   n, e))
		return -1;
	for (size_t i = 0; i < *n; i++) {
		if (cli_parse_size(opt, items[i], &out[i], e))
			return -1;
		if (out[i] == 0)
			return cli_error(e, CLI_USAGE, "%s: '%s': size must be at "
					 "least 1 byte", opt, items[i]);
	}
	return 0;
}

int cli_parse_long(const char *opt, const char *arg, long min, long max,
		   long *out, struct cli_error *e)
{
	char *end;
	errno = 0;
	long v = strtol(arg, &end, 10);
	if (errno || end == arg || *end)
		return cli_error(e, CLI_USAGE, "%s: '%s' is not a whole number",
				 opt, arg);
	if (v < min || v > max)
		return cli_error(e, CLI_USAGE, "%s: %ld is out of range [%ld, %ld]",
				 opt, v, min, max);
	*out = v;
	return 0;
}

int cli_parse_cpu(const char *opt, const char *arg, int *cpu,
		  struct cli_error *e)
{
	long v;
	if (cli_parse_long(opt, arg, 0, CPU_SETSIZE - 1, &v, e))
		return -1;
	*cpu = (int)v;
	return 0;
}

int cli_parse_byte(const char *opt, const char *arg, int *out,
		   struct cli_error *e)
{
	char *end;
	errno = 0;
	int hex = arg[0] == '0' && (arg[1] == 'x' || arg[1] == 'X');
	long v = strtol(arg, &end, hex ? 16 : 10);
	/* strtol takes blanks and signs; a byte is digits only. */
	if (errno || end == arg || *end || !isdigit((unsigned char)arg[0]))
		return cli_error(e, CLI_USAGE, "%s: '%s' is not a byte (0-255 or "
				 "0x00-0xff)", opt, arg);
	if (v > 255)
		return cli_error(e, CLI_USAGE, "%s: %ld is larger than a byte (255)",
				 opt, v);
	*out = (int)v;
	return 0;
}

int cli_parse_list(const char *opt, const char *arg, char *buf, size_t buf_len,
		   char **out, size_t max, size_t *n, struct cli_error *e)
{
	if (strlen(arg) >= buf_len)
		return cli_error(e, CLI_USAGE, "%s: list too long", opt);
	strcpy(buf, arg);
	*n = 0;
	for (char *s = buf;;) {
		char *comma = strchr(s, ',');
		if (comma)
			*comma = '\0';
		if (!*s)
			return cli_error(e, CLI_USAGE, "%s: empty item in list", opt);
		if (*n == max)
			return cli_error(e, CLI_USAGE, "%s: more than %zu items", opt,
					 max);
		out[(*n)++] = s;
		if (!comma)
			return 0;
		s = comma + 1;
	}
}

int cli_getopt_error(int c, char **argv, struct cli_error *e)
{
	/* A long option is the word getopt just passed; a short one may sit
	 * inside a word ("-x5"), so name it by optopt. */
	char name[8];
	const char *word = argv[optind - 1];
	if (strncmp(word, "--", 2) && optopt > 0 && optopt < 128) {
		snprintf(name, sizeof name, "-%c", optopt);
		word = name;
	}
	if (c == ':')
		return cli_error(e, CLI_USAGE, "option '%s' needs a value", word);
	return cli_error(e, CLI_USAGE, "unknown option '%s'", word);
}

int cli_common_option(int c, char **argv, int *help, struct cli_error *e)
{
	if (c != 'h')
		return cli_getopt_error(c, argv, e);
	*help = 1;
	return 0;
}

int cli_check_no_operands(int argc, char **argv, struct cli_error *e)
{
	if (optind < argc)
		return cli_error(e, CLI_USAGE, "unexpected argument '%s'",
				 argv[optind]);
	return 0;
}

int cli_getopt(int argc, char **argv, const char *shortopts,
	       const struct option *longopts, cli_option_fn one, void *ctx,
	       const int *help, struct cli_error *e)
{
	int c;
	optind = 0;  /* glibc: start afresh, so the tests may parse again */
	opterr = 0;
	while ((c = getopt_long(argc, argv, shortopts, longopts, NULL)) != -1) {
		if (one(ctx, c, optarg, argv, e))
			return -1;
		if (*help)
			return 0;
	}
	return shortopts[0] == '+' ? 0 : cli_check_no_operands(argc, argv, e);
}

/* The index of name in names[n] (or aliases[n]), or -1. */
static int name_index(const char *name, const char *const *names,
		      const char *const *aliases, int n)
{
	for (int i = 0; i < n; i++)
		if (!strcmp(name, names[i]) || (aliases && !strcmp(name, aliases[i])))
			return i;
	return -1;
}

int cli_parse_bits(const char *opt, const char *what, const char *arg,
		   const char *const *names, const char *const *aliases, int n,
		   unsigned *bits, struct cli_error *e)
{
	char buf[1024], *items[64];
	size_t count;
	if (cli_parse_list(opt, arg, buf, sizeof buf, items, 64, &count, e))
		return -1;
	*bits = 0;
	for (size_t i = 0; i < count; i++) {
		int k = name_index(items[i], names, aliases, n);
		if (k >= 0) {
			*bits |= 1u << k;
		} else if (!strcmp(items[i], "all")) {
			*bits = (1u << n) - 1;
		} else {
			char use[256] = "";
			for (int j = 0; j < n; j++) {
				size_t l = strlen(use);
				snprintf(use + l, sizeof use - l, "%s, ", names[j]);
			}
			use[strlen(use) - 2] = '\0';
			return cli_error(e, CLI_USAGE, "%s: unknown %s '%s' (use %s or "
					 "all)", opt, what, items[i], use);
		}
	}
	return 0;
}

int cli_output_open(struct cli_output *o, const char *opt, const char *path,
		    struct cli_error *e)
{
	memset(o, 0, sizeof *o);
	o->opt = opt;
	if (!*path)
		return cli_error(e, CLI_USAGE, "%s: empty file name", opt);
	if (ntm_outfile_prepare(&o->target, path, 0))
		return cli_error(e, CLI_USAGE, "%s: cannot write '%s': %s", opt, path,
				 ntm_outfile_reason(&o->target));
	o->f = open_memstream(&o->data, &o->len);
	if (!o->f)
		return cli_error(e, CLI_FAILED, "%s: %s", opt, strerror(errno));
	return 0;
}

int cli_output_commit(struct cli_output *o, struct cli_error *e)
{
	int bad = ferror(o->f);
	if (fclose(o->f))
		bad = 1;
	o->f = NULL;
	int r = 0;
	if (bad)
		r = cli_error(e, CLI_FAILED, "%s: out of memory", o->opt);
	else if (ntm_outfile_commit(&o->target, o->data, o->len))
		r = cli_error(e, CLI_FAILED, "%s: cannot write '%s': %s", o->opt,
			      o->target.asked, ntm_outfile_reason(&o->target));
	free(o->data);
	o->data = NULL;
	return r;
}

void cli_output_abandon(struct cli_output *o)
{
	if (o->f)
		fclose(o->f);
	o->f = NULL;
	free(o->data);
	o->data = NULL;
}

void cli_output_finish(struct cli_output *plot, int undrawn)
{
	struct cli_error e;
	if (fflush(stdout) || ferror(stdout)) {
		if (plot)
			cli_output_abandon(plot);
		cli_fail("cannot write the results to standard output");
	}
	if (plot && undrawn) {
		cli_output_abandon(plot);
		cli_fail("%s: nothing to draw; '%s' not written", plot->opt,
			 plot->target.asked);
	}
	if (plot && cli_output_commit(plot, &e))
		cli_exit(&e);
}

void cli_format_command(char *const *argv, char *buf, size_t len)
{
	size_t used = 0;
	buf[0] = '\0';
	for (int i = 0; argv[i] && used + 1 < len; i++) {
		const char *w = argv[i];
		int quote = !*w || strpbrk(w, " \t\n'\"$\\|&;<>()*?") != NULL;
		used += (size_t)snprintf(buf + used, len - used, "%s%s", i ? " " : "",
					 quote ? "'" : "");
		for (; *w && used + 4 < len; w++) {
			if (*w == '\n' || *w == '\t') {
				buf[used++] = '\\';
				buf[used++] = *w == '\n' ? 'n' : 't';
			} else if (*w == '\'' && quote) {
				used += (size_t)snprintf(buf + used, len - used, "'\\''");
			} else {
				buf[used++] = *w;
			}
		}
		if (quote && used + 1 < len)
			buf[used++] = '\'';
		buf[used] = '\0';
	}
}

int cli_progress_wanted(void)
{
	return isatty(STDERR_FILENO);
}

/* ------------------------------------------------------------------ */
/* The exiting forms                                                   */
/* ------------------------------------------------------------------ */

static __attribute__((noreturn)) void vexit(enum cli_status status,
					    const char *fmt, va_list ap)
{
	struct cli_error e = {.status = status};
	vsnprintf(e.msg, sizeof e.msg, fmt, ap);
	cli_exit(&e);
}

void cli_usage_error(const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	vexit(CLI_USAGE, fmt, ap);
}

void cli_fail(const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	vexit(CLI_FAILED, fmt, ap);
}

void cli_option_error(int c, char **argv)
{
	struct cli_error e;
	cli_getopt_error(c, argv, &e);
	cli_exit(&e);
}

void cli_no_operands(int argc, char **argv)
{
	struct cli_error e;
	if (cli_check_no_operands(argc, argv, &e))
		cli_exit(&e);
}
