/* calibrate_report.c - what "ntmem calibrate" found, as text: per call
 * class the ladder written and where it came from (the fit, where it beat
 * the built-in ladder twice, else the built-in one), the fit and its
 * confidence, the rounds against the built-in ladder, the table behind
 * it; and a verdict of a line or two per class. */
#define _GNU_SOURCE
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include "calibrate.h"
#include "introspect.h"
#include "util/size.h"

static const char *variant_name(int id)
{
	const struct variant *v = ntm_variant(id);
	return v ? v->name : "?";
}

/* The best and second-best measured candidates at a point. */
static void top_two(const struct cal_class *k, const struct fit_point *p,
		    int *first, int *second)
{
	*first = *second = -1;
	for (size_t c = 0; c < k->ncands; c++) {
		if (!p->measured[c])
			continue;
		if (*first < 0 || p->gbps[c] > p->gbps[*first]) {
			*second = *first;
			*first = (int)c;
		} else if (*second < 0 || p->gbps[c] > p->gbps[*second]) {
			*second = (int)c;
		}
	}
}

/* Each fitted rung's confidence in a line. */
static void print_confidence(const struct cal_class *k)
{
	char s[32], t[32];
	for (unsigned r = 0; r < k->fit.count; r++) {
		struct cal_confidence c;
		cal_rung_confidence(k, r, &c);
		size_t to = k->fit.rungs[r].to;
		snprintf(t, sizeof t, "%s %s", to == SIZE_MAX ? "from" : "up to",
			 ntm_format_size(to == SIZE_MAX && r ? k->fit.rungs[r - 1].to : to,
					 s, sizeof s));
		printf("    %-11s %-15s ", k->cands[k->fit.rungs[r].cand].name,
		       to == SIZE_MAX && !r ? "at every size" : t);
		if (!c.rival)
			printf("no other candidate measured\n");
		else if (c.lead >= 1 + MARGIN)
			printf("clear, at least %.2fx %s (won %ld of %ld rounds there)\n",
			       c.lead, c.rival, c.wins, c.rounds);
		else if (c.lead >= 1 - MARGIN)
			printf("tied within noise with %s (%.2fx, won %ld of %ld rounds)\n",
			       c.rival, c.lead, c.wins, c.rounds);
		else
			printf("behind %s at one size (%.2fx, won %ld of %ld rounds)\n",
			       c.rival, c.lead, c.wins, c.rounds);
	}
	if (!k->nundecided)
		return;
	printf("    too noisy to decide at");
	for (size_t i = 0; i < k->nundecided; i++)
		printf("%s %s", i ? "," : "",
		       ntm_format_size(k->points[k->undecided[i]].size, s, sizeof s));
	printf(" (the rounds disagreed even at twice the runs): the built-in "
	       "ladder's choice counted as tied there\n");
}

/* The two rounds at each size where the fit and the built-in differ. */
static void print_checks(const struct cal_class *k)
{
	char words[256], s[32];
	cal_words(&k->builtin, words, sizeof words);
	printf("  built-in: %s\n", words);
	if (!k->nchecks) {
		printf("  the fit picks what the built-in ladder picks at every "
		       "size measured\n");
		return;
	}
	printf("  where they differ, the fit over the built-in in two rounds of "
	       "%ld runs (median +- spread):\n", k->check_runs);
	printf("    %10s  %-11s %-11s %-15s %-15s %s\n", "size", "fit", "built-in",
	       "round 1", "round 2", "serves");
	for (size_t i = 0; i < k->nchecks; i++) {
		const struct cal_check *c = &k->checks[i];
		char r[2][32];
		for (int j = 0; j < 2; j++)
			snprintf(r[j], sizeof r[j], "%.2fx +- %.2f", c->median[j],
				 c->spread[j]);
		printf("    %10s  %-11s %-11s %-15s %-15s %s\n",
		       ntm_format_size(c->size, s, sizeof s), variant_name(c->fit),
		       variant_name(c->builtin), r[0], r[1],
		       c->won ? "the fit" : "built-in");
	}
}

/* The column "written": the written ladder's variant at grid point i and
 * its ratio to the best there, where the grid measured it. */
static void print_written_at(const struct cal_class *k, size_t i)
{
	const struct fit_point *p = &k->points[i];
	int id = merge_pick(&k->written, p->size);
	for (size_t c = 0; c < k->ncands; c++)
		if (k->cands[c].variant_id == id && p->measured[c]) {
			printf("%-11s %.2f\n", k->cands[c].name, p->ratio[c]);
			return;
		}
	printf("%-11s %s\n", variant_name(id), "(not in the grid)");
}

static void print_class(const struct cal_class *k)
{
	char words[256], s[32];
	cal_words(&k->written, words, sizeof words);
	printf("\n%s: %s\n  %s\n", k->label, words, cal_outcome(k));
	cal_words(&k->fitted, words, sizeof words);
	printf("  fitted from the grid: %s\n", words);
	print_confidence(k);
	print_checks(k);
	if (k->npicked) {
		printf("  streaming variants at %s (GB/s):",
		       ntm_format_size(k->pick.size, s, sizeof s));
		for (size_t i = 0; i < k->npicked; i++)
			printf(" %s %.2f%s", k->picked[i].name, k->pick.gbps[i],
			       strcmp(k->picked[i].name, k->cands[k->streaming].name)
				       ? "" : " (for NTMEM_F_NONTEMPORAL)");
		printf("\n");
	}
	printf("  %10s  %-11s %7s  %-11s %7s  %-11s %s\n", "size", "best", "GB/s",
	       "next", "ratio", "written", "its ratio");
	for (size_t i = 0; i < k->npoints; i++) {
		const struct fit_point *p = &k->points[i];
		int a, b;
		top_two(k, p, &a, &b);
		printf("  %10s  %-11s %7.2f  ", ntm_format_size(p->size, s, sizeof s),
		       k->cands[a].name, p->gbps[a]);
		if (b >= 0)
			printf("%-11s %6.2fx  ", k->cands[b].name, p->gbps[a] / p->gbps[b]);
		else
			printf("%-20s ", "no other candidate");
		if (i < k->nsmall)
			printf("(small path)\n");
		else
			print_written_at(k, i);
	}
	for (size_t i = 0; i < k->nrefined; i++) {
		const struct cal_refinement *f = &k->refined[i];
		printf("  edge %s/%s, tried at %s: %.2f against %.2f GB/s\n",
		       k->cands[k->fit.rungs[f->rung].cand].name,
		       k->cands[k->fit.rungs[f->rung + 1].cand].name,
		       ntm_format_size(f->size, s, sizeof s), f->below, f->above);
	}
	if (k->fit.margin > MARGIN + 1e-9)
		printf("  (the margin was widened to %.0f%% to fit %d rungs)\n",
		       k->fit.margin * 100, NTMEM_LADDER_MAX);
}

static void print_wrapped(const char *lead, int indent, const char *text);

static void print_parallel(const struct cal_parallel *r)
{
	char s[32], words[400];
	cal_parallel_words(r, words, sizeof words);
	printf("\n");
	print_wrapped("", 0, words);
	if (r->skipped || !r->n)
		return;
	printf("  %10s %9s %9s %7s\n", "size", "1 thread", "parallel", "ratio");
	for (size_t i = 0; i < r->n; i++)
		printf("  %10s %9.2f %9.2f %6.2fx\n",
		       ntm_format_size(r->sizes[i], s, sizeof s), r->serial[i],
		       r->parallel[i], r->ratio[i]);
}

/* For programs that cannot be preloaded: glibc streams its memcpy above
 * glibc.cpu.x86_non_temporal_threshold (x86-64), so the tunable nearest
 * the written memcpy ladder is its first streaming size, within the
 * range glibc takes (0x4040 up to SIZE_MAX >> 4). */
static void print_glibc_tunable(const struct cal_class *copy)
{
#if defined(__x86_64__)
	const struct merge_ladder *l = &copy->written;
	size_t from = SIZE_MAX;
	for (unsigned r = 0; r < l->count && from == SIZE_MAX; r++)
		if (ntm_streams(ntm_variant(l->variant[r])))
			from = r ? l->to[r - 1] : 0;
	size_t most = SIZE_MAX >> 4, least = 0x4040;
	size_t value = from == SIZE_MAX ? most : from < least ? least : from;
	char s[32];
	printf("\nFor programs that cannot be preloaded, glibc's memcpy comes "
	       "closest with\n  GLIBC_TUNABLES=glibc.cpu.x86_non_temporal_threshold=%#zx",
	       value);
	if (from == SIZE_MAX)
		printf("  (memcpy never streams here: the most glibc takes)\n");
	else
		printf("  (memcpy streams from %s here)\n",
		       ntm_format_size(value, s, sizeof s));
#else
	(void)copy;
#endif
}

/* text after lead, wrapped at 78 columns, later lines indented to the
 * text's start (lead "" continues an indented block of width indent). */
static void print_wrapped(const char *lead, int indent, const char *text)
{
	int col = indent;
	printf("%-*s", indent, lead);
	for (const char *w = text; *w;) {
		size_t n = strcspn(w, " ");
		if (col > indent && col + 1 + (int)n > 78) {
			printf("\n%*s", indent, "");
			col = indent;
		} else if (col > indent) {
			putchar(' ');
			col++;
		}
		printf("%.*s", (int)n, w);
		col += (int)n;
		w += n;
		w += strspn(w, " ");
	}
	putchar('\n');
}

/* The verdict: per class the ladder in effect after this run, then, in
 * brackets, where it came from; each wrapped to fit 80 columns. */
static void print_verdict(const struct cal_class *k)
{
	printf("\nVerdict:\n");
	for (int cls = 0; cls < 3; cls++) {
		char lead[48], words[256], outcome[256];
		cal_words(&k[cls].written, words, sizeof words);
		snprintf(lead, sizeof lead, "  %s", k[cls].label);
		snprintf(outcome, sizeof outcome, "[%s]", cal_outcome(&k[cls]));
		print_wrapped(lead, 24, words);
		print_wrapped("", 24, outcome);
	}
}

static void print_text(const struct cal_options *o, const struct cal_class *k,
		       const char *path, int written)
{
	const struct cpu *cpu = ntm_cpu_described();
	printf("ntmem calibrate (%s effort, %.0f s): %s, %u online CPUs, pinned "
	       "to CPU %d\n", o->effort->name, o->seconds,
	       cpu->brand[0] ? cpu->brand : "unknown CPU", cpu->online_cpus, o->cpu);
	char how[512];
	snprintf(how, sizeof how, "Each size: medians of %ld interleaved runs; "
		 "'ratio' is the best over the next, 'its ratio' the written "
		 "ladder's choice against the best (paired); within %.0f%% is a "
		 "tie.  The fit replaces the built-in ladder only where it beats "
		 "it in two rounds by more than their spread and by at least "
		 "%.0f%%.", o->effort->rounds, MARGIN * 100, MERGE_MIN_WIN * 100);
	print_wrapped("", 0, how);
	for (int cls = 0; cls < 3; cls++)
		print_class(&k[cls]);
	print_parallel(&o->parallel);
	print_verdict(k);
	print_glibc_tunable(&k[NTMEM_CLASS_COPY]);
	printf("\n%s%s\n", written ? "Profile written to " : "Dry run: no profile written",
	       written ? path : "");
	if (written) {
		char undo[1200];
		cal_undo_command(o, path, undo, sizeof undo);
		printf("To undo it: %s\n", undo);
	}
}

void cal_report(const struct cal_options *o, const struct cal_class *k,
		const char *path, int written)
{
	if (o->json)
		cal_report_json(o, k, path, written);
	else
		print_text(o, k, path, written);
}
