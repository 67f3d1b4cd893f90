/* pollution.c - "ntmem pollution": what a clear or copy costs everyone
 * else's cache, and what streaming costs the data's own next reader.
 *
 * The victim is a randomized pointer chase (chase.h) on huge pages where
 * the kernel gives them.  Four modes:
 *
 *   after       warm the victim, run the aggressor once, time one pass;
 *               against a warm pass with no aggressor before it.
 *   concurrent  the victim chases on another CPU; its rate while the
 *               aggressor runs against its rate alone.
 *   reread      right after the aggressor writes the destination, read its
 *               last part back; against the same read after a cached write.
 *   mixed       one thread alternates aggressor calls with lookups in a hot
 *               table; total time per method, and the lookup part.
 *
 * Every measurement is repeated --runs times with the functions taken in
 * a rotating order, and the medians are reported. */
#define _GNU_SOURCE
#include <errno.h>
#include <getopt.h>
#include <math.h>
#include <pthread.h>
#include <sched.h>
#include <stdatomic.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "chase.h"
#include "cli.h"
#include "commands.h"
#include "cpu.h"
#include "functions.h"
#include "json.h"
#include "measure.h"
#include "ntmem.h"
#include "perfcount.h"
#include "pollution.h"
#include "size.h"
#include "svg.h"


#define KiB ((size_t)1 << 10)
#define MiB ((size_t)1 << 20)

enum mode { MODE_AFTER, MODE_CONCURRENT, MODE_REREAD, MODE_MIXED, MODE_COUNT };

static const char *const mode_names[MODE_COUNT] = {
	"after", "concurrent", "reread", "mixed",
};

#define NOPS 2
static const char *const op_names[NOPS] = {"memset", "memcpy"};

#define MAX_VICTIMS 16
#define MAX_SKIPS (2 * FN_MAX + MODE_COUNT)
#define DEFAULT_SIZE (256 * MiB)
#define DEFAULT_RUNS 5
#define DEFAULT_LOOKUPS 262144
#define DEFAULT_ROUNDS 8
#define SEED 0x706f6c6c7574ull          /* the chase, the same every run */
#define WINDOW_NS 20000000ull           /* concurrent: shortest window */

struct skip {
	int mode;          /* a whole mode, or -1 */
	int op;            /* a function of op, or -1 */
	char name[32];
	char reason[200];
};

struct popts {
	unsigned modes;                     /* 1 << enum mode */
	unsigned ops;                       /* 1 << enum ntmem_op */
	struct fn fns[NOPS][FN_MAX];        /* fn_list, per op */
	size_t nfns[NOPS];
	const struct fn *run[NOPS][FN_MAX]; /* chosen and supported */
	size_t nrun[NOPS];
	const struct fn *reference[NOPS];   /* reread: the cached write */
	const struct fn *streaming[NOPS];   /* the verdict's streaming fn */
	const struct fn *cached[NOPS];      /* the verdict's cached fn */
	struct skip skips[MAX_SKIPS];
	size_t nskips;
	size_t size;
	size_t victims[MAX_VICTIMS];
	size_t nvictims;
	size_t verdict_victim;              /* the one nearest half the L2 */
	int victims_default;
	long runs, lookups, rounds;
	int cpu, victim_cpu;
	enum page_request pages;
	int json;
	const char *plot;
	int help, list;
	struct cache_info caches;
	struct machine m;
};

/* ------------------------------------------------------------------ */
/* Parsing                                                             */
/* ------------------------------------------------------------------ */

#define FAIL(...) do { snprintf(err, err_len, __VA_ARGS__); return -1; } while (0)

static void add_skip(struct popts *o, int mode, int op, const char *name,
		     const char *reason)
{
	if (o->nskips == MAX_SKIPS)
		return;
	struct skip *s = &o->skips[o->nskips++];
	s->mode = mode;
	s->op = op;
	snprintf(s->name, sizeof s->name, "%s", name ? name : "");
	snprintf(s->reason, sizeof s->reason, "%s", reason);
}

/* The entry of op's list for registry variant id, or NULL. */
static const struct fn *fn_of_variant(const struct popts *o, int op, int id)
{
	for (size_t i = 0; i < o->nfns[op]; i++)
		if (o->fns[op][i].kind == FN_VARIANT && o->fns[op][i].variant_id == id)
			return &o->fns[op][i];
	return NULL;
}

/* The policy's streaming variant, or its cached one at the aggressor's
 * size.  The aggressor clears (value 0), so a zero-only variant may run. */
static const struct fn *policy_fn(const struct popts *o, int op, int streaming)
{
	int id = ntmem_policy_choice((enum ntmem_op)op, 0, o->size,
				     streaming ? NTMEM_F_NONTEMPORAL
					       : NTMEM_F_TEMPORAL);
	if (id == NTMEM_SMALL_PATH || id < 0)
		return NULL;
	return fn_of_variant(o, op, id);
}

/* name for op: a function name, or the aliases "streaming" and "cached"
 * (the policy's variants).  NULL if op has no such function. */
static const struct fn *resolve(const struct popts *o, int op, const char *name)
{
	if (!strcmp(name, "streaming"))
		return policy_fn(o, op, 1);
	if (!strcmp(name, "cached"))
		return policy_fn(o, op, 0);
	return fn_find(o->fns[op], o->nfns[op], name);
}

/* The plain cached loop: ordinary stores that always allocate lines, the
 * reference a streaming write is compared with.  (rep stosb and rep movsb
 * are not: some CPUs stop allocating for extents above about the LLC.) */
static const struct fn *cached_loop(const struct popts *o, int op)
{
	static const enum ntmem_role roles[] = {NTMEM_ROLE_VECTOR,
						NTMEM_ROLE_PLAIN};
	for (size_t r = 0; r < sizeof roles / sizeof roles[0]; r++) {
		const struct fn *best = NULL;
		int best_rank = -1;
		for (size_t i = 0; i < o->nfns[op]; i++) {
			const struct fn *f = &o->fns[op][i];
			struct ntmem_variant_info v;
			if (f->kind != FN_VARIANT || !f->supported ||
			    ntmem_variant_info(f->variant_id, &v) ||
			    v.role != roles[r] || v.rank <= best_rank)
				continue;
			best = f;
			best_rank = v.rank;
		}
		if (best)
			return best;
	}
	return NULL;
}

static void add_run(struct popts *o, int op, const struct fn *f)
{
	if (!f)
		return;
	for (size_t i = 0; i < o->nrun[op]; i++)
		if (o->run[op][i] == f)
			return;
	if (!f->supported) {
		for (size_t i = 0; i < o->nskips; i++)
			if (o->skips[i].op == op && !strcmp(o->skips[i].name, f->name))
				return;
		add_skip(o, -1, op, f->name,
			 f->why_unsupported ? f->why_unsupported : "not supported here");
		return;
	}
	o->run[op][o->nrun[op]++] = f;
}

/* Default victims: half of L1d, of L2 and of the per-CPU LLC share.  A
 * victim as large as its level does not stay in it: code, stack, page
 * tables, a sibling thread and, with a cyclic chase, any one extra line in
 * a set evict it, so half is the working set that level really holds. */
static void default_victims(struct popts *o)
{
	struct cache_info c = o->caches;
	size_t l1 = c.l1d ? c.l1d : 32 * KiB;
	size_t l2 = c.l2 ? c.l2 : 512 * KiB;
	size_t share = c.l3 ? c.l3 / (c.l3_shared_by ? c.l3_shared_by : 1) : 0;
	if (!share)
		share = 8 * MiB;
	size_t v[3] = {l1 / 2, l2 / 2, share / 2};
	o->nvictims = 0;
	for (size_t i = 0; i < 3; i++) {
		size_t s = v[i] & ~(size_t)(CHASE_LINE - 1);
		if (s < 2 * CHASE_LINE)
			continue;
		if (o->nvictims && o->victims[o->nvictims - 1] >= s)
			continue;  /* keep them ascending and distinct */
		o->victims[o->nvictims++] = s;
	}
}

static int allowed_cpus(cpu_set_t *set)
{
	CPU_ZERO(set);
	return sched_getaffinity(0, sizeof *set, set);
}

static void usage(FILE *f, const struct popts *o)
{
	char v[3][32] = {"", "", ""};
	for (size_t i = 0; i < o->nvictims && i < 3; i++)
		ntm_format_size(o->victims[i], v[i], sizeof v[i]);
	fprintf(f,
"Usage: ntmem pollution [OPTIONS]\n"
"Measure what each clear/copy method costs other data's cache, and what\n"
"streaming costs the next reader of the data it wrote.\n"
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
"                        stosb or movsb, the policy's streaming variant, auto,\n"
"                        and the plain cached loop reread compares with)\n"
"  -s, --size SIZE       bytes per aggressor call (default 256MiB)\n"
"      --victim LIST     victim working-set sizes (default: half of L1d, of\n"
"                        L2 and of the per-CPU LLC share;\n"
"                        here %s%s%s%s%s)\n"
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

static void list_functions(FILE *f, const struct popts *o)
{
	for (int op = 0; op < NOPS; op++) {
		if (!(o->ops & (1u << op)))
			continue;
		fprintf(f, "%s functions:\n", op_names[op]);
		for (size_t i = 0; i < o->nfns[op]; i++) {
			const struct fn *x = &o->fns[op][i];
			fprintf(f, "  %-12s %-9s %s%s%s\n", x->name,
				x->kind != FN_VARIANT ? "" :
				x->streaming ? "streams" : "cached",
				x->description,
				x->supported ? "" : "; unsupported: ",
				x->supported ? "" :
				x->why_unsupported ? x->why_unsupported : "");
		}
		const struct fn *s = policy_fn(o, op, 1), *c = policy_fn(o, op, 0);
		fprintf(f, "  %-12s %-9s the policy's streaming variant (%s)\n",
			"streaming", "", s ? s->name : "none");
		fprintf(f, "  %-12s %-9s the policy's cached variant (%s)\n",
			"cached", "", c ? c->name : "none");
	}
}

static const struct option long_options[] = {
	{"mode", required_argument, NULL, 'm'},
	{"op", required_argument, NULL, 'o'},
	{"function", required_argument, NULL, 'f'},
	{"size", required_argument, NULL, 's'},
	{"victim", required_argument, NULL, 'V'},
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

/*
 * Parse and check the arguments into *o.  Returns 0, or -1 with a message
 * naming the argument in err.  o->help and o->list say that --help or
 * '-f help' was asked for; nothing else is checked then.
 */
static int parse(int argc, char **argv, struct popts *o, char *err, size_t err_len)
{
	memset(o, 0, sizeof *o);
	o->size = DEFAULT_SIZE;
	o->runs = DEFAULT_RUNS;
	o->lookups = DEFAULT_LOOKUPS;
	o->rounds = DEFAULT_ROUNDS;
	o->cpu = o->victim_cpu = -1;
	o->pages = PAGES_2M;
	struct ntmem_cpu_info cpu;
	ntmem_cpu_info(&cpu);
	o->caches = (struct cache_info){cpu.planned.l1d, cpu.planned.l2,
					cpu.planned.l3, cpu.planned.l3_shared_by};
	machine_facts(&o->m);
	for (int op = 0; op < NOPS; op++)
		o->nfns[op] = fn_list((enum ntmem_op)op, o->fns[op], FN_MAX);
	default_victims(o);
	o->victims_default = 1;

	const char *fn_arg = NULL, *ops_arg = NULL;
	char buf[1024], *items[64];
	size_t n;
	long v;

	optind = 0;  /* glibc: start afresh, so the tests may parse again */
	opterr = 0;
	int c;
	while ((c = getopt_long(argc, argv, ":m:o:f:s:r:h", long_options, NULL)) != -1) {
		switch (c) {
		case 'm':
			if (cli_parse_list("--mode", optarg, buf, sizeof buf, items, 64, &n,
				  err, err_len))
				return -1;
			o->modes = 0;
			for (size_t i = 0; i < n; i++) {
				int found = !strcmp(items[i], "all");
				if (found)
					o->modes = (1u << MODE_COUNT) - 1;
				for (int m = 0; m < MODE_COUNT && !found; m++)
					if (!strcmp(items[i], mode_names[m])) {
						o->modes |= 1u << m;
						found = 1;
					}
				if (!found)
					FAIL("--mode: unknown mode '%s' (use after, "
					     "concurrent, reread, mixed or all)", items[i]);
			}
			break;
		case 'o':
			ops_arg = optarg;
			break;
		case 'f':
			fn_arg = optarg;
			break;
		case 's':
			if (cli_parse_size("--size", optarg, &o->size, err, err_len))
				return -1;
			if (o->size < 4 * KiB)
				FAIL("--size: '%s': the aggressor needs at least 4 KiB",
				     optarg);
			break;
		case 'V':
			if (cli_parse_list("--victim", optarg, buf, sizeof buf, items,
				  MAX_VICTIMS, &n, err, err_len))
				return -1;
			for (size_t i = 0; i < n; i++) {
				if (cli_parse_size("--victim", items[i], &o->victims[i],
					       err, err_len))
					return -1;
				if (o->victims[i] < 2 * CHASE_LINE)
					FAIL("--victim: '%s': a victim needs at least "
					     "two 64-byte lines", items[i]);
				o->victims[i] &= ~(size_t)(CHASE_LINE - 1);
			}
			o->nvictims = n;
			o->victims_default = 0;
			break;
		case 'P':
			if (page_request_parse(optarg, &o->pages))
				FAIL("--pages: '%s': use 4KB, 2MB or 1GB", optarg);
			break;
		case 'r':
			if (cli_parse_long("--runs", optarg, 1, 1000, &o->runs, err, err_len))
				return -1;
			break;
		case 'L':
			if (cli_parse_long("--lookups", optarg, 1, 1L << 30, &o->lookups,
				       err, err_len))
				return -1;
			break;
		case 'R':
			if (cli_parse_long("--rounds", optarg, 1, 100000, &o->rounds,
				       err, err_len))
				return -1;
			break;
		case 'c':
			if (cli_parse_long("--cpu", optarg, 0, CPU_SETSIZE - 1, &v, err,
				       err_len))
				return -1;
			o->cpu = (int)v;
			break;
		case 'C':
			if (cli_parse_long("--victim-cpu", optarg, 0, CPU_SETSIZE - 1, &v,
				       err, err_len))
				return -1;
			o->victim_cpu = (int)v;
			break;
		case 'j':
			o->json = 1;
			break;
		case 'p':
			if (!*optarg)
				FAIL("--plot: empty file name");
			o->plot = optarg;
			break;
		case 'h':
			o->help = 1;
			return 0;
		case ':':
			FAIL("option '%s' needs an argument", argv[optind - 1]);
		default:
			if (optopt)
				FAIL("unknown option '-%c'", optopt);
			FAIL("unknown option '%s'", argv[optind - 1]);
		}
	}
	if (optind < argc)
		FAIL("unexpected argument '%s'", argv[optind]);
	if (!o->modes)
		o->modes = (1u << MODE_COUNT) - 1;

	/* Operations: given, or every one a chosen function belongs to. */
	int ops_given = ops_arg != NULL;
	if (ops_arg) {
		if (cli_parse_list("--op", ops_arg, buf, sizeof buf, items, 64, &n, err, err_len))
			return -1;
		for (size_t i = 0; i < n; i++) {
			if (!strcmp(items[i], "memset") || !strcmp(items[i], "set"))
				o->ops |= 1u << NTMEM_OP_SET;
			else if (!strcmp(items[i], "memcpy") || !strcmp(items[i], "copy"))
				o->ops |= 1u << NTMEM_OP_COPY;
			else if (!strcmp(items[i], "all"))
				o->ops = (1u << NOPS) - 1;
			else
				FAIL("--op: unknown operation '%s' (use memset, "
				     "memcpy or all)", items[i]);
		}
	} else {
		o->ops = (1u << NOPS) - 1;
	}

	/* Functions. */
	if (fn_arg) {
		if (cli_parse_list("--function", fn_arg, buf, sizeof buf, items, 64, &n, err,
			  err_len))
			return -1;
		for (size_t i = 0; i < n; i++)
			if (!strcmp(items[i], "help")) {
				o->list = 1;
				return 0;
			}
		unsigned used = 0;
		for (size_t i = 0; i < n; i++) {
			int found = 0;
			for (int op = 0; op < NOPS; op++) {
				if (!(o->ops & (1u << op)))
					continue;
				const struct fn *f = resolve(o, op, items[i]);
				if (!f)
					continue;
				found = 1;
				used |= 1u << op;
				add_run(o, op, f);
			}
			if (!found) {
				const char *which = o->ops == (1u << NTMEM_OP_SET) ? "memset" :
						    o->ops == (1u << NTMEM_OP_COPY) ? "memcpy" :
						    "memset or memcpy";
				FAIL("--function: unknown %s function '%s' "
				     "(try -f help)", which, items[i]);
			}
		}
		if (!ops_given) {
			o->ops = used;
		} else {
			for (int op = 0; op < NOPS; op++)
				if ((o->ops & (1u << op)) && !(used & (1u << op)))
					FAIL("--function: '%s' names no %s function "
					     "(try -f help)", fn_arg, op_names[op]);
		}
	} else {
		for (int op = 0; op < NOPS; op++) {
			if (!(o->ops & (1u << op)))
				continue;
			add_run(o, op, fn_find(o->fns[op], o->nfns[op], "glibc"));
			const struct fn *rep = fn_find(o->fns[op], o->nfns[op],
						       op == NTMEM_OP_SET ? "stosb" : "movsb");
			add_run(o, op, rep && rep->supported ? rep : policy_fn(o, op, 0));
			add_run(o, op, policy_fn(o, op, 1));
			add_run(o, op, fn_find(o->fns[op], o->nfns[op], "auto"));
			add_run(o, op, cached_loop(o, op));
		}
	}
	size_t runnable = 0;
	for (int op = 0; op < NOPS; op++)
		if (o->ops & (1u << op))
			runnable += o->nrun[op];
	if (!runnable) {
		char why[300] = "";
		for (size_t i = 0; i < o->nskips; i++) {
			size_t l = strlen(why);
			snprintf(why + l, sizeof why - l, "%s%s %s: %s", i ? "; " : "",
				 op_names[o->skips[i].op], o->skips[i].name,
				 o->skips[i].reason);
		}
		FAIL("--function: nothing to run: %s", why);
	}

	/* The verdict's pair and the reread reference, per operation. */
	for (int op = 0; op < NOPS; op++) {
		o->reference[op] = cached_loop(o, op);
		const struct fn *ps = policy_fn(o, op, 1);
		const char *rep = op == NTMEM_OP_SET ? "stosb" : "movsb";
		for (size_t i = 0; i < o->nrun[op]; i++) {
			const struct fn *f = o->run[op][i];
			if (f == ps)
				o->streaming[op] = f;
			if (!strcmp(f->name, rep))
				o->cached[op] = f;
		}
		for (size_t i = 0; i < o->nrun[op]; i++) {
			const struct fn *f = o->run[op][i];
			int nt = fn_streams(f, o->size, 0);
			if (!o->streaming[op] && f->kind == FN_VARIANT && nt == 1)
				o->streaming[op] = f;
			if (!o->cached[op] && f->kind == FN_VARIANT && nt == 0)
				o->cached[op] = f;
		}
		for (size_t i = 0; i < o->nrun[op] && !o->cached[op]; i++)
			if (fn_streams(o->run[op][i], o->size, 0) == 0)
				o->cached[op] = o->run[op][i];
		if (!o->reference[op])
			o->reference[op] = o->cached[op];
	}

	/* CPUs. */
	cpu_set_t allowed;
	if (allowed_cpus(&allowed))
		FAIL("cannot read this process's CPU affinity: %s", strerror(errno));
	if (o->cpu >= 0 && !CPU_ISSET(o->cpu, &allowed))
		FAIL("--cpu: CPU %d is not available to this process", o->cpu);
	if (o->victim_cpu >= 0 && !CPU_ISSET(o->victim_cpu, &allowed))
		FAIL("--victim-cpu: CPU %d is not available to this process",
		     o->victim_cpu);
	if (o->cpu < 0)
		for (int i = 0; i < CPU_SETSIZE && o->cpu < 0; i++)
			if (CPU_ISSET(i, &allowed))
				o->cpu = i;
	if (o->cpu < 0)
		FAIL("no CPU is available to this process");
	if (o->victim_cpu == o->cpu)
		FAIL("--victim-cpu: must differ from --cpu (%d)", o->cpu);
	if (o->victim_cpu < 0)
		for (int k = 1; k < CPU_SETSIZE && o->victim_cpu < 0; k++) {
			int i = (o->cpu + k) % CPU_SETSIZE;
			if (CPU_ISSET(i, &allowed))
				o->victim_cpu = i;
		}
	if ((o->modes & (1u << MODE_CONCURRENT)) && o->victim_cpu < 0) {
		char why[160];
		snprintf(why, sizeof why, "only CPU %d is available to this "
			 "process: the victim needs a CPU of its own", o->cpu);
		add_skip(o, MODE_CONCURRENT, -1, NULL, why);
	}

	/* Memory: every victim on its own, then everything together. */
	size_t vmax = 0;
	for (size_t i = 0; i < o->nvictims; i++)
		if (o->victims[i] > vmax)
			vmax = o->victims[i];
	size_t avail = o->m.mem_available;
	char a[32], b[32], t[32];
	if (avail) {
		ntm_format_size(avail, a, sizeof a);
		for (size_t i = 0; i < o->nvictims; i++)
			if (o->victims[i] > avail)
				FAIL("--victim: %s does not fit in available memory "
				     "(%s MemAvailable)",
				     ntm_format_size(o->victims[i], b, sizeof b), a);
		int copies = (o->ops & (1u << NTMEM_OP_COPY)) ? 2 : 1;
		size_t need = vmax;
		int overflow = o->size > (SIZE_MAX - vmax) / (size_t)copies;
		if (!overflow)
			need += o->size * (size_t)copies;
		if (overflow || need > avail)
			FAIL("--size: %s%s and a victim of %s do not fit in available "
			     "memory (%s MemAvailable)",
			     ntm_format_size(o->size, b, sizeof b),
			     copies == 2 ? " (twice, memcpy's source and destination)" : "",
			     ntm_format_size(vmax, t, sizeof t), a);
	}

	/* The victim the verdict quotes: the L2 one, nearest half the L2. */
	size_t l2 = (o->caches.l2 ? o->caches.l2 : 512 * KiB) / 2;
	double best = INFINITY;
	for (size_t i = 0; i < o->nvictims; i++) {
		double d = fabs(log2((double)o->victims[i] / (double)l2));
		if (d < best) {
			best = d;
			o->verdict_victim = o->victims[i];
		}
	}
	return 0;
}

/* The parsed settings as one canonical line, for the tests. */
static void describe(const struct popts *o, char *buf, size_t len)
{
	size_t at = 0;
#define PUT(...) do { if (at < len) at += (size_t)snprintf(buf + at, len - at, __VA_ARGS__); } while (0)
	PUT("modes=");
	for (int m = 0, k = 0; m < MODE_COUNT; m++)
		if (o->modes & (1u << m))
			PUT("%s%s", k++ ? "," : "", mode_names[m]);
	PUT(" ops=");
	for (int op = 0, k = 0; op < NOPS; op++)
		if (o->ops & (1u << op))
			PUT("%s%s", k++ ? "," : "", op_names[op]);
	for (int op = 0; op < NOPS; op++) {
		if (!(o->ops & (1u << op)))
			continue;
		PUT(" fn.%s=", op_names[op]);
		for (size_t i = 0; i < o->nrun[op]; i++)
			PUT("%s%s", i ? "," : "", o->run[op][i]->name);
	}
	for (size_t i = 0; i < o->nskips; i++)
		PUT(" skip=%s%s%s", o->skips[i].mode >= 0 ? mode_names[o->skips[i].mode] :
		    op_names[o->skips[i].op], o->skips[i].mode >= 0 ? "" : ":",
		    o->skips[i].name);
	PUT(" size=%zu victim=", o->size);
	for (size_t i = 0; i < o->nvictims; i++)
		PUT("%s%zu", i ? "," : "", o->victims[i]);
	PUT(" pages=%s runs=%ld lookups=%ld rounds=%ld cpu=%d victim_cpu=%d json=%d plot=%s",
	    page_request_name(o->pages), o->runs, o->lookups, o->rounds, o->cpu,
	    o->victim_cpu, o->json, o->plot ? o->plot : "");
#undef PUT
}

/* ------------------------------------------------------------------ */
/* Measuring                                                           */
/* ------------------------------------------------------------------ */

struct row {
	enum mode mode;
	int op;
	const struct fn *f;
	int nt;                 /* fn_streams: 1, 0, -1 unknown */
	size_t victim;          /* victim or table bytes; reread: bytes read */
	double gbps;            /* the aggressor's */
	double base_ns, with_ns, slowdown;
	double total_ms, aggr_ms, lookup_ms;  /* mixed, per round */
	int counted;            /* counters below are real */
	double miss_base, miss_with, ref_base, ref_with;  /* per victim pass */
};

struct ctx {
	const struct popts *o;
	struct buffer victim, dst, src;
	struct perfcount pc;
	struct row *rows;
	size_t nrows, cap;
	int progress;
	uint64_t idle_ns[NOPS];  /* after: the control's time, per op */
};

/* after's control: no aggressor, the same time spent spinning on the
 * clock.  What the victim loses to time alone (interrupts, other tenants
 * of the caches) shows here, not as any function's pollution. */
static const struct fn idle_fns[NOPS] = {
	{.name = "idle", .description = "no aggressor: as long spent spinning",
	 .op = NTMEM_OP_SET, .kind = FN_LIBC, .variant_id = -1, .supported = 1},
	{.name = "idle", .description = "no aggressor: as long spent spinning",
	 .op = NTMEM_OP_COPY, .kind = FN_LIBC, .variant_id = -1, .supported = 1},
};

static int is_idle(const struct fn *f)
{
	return f == &idle_fns[0] || f == &idle_fns[1];
}

static volatile uintptr_t sink;

static struct row *new_row(struct ctx *c, enum mode mode, int op,
			   const struct fn *f, size_t victim)
{
	if (c->nrows == c->cap) {
		size_t cap = c->cap ? 2 * c->cap : 64;
		struct row *r = realloc(c->rows, cap * sizeof *r);
		if (!r)
			return NULL;
		c->rows = r;
		c->cap = cap;
	}
	struct row *r = &c->rows[c->nrows++];
	memset(r, 0, sizeof *r);
	r->mode = mode;
	r->op = op;
	r->f = f;
	r->nt = is_idle(f) ? -1 : fn_streams(f, c->o->size, 0);
	r->victim = victim;
	r->gbps = r->base_ns = r->with_ns = r->slowdown = NAN;
	r->total_ms = r->aggr_ms = r->lookup_ms = NAN;
	r->miss_base = r->miss_with = r->ref_base = r->ref_with = NAN;
	return r;
}

static void progress(struct ctx *c, enum mode m, int op, size_t victim)
{
	if (!c->progress)
		return;
	char s[32];
	fprintf(stderr, "\rntmem pollution: %s %s, victim %s ...\033[K",
		mode_names[m], op_names[op], ntm_format_size(victim, s, sizeof s));
	fflush(stderr);
}

/* One aggressor call (or the idle control for op); returns its time in
 * ns. */
static uint64_t aggress(struct ctx *c, const struct fn *f)
{
	uint64_t t0 = now_ns();
	if (is_idle(f)) {
		uint64_t t;
		while ((t = now_ns()) - t0 < c->idle_ns[f->op])
			;
		return t - t0;
	}
	fn_run(f, c->dst.p, c->src.p, c->o->size, 0);
	return now_ns() - t0;
}

static double gbps_of(size_t bytes, double ns)
{
	return ns > 0 ? (double)bytes / ns : NAN;
}

/* Per-slot samples: slot k, run r at v[k * runs + r]. */
struct samples {
	double *base, *with, *gbps, *extra1, *extra2;
	double miss_base, miss_with, ref_base, ref_with;  /* sums */
};

/* A row from its samples: the medians over the runs, and the counts per
 * pass when counted.  base_ns, miss_base and ref_base (sums over the runs)
 * are what the row compares with: its own warm pass, or a reference. */
static void summarize(struct row *w, const struct samples *mine, double base_ns,
		      double miss_base, double ref_base, size_t runs, int counted)
{
	w->base_ns = base_ns;
	w->with_ns = median_of(mine->with, runs);
	w->slowdown = w->with_ns / w->base_ns;
	w->gbps = median_of(mine->gbps, runs);
	if (counted) {
		w->counted = 1;
		w->miss_base = miss_base / (double)runs;
		w->ref_base = ref_base / (double)runs;
		w->miss_with = mine->miss_with / (double)runs;
		w->ref_with = mine->ref_with / (double)runs;
	}
}

static double *samples_alloc(size_t n)
{
	double *p = calloc(n ? n : 1, sizeof *p);
	return p;
}

static int alloc_samples(struct samples *s, size_t slots, size_t runs)
{
	memset(s, 0, sizeof *s);
	size_t n = slots * runs;
	s->base = samples_alloc(n);
	s->with = samples_alloc(n);
	s->gbps = samples_alloc(n);
	s->extra1 = samples_alloc(n);
	s->extra2 = samples_alloc(n);
	return s->base && s->with && s->gbps && s->extra1 && s->extra2 ? 0 : -1;
}

static void free_samples(struct samples *s)
{
	free(s->base);
	free(s->with);
	free(s->gbps);
	free(s->extra1);
	free(s->extra2);
}

static void count_delta(const struct perf_values *a, const struct perf_values *b,
			double *misses, double *refs)
{
	*misses += (double)(b->misses - a->misses);
	*refs += (double)(b->refs - a->refs);
}

/* after: a warm pass against the first pass after one aggressor call. */
static int mode_after(struct ctx *c, int op, size_t vsize)
{
	const struct popts *o = c->o;
	size_t nf = o->nrun[op], runs = (size_t)o->runs;
	size_t lines = vsize / CHASE_LINE;
	/* A warm pass of a small victim is timed over several passes, so
	 * the clock's own cost (tens of ns) stays under 1%. */
	size_t base_passes = lines >= 4096 ? 1 : (4096 + lines - 1) / lines;
	/* Slot nf: the idle control. */
	size_t slots = nf + 1;
	struct samples s[FN_MAX + 1];
	int ok = 0;
	for (size_t k = 0; k < slots; k++)
		if (alloc_samples(&s[k], 1, runs))
			ok = -1;
	chase_build(c->victim.p, lines, SEED ^ vsize);
	void *p = c->victim.p;
	for (size_t r = 0; r < runs && !ok; r++)
		for (size_t i = 0; i < slots; i++) {
			size_t k = (i + r) % slots;
			const struct fn *f = k == nf ? &idle_fns[op] : o->run[op][k];
			struct perf_values a, b, d, e;
			p = chase_run(p, 3 * lines);          /* warm */
			perfcount_read(&c->pc, &a);
			uint64_t t0 = now_ns();
			p = chase_run(p, lines * base_passes);
			uint64_t t1 = now_ns();
			perfcount_read(&c->pc, &b);
			uint64_t ta = aggress(c, f);
			perfcount_read(&c->pc, &d);
			uint64_t t2 = now_ns();
			p = chase_run(p, lines);
			uint64_t t3 = now_ns();
			perfcount_read(&c->pc, &e);
			s[k].base[r] = (double)(t1 - t0) / (double)(lines * base_passes);
			s[k].with[r] = (double)(t3 - t2) / (double)lines;
			s[k].gbps[r] = k == nf ? NAN : gbps_of(o->size, (double)ta);
			double mb = 0, rb = 0;
			count_delta(&a, &b, &mb, &rb);
			s[k].miss_base += mb / (double)base_passes;
			s[k].ref_base += rb / (double)base_passes;
			count_delta(&d, &e, &s[k].miss_with, &s[k].ref_with);
		}
	sink = (uintptr_t)p;
	for (size_t k = 0; k < slots && !ok; k++) {
		struct row *w = new_row(c, MODE_AFTER, op,
					k == nf ? &idle_fns[op] : o->run[op][k], vsize);
		if (!w) {
			ok = -1;
			break;
		}
		summarize(w, &s[k], median_of(s[k].base, runs), s[k].miss_base,
			  s[k].ref_base, runs, c->pc.available);
	}
	for (size_t k = 0; k < slots; k++)
		free_samples(&s[k]);
	return ok;
}

/* concurrent: the victim thread. */
struct victim_thread {
	_Alignas(64) _Atomic uint64_t steps;
	_Alignas(64) _Atomic int stop;
	_Atomic int ready;
	void *start;
	size_t lines;
	int cpu;
	int want_counters;
	int pin_errno;
	struct perfcount pc;
};

static void *victim_main(void *arg)
{
	struct victim_thread *v = arg;
	if (pin_to_cpu(v->cpu)) {
		v->pin_errno = errno;
		atomic_store(&v->ready, -1);
		return NULL;
	}
	if (v->want_counters)
		perfcount_open(&v->pc);
	void *p = chase_run(v->start, 3 * v->lines);  /* warm */
	atomic_store(&v->ready, 1);
	uint64_t n = 0;
	while (!atomic_load_explicit(&v->stop, memory_order_relaxed)) {
		p = chase_run(p, 256);
		n += 256;
		atomic_store_explicit(&v->steps, n, memory_order_relaxed);
	}
	sink = (uintptr_t)p;
	return NULL;
}

static void sleep_ns(uint64_t ns)
{
	struct timespec ts = {(time_t)(ns / 1000000000u), (long)(ns % 1000000000u)};
	while (nanosleep(&ts, &ts) && errno == EINTR)
		;
}

static int mode_concurrent(struct ctx *c, int op, size_t vsize, char *err,
			   size_t err_len)
{
	const struct popts *o = c->o;
	size_t nf = o->nrun[op], runs = (size_t)o->runs;
	size_t lines = vsize / CHASE_LINE;
	struct victim_thread *v = aligned_alloc(64, (sizeof *v + 63) / 64 * 64);
	if (!v)
		FAIL("out of memory");
	memset(v, 0, sizeof *v);
	v->start = c->victim.p;
	v->lines = lines;
	v->cpu = o->victim_cpu;
	v->want_counters = c->pc.available;
	v->pc.fd = v->pc.fd_refs = -1;
	chase_build(c->victim.p, lines, SEED ^ vsize);
	pthread_t t;
	int e = pthread_create(&t, NULL, victim_main, v);
	if (e) {
		free(v);
		FAIL("cannot start the victim thread: %s", strerror(e));
	}
	while (!atomic_load(&v->ready))
		sleep_ns(100000);
	if (atomic_load(&v->ready) < 0) {
		pthread_join(t, NULL);
		int pe = v->pin_errno;
		free(v);
		FAIL("--victim-cpu: cannot run on CPU %d: %s", o->victim_cpu,
		     strerror(pe));
	}
	sleep_ns(5000000);

	struct samples s[FN_MAX];
	int ok = 0;
	for (size_t k = 0; k < nf; k++)
		if (alloc_samples(&s[k], 1, runs))
			ok = -1;
	int counted = v->pc.available;
	for (size_t r = 0; r < runs && !ok; r++)
		for (size_t i = 0; i < nf; i++) {
			size_t k = (i + r) % nf;
			struct perf_values pa, pb, pc, pd;
			/* Alone: the aggressor's CPU idles. */
			perfcount_read(&v->pc, &pa);
			uint64_t s0 = atomic_load_explicit(&v->steps, memory_order_relaxed);
			uint64_t t0 = now_ns();
			sleep_ns(WINDOW_NS);
			uint64_t s1 = atomic_load_explicit(&v->steps, memory_order_relaxed);
			uint64_t t1 = now_ns();
			perfcount_read(&v->pc, &pb);
			/* During: the aggressor runs, at least one call, for
			 * at least as long as the window alone. */
			perfcount_read(&v->pc, &pc);
			uint64_t s2 = atomic_load_explicit(&v->steps, memory_order_relaxed);
			uint64_t t2 = now_ns(), calls = 0;
			do {
				aggress(c, o->run[op][k]);
				calls++;
			} while (now_ns() - t2 < WINDOW_NS);
			uint64_t s3 = atomic_load_explicit(&v->steps, memory_order_relaxed);
			uint64_t t3 = now_ns();
			perfcount_read(&v->pc, &pd);
			s[k].base[r] = s1 > s0 ? (double)(t1 - t0) / (double)(s1 - s0) : NAN;
			s[k].with[r] = s3 > s2 ? (double)(t3 - t2) / (double)(s3 - s2) : NAN;
			s[k].gbps[r] = gbps_of(o->size * calls, (double)(t3 - t2));
			/* Counts per pass of `lines` accesses. */
			if (counted && s1 > s0 && s3 > s2) {
				double m = 0, f = 0;
				count_delta(&pa, &pb, &m, &f);
				s[k].miss_base += m * (double)lines / (double)(s1 - s0);
				s[k].ref_base += f * (double)lines / (double)(s1 - s0);
				m = f = 0;
				count_delta(&pc, &pd, &m, &f);
				s[k].miss_with += m * (double)lines / (double)(s3 - s2);
				s[k].ref_with += f * (double)lines / (double)(s3 - s2);
			}
		}
	atomic_store(&v->stop, 1);
	pthread_join(t, NULL);
	perfcount_close(&v->pc);
	free(v);
	for (size_t k = 0; k < nf && !ok; k++) {
		struct row *w = new_row(c, MODE_CONCURRENT, op, o->run[op][k], vsize);
		if (!w) {
			ok = -1;
			break;
		}
		summarize(w, &s[k], median_of(s[k].base, runs), s[k].miss_base,
			  s[k].ref_base, runs, counted);
	}
	for (size_t k = 0; k < nf; k++)
		free_samples(&s[k]);
	if (ok)
		FAIL("out of memory");
	return 0;
}

/* The consumer: sum the 8-byte words of [p, p + n). */
static uint64_t consume(const unsigned char *p, size_t n)
{
	const uint64_t *w = (const uint64_t *)p;
	uint64_t a = 0, b = 0, x = 0, y = 0;
	size_t words = n / 8, i = 0;
	for (; i + 4 <= words; i += 4) {
		a += w[i];
		b += w[i + 1];
		x += w[i + 2];
		y += w[i + 3];
	}
	for (; i < words; i++)
		a += w[i];
	return a + b + x + y;
}

/* reread: the last min(victim, size) bytes of the destination, read right
 * after the call, against the same read after the reference (cached)
 * write. */
static int mode_reread(struct ctx *c, int op, size_t vsize)
{
	const struct popts *o = c->o;
	size_t nf = o->nrun[op], runs = (size_t)o->runs;
	size_t bytes = (vsize < o->size ? vsize : o->size) & ~(size_t)(CHASE_LINE - 1);
	const unsigned char *tail = c->dst.p + (o->size - bytes) / CHASE_LINE * CHASE_LINE;
	double lines = (double)(bytes / CHASE_LINE);
	const struct fn *ref = o->reference[op];
	/* Slot nf is the reference. */
	size_t slots = nf + 1;
	struct samples s[FN_MAX + 1];
	int ok = 0;
	for (size_t k = 0; k < slots; k++)
		if (alloc_samples(&s[k], 1, runs))
			ok = -1;
	for (size_t r = 0; r < runs && !ok; r++)
		for (size_t i = 0; i < slots; i++) {
			size_t k = (i + r) % slots;
			const struct fn *f = k == nf ? ref : o->run[op][k];
			struct perf_values a, b;
			uint64_t ta = aggress(c, f);
			perfcount_read(&c->pc, &a);
			uint64_t t0 = now_ns();
			sink += (uintptr_t)consume(tail, bytes);
			uint64_t t1 = now_ns();
			perfcount_read(&c->pc, &b);
			s[k].with[r] = (double)(t1 - t0) / lines;
			s[k].gbps[r] = gbps_of(o->size, (double)ta);
			count_delta(&a, &b, &s[k].miss_with, &s[k].ref_with);
		}
	double ref_ns = ok ? NAN : median_of(s[nf].with, runs);
	for (size_t k = 0; k < nf && !ok; k++) {
		struct row *w = new_row(c, MODE_REREAD, op, o->run[op][k], bytes);
		if (!w) {
			ok = -1;
			break;
		}
		summarize(w, &s[k], ref_ns, s[nf].miss_with, s[nf].ref_with, runs,
			  c->pc.available);
	}
	for (size_t k = 0; k < slots; k++)
		free_samples(&s[k]);
	return ok;
}

/* mixed: rounds of one aggressor call and `lookups` table lookups,
 * against the lookups alone. */
static int mode_mixed(struct ctx *c, int op, size_t vsize)
{
	const struct popts *o = c->o;
	size_t nf = o->nrun[op], runs = (size_t)o->runs;
	size_t lines = vsize / CHASE_LINE, m = (size_t)o->lookups;
	size_t rounds = (size_t)o->rounds;
	/* Slot nf: the lookups alone. */
	size_t slots = nf + 1;
	struct samples s[FN_MAX + 1];
	int ok = 0;
	for (size_t k = 0; k < slots; k++)
		if (alloc_samples(&s[k], 1, runs))
			ok = -1;
	chase_build(c->victim.p, lines, SEED ^ vsize);
	uint64_t state = SEED;
	sink += (uintptr_t)chase_lookups(c->victim.p, lines, 4 * lines, &state);
	for (size_t r = 0; r < runs && !ok; r++)
		for (size_t i = 0; i < slots; i++) {
			size_t k = (i + r) % slots;
			uint64_t aggr = 0, look = 0;
			struct perf_values a, b, sum = {0, 0};
			for (size_t n = 0; n < rounds; n++) {
				if (k < nf)
					aggr += aggress(c, o->run[op][k]);
				perfcount_read(&c->pc, &a);
				uint64_t t0 = now_ns();
				sink += (uintptr_t)chase_lookups(c->victim.p, lines, m, &state);
				look += now_ns() - t0;
				perfcount_read(&c->pc, &b);
				sum.misses += b.misses - a.misses;
				sum.refs += b.refs - a.refs;
			}
			s[k].with[r] = (double)look / (double)(rounds * m);
			s[k].gbps[r] = k < nf ? gbps_of(o->size * rounds, (double)aggr) : NAN;
			s[k].extra1[r] = (double)(aggr + look) / (double)rounds / 1e6;
			s[k].extra2[r] = (double)aggr / (double)rounds / 1e6;
			s[k].miss_with += (double)sum.misses / (double)rounds;
			s[k].ref_with += (double)sum.refs / (double)rounds;
		}
	double alone = ok ? NAN : median_of(s[nf].with, runs);
	for (size_t k = 0; k < nf && !ok; k++) {
		struct row *w = new_row(c, MODE_MIXED, op, o->run[op][k], vsize);
		if (!w) {
			ok = -1;
			break;
		}
		summarize(w, &s[k], alone, s[nf].miss_with, s[nf].ref_with, runs,
			  c->pc.available);
		w->total_ms = median_of(s[k].extra1, runs);
		w->aggr_ms = median_of(s[k].extra2, runs);
		w->lookup_ms = w->with_ns * (double)m / 1e6;
	}
	for (size_t k = 0; k < slots; k++)
		free_samples(&s[k]);
	return ok;
}

static int mode_skipped(const struct popts *o, int mode)
{
	for (size_t i = 0; i < o->nskips; i++)
		if (o->skips[i].mode == mode)
			return 1;
	return 0;
}

/* Allocate, measure every mode, fill c->rows.  Returns 0, or -1 with err;
 * *usage is set when the failure is an impossible request (exit 2). */
static int measure(struct ctx *c, int *usage_error, char *err, size_t err_len)
{
	const struct popts *o = c->o;
	char why[256];
	*usage_error = 0;
	if (pin_to_cpu(o->cpu)) {
		*usage_error = 1;
		FAIL("--cpu: cannot run on CPU %d: %s", o->cpu, strerror(errno));
	}
	size_t vmax = 0;
	for (size_t i = 0; i < o->nvictims; i++)
		if (o->victims[i] > vmax)
			vmax = o->victims[i];
	if (buffer_alloc(&c->victim, vmax, o->pages, why, sizeof why))
		FAIL("victim: %s", why);
	if (buffer_alloc(&c->dst, o->size, PAGES_2M, why, sizeof why))
		FAIL("aggressor destination: %s", why);
	if (o->ops & (1u << NTMEM_OP_COPY)) {
		if (buffer_alloc(&c->src, o->size, PAGES_2M, why, sizeof why))
			FAIL("aggressor source: %s", why);
		memset(c->src.p, 0x5a, o->size);
	}
	perfcount_open(&c->pc);

	/* Two calls of each function first: first-use costs (the policy,
	 * vector state, the source's pages) stay out of the runs, and the
	 * second calls' median time is the idle control's. */
	for (int op = 0; op < NOPS; op++) {
		if (!(o->ops & (1u << op)) || !o->nrun[op])
			continue;
		double t[FN_MAX];
		for (size_t i = 0; i < o->nrun[op]; i++) {
			aggress(c, o->run[op][i]);
			t[i] = (double)aggress(c, o->run[op][i]);
		}
		c->idle_ns[op] = (uint64_t)median_of(t, o->nrun[op]);
	}

	for (int mode = 0; mode < MODE_COUNT; mode++) {
		if (!(o->modes & (1u << mode)) || mode_skipped(o, mode))
			continue;
		for (int op = 0; op < NOPS; op++) {
			if (!(o->ops & (1u << op)) || !o->nrun[op])
				continue;
			for (size_t i = 0; i < o->nvictims; i++) {
				size_t v = o->victims[i];
				int r = 0;
				progress(c, (enum mode)mode, op, v);
				switch (mode) {
				case MODE_AFTER:
					r = mode_after(c, op, v);
					break;
				case MODE_CONCURRENT:
					if (mode_concurrent(c, op, v, err, err_len)) {
						*usage_error = strncmp(err, "--", 2) == 0;
						return -1;
					}
					break;
				case MODE_REREAD:
					r = mode_reread(c, op, v);
					break;
				case MODE_MIXED:
					r = mode_mixed(c, op, v);
					break;
				}
				if (r)
					FAIL("out of memory");
			}
		}
	}
	if (c->progress)
		fprintf(stderr, "\r\033[K");
	return 0;
}

static void ctx_free(struct ctx *c)
{
	buffer_free(&c->victim);
	buffer_free(&c->dst);
	buffer_free(&c->src);
	perfcount_close(&c->pc);
	free(c->rows);
	c->rows = NULL;
}

/* ------------------------------------------------------------------ */
/* Reporting                                                           */
/* ------------------------------------------------------------------ */

static const struct row *find_row(const struct ctx *c, enum mode m, int op,
				  const struct fn *f, size_t victim)
{
	if (!f)
		return NULL;
	/* A reread row's size is the part read: at most the call's size. */
	if (m == MODE_REREAD && victim > c->o->size)
		victim = c->o->size & ~(size_t)(CHASE_LINE - 1);
	for (size_t i = 0; i < c->nrows; i++) {
		const struct row *r = &c->rows[i];
		if (r->mode == m && r->op == op && r->f == f && r->victim == victim)
			return r;
	}
	return NULL;
}

static const char *cached_label(const struct fn *f, char *buf, size_t len)
{
	if (f->kind == FN_VARIANT && (!strcmp(f->name, "stosb") ||
				      !strcmp(f->name, "movsb")))
		snprintf(buf, len, "rep %s", f->name);
	else
		snprintf(buf, len, "%s", f->name);
	return buf;
}

/* One line per operation: what streaming spared, and what it cost. */
static void verdict(const struct ctx *c, int op, char *buf, size_t len)
{
	const struct popts *o = c->o;
	const struct fn *nt = o->streaming[op], *ca = o->cached[op];
	size_t v = o->verdict_victim;
	char vs[32], ss[32], cl[32];
	ntm_format_size(v, vs, sizeof vs);
	ntm_format_size(o->size, ss, sizeof ss);
	size_t at = 0;
#define PUT(...) do { if (at < len) at += (size_t)snprintf(buf + at, len - at, __VA_ARGS__); } while (0)
	PUT("%s:", op_names[op]);
	int clauses = 0;
	const struct row *rn = find_row(c, MODE_AFTER, op, nt, v);
	const struct row *rc = find_row(c, MODE_AFTER, op, ca, v);
	if (rn || rc) {
		PUT(" after one %s call, ", ss);
		if (rn)
			PUT("streaming (%s) left a %s victim %.1fx slower", nt->name,
			    vs, rn->slowdown);
		if (rn && rc)
			PUT(", %s %.1fx", cached_label(ca, cl, sizeof cl), rc->slowdown);
		else if (rc)
			PUT("%s left a %s victim %.1fx slower",
			    cached_label(ca, cl, sizeof cl), vs, rc->slowdown);
		const struct fn *lp = o->reference[op];
		const struct row *rl = lp != ca ? find_row(c, MODE_AFTER, op, lp, v) : NULL;
		if (rl)
			PUT(", cached stores (%s) %.1fx", lp->name, rl->slowdown);
		const struct row *ri = find_row(c, MODE_AFTER, op, &idle_fns[op], v);
		if (ri)
			PUT(", idle as long %.1fx", ri->slowdown);
		clauses++;
	}
	rn = find_row(c, MODE_CONCURRENT, op, nt, v);
	rc = find_row(c, MODE_CONCURRENT, op, ca, v);
	if (rn && rc) {
		PUT("%s running alongside, %.2fx vs %.2fx on another CPU",
		    clauses++ ? ";" : "", rn->slowdown, rc->slowdown);
	}
	rn = find_row(c, MODE_REREAD, op, nt, v);
	if (rn && o->reference[op]) {
		char rs[32];
		PUT("%s re-reading the last %s of the destination right after "
		    "costs streaming %.1fx what it costs after %s", clauses++ ? ";" : "",
		    ntm_format_size(rn->victim, rs, sizeof rs), rn->slowdown,
		    cached_label(o->reference[op], cl, sizeof cl));
	}
	rn = find_row(c, MODE_MIXED, op, nt, v);
	rc = find_row(c, MODE_MIXED, op, ca, v);
	if (rn && rc)
		PUT("%s mixed with lookups, %.1f ms a round vs %.1f ms",
		    clauses++ ? ";" : "", rn->total_ms, rc->total_ms);
	if (!clauses)
		PUT(" no pair of streaming and cached functions to compare");
	PUT(".");
#undef PUT
}

static const char *nt_text(int nt)
{
	return nt == 1 ? "yes" : nt == 0 ? "no" : "?";
}

static const char *const mode_blurb[MODE_COUNT] = {
	"one pass over a warm victim right after one aggressor call",
	"the victim chasing on another CPU while the aggressor runs",
	"reading the last part of the destination right after the call",
	"rounds of one aggressor call and table lookups on one thread",
};
static const char *const base_label[MODE_COUNT] = {
	"warm", "alone", "after ref", "alone",
};
static const char *const with_label[MODE_COUNT] = {
	"after", "during", "after fn", "mixed",
};
static const char *const unit_label[MODE_COUNT] = {
	"ns/access", "ns/access", "ns/line", "ns/lookup",
};

static void print_table(const struct ctx *c, FILE *f)
{
	const struct popts *o = c->o;
	char s1[32], s2[32], s3[32], s4[32];
	fprintf(f, "ntmem pollution: what each method costs other data's cache\n");
	fprintf(f, "Machine:   %s, %u CPUs online, %s, THP %s\n", o->m.cpu,
		o->m.online_cpus, o->m.kernel, o->m.thp);
	fprintf(f, "Caches:    L1d %s, L2 %s, L3 %s shared by %u\n",
		ntm_format_size(o->caches.l1d, s1, sizeof s1),
		ntm_format_size(o->caches.l2, s2, sizeof s2),
		ntm_format_size(o->caches.l3, s3, sizeof s3), o->caches.l3_shared_by);
	fprintf(f, "Victim:    pointer chase, one dependent access per 64-byte "
		"line, on %s%s\n", c->victim.obtained,
		strncmp(c->victim.obtained, "4 KiB", 5) ? "" :
		" (TLB misses count as cache misses here)");
	fprintf(f, "Aggressor: %s a call, on %s; CPU %d", ntm_format_size(o->size, s4, sizeof s4),
		c->dst.obtained, o->cpu);
	if ((o->modes & (1u << MODE_CONCURRENT)) && o->victim_cpu >= 0)
		fprintf(f, ", concurrent victim on CPU %d", o->victim_cpu);
	fprintf(f, "\nRuns:      %ld, medians", o->runs);
	if (o->modes & (1u << MODE_MIXED))
		fprintf(f, "; mixed: %ld rounds of %ld lookups", o->rounds, o->lookups);
	fprintf(f, "\nCounters:  %s%s\n", c->pc.available ? "cache-misses, "
		"cache-references per victim pass (user space)" : "unavailable: ",
		c->pc.available ? "" : c->pc.reason);

	for (int m = 0; m < MODE_COUNT; m++) {
		int any = 0;
		for (size_t i = 0; i < c->nrows; i++)
			any |= c->rows[i].mode == (enum mode)m;
		if (!any)
			continue;
		fprintf(f, "\n%s: %s", mode_names[m], mode_blurb[m]);
		if (m == MODE_AFTER)
			for (int op = 0; op < NOPS; op++)
				if (o->nrun[op] && (o->ops & (1u << op)))
					fprintf(f, "%s %s idle %.2f ms", op == 0 ||
						!(o->ops & 1u) ? ";" : ",", op_names[op],
						(double)c->idle_ns[op] / 1e6);
		if (m == MODE_REREAD)
			for (int op = 0; op < NOPS; op++)
				if (o->nrun[op] && (o->ops & (1u << op)) && o->reference[op])
					fprintf(f, "%s %s ref %s", op == 0 ||
						!(o->ops & 1u) ? ";" : ",",
						op_names[op], o->reference[op]->name);
		fprintf(f, "\n%-7s %-9s %-11s %-3s %7s %10s %9s %9s", "op",
			m == MODE_REREAD ? "re-read" : m == MODE_MIXED ? "table" : "victim",
			"function", "NT", "GB/s", unit_label[m], with_label[m],
			"slowdown");
		if (m == MODE_MIXED)
			fprintf(f, " %9s %9s", "ms/round", "aggr ms");
		if (c->pc.available)
			fprintf(f, " %21s %21s", "misses base/with", "refs base/with");
		fputc('\n', f);
		fprintf(f, "%-7s %-9s %-11s %-3s %7s %10s\n", "", "", "", "", "",
			base_label[m]);
		for (size_t i = 0; i < c->nrows; i++) {
			const struct row *r = &c->rows[i];
			if (r->mode != (enum mode)m)
				continue;
			char g[16];
			if (isfinite(r->gbps))
				snprintf(g, sizeof g, "%7.2f", r->gbps);
			else
				snprintf(g, sizeof g, "%7s", "-");
			fprintf(f, "%-7s %-9s %-11s %-3s %s %10.2f %9.2f %8.2fx",
				op_names[r->op], ntm_format_size(r->victim, s1, sizeof s1),
				r->f->name, is_idle(r->f) ? "-" : nt_text(r->nt), g,
				r->base_ns, r->with_ns, r->slowdown);
			if (m == MODE_MIXED)
				fprintf(f, " %9.2f %9.2f", r->total_ms, r->aggr_ms);
			if (r->counted)
				fprintf(f, " %10.0f/%-10.0f %10.0f/%-10.0f", r->miss_base,
					r->miss_with, r->ref_base, r->ref_with);
			fputc('\n', f);
		}
	}
	for (size_t i = 0; i < o->nskips; i++) {
		const struct skip *s = &o->skips[i];
		if (s->mode >= 0)
			fprintf(f, "\nskipped: %s mode: %s", mode_names[s->mode], s->reason);
		else
			fprintf(f, "\nskipped: %s %s: %s", op_names[s->op], s->name,
				s->reason);
	}
	if (o->nskips)
		fputc('\n', f);
	fprintf(f, "\nVerdict:\n");
	for (int op = 0; op < NOPS; op++) {
		if (!(o->ops & (1u << op)) || !o->nrun[op])
			continue;
		char v[768];
		verdict(c, op, v, sizeof v);
		fprintf(f, "%s\n", v);
	}
}

static void write_json(const struct ctx *c, FILE *f)
{
	const struct popts *o = c->o;
	struct json j;
	json_start(&j, f);
	json_string(&j, "command", "pollution");
	json_object(&j, "machine");
	json_string(&j, "cpu", o->m.cpu);
	json_string(&j, "kernel", o->m.kernel);
	json_string(&j, "thp", o->m.thp);
	json_uint(&j, "online_cpus", o->m.online_cpus);
	json_uint(&j, "mem_available", o->m.mem_available);
	json_uint(&j, "l1d", o->caches.l1d);
	json_uint(&j, "l2", o->caches.l2);
	json_uint(&j, "l3", o->caches.l3);
	json_uint(&j, "l3_shared_by", o->caches.l3_shared_by);
	json_end(&j);

	json_object(&j, "settings");
	json_array(&j, "modes");
	for (int m = 0; m < MODE_COUNT; m++)
		if (o->modes & (1u << m))
			json_string(&j, NULL, mode_names[m]);
	json_end(&j);
	json_array(&j, "ops");
	for (int op = 0; op < NOPS; op++)
		if (o->ops & (1u << op))
			json_string(&j, NULL, op_names[op]);
	json_end(&j);
	json_object(&j, "functions");
	for (int op = 0; op < NOPS; op++) {
		if (!(o->ops & (1u << op)))
			continue;
		json_array(&j, op_names[op]);
		for (size_t i = 0; i < o->nrun[op]; i++)
			json_string(&j, NULL, o->run[op][i]->name);
		json_end(&j);
	}
	json_end(&j);
	json_object(&j, "reread_reference");
	for (int op = 0; op < NOPS; op++)
		if (o->ops & (1u << op))
			json_string(&j, op_names[op],
				    o->reference[op] ? o->reference[op]->name : NULL);
	json_end(&j);
	json_uint(&j, "size", o->size);
	json_array(&j, "victim_sizes");
	for (size_t i = 0; i < o->nvictims; i++)
		json_uint(&j, NULL, o->victims[i]);
	json_end(&j);
	json_string(&j, "pages_requested", page_request_name(o->pages));
	json_int(&j, "runs", o->runs);
	json_int(&j, "lookups", o->lookups);
	json_int(&j, "rounds", o->rounds);
	json_int(&j, "cpu", o->cpu);
	json_int(&j, "victim_cpu", o->victim_cpu);
	json_end(&j);

	json_string(&j, "victim_pages", c->victim.obtained);
	json_string(&j, "aggressor_pages", c->dst.obtained);
	json_object(&j, "counters");
	json_bool(&j, "available", c->pc.available);
	if (c->pc.available)
		json_null(&j, "reason");
	else
		json_string(&j, "reason", c->pc.reason);
	json_array(&j, "events");
	json_string(&j, NULL, "cache-misses");
	json_string(&j, NULL, "cache-references");
	json_end(&j);
	json_end(&j);

	json_array(&j, "results");
	for (size_t i = 0; i < c->nrows; i++) {
		const struct row *r = &c->rows[i];
		json_object(&j, NULL);
		json_string(&j, "mode", mode_names[r->mode]);
		json_string(&j, "op", op_names[r->op]);
		json_string(&j, "function", r->f->name);
		if (is_idle(r->f)) {
			json_bool(&j, "control", 1);
			json_double(&j, "idle_ms", (double)c->idle_ns[r->op] / 1e6);
		}
		if (r->nt < 0)
			json_null(&j, "nontemporal");
		else
			json_bool(&j, "nontemporal", r->nt);
		json_uint(&j, r->mode == MODE_REREAD ? "reread_bytes" : "victim_size",
			  r->victim);
		json_double(&j, "aggressor_gbps", r->gbps);
		json_double(&j, "victim_ns_baseline", r->base_ns);
		json_double(&j, "victim_ns_polluted", r->with_ns);
		json_double(&j, "slowdown", r->slowdown);
		if (r->mode == MODE_REREAD)
			json_string(&j, "reference",
				    o->reference[r->op] ? o->reference[r->op]->name : NULL);
		if (r->mode == MODE_MIXED) {
			json_double(&j, "total_ms_per_round", r->total_ms);
			json_double(&j, "aggressor_ms_per_round", r->aggr_ms);
			json_double(&j, "lookup_ms_per_round", r->lookup_ms);
		}
		json_double(&j, "cache_misses_baseline", r->counted ? r->miss_base : NAN);
		json_double(&j, "cache_misses_polluted", r->counted ? r->miss_with : NAN);
		json_double(&j, "cache_references_baseline",
			    r->counted ? r->ref_base : NAN);
		json_double(&j, "cache_references_polluted",
			    r->counted ? r->ref_with : NAN);
		json_end(&j);
	}
	json_end(&j);

	json_array(&j, "verdicts");
	for (int op = 0; op < NOPS; op++) {
		if (!(o->ops & (1u << op)) || !o->nrun[op])
			continue;
		char v[768];
		verdict(c, op, v, sizeof v);
		json_string(&j, NULL, v);
	}
	json_end(&j);

	json_array(&j, "skipped");
	for (size_t i = 0; i < o->nskips; i++) {
		const struct skip *s = &o->skips[i];
		json_object(&j, NULL);
		if (s->mode >= 0) {
			json_string(&j, "mode", mode_names[s->mode]);
		} else {
			json_string(&j, "op", op_names[s->op]);
			json_string(&j, "function", s->name);
		}
		json_string(&j, "reason", s->reason);
		json_end(&j);
	}
	json_end(&j);
	json_finish(&j);
}

/* Slowdown against victim size, one line per operation and function, for
 * the first mode that ran (after, unless it was not asked for). */
static int write_plot(const struct ctx *c, FILE *f)
{
	const struct popts *o = c->o;
	int mode = -1;
	for (int m = 0; m < MODE_COUNT && mode < 0; m++)
		for (size_t i = 0; i < c->nrows && mode < 0; i++)
			if (c->rows[i].mode == (enum mode)m)
				mode = m;
	if (mode < 0)
		return -1;
	struct plot_series series[NOPS * (FN_MAX + 1)];
	double xs[NOPS * (FN_MAX + 1)][MAX_VICTIMS];
	double ys[NOPS * (FN_MAX + 1)][MAX_VICTIMS];
	char names[NOPS * (FN_MAX + 1)][48];
	size_t ns = 0;
	for (int op = 0; op < NOPS; op++)
		for (size_t k = 0; k <= o->nrun[op]; k++) {
			const struct fn *fk = k < o->nrun[op] ? o->run[op][k] : &idle_fns[op];
			size_t n = 0;
			for (size_t i = 0; i < c->nrows && n < MAX_VICTIMS; i++) {
				const struct row *r = &c->rows[i];
				if (r->mode != (enum mode)mode || r->op != op || r->f != fk)
					continue;
				xs[ns][n] = (double)r->victim;
				ys[ns][n] = r->slowdown;
				n++;
			}
			if (!n)
				continue;
			snprintf(names[ns], sizeof names[ns], "%s %s", op_names[op],
				 fk->name);
			series[ns] = (struct plot_series){
				.name = names[ns], .count = n, .x = xs[ns], .y = ys[ns],
				.dashed = !is_idle(fk) && fn_streams(fk, o->size, 0) == 1,
			};
			ns++;
		}
	char title[128], sub[256], s[32];
	snprintf(title, sizeof title, "ntmem pollution (%s): victim slowdown, %s calls",
		 mode_names[mode], ntm_format_size(o->size, s, sizeof s));
	snprintf(sub, sizeof sub, "%s; victim on %s", o->m.cpu, c->victim.obtained);
	struct plot p = {
		.title = title,
		.subtitle = sub,
		.x_label = mode == MODE_REREAD ? "bytes re-read" : "victim working set",
		.y_label = "slowdown (x)",
		.x_scale = AXIS_LOG2_BYTES,
		.y_scale = AXIS_LOG10,
		.series = series,
		.nseries = ns,
	};
	return svg_plot(f, &p);
}

/* ------------------------------------------------------------------ */
/* Entry points                                                        */
/* ------------------------------------------------------------------ */

int pollution_parse_describe(int argc, char **argv, char *desc, size_t desc_len,
			     char *err, size_t err_len)
{
	struct popts *o = malloc(sizeof *o);
	if (!o) {
		snprintf(err, err_len, "out of memory");
		return -1;
	}
	int r = parse(argc, argv, o, err, err_len);
	if (!r && (o->help || o->list)) {
		snprintf(desc, desc_len, "%s", o->help ? "help" : "list");
		r = 1;
	} else if (!r) {
		describe(o, desc, desc_len);
	}
	free(o);
	return r;
}

int pollution_json(int argc, char **argv, FILE *out, char *err, size_t err_len)
{
	struct popts *o = malloc(sizeof *o);
	if (!o) {
		snprintf(err, err_len, "out of memory");
		return -1;
	}
	int r = parse(argc, argv, o, err, err_len);
	if (!r && (o->help || o->list)) {
		snprintf(err, err_len, "nothing measured: help asked for");
		r = -1;
	}
	if (!r) {
		struct ctx c = {.o = o};
		int usage_error;
		r = measure(&c, &usage_error, err, err_len);
		if (!r)
			write_json(&c, out);
		ctx_free(&c);
	}
	free(o);
	return r;
}

int cmd_pollution(int argc, char **argv)
{
	static struct popts opts;
	struct popts *o = &opts;
	char err[512];
	if (parse(argc, argv, o, err, sizeof err))
		cli_usage_error("%s", err);
	if (o->help) {
		usage(stdout, o);
		return 0;
	}
	if (o->list) {
		list_functions(stdout, o);
		return 0;
	}

	struct cli_output plot;
	if (o->plot)
		cli_output_open(&plot, "--plot", o->plot);
	struct ctx c = {.o = o, .progress = cli_progress_wanted()};
	int usage_error;
	if (measure(&c, &usage_error, err, sizeof err)) {
		if (o->plot)
			cli_output_abandon(&plot);
		ctx_free(&c);
		if (usage_error)
			cli_usage_error("%s", err);
		cli_fail("%s", err);
	}
	if (o->json)
		write_json(&c, stdout);
	else
		print_table(&c, stdout);
	/* The plot appears only if everything else was written. */
	if (fflush(stdout) || ferror(stdout))
		cli_fail("cannot write the results to standard output");
	if (o->plot) {
		if (write_plot(&c, plot.f))
			cli_fail("--plot: nothing to draw; '%s' not written", o->plot);
		if (cli_output_commit(&plot))
			cli_fail("--plot: cannot write '%s'", o->plot);
	}
	ctx_free(&c);
	return 0;
}
