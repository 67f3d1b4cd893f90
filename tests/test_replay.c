/* test_replay.c - the built-in ladders and the calibration fitter against
 * every recorded machine (each folder of data/machines/), by computation alone.
 *
 * For each machine, its CPU's identity (machine.identity in its tables)
 * goes to the built-in ladder code as a struct cpu, and for each class
 * and size of its tables the function the ladder picks is looked up in
 * them.  Its recorded median must be at least 0.95x the best function's
 * (0.90x below 1 KiB) and 0.97x the C library's.  The fitter of
 * "ntmem calibrate", fed the same table, must fit a ladder that passes
 * the same check, and the rule for CPUs not recorded, given the same CPU
 * with an unknown model, must be 0.97x the C library's.  Sizes the small path serves are the same code whatever
 * the ladder, and are left to test_small and bench.
 *
 * "best" is the best of the variants and glibc; auto, safe and
 * safe_unblocked are ntmem's own dispatch and do not count.  Where the
 * entry points run the first rung's vector loop inline, the recorded auto
 * row stands for it when it ran that loop too. */
#define _GNU_SOURCE
#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "calibrate/ladder_fit.h"
#include "dispatch/builtin.h"
#include "dispatch/cpu.h"
#include "dispatch/policy.h"
#include "dispatch/registry.h"
#include "dispatch/select.h"
#include "dispatch/width.h"
#include "harness.h"
#include "machines.h"
#include "util/size.h"

#define MAX_SIZES 32
#define MAX_FNS 32
#define DATA "data/machines"

static const char *const class_file[3] = {"set0.json", "set5a.json", "cpy.json"};

struct table {
	int nsizes, nfns;
	size_t size[MAX_SIZES];
	char fn[MAX_FNS][24];
	double gbps[MAX_SIZES][MAX_FNS];  /* 0: not measured */
	char auto_ran[MAX_SIZES][24];     /* what auto dispatched to */
};

static int fn_index(struct table *t, const char *name, int add)
{
	for (int i = 0; i < t->nfns; i++)
		if (!strcmp(t->fn[i], name))
			return i;
	if (!add || t->nfns == MAX_FNS)
		return -1;
	snprintf(t->fn[t->nfns], sizeof t->fn[0], "%s", name);
	return t->nfns++;
}

static int size_index(struct table *t, size_t size)
{
	for (int i = 0; i < t->nsizes; i++)
		if (t->size[i] == size)
			return i;
	if (t->nsizes == MAX_SIZES)
		return -1;
	t->size[t->nsizes] = size;
	return t->nsizes++;
}

/* The table of results (single-thread rows) of a bench --json file. */
static struct t_json *load(const char *path, struct table *t)
{
	char err[200];
	memset(t, 0, sizeof *t);
	FILE *f = fopen(path, "r");
	if (!f)
		return NULL;
	size_t cap = 1 << 20, len = 0;
	char *buf = malloc(cap + 1);
	size_t got;
	while (buf && (got = fread(buf + len, 1, cap - len, f)) > 0) {
		len += got;
		if (len == cap && !(buf = realloc(buf, (cap *= 2) + 1)))
			break;
	}
	fclose(f);
	if (!buf)
		return NULL;
	buf[len] = '\0';
	struct t_json *j = t_json_parse(buf, err, sizeof err);
	free(buf);
	const struct t_json *rows = t_json_get(j, "results");
	for (size_t i = 0; rows && i < rows->count; i++) {
		const struct t_json *r = &rows->items[i];
		if (machine_number(r, "threads") > 1)
			continue;
		int s = size_index(t, (size_t)machine_number(r, "size"));
		int k = fn_index(t, machine_text(r, "function"), 1);
		if (s < 0 || k < 0)
			continue;
		t->gbps[s][k] = machine_number(r, "gbps_median");
		if (!strcmp(t->fn[k], "auto"))
			snprintf(t->auto_ran[s], sizeof t->auto_ran[s], "%s",
				 machine_text(r, "dispatch"));
	}
	return j;
}

/* The row of t a variant's calls are recorded under.  Tables recorded
 * before a streaming copy's order of lines was a variant of its own
 * measured the entry's order under the line-by-line copy's name (the
 * Xeon's four pages at once, Zen 3's source read ahead). */
static const char *row_of(const struct table *t, const struct variant *v)
{
	if (v->role == NTMEM_ROLE_LIBC)
		return "glibc";
	if (v->shape != NTM_SHAPE_LINES && fn_index((struct table *)t, v->name, 0) < 0)
		return ntm_ranked(v->op, v->role, 0, v->requires)->name;
	return v->name;
}

/* Every check of one ladder over a class's recordings: a size fails
 * only if it fails in every recording that measured it (the rule:
 * it fails again in a second run). */
struct verdict {
	int glibc_only;    /* judge against glibc alone */
	int n;
	size_t size[4 * MAX_SIZES];
	int ok[4 * MAX_SIZES];
	double worst_best, worst_glibc;
	char failure[4 * MAX_SIZES][160];
	int unjudged;           /* picks a recording has no row for */
	char unjudged_row[96];  /* the first */
};

static void verdict_start(struct verdict *v, int glibc_only)
{
	memset(v, 0, sizeof *v);
	v->glibc_only = glibc_only;
	v->worst_best = v->worst_glibc = 9;
}

/* Sizes checked, and those that failed in every recording; the first
 * failure's words into why. */
static int verdict_failed(const struct verdict *v, int *checked, char *why,
			  size_t len)
{
	int failed = 0;
	*checked = 0;
	snprintf(why, len, "no size measured");
	for (int i = 0; i < v->n; i++) {
		int first = 1, all_failed = 1;
		for (int k = 0; k < i; k++)
			first &= v->size[k] != v->size[i];
		if (!first)
			continue;
		for (int k = i; k < v->n; k++)
			if (v->size[k] == v->size[i] && v->ok[k])
				all_failed = 0;
		++*checked;
		if (all_failed && !failed++)
			snprintf(why, len, "%s", v->failure[i]);
	}
	return failed;
}

/* Check one pick at table size s: the recorded median of row (or of
 * auto, when auto ran that same loop inline) against the best and glibc. */
static void judge(const struct table *t, int s, const char *row, int inline_loop,
		  struct verdict *v)
{
	double best = 0, glibc = 0, got = 0;
	for (int k = 0; k < t->nfns; k++) {
		const char *f = t->fn[k];
		double g = t->gbps[s][k];
		if (!strcmp(f, "glibc"))
			glibc = g;
		if (!strcmp(f, row))
			got = g;
		if (strcmp(f, "auto") && strncmp(f, "safe", 4) && g > best)
			best = g;
	}
	int a = fn_index((struct table *)t, "auto", 0);
	if (inline_loop && a >= 0 && !strcmp(t->auto_ran[s], row) && t->gbps[s][a] > got)
		got = t->gbps[s][a];
	if (!best || !glibc || v->n == 4 * MAX_SIZES)
		return;  /* not measured there: the data is partial */
	if (!got) {  /* a variant this table has no row for */
		if (!v->unjudged++)
			snprintf(v->unjudged_row, sizeof v->unjudged_row, "%s at %zu B",
				 row, t->size[s]);
		return;
	}
	double rb = got / best, rg = got / glibc;
	double need_best = t->size[s] < 1024 ? 0.90 : 0.95;
	if (rb < v->worst_best)
		v->worst_best = rb;
	if (rg < v->worst_glibc)
		v->worst_glibc = rg;
	v->size[v->n] = t->size[s];
	v->ok[v->n] = (v->glibc_only || rb >= need_best) && rg >= 0.97;
	snprintf(v->failure[v->n], sizeof v->failure[0],
		 "%zu B: %s %.1f GB/s is %.2fx the best, %.2fx glibc", t->size[s],
		 row, got, rb, rg);
	v->n++;
}

/* The built-in ladder of cls for cpu, replayed on t: the policy the
 * library would build there (tunables: NULL, or "builtin=generic" for
 * the rule for CPUs not recorded), asked through the selector, as every
 * call asks. */
static void replay_builtin(const struct cpu *cpu, const char *tunables, int cls,
			   const struct table *t, struct verdict *v)
{
	static struct policy p;
	ntm_policy_build(&p, cpu, tunables, NULL);
	for (int s = 0; s < t->nsizes; s++) {
		struct ntm_route r = ntm_select(&p, (enum ntmem_class)cls, t->size[s], 0, 0);
		if (r.kind == NTM_ROUTE_SMALL)
			continue;
		judge(t, s, row_of(t, ntm_route_variant(r)), r.kind == NTM_ROUTE_INLINE, v);
	}
}

/* The fitter of "ntmem calibrate", fed t's candidates (every variant this
 * CPU runs, glibc as libc, the width's loop preferred, a 3% margin as
 * calibrate uses), replayed on t. */
static void replay_fitter(const struct cpu *cpu, int cls, const struct table *t,
			  size_t small_max, struct verdict *v)
{
	int cand[FIT_MAX_CANDS];
	struct fit_input in = {.preferred = -1, .margin = 0.03,
			       .max_rungs = NTMEM_LADDER_MAX};
	const struct variant *loop = ntm_width_loop(ntm_op_of((enum ntmem_class)cls),
						    ntm_width_for(cpu->usable), cpu->usable);
	for (int k = 0; k < t->nfns && in.ncands < FIT_MAX_CANDS; k++) {
		const char *f = t->fn[k];
		if (!strcmp(f, "auto") || !strncmp(f, "safe", 4))
			continue;
		const struct variant *var = ntm_variant_named(
			ntm_op_of((enum ntmem_class)cls), strcmp(f, "glibc") ? f : "libc");
		if (!var || (var->requires & ~cpu->usable))
			continue;
		if (var == loop)
			in.preferred = (int)in.ncands;
		cand[in.ncands++] = k;
	}
	static struct fit_point pts[FIT_MAX_POINTS];
	int at[FIT_MAX_POINTS];
	memset(pts, 0, sizeof pts);
	for (int s = 0; s < t->nsizes && in.npoints < FIT_MAX_POINTS; s++) {
		if (t->size[s] <= small_max)
			continue;
		struct fit_point *p = &pts[in.npoints];
		double best = 0;
		for (size_t c = 0; c < in.ncands; c++)
			if (t->gbps[s][cand[c]] > best)
				best = t->gbps[s][cand[c]];
		if (best == 0)
			continue;  /* a partial table: no candidate measured here */
		p->size = t->size[s];
		for (size_t c = 0; c < in.ncands; c++) {
			p->gbps[c] = t->gbps[s][cand[c]];
			p->measured[c] = p->gbps[c] > 0;
			p->ratio[c] = best > 0 ? p->gbps[c] / best : 0;
		}
		at[in.npoints++] = s;
	}
	in.points = pts;
	struct fit_output out;
	if (fit_ladder(&in, &out))
		return;
	for (unsigned r = 0; r < out.count; r++)
		for (size_t i = out.rungs[r].first; i <= out.rungs[r].last; i++)
			judge(t, at[i], t->fn[cand[out.rungs[r].cand]],
			      r == 0 && (int)out.rungs[r].cand == in.preferred, v);
}

static void report(const char *what, const char *ladder, const struct verdict *v)
{
	char name[256], why[160];
	int checked, failed = verdict_failed(v, &checked, why, sizeof why);
	snprintf(name, sizeof name, "%s: %s", what, ladder);
	t_check(checked && !failed, name, "%d of %d sizes fail in every recording; "
		"first: %s", failed, checked, why);
	/* Not silently: a table recorded before a variant existed cannot
	 * judge a pick of it there (the other recordings do). */
	if (v->unjudged) {
		char skip[256];
		snprintf(skip, sizeof skip, "%d picks have no row in a recording (a partial "
			 "table, or one older than the variant); first: %s", v->unjudged,
			 v->unjudged_row);
		snprintf(name, sizeof name, "%s: %s, picks a recording lacks", what, ladder);
		t_skip(name, skip);
	}
}

/* Each class's recordings: NAME.json, then NAME.2.json and so on (up to
 * NAME.9.json), from separate runs of "make record". */
static void replay_machine(const char *name)
{
	for (int cls = 0; cls < 3; cls++) {
		struct verdict b, f, u;
		verdict_start(&b, 0);
		verdict_start(&f, 0);
		verdict_start(&u, 1);
		int recordings = 0;
		char what[160];
		snprintf(what, sizeof what, "replay %s %s", name, class_file[cls]);
		for (int r = 1; r <= 9; r++) {
			char path[512], suffix[8] = "";
			static struct table t;
			if (r > 1)
				snprintf(suffix, sizeof suffix, ".%d", r);
			snprintf(path, sizeof path, "%s/%s/%.*s%s.json", DATA, name,
				 (int)(strlen(class_file[cls]) - 5), class_file[cls], suffix);
			struct t_json *j = load(path, &t);
			if (!j)
				continue;
			const struct t_json *machine = t_json_get(j, "machine");
			const struct t_json *id = t_json_get(machine, "identity");
			if (!id) {
				t_fail(what, "no machine.identity in %s", path);
				t_json_free(j);
				continue;
			}
#ifndef __x86_64__
			if (!strcmp(machine_text(id, "arch"), "x86_64")) {
				t_json_free(j);
				break;
			}
#endif
			struct cpu cpu;
			machine_cpu_from(id, machine, &cpu);
			size_t small_max = ntm_width_small_max(ntm_width_for(cpu.usable));
			replay_builtin(&cpu, NULL, cls, &t, &b);
			replay_fitter(&cpu, cls, &t, small_max, &f);
			/* The same CPU with its entry hidden: the rule for its
			 * family must still lose to the C library nowhere. */
			replay_builtin(&cpu, "builtin=generic", cls, &t, &u);
			recordings++;
			t_json_free(j);
		}
		if (!recordings) {
#ifndef __x86_64__
			t_skip(what, "not recorded here, or an x86-64 machine, which "
			       "replays on the x86-64 registry only");
#endif
			continue;
		}
		report(what, "the built-in ladder", &b);
		report(what, "the calibration fitter", &f);
		report(what, "the rule for CPUs not recorded, against glibc", &u);
		printf("  %s (%d recording%s): built-in worst %.2fx best, %.2fx glibc; "
		       "fitter %.2fx, %.2fx; general rule %.2fx glibc\n", what,
		       recordings, recordings == 1 ? "" : "s", b.worst_best,
		       b.worst_glibc, f.worst_best, f.worst_glibc, u.worst_glibc);
	}
}

int main(void)
{
	DIR *d = opendir(DATA);
	if (!d) {
		t_skip("replay", "not run from the repository root (no " DATA ")");
		return t_finish();
	}
	struct dirent *e;
	int machines = 0;
	while ((e = readdir(d)))
		if (e->d_name[0] != '.') {
			replay_machine(e->d_name);
			machines++;
		}
	closedir(d);
	t_check(machines > 0, "replay: machines recorded", "none in " DATA);
	return t_finish();
}
