/* pollution_opts.c - "ntmem pollution": its help, and reading its
 * command line (nothing is chosen or checked against the machine here:
 * pollution_plan.c does that). */
#define _GNU_SOURCE
#include <getopt.h>
#include <sched.h>
#include <stdio.h>
#include <string.h>

#include "pollution_opts.h"
#include "util/size.h"

void pol_usage(FILE *f)
{
	struct ntmem_cache_sizes c = pol_caches();
	size_t dv[MAX_VICTIMS];
	size_t n = pol_default_victims(&c, dv);
	char v[3][32] = {"", "", ""};
	for (size_t i = 0; i < n && i < 3; i++)
		ntm_format_size(dv[i], v[i], sizeof v[i]);
	fprintf(f,
"Usage: ntmem pollution [OPTIONS]\n"
"       ntmem pollution [OPTIONS] --victim -- COMMAND [ARG...]\n"
"Measure what each clear/copy method costs other data's cache, and what\n"
"streaming costs the next reader of the data it wrote.  With --victim --\n"
"COMMAND the victim is your program: it runs pinned on --victim-cpu, alone\n"
"and while each function clears or copies --size bytes over and over on\n"
"--cpu; its time beside each against its time alone (--mode, --hot,\n"
"--pages, --lookups, --rounds and --plot do not apply).\n"
"\n"
"Modes:\n"
"  after         one pass over a warm victim right after one aggressor call,\n"
"                against a warm pass with no aggressor before it\n"
"  concurrent    the victim chases on another CPU while the aggressor runs,\n"
"                against its rate alone\n"
"  reread        right after the aggressor, read the last part of the\n"
"                destination back, against the same read after a write with\n"
"                plain cached stores\n"
"  mixed         one thread alternates aggressor calls with lookups in a hot\n"
"                table; total time per method\n"
"\n"
"Options:\n"
"  -m, --mode LIST       after,concurrent,reread,mixed or all (default all)\n"
"  -o, --op LIST         memset,memcpy (default both)\n"
"  -f, --function LIST   functions to compare, for each operation that has\n"
"                        them; 'streaming' and 'cached' name the policy's\n"
"                        variants; '-f help' lists them (default: glibc,\n"
"                        the best string instruction (rep stosb, rep movsb),\n"
"                        the policy's streaming variant, auto, and the\n"
"                        cached vector loop reread compares with); 'hinted'\n"
"                        is auto with its last --hot bytes written last,\n"
"                        cached (ntmem_set_opts' hot region); 'streamread'\n"
"                        streams everything, then reads the last --hot\n"
"                        bytes: what caching them costs, however done\n"
"      --hot SIZE        the hot region of hinted and streamread (default\n"
"                        1MiB); give --victim the same size for reread to\n"
"                        read exactly that\n"
"  -s, --size SIZE       bytes per aggressor call (default 256MiB)\n"
"      --victim LIST     victim working-set sizes (default: half of L1d, of\n"
"                        L2 and of the per-CPU LLC share;\n"
"                        here %s%s%s%s%s)\n"
"      --victim -- COMMAND [ARG...]\n"
"                        the victim is COMMAND; the options end here\n"
"      --pages SIZE      victim page size: 2MB (default), 4KB or 1GB\n"
"  -r, --runs N          repeat every measurement, report medians (default %d)\n"
"      --lookups N       mixed: table lookups after each call (default %d)\n"
"      --rounds N        mixed: aggressor calls per run (default %d)\n"
"      --cpu N           CPU of the aggressor, and of the victim in after,\n"
"                        reread and mixed (default: the first allowed)\n"
"      --victim-cpu N    CPU of the concurrent victim (default: the next)\n"
"      --json            write JSON to stdout instead of the table\n"
"      --plot FILE.svg   plot slowdown against victim size\n"
"  -h, --help            show this help\n"
"\n"
"Cache-miss and cache-reference counts come from perf_event_open(2) where the\n"
"kernel allows it, and read \"unavailable\" with the reason where it does not;\n"
"NTMEM_NO_PERF=1 turns them off.  Exit status: 0 done, 1 the run failed,\n"
"2 bad arguments or an impossible request.  See ntmem(1).\n",
		v[0], v[1][0] ? "," : "", v[1], v[2][0] ? "," : "", v[2],
		DEFAULT_RUNS, DEFAULT_LOOKUPS, DEFAULT_ROUNDS);
}

static const struct option long_options[] = {
	{"mode", required_argument, NULL, 'm'},
	{"op", required_argument, NULL, 'o'},
	{"function", required_argument, NULL, 'f'},
	{"size", required_argument, NULL, 's'},
	{"victim", required_argument, NULL, 'V'},
	{"hot", required_argument, NULL, 'H'},
	{"pages", required_argument, NULL, 'P'},
	{"runs", required_argument, NULL, 'r'},
	{"lookups", required_argument, NULL, 'L'},
	{"rounds", required_argument, NULL, 'R'},
	{"cpu", required_argument, NULL, 'c'},
	{"victim-cpu", required_argument, NULL, 'C'},
	{"json", no_argument, NULL, 'j'},
	{"plot", required_argument, NULL, 'p'},
	{"help", no_argument, NULL, 'h'},
	{NULL, 0, NULL, 0},
};

static int parse_modes(struct popts *o, const char *arg, struct cli_error *e)
{
	return cli_parse_bits("--mode", "mode", arg, pol_mode_names, NULL,
			      MODE_COUNT, &o->modes, e);
}

static int parse_ops(struct popts *o, const char *arg, struct cli_error *e)
{
	static const char *const aliases[NOPS] = {"set", "copy"};
	o->ops_given = 1;
	return cli_parse_bits("--op", "operation", arg, pol_op_names, aliases,
			      NOPS, &o->ops, e);
}

/* --function: kept for pol_plan, but '-f help' is a request of its own. */
static int parse_functions(struct popts *o, const char *arg, struct cli_error *e)
{
	char buf[1024], *items[64];
	size_t n;
	if (cli_parse_list("--function", arg, buf, sizeof buf, items, 64, &n, e))
		return -1;
	o->fn_arg = arg;
	for (size_t i = 0; i < n; i++)
		o->list |= !strcmp(items[i], "help");
	return 0;
}

static int parse_victims(struct popts *o, const char *arg, struct cli_error *e)
{
	if (cli_parse_size_list("--victim", arg, o->victims, MAX_VICTIMS,
				&o->nvictims, e))
		return -1;
	for (size_t i = 0; i < o->nvictims; i++) {
		if (o->victims[i] < 2 * CHASE_LINE) {
			char s[32];
			return cli_error(e, CLI_USAGE, "--victim: '%s': a victim needs "
					 "at least two 64-byte lines",
					 ntm_format_size(o->victims[i], s, sizeof s));
		}
		o->victims[i] &= ~(size_t)(CHASE_LINE - 1);
	}
	return 0;
}

static int parse_option(void *ctx, int c, const char *arg, char **argv,
			struct cli_error *e)
{
	struct popts *o = ctx;
	switch (c) {
	case 'm': return parse_modes(o, arg, e);
	case 'o': return parse_ops(o, arg, e);
	case 'f': return parse_functions(o, arg, e);
	case 'V': return parse_victims(o, arg, e);
	case 'H':
		if (cli_parse_size("--hot", arg, &o->hot, e))
			return -1;
		return o->hot ? 0 : cli_error(e, CLI_USAGE, "--hot: '%s': at least "
					      "1 byte", arg);
	case 'c': return cli_parse_cpu("--cpu", arg, &o->cpu, e);
	case 'C': return cli_parse_cpu("--victim-cpu", arg, &o->victim_cpu, e);
	case 'r': return cli_parse_long("--runs", arg, 1, 1000, &o->runs, e);
	case 'L': return cli_parse_long("--lookups", arg, 1, 1L << 30, &o->lookups, e);
	case 'R': return cli_parse_long("--rounds", arg, 1, 100000, &o->rounds, e);
	case 's':
		if (cli_parse_size("--size", arg, &o->size, e))
			return -1;
		if (o->size < 4096)
			return cli_error(e, CLI_USAGE, "--size: '%s': the aggressor "
					 "needs at least 4 KiB", arg);
		return 0;
	case 'P':
		if (page_request_parse(arg, &o->pages))
			return cli_error(e, CLI_USAGE, "--pages: '%s': use 4KB, 2MB or "
					 "1GB", arg);
		return 0;
	case 'j':
		o->json = 1;
		return 0;
	case 'p':
		o->plot = arg;
		return *arg ? 0 : cli_error(e, CLI_USAGE, "--plot: empty file name");
	default:
		return cli_common_option(c, argv, &o->help, e);
	}
}

int pol_parse(int argc, char **argv, struct popts *o, struct cli_error *e)
{
	memset(o, 0, sizeof *o);
	o->size = DEFAULT_SIZE;
	o->runs = DEFAULT_RUNS;
	o->lookups = DEFAULT_LOOKUPS;
	o->rounds = DEFAULT_ROUNDS;
	o->cpu = o->victim_cpu = -1;
	o->pages = PAGES_2M;
	o->ops = (1u << NOPS) - 1;
	o->hot = DEFAULT_HOT;

	/* "--victim -- COMMAND": the command and its own options end ours. */
	for (int i = 1; i + 1 < argc; i++)
		if (!strcmp(argv[i], "--victim") && !strcmp(argv[i + 1], "--")) {
			if (i + 2 >= argc)
				return cli_error(e, CLI_USAGE, "--victim --: no command "
						 "given");
			o->command = argv + i + 2;
			argc = i;
			break;
		}
	if (cli_getopt(argc, argv, ":m:o:f:s:r:h", long_options, parse_option, o,
		       &o->help, e))
		return -1;
	if (o->command && (o->nvictims || o->plot))
		return cli_error(e, CLI_USAGE, "%s: not with --victim -- COMMAND",
				 o->plot ? "--plot" : "--victim SIZES");
	if (!o->modes)
		o->modes = (1u << MODE_COUNT) - 1;
	return 0;
}

void pol_describe(const struct popts *o, char *buf, size_t len)
{
	size_t at = 0;
#define PUT(...) do { if (at < len) at += (size_t)snprintf(buf + at, len - at, __VA_ARGS__); } while (0)
	PUT("modes=");
	for (int m = 0, k = 0; m < MODE_COUNT; m++)
		if (o->modes & (1u << m))
			PUT("%s%s", k++ ? "," : "", pol_mode_names[m]);
	PUT(" ops=");
	for (int op = 0, k = 0; op < NOPS; op++)
		if (o->ops & (1u << op))
			PUT("%s%s", k++ ? "," : "", pol_op_names[op]);
	for (int op = 0; op < NOPS; op++) {
		if (!(o->ops & (1u << op)))
			continue;
		PUT(" fn.%s=", pol_op_names[op]);
		for (size_t i = 0; i < o->nrun[op]; i++)
			PUT("%s%s", i ? "," : "", o->run[op][i]->name);
	}
	for (size_t i = 0; i < o->nskips; i++)
		PUT(" skip=%s%s%s", o->skips[i].mode >= 0
		    ? pol_mode_names[o->skips[i].mode] : pol_op_names[o->skips[i].op],
		    o->skips[i].mode >= 0 ? "" : ":", o->skips[i].name);
	PUT(" size=%zu hot=%zu victim=", o->size, o->hot);
	for (size_t i = 0; i < o->nvictims; i++)
		PUT("%s%zu", i ? "," : "", o->victims[i]);
	PUT(" pages=%s runs=%ld lookups=%ld rounds=%ld cpu=%d victim_cpu=%d json=%d plot=%s",
	    page_request_name(o->pages), o->runs, o->lookups, o->rounds, o->cpu,
	    o->victim_cpu, o->json, o->plot ? o->plot : "");
#undef PUT
}
