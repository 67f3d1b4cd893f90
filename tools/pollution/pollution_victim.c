/*
 * pollution_victim.c - "ntmem pollution --victim -- CMD": the victim is
 * the user's own program.  CMD runs pinned on the victim CPU, alone (the
 * control) and while an aggressor thread on the aggressor CPU clears or
 * copies --size bytes with one function after another, over and over,
 * until CMD ends.  The arms (the control, then each function) take turns
 * in the rotated order of benchfn_rotate(), --runs times; each arm's
 * median time of CMD is set against the control's.  Where the control's
 * own runs vary more than a slowdown (the middle half of them, the
 * interquartile range, against the median: the range of a few runs on a
 * shared machine is mostly its one worst outlier), the slowdown is noise
 * and is called "too noisy to tell", not given a verdict.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>

#include "measure/benchfn.h"
#include "measure/supervise.h"
#include "output/json.h"
#include "pollution_modes.h"
#include "pollution_victim.h"
#include "util/size.h"

struct aggressor {
	struct ctx *c;
	const struct fn *f;
	int cpu;
	_Atomic int stop, ready;    /* ready: 1 running, -1 could not pin */
	uint64_t bytes, ns;
	int failed;                 /* a call refused, with errno */
	pthread_t id;
};

static void *aggress(void *arg)
{
	struct aggressor *a = arg;
	if (pin_to_cpu(a->cpu)) {
		atomic_store(&a->ready, -1);
		return NULL;
	}
	atomic_store(&a->ready, 1);
	uint64_t t0 = ntm_now_ns();
	while (!atomic_load_explicit(&a->stop, memory_order_relaxed) && !a->failed) {
		if (pol_run(a->c, a->f))
			a->failed = errno ? errno : EINVAL;
		else
			a->bytes += a->c->o->size;
	}
	a->ns = ntm_now_ns() - t0;
	return NULL;
}

/* One arm: its function (NULL: the control) and its samples. */
struct arm {
	int op;
	const struct fn *f;
	double *seconds;     /* [runs] */
	double gbps_sum;
	double median, lo, hi, q1, q3, slowdown;
	int noisy;           /* the control spreads wider than the slowdown */
};

struct victim_run {
	struct popts *o;
	struct ctx c;
	struct arm *arms;
	size_t narms;
	struct cli_error *e;
};

static void discard(void *ctx, const char *buf, size_t n)
{
	(void)ctx;
	(void)buf;
	(void)n;
}

/* CMD once, pinned, with arm a's aggressor running meanwhile. */
static int run_arm(void *ctx, size_t slot, long round)
{
	struct victim_run *v = ctx;
	struct arm *arm = &v->arms[slot];
	struct aggressor ag = {.c = &v->c, .f = arm->f, .cpu = v->o->cpu};
	struct supervise_io io = {.stdin_null = 1, .output = discard,
				  .cpu = v->o->victim_cpu};
	struct run_outcome out;
	if (arm->f) {
		if (supervise_thread(&ag.id, aggress, &ag))
			return cli_error(v->e, CLI_FAILED, "cannot start the aggressor");
		while (!atomic_load(&ag.ready))
			;
	}
	int rc = atomic_load(&ag.ready) < 0 ? 0 : supervise(v->o->command, &io, &out, v->e);
	if (arm->f) {
		atomic_store(&ag.stop, 1);
		pthread_join(ag.id, NULL);
		if (ag.ready < 0)
			return cli_error(v->e, CLI_USAGE, "--cpu: cannot run the aggressor "
					 "on CPU %d", v->o->cpu);
		if (ag.failed)
			return cli_error(v->e, CLI_FAILED, "%s refused to run: %s",
					 arm->f->name, strerror(ag.failed));
		arm->gbps_sum += ag.ns ? (double)ag.bytes / (double)ag.ns : 0;
	}
	if (rc)
		return -1;
	if (out.status)
		return cli_error(v->e, CLI_FAILED, "the victim %s %s %d (with %s "
				 "beside it); it must succeed to be timed",
				 v->o->command[0], WIFSIGNALED(out.status)
				 ? "was killed by signal" : "exited with status",
				 WIFSIGNALED(out.status) ? WTERMSIG(out.status)
							 : WEXITSTATUS(out.status),
				 arm->f ? arm->f->name : "no aggressor");
	arm->seconds[round] = out.wall_s;
	return 0;
}

/* The p-quantile of sorted v[n], interpolated. */
static double quantile(const double *v, long n, double p)
{
	double at = p * (double)(n - 1);
	long i = (long)at;
	return i + 1 < n ? v[i] + (at - (double)i) * (v[i + 1] - v[i]) : v[n - 1];
}

static int by_value(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;
	return (x > y) - (x < y);
}

/* Medians, ranges, and each arm against the control of its op. */
static void summarize(struct victim_run *v)
{
	long runs = v->o->runs;
	for (size_t i = 0; i < v->narms; i++) {
		struct arm *a = &v->arms[i];
		qsort(a->seconds, (size_t)runs, sizeof *a->seconds, by_value);
		a->median = quantile(a->seconds, runs, 0.5);
		a->q1 = quantile(a->seconds, runs, 0.25);
		a->q3 = quantile(a->seconds, runs, 0.75);
		a->lo = a->seconds[0];
		a->hi = a->seconds[runs - 1];
	}
	const struct arm *control = &v->arms[0];
	double spread = (control->q3 - control->q1) / control->median;
	for (size_t i = 0; i < v->narms; i++) {
		struct arm *a = &v->arms[i];
		a->slowdown = a->median / control->median;
		a->noisy = a->f && runs > 1 &&
			   spread >= (a->slowdown > 1 ? a->slowdown - 1
						      : 1 - a->slowdown);
	}
}

/* One run of each arm has no spread: nothing tells a slowdown from the
 * noise, so there is no verdict (issue 30: "vary by 0.0%" beside a 0.33x
 * slowdown was false precision). */
#define ONE_RUN_WHY "one run of each arm has no spread to tell a slowdown " \
		    "from noise (-r 3 or more)"

/* How much the control's runs vary: their interquartile range over
 * their median. */
static double control_spread(const struct victim_run *v)
{
	const struct arm *c = &v->arms[0];
	return (c->q3 - c->q1) / c->median;
}

static void seconds_text(double s, char *buf, size_t len)
{
	if (s < 1)
		snprintf(buf, len, "%.1f ms", s * 1e3);
	else
		snprintf(buf, len, "%.3f s", s);
}

/* The arm of function f for op, or NULL. */
static const struct arm *arm_of(const struct victim_run *v, int op,
				const struct fn *f)
{
	for (size_t i = 1; f && i < v->narms; i++)
		if (v->arms[i].op == op && v->arms[i].f == f)
			return &v->arms[i];
	return NULL;
}

/* Streaming against cached stores, for op: the policy's streaming
 * function against the cached vector loop (which always allocates), else
 * the plan's cached pick. */
static void verdict(const struct victim_run *v, int op, char *buf, size_t len)
{
	const struct popts *o = v->o;
	const struct arm *s = arm_of(v, op, o->streaming[op]);
	const struct arm *c = arm_of(v, op, o->reference[op]);
	char size[32];
	if (o->runs < 2) {
		snprintf(buf, len, "none: %s", ONE_RUN_WHY);
		return;
	}
	if (!c)
		c = arm_of(v, op, o->cached[op]);
	if (!s || !c) {
		snprintf(buf, len, "none: a streaming and a cached function must "
			 "both run (-f streaming,cached)");
		return;
	}
	double gap = c->slowdown - s->slowdown, spread = control_spread(v);
	int noisy = spread >= (gap > 0 ? gap : -gap);
	double s_rate = s->gbps_sum / (double)o->runs, c_rate = c->gbps_sum / (double)o->runs;
	double rates = s_rate > c_rate ? s_rate / c_rate : c_rate / s_rate;
	char note[200] = "";
	/* The aggressor runs flat out: a faster one also takes more of the
	 * memory bandwidth, which a cache-bound victim feels too. */
	if (rates >= 1.5)
		snprintf(note, sizeof note, " (%s wrote %.1fx the bytes per second of "
			 "%s: part of the difference is memory bandwidth, not the "
			 "cache)", s_rate > c_rate ? s->f->name : c->f->name, rates,
			 s_rate > c_rate ? c->f->name : s->f->name);
	snprintf(buf, len, "beside %s of %s a call, %s took %+.1f%% with %s "
		 "(streaming) and %+.1f%% with %s (cached): %s%s", pol_op_names[op],
		 ntm_format_size(o->size, size, sizeof size), o->command[0],
		 100 * (s->slowdown - 1), s->f->name, 100 * (c->slowdown - 1),
		 c->f->name,
		 noisy ? "too noisy to tell, the difference is within the "
			 "control's own variation"
		 : gap > 0 ? "streaming spares this program's cache"
			   : "streaming costs this program more than cached stores",
		 note);
}

static void print_text(const struct victim_run *v, FILE *f)
{
	const struct popts *o = v->o;
	char cmd[512], size[32], med[32], lo[32], hi[32];
	cli_format_command(o->command, cmd, sizeof cmd);
	fprintf(f, "ntmem pollution --victim: %s\n  on CPU %d; the aggressor on CPU "
		"%d, %s a call; %ld runs of each arm, in turns\n", cmd,
		o->victim_cpu, o->cpu, ntm_format_size(o->size, size, sizeof size),
		o->runs);
	fprintf(f, "  %-8s %-12s %11s  %-23s %9s %9s  %s\n", "op", "aggressor",
		"time", "range", "slowdown", "its GB/s", "");
	for (size_t i = 0; i < v->narms; i++) {
		const struct arm *a = &v->arms[i];
		char range[80];
		seconds_text(a->median, med, sizeof med);
		seconds_text(a->lo, lo, sizeof lo);
		seconds_text(a->hi, hi, sizeof hi);
		snprintf(range, sizeof range, "%s - %s", lo, hi);
		if (!a->f) {
			fprintf(f, "  %-8s %-12s %11s  %-23s %9s %9s  (control)\n", "-",
				"none", med, range, "1.000x", "-");
			continue;
		}
		fprintf(f, "  %-8s %-12s %11s  %-23s %8.3fx %9.1f  %s\n",
			pol_op_names[a->op], a->f->name, med, range, a->slowdown,
			a->gbps_sum / (double)o->runs,
			a->noisy ? "too noisy to tell" : "");
	}
	if (o->runs < 2)
		fprintf(f, "  one run: no spread, so no verdict (-r 3 or more)\n");
	else
		fprintf(f, "  the control's runs vary by %.1f%% (interquartile range "
			"over median): a slowdown within that is noise\n",
			100 * control_spread(v));
	for (int op = 0; op < NOPS; op++) {
		char line[768];
		if (!(o->ops & (1u << op)) || !o->nrun[op])
			continue;
		verdict(v, op, line, sizeof line);
		fprintf(f, "  verdict (%s): %s\n", pol_op_names[op], line);
	}
}

static void write_json(const struct victim_run *v, FILE *f)
{
	const struct popts *o = v->o;
	struct json j;
	json_start(&j, f);
	json_string(&j, "command", "pollution");
	json_string(&j, "version", ntmem_version());
	json_string(&j, "mode", "victim-command");
	json_array(&j, "argv");
	for (int i = 0; o->command[i]; i++)
		json_string(&j, NULL, o->command[i]);
	json_end(&j);
	json_int(&j, "cpu", o->cpu);
	json_int(&j, "victim_cpu", o->victim_cpu);
	json_uint(&j, "size", o->size);
	json_int(&j, "runs", o->runs);
	if (o->runs < 2)
		json_null(&j, "control_spread");
	else
		json_double(&j, "control_spread", control_spread(v));
	json_array(&j, "arms");
	for (size_t i = 0; i < v->narms; i++) {
		const struct arm *a = &v->arms[i];
		json_object(&j, NULL);
		if (a->f) {
			json_string(&j, "op", pol_op_names[a->op]);
			json_string(&j, "function", a->f->name);
			json_double(&j, "aggressor_gbps", a->gbps_sum / (double)o->runs);
		} else {
			json_null(&j, "op");
			json_string(&j, "function", "none");
		}
		json_double(&j, "seconds_median", a->median);
		json_double(&j, "seconds_min", a->lo);
		json_double(&j, "seconds_max", a->hi);
		json_double(&j, "slowdown", a->slowdown);
		if (o->runs < 2)
			json_null(&j, "noisy");
		else
			json_bool(&j, "noisy", a->noisy);
		json_end(&j);
	}
	json_end(&j);
	json_array(&j, "verdicts");
	for (int op = 0; op < NOPS; op++) {
		char line[768];
		if (!(o->ops & (1u << op)) || !o->nrun[op])
			continue;
		verdict(v, op, line, sizeof line);
		json_string(&j, NULL, line);
	}
	json_end(&j);
	json_finish(&j);
}

/* The control, then every function of every op asked for. */
static int plan_arms(struct victim_run *v)
{
	const struct popts *o = v->o;
	size_t n = 1;
	for (int op = 0; op < NOPS; op++)
		if (o->ops & (1u << op))
			n += o->nrun[op];
	v->arms = calloc(n, sizeof *v->arms);
	if (!v->arms)
		return -1;
	v->narms = 0;
	v->arms[v->narms++].op = -1;
	for (int op = 0; op < NOPS; op++)
		for (size_t i = 0; (o->ops & (1u << op)) && i < o->nrun[op]; i++) {
			v->arms[v->narms].op = op;
			v->arms[v->narms++].f = o->run[op][i];
		}
	for (size_t i = 0; i < v->narms; i++)
		if (!(v->arms[i].seconds = calloc((size_t)o->runs, sizeof(double))))
			return -1;
	return 0;
}

static int set_up(struct victim_run *v, struct cli_error *e)
{
	const struct popts *o = v->o;
	char why[256];
	if (o->victim_cpu < 0)
		return cli_error(e, CLI_USAGE, "--victim -- COMMAND: only CPU %d is "
				 "available to this process; the command and the "
				 "aggressor need a CPU each", o->cpu);
	if (plan_arms(v))
		return cli_error(e, CLI_FAILED, "out of memory");
	if (buffer_alloc(&v->c.dst, o->size, PAGES_2M, why, sizeof why))
		return cli_error(e, CLI_FAILED, "aggressor destination: %s", why);
	if (o->ops & (1u << NTMEM_OP_COPY)) {
		if (buffer_alloc(&v->c.src, o->size, PAGES_2M, why, sizeof why))
			return cli_error(e, CLI_FAILED, "aggressor source: %s", why);
		memset(v->c.src.p, 0x5a, o->size);
	}
	return 0;
}

int pol_victim_command(struct popts *o, struct cli_error *e)
{
	struct victim_run v = {.o = o, .c = {.o = o}, .e = e};
	int rc = set_up(&v, e);
	if (!rc)
		rc = benchfn_rotate(v.narms, o->runs, run_arm, &v);
	if (!rc) {
		summarize(&v);
		if (o->json)
			write_json(&v, stdout);
		else
			print_text(&v, stdout);
	}
	for (size_t i = 0; v.arms && i < v.narms; i++)
		free(v.arms[i].seconds);
	free(v.arms);
	buffer_free(&v.c.dst);
	buffer_free(&v.c.src);
	return rc;
}
