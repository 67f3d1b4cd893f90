/* bench_summary.c - the few lines that end "ntmem bench"'s table: which
 * method is fastest over which range of sizes, which are level with it,
 * and how auto compares with glibc, read from the run's own results.  A
 * table of a dozen functions at each size is the evidence; these lines
 * are what it says, and no more than it can show: every method level
 * with the fastest is named, a size whose ranking rests on noisy rows
 * says so, and a run of too few runs to have a spread ranks nothing. */
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "bench.h"
#include "util/size.h"

/* The methods: the variants and the C library's function.  auto and the
 * safe calls choose among them, so they are not candidates themselves. */
static int is_method(const struct fn *f)
{
	return f->kind == FN_VARIANT || f->kind == FN_LIBC;
}

/* Whether o's runs can show a spread to judge differences by. */
static int judged(const struct bench_opts *o)
{
	return o->runs >= BENCH_MIN_JUDGED_RUNS;
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

/* At one size: the fastest method by mean; every other method level with
 * it (within their stdevs together), fastest first; whether the ranking
 * is too noisy (a tie, and a row of it marked ~: the tie may be chance,
 * where a lead beyond the stdevs stands however noisy); auto's
 * row where it is faster than the fastest beyond their stdevs (its small
 * path below a few hundred bytes is no method of the table), else NULL.
 * Without enough runs (judged()), the highest mean alone. */
struct pick {
	const struct bench_result *best, *auto_ahead;
	const struct bench_result *level[BENCH_MAX_FNS];
	size_t nlevel;
	int noisy;
};

/* The same line of the summary: the same fastest method, the same ones
 * level with it, the same noise, auto ahead of them (running the same)
 * or not. */
static int same_pick(const struct pick *a, const struct pick *b)
{
	const char *ra = a->auto_ahead ? a->auto_ahead->dispatch : NULL;
	const char *rb = b->auto_ahead ? b->auto_ahead->dispatch : NULL;
	if (!a->best || !b->best || a->best->fn != b->best->fn ||
	    a->nlevel != b->nlevel || a->noisy != b->noisy ||
	    !a->auto_ahead != !b->auto_ahead || (ra && rb ? strcmp(ra, rb) : ra != rb))
		return 0;
	for (size_t i = 0; i < a->nlevel; i++)
		if (a->level[i]->fn != b->level[i]->fn)
			return 0;
	return 1;
}

/* r into p's level list, kept fastest first. */
static void add_level(struct pick *p, const struct bench_result *r)
{
	size_t j = p->nlevel++;
	while (j > 0 && p->level[j - 1]->stats.mean < r->stats.mean) {
		p->level[j] = p->level[j - 1];
		j--;
	}
	p->level[j] = r;
}

static struct pick fastest(const struct bench_opts *o, size_t size,
			   unsigned threads)
{
	struct pick p = {NULL, NULL, {NULL}, 0, 0};
	for (size_t i = 0; i < o->nresults; i++) {
		const struct bench_result *r = &o->results[i];
		if (r->size == size && r->threads == threads && is_method(r->fn) &&
		    (!p.best || r->stats.mean > p.best->stats.mean))
			p.best = r;
	}
	if (!p.best || !judged(o))
		return p;
	int noisy = stats_noisy(&p.best->stats);
	for (size_t i = 0; i < o->nresults; i++) {
		const struct bench_result *r = &o->results[i];
		if (r == p.best || r->size != size || r->threads != threads ||
		    !is_method(r->fn) || !stats_level(&p.best->stats, &r->stats))
			continue;
		add_level(&p, r);
		noisy |= stats_noisy(&r->stats);
	}
	p.noisy = p.nlevel && noisy;
	const struct bench_result *a = find(o, FN_AUTO, size, threads);
	if (a && a->stats.mean > p.best->stats.mean &&
	    !stats_level(&a->stats, &p.best->stats))
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

/* Append to buf, as snprintf would, never past len. */
static void append(char *buf, size_t len, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));
static void append(char *buf, size_t len, const char *fmt, ...)
{
	size_t used = strlen(buf);
	va_list ap;
	va_start(ap, fmt);
	if (used < len)
		vsnprintf(buf + used, len - used, fmt, ap);
	va_end(ap);
}

#define SUMMARY_COLUMNS 79
void bench_put_wrapped(FILE *f, const char *lead, int indent, const char *text)
{
	int room = SUMMARY_COLUMNS - (int)strlen(lead);
	fputs(lead, f);
	while ((int)strlen(text) > room) {
		int cut = room;
		while (cut > 0 && text[cut] != ' ')
			cut--;
		if (cut == 0)  /* one word longer than the room: left whole */
			for (cut = room; text[cut] && text[cut] != ' '; cut++)
				;
		if (!text[cut])
			break;
		fprintf(f, "%.*s\n%-*s", cut, text, indent, "#");
		text += cut + 1;
		room = SUMMARY_COLUMNS - indent;
	}
	fprintf(f, "%s\n", text);
}

/* Whether auto's row ran the method r itself. */
static int runs_itself(const struct bench_result *a, const struct bench_result *r)
{
	struct ntmem_variant_info v;
	const char *name = r->fn->kind == FN_LIBC
				   ? ntmem_variant_info(r->fn->variant_id, &v) ? NULL : v.name
				   : r->fn->name;
	return a->dispatch && name && !strcmp(a->dispatch, name);
}

/* "; auto faster still (+265%, running the small path)": the range of
 * auto's lead over sizes[i..j), what auto ran at the first of them.
 * auto running the fastest method itself is the same stores: a lead
 * beyond the stdevs is then the runs' conditions, and said to be. */
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
	struct pick first = fastest(o, sizes[i], threads);
	const char *ran = first.auto_ahead->dispatch;
	char lead[48];
	if (j - i == 1 || lo == hi)
		snprintf(lead, sizeof lead, "%+.1f%%", lo);
	else
		snprintf(lead, sizeof lead, "%+.1f%% to %+.1f%%", lo, hi);
	if (runs_itself(first.auto_ahead, first.best))
		append(buf, len, "; auto measured %s, running %s itself: a "
		       "difference of conditions, not of method", lead, ran);
	else
		append(buf, len, "; auto faster still (%s%s%s%s)", lead,
		       ran ? ", running " : "",
		       ran && !strcmp(ran, "small path") ? "the " : "", ran ? ran : "");
}

/* What the summary says of sizes[i..j), which share p. */
static void pick_text(const struct bench_opts *o, const struct pick *p,
		      const size_t *sizes, size_t i, size_t j, unsigned threads,
		      char *buf, size_t len)
{
	buf[0] = '\0';
	if (!judged(o))
		append(buf, len, "highest mean: ");
	else if (p->noisy)
		append(buf, len, "too noisy to rank; by mean: ");
	append(buf, len, "%s%s", p->best->fn->name, kind_text(p->best));
	for (size_t k = 0; k < p->nlevel; k++)
		append(buf, len, "%s%s", k ? ", " : "; level with it: ",
		       p->level[k]->fn->name);
	if (p->auto_ahead)
		auto_ahead_text(o, sizes, i, j, threads, buf + strlen(buf),
				len - strlen(buf));
}

/* One line per run of sizes with the same pick (same_pick). */
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
		if (p.best) {
			char span[80], lead[96], text[2048];
			snprintf(lead, sizeof lead, "#   %-22s ",
				 span_text(sizes[i], sizes[j - 1], span, sizeof span));
			pick_text(o, &p, sizes, i, j, threads, text, sizeof text);
			bench_put_wrapped(f, lead, 27, text);
		}
		i = j;
	}
}

enum verdict { NOT_BOTH = -1, FASTER, LEVEL, NOISY, SLOWER, NVERDICTS };

/* auto against glibc at one size: which is faster, unless they are level
 * (within their stdevs; too noisy to tell when either row is marked ~),
 * and by how much, in percent of glibc. */
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
	int noisy = stats_noisy(&a->stats) || stats_noisy(&g->stats);
	v.verdict = !stats_level(&a->stats, &g->stats) ? v.diff > 0 ? FASTER : SLOWER
		    : noisy ? NOISY : LEVEL;
	return v;
}

/* Append "faster at 128 MiB to 1 GiB (+35.2% to +40.1%)" to buf: the
 * sizes whose verdict is v, neighbours joined, and the range of diffs. */
static void put_verdict(const size_t *sizes, const struct versus *vs,
			size_t n, enum verdict v, char *buf, size_t len)
{
	static const char *const word[NVERDICTS] = {"faster", "level",
						    "too noisy to tell", "slower"};
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
		append(spans, sizeof spans, "%s%s", spans[0] ? ", " : "",
		       span_text(sizes[i], sizes[j - 1], span, sizeof span));
		i = j;
	}
	if (!spans[0])
		return;
	if (lo == hi)
		append(buf, len, "%s%s at %s (%+.1f%%)", buf[0] ? "; " : "", word[v],
		       spans, lo);
	else
		append(buf, len, "%s%s at %s (%+.1f%% to %+.1f%%)", buf[0] ? "; " : "",
		       word[v], spans, lo, hi);
}

/* auto against glibc on threads: judged per size, or, from too few
 * runs, the figures alone. */
static void print_versus(const struct bench_opts *o, const size_t *sizes,
			 size_t n, unsigned threads, FILE *f)
{
	char line[1024] = "", span[32];
	struct versus vs[BENCH_MAX_SIZES];
	for (size_t i = 0; i < n; i++)
		vs[i] = compare(o, sizes[i], threads);
	if (judged(o)) {
		for (int v = FASTER; v < NVERDICTS; v++)
			put_verdict(sizes, vs, n, (enum verdict)v, line, sizeof line);
	} else {
		for (size_t i = 0; i < n; i++)
			if (vs[i].verdict != NOT_BOTH)
				append(line, sizeof line, "%s%+.1f%% at %s",
				       line[0] ? ", " : "", vs[i].diff,
				       ntm_format_size(sizes[i], span, sizeof span));
	}
	if (line[0])
		bench_put_wrapped(f, judged(o) ? "#   auto against glibc: "
				  : "#   auto against glibc, not judged: ", 24, line);
}

static void print_header(const struct bench_opts *o, FILE *f)
{
	if (!judged(o)) {
		fprintf(f, "\n# summary: from %ld run%s, too few to rank or compare: "
			"a difference\n#   needs a spread, from %d runs or more "
			"(-r %d); the highest mean at\n#   each size, and auto "
			"against glibc in figures only\n", o->runs,
			o->runs == 1 ? "" : "s", BENCH_MIN_JUDGED_RUNS,
			BENCH_MIN_JUDGED_RUNS);
		return;
	}
	fprintf(f, "\n# summary: the fastest method (a variant or glibc) by mean "
		"GB/s, and every\n#   method level with it: the two rows differ by "
		"less than their stdevs\n#   together; \"too noisy to rank\" (or, of "
		"auto against glibc, \"to tell\"):\n#   a row of the tie is marked ~ "
		"(stdev over %.0f%% of the median), so the\n#   tie may be chance: run "
		"again, or with more -r; auto is not ranked (it\n#   runs one of the "
		"methods, or its small path), but named where it is\n#   faster "
		"still\n", NOISE_LIMIT * 100);
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
	print_header(o, f);
	int threaded = o->nthreads > 1 || o->threads[0] > 1;
	char value[64];
	bench_value_text(o, value, sizeof value);
	for (size_t t = 0; t < o->nthreads; t++) {
		unsigned thr = o->threads[t];
		if (threaded)
			fprintf(f, "# on %u thread%s\n", thr, thr == 1 ? "" : "s");
		fprintf(f, "# %s, %s\n", o->op == NTMEM_OP_SET ? "memset" : "memcpy",
			value);
		print_winners(o, sizes, n, thr, f);
		print_versus(o, sizes, n, thr, f);
	}
}

/* What a table wrote: "0x5a written", "source of random bytes"; the
 * summary's sections and the tables' headers say it. */
void bench_value_text(const struct bench_opts *o, char *buf, size_t len)
{
	if (o->value < 0)
		snprintf(buf, len, "source of random bytes");
	else if (o->op == NTMEM_OP_SET)
		snprintf(buf, len, "0x%02x written", o->value);
	else
		snprintf(buf, len, "source of bytes 0x%02x", o->value);
}
