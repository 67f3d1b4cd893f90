/* bench_plot.c - "ntmem bench --plot": GB/s against size, a line per
 * function, and auto over glibc in a panel below: the ratio the reader
 * came for, which the first panel's scale of 1 to 300 GB/s hides.
 *
 * What the picture promises: a point at every size measured, on a
 * labelled grid line (ticks at the sizes measured, not at round ones);
 * each function one colour, the same in the memset and the memcpy plot
 * (a fixed table by name, rep stosb's and rep movsb's one colour), no
 * two lines of a plot one colour; auto and glibc drawn widest, over the
 * rest; a line dashed where the function streams at that size, auto and
 * glibc included (from what they ran at each size), solid where it does
 * not; and under it all a key of what each function is. */
#include <stdio.h>
#include <string.h>

#include "bench.h"
#include "output/svg.h"

/* Colours by function, far apart on white: auto black and glibc red,
 * the cached ones blues, greens and browns, the streaming ones oranges,
 * purples and pinks.  Names of the same method in memset and memcpy
 * (stosb and movsb) and across architectures (neon, stnp, dc_zva) share
 * a row; every other row has a colour of its own, so that no two lines
 * of one plot share one (a name not here takes a colour of the plot's
 * palette that no line has, svg.h). */
static const struct {
	const char *names[3];
	const char *colour;
} colours[] = {
	{{"auto"}, "#000000"},
	{{"glibc"}, "#d62728"},
	{{"stosb", "movsb"}, "#1f77b4"},
	{{"stosq", "movsq"}, "#17becf"},
	{{"vec_sse2"}, "#bcbd22"},
	{{"vec_avx2", "neon"}, "#2ca02c"},
	{{"vec_avx512"}, "#8c564b"},
	{{"portable"}, "#7f7f7f"},
	{{"nt_sse2"}, "#ff7f0e"},
	{{"nt_sse2_pages"}, "#b15928"},
	{{"nt_sse2_ahead"}, "#00bfff"},
	{{"nt_avx", "stnp"}, "#9467bd"},
	{{"nt_avx_pages"}, "#5e3c99"},
	{{"nt_avx_ahead"}, "#1b9e77"},
	{{"nt_avx512"}, "#e377c2"},
	{{"movnti"}, "#b8860b"},
	{{"movdir64b"}, "#000080"},
	{{"clzero", "dc_zva"}, "#469990"},
	{{"safe"}, "#f032e6"},
	{{"safe_unblocked"}, "#c5b0d5"},
	{{"shim"}, "#e6b800"},
	{{"pmem"}, "#800000"},
	{{"pmem_default"}, "#ff9896"},
};

/* The function's colour, or NULL (the plot's palette) for a name not in
 * the table. */
static const char *colour_of(const char *name)
{
	for (size_t i = 0; i < sizeof colours / sizeof colours[0]; i++)
		for (size_t j = 0; j < 3 && colours[i].names[j]; j++)
			if (!strcmp(colours[i].names[j], name))
				return colours[i].colour;
	return NULL;
}

enum { SERIES_MAX = BENCH_MAX_FNS * BENCH_MAX_THREADS };

/* Every point of the plot, kept for the length of one bench_write_plot. */
struct points {
	double x[SERIES_MAX][BENCH_MAX_SIZES], y[SERIES_MAX][BENCH_MAX_SIZES];
	double lo[SERIES_MAX][BENCH_MAX_SIZES], hi[SERIES_MAX][BENCH_MAX_SIZES];
	int streams[SERIES_MAX][BENCH_MAX_SIZES];
	char names[SERIES_MAX][48];
	struct plot_series series[SERIES_MAX];
	struct plot_note notes[BENCH_MAX_FNS];
	double sizes[BENCH_MAX_SIZES];
	size_t nsizes;
};

static const struct bench_result *result(const struct bench_opts *o,
					 const struct fn *fn, unsigned threads,
					 size_t size)
{
	for (size_t i = 0; i < o->nresults; i++) {
		const struct bench_result *r = &o->results[i];
		if (r->fn == fn && r->threads == threads && r->size == size)
			return r;
	}
	return NULL;
}

/* Series k: function fn on threads, mean GB/s with the slowest and the
 * fastest run, dashed where it streamed. */
static void gbps_series(const struct bench_opts *o, struct points *pt, size_t k,
			const struct fn *fn, unsigned threads)
{
	size_t n = 0;
	int always = 1;
	for (size_t s = 0; s < pt->nsizes; s++) {
		const struct bench_result *r = result(o, fn, threads, (size_t)pt->sizes[s]);
		if (!r)
			continue;
		pt->x[k][n] = pt->sizes[s];
		pt->y[k][n] = r->stats.mean;
		pt->lo[k][n] = r->stats.min;
		pt->hi[k][n] = r->stats.max;
		pt->streams[k][n] = r->nontemporal == 1;
		always &= pt->streams[k][n++];
	}
	int several = o->nthreads > 1 || threads > 1;
	if (several)
		snprintf(pt->names[k], sizeof pt->names[k], "%s x%u", fn->name, threads);
	else
		snprintf(pt->names[k], sizeof pt->names[k], "%s", fn->name);
	pt->series[k] = (struct plot_series){
		.name = pt->names[k], .count = n, .x = pt->x[k], .y = pt->y[k],
		.lo = pt->lo[k], .hi = pt->hi[k], .dashed = n && always,
		.dashed_at = pt->streams[k],
		/* Several thread counts of one function: the palette keeps
		 * their lines apart. */
		.colour = o->nthreads > 1 ? NULL : colour_of(fn->name),
		.strong = fn->kind == FN_AUTO || fn->kind == FN_LIBC};
}

/* The sizes measured, ascending. */
static void measured_sizes(const struct bench_opts *o, struct points *pt)
{
	pt->nsizes = 0;
	for (size_t i = 0; i < o->nresults; i++) {
		double s = (double)o->results[i].size;
		size_t j = 0;
		while (j < pt->nsizes && pt->sizes[j] < s)
			j++;
		if (j < pt->nsizes && pt->sizes[j] == s)
			continue;
		memmove(&pt->sizes[j + 1], &pt->sizes[j], (pt->nsizes - j) * sizeof s);
		pt->sizes[j] = s;
		pt->nsizes++;
	}
}

/* The lower panel: per thread count, auto's mean over glibc's at each
 * size, bars for auto's slowest and fastest run over glibc's mean, and a
 * band for glibc's own runs (1 is glibc's mean).  Series from first on;
 * returns how many. */
static size_t ratio_series(const struct bench_opts *o, struct points *pt,
			   size_t first, struct plot_band *bands,
			   double (*band)[3][BENCH_MAX_SIZES])
{
	const struct fn *a = NULL, *g = NULL;
	for (size_t i = 0; i < o->nfns; i++) {
		a = o->fns[i].kind == FN_AUTO ? &o->fns[i] : a;
		g = o->fns[i].kind == FN_LIBC ? &o->fns[i] : g;
	}
	size_t made = 0;
	for (size_t t = 0; a && g && t < o->nthreads && first + made < SERIES_MAX; t++) {
		size_t k = first + made, n = 0;
		for (size_t s = 0; s < pt->nsizes; s++) {
			size_t size = (size_t)pt->sizes[s];
			const struct bench_result *ra = result(o, a, o->threads[t], size);
			const struct bench_result *rg = result(o, g, o->threads[t], size);
			if (!ra || !rg || !(rg->stats.mean > 0))
				continue;
			double m = rg->stats.mean;
			pt->x[k][n] = band[t][0][n] = pt->sizes[s];
			pt->y[k][n] = ra->stats.mean / m;
			pt->lo[k][n] = ra->stats.min / m;
			pt->hi[k][n] = ra->stats.max / m;
			band[t][1][n] = rg->stats.min / m;
			band[t][2][n] = rg->stats.max / m;
			pt->streams[k][n++] = ra->nontemporal == 1;
		}
		if (!n)
			continue;
		if (o->nthreads > 1)
			snprintf(pt->names[k], sizeof pt->names[k], "auto / glibc x%u",
				 o->threads[t]);
		else
			snprintf(pt->names[k], sizeof pt->names[k], "auto / glibc");
		pt->series[k] = (struct plot_series){
			.name = pt->names[k], .count = n, .x = pt->x[k], .y = pt->y[k],
			.lo = pt->lo[k], .hi = pt->hi[k], .dashed_at = pt->streams[k],
			.colour = o->nthreads > 1 ? NULL : colour_of("auto"),
			.strong = 1};
		bands[made] = (struct plot_band){
			"glibc's runs, slowest to fastest (1: its mean)", n, band[t][0],
			band[t][1], band[t][2]};
		made++;
	}
	return made;
}

int bench_write_plot(const struct bench_opts *o, const struct machine *m,
		     FILE *f)
{
	static struct points pt;
	static double band[BENCH_MAX_THREADS][3][BENCH_MAX_SIZES];
	struct plot_band bands[BENCH_MAX_THREADS];
	measured_sizes(o, &pt);
	size_t nseries = o->nfns * o->nthreads;
	for (size_t k = 0; k < nseries; k++)
		gbps_series(o, &pt, k, &o->fns[k % o->nfns], o->threads[k / o->nfns]);
	size_t nratio = ratio_series(o, &pt, nseries, bands, band);
	/* The key: what each function is. */
	for (size_t i = 0; i < o->nfns; i++)
		pt.notes[i] = (struct plot_note){o->fns[i].name, o->fns[i].description};

	char title[64], subtitle[512], value[64], caption[256], title2[64];
	const char *op = o->op == NTMEM_OP_SET ? "memset" : "memcpy";
	bench_value_text(o, value, sizeof value);
	snprintf(title, sizeof title, "ntmem bench %s", op);
	snprintf(title2, sizeof title2, "%s: auto against glibc", op);
	snprintf(subtitle, sizeof subtitle, "%s, %s; %s; %s", m->cpu, m->kernel,
		 bench_pages_obtained(o), value);
	snprintf(caption, sizeof caption, "Points: the mean of %ld run%s, at the "
		 "sizes measured; bars: the slowest run to the fastest; dashed: "
		 "the function streams at that size", o->runs, o->runs == 1 ? "" : "s");
	struct plot p[2] = {
		{.title = title, .subtitle = subtitle, .x_label = "size",
		 .y_label = "GB/s (10^9 bytes/s)", .x_scale = AXIS_LOG2_BYTES,
		 .y_scale = AXIS_LINEAR, .series = pt.series, .nseries = nseries,
		 .caption = caption, .x_marks = pt.sizes, .nx_marks = pt.nsizes},
		{.title = title2, .x_label = "size", .y_label = "auto / glibc (mean GB/s)",
		 .x_scale = AXIS_LOG2_BYTES, .y_scale = AXIS_LINEAR,
		 .series = pt.series + nseries, .nseries = nratio, .bands = bands,
		 .nbands = nratio, .y_from_data = 1, .compact = 1,
		 .caption = "Above 1: auto faster than glibc; bars: auto's slowest and "
			    "fastest run; dashed: auto streams at that size",
		 .x_marks = pt.sizes, .nx_marks = pt.nsizes},
	};
	/* The key under the last panel, so that the two panels stay
	 * together. */
	p[nratio ? 1 : 0].notes = pt.notes;
	p[nratio ? 1 : 0].nnotes = o->nfns;
	return svg_plots(f, p, nratio ? 2 : 1);
}
