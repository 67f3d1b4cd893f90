/* bench.c - "ntmem bench": memset/memcpy bandwidth of every function, in
 * the style of perf bench mem, measured side by side in one run.  The
 * reports are in bench_report.c, the runner in benchfn.c. */
#define _GNU_SOURCE
#include "bench.h"

#include <getopt.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include "measure/benchfn.h"
#include "commands.h"
#include "util/size.h"


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
		"  -s, --size LIST       sizes, comma-separated: a bare number is bytes;\n"
		"                        units B, KB, MB, GB, TB or KiB ... TiB, all\n"
		"                        powers of 1024, may have a fraction (1.5GB);\n"
		"                        default 2MB,16MB,128MB,1024MB,4096MB\n"
		"  -f, --function LIST   functions to run, 'all' (default: ntmem's and\n"
		"                        glibc), or 'help' to list them; the peers run\n"
		"                        when named: 'shim' (libntmem-preload.so's own),\n"
		"                        'pmem' and 'pmem_default' (PMDK libpmem's)\n"
		"      --mix NAME|FILE   instead of sizes, time calls of sizes drawn\n"
		"                        from a distribution: a bundled one ('help'\n"
		"                        lists them, 'all' runs each), a CSV of\n"
		"                        probabilities per size, or the JSON of 'ntmem\n"
		"                        run --report-json'; ns per call and GB/s\n"
		"  -l, --nr_loops N      calls per timed run (default: enough for each\n"
		"                        run to last about 20 ms)\n"
		"  -r, --runs N          timed runs, each after untimed calls of the\n"
		"                        same function: an eighth as many, and enough\n"
		"                        to move twice the last-level cache (default 5)\n"
		"  -p, --page SIZE       4KB (default), 2MB or 1GB: hugetlb pages of that\n"
		"                        size if reserved, else THP; the header says\n"
		"                        what was obtained\n"
		"  -k, --chunk SIZE      clear or copy the buffer in pieces of SIZE\n"
		"      --value BYTE      byte memset writes, or memcpy's source holds\n"
		"                        (default 0 for memset, random bytes for memcpy)\n"
		"      --learned         measure auto after it has learned: first,\n"
		"                        at each size it learns at (from 1 MiB), up\n"
		"                        to 100 ms of the C library's calls on the\n"
		"                        buffers, then as many untimed calls as it\n"
		"                        serves before its first trial, and one\n"
		"                        trial (the header says how many; ntmem(3),\n"
		"                        Learning on real calls)\n"
		"      --baseline FUNC   function the diff column compares with\n"
		"                        (default: the best string instruction, rep\n"
		"                        stosb or rep movsb, else glibc)\n"
		"      --cpu N           pin to CPU N (default: the CPU it starts on)\n"
		"      --threads LIST    run each function on N threads, for each N\n"
		"                        in LIST ('all': every CPU allowed; more is\n"
		"                        refused); auto as NTMEM_F_PARALLEL calls, the\n"
		"                        others split into N parts on N pinned\n"
		"                        threads (default 1)\n"
		"      --json            one JSON object on stdout instead of the table\n"
		"      --csv             CSV on stdout instead of the table\n"
		"      --plot FILE.svg   also plot GB/s against size (see ntmem(1) for\n"
		"                        how links, devices and FIFOs are written)\n"
		"  -h, --help            show this help\n"
		"\n"
		"GB/s is 10^9 bytes per second.  Streaming calls are timed with\n"
		"their SFENCE.  Exit status: 0 ok, 1 the run failed, 2 bad usage.\n");
}

/* ------------------------------------------------------------------ */
/* Parsing: the command line only                                      */
/* ------------------------------------------------------------------ */

enum { OPT_VALUE = 256, OPT_BASELINE, OPT_CPU, OPT_JSON, OPT_CSV, OPT_PLOT,
       OPT_THREADS, OPT_MIX, OPT_LEARNED };

static const struct option long_options[] = {
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
	{"threads", required_argument, NULL, OPT_THREADS},
	{"mix", required_argument, NULL, OPT_MIX},
	{"learned", no_argument, NULL, OPT_LEARNED},
	{"help", no_argument, NULL, 'h'},
	{NULL, 0, NULL, 0},
};

/* --threads LIST into o->threads: counts from 1 to 64, or "all", kept as
 * 0 until bench_plan() knows the CPUs the process may use. */
static int parse_threads(struct bench_opts *o, const char *arg,
			 struct cli_error *e)
{
	char buf[256], *items[BENCH_MAX_THREADS];
	size_t n;
	if (cli_parse_list("--threads", arg, buf, sizeof buf, items,
			   BENCH_MAX_THREADS, &n, e))
		return -1;
	o->nthreads = 0;
	for (size_t i = 0; i < n; i++) {
		long t = 0;
		if (strcmp(items[i], "all") &&
		    cli_parse_long("--threads", items[i], 1, 64, &t, e))
			return -1;
		o->threads[o->nthreads++] = (unsigned)t;
	}
	return 0;
}

/* One option c with its argument into *o. */
static int parse_option(void *ctx, int c, const char *arg, char **argv,
			struct cli_error *e)
{
	struct bench_opts *o = ctx;
	switch (c) {
	case 's':
		o->sizes_given = 1;
		return cli_parse_size_list("--size", arg, o->sizes, BENCH_MAX_SIZES,
					   &o->nsizes, e);
	case 'f':
		o->functions = arg;
		return 0;
	case 'l':
		return cli_parse_long("--nr_loops", arg, 1, BENCHFN_MAX_LOOPS,
				      &o->loops, e);
	case 'r':
		return cli_parse_long("--runs", arg, 1, BENCH_MAX_RUNS, &o->runs, e);
	case 'p':
		if (page_request_parse(arg, &o->pages))
			return cli_error(e, CLI_USAGE, "--page: '%s': use 4KB, 2MB or "
					 "1GB", arg);
		return 0;
	case 'k':
		if (cli_parse_size("--chunk", arg, &o->chunk, e))
			return -1;
		if (o->chunk == 0)
			return cli_error(e, CLI_USAGE, "--chunk: must be at least 1 byte");
		return 0;
	case OPT_VALUE:
		return cli_parse_byte("--value", arg, &o->value, e);
	case OPT_BASELINE:
		o->baseline_name = arg;
		return 0;
	case OPT_CPU:
		return cli_parse_cpu("--cpu", arg, &o->cpu, e);
	case OPT_JSON:
		o->json = 1;
		return 0;
	case OPT_CSV:
		o->csv = 1;
		return 0;
	case OPT_PLOT:
		o->plot = arg;
		return 0;
	case OPT_THREADS:
		return parse_threads(o, arg, e);
	case OPT_MIX:
		o->mix = arg;
		return 0;
	case OPT_LEARNED:
		o->learned = 1;
		return 0;
	default:
		return cli_common_option(c, argv, &o->help, e);
	}
}

/* A mix has no size, chunk or plot of its own, and runs on one thread. */
static int check_mix_options(const struct bench_opts *o, struct cli_error *e)
{
	const char *other = o->sizes_given ? "--size" : o->chunk ? "--chunk"
			    : o->csv ? "--csv" : o->plot ? "--plot"
			    : o->nthreads > 1 || (o->nthreads && o->threads[0] != 1)
				  ? "--threads" : o->learned ? "--learned" : NULL;
	if (other)
		return cli_error(e, CLI_USAGE, "--mix and %s: a mix draws its own "
				 "sizes, one call at a time, on one thread, reported "
				 "as a table or --json", other);
	return 0;
}

int bench_parse(int argc, char **argv, struct bench_opts *o,
		struct cli_error *e)
{
	memset(o, 0, sizeof *o);
	o->runs = 5;
	o->value = -1;
	o->cpu = -1;
	o->functions = "all";
	if (argc < 2 || argv[1][0] == '-') {
		if (argc >= 2 && (!strcmp(argv[1], "-h") || !strcmp(argv[1], "--help"))) {
			o->help = 1;
			return 0;
		}
		return cli_error(e, CLI_USAGE, "which benchmark? 'memset' or 'memcpy'");
	}
	if (!strcmp(argv[1], "memset"))
		o->op = NTMEM_OP_SET;
	else if (!strcmp(argv[1], "memcpy"))
		o->op = NTMEM_OP_COPY;
	else
		return cli_error(e, CLI_USAGE, "unknown benchmark '%s' (memset or "
				 "memcpy)", argv[1]);
	argc--;
	argv++;

	if (cli_getopt(argc, argv, ":s:f:l:r:p:k:h", long_options, parse_option, o,
		       &o->help, e))
		return -1;
	if (o->help)
		return 0;
	if (o->json && o->csv)
		return cli_error(e, CLI_USAGE, "--json and --csv: choose one");
	if (o->mix && check_mix_options(o, e))
		return -1;
	o->list = !strcmp(o->functions, "help");
	if (!o->nthreads) {
		o->threads[0] = 1;
		o->nthreads = 1;
	}
	return 0;
}

/* ------------------------------------------------------------------ */
/* Planning                                                            */
/* ------------------------------------------------------------------ */

/* f joins the run if it can run here, else is noted as skipped. */
static void add_function(struct bench_opts *o, const struct fn *f)
{
	if (fn_find(o->fns, o->nfns, f->name))
		return;
	if (f->supported)
		o->fns[o->nfns++] = *f;
	else
		bench_add_skip(o, f->name, f->why_unsupported);
}

/* "all" is ntmem's own functions and glibc, the first nown of all[];
 * the peers after them run when named. */
static int plan_functions(struct bench_opts *o, const struct fn *all,
			  size_t nown, size_t nall, struct cli_error *e)
{
	if (!strcmp(o->functions, "all")) {
		for (size_t i = 0; i < nown; i++)
			add_function(o, &all[i]);
		return 0;
	}
	char buf[1024];
	char *names[FN_MAX];
	size_t n;
	if (cli_parse_list("--function", o->functions, buf, sizeof buf, names,
			   FN_MAX, &n, e))
		return -1;
	for (size_t i = 0; i < n; i++) {
		const struct fn *f = fn_find(all, nall, names[i]);
		if (!f)
			return cli_error(e, CLI_USAGE, "--function: unknown function "
					 "'%s' (see -f help)", names[i]);
		add_function(o, f);
	}
	return 0;
}

/* The baseline must run; it joins the run, in front, when not in it. */
static int plan_baseline(struct bench_opts *o, const struct fn *all,
			 size_t nall, struct cli_error *e)
{
	const char *name = o->baseline_name;
	const struct fn *b;
	if (name) {
		b = fn_find(all, nall, name);
		if (!b)
			return cli_error(e, CLI_USAGE, "--baseline: unknown function "
					 "'%s'", name);
		if (!b->supported)
			return cli_error(e, CLI_USAGE, "--baseline: %s cannot run here: "
					 "%s", name, b->why_unsupported);
		if (b->zero_only && o->value > 0)
			return cli_error(e, CLI_USAGE, "--baseline: %s writes zeros "
					 "only; --value is %#x", name, o->value);
	} else if (o->mix) {
		/* What a program's calls go to unless it takes ntmem's. */
		b = fn_of_kind(all, nall, FN_LIBC);
	} else {
		b = fn_best(all, nall, NTMEM_ROLE_STRING, 0);
		if (!b)
			b = fn_of_kind(all, nall, FN_LIBC);
	}
	if (!fn_find(o->fns, o->nfns, b->name)) {
		memmove(o->fns + 1, o->fns, o->nfns * sizeof o->fns[0]);
		o->fns[0] = *b;
		o->nfns++;
	}
	o->baseline = fn_find(o->fns, o->nfns, b->name) - o->fns;
	return 0;
}

/* A zero-only function cannot write another value: skipped, noted. */
static void drop_zero_only(struct bench_opts *o)
{
	if (o->op != NTMEM_OP_SET || o->value == 0)
		return;
	for (size_t i = 0; i < o->nfns; i++) {
		if (!o->fns[i].zero_only)
			continue;
		char why[96];
		snprintf(why, sizeof why, "writes zeros only; --value is %#x", o->value);
		bench_add_skip(o, o->fns[i].name, why);
		memmove(o->fns + i, o->fns + i + 1, (o->nfns - i - 1) * sizeof o->fns[0]);
		o->nfns--;
		if ((size_t)o->baseline > i)
			o->baseline--;
		i--;
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

/* Explicit sizes must fit; default ones are skipped, with a note, if not. */
static int plan_sizes(struct bench_opts *o, struct cli_error *e)
{
	if (!o->sizes_given) {
		o->nsizes = sizeof default_sizes / sizeof default_sizes[0];
		memcpy(o->sizes, default_sizes, sizeof default_sizes);
	}
	size_t budget = memory_budget(), kept = 0;
	for (size_t i = 0; i < o->nsizes; i++) {
		char s[32], need[32], have[32], why[160];
		size_t size = o->sizes[i];
		if (o->chunk > size)
			return cli_error(e, CLI_USAGE, "--chunk: %s is larger than the "
					 "size %s",
					 ntm_format_size(o->chunk, need, sizeof need),
					 ntm_format_size(size, s, sizeof s));
		size_t needed = memory_needed(o, size);
		if (needed <= budget) {
			o->sizes[kept++] = size;
			continue;
		}
		snprintf(why, sizeof why, "needs %s of memory, %s available",
			 ntm_format_size(needed, need, sizeof need),
			 ntm_format_size(budget, have, sizeof have));
		if (o->sizes_given)
			return cli_error(e, CLI_USAGE, "--size: %s: %s",
					 ntm_format_size(size, s, sizeof s), why);
		bench_add_skip(o, ntm_format_size(size, s, sizeof s), why);
	}
	o->nsizes = kept;
	return 0;
}

int bench_plan(struct bench_opts *o, struct cli_error *e)
{
	struct fn all[FN_MAX];
	size_t nown = fn_list(o->op, all, FN_MAX), nall = nown;
	/* The peers are opened (dlopen) only for a run that may name them. */
	if (strcmp(o->functions, "all") || o->baseline_name)
		nall = fn_list_peers(o->op, all, nown, FN_MAX);
	o->nfns = o->nskipped = 0;
	if (plan_functions(o, all, nown, nall, e) || plan_baseline(o, all, nall, e))
		return -1;
	if (o->value < 0)
		o->value = o->op == NTMEM_OP_SET ? 0 : -1;  /* -1: random source */
	drop_zero_only(o);
	/* "all" is known only now: the CPUs this process may use.  More
	 * threads than those would share CPUs and time the scheduler, not
	 * the stores (3 threads on 2 CPUs ran at a fifth of one thread's
	 * rate): refused, not measured. */
	struct ntmem_parallel_info pi;
	ntmem_parallel_info(&pi);
	for (size_t i = 0; i < o->nthreads; i++) {
		char may[256];
		if (!o->threads[i])
			o->threads[i] = pi.cpus_allowed ? pi.cpus_allowed : 1;
		if (pi.cpus_allowed && o->threads[i] > pi.cpus_allowed)
			return cli_error(e, CLI_USAGE, "--threads: %u is more than the "
					 "%u CPUs this process may use (%s); threads "
					 "sharing a CPU measure the scheduler",
					 o->threads[i], pi.cpus_allowed,
					 allowed_cpus_text(may, sizeof may));
	}
	if (o->mix) {
		o->nsizes = 0;  /* the mix draws its own */
		return 0;
	}
	return plan_sizes(o, e);
}

int bench_pin(struct bench_opts *o, struct cli_error *e)
{
	char allowed[256];
	if (pin_here(&o->cpu))
		return cli_error(e, CLI_USAGE, "--cpu: cannot run on CPU %d (this "
				 "process may use %s)", o->cpu,
				 allowed_cpus_text(allowed, sizeof allowed));
	return 0;
}

/* ------------------------------------------------------------------ */
/* The command                                                         */
/* ------------------------------------------------------------------ */

/* Everything up to the measurement; 1 when help was all that was asked. */
static int setup(int argc, char **argv, struct bench_opts *o,
		 struct cli_output *plot, struct cli_error *e)
{
	if (bench_parse(argc, argv, o, e))
		return -1;
	if (o->help) {
		usage(stdout);
		return 1;
	}
	if (o->list) {
		bench_list_functions(o->op);
		return 1;
	}
	if (o->mix && !strcmp(o->mix, "help")) {
		bench_mix_list(o->op);
		return 1;
	}
	if (bench_plan(o, e) || (o->mix && bench_mix_setup(o, e)) ||
	    bench_pin(o, e))
		return -1;
	/* The plot's target is checked now, not after minutes of measuring. */
	return o->plot ? cli_output_open(plot, "--plot", o->plot, e) : 0;
}

int cmd_bench(int argc, char **argv)
{
	static struct bench_opts o;
	struct cli_output plot;
	struct cli_error e;
	int r = setup(argc, argv, &o, &plot, &e);
	if (r < 0)
		cli_exit(&e);
	if (r > 0)
		return 0;
	o.progress = cli_progress_wanted();
	if (o.mix)
		return bench_mix_run(&o);
	if (bench_measure(&o, &e))
		cli_exit(&e);

	struct machine m;
	machine_facts(&m);
	if (o.json)
		bench_print_json(&o, &m);
	else if (o.csv)
		bench_print_csv(&o);
	else
		bench_print_table(&o, &m);
	cli_output_finish(o.plot ? &plot : NULL,
			  o.plot && bench_write_plot(&o, &m, plot.f));
	return 0;
}
