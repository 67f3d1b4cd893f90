/* populate.c - "ntmem populate": how fast a fresh mapping is faulted in
 * by ntmem_populate on several threads, against serial
 * MADV_POPULATE_WRITE and a plain first-touch loop, in one run: each run
 * maps afresh, times one method, unmaps; the methods take turns. */
#define _GNU_SOURCE
#include <errno.h>
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "populate.h"

#include "measure/benchfn.h"
#include "output/cli.h"
#include "commands.h"
#include "output/json.h"
#include "measure/measure.h"
#include "ntmem.h"
#include "util/size.h"

#ifndef MADV_POPULATE_WRITE
#define MADV_POPULATE_WRITE 23
#endif
#ifndef MAP_HUGE_SHIFT
#define MAP_HUGE_SHIFT 26
#endif

static const char *const method_name[NMETHODS] = {"touch", "madvise", "ntmem"};

static void usage(FILE *f)
{
	fprintf(f,
		"Usage: ntmem populate [-s SIZE] [OPTIONS]\n"
		"Fault in a fresh mapping of SIZE bytes and report GB/s: ntmem_populate\n"
		"on worker threads, against serial madvise(MADV_POPULATE_WRITE) and a\n"
		"plain first-touch loop, measured in one run.  Each run maps afresh, so\n"
		"every method pays for the kernel clearing every page.\n"
		"\n"
		"Options:\n"
		"  -s, --size SIZE       bytes to map: a bare number is bytes; units B,\n"
		"                        KB, MB, GB, TB or KiB ... TiB, all powers of\n"
		"                        1024, may have a fraction (1.5GB); default\n"
		"                        1 GiB, less where memory is short (half of\n"
		"                        what is available at most)\n"
		"  -p, --page SIZE       4KB (default), 2MB or 1GB: hugetlb pages of that\n"
		"                        size if reserved, else THP (madvise); the header\n"
		"                        says what was obtained\n"
		"  -t, --threads N|all   threads for ntmem_populate, 1-64, or every CPU\n"
		"                        this process may use (default all; more\n"
		"                        than those is refused)\n"
		"  -r, --runs N          runs of each method, interleaved (default 5)\n"
		"      --json            one JSON object on stdout instead of the table\n"
		"  -h, --help            show this help\n"
		"\n"
		"GB/s is 10^9 bytes per second: median of the runs.  On a terminal,\n"
		"standard error shows which run is under way.  Exit status: 0 ok,\n"
		"1 the run failed, 2 bad usage.\n");
}

static const struct option long_options[] = {
	{"size", required_argument, NULL, 's'},
	{"page", required_argument, NULL, 'p'},
	{"threads", required_argument, NULL, 't'},
	{"runs", required_argument, NULL, 'r'},
	{"json", no_argument, NULL, 'j'},
	{"help", no_argument, NULL, 'h'},
	{NULL, 0, NULL, 0},
};

/* Every CPU this process may use, as the library's pool counts them
 * (and bench --threads all), at most 64. */
static long all_cpus(void)
{
	struct ntmem_parallel_info info;
	ntmem_parallel_info(&info);
	long n = info.cpus_allowed ? (long)info.cpus_allowed : 1;
	return n > 64 ? 64 : n;
}

static int parse_option(void *ctx, int c, const char *arg, char **argv,
			struct cli_error *e)
{
	struct populate_opts *o = ctx;
	switch (c) {
	case 's':
		if (cli_parse_size("--size", arg, &o->size, e))
			return -1;
		return o->size ? 0 : cli_error(e, CLI_USAGE, "--size: must be at least 1 byte");
	case 'p':
		if (page_request_parse(arg, &o->pages))
			return cli_error(e, CLI_USAGE, "--page: '%s': use 4KB, 2MB or 1GB", arg);
		return 0;
	case 't':
		if (!strcmp(arg, "all")) {
			o->threads = all_cpus();
			return 0;
		}
		return cli_parse_long("--threads", arg, 1, 64, &o->threads, e);
	case 'r':
		return cli_parse_long("--runs", arg, 1, MAX_RUNS, &o->runs, e);
	case 'j':
		o->json = 1;
		return 0;
	default:
		return cli_common_option(c, argv, &o->help, e);
	}
}

size_t populate_default_size(size_t budget)
{
	size_t s = 1 * GiB;
	while (s > 2 * MiB && s > budget / 2)
		s /= 2;
	return s;
}

int populate_parse(int argc, char **argv, struct populate_opts *o,
		   struct cli_error *e)
{
	memset(o, 0, sizeof *o);
	o->threads = all_cpus();
	o->runs = 5;
	if (cli_getopt(argc, argv, ":s:p:t:r:h", long_options, parse_option, o,
		       &o->help, e))
		return -1;
	if (o->help)
		return 0;
	size_t budget = memory_budget();
	if (!o->size) {
		o->size = populate_default_size(budget);
		o->size_default = 1;
	}
	if (o->size > budget || o->size > SIZE_MAX - GiB) {
		char s[32], have[32];
		return cli_error(e, CLI_USAGE, "--size: %s: more than the %s of memory "
				 "available", ntm_format_size(o->size, s, sizeof s),
				 ntm_format_size(budget, have, sizeof have));
	}
	struct ntmem_parallel_info info;
	ntmem_parallel_info(&info);
	/* More threads than CPUs would share them: refused, as bench does. */
	if (info.cpus_allowed && (unsigned long)o->threads > info.cpus_allowed) {
		char may[256];
		return cli_error(e, CLI_USAGE, "--threads: %ld is more than the %u "
				 "CPUs this process may use (%s)", o->threads,
				 info.cpus_allowed, allowed_cpus_text(may, sizeof may));
	}
	/* A call gives no thread less than the minimum chunk (or a page):
	 * report the threads it can use, not more. */
	size_t page = (size_t)sysconf(_SC_PAGESIZE);
	o->least = info.min_chunk > page ? info.min_chunk : page;
	size_t most = o->size / o->least;
	if ((size_t)o->threads > (most ? most : 1)) {
		o->asked = o->threads;
		o->threads = most ? (long)most : 1;
	}
	if (!info.populate_write)
		o->skipped[MADVISE] = "the kernel lacks MADV_POPULATE_WRITE (Linux 5.14+)";
	return 0;
}

/* ------------------------------------------------------------------ */
/* A fresh mapping                                                     */
/* ------------------------------------------------------------------ */

/* ------------------------------------------------------------------ */
/* Measuring                                                           */
/* ------------------------------------------------------------------ */

/* A plain first-touch loop: one store a page, as a program does it. */
static int first_touch(unsigned char *p, size_t len)
{
	size_t page = (size_t)sysconf(_SC_PAGESIZE);
	for (size_t i = 0; i < len; i += page)
		((volatile unsigned char *)p)[i] = 0;
	return 0;
}

static int run_method(const struct populate_opts *o, enum method k,
		      const struct buffer *m)
{
	struct ntmem_opts opts = {.flags = NTMEM_F_PARALLEL,
				  .threads = (unsigned)o->threads};
	switch (k) {
	case TOUCH:
		return first_touch(m->p, m->map_len);
	case MADVISE:
		return madvise(m->p, m->map_len, MADV_POPULATE_WRITE);
	default:
		return ntmem_populate_opts(m->p, m->map_len, &opts);
	}
}

struct visit_ctx {
	struct populate_opts *o;
	struct cli_error *e;
	long done;  /* runs started, for the progress line */
};

/* "[4/15] madvise run 2/5, 1 GiB": a run at 4 KiB pages of 1 GiB takes
 * seconds, and the whole a minute; without this a terminal shows nothing
 * all that time. */
static void progress(struct visit_ctx *v, enum method k, long round)
{
	const struct populate_opts *o = v->o;
	char s[32];
	long methods = 0;
	for (int m = 0; m < NMETHODS; m++)
		methods += !o->skipped[m];
	fprintf(stderr, "\r\033[K[%ld/%ld] %s run %ld/%ld, %s", ++v->done,
		methods * o->runs, method_name[k], round + 1, o->runs,
		ntm_format_size(o->size, s, sizeof s));
	fflush(stderr);
}

/* One run of one method on a fresh mapping. */
static int visit(void *ctx, size_t slot, long round)
{
	struct visit_ctx *v = ctx;
	struct populate_opts *o = v->o;
	enum method k = (enum method)slot;
	if (o->skipped[k])
		return 0;
	if (o->progress)
		progress(v, k, round);
	struct buffer m;
	char why[160];
	if (buffer_map(&m, o->size, o->pages, 0, why, sizeof why))
		return cli_error(v->e, CLI_FAILED, "%s", why);
	uint64_t t0 = ntm_now_ns();
	int r = run_method(o, k, &m);
	uint64_t ns = ntm_now_ns() - t0;
	int err = errno;
	buffer_describe(&m, o->pages);
	snprintf(o->obtained[k], sizeof o->obtained[k], "%s", m.obtained);
	buffer_free(&m);
	if (r)
		return cli_error(v->e, CLI_FAILED, "%s: faulting in %zu bytes failed: %s",
				 method_name[k], o->size, strerror(err));
	o->gbps[k][round] = (double)m.map_len / (double)(ns ? ns : 1);
	return 0;
}

/* Start the pool's threads before anything is timed. */
static void warm_up(const struct populate_opts *o)
{
	struct buffer m;
	char why[160];
	if (buffer_map(&m, 4 * MiB, PAGES_4K, 0, why, sizeof why))
		return;
	struct ntmem_opts opts = {.flags = NTMEM_F_PARALLEL,
				  .threads = (unsigned)o->threads, .min_chunk = 4096};
	ntmem_populate_opts(m.p, m.map_len, &opts);
	buffer_free(&m);
}

/* ------------------------------------------------------------------ */
/* Reporting                                                           */
/* ------------------------------------------------------------------ */

static unsigned method_threads(const struct populate_opts *o, enum method k)
{
	return k == NTMEM ? (unsigned)o->threads : 1;
}

static void print_table(struct populate_opts *o, const struct machine *m,
			const struct stats *st)
{
	char s[32];
	printf("# ntmem populate: GB/s (10^9 bytes/s) faulting in a fresh %s mapping%s, "
	       "median of %ld interleaved run%s\n", ntm_format_size(o->size, s, sizeof s),
	       o->size_default ? " (the default size; -s to choose)" : "",
	       o->runs, o->runs == 1 ? "" : "s");
	printf("# cpu       %s, %u online\n", m->cpu, m->online_cpus);
	printf("# kernel    %s, THP %s\n", m->kernel, m->thp);
	printf("# pages     %s requested, %s\n", page_request_text(o->pages),
	       o->obtained[NTMEM]);
	printf("# ntmem     ntmem_populate, %ld thread%s", o->threads,
	       o->threads == 1 ? "" : "s");
	if (o->asked)
		printf(" (%ld asked, but a thread takes at least %s)", o->asked,
		       ntm_format_size(o->least, s, sizeof s));
	printf("\n\n");
	printf("%-8s %7s %9s  %-17s %10s %9s\n", "method", "threads", "GB/s",
	       "(min - max)", "vs madvise", "vs touch");
	for (int k = 0; k < NMETHODS; k++) {
		if (o->skipped[k])
			continue;
		char vs_m[16] = "-", vs_t[16] = "-", range[32];
		if (!o->skipped[MADVISE])
			snprintf(vs_m, sizeof vs_m, "%.2fx", st[k].median / st[MADVISE].median);
		snprintf(vs_t, sizeof vs_t, "%.2fx", st[k].median / st[TOUCH].median);
		snprintf(range, sizeof range, "(%.2f - %.2f)", st[k].min, st[k].max);
		printf("%-8s %7u %9.2f  %-17s %10s %9s\n", method_name[k],
		       method_threads(o, (enum method)k), st[k].median, range, vs_m, vs_t);
	}
	for (int k = 0; k < NMETHODS; k++)
		if (o->skipped[k])
			printf("\n# skipped %s: %s\n", method_name[k], o->skipped[k]);
}

static void print_json(struct populate_opts *o, const struct machine *m,
		       const struct stats *st)
{
	struct json j;
	json_start(&j, stdout);
	json_string(&j, "command", "populate");
	json_string(&j, "version", ntmem_version());
	json_object(&j, "machine");
	json_string(&j, "cpu", m->cpu);
	json_string(&j, "kernel", m->kernel);
	json_string(&j, "thp", m->thp);
	json_uint(&j, "online_cpus", m->online_cpus);
	json_end(&j);
	json_object(&j, "settings");
	json_uint(&j, "size", o->size);
	json_string(&j, "page_request", page_request_name(o->pages));
	json_string(&j, "pages_obtained", o->obtained[NTMEM]);
	json_uint(&j, "threads", (uint64_t)o->threads);
	json_uint(&j, "runs", (uint64_t)o->runs);
	json_end(&j);
	json_array(&j, "results");
	for (int k = 0; k < NMETHODS; k++) {
		if (o->skipped[k])
			continue;
		json_object(&j, NULL);
		json_string(&j, "method", method_name[k]);
		json_uint(&j, "threads", method_threads(o, (enum method)k));
		json_double(&j, "gbps_median", st[k].median);
		json_double(&j, "gbps_mean", st[k].mean);
		json_double(&j, "gbps_stdev", st[k].stdev);
		json_double(&j, "gbps_min", st[k].min);
		json_double(&j, "gbps_max", st[k].max);
		json_double(&j, "vs_touch", st[k].median / st[TOUCH].median);
		if (!o->skipped[MADVISE])
			json_double(&j, "vs_madvise", st[k].median / st[MADVISE].median);
		json_string(&j, "pages", o->obtained[k]);
		json_end(&j);
	}
	json_end(&j);
	json_array(&j, "skipped");
	for (int k = 0; k < NMETHODS; k++)
		if (o->skipped[k]) {
			json_object(&j, NULL);
			json_string(&j, "what", method_name[k]);
			json_string(&j, "reason", o->skipped[k]);
			json_end(&j);
		}
	json_end(&j);
	json_finish(&j);
}

int cmd_populate(int argc, char **argv)
{
	static struct populate_opts o;
	struct cli_error e;
	if (populate_parse(argc, argv, &o, &e))
		cli_exit(&e);
	if (o.help) {
		usage(stdout);
		return 0;
	}
	warm_up(&o);
	o.progress = cli_progress_wanted();
	struct visit_ctx v = {&o, &e, 0};
	int failed = benchfn_rotate(NMETHODS, o.runs, visit, &v);
	if (o.progress)
		fprintf(stderr, "\r\033[K");
	if (failed)
		cli_exit(&e);
	struct stats st[NMETHODS];
	for (int k = 0; k < NMETHODS; k++)
		st[k] = stats_of(o.gbps[k], o.skipped[k] ? 0 : (size_t)o.runs);
	struct machine m;
	machine_facts(&m);
	if (o.json)
		print_json(&o, &m, st);
	else
		print_table(&o, &m, st);
	if (fflush(stdout) || ferror(stdout))
		cli_fail("cannot write the results to standard output");
	return 0;
}
