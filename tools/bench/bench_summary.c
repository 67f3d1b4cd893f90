/* bench_summary.c - the few lines that end "ntmem bench"'s table: which
 * method is fastest over which range of sizes, and how auto compares with
 * glibc, read from the run's own results.  A table of a dozen functions
 * at each size is the evidence; these lines are what it says. */
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bench.h"
#include "util/size.h"

/* The methods: the variants and the C library's function.  auto and the
 * safe calls choose among them, so they are not candidates themselves. */
static int is_method(const struct fn *f)
{
	return f->kind == FN_VARIANT || f->kind == FN_LIBC;
}

static const struct bench_result *find(const struct bench_opts *o,
				       enum fn_kind kind, size_t size,
				       unsigned threads)
{
	for (size_t i = 0; i < o->nresults; i++) {
		const struct bench_result *r = &o->results[i];
		if (r->fn->kind == kind && r->size == size && r->threads == threads)
			return r;
	}
	return NULL;
}

/* a and b within their stdevs, or, from one run (no stdev), within the
 * noise limit: auto running glibc's own function is not "faster still"
 * than glibc by the chance of one run. */
static int close(const struct bench_result *a, const struct bench_result *b)
{
	if (isnan(a->stats.stdev) || isnan(b->stats.stdev))
		return fabs(a->stats.mean / b->stats.mean - 1) <= NOISE_LIMIT;
	return stats_level(&a->stats, &b->stats);
}

/* The fastest method at one size, and the runner-up when the two are
 * level (within their stdevs), else NULL; auto's row when it is faster
 * than both, beyond their stdevs (its small path below a few hundred
 * bytes is no method of the table), else NULL. */
struct pick {
	const struct bench_result *best, *level, *auto_ahead;
};

/* One line of the summary: the same fastest method, runner-up level
 * with it, and auto ahead of both (running the same) or not. */
static int same_pick(const struct pick *a, const struct pick *b)
{
	const char *ra = a->auto_ahead ? a->auto_ahead->dispatch : NULL;
	const char *rb = b->auto_ahead ? b->auto_ahead->dispatch : NULL;
	return a->best && b->best && a->best->fn == b->best->fn &&
	       (a->level ? a->level->fn : NULL) == (b->level ? b->level->fn : NULL) &&
	       !a->auto_ahead == !b->auto_ahead &&
	       (ra && rb ? !strcmp(ra, rb) : ra == rb);
}

static struct pick fastest(const struct bench_opts *o, size_t size,
			   unsigned threads)
{
	const struct bench_result *best = NULL, *second = NULL;
	for (size_t i = 0; i < o->nresults; i++) {
		const struct bench_result *r = &o->results[i];
		if (r->size != size || r->threads != threads || !is_method(r->fn))
			continue;
		if (!best || r->stats.mean > best->stats.mean) {
			second = best;
			best = r;
		} else if (!second || r->stats.mean > second->stats.mean) {
			second = r;
		}
	}
	struct pick p = {best, NULL, NULL};
	if (best && second && stats_level(&best->stats, &second->stats))
		p.level = second;
	const struct bench_result *a = find(o, FN_AUTO, size, threads);
	if (best && a && a->stats.mean > best->stats.mean && !close(a, best))
		p.auto_ahead = a;
	return p;
}

/* The sizes measured, ascending, without repeats; how many. */
static size_t sorted_sizes(const struct bench_opts *o, size_t *out)
{
	size_t n = 0;
	for (size_t i = 0; i < o->nresults; i++) {
		size_t s = o->results[i].size, j = n;
		int seen = 0;
		for (size_t k = 0; k < n; k++)
			seen |= out[k] == s;
		if (seen)
			continue;
		while (j > 0 && out[j - 1] > s) {
			out[j] = out[j - 1];
			j--;
		}
		out[j] = s;
		n++;
	}
	return n;
}

/* "2 MiB" or "2 MiB to 16 MiB". */
static const char *span_text(size_t from, size_t to, char *buf, size_t len)
{
	char a[32], b[32];
	ntm_format_size(from, a, sizeof a);
	if (from == to)
		snprintf(buf, len, "%s", a);
	else
		snprintf(buf, len, "%s to %s", a, ntm_format_size(to, b, sizeof b));
	return buf;
}

static const char *kind_text(const struct bench_result *r)
{
	return r->nontemporal == 1 ? ", streaming" : r->nontemporal == 0 ? ", cached"
									  : "";
}

/* "; auto faster still (+265%, running the small path)": the range of auto's
 * lead over sizes[i..j), what auto ran at the first of them. */
static void auto_ahead_text(const struct bench_opts *o, const size_t *sizes,
			    size_t i, size_t j, unsigned threads, char *buf,
			    size_t len)
{
	double lo = 0, hi = 0;
	for (size_t k = i; k < j; k++) {
		struct pick p = fastest(o, sizes[k], threads);
		double d = (p.auto_ahead->stats.mean / p.best->stats.mean - 1) * 100;
		lo = k == i || d < lo ? d : lo;
		hi = k == i || d > hi ? d : hi;
	}
	const char *ran = fastest(o, sizes[i], threads).auto_ahead->dispatch;
	char lead[48];
	if (j - i == 1 || lo == hi)
		snprintf(lead, sizeof lead, "%+.1f%%", lo);
	else
		snprintf(lead, sizeof lead, "%+.1f%% to %+.1f%%", lo, hi);
	snprintf(buf, len, "; auto faster still (%s%s%s%s)", lead,
		 ran ? ", running " : "", ran && !strcmp(ran, "small path") ? "the " : "",
		 ran ? ran : "");
}

/* One line per run of sizes with the same fastest method (and the same
 * runner-up level with it, and auto ahead of both or not). */
static void print_winners(const struct bench_opts *o, const size_t *sizes,
			  size_t n, unsigned threads, FILE *f)
{
	for (size_t i = 0; i < n;) {
		struct pick p = fastest(o, sizes[i], threads);
		size_t j = i + 1;
		for (; j < n; j++) {
			struct pick q = fastest(o, sizes[j], threads);
			if (!same_pick(&p, &q))
				break;
		}
		char span[80], level[64] = "", ahead[128] = "";
		if (p.best) {
			if (p.level)
				snprintf(level, sizeof level, " (%s level with it)",
					 p.level->fn->name);
			if (p.auto_ahead)
				auto_ahead_text(o, sizes, i, j, threads, ahead,
						sizeof ahead);
			fprintf(f, "#   %-22s %s%s%s%s\n",
				span_text(sizes[i], sizes[j - 1], span, sizeof span),
				p.best->fn->name, kind_text(p.best), level, ahead);
		}
		i = j;
	}
}

enum verdict { NOT_BOTH = -1, FASTER, LEVEL, SLOWER, NVERDICTS };

/* auto against glibc at one size: which is faster, unless they are level
 * (within their stdevs), and by how much, in percent of glibc. */
struct versus {
	enum verdict verdict;
	double diff;
};

static struct versus compare(const struct bench_opts *o, size_t size,
			     unsigned threads)
{
	const struct bench_result *a = find(o, FN_AUTO, size, threads),
				  *g = find(o, FN_LIBC, size, threads);
	struct versus v = {NOT_BOTH, 0};
	if (!a || !g)
		return v;
	v.diff = (a->stats.mean / g->stats.mean - 1) * 100;
	v.verdict = stats_level(&a->stats, &g->stats) ? LEVEL
		    : v.diff > 0 ? FASTER : SLOWER;
	return v;
}

/* Append "faster at 128 MiB to 1 GiB (+35.2% to +40.1%)" to buf: the
 * sizes whose verdict is v, neighbours joined, and the range of diffs. */
static void put_verdict(const size_t *sizes, const struct versus *vs,
			size_t n, enum verdict v, char *buf, size_t len)
{
	static const char *const word[NVERDICTS] = {"faster", "level", "slower"};
	char spans[512] = "", span[80];
	double lo = 0, hi = 0;
	for (size_t i = 0; i < n;) {
		if (vs[i].verdict != v) {
			i++;
			continue;
		}
		size_t j = i;
		for (; j < n && vs[j].verdict == v; j++) {
			lo = spans[0] || j > i ? (vs[j].diff < lo ? vs[j].diff : lo) : vs[j].diff;
			hi = spans[0] || j > i ? (vs[j].diff > hi ? vs[j].diff : hi) : vs[j].diff;
		}
		size_t used = strlen(spans);
		snprintf(spans + used, sizeof spans - used, "%s%s", used ? ", " : "",
			 span_text(sizes[i], sizes[j - 1], span, sizeof span));
		i = j;
	}
	if (!spans[0])
		return;
	size_t used = strlen(buf);
	if (lo == hi)
		snprintf(buf + used, len - used, "%s%s at %s (%+.1f%%)",
			 used ? "; " : "", word[v], spans, lo);
	else
		snprintf(buf + used, len - used, "%s%s at %s (%+.1f%% to %+.1f%%)",
			 used ? "; " : "", word[v], spans, lo, hi);
}

void bench_print_summary(const struct bench_opts *o, FILE *f)
{
	size_t sizes[BENCH_MAX_SIZES];
	size_t n = sorted_sizes(o, sizes);
	int any = 0;
	for (size_t i = 0; i < n && !any; i++)
		any = fastest(o, sizes[i], o->threads[0]).best != NULL;
	if (!any)
		return;
	fprintf(f, "\n# summary: the fastest method (a variant or glibc) by mean "
		"GB/s;\n#   \"level\": the two rows differ by less than their "
		"stdevs together;\n#   auto is not ranked (it runs one of the "
		"methods, or its small path),\n#   but named where it is faster "
		"still\n");
	int threaded = o->nthreads > 1 || o->threads[0] > 1;
	for (size_t t = 0; t < o->nthreads; t++) {
		unsigned thr = o->threads[t];
		char line[1024] = "";
		struct versus vs[BENCH_MAX_SIZES];
		if (threaded)
			fprintf(f, "# on %u thread%s\n", thr, thr == 1 ? "" : "s");
		fprintf(f, "# %s\n", o->op == NTMEM_OP_SET ? "memset" : "memcpy");
		print_winners(o, sizes, n, thr, f);
		for (size_t i = 0; i < n; i++)
			vs[i] = compare(o, sizes[i], thr);
		for (int v = FASTER; v < NVERDICTS; v++)
			put_verdict(sizes, vs, n, (enum verdict)v, line, sizeof line);
		if (line[0])
			fprintf(f, "#   auto against glibc: %s\n", line);
	}
}
