/* pollution_opts.h - "ntmem pollution": what the command line asks for
 * (pol_parse: the command line only) and the plan made from it
 * (pol_plan: the functions, CPUs and memory), shared by the command's
 * files: pollution.c, pollution_opts.c, pollution_plan.c, the modes and
 * the report. */
#ifndef NTM_POLLUTION_OPTS_H
#define NTM_POLLUTION_OPTS_H

#include <stddef.h>

#include "measure/chase.h"
#include "output/cli.h"
#include "measure/functions.h"
#include "measure/measure.h"

enum mode { MODE_AFTER, MODE_CONCURRENT, MODE_REREAD, MODE_MIXED, MODE_COUNT };

extern const char *const pol_mode_names[MODE_COUNT];

#define NOPS 2
extern const char *const pol_op_names[NOPS];  /* "memset", "memcpy" */

#define MAX_VICTIMS 16
#define MAX_SKIPS (2 * FN_MAX + MODE_COUNT)
#define DEFAULT_SIZE ((size_t)256 << 20)
#define DEFAULT_HOT ((size_t)1 << 20)
#define DEFAULT_RUNS 5
#define DEFAULT_LOOKUPS 262144
#define DEFAULT_ROUNDS 8

/* Something that will not run, and why: a whole mode, or a function of
 * an operation. */
struct skip {
	int mode;          /* a whole mode, or -1 */
	int op;            /* a function of op, or -1 */
	char name[32];
	char reason[200];
};

struct popts {
	/* The command line, as pol_parse reads it. */
	unsigned modes;                     /* 1 << enum mode */
	unsigned ops;                       /* 1 << enum ntmem_op; pol_plan
					       narrows it to the functions' */
	int ops_given;
	const char *fn_arg;                 /* --function; NULL: default */
	size_t size;
	size_t hot;                         /* hinted's hot region, bytes */
	size_t victims[MAX_VICTIMS];
	size_t nvictims;                    /* 0: the default victims */
	long runs, lookups, rounds;
	int cpu, victim_cpu;                /* -1: chosen by pol_plan */
	enum page_request pages;
	int json;
	const char *plot;
	char **command;                     /* --victim -- COMMAND: the victim
					       is this program; NULL */
	int help;                           /* --help: nothing else checked */
	int list;                           /* -f help */

	/* The plan, from pol_plan. */
	struct fn fns[NOPS][FN_MAX];        /* fn_list, per op */
	size_t nfns[NOPS];
	const struct fn *run[NOPS][FN_MAX]; /* chosen and supported */
	size_t nrun[NOPS];
	const struct fn *reference[NOPS];   /* reread: the cached write */
	const struct fn *streaming[NOPS];   /* the verdict's streaming fn */
	const struct fn *cached[NOPS];      /* the verdict's cached fn */
	struct skip skips[MAX_SKIPS];
	size_t nskips;
	size_t verdict_victim;              /* the one nearest half the L2 */
	struct ntmem_cache_sizes caches;
	struct machine m;
};

/* Read argv (argv[0] is "pollution") into *o.  Returns 0, or -1 with a
 * usage error naming the argument. */
int pol_parse(int argc, char **argv, struct popts *o, struct cli_error *e);

/* Choose the functions, CPUs and victims; check memory.  Returns 0, or -1
 * with a usage error.  Pins nothing: measuring does. */
int pol_plan(struct popts *o, struct cli_error *e);

/* The caches the defaults come from: what the library planned with. */
struct ntmem_cache_sizes pol_caches(void);

/* The default victims for caches c into v[MAX_VICTIMS]; the count. */
size_t pol_default_victims(const struct ntmem_cache_sizes *c, size_t *v);

void pol_usage(FILE *f);
/* '-f help': every function of the operations o asks for. */
void pol_list_functions(FILE *f, struct popts *o);

/* The parsed and planned settings as one canonical line, for the tests. */
void pol_describe(const struct popts *o, char *buf, size_t len);

/* The policy's streaming (or cached) variant for op at o->size, as an
 * entry of o->fns[op] (filled by pol_plan), or NULL. */
const struct fn *pol_policy_fn(const struct popts *o, int op, int streaming);

#endif
