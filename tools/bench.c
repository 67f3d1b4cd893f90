/* bench.c - "ntmem bench": memset/memcpy bandwidth of every function, in
 * the style of perf bench mem, measured side by side in one run. */
#define _GNU_SOURCE
#include "bench.h"

#include <getopt.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cli.h"
#include "commands.h"
#include "json.h"
#include "measure.h"
#include "size.h"
#include "svg.h"

#define MiB ((size_t)1 << 20)

static const size_t default_sizes[] = {2 * MiB, 16 * MiB, 128 * MiB,
				       1024 * MiB, 4096 * MiB};

static void usage(FILE *f)
{
	fprintf(f,
		"Usage: ntmem bench memset|memcpy [OPTIONS]\n"
		"Measure the bandwidth of every memset or memcpy function this CPU\n"
		"can run, side by side in one run, against a baseline.\n"
		"\n"
		"Options:\n"
		"  -s, --size LIST       sizes, comma-separated, with units B, KB, MB,\n"
		"                        GB, TB or KiB, MiB, GiB, TiB (all powers of\n"
		"                        1024); default 2MB,16MB,128MB,1024MB,4096MB\n"
		"  -f, --function LIST   functions to run, 'all' (default), or 'help'\n"
		"                        to list them\n"
		"  -l, --nr_loops N      calls per timed run (default: enough for each\n"
		"                        run to last about 20 ms)\n"
		"  -r, --runs N          timed runs, each after an untimed call of\n"
		"                        the same function (default 5)\n"
		"  -p, --page SIZE       4KB (default), 2MB or 1GB: hugetlb pages of that\n"
		"                        size if reserved, else THP; the header says\n"
		"                        what was obtained\n"
		"  -k, --chunk SIZE      clear or copy the buffer in pieces of SIZE\n"
		"      --value BYTE      byte memset writes, or memcpy's source holds\n"
		"                        (default 0 for memset, random bytes for memcpy)\n"
		"      --baseline FUNC   function the diff column compares with\n"
		"                        (default stosb for memset, movsb for memcpy)\n"
		"      --cpu N           pin to CPU N (default: the CPU it starts on)\n"
		"      --json            one JSON object on stdout instead of the table\n"
		"      --csv             CSV on stdout instead of the table\n"
		"      --plot FILE.svg   also plot GB/s against size\n"
		"  -h, --help            show this help\n"
		"\n"
		"GB/s is 10^9 bytes per second.  Streaming calls are timed with\n"
		"their SFENCE.  Exit status: 0 ok, 1 the run failed, 2 bad usage.\n");
}

static void list_functions(enum ntmem_op op)
{
	struct fn fns[FN_MAX];
	size_t n = fn_list(op, fns, FN_MAX);
	printf("Functions for %s:\n", op == NTMEM_OP_SET ? "memset" : "memcpy");
	for (size_t i = 0; i < n; i++) {
		const char *kind = fns[i].kind == FN_VARIANT
					   ? (fns[i].streaming ? "streaming" : "cached")
					   : "by size";
		printf("  %-11s %-9s %s%s%s%s\n", fns[i].name, kind,
		       fns[i].description, fns[i].supported ? "" : " [skipped: ",
		       fns[i].supported ? "" : fns[i].why_unsupported,
		       fns[i].supported ? "" : "]");
	}
}

/* Memory a run at this size needs: the destination, and for memcpy the
 * source, each in whole 2 MiB pages; SIZE_MAX when that overflows. */
static size_t memory_needed(const struct bench_opts *o, size_t size)
{
	size_t rounded = round_up_2mib(size);
	int buffers = o->op == NTMEM_OP_COPY ? 2 : 1;
	if (rounded == 0 || rounded > SIZE_MAX / 2)
		return SIZE_MAX;
	return rounded * (size_t)buffers;
}

static void add_skip(struct bench_opts *o, const char *what, const char *why)
{
	if (o->nskipped == BENCH_MAX_SKIPS)
		return;
	struct bench_skip *s = &o->skipped[o->nskipped++];
	snprintf(s->what, sizeof s->what, "%s", what);
	snprintf(s->why, sizeof s->why, "%s", why);
}

void bench_parse(int argc, char **argv, struct bench_opts *o)
{
	enum { OPT_VALUE = 256, OPT_BASELINE, OPT_CPU, OPT_JSON, OPT_CSV,
	       OPT_PLOT };
	static const struct option longopts[] = {
		{"size", required_argument, NULL, 's'},
		{"function", required_argument, NULL, 'f'},
		{"nr_loops", required_argument, NULL, 'l'},
		{"runs", required_argument, NULL, 'r'},
		{"page", required_argument, NULL, 'p'},
		{"chunk", required_argument, NULL, 'k'},
		{"value", required_argument, NULL, OPT_VALUE},
		{"baseline", required_argument, NULL, OPT_BASELINE},
		{"cpu", required_argument, NULL, OPT_CPU},
		{"json", no_argument, NULL, OPT_JSON},
		{"csv", no_argument, NULL, OPT_CSV},
		{"plot", required_argument, NULL, OPT_PLOT},
		{"help", no_argument, NULL, 'h'},
		{NULL, 0, NULL, 0},
	};
	memset(o, 0, sizeof *o);
	o->loops = 0;
	o->runs = 5;
	o->value = -1;
	o->cpu = -1;
	const char *functions = "all", *baseline = NULL;

	if (argc < 2 || argv[1][0] == '-') {
		if (argc >= 2 && (!strcmp(argv[1], "-h") || !strcmp(argv[1], "--help"))) {
			usage(stdout);
			exit(0);
		}
		cli_usage_error("which benchmark? 'memset' or 'memcpy'");
	}
	if (!strcmp(argv[1], "memset"))
		o->op = NTMEM_OP_SET;
	else if (!strcmp(argv[1], "memcpy"))
		o->op = NTMEM_OP_COPY;
	else
		cli_usage_error("unknown benchmark '%s' (memset or memcpy)", argv[1]);
	argc--;
	argv++;

	int c;
	optind = 1;
	opterr = 0;
	while ((c = getopt_long(argc, argv, ":s:f:l:r:p:k:h", longopts, NULL)) != -1) {
		switch (c) {
		case 's':
			o->nsizes = cli_size_list("--size", optarg, o->sizes,
						  BENCH_MAX_SIZES);
			o->sizes_given = 1;
			break;
		case 'f':
			functions = optarg;
			break;
		case 'l':
			o->loops = cli_long("--nr_loops", optarg, 1, 1000000);
			break;
		case 'r':
			o->runs = cli_long("--runs", optarg, 1, BENCH_MAX_RUNS);
			break;
		case 'p':
			if (page_request_parse(optarg, &o->pages))
				cli_usage_error("--page: '%s': use 4KB, 2MB or 1GB",
						optarg);
			break;
		case 'k':
			o->chunk = cli_size("--chunk", optarg);
			if (o->chunk == 0)
				cli_usage_error("--chunk: must be at least 1 byte");
			break;
		case OPT_VALUE:
			o->value = cli_byte("--value", optarg);
			break;
		case OPT_BASELINE:
			baseline = optarg;
			break;
		case OPT_CPU:
			o->cpu = (int)cli_long("--cpu", optarg, 0, 4095);
			break;
		case OPT_JSON:
			o->json = 1;
			break;
		case OPT_CSV:
			o->csv = 1;
			break;
		case OPT_PLOT:
			o->plot = optarg;
			break;
		case 'h':
			usage(stdout);
			exit(0);
		default:
			cli_option_error(c, argv);
		}
	}
	cli_no_operands(argc, argv);
	if (o->json && o->csv)
		cli_usage_error("--json and --csv: choose one");

	/* Functions. */
	struct fn all[FN_MAX];
	size_t nall = fn_list(o->op, all, FN_MAX);
	if (!strcmp(functions, "help")) {
		list_functions(o->op);
		exit(0);
	}
	if (!strcmp(functions, "all")) {
		for (size_t i = 0; i < nall; i++) {
			if (all[i].supported)
				o->fns[o->nfns++] = all[i];
			else
				add_skip(o, all[i].name, all[i].why_unsupported);
		}
	} else {
		char buf[1024];
		char *names[FN_MAX];
		size_t n = cli_split("--function", functions, buf, sizeof buf,
				     names, FN_MAX);
		for (size_t i = 0; i < n; i++) {
			const struct fn *f = fn_find(all, nall, names[i]);
			if (!f)
				cli_usage_error("--function: unknown function '%s' "
						"(see -f help)", names[i]);
			if (fn_find(o->fns, o->nfns, f->name))
				continue;
			if (f->supported)
				o->fns[o->nfns++] = *f;
			else
				add_skip(o, f->name, f->why_unsupported);
		}
	}

	/* Baseline: must run; added when not among the functions. */
	const char *def = o->op == NTMEM_OP_SET ? "stosb" : "movsb";
	const struct fn *b = fn_find(all, nall, baseline ? baseline : def);
	if (baseline && !b)
		cli_usage_error("--baseline: unknown function '%s'", baseline);
	if (baseline && !b->supported)
		cli_usage_error("--baseline: %s cannot run here: %s", baseline,
				b->why_unsupported);
	if (baseline && b->zero_only && o->value > 0)
		cli_usage_error("--baseline: %s writes zeros only; --value is %#x",
				baseline, o->value);
	if (!b->supported)  /* the default, on a CPU without ERMS */
		b = fn_find(all, nall, "glibc");
	if (!fn_find(o->fns, o->nfns, b->name)) {
		memmove(o->fns + 1, o->fns, o->nfns * sizeof o->fns[0]);
		o->fns[0] = *b;
		o->nfns++;
	}
	o->baseline = fn_find(o->fns, o->nfns, b->name) - o->fns;

	if (o->value < 0)
		o->value = o->op == NTMEM_OP_SET ? 0 : -1;  /* -1: random source */
	if (o->op == NTMEM_OP_SET && o->value != 0)
		for (size_t i = 0; i < o->nfns; i++)
			if (o->fns[i].zero_only) {
				char why[96];
				snprintf(why, sizeof why,
					 "writes zeros only; --value is %#x", o->value);
				add_skip(o, o->fns[i].name, why);
				memmove(o->fns + i, o->fns + i + 1,
					(o->nfns - i - 1) * sizeof o->fns[0]);
				o->nfns--;
				if ((size_t)o->baseline > i)
					o->baseline--;
				i--;
			}

	/* Sizes: explicit ones must fit; default ones are skipped if not. */
	if (!o->sizes_given) {
		o->nsizes = sizeof default_sizes / sizeof default_sizes[0];
		memcpy(o->sizes, default_sizes, sizeof default_sizes);
	}
	size_t budget = memory_budget();
	size_t kept = 0;
	for (size_t i = 0; i < o->nsizes; i++) {
		char s[32], need[32], have[32];
		size_t size = o->sizes[i];
		if (o->chunk > size)
			cli_usage_error("--chunk: %s is larger than the size %s",
					ntm_format_size(o->chunk, need, sizeof need),
					ntm_format_size(size, s, sizeof s));
		size_t needed = memory_needed(o, size);
		if (needed > budget) {
			char why[160];
			snprintf(why, sizeof why,
				 "needs %s of memory, %s available",
				 ntm_format_size(needed, need, sizeof need),
				 ntm_format_size(budget, have, sizeof have));
			if (o->sizes_given)
				cli_usage_error("--size: %s: %s",
						ntm_format_size(size, s, sizeof s), why);
			add_skip(o, ntm_format_size(size, s, sizeof s), why);
			continue;
		}
		o->sizes[kept++] = size;
	}
	o->nsizes = kept;

	if (o->cpu < 0)
		o->cpu = current_cpu();
	if (o->cpu >= 0 && pin_to_cpu(o->cpu))
		cli_usage_error("--cpu: cannot run on CPU %d", o->cpu);
}

/* One call of f over the whole buffer, in chunks if asked. */
static void call_once(const struct fn *f, unsigned char *dst,
		      const unsigned char *src, size_t size, size_t chunk,
		      int value)
{
	if (!chunk)
		chunk = size;
	for (size_t off = 0; off < size; off += chunk) {
		size_t n = size - off < chunk ? size - off : chunk;
		fn_run(f, dst + off, src ? src + off : NULL, n, value);
	}
}

double bench_run(const struct fn *f, unsigned char *dst,
		 const unsigned char *src, size_t size, size_t chunk,
		 int value, long loops)
{
	call_once(f, dst, src, size, chunk, value);
	uint64_t t0 = now_ns();
	for (long l = 0; l < loops; l++)
		call_once(f, dst, src, size, chunk, value);
	uint64_t t = now_ns() - t0;
	return (double)size * (double)loops / (double)(t ? t : 1);
}

long bench_auto_loops(const struct fn *f, unsigned char *dst,
		      const unsigned char *src, size_t size, size_t chunk,
		      int value, double min_ns)
{
	/* Grow the count until a run lasts a quarter of the target, then
	 * scale: one cold first call would overestimate its own time. */
	call_once(f, dst, src, size, chunk, value);
	long loops = 1;
	for (;;) {
		uint64_t t0 = now_ns();
		for (long l = 0; l < loops; l++)
			call_once(f, dst, src, size, chunk, value);
		double ns = (double)(now_ns() - t0);
		if (ns >= min_ns / 4 || loops >= 1000000) {
			double want = ceil((double)loops * min_ns / (ns > 0 ? ns : 1));
			return want < 1 ? 1 : want > 1e6 ? 1000000 : (long)want;
		}
		loops *= 4;
	}
}

static void fill_source(unsigned char *src, size_t len, int value)
{
	if (value >= 0)
		memset(src, value, len);
	else
		fill_random(src, len);
}

static void progress(const struct bench_opts *o, size_t done, size_t total,
		     size_t size, const char *fn, long run)
{
	if (!o->progress)
		return;
	char s[32];
	fprintf(stderr, "\r\033[K[%zu/%zu] %s %s %s run %ld/%ld", done, total,
		o->op == NTMEM_OP_SET ? "memset" : "memcpy",
		ntm_format_size(size, s, sizeof s), fn, run, o->runs);
	fflush(stderr);
}

int bench_measure(struct bench_opts *o)
{
	size_t total = o->nsizes * o->nfns * (size_t)o->runs, done = 0;
	o->nresults = 0;
	for (size_t si = 0; si < o->nsizes; si++) {
		size_t size = o->sizes[si];
		struct buffer dst, src;
		char why[160], s[32];
		if (buffer_alloc(&dst, size, o->pages, why, sizeof why)) {
			add_skip(o, ntm_format_size(size, s, sizeof s), why);
			continue;
		}
		int copy = o->op == NTMEM_OP_COPY;
		if (copy && buffer_alloc(&src, size, o->pages, why, sizeof why)) {
			buffer_free(&dst);
			add_skip(o, ntm_format_size(size, s, sizeof s), why);
			continue;
		}
		if (copy)
			fill_source(src.p, size, o->value);

		size_t first = o->nresults;
		int value = o->value < 0 ? 0 : o->value;
		const unsigned char *from = copy ? src.p : NULL;
		long loops[BENCH_MAX_FNS];
		for (size_t fi = 0; fi < o->nfns; fi++)
			loops[fi] = o->loops ? o->loops
					     : bench_auto_loops(&o->fns[fi], dst.p, from,
								size, o->chunk, value,
								BENCH_MIN_RUN_NS);
		double gbps[BENCH_MAX_FNS][BENCH_MAX_RUNS];
		/* Interleave: every function once per run, so drift over the
		 * run hits all of them alike; and start each run one function
		 * later, so none always follows the same neighbour. */
		for (long r = 0; r < o->runs; r++)
			for (size_t k = 0; k < o->nfns; k++) {
				size_t fi = (k + (size_t)r) % o->nfns;
				progress(o, ++done, total, size, o->fns[fi].name, r + 1);
				gbps[fi][r] = bench_run(&o->fns[fi], dst.p, from, size,
							o->chunk, value, loops[fi]);
			}
		for (size_t fi = 0; fi < o->nfns; fi++) {
			struct bench_result *res = &o->results[o->nresults++];
			res->fn = &o->fns[fi];
			res->size = size;
			res->loops = loops[fi];
			res->nontemporal = fn_streams(res->fn, o->chunk ? o->chunk : size,
						     value);
			res->stats = stats_of(gbps[fi], (size_t)o->runs);
			snprintf(res->pages, sizeof res->pages, "%s", dst.obtained);
		}
		double base = o->results[first + (size_t)o->baseline].stats.mean;
		for (size_t i = first; i < o->nresults; i++)
			o->results[i].diff_pct = (o->results[i].stats.mean / base - 1) * 100;
		buffer_free(&dst);
		if (copy)
			buffer_free(&src);
	}
	if (o->progress)
		fprintf(stderr, "\r\033[K");
	return 0;
}

static const char *op_name(const struct bench_opts *o)
{
	return o->op == NTMEM_OP_SET ? "memset" : "memcpy";
}

static const char *streams_text(int s)
{
	return s < 0 ? "?" : s ? "yes" : "no";
}

static void value_text(const struct bench_opts *o, char *buf, size_t len)
{
	if (o->value < 0)
		snprintf(buf, len, "source of random bytes");
	else if (o->op == NTMEM_OP_SET)
		snprintf(buf, len, "0x%02x written", o->value);
	else
		snprintf(buf, len, "source of bytes 0x%02x", o->value);
}

/* The page backing obtained, if the same for every size. */
static const char *pages_obtained(const struct bench_opts *o)
{
	for (size_t i = 1; i < o->nresults; i++)
		if (strcmp(o->results[i].pages, o->results[0].pages))
			return "varies by size (see the pages column)";
	return o->nresults ? o->results[0].pages : "none (nothing ran)";
}

static void print_table(const struct bench_opts *o, const struct machine *m)
{
	char value[64], chunk[32], s[32];
	value_text(o, value, sizeof value);
	char calls[64];
	if (o->loops)
		snprintf(calls, sizeof calls, "%ld call%s", o->loops,
			 o->loops == 1 ? "" : "s");
	else
		snprintf(calls, sizeof calls, "%s", "calls for about 20 ms");
	printf("# ntmem bench %s: GB/s (10^9 bytes/s), mean and sample stdev of "
	       "%ld run%s, each %s after an untimed call\n", op_name(o), o->runs,
	       o->runs == 1 ? "" : "s", calls);
	printf("# cpu       %s, %u online, pinned to CPU %d\n", m->cpu,
	       m->online_cpus, o->cpu);
	printf("# kernel    %s, THP %s\n", m->kernel, m->thp);
	printf("# pages     %s requested, %s\n", page_request_name(o->pages),
	       pages_obtained(o));
	printf("# value     %s\n", value);
	if (o->chunk)
		printf("# chunk     %s per call\n",
		       ntm_format_size(o->chunk, chunk, sizeof chunk));
	printf("# baseline  %s\n\n", o->fns[o->baseline].name);

	int varied = strstr(pages_obtained(o), "varies") != NULL;
	printf("%10s  %-11s %-4s %9s  %-10s %9s%s\n", "size", "function", "NT",
	       "GB/s", "(stdev)", "diff", varied ? "  pages" : "");
	size_t last = SIZE_MAX;
	for (size_t i = 0; i < o->nresults; i++) {
		const struct bench_result *r = &o->results[i];
		if (r->size != last && last != SIZE_MAX)
			printf("\n");
		char diff[32];
		if (r->fn == &o->fns[o->baseline])
			snprintf(diff, sizeof diff, "-");
		else
			snprintf(diff, sizeof diff, "%+.2f%%", r->diff_pct);
		printf("%10s  %-11s %-4s %9.2f  (+- %5.2f) %9s%s%s\n",
		       r->size != last ? ntm_format_size(r->size, s, sizeof s) : "",
		       r->fn->name, streams_text(r->nontemporal), r->stats.mean,
		       r->stats.stdev, diff, varied ? "  " : "",
		       varied ? r->pages : "");
		last = r->size;
	}
	for (size_t i = 0; i < o->nskipped; i++)
		printf("%s# skipped %s: %s\n", i ? "" : "\n", o->skipped[i].what,
		       o->skipped[i].why);
}

static void print_json(const struct bench_opts *o, const struct machine *m)
{
	char value[64];
	value_text(o, value, sizeof value);
	struct json j;
	json_start(&j, stdout);
	json_string(&j, "command", "bench");
	json_string(&j, "op", op_name(o));
	json_string(&j, "version", ntmem_version());
	json_object(&j, "machine");
	json_string(&j, "cpu", m->cpu);
	json_string(&j, "kernel", m->kernel);
	json_string(&j, "thp", m->thp);
	json_uint(&j, "online_cpus", m->online_cpus);
	json_uint(&j, "mem_available", m->mem_available);
	json_end(&j);
	json_object(&j, "settings");
	json_uint(&j, "runs", (uint64_t)o->runs);
	if (o->loops)
		json_uint(&j, "loops", (uint64_t)o->loops);
	else
		json_string(&j, "loops", "auto");
	json_uint(&j, "chunk", o->chunk);
	json_string(&j, "page_request", page_request_name(o->pages));
	json_string(&j, "pages_obtained", pages_obtained(o));
	if (o->value < 0)
		json_null(&j, "value");
	else
		json_uint(&j, "value", (uint64_t)o->value);
	json_string(&j, "value_text", value);
	json_string(&j, "baseline", o->fns[o->baseline].name);
	json_int(&j, "cpu", o->cpu);
	json_end(&j);
	json_array(&j, "results");
	for (size_t i = 0; i < o->nresults; i++) {
		const struct bench_result *r = &o->results[i];
		json_object(&j, NULL);
		json_string(&j, "op", op_name(o));
		json_string(&j, "function", r->fn->name);
		if (r->nontemporal < 0)
			json_null(&j, "nontemporal");
		else
			json_bool(&j, "nontemporal", r->nontemporal);
		json_uint(&j, "size", r->size);
		json_uint(&j, "runs", (uint64_t)o->runs);
		json_uint(&j, "loops", (uint64_t)r->loops);
		json_double(&j, "gbps_mean", r->stats.mean);
		json_double(&j, "gbps_stdev", r->stats.stdev);
		json_double(&j, "gbps_median", r->stats.median);
		json_double(&j, "gbps_min", r->stats.min);
		json_double(&j, "gbps_max", r->stats.max);
		json_double(&j, "diff_pct", r->diff_pct);
		json_string(&j, "pages", r->pages);
		json_end(&j);
	}
	json_end(&j);
	json_array(&j, "skipped");
	for (size_t i = 0; i < o->nskipped; i++) {
		json_object(&j, NULL);
		json_string(&j, "what", o->skipped[i].what);
		json_string(&j, "reason", o->skipped[i].why);
		json_end(&j);
	}
	json_end(&j);
	json_finish(&j);
}

static void print_csv(const struct bench_opts *o)
{
	printf("op,function,nontemporal,size,runs,gbps_mean,gbps_stdev,"
	       "gbps_median,gbps_min,gbps_max,diff_pct,pages\n");
	for (size_t i = 0; i < o->nresults; i++) {
		const struct bench_result *r = &o->results[i];
		printf("%s,%s,%s,%zu,%ld,%.4f,%.4f,%.4f,%.4f,%.4f,%.4f,\"%s\"\n",
		       op_name(o), r->fn->name,
		       r->nontemporal < 0 ? "" : r->nontemporal ? "true" : "false",
		       r->size, o->runs, r->stats.mean, r->stats.stdev,
		       r->stats.median, r->stats.min, r->stats.max, r->diff_pct,
		       r->pages);
	}
}

static int write_plot(const struct bench_opts *o, const struct machine *m,
		      FILE *f)
{
	static double xs[BENCH_MAX_FNS][BENCH_MAX_SIZES], ys[BENCH_MAX_FNS][BENCH_MAX_SIZES];
	struct plot_series series[BENCH_MAX_FNS];
	for (size_t fi = 0; fi < o->nfns; fi++) {
		size_t n = 0;
		int streaming = 1;
		for (size_t i = 0; i < o->nresults; i++)
			if (o->results[i].fn == &o->fns[fi]) {
				xs[fi][n] = (double)o->results[i].size;
				ys[fi][n++] = o->results[i].stats.mean;
				streaming &= o->results[i].nontemporal == 1;
			}
		series[fi] = (struct plot_series){o->fns[fi].name, n, xs[fi],
						  ys[fi], streaming};
	}
	char title[64], subtitle[512], value[64];
	value_text(o, value, sizeof value);
	snprintf(title, sizeof title, "ntmem bench %s", op_name(o));
	snprintf(subtitle, sizeof subtitle,
		 "%s, %s; %s; %s; dashed lines stream", m->cpu, m->kernel,
		 pages_obtained(o), value);
	struct plot p = {title, subtitle, "size", "GB/s (10^9 bytes/s)",
			 AXIS_LOG2_BYTES, AXIS_LINEAR, series, o->nfns};
	return svg_plot(f, &p);
}

int cmd_bench(int argc, char **argv)
{
	static struct bench_opts o;
	bench_parse(argc, argv, &o);
	struct cli_output plot;
	if (o.plot)
		cli_output_open(&plot, "--plot", o.plot);
	o.progress = cli_progress_wanted();

	bench_measure(&o);

	struct machine m;
	machine_facts(&m);
	if (o.json)
		print_json(&o, &m);
	else if (o.csv)
		print_csv(&o);
	else
		print_table(&o, &m);
	/* The plot appears only if everything else was written. */
	if (fflush(stdout) || ferror(stdout))
		cli_fail("cannot write the results to standard output");
	if (o.plot) {
		if (write_plot(&o, &m, plot.f))
			cli_fail("--plot: nothing was measured, so no plot");
		if (cli_output_commit(&plot))
			cli_fail("--plot: cannot write '%s'", o.plot);
	}
	return 0;
}
