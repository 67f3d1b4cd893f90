/* svg.c - line plots as standalone SVG 1.1 files.
 *
 * The layout is computed up front from a few fixed boxes: the title block
 * on top, tick labels and axis labels below and left of the plot area, and
 * the legend in a column to its right.  There are no font metrics, so text
 * widths are estimated and the margins are generous; the image grows wider
 * for long legend names and taller for long legends rather than letting
 * anything run off its edge.  Numbers are formatted with integer
 * arithmetic, so a program that set LC_NUMERIC cannot put commas into the
 * coordinates. */
#include "svg.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "util/size.h"

#define WIDTH      900   /* the image never gets smaller than this */
#define HEIGHT     560
#define MIN_PLOT_W 440   /* keep at least this much plot beside the legend */
#define ROW        18    /* legend line height */
#define CHAR_W     7.2   /* average glyph width at 12px, for layout only */
#define MAX_TICKS  64
#define LABEL_GAP  66    /* room per x tick label ("256 MiB" and a gap) */

/* Forty colours, each its own on white: the ten of the usual plotting
 * palette, five darker or stronger hues, five light ones, then twenty
 * more between them.  A bench plot has up to about twenty lines; every
 * line of a plot of up to forty gets a colour of its own (colour_looks),
 * and each a marker shape of its own among five, so that two lines that
 * cross are told apart by either. */
static const char *const palette[] = {
	"#1f77b4", "#d62728", "#2ca02c", "#ff7f0e", "#9467bd", "#8c564b",
	"#e377c2", "#17becf", "#7f7f7f", "#bcbd22", "#000080", "#800000",
	"#f032e6", "#469990", "#000000", "#ffd700", "#aec7e8", "#ff9896",
	"#98df8a", "#c5b0d5",
	"#b15928", "#5e3c99", "#1b9e77", "#00bfff", "#a6761d", "#e7298a",
	"#66a61e", "#7570b3", "#d95f02", "#006d2c", "#08519c", "#a50f15",
	"#54278f", "#fdae6b", "#636363", "#9ecae1", "#c7e9c0", "#fa9fb5",
	"#8c6d31", "#3f007d",
};
#define NCOLOURS (sizeof palette / sizeof *palette)

/* A formatted number; returned by value, so several can appear in one
 * fprintf call (the temporary lives until the end of the statement). */
struct num { char s[32]; };

static struct num fx(double v, int decimals)
{
	struct num n;
	long long scale = 1;
	decimals = decimals < 0 ? 0 : decimals > 6 ? 6 : decimals;
	for (int i = 0; i < decimals; i++)
		scale *= 10;
	double r = round(fabs(v) * (double)scale);
	if (!(r < 9e15)) {  /* beyond exact integers: no fraction to show */
		snprintf(n.s, sizeof n.s, "%.0e", v);
		return n;
	}
	long long q = (long long)r;
	int len = snprintf(n.s, sizeof n.s, "%s%lld", v < 0 && q ? "-" : "",
			   q / scale);
	if (decimals > 0) {  /* at most 17 + 1 + 6 characters in all */
		n.s[len] = '.';
		for (long long frac = q % scale, i = decimals; i > 0; i--) {
			n.s[len + i] = (char)('0' + frac % 10);
			frac /= 10;
		}
		n.s[len + decimals + 1] = '\0';
	}
	return n;
}

/* Text content or attribute value; XML 1.0 forbids most control
 * characters even as references, so they become spaces. */
static void put_escaped(FILE *f, const char *s)
{
	for (; s && *s; s++) {
		switch (*s) {
		case '&': fputs("&amp;", f); break;
		case '<': fputs("&lt;", f); break;
		case '>': fputs("&gt;", f); break;
		case '"': fputs("&quot;", f); break;
		case '\'': fputs("&apos;", f); break;
		default: fputc((unsigned char)*s < 0x20 ? ' ' : *s, f);
		}
	}
}

/* Estimated width of s at 12px: one average glyph per UTF-8 character. */
static double text_width(const char *s)
{
	size_t chars = 0;
	for (; s && *s; s++)
		chars += ((unsigned char)*s & 0xc0) != 0x80;
	return (double)chars * CHAR_W;
}

static void text(FILE *f, double x, double y, const char *attrs,
		 const char *s)
{
	fprintf(f, "<text x=\"%s\" y=\"%s\"%s>", fx(x, 2).s, fx(y, 2).s,
		attrs);
	put_escaped(f, s);
	fputs("</text>\n", f);
}

/* An unterminated <line: the caller adds attributes and closes it. */
static void line(FILE *f, double x1, double y1, double x2, double y2)
{
	fprintf(f, "<line x1=\"%s\" y1=\"%s\" x2=\"%s\" y2=\"%s\"",
		fx(x1, 2).s, fx(y1, 2).s, fx(x2, 2).s, fx(y2, 2).s);
}

struct axis {
	enum axis_scale scale;
	double lo, hi;     /* shown range, in axis units (log2 or log10 for log) */
	double p0, p1;     /* pixel coordinates of lo and hi */
	int nticks, nminor;
	double tick[MAX_TICKS], minor[MAX_TICKS];
	char label[MAX_TICKS][40];
};

static int usable(enum axis_scale s, double v)
{
	return isfinite(v) && (s == AXIS_LINEAR || v > 0);
}

static double to_units(enum axis_scale s, double v)
{
	return s == AXIS_LOG2_BYTES ? log2(v) : s == AXIS_LOG10 ? log10(v) : v;
}

static double to_px(const struct axis *a, double u)
{
	if (!(a->hi > a->lo))
		return (a->p0 + a->p1) / 2;
	return a->p0 + (u - a->lo) / (a->hi - a->lo) * (a->p1 - a->p0);
}

/* 1, 2 or 5 times a power of ten, at least raw. */
static double nice_step(double raw)
{
	double p = pow(10, floor(log10(raw)));
	double m = raw / p;
	return (m <= 1 ? 1 : m <= 2 ? 2 : m <= 5 ? 5 : 10) * p;
}

/* Round the range out to about six nice steps, so the frame ends on a
 * labelled tick. */
static void linear_ticks(struct axis *a, double lo, double hi)
{
	double step = nice_step((hi - lo) / 6);

	a->lo = lo;
	a->hi = hi;
	if (!isfinite(step) || !(step > 0))  /* absurd data: no ticks */
		return;
	int decimals = step >= 1 ? 0 : (int)ceil(-log10(step) - 1e-9);
	double k0 = floor(lo / step);
	a->lo = k0 * step;
	a->hi = ceil(hi / step) * step;
	for (int i = 0; i < MAX_TICKS; i++) {
		double u = (k0 + i) * step;
		if (u > a->hi + step / 2)
			break;
		a->tick[a->nticks] = u;
		snprintf(a->label[a->nticks++], sizeof a->label[0], "%s",
			 fx(u, decimals).s);
	}
}

/* 2^e bytes in the largest binary unit that keeps the number >= 1. */
static void byte_label(char *buf, size_t n, long e)
{
	static const char *const unit[] = {
		"B", "KiB", "MiB", "GiB", "TiB", "PiB", "EiB",
	};
	long u = e < 0 ? 0 : e / 10 > 6 ? 6 : e / 10;
	snprintf(buf, n, "%s %s", fx(ldexp(1, (int)(e - 10 * u)), (int)-e).s,
		 unit[u]);
}

/* m * 10^e, plainly while that stays short. */
static void decimal_label(char *buf, size_t n, int m, long e)
{
	if (e >= -4 && e <= 6)
		snprintf(buf, n, "%s",
			 fx(m * pow(10, (double)e), e < 0 ? (int)-e : 0).s);
	else
		snprintf(buf, n, "%de%ld", m, e);
}

/* Labels at every stride-th power, the stride picked so that at most
 * max_labels fit; unlabelled powers get a small tick mark only. */
static void log_ticks(struct axis *a, double lo, double hi, int max_labels)
{
	static const int strides[] = { 1, 2, 5, 10, 20, 50, 100, 200, 500 };
	int st = 1;

	a->lo = lo;
	a->hi = hi;
	for (size_t i = 0; i < sizeof strides / sizeof *strides; i++) {
		st = strides[i];
		if (floor(hi / st) - ceil(lo / st) + 1 <= max_labels)
			break;
	}
	for (long e = (long)ceil(lo); e <= hi; e++) {
		if (e % st == 0 && a->nticks < MAX_TICKS) {
			a->tick[a->nticks] = (double)e;
			if (a->scale == AXIS_LOG2_BYTES)
				byte_label(a->label[a->nticks],
					   sizeof a->label[0], e);
			else
				decimal_label(a->label[a->nticks],
					      sizeof a->label[0], 1, e);
			a->nticks++;
		} else if (e % st && st <= 5 && a->nminor < MAX_TICKS) {
			a->minor[a->nminor++] = (double)e;
		}
	}
	/* Less than a decade shown: label 2x and 5x (then every digit). */
	static const int mant[2][9] = { { 1, 2, 5 }, { 1, 2, 3, 4, 5, 6, 7, 8, 9 } };
	for (int set = 0; set < 2 && a->scale == AXIS_LOG10 && a->nticks < 2;
	     set++) {
		a->nticks = a->nminor = 0;
		for (long e = (long)floor(lo); e <= hi; e++) {
			for (int j = 0; j < 9 && mant[set][j]; j++) {
				double u = (double)e + log10(mant[set][j]);
				if (u < lo || u > hi || a->nticks == MAX_TICKS)
					continue;
				a->tick[a->nticks] = u;
				decimal_label(a->label[a->nticks++],
					      sizeof a->label[0], mant[set][j], e);
			}
		}
	}
}

/* Ticks and shown range for data spanning [lo, hi] (axis units). */
static void set_axis(struct axis *a, enum axis_scale s, double lo, double hi,
		     int from_zero, int max_labels)
{
	memset(a, 0, sizeof *a);
	a->scale = s;
	if (lo == hi) {  /* a single value: show some room around it */
		double d = s != AXIS_LINEAR ? 1 : lo != 0 ? fabs(lo) / 10 : 1;
		lo -= d;
		hi += d;
	}
	double pad = (hi - lo) * 0.04;  /* keep markers off the frame */
	lo -= pad;
	hi += pad;
	if (s != AXIS_LINEAR)
		log_ticks(a, lo, hi, max_labels);
	else
		linear_ticks(a, from_zero ? 0 : lo, hi);
}

static int point_ok(const struct plot *p, const struct plot_series *s,
		    size_t i)
{
	return usable(p->x_scale, s->x[i]) && usable(p->y_scale, s->y[i]);
}

static void widen(double r[4], double x, double y)
{
	r[0] = fmin(r[0], x);
	r[1] = fmax(r[1], x);
	r[2] = fmin(r[2], y);
	r[3] = fmax(r[3], y);
}

/* An error bar's or a band's end, if it can be drawn. */
static int bar_ok(const struct plot *p, const double *v, size_t i)
{
	return v && usable(p->y_scale, v[i]);
}

/* Range of the drawable points, their bars and the bands, in axis units,
 * as x lo, x hi, y lo, y hi; returns how many points there are. */
static size_t data_range(const struct plot *p, double r[4])
{
	size_t n = 0;
	r[0] = r[2] = INFINITY;
	r[1] = r[3] = -INFINITY;
	for (size_t k = 0; p->series && k < p->nseries; k++) {
		const struct plot_series *s = &p->series[k];
		for (size_t i = 0; s->x && s->y && i < s->count; i++) {
			if (!point_ok(p, s, i))
				continue;
			double x = to_units(p->x_scale, s->x[i]);
			widen(r, x, to_units(p->y_scale, s->y[i]));
			if (bar_ok(p, s->lo, i) && bar_ok(p, s->hi, i)) {
				widen(r, x, to_units(p->y_scale, s->lo[i]));
				widen(r, x, to_units(p->y_scale, s->hi[i]));
			}
			n++;
		}
	}
	for (size_t k = 0; p->bands && k < p->nbands; k++) {
		const struct plot_band *b = &p->bands[k];
		for (size_t i = 0; b->x && i < b->count; i++) {
			if (!usable(p->x_scale, b->x[i]) || !bar_ok(p, b->lo, i) ||
			    !bar_ok(p, b->hi, i))
				continue;
			double x = to_units(p->x_scale, b->x[i]);
			widen(r, x, to_units(p->y_scale, b->lo[i]));
			widen(r, x, to_units(p->y_scale, b->hi[i]));
			n++;
		}
	}
	return n;
}

/* How series k of a plot is told from the others: its colour; its round,
 * 0 unless the palette ran out (then the colour repeats with hollow
 * markers and its own dash); its marker shape, by its index. */
struct look {
	const char *colour;
	int round, shape;
};

enum { SHAPE_CIRCLE, SHAPE_SQUARE, SHAPE_UP, SHAPE_DIAMOND, SHAPE_DOWN, NSHAPES };

/* Dash patterns of a dashed stretch, per round (strong, normal). */
static const char *const dashes[][2] = {
	{"9,5", "7,4"}, {"3,3", "2,3"}, {"12,3,3,3", "10,3,2,3"},
};
#define NDASHES (sizeof dashes / sizeof *dashes)

static int taken(const struct look *looks, size_t n, const char *c)
{
	for (size_t j = 0; j < n; j++)
		if (looks[j].colour && !looks[j].round && !strcasecmp(looks[j].colour, c))
			return 1;
	return 0;
}

/* Every series' look: a colour the caller fixed, unless an earlier series
 * of the plot has it already; else the palette's next colour that no
 * series has.  Up to NCOLOURS series, no two share a colour. */
static void colour_looks(const struct plot *p, struct look *looks)
{
	for (size_t k = 0; k < p->nseries; k++) {
		const char *c = p->series[k].colour;
		looks[k] = (struct look){c && !taken(looks, k, c) ? c : NULL, 0,
					 (int)(k % NSHAPES)};
	}
	size_t next = 0;
	for (size_t k = 0; k < p->nseries; k++) {
		if (looks[k].colour)
			continue;
		while (next < NCOLOURS && taken(looks, p->nseries, palette[next]))
			next++;
		looks[k].colour = palette[next % NCOLOURS];
		looks[k].round = (int)(next / NCOLOURS);
		next++;
	}
}

/* Stroke attributes of a series, shared by its line and legend sample:
 * a strong series is drawn twice as wide. */
static void style(FILE *f, const struct look *l, const struct plot_series *s,
		  int dashed)
{
	fprintf(f, " stroke=\"%s\" stroke-width=\"%s\"", l->colour,
		s->strong ? "3.4" : "1.6");
	if (dashed)
		fprintf(f, " stroke-dasharray=\"%s\"",
			dashes[(size_t)l->round % NDASHES][!s->strong]);
}

/* A marker of the series' shape at (x, y); hollow past the palette's
 * first round; a strong series' larger. */
static void marker(FILE *f, const struct look *l, const struct plot_series *s,
		   double x, double y)
{
	double r = s->strong ? 4.5 : 3;
	const char *fill = l->round ? "white" : l->colour;
	if (l->shape == SHAPE_CIRCLE) {
		fprintf(f, "<circle class=\"marker\" cx=\"%s\" cy=\"%s\" r=\"%s\"",
			fx(x, 2).s, fx(y, 2).s, fx(r, 2).s);
	} else {
		/* Corners around (x, y), in units of r: a square, a triangle
		 * up, a diamond, a triangle down. */
		static const double corner[NSHAPES][4][2] = {
			[SHAPE_SQUARE] = {{-0.9, -0.9}, {0.9, -0.9}, {0.9, 0.9}, {-0.9, 0.9}},
			[SHAPE_UP] = {{0, -1.3}, {1.15, 0.8}, {-1.15, 0.8}, {0, -1.3}},
			[SHAPE_DIAMOND] = {{0, -1.3}, {1.2, 0}, {0, 1.3}, {-1.2, 0}},
			[SHAPE_DOWN] = {{0, 1.3}, {1.15, -0.8}, {-1.15, -0.8}, {0, 1.3}},
		};
		fputs("<path class=\"marker\" d=\"", f);
		for (int i = 0; i < 4; i++)
			fprintf(f, "%s%s,%s ", i ? "L" : "M",
				fx(x + corner[l->shape][i][0] * r, 2).s,
				fx(y + corner[l->shape][i][1] * r, 2).s);
		fputs("Z\"", f);
	}
	fprintf(f, " fill=\"%s\" stroke=\"%s\" stroke-width=\"1.5\"/>\n", fill,
		l->colour);
}

/* Series k's error bars: a thin line from lo to hi at each point, with
 * caps, in the series' colour. */
static void draw_bars(FILE *f, const struct plot *p, size_t k,
		      const struct look *l, const struct axis *ax,
		      const struct axis *ay)
{
	const struct plot_series *s = &p->series[k];
	if (!s->lo || !s->hi)
		return;
	fprintf(f, "<g stroke=\"%s\" stroke-width=\"1\" stroke-opacity=\"0.7\">\n",
		l->colour);
	for (size_t i = 0; i < s->count; i++) {
		if (!point_ok(p, s, i) || !bar_ok(p, s->lo, i) || !bar_ok(p, s->hi, i))
			continue;
		double x = to_px(ax, to_units(p->x_scale, s->x[i]));
		double y0 = to_px(ay, to_units(p->y_scale, s->lo[i]));
		double y1 = to_px(ay, to_units(p->y_scale, s->hi[i]));
		line(f, x, y0, x, y1);
		fputs("/>\n", f);
		line(f, x - 3, y0, x + 3, y0);
		fputs("/>\n", f);
		line(f, x - 3, y1, x + 3, y1);
		fputs("/>\n", f);
	}
	fputs("</g>\n", f);
}

/* The polylines of one series, split where the line turns from solid to
 * dashed: a run of edges of one style is one polyline.  open is the style
 * of the polyline being written, -1 when none is. */
struct pen {
	FILE *f;
	const struct look *l;
	const struct plot_series *s;
	int open;
};

/* Continue from (x0, y0), where the line is, in style dashed: a new
 * polyline starting there when the style changes. */
static void pen_from(struct pen *pen, int dashed, double x0, double y0)
{
	if (pen->open == dashed)
		return;
	if (pen->open >= 0)
		fputs("\"/>\n", pen->f);
	fputs("<polyline fill=\"none\"", pen->f);
	style(pen->f, pen->l, pen->s, dashed);
	fprintf(pen->f, " points=\"%s,%s", fx(x0, 2).s, fx(y0, 2).s);
	pen->open = dashed;
}

static void pen_edge(struct pen *pen, int dashed, double x0, double y0,
		     double x1, double y1)
{
	pen_from(pen, dashed, x0, y0);
	fprintf(pen->f, " %s,%s", fx(x1, 2).s, fx(y1, 2).s);
}

/* The line through series k's points: one polyline in its style, or,
 * with dashed_at, solid and dashed stretches, an edge between a dashed
 * and a solid point changing halfway. */
static void draw_line(FILE *f, const struct plot *p, size_t k,
		      const struct look *l, const struct axis *ax,
		      const struct axis *ay)
{
	const struct plot_series *s = &p->series[k];
	struct pen pen = {f, l, s, -1};
	double px = 0, py = 0;
	int pd = 0, have = 0;
	for (size_t i = 0; i < s->count; i++) {
		if (!point_ok(p, s, i))
			continue;
		double x = to_px(ax, to_units(p->x_scale, s->x[i]));
		double y = to_px(ay, to_units(p->y_scale, s->y[i]));
		int d = s->dashed_at ? !!s->dashed_at[i] : !!s->dashed;
		if (!have) {
			pen_from(&pen, d, x, y);
		} else if (d == pd) {
			pen_edge(&pen, d, px, py, x, y);
		} else {
			pen_edge(&pen, pd, px, py, (px + x) / 2, (py + y) / 2);
			pen_edge(&pen, d, (px + x) / 2, (py + y) / 2, x, y);
		}
		px = x;
		py = y;
		pd = d;
		have++;
	}
	if (pen.open >= 0)
		fputs("\"/>\n", f);
}

static void draw_series(FILE *f, const struct plot *p, size_t k,
			const struct look *l, const struct axis *ax,
			const struct axis *ay)
{
	const struct plot_series *s = &p->series[k];
	size_t n = 0;

	for (size_t i = 0; s->x && s->y && i < s->count; i++)
		n += point_ok(p, s, i);
	if (!n)
		return;
	fputs("<g>\n<title>", f);
	put_escaped(f, s->name);
	fputs("</title>\n", f);
	draw_line(f, p, k, l, ax, ay);
	draw_bars(f, p, k, l, ax, ay);
	for (size_t i = 0; i < s->count; i++) {
		if (point_ok(p, s, i))
			marker(f, l, s, to_px(ax, to_units(p->x_scale, s->x[i])),
			       to_px(ay, to_units(p->y_scale, s->y[i])));
	}
	fputs("</g>\n", f);
}

/* Band k as one filled area: along the tops left to right, back along
 * the bottoms.  A band of one point is a short bar 16 pixels wide. */
static void draw_band(FILE *f, const struct plot *p, size_t k,
		      const struct axis *ax, const struct axis *ay)
{
	const struct plot_band *b = &p->bands[k];
	size_t n = 0;
	for (size_t i = 0; b->x && i < b->count; i++)
		n += usable(p->x_scale, b->x[i]) && bar_ok(p, b->lo, i) &&
		     bar_ok(p, b->hi, i);
	if (!n)
		return;
	fputs("<g>\n<title>", f);
	put_escaped(f, b->name);
	fputs("</title>\n<polygon fill=\"#999999\" fill-opacity=\"0.3\" "
	      "stroke=\"#999999\" stroke-width=\"1\" points=\"", f);
	for (int pass = 0, j = 0; pass < 2; pass++)
		for (size_t m = 0; m < b->count; m++) {
			size_t i = pass ? b->count - 1 - m : m;
			if (!usable(p->x_scale, b->x[i]) || !bar_ok(p, b->lo, i) ||
			    !bar_ok(p, b->hi, i))
				continue;
			double x = to_px(ax, to_units(p->x_scale, b->x[i]));
			double y = to_px(ay, to_units(p->y_scale, pass ? b->lo[i] : b->hi[i]));
			if (n == 1)  /* two corners a side */
				fprintf(f, "%s%s,%s %s,%s", j++ ? " " : "",
					fx(x + (pass ? 8 : -8), 2).s, fx(y, 2).s,
					fx(x + (pass ? -8 : 8), 2).s, fx(y, 2).s);
			else
				fprintf(f, "%s%s,%s", j++ ? " " : "", fx(x, 2).s,
					fx(y, 2).s);
		}
	fputs("\"/>\n</g>\n", f);
}

static void draw_axes(FILE *f, const struct plot *p, const struct axis *ax,
		      const struct axis *ay)
{
	double l = ax->p0, r = ax->p1, b = ay->p0, t = ay->p1;

	fputs("<g stroke=\"#e4e4e4\" stroke-width=\"1\">\n", f);
	for (int i = 0; i < ax->nticks; i++) {
		line(f, to_px(ax, ax->tick[i]), t, to_px(ax, ax->tick[i]), b);
		fputs("/>\n", f);
	}
	for (int i = 0; i < ay->nticks; i++) {
		line(f, l, to_px(ay, ay->tick[i]), r, to_px(ay, ay->tick[i]));
		fputs("/>\n", f);
	}
	/* Tick marks: 6px where labelled, 3px at the other powers. */
	fputs("</g>\n<g stroke=\"#333333\" stroke-width=\"1\">\n", f);
	for (int i = 0; i < ax->nticks + ax->nminor; i++) {
		int minor = i >= ax->nticks;
		double x = to_px(ax, minor ? ax->minor[i - ax->nticks] : ax->tick[i]);
		line(f, x, b, x, b + (minor ? 3 : 6));
		fputs("/>\n", f);
	}
	for (int i = 0; i < ay->nticks + ay->nminor; i++) {
		int minor = i >= ay->nticks;
		double y = to_px(ay, minor ? ay->minor[i - ay->nticks] : ay->tick[i]);
		line(f, l - (minor ? 3 : 6), y, l, y);
		fputs("/>\n", f);
	}
	fputs("</g>\n<g fill=\"#222222\">\n", f);
	for (int i = 0; i < ax->nticks; i++)
		if (ax->label[i][0])
			text(f, to_px(ax, ax->tick[i]), b + 20,
			     " text-anchor=\"middle\"", ax->label[i]);
	for (int i = 0; i < ay->nticks; i++)
		text(f, l - 9, to_px(ay, ay->tick[i]) + 4, " text-anchor=\"end\"",
		     ay->label[i]);
	if (p->x_label)
		text(f, (l + r) / 2, b + 44,
		     " text-anchor=\"middle\" font-size=\"13\"", p->x_label);
	if (p->y_label) {
		fprintf(f, "<text transform=\"translate(22,%s) rotate(-90)\" text-anchor=\"middle\" font-size=\"13\">",
			fx((t + b) / 2, 2).s);
		put_escaped(f, p->y_label);
		fputs("</text>\n", f);
	}
	fputs("</g>\n", f);
}

static size_t legend_rows(const struct plot *p)
{
	return p->nseries + (p->bands ? p->nbands : 0);
}

/* One row per series, then per band, in a framed box whose top-left
 * corner is (x, y). */
static void draw_legend(FILE *f, const struct plot *p,
			const struct look *looks, double x, double y, double w)
{
	fprintf(f, "<rect x=\"%s\" y=\"%s\" width=\"%s\" height=\"%s\" fill=\"white\" stroke=\"#cccccc\"/>\n",
		fx(x, 2).s, fx(y, 2).s, fx(w, 2).s,
		fx((double)legend_rows(p) * ROW + 12, 2).s);
	for (size_t k = 0; k < legend_rows(p); k++) {
		double cy = y + 6 + ROW * ((double)k + 0.5);
		if (k >= p->nseries) {
			fprintf(f, "<rect x=\"%s\" y=\"%s\" width=\"28\" height=\"10\" "
				"fill=\"#999999\" fill-opacity=\"0.3\" stroke=\"#999999\"/>\n",
				fx(x + 8, 2).s, fx(cy - 5, 2).s);
			text(f, x + 44, cy + 4, "", p->bands[k - p->nseries].name);
			continue;
		}
		line(f, x + 8, cy, x + 36, cy);
		style(f, &looks[k], &p->series[k], p->series[k].dashed);
		fputs("/>\n", f);
		marker(f, &looks[k], &p->series[k], x + 22, cy);
		text(f, x + 44, cy + 4, "", p->series[k].name);
	}
}

static int by_value(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;
	return (x > y) - (x < y);
}

/* Ticks at p->x_marks alone (the sizes measured, so that every point sits
 * on a labelled line), inside the shown range; a label only where it
 * clears the one before it, the tick and grid line everywhere. */
static void mark_axis(struct axis *a, const struct plot *p)
{
	double v[MAX_TICKS];
	int n = 0;
	for (size_t i = 0; i < p->nx_marks && n < MAX_TICKS; i++)
		if (usable(a->scale, p->x_marks[i]))
			v[n++] = p->x_marks[i];
	qsort(v, (size_t)n, sizeof *v, by_value);
	a->nticks = a->nminor = 0;
	double last = -INFINITY;
	for (int i = 0; i < n; i++) {
		double u = to_units(a->scale, v[i]);
		if ((i && v[i] == v[i - 1]) || u < a->lo || u > a->hi)
			continue;
		char *label = a->label[a->nticks];
		a->tick[a->nticks++] = u;
		if (a->scale == AXIS_LOG2_BYTES && v[i] < 0x1p63)
			ntm_format_size((size_t)v[i], label, sizeof a->label[0]);
		else
			snprintf(label, sizeof a->label[0], "%s",
				 fx(v[i], v[i] == floor(v[i]) ? 0 : 2).s);
		if (to_px(a, u) - last < LABEL_GAP)
			label[0] = '\0';
		else
			last = to_px(a, u);
	}
}

/* The key of notes under the caption: its height, the width of its
 * name column, its whole width. */
#define NOTE_ROW 16
static double notes_height(const struct plot *p)
{
	return p->notes && p->nnotes ? 10 + (double)p->nnotes * NOTE_ROW : 0;
}

static double notes_name_width(const struct plot *p)
{
	double w = 0;
	for (size_t i = 0; p->notes && i < p->nnotes; i++)
		w = fmax(w, text_width(p->notes[i].name));
	return w;
}

static double notes_width(const struct plot *p)
{
	double w = 0;
	for (size_t i = 0; p->notes && i < p->nnotes; i++)
		w = fmax(w, text_width(p->notes[i].text));
	return w ? notes_name_width(p) + 12 + w : 0;
}

/* Where everything of one plot goes. */
struct layout {
	struct axis ax, ay;   /* with the plot area's pixels */
	double width, height, legend_w, left;
};

/* Lay p out in an image at least as wide as common's, its plot area
 * starting no further left and its legend no narrower (so that stacked
 * panels share their x axis's pixels).  Returns 0, or -1 when p has
 * nothing to draw. */
static int plan(const struct plot *p, const struct layout *common,
		struct layout *L)
{
	double r[4];
	if (!p || !data_range(p, r))
		return -1;
	set_axis(&L->ay, p->y_scale, r[2], r[3],
		 p->y_scale == AXIS_LINEAR && r[2] >= 0 && !p->y_from_data, 10);

	/* Left to right: y label, y tick labels, plot area, legend. */
	double label_w = 0, name_w = 0;
	for (int i = 0; i < L->ay.nticks; i++)
		label_w = fmax(label_w, text_width(L->ay.label[i]));
	for (size_t k = 0; k < legend_rows(p); k++)
		name_w = fmax(name_w, text_width(k < p->nseries ? p->series[k].name
						 : p->bands[k - p->nseries].name));
	double left = fmax(common->left, fmax(64, 46 + label_w));
	L->left = left;
	L->legend_w = fmax(common->legend_w, 52 + name_w);
	L->width = ceil(fmax(fmax(WIDTH, common->width),
			     fmax(fmax(left + MIN_PLOT_W + 20 + L->legend_w + 12,
				       left + text_width(p->caption) + 12),
				  left + notes_width(p) + 12)));
	double right = L->width - 12 - L->legend_w - 20;
	/* The x tick labels sit side by side: at most as many as fit. */
	set_axis(&L->ax, p->x_scale, r[0], r[1], 0,
		 (int)fmin(10, (right - left) / LABEL_GAP));

	/* Top to bottom: title, subtitle, plot area as tall as the legend at
	 * least, x tick labels, x label, caption. */
	double top = p->subtitle ? 72 : 52;
	double legend_h = (double)legend_rows(p) * ROW + 12;
	double caption_h = p->caption ? 22 : 0;
	L->height = ceil(fmax(p->compact ? HEIGHT * 0.65 : HEIGHT,
			      top + legend_h + 62) + caption_h + notes_height(p));
	L->ax.p0 = left;
	L->ax.p1 = right;
	L->ay.p0 = L->height - 62 - caption_h - notes_height(p);
	L->ay.p1 = top;
	if (p->x_marks)
		mark_axis(&L->ax, p);
	return 0;
}

/* The key under the caption: each note's name, then its text in a
 * column of their own, a row each. */
static void draw_notes(FILE *f, const struct plot *p, const struct layout *L)
{
	double x = L->ax.p0, name_w = notes_name_width(p);
	double y = L->height - notes_height(p) + 14;
	for (size_t i = 0; i < p->nnotes; i++, y += NOTE_ROW) {
		text(f, x, y, " fill=\"#222222\"", p->notes[i].name);
		text(f, x + name_w + 12, y, " fill=\"#555555\"", p->notes[i].text);
	}
}

static void draw_plot(FILE *f, const struct plot *p, const struct look *looks,
		      const struct layout *L)
{
	double width = L->width, left = L->ax.p0, right = L->ax.p1;
	double top = L->ay.p1, bottom = L->ay.p0;
	if (p->title)
		text(f, width / 2, 30,
		     " text-anchor=\"middle\" font-size=\"18\" font-weight=\"bold\"",
		     p->title);
	if (p->subtitle)
		text(f, width / 2, 52,
		     " text-anchor=\"middle\" font-size=\"13\" fill=\"#555555\"",
		     p->subtitle);
	draw_axes(f, p, &L->ax, &L->ay);
	for (size_t k = 0; p->bands && k < p->nbands; k++)
		draw_band(f, p, k, &L->ax, &L->ay);
	/* The strong series last, over the others. */
	for (int strong = 0; strong < 2; strong++)
		for (size_t k = 0; k < p->nseries; k++)
			if (!p->series[k].strong == !strong)
				draw_series(f, p, k, &looks[k], &L->ax, &L->ay);
	/* Frame after the lines, so no line or marker covers it. */
	fprintf(f, "<rect x=\"%s\" y=\"%s\" width=\"%s\" height=\"%s\" fill=\"none\" stroke=\"#333333\"/>\n",
		fx(left, 2).s, fx(top, 2).s, fx(right - left, 2).s,
		fx(bottom - top, 2).s);
	draw_legend(f, p, looks, right + 20, top, L->legend_w);
	if (p->caption)
		text(f, left, L->height - 12 - notes_height(p),
		     " font-size=\"12\" fill=\"#555555\"", p->caption);
	draw_notes(f, p, L);
}

int svg_plots(FILE *f, const struct plot *p, size_t n)
{
	struct layout *L = f && p && n ? calloc(n, sizeof *L) : NULL;
	struct layout common = {.width = 0};
	double height = 0;
	int any = 0;
	/* Lay out twice: once for the widest panel, its widest legend and
	 * tick labels, then all with those. */
	for (int pass = 0; L && pass < 2; pass++)
		for (size_t i = 0; i < n; i++) {
			if (plan(&p[i], &common, &L[i]))
				continue;
			any = 1;
			common.width = fmax(common.width, L[i].width);
			common.left = fmax(common.left, L[i].left);
			common.legend_w = fmax(common.legend_w, L[i].legend_w);
			height += pass ? L[i].height : 0;
		}
	double width = common.width;
	size_t nlooks = 0;
	for (size_t i = 0; i < n; i++)
		nlooks += p[i].nseries;
	struct look *looks = any ? calloc(nlooks + 1, sizeof *looks) : NULL;
	if (!looks) {
		free(L);
		return -1;
	}
	fprintf(f, "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n"
		"<svg xmlns=\"http://www.w3.org/2000/svg\" version=\"1.1\" width=\"%s\" height=\"%s\" viewBox=\"0 0 %s %s\" font-family=\"DejaVu Sans, Helvetica, Arial, sans-serif\" font-size=\"12\">\n"
		"<rect x=\"0\" y=\"0\" width=\"%s\" height=\"%s\" fill=\"white\"/>\n",
		fx(width, 0).s, fx(height, 0).s, fx(width, 0).s,
		fx(height, 0).s, fx(width, 0).s, fx(height, 0).s);
	double y = 0;
	for (size_t i = 0, first = 0; i < n; first += p[i++].nseries) {
		if (plan(&p[i], &common, &L[i]))
			continue;
		if (y > 0)
			fprintf(f, "<g transform=\"translate(0,%s)\">\n", fx(y, 0).s);
		colour_looks(&p[i], looks + first);
		draw_plot(f, &p[i], looks + first, &L[i]);
		if (y > 0)
			fputs("</g>\n", f);
		y += L[i].height;
	}
	fputs("</svg>\n", f);
	free(looks);
	free(L);
	return 0;
}

int svg_plot(FILE *f, const struct plot *p)
{
	return svg_plots(f, p, 1);
}
