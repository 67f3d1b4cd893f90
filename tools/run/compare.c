/*
 * compare.c - "ntmem run --compare N -- CMD": does the shim cost this
 * program anything, or win it anything?  CMD runs N times in each arm:
 * without the shim, with it (the policy options but --stream-above), and
 * with --stream-above also with streaming forced from that size.  One
 * warm-up run per arm goes first, untimed, so the first arm does not pay
 * for a cold page cache; then the arms take turns, forwards and backwards
 * (A B B A A B B A ...: compare_arm_at()), so that a drift of the
 * machine's speed, or a host whose successive processes alternate
 * between a fast and a slow state, falls on every arm alike.  Like
 * hyperfine: medians, the range, the ratio; and whether the change is
 * real, by an interval one stray run cannot widen (compare_stats.c).
 * Each run's standard output is hashed, to say whether the shim changed
 * what the program wrote, and with --show-output also shown, each line
 * marked with its arm and run.  Standard input is /dev/null, so every
 * run reads the same.  What ntmem run says of the runs goes to its
 * standard error, as --report's does and time(1)'s: standard output is
 * the command's, often sent to /dev/null or a file.
 */
#define _GNU_SOURCE
#include "run.h"

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>

#include "compare.h"
#include "measure/supervise.h"
#include "util/size.h"

enum { ARM_WITHOUT, ARM_WITH, ARM_STREAMING, ARMS };

struct run_result {
	double wall, user, sys;
	uint64_t hash, out_bytes;
};

struct arm {
	const char *name;
	const char *shim;               /* NULL: without the shim */
	char tunables[RUN_TUNABLES_MAX];
	struct run_result *runs;        /* [compare] */
};

/* A run's standard output: hashed (FNV-1a, 64 bits: enough to tell two
 * outputs apart) and, with a label, shown on standard error, each line
 * after "[label] ". */
struct output_sink {
	uint64_t h, n;
	const char *label;  /* NULL: not shown */
	int mid_line;       /* the last shown ended within a line */
};

static void show_output(struct output_sink *o, const char *buf, size_t n)
{
	while (n) {
		const char *nl = memchr(buf, '\n', n);
		size_t len = nl ? (size_t)(nl - buf) + 1 : n;
		if (!o->mid_line)
			fprintf(stderr, "[%s] ", o->label);
		fwrite(buf, 1, len, stderr);
		o->mid_line = !nl;
		buf += len;
		n -= len;
	}
}

static void take_output(void *ctx, const char *buf, size_t n)
{
	struct output_sink *o = ctx;
	for (size_t i = 0; i < n; i++)
		o->h = (o->h ^ (unsigned char)buf[i]) * 0x100000001b3ull;
	o->n += n;
	if (o->label)
		show_output(o, buf, n);
}

/* Run number run of arm a (-1: its warm-up): 0, or -1 with why in e. */
static int run_once(const struct run_options *o, const struct run_env *had,
		    const struct arm *a, long run, struct run_result *r,
		    struct cli_error *e)
{
	char label[64];
	if (run < 0)
		snprintf(label, sizeof label, "%s warm-up", a->name);
	else
		snprintf(label, sizeof label, "%s %ld", a->name, run + 1);
	struct output_sink out = {0xcbf29ce484222325ull, 0,
				  o->show_output ? label : NULL, 0};
	struct supervise_io io = {.stdin_null = 1, .output = take_output,
				  .cpu = -1, .ctx = &out};
	struct run_outcome oc;
	if (run_set_environment(had, a->shim, a->tunables, e) ||
	    supervise(o->command, &io, &oc, e))
		return -1;
	if (out.mid_line)
		fputc('\n', stderr);
	if (oc.status) {
		char why[64];
		if (WIFSIGNALED(oc.status))
			snprintf(why, sizeof why, "was killed by signal %d",
				 WTERMSIG(oc.status));
		else
			snprintf(why, sizeof why, "exited with status %d",
				 WEXITSTATUS(oc.status));
		return cli_error(e, CLI_FAILED, "--compare: %s %s in the '%s' arm; "
				 "a comparison needs a command that succeeds",
				 o->command[0], why, a->name);
	}
	*r = (struct run_result){oc.wall_s, oc.user_s, oc.sys_s, out.h, out.n};
	return 0;
}

static int by_value(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;
	return (x > y) - (x < y);
}

struct summary {
	double wall, wall_min, wall_max, user, sys;
};

static double median(double *v, long n)
{
	qsort(v, (size_t)n, sizeof *v, by_value);
	return n % 2 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2;
}

static struct summary summarize(const struct arm *a, long n)
{
	double *v = malloc((size_t)n * sizeof *v);
	struct summary s = {0};
	if (!v)
		return s;
	for (long i = 0; i < n; i++)
		v[i] = a->runs[i].wall;
	s.wall = median(v, n);
	s.wall_min = v[0];
	s.wall_max = v[n - 1];
	for (long i = 0; i < n; i++)
		v[i] = a->runs[i].user;
	s.user = median(v, n);
	for (long i = 0; i < n; i++)
		v[i] = a->runs[i].sys;
	s.sys = median(v, n);
	free(v);
	return s;
}

static void format_seconds(double s, char *buf, size_t len)
{
	if (s < 1)
		snprintf(buf, len, "%.1f ms", s * 1e3);
	else
		snprintf(buf, len, "%.3f s", s);
}

static void print_arms(const struct arm *arms, int narms, long n,
		       struct summary *s)
{
	char w[32], lo[32], hi[32], u[32], sy[32];
	fprintf(stderr, "  %-11s %11s  %-23s %11s %11s  %9s %9s\n", "arm", "wall",
		"wall range", "user", "sys", "wall", "user+sys");
	for (int a = 0; a < narms; a++) {
		s[a] = summarize(&arms[a], n);
		format_seconds(s[a].wall, w, sizeof w);
		format_seconds(s[a].wall_min, lo, sizeof lo);
		format_seconds(s[a].wall_max, hi, sizeof hi);
		format_seconds(s[a].user, u, sizeof u);
		format_seconds(s[a].sys, sy, sizeof sy);
		char range[80];
		snprintf(range, sizeof range, "%s - %s", lo, hi);
		fprintf(stderr, "  %-11s %11s  %-23s %11s %11s", arms[a].name, w,
			range, u, sy);
		if (a == ARM_WITHOUT)
			fprintf(stderr, "  %9s %9s\n", "(base)", "(base)");
		else
			fprintf(stderr, "  %8.3fx %8.3fx\n", s[a].wall / s[0].wall,
			        (s[a].user + s[a].sys) / (s[0].user + s[0].sys));
	}
}

static void format_change(double ratio, char *buf, size_t len)
{
	snprintf(buf, len, "%+.1f%%", 100 * (ratio - 1));
}

/* Each arm's change in wall time from the arm without the shim, and
 * whether its interval (compare_stats.c) shows one. */
static void print_change(const struct arm *arms, int narms, long n)
{
	double *base = malloc(2 * (size_t)n * sizeof *base);
	if (!base)
		return;
	double *times = base + n;
	for (long i = 0; i < n; i++)
		base[i] = arms[0].runs[i].wall;
	for (int a = 1; a < narms; a++) {
		struct compare_ratio r;
		char est[32], lo[32], hi[32];
		for (long i = 0; i < n; i++)
			times[i] = arms[a].runs[i].wall;
		if (compare_ratio(base, n, times, n, &r))
			break;
		format_change(r.estimate, est, sizeof est);
		if (!r.lo) {
			fprintf(stderr, "  %s: wall time %s; %ld runs an arm are too few "
				"for a 95%% interval (4 at least)\n", arms[a].name, est, n);
			continue;
		}
		format_change(r.lo, lo, sizeof lo);
		format_change(r.hi, hi, sizeof hi);
		int v = compare_verdict(&r);
		fprintf(stderr, "  %s: wall time %s, 95%% interval %s to %s: %s\n",
			arms[a].name, est, lo, hi,
			v > 0 ? "slower" : v < 0 ? "faster"
				 : "no change beyond the runs' noise");
	}
	fprintf(stderr, "  (the change: the median of the ratios of every run of "
		"the arm to every run\n   without the shim; its 95%% interval from "
		"their ranks: Hodges-Lehmann, Mann-Whitney)\n");
	free(base);
}

/* Standard output: the same in every run?  Returns 1 if the arms differ
 * while each arm agrees with itself: the shim changed the output. */
static int print_output(const struct arm *arms, int narms, long n)
{
	int same_within = 1, same_across = 1;
	for (int a = 0; a < narms; a++)
		for (long i = 0; i < n; i++) {
			same_within &= arms[a].runs[i].hash == arms[a].runs[0].hash;
			same_across &= arms[a].runs[i].hash == arms[0].runs[0].hash;
		}
	char size[32];
	ntm_format_size(arms[0].runs[0].out_bytes, size, sizeof size);
	if (same_across) {
		fprintf(stderr, "  standard output: identical in all %ld runs (%s, FNV-1a "
		        "%016llx)\n", n * narms, size,
		        (unsigned long long)arms[0].runs[0].hash);
		return 0;
	}
	if (!same_within) {
		fprintf(stderr, "  standard output: differs from run to run within an arm: "
		        "the command's output is not deterministic, so it cannot "
		        "tell whether the shim changed it\n");
		return 0;
	}
	fprintf(stderr, "  standard output: DIFFERS between the arms, while each arm's "
	        "runs agree:");
	for (int a = 0; a < narms; a++)
		fprintf(stderr, " %s %016llx (%llu bytes)%s", arms[a].name,
		        (unsigned long long)arms[a].runs[0].hash,
		        (unsigned long long)arms[a].runs[0].out_bytes,
		        a + 1 < narms ? "," : "\n");
	return 1;
}

static void print_header(const struct run_options *o, int narms)
{
	char cmd[512];
	cli_format_command(o->command, cmd, sizeof cmd);
	fprintf(stderr, "ntmem run --compare %ld: %s\n  %ld runs per arm after one "
	        "warm-up each, the %d arms taking turns forwards, then\n"
	        "  backwards (%s ...); stdin /dev/null, stdout hashed%s\n",
		o->compare, cmd, o->compare, narms,
		narms == 2 ? "A B B A A B" : "A B C C B A", o->show_output ?
		" and shown" : "");
}

int run_compare(const struct run_options *o, const char *shim)
{
	struct arm arms[ARMS] = {{"without", NULL, "", NULL},
				 {"with shim", shim, "", NULL},
				 {"streaming", shim, "", NULL}};
	int narms = o->stream_above ? ARMS : ARM_STREAMING;
	snprintf(arms[ARM_WITH].tunables, sizeof arms[ARM_WITH].tunables, "%.*s",
		 (int)o->unforced_len, o->tunables);
	snprintf(arms[ARM_STREAMING].tunables, sizeof arms[ARM_STREAMING].tunables,
		 "%s", o->tunables);
	struct run_env had;
	struct cli_error e;
	struct run_result warm;
	int rc = 0;
	run_env_save(&had);
	for (int a = 0; a < narms && !rc; a++)
		if (!(arms[a].runs = calloc((size_t)o->compare, sizeof *arms[a].runs)))
			rc = cli_error(&e, CLI_FAILED, "out of memory");
	for (int a = 0; a < narms && !rc; a++)
		rc = run_once(o, &had, &arms[a], -1, &warm, &e);
	for (long k = 0; k < o->compare * narms && !rc; k++) {
		int a = compare_arm_at(k, narms);
		rc = run_once(o, &had, &arms[a], k / narms, &arms[a].runs[k / narms], &e);
	}
	int status = 0;
	if (rc) {
		fprintf(stderr, "ntmem run: %s\n", e.msg);
		status = CLI_FAILED;
	} else {
		struct summary s[ARMS];
		print_header(o, narms);
		print_arms(arms, narms, o->compare, s);
		print_change(arms, narms, o->compare);
		status = print_output(arms, narms, o->compare) ? CLI_FAILED : 0;
	}
	for (int a = 0; a < narms; a++)
		free(arms[a].runs);
	run_env_free(&had);
	return status;
}
