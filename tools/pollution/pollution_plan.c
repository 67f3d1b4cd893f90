/* pollution_plan.c - "ntmem pollution": from what was asked to what will
 * run.  The functions are chosen by role and rank (the registry's data),
 * never by name; the CPUs and memory are checked before anything is
 * allocated, so an impossible request fails at once with exit 2. */
#define _GNU_SOURCE
#include <errno.h>
#include <math.h>
#include <sched.h>
#include <stdio.h>
#include <string.h>

#include "pollution_modes.h"
#include "pollution_opts.h"
#include "util/size.h"


struct ntmem_cache_sizes pol_caches(void)
{
	struct ntmem_cpu_info cpu;
	ntmem_cpu_info(&cpu);
	return cpu.planned;
}

/* Half of L1d, of L2 and of the per-CPU LLC share.  A victim as large as
 * its level does not stay in it: code, stack, page tables, a sibling
 * thread and, with a cyclic chase, any one extra line in a set evict it,
 * so half is the working set that level really holds. */
size_t pol_default_victims(const struct ntmem_cache_sizes *c, size_t *v)
{
	size_t l1 = c->l1d ? c->l1d : 32 * KiB;
	size_t l2 = c->l2 ? c->l2 : 512 * KiB;
	size_t share = c->l3 ? c->l3 / (c->l3_shared_by ? c->l3_shared_by : 1) : 0;
	if (!share)
		share = 8 * MiB;
	size_t want[3] = {l1 / 2, l2 / 2, share / 2}, n = 0;
	for (size_t i = 0; i < 3; i++) {
		size_t s = want[i] & ~(size_t)(CHASE_LINE - 1);
		if (s < 2 * CHASE_LINE || (n && v[n - 1] >= s))
			continue;  /* keep them ascending and distinct */
		v[n++] = s;
	}
	return n;
}

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

const struct fn *pol_policy_fn(const struct popts *o, int op, int streaming)
{
	int id = ntmem_policy_choice((enum ntmem_op)op, 0, o->size,
				     streaming ? NTMEM_F_NONTEMPORAL
					       : NTMEM_F_TEMPORAL);
	/* The libc variant is the "glibc" entry, which carries its id. */
	for (size_t i = 0; id >= 0 && i < o->nfns[op]; i++)
		if ((o->fns[op][i].kind == FN_VARIANT || o->fns[op][i].kind == FN_LIBC) &&
		    o->fns[op][i].variant_id == id)
			return &o->fns[op][i];
	return NULL;
}

/* name for op: a function name, or the aliases "streaming" and "cached"
 * (the policy's variants).  NULL if op has no such function. */
static const struct fn *resolve(const struct popts *o, int op, const char *name)
{
	if (!strcmp(name, "streaming"))
		return pol_policy_fn(o, op, 1);
	if (!strcmp(name, "cached"))
		return pol_policy_fn(o, op, 0);
	if (!strcmp(name, "hinted"))
		return &pol_hinted[op];
	if (!strcmp(name, "streamread"))
		return &pol_streamread[op];
	return fn_find(o->fns[op], o->nfns[op], name);
}

/* The cached loop: ordinary stores that always allocate lines, the
 * reference a streaming write is compared with.  (String instructions are
 * not: some CPUs stop allocating for extents above about the LLC.) */
static const struct fn *cached_loop(const struct popts *o, int op)
{
	const struct fn *f = fn_best(o->fns[op], o->nfns[op], NTMEM_ROLE_VECTOR, 0);
	return f ? f : fn_best(o->fns[op], o->nfns[op], NTMEM_ROLE_PLAIN, 0);
}

static void add_run(struct popts *o, int op, const struct fn *f)
{
	if (!f)
		return;
	for (size_t i = 0; i < o->nrun[op]; i++)
		if (o->run[op][i] == f)
			return;
	if (f->supported) {
		o->run[op][o->nrun[op]++] = f;
		return;
	}
	for (size_t i = 0; i < o->nskips; i++)
		if (o->skips[i].op == op && !strcmp(o->skips[i].name, f->name))
			return;
	add_skip(o, -1, op, f->name,
		 f->why_unsupported ? f->why_unsupported : "not supported here");
}

/* The default: libc, the best string instruction (else the policy's
 * cached variant), the policy's streaming variant, the automatic path,
 * and the cached loop reread compares with. */
static void default_functions(struct popts *o, int op)
{
	const struct fn *all = o->fns[op];
	size_t n = o->nfns[op];
	const struct fn *string = fn_best(all, n, NTMEM_ROLE_STRING, 0);
	add_run(o, op, fn_of_kind(all, n, FN_LIBC));
	add_run(o, op, string ? string : pol_policy_fn(o, op, 0));
	add_run(o, op, pol_policy_fn(o, op, 1));
	add_run(o, op, fn_of_kind(all, n, FN_AUTO));
	add_run(o, op, cached_loop(o, op));
}

static int chosen_functions(struct popts *o, struct cli_error *e)
{
	char buf[1024], *items[64];
	size_t n;
	if (cli_parse_list("--function", o->fn_arg, buf, sizeof buf, items, 64, &n, e))
		return -1;
	unsigned used = 0;
	for (size_t i = 0; i < n; i++) {
		unsigned found = 0;
		for (int op = 0; op < NOPS; op++) {
			const struct fn *f = (o->ops & (1u << op))
				? resolve(o, op, items[i]) : NULL;
			if (f)
				add_run(o, op, f);
			found |= f ? 1u << op : 0;
		}
		if (!found)
			return cli_error(e, CLI_USAGE, "--function: unknown %s function "
					 "'%s' (try -f help)",
					 o->ops == 1u << NTMEM_OP_SET ? "memset" :
					 o->ops == 1u << NTMEM_OP_COPY ? "memcpy" :
					 "memset or memcpy", items[i]);
		used |= found;
	}
	if (!o->ops_given) {
		o->ops = used;
		return 0;
	}
	for (int op = 0; op < NOPS; op++)
		if ((o->ops & (1u << op)) && !(used & (1u << op)))
			return cli_error(e, CLI_USAGE, "--function: '%s' names no %s "
					 "function (try -f help)", o->fn_arg,
					 pol_op_names[op]);
	return 0;
}

static int plan_functions(struct popts *o, struct cli_error *e)
{
	for (int op = 0; op < NOPS; op++)
		o->nfns[op] = fn_list((enum ntmem_op)op, o->fns[op], FN_MAX);
	if (o->fn_arg && chosen_functions(o, e))
		return -1;
	for (int op = 0; op < NOPS && !o->fn_arg; op++)
		if (o->ops & (1u << op))
			default_functions(o, op);
	size_t runnable = 0;
	for (int op = 0; op < NOPS; op++)
		if (o->ops & (1u << op))
			runnable += o->nrun[op];
	if (runnable)
		return 0;
	char why[300] = "";
	for (size_t i = 0; i < o->nskips; i++) {
		size_t l = strlen(why);
		snprintf(why + l, sizeof why - l, "%s%s %s: %s", i ? "; " : "",
			 pol_op_names[o->skips[i].op], o->skips[i].name,
			 o->skips[i].reason);
	}
	return cli_error(e, CLI_USAGE, "--function: nothing to run: %s", why);
}

/* The verdict's pair (the policy's streaming variant, else any that
 * streams at this size; the best string instruction, else any cached
 * variant, else anything that does not stream) and reread's reference. */
static void plan_verdict_pair(struct popts *o, int op)
{
	const struct fn *ps = pol_policy_fn(o, op, 1), *string = NULL;
	for (size_t i = 0; i < o->nrun[op]; i++) {
		const struct fn *f = o->run[op][i];
		if (f == ps)
			o->streaming[op] = f;
		if (f->kind == FN_VARIANT && f->role == NTMEM_ROLE_STRING &&
		    (!string || f->rank > string->rank))
			string = f;
	}
	o->cached[op] = string;
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
	o->reference[op] = cached_loop(o, op);
	if (!o->reference[op])
		o->reference[op] = o->cached[op];
}

/* The first CPU of allowed from `from` on, wrapping; -1 if none. */
static int next_cpu(const cpu_set_t *allowed, int from, int skip)
{
	for (int k = 0; k < CPU_SETSIZE; k++) {
		int i = (from + k) % CPU_SETSIZE;
		if (i != skip && CPU_ISSET(i, allowed))
			return i;
	}
	return -1;
}

static int plan_cpus(struct popts *o, struct cli_error *e)
{
	cpu_set_t allowed;
	CPU_ZERO(&allowed);
	if (sched_getaffinity(0, sizeof allowed, &allowed))
		return cli_error(e, CLI_USAGE, "cannot read this process's CPU "
				 "affinity: %s", strerror(errno));
	char may[256];
	if (o->cpu >= 0 && !CPU_ISSET(o->cpu, &allowed))
		return cli_error(e, CLI_USAGE, "--cpu: CPU %d is not available to this "
				 "process (it may use %s)", o->cpu,
				 allowed_cpus_text(may, sizeof may));
	if (o->victim_cpu >= 0 && !CPU_ISSET(o->victim_cpu, &allowed))
		return cli_error(e, CLI_USAGE, "--victim-cpu: CPU %d is not available "
				 "to this process (it may use %s)", o->victim_cpu,
				 allowed_cpus_text(may, sizeof may));
	if (o->cpu < 0)
		o->cpu = next_cpu(&allowed, 0, -1);
	if (o->cpu < 0)
		return cli_error(e, CLI_USAGE, "no CPU is available to this process");
	if (o->victim_cpu == o->cpu)
		return cli_error(e, CLI_USAGE, "--victim-cpu: must differ from --cpu "
				 "(%d)", o->cpu);
	if (o->victim_cpu < 0)
		o->victim_cpu = next_cpu(&allowed, o->cpu + 1, o->cpu);
	if ((o->modes & (1u << MODE_CONCURRENT)) && o->victim_cpu < 0) {
		char why[160];
		snprintf(why, sizeof why, "only CPU %d is available to this process: "
			 "the victim needs a CPU of its own", o->cpu);
		add_skip(o, MODE_CONCURRENT, -1, NULL, why);
	}
	return 0;
}

/* Every victim on its own, then everything together, in MemAvailable. */
static int plan_memory(struct popts *o, struct cli_error *e)
{
	size_t vmax = 0, avail = o->m.mem_available;
	for (size_t i = 0; i < o->nvictims; i++)
		vmax = o->victims[i] > vmax ? o->victims[i] : vmax;
	if (!avail)
		return 0;
	char a[32], b[32], t[32];
	ntm_format_size(avail, a, sizeof a);
	for (size_t i = 0; i < o->nvictims; i++)
		if (o->victims[i] > avail)
			return cli_error(e, CLI_USAGE, "--victim: %s does not fit in "
					 "available memory (%s MemAvailable)",
					 ntm_format_size(o->victims[i], b, sizeof b), a);
	size_t copies = (o->ops & (1u << NTMEM_OP_COPY)) ? 2 : 1;
	int overflow = o->size > (SIZE_MAX - vmax) / copies;
	if (!overflow && vmax + o->size * copies <= avail)
		return 0;
	return cli_error(e, CLI_USAGE, "--size: %s%s and a victim of %s do not fit "
			 "in available memory (%s MemAvailable)",
			 ntm_format_size(o->size, b, sizeof b),
			 copies == 2 ? " (twice, memcpy's source and destination)" : "",
			 ntm_format_size(vmax, t, sizeof t), a);
}

/* The victim the verdict quotes: the one nearest half the L2. */
static void plan_verdict_victim(struct popts *o)
{
	size_t l2 = (o->caches.l2 ? o->caches.l2 : 512 * KiB) / 2;
	double best = INFINITY;
	for (size_t i = 0; i < o->nvictims; i++) {
		double d = fabs(log2((double)o->victims[i] / (double)l2));
		if (d < best) {
			best = d;
			o->verdict_victim = o->victims[i];
		}
	}
}

int pol_plan(struct popts *o, struct cli_error *e)
{
	o->caches = pol_caches();
	machine_facts(&o->m);
	if (!o->nvictims)
		o->nvictims = pol_default_victims(&o->caches, o->victims);
	if (plan_functions(o, e))
		return -1;
	for (int op = 0; op < NOPS; op++)
		plan_verdict_pair(o, op);
	if (plan_cpus(o, e) || plan_memory(o, e))
		return -1;
	plan_verdict_victim(o);
	return 0;
}

void pol_list_functions(FILE *f, struct popts *o)
{
	for (int op = 0; op < NOPS; op++) {
		o->nfns[op] = fn_list((enum ntmem_op)op, o->fns[op], FN_MAX);
		if (!(o->ops & (1u << op)))
			continue;
		fprintf(f, "%s functions:\n", pol_op_names[op]);
		for (size_t i = 0; i < o->nfns[op]; i++) {
			const struct fn *x = &o->fns[op][i];
			fprintf(f, "  %-12s %-9s %s%s%s\n", x->name,
				x->kind != FN_VARIANT ? "" :
				x->streaming ? "streams" : "cached", x->description,
				x->supported ? "" : "; unsupported: ",
				x->supported ? "" :
				x->why_unsupported ? x->why_unsupported : "");
		}
		const struct fn *s = pol_policy_fn(o, op, 1), *c = pol_policy_fn(o, op, 0);
		fprintf(f, "  %-12s %-9s the policy's streaming variant (%s)\n",
			"streaming", "", s ? s->name : "none");
		fprintf(f, "  %-12s %-9s the policy's cached variant (%s)\n",
			"cached", "", c ? c->name : "none");
		fprintf(f, "  %-12s %-9s %s\n", "hinted", "",
			pol_hinted[op].description);
		fprintf(f, "  %-12s %-9s %s\n", "streamread", "",
			pol_streamread[op].description);
	}
}
