/* cli.c - shared argument handling and output files for the tool. */
#include "cli.h"

#include <ctype.h>
#include <errno.h>
#include <getopt.h>
#include <limits.h>
#include <signal.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "size.h"

const char *cli_command = "";

/* The output file being written, removed if the command fails. */
static struct cli_output *active_output;

/* Say msg, remove the temporary output file, and exit. */
__attribute__((noreturn)) static void die(int status, const char *msg)
{
	fprintf(stderr, "ntmem%s%s: %s\n", cli_command[0] ? " " : "", cli_command,
		msg);
	if (active_output)
		cli_output_abandon(active_output);
	if (status == 2)
		fprintf(stderr, "Try 'ntmem %s%s--help' for more information.\n",
			cli_command, cli_command[0] ? " " : "");
	exit(status);
}

void cli_usage_error(const char *fmt, ...)
{
	char msg[1024];
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(msg, sizeof msg, fmt, ap);
	va_end(ap);
	die(2, msg);
}

void cli_fail(const char *fmt, ...)
{
	char msg[1024];
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(msg, sizeof msg, fmt, ap);
	va_end(ap);
	die(1, msg);
}

void cli_option_error(int c, char **argv)
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
		cli_usage_error("option '%s' needs a value", word);
	cli_usage_error("unknown option '%s'", word);
}

void cli_no_operands(int argc, char **argv)
{
	if (optind < argc)
		cli_usage_error("unexpected argument '%s'", argv[optind]);
}

int cli_parse_size(const char *opt, const char *arg, size_t *out, char *err,
		   size_t err_len)
{
	const char *why;
	if (!ntm_parse_size(arg, out, &why))
		return 0;
	snprintf(err, err_len, "%s: '%s': %s", opt, arg, why);
	return -1;
}

int cli_parse_long(const char *opt, const char *arg, long min, long max,
		   long *out, char *err, size_t err_len)
{
	char *end;
	errno = 0;
	long v = strtol(arg, &end, 10);
	if (errno || end == arg || *end) {
		snprintf(err, err_len, "%s: '%s' is not a whole number", opt, arg);
		return -1;
	}
	if (v < min || v > max) {
		snprintf(err, err_len, "%s: %ld is out of range [%ld, %ld]", opt, v,
			 min, max);
		return -1;
	}
	*out = v;
	return 0;
}

int cli_parse_list(const char *opt, const char *arg, char *buf, size_t buf_len,
		   char **out, size_t max, size_t *n, char *err, size_t err_len)
{
	if (strlen(arg) >= buf_len) {
		snprintf(err, err_len, "%s: list too long", opt);
		return -1;
	}
	strcpy(buf, arg);
	*n = 0;
	for (char *s = buf;;) {
		char *comma = strchr(s, ',');
		if (comma)
			*comma = '\0';
		if (!*s) {
			snprintf(err, err_len, "%s: empty item in list", opt);
			return -1;
		}
		if (*n == max) {
			snprintf(err, err_len, "%s: more than %zu items", opt, max);
			return -1;
		}
		out[(*n)++] = s;
		if (!comma)
			return 0;
		s = comma + 1;
	}
}

size_t cli_size(const char *opt, const char *arg)
{
	size_t v;
	char err[256];
	if (cli_parse_size(opt, arg, &v, err, sizeof err))
		cli_usage_error("%s", err);
	return v;
}

size_t cli_size_list(const char *opt, const char *arg, size_t *out, size_t max)
{
	char buf[1024];
	char *items[64];
	size_t n = cli_split(opt, arg, buf, sizeof buf, items, max < 64 ? max : 64);
	for (size_t i = 0; i < n; i++) {
		out[i] = cli_size(opt, items[i]);
		if (out[i] == 0)
			cli_usage_error("%s: '%s': size must be at least 1 byte",
					opt, items[i]);
	}
	return n;
}

long cli_long(const char *opt, const char *arg, long min, long max)
{
	long v;
	char err[256];
	if (cli_parse_long(opt, arg, min, max, &v, err, sizeof err))
		cli_usage_error("%s", err);
	return v;
}

int cli_byte(const char *opt, const char *arg)
{
	char *end;
	errno = 0;
	int hex = arg[0] == '0' && (arg[1] == 'x' || arg[1] == 'X');
	long v = strtol(arg, &end, hex ? 16 : 10);
	/* strtol takes blanks and signs; a byte is digits only. */
	if (errno || end == arg || *end || !isdigit((unsigned char)arg[0]))
		cli_usage_error("%s: '%s' is not a byte (0-255 or 0x00-0xff)",
				opt, arg);
	if (v > 255)
		cli_usage_error("%s: %ld is larger than a byte (255)", opt, v);
	return (int)v;
}

size_t cli_split(const char *opt, const char *arg, char *buf, size_t buf_len,
		 char **out, size_t max)
{
	size_t n;
	char err[256];
	if (cli_parse_list(opt, arg, buf, buf_len, out, max, &n, err, sizeof err))
		cli_usage_error("%s", err);
	return n;
}

/* Interrupted mid-run: remove the temporary file, then die of the signal. */
static void on_fatal_signal(int sig)
{
	if (active_output)
		unlink(active_output->tmp);
	signal(sig, SIG_DFL);
	raise(sig);
}

void cli_output_open(struct cli_output *o, const char *opt, const char *path)
{
	if (strlen(path) >= sizeof o->path)
		cli_usage_error("%s: path too long", opt);
	strcpy(o->path, path);
	snprintf(o->tmp, sizeof o->tmp, "%s.tmpXXXXXX", path);
	int fd = mkstemp(o->tmp);
	if (fd < 0)
		cli_usage_error("%s: cannot write '%s': %s", opt, path,
				strerror(errno));
	o->f = fdopen(fd, "w");
	if (!o->f) {
		close(fd);
		unlink(o->tmp);
		cli_usage_error("%s: cannot write '%s': %s", opt, path,
				strerror(errno));
	}
	active_output = o;
	signal(SIGINT, on_fatal_signal);
	signal(SIGTERM, on_fatal_signal);
	signal(SIGHUP, on_fatal_signal);
}

int cli_output_commit(struct cli_output *o)
{
	active_output = NULL;
	int bad = ferror(o->f);
	if (fclose(o->f))
		bad = 1;
	o->f = NULL;
	/* mkstemp makes 0600 files; a plot or table is for sharing. */
	if (bad || chmod(o->tmp, 0644) || rename(o->tmp, o->path)) {
		unlink(o->tmp);
		return -1;
	}
	return 0;
}

void cli_output_abandon(struct cli_output *o)
{
	if (active_output == o)
		active_output = NULL;
	if (o->f) {
		fclose(o->f);
		o->f = NULL;
		unlink(o->tmp);
	}
}

int cli_progress_wanted(void)
{
	return isatty(STDERR_FILENO);
}
