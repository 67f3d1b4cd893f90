/* test_svg.c - svg_plot writes well-formed SVG that shows what it is given.
 *
 * Every plot is rendered into memory and read back: a small checker
 * verifies the XML (balanced, properly nested tags, quoted attributes, no
 * raw '&' or '<' in text, one <svg> root), then the tests count polylines
 * and their points, look for legend names and tick labels, and check that
 * every coordinate lies inside the viewBox. */
#include <ctype.h>
#include <locale.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "harness.h"
#include "output/svg.h"
#include "util/size.h"


struct out {
	char *buf;
	size_t len;
	int rc;
};

static struct out render(const struct plot *p)
{
	struct out o = { NULL, 0, -2 };
	FILE *f = open_memstream(&o.buf, &o.len);
	if (!f)
		return o;
	o.rc = svg_plot(f, p);
	fclose(f);
	return o;
}

static size_t name_len(const char *s)
{
	size_t n = 0;
	if (!isalpha((unsigned char)*s) && *s != '_' && *s != ':')
		return 0;
	while (isalnum((unsigned char)s[n]) || strchr("_:.-", s[n]))
		n++;
	return n;
}

/* Length of the entity or character reference at s, or 0. */
static size_t entity_len(const char *s)
{
	static const char *const named[] = {
		"&amp;", "&lt;", "&gt;", "&quot;", "&apos;",
	};
	for (size_t i = 0; i < sizeof named / sizeof *named; i++)
		if (!strncmp(s, named[i], strlen(named[i])))
			return strlen(named[i]);
	if (strncmp(s, "&#", 2))
		return 0;
	size_t n = 2;
	int hex = s[n] == 'x';
	n += hex;
	size_t digits = 0;
	while (hex ? isxdigit((unsigned char)s[n]) : isdigit((unsigned char)s[n]))
		n++, digits++;
	return digits && s[n] == ';' ? n + 1 : 0;
}

/* NULL if doc is well-formed, else what is wrong and where.  Stricter
 * than XML in one way: a raw '>' in text counts as unescaped too. */
static const char *xml_error(const char *doc)
{
	static char msg[160];
	const char *open[64];
	size_t open_len[64];
	int depth = 0, roots = 0;
	const char *s = doc;

#define BAD(what) do { \
		snprintf(msg, sizeof msg, "%s at offset %zu: %.30s", what, \
			 (size_t)(s - doc), s); \
		return msg; \
	} while (0)

	if (!strncmp(s, "<?xml", 5)) {
		s = strstr(s, "?>");
		if (!s)
			return "unterminated XML declaration";
		s += 2;
	}
	while (*s) {
		if (*s != '<') {
			if (!depth && !isspace((unsigned char)*s))
				BAD("text outside the root element");
			if (*s == '>')
				BAD("raw '>' in text");
			if (*s == '&' && !entity_len(s))
				BAD("raw '&' in text");
			s++;
			continue;
		}
		if (!strncmp(s, "<!--", 4)) {
			const char *end = strstr(s, "-->");
			if (!end)
				BAD("unterminated comment");
			s = end + 3;
			continue;
		}
		int closing = s[1] == '/';
		const char *name = s + 1 + closing;
		size_t len = name_len(name);
		if (!len)
			BAD("bad tag name");
		if (closing) {
			s = name + len;
			while (isspace((unsigned char)*s))
				s++;
			if (*s != '>')
				BAD("junk in end tag");
			if (!depth || open_len[depth - 1] != len ||
			    strncmp(open[depth - 1], name, len))
				BAD("end tag does not match");
			depth--;
			s++;
			continue;
		}
		if (!depth && (++roots > 1 || len != 3 || strncmp(name, "svg", 3)))
			BAD("root element is not a single <svg>");
		s = name + len;
		for (;;) {
			int space = 0;
			while (isspace((unsigned char)*s))
				s++, space = 1;
			if (*s == '>' || !strncmp(s, "/>", 2))
				break;
			size_t alen = name_len(s);
			if (!space || !alen)
				BAD("bad attribute");
			s += alen;
			if (*s != '=' || (s[1] != '"' && s[1] != '\''))
				BAD("attribute value not quoted");
			char quote = s[1];
			for (s += 2; *s != quote; s++) {
				if (!*s || *s == '<')
					BAD("'<' or end of file in attribute");
				if (*s == '&' && !entity_len(s))
					BAD("raw '&' in attribute");
			}
			s++;
		}
		if (*s == '/') {
			s += 2;
			continue;
		}
		if (depth == 64)
			BAD("nested too deeply");
		open[depth] = name;
		open_len[depth++] = len;
		s++;
	}
	if (depth)
		return "unclosed element at end of file";
	if (roots != 1)
		return "no root element";
	return NULL;
#undef BAD
}

static size_t count(const char *s, const char *needle)
{
	size_t n = 0;
	for (const char *p = strstr(s, needle); p; p = strstr(p + 1, needle))
		n++;
	return n;
}

/* The value of attribute name in the tag starting at tag, or NAN. */
static double attr(const char *tag, const char *name)
{
	char key[32];
	int len = snprintf(key, sizeof key, " %s=\"", name);
	for (const char *p = tag; *p && *p != '>'; p++)
		if (!strncmp(p, key, (size_t)len))
			return strtod(p + len, NULL);
	return NAN;
}

/* Points in the n-th polyline, or -1 if there is none. */
static int polyline_points(const char *doc, size_t n)
{
	const char *p = doc;
	for (size_t i = 0; p && i <= n; i++)
		p = strstr(i ? p + 1 : p, "<polyline");
	if (!p || !(p = strstr(p, "points=\"")))
		return -1;
	int pts = 0;
	for (p += 8; *p != '"'; p++)
		pts += *p == ',';
	return pts;
}

/* NULL if every coordinate lies inside the viewBox, else which not. */
static const char *outside(const char *doc)
{
	static char msg[120];
	double w = NAN, h = NAN;
	const char *vb = strstr(doc, "viewBox=\"");
	if (!vb || sscanf(vb, "viewBox=\"0 0 %lf %lf\"", &w, &h) != 2)
		return "no viewBox";
	static const char *const xs[] = { "x", "x1", "x2", "cx" };
	static const char *const ys[] = { "y", "y1", "y2", "cy" };
	for (const char *t = strchr(doc, '<'); t; t = strchr(t + 1, '<')) {
		for (int i = 0; i < 4; i++) {
			double x = attr(t, xs[i]), y = attr(t, ys[i]);
			if (!isnan(x) && !strncmp(t, "<rect", 5))
				x += attr(t, "width");
			if (!isnan(y) && !strncmp(t, "<rect", 5))
				y += attr(t, "height");
			if (x < 0 || x > w || y < 0 || y > h) {
				snprintf(msg, sizeof msg, "%.60s", t);
				return msg;
			}
		}
		if (strncmp(t, "<polyline", 9))
			continue;
		const char *p = strstr(t, "points=\"");
		for (p = p ? p + 8 : "\""; *p != '"';) {
			char *end;
			double x = strtod(p, &end);
			double y = strtod(end + 1, &end);
			if (!(x >= 0 && x <= w && y >= 0 && y <= h)) {
				snprintf(msg, sizeof msg, "polyline point %g,%g", x, y);
				return msg;
			}
			p = end + (*end == ' ');
		}
	}
	return NULL;
}

/* 1 if every polyline point lies inside the plot frame (the unfilled
 * rect) and off its edges; only the bottom edge may be touched, by zeros
 * on a y axis that starts at 0. */
static int inside_frame(const char *doc)
{
	const char *r = strstr(doc, "<rect");
	for (; r; r = strstr(r + 1, "<rect")) {
		const char *fill = strstr(r, " fill=\"none\"");
		if (fill && fill < strchr(r, '>'))
			break;
	}
	if (!r)
		return 0;
	double x0 = attr(r, "x"), y0 = attr(r, "y");
	double x1 = x0 + attr(r, "width"), y1 = y0 + attr(r, "height");
	for (const char *p = strstr(doc, "points=\""); p; p = strstr(p, "points=\"")) {
		for (p += 8; *p != '"';) {
			char *end;
			double x = strtod(p, &end);
			double y = strtod(end + 1, &end);
			if (!(x > x0 + 1 && x < x1 - 1 && y > y0 + 1 && y <= y1))
				return 0;
			p = end + (*end == ' ');
		}
	}
	return 1;
}

/* Checks every valid plot must pass; returns whether they all did. */
static int check_doc(const char *name, const struct out *o)
{
	char what[96];
	const char *err;
	snprintf(what, sizeof what, "%s: rendered", name);
	t_check(o->rc == 0 && o->len > 0, what, "rc %d, %zu bytes", o->rc, o->len);
	if (o->rc)
		return 0;
	snprintf(what, sizeof what, "%s: well-formed", name);
	err = xml_error(o->buf);
	t_check(!err, what, "%s", err);
	int ok = !err;
	snprintf(what, sizeof what, "%s: standalone SVG", name);
	int svg = !strncmp(o->buf, "<?xml", 5) &&
		  strstr(o->buf, "<svg xmlns=\"http://www.w3.org/2000/svg\"");
	t_check(svg, what, "missing XML declaration or svg namespace");
	ok &= svg;
	snprintf(what, sizeof what, "%s: inside the viewBox", name);
	err = outside(o->buf);
	t_check(!err, what, "%s", err);
	snprintf(what, sizeof what, "%s: lines inside the frame", name);
	int framed = inside_frame(o->buf);
	t_check(framed, what, "a point on or outside the frame");
	return ok && !err && framed;
}

static void test_basic(void)
{
	double x[] = { 1, 2, 3, 4 };
	double y[3][4] = { { 5, 10, 20, 45 }, { 7, 8, 9, 10 }, { 30, 25, 20, 15 } };
	struct plot_series s[] = {
		{ "stosb", 4, x, y[0], 0, NULL, NULL, NULL, 0, NULL },
		{ "nt_avx512", 4, x, y[1], 1, NULL, NULL, NULL, 0, NULL },
		{ "glibc", 4, x, y[2], 0, NULL, NULL, NULL, 0, NULL },
	};
	struct plot p = { "memset", "1 thread", "size", "GB/s",
			  AXIS_LINEAR, AXIS_LINEAR, s, 3, NULL, 0, NULL, NULL, 0, 0, 0, NULL, 0 };
	struct out o = render(&p);
	if (check_doc("basic", &o)) {
		t_check(count(o.buf, "<polyline") == 3, "basic: one polyline per series",
			"%zu polylines", count(o.buf, "<polyline"));
		t_check(polyline_points(o.buf, 0) == 4 && polyline_points(o.buf, 2) == 4,
			"basic: every point drawn", "%d and %d points",
			polyline_points(o.buf, 0), polyline_points(o.buf, 2));
		t_check(strstr(o.buf, ">stosb<") && strstr(o.buf, ">nt_avx512<") &&
			strstr(o.buf, ">glibc<"), "basic: legend names", "missing");
		t_check(strstr(o.buf, ">memset<") && strstr(o.buf, ">1 thread<") &&
			strstr(o.buf, ">size<") && strstr(o.buf, ">GB/s<"),
			"basic: title and labels", "missing");
		t_check(strstr(o.buf, ">0</text>") != NULL, "basic: y axis from 0",
			"no 0 tick label");
		t_check(count(o.buf, "stroke-dasharray") == 2,
			"basic: dashed series dashed in plot and legend",
			"%zu dasharrays", count(o.buf, "stroke-dasharray"));
		t_check(count(o.buf, "class=\"marker\"") == 12 + 3,
			"basic: a marker per point, legend included", "%zu markers",
			count(o.buf, "class=\"marker\""));
		/* Three series, three shapes: a circle, then paths of four
		 * corners each (a square, a triangle closed on itself). */
		t_check(count(o.buf, "<circle") == 4 + 1 && count(o.buf, "<path") == 8 + 2,
			"basic: each series its own marker shape", "%zu circles, "
			"%zu paths", count(o.buf, "<circle"), count(o.buf, "<path"));
	}
	free(o.buf);
}

static void test_escaping(void)
{
	double x[] = { 1, 2 }, y[] = { 3, 4 };
	struct plot_series s[] = {
		{ "a & b <c>", 2, x, y, 0, NULL, NULL, NULL, 0, NULL },
		{ "it's \"quoted\"", 2, x, y, 1, NULL, NULL, NULL, 0, NULL },
	};
	struct plot p = { "R&D <memset>", "x > y & y < z", "size \"B\"", "'GB/s'",
			  AXIS_LINEAR, AXIS_LINEAR, s, 2, NULL, 0, NULL, NULL, 0, 0, 0, NULL, 0 };
	struct out o = render(&p);
	if (check_doc("escaping", &o)) {
		t_check(strstr(o.buf, "a &amp; b &lt;c&gt;") != NULL,
			"escaping: legend name", "escaped name missing");
		t_check(strstr(o.buf, "it&apos;s &quot;quoted&quot;") &&
			strstr(o.buf, "R&amp;D &lt;memset&gt;") &&
			strstr(o.buf, "x &gt; y &amp; y &lt; z"),
			"escaping: quotes, title and subtitle", "escaped text missing");
		t_check(!strstr(o.buf, "a & b") && !strstr(o.buf, "<c>") &&
			!strstr(o.buf, "<memset>"), "escaping: nothing raw",
			"raw text in output");
	}
	free(o.buf);
}

static void test_dropped_points(void)
{
	double x[] = { 0, -4096, NAN, 4096, 8192, INFINITY, 16384, 32768 };
	double y[] = { 1, 1, 1, 1, NAN, 1, 2, 3 };
	double bad_x[] = { 0, -1, NAN }, bad_y[] = { 1, 2, 3 };
	double ly[] = { 1, 0, -2, 10, 100, 1000, NAN, 5 };
	struct plot_series s[] = {
		{ "good", 8, x, y, 0, NULL, NULL, NULL, 0, NULL },
		{ "nothing drawable", 3, bad_x, bad_y, 0, NULL, NULL, NULL, 0, NULL },
		{ "no points", 0, NULL, NULL, 0, NULL, NULL, NULL, 0, NULL },
		{ "log y", 8, x, ly, 1, NULL, NULL, NULL, 0, NULL },
	};
	struct plot p = { "drops", NULL, "size", "GB/s",
			  AXIS_LOG2_BYTES, AXIS_LINEAR, s, 4, NULL, 0, NULL, NULL, 0, 0, 0, NULL, 0 };
	struct out o = render(&p);
	if (check_doc("log2 x drops", &o)) {
		t_check(count(o.buf, "<polyline") == 2,
			"log2 x drops: no line for an empty series", "%zu polylines",
			count(o.buf, "<polyline"));
		t_check(polyline_points(o.buf, 0) == 3, "log2 x drops: bad points left out",
			"%d points, want 3", polyline_points(o.buf, 0));
		t_check(strstr(o.buf, ">nothing drawable<") && strstr(o.buf, ">no points<"),
			"log2 x drops: empty series still in the legend", "missing");
	}
	free(o.buf);

	/* Log on both axes: y <= 0 goes too. */
	p.y_scale = AXIS_LOG10;
	p.series = &s[3];
	p.nseries = 1;
	o = render(&p);
	if (check_doc("log10 y drops", &o))
		t_check(polyline_points(o.buf, 0) == 3, "log10 y drops: bad points left out",
			"%d points, want 3 (4096, 8192 and 32768)",
			polyline_points(o.buf, 0));
	free(o.buf);
}

static void test_nothing_to_draw(void)
{
	double x[] = { NAN, 1, INFINITY }, y[] = { 1, NAN, 2 };
	double neg[] = { -1, 0, -3 };
	struct plot_series s[] = {
		{ "nan", 3, x, y, 0, NULL, NULL, NULL, 0, NULL },
		{ "empty", 0, x, y, 0, NULL, NULL, NULL, 0, NULL },
		{ "no arrays", 3, NULL, NULL, 0, NULL, NULL, NULL, 0, NULL },
		{ "non-positive", 3, neg, neg, 0, NULL, NULL, NULL, 0, NULL },
	};
	struct plot p = { "t", NULL, "x", "y", AXIS_LINEAR, AXIS_LINEAR, s, 3, NULL, 0, NULL, NULL, 0, 0, 0, NULL, 0 };
	struct out o = render(&p);
	t_check(o.rc == -1 && o.len == 0, "nothing to draw: non-finite",
		"rc %d, %zu bytes written", o.rc, o.len);
	free(o.buf);

	p.x_scale = AXIS_LOG2_BYTES;
	p.nseries = 4;
	o = render(&p);
	t_check(o.rc == -1 && o.len == 0, "nothing to draw: non-positive on log",
		"rc %d, %zu bytes written", o.rc, o.len);
	free(o.buf);

	p.nseries = 0;
	o = render(&p);
	t_check(o.rc == -1 && o.len == 0, "nothing to draw: no series",
		"rc %d, %zu bytes written", o.rc, o.len);
	free(o.buf);
}

static void test_log2_labels(void)
{
	double x[13], y[13];
	for (int i = 0; i < 13; i++) {
		x[i] = ldexp(1, 20 + i);  /* 1 MiB .. 4 GiB */
		y[i] = 10 + i;
	}
	struct plot_series s[] = { { "memset", 13, x, y, 0, NULL, NULL, NULL, 0, NULL } };
	struct plot p = { "sizes", NULL, "size", "GB/s",
			  AXIS_LOG2_BYTES, AXIS_LINEAR, s, 1, NULL, 0, NULL, NULL, 0, 0, 0, NULL, 0 };
	struct out o = render(&p);
	if (check_doc("log2 labels", &o)) {
		t_check(strstr(o.buf, ">1 MiB<") && strstr(o.buf, ">1 GiB<") &&
			strstr(o.buf, ">4 GiB<"), "log2 labels: 1 MiB, 1 GiB, 4 GiB",
			"missing");
		size_t n = count(o.buf, "iB</text>");
		t_check(n >= 3 && n <= 10, "log2 labels: at most 10",
			"%zu byte labels", n);
	}
	free(o.buf);

	x[0] = (double)(4 * KiB);
	x[1] = (double)(64 * KiB);
	x[2] = (double)(256 * MiB);
	s[0].count = 3;
	o = render(&p);
	if (check_doc("log2 small labels", &o))
		t_check(strstr(o.buf, ">4 KiB<") && strstr(o.buf, ">256 MiB<"),
			"log2 small labels: 4 KiB and 256 MiB", "missing");
	free(o.buf);
}

static void test_log10_labels(void)
{
	double x[] = { 1, 10, 100, 1000, 10000, 100000, 1000000 };
	double y[] = { 0.05, 0.5, 5, 50, 500, 5000, 50000 };
	struct plot_series s[] = { { "n", 7, x, y, 0, NULL, NULL, NULL, 0, NULL } };
	struct plot p = { "decades", NULL, "n", "t",
			  AXIS_LOG10, AXIS_LOG10, s, 1, NULL, 0, NULL, NULL, 0, 0, 0, NULL, 0 };
	struct out o = render(&p);
	if (check_doc("log10", &o))
		t_check(strstr(o.buf, ">1</text>") && strstr(o.buf, ">1000</text>") &&
			strstr(o.buf, ">1000000</text>") && strstr(o.buf, ">0.1</text>"),
			"log10: labels at powers of 10", "missing");
	free(o.buf);

	/* Less than a decade: still more than one label. */
	double nx[] = { 20, 40, 80 };
	s[0] = (struct plot_series){ "narrow", 3, nx, nx, 0, NULL, NULL, NULL, 0, NULL };
	o = render(&p);
	if (check_doc("log10 narrow", &o))
		t_check(strstr(o.buf, ">20</text>") && strstr(o.buf, ">50</text>"),
			"log10 narrow: 20 and 50 labelled", "missing");
	free(o.buf);
}

/* Odd shapes: single points, negative values, long names, a legend of
 * twenty entries; nothing may leave the image. */
static void test_layouts(void)
{
	static const char *const names[] = {
		"stosb", "nt_avx512", "glibc", "auto", "sse2", "nt_sse2", "avx",
		"nt_avx", "avx512", "movnti", "clzero", "movdir64b", "portable",
		"rep_movsb", "a much longer variant name than usual, to see",
		"v15", "v16", "v17", "v18", "v19",
	};
	double x[6], y[20][6];
	struct plot_series s[20];
	for (int i = 0; i < 6; i++)
		x[i] = ldexp(1, 16 + 3 * i);
	for (int k = 0; k < 20; k++) {
		for (int i = 0; i < 6; i++)
			y[k][i] = 5 + (double)((t_rand() % 4000)) / 100;
		s[k] = (struct plot_series){ names[k], 6, x, y[k], k % 2, NULL, NULL, NULL, 0, NULL };
	}
	struct plot p = { "twenty", "series", "size", "GB/s",
			  AXIS_LOG2_BYTES, AXIS_LINEAR, s, 20, NULL, 0, NULL, NULL, 0, 0, 0, NULL, 0 };
	struct out o = render(&p);
	if (check_doc("20 series", &o)) {
		int all = 1;
		for (int k = 0; k < 20; k++) {
			char want[80];
			snprintf(want, sizeof want, ">%s</text>", names[k]);
			all &= strstr(o.buf, want) != NULL;
		}
		t_check(all && count(o.buf, "<polyline") == 20,
			"20 series: all in plot and legend", "%zu polylines",
			count(o.buf, "<polyline"));
	}
	free(o.buf);

	double one_x[] = { (double)MiB }, ya[] = { 12.5 }, yb[] = { 30 };
	struct plot_series two[] = {
		{ "stosb", 1, one_x, ya, 0, NULL, NULL, NULL, 0, NULL },
		{ "nt_avx512", 1, one_x, yb, 1, NULL, NULL, NULL, 0, NULL },
	};
	p = (struct plot){ "one point each", NULL, "size", "GB/s",
			   AXIS_LOG2_BYTES, AXIS_LINEAR, two, 2, NULL, 0, NULL, NULL, 0, 0, 0, NULL, 0 };
	o = render(&p);
	if (check_doc("single points", &o))
		t_check(polyline_points(o.buf, 0) == 1 && polyline_points(o.buf, 1) == 1,
			"single points: one point per line", "%d and %d",
			polyline_points(o.buf, 0), polyline_points(o.buf, 1));
	free(o.buf);

	double lx[] = { -50, 0, 50 }, ly[] = { -3.25, 0.01, 7 };
	struct plot_series neg[] = { { NULL, 3, lx, ly, 0, NULL, NULL, NULL, 0, NULL } };
	p = (struct plot){ NULL, NULL, NULL, NULL, AXIS_LINEAR, AXIS_LINEAR, neg, 1, NULL, 0, NULL, NULL, 0, 0, 0, NULL, 0 };
	o = render(&p);
	check_doc("negative, no text", &o);
	free(o.buf);

	double same[] = { 0, 0 };
	neg[0] = (struct plot_series){ "zeros", 2, same, same, 0, NULL, NULL, NULL, 0, NULL };
	o = render(&p);
	check_doc("all zero", &o);
	free(o.buf);
}

/* A program that set LC_NUMERIC must still get '.' decimal points. */
static void test_locale(void)
{
	static const char *const locales[] = {
		"de_DE.UTF-8", "de_DE.utf8", "fr_FR.UTF-8", "fr_FR.utf8",
	};
	double x[] = { 1.5, 2.25, 3.125 }, y[] = { 0.1, 0.35, 0.2 };
	struct plot_series s[] = { { "frac", 3, x, y, 0, NULL, NULL, NULL, 0, NULL } };
	struct plot p = { "t", NULL, "x", "y", AXIS_LINEAR, AXIS_LINEAR, s, 1, NULL, 0, NULL, NULL, 0, 0, 0, NULL, 0 };
	struct out c = render(&p), again = render(&p);
	t_check(c.rc == 0 && again.len == c.len && !memcmp(c.buf, again.buf, c.len),
		"same plot, same bytes", "outputs differ");
	const char *set = NULL;
	for (size_t i = 0; !set && i < sizeof locales / sizeof *locales; i++)
		set = setlocale(LC_NUMERIC, locales[i]);
	if (set) {
		struct out o = render(&p);
		setlocale(LC_NUMERIC, "C");
		t_check(o.len == c.len && !memcmp(o.buf, c.buf, c.len),
			"locale: output unchanged under a comma locale",
			"differs under %s", set);
		free(o.buf);
	} else {
		t_skip("locale: output unchanged under a comma locale",
		       "no de_DE or fr_FR locale installed");
	}
	free(c.buf);
	free(again.buf);
}

/* The checkers themselves: each bad document must be caught. */
static void test_checkers(void)
{
	static const char *const bad_xml[] = {
		"<svg><g></svg>",                  /* unclosed */
		"<svg><g><text></g></text></svg>", /* misnested */
		"<svg><rect x=1/></svg>",          /* unquoted */
		"<svg><text>a & b</text></svg>",   /* raw & */
		"<svg><text>a > b</text></svg>",   /* raw > */
		"<svg><g a=\"<\"/></svg>",         /* raw < in attribute */
		"<svg/><svg/>",                    /* two roots */
		"<html></html>",                   /* not svg */
		"<svg></svg>x",                    /* text after the root */
	};
	int caught = 0;
	for (size_t i = 0; i < sizeof bad_xml / sizeof *bad_xml; i++)
		caught += xml_error(bad_xml[i]) != NULL;
	t_check(caught == (int)(sizeof bad_xml / sizeof *bad_xml) &&
		!xml_error("<?xml version=\"1.0\"?>\n<svg a='&amp;&#60;'><g/>"
			   "<text>&lt;&#x3c;</text></svg>\n"),
		"checker: XML errors caught", "%d of %zu caught", caught,
		sizeof bad_xml / sizeof *bad_xml);
	t_check(outside("<svg viewBox=\"0 0 10 10\"><polyline points=\"1,1 11,5\"/></svg>") &&
		outside("<svg viewBox=\"0 0 10 10\"><circle cx=\"5\" cy=\"-1\"/></svg>") &&
		outside("<svg viewBox=\"0 0 10 10\"><rect x=\"5\" y=\"0\" width=\"6\"/></svg>") &&
		!outside("<svg viewBox=\"0 0 10 10\"><polyline points=\"1,1 10,5\"/></svg>"),
		"checker: coordinates outside caught", "missed one");
}

/* The stroke and dash of the polyline at p, as "colour dash" ("colour -"
 * when solid), into buf. */
static const char *polyline_style(const char *p, char *buf, size_t len)
{
	char c[16] = "", d[24] = "-";
	const char *end = strchr(p, '>');
	const char *st = strstr(p, " stroke=\""), *da = strstr(p, "stroke-dasharray=\"");
	if (st && st < end)
		sscanf(st, " stroke=\"%15[^\"]", c);
	if (da && da < end)
		sscanf(da, "stroke-dasharray=\"%23[^\"]", d);
	snprintf(buf, len, "%s %s", c, d);
	return buf;
}

/* The forty colours and shapes of n series; a few of them ask for a
 * colour of their own, two of them the same one (in either case), and
 * one a colour the palette has: the first to ask keeps it, the others
 * get one no line has.  Every line's (colour, dash) its own, up to 40. */
static void test_distinct_colours(void)
{
	enum { MAXN = 40 };
	double x[3] = {1, 2, 3}, y[MAXN][3];
	char names[MAXN][16];
	struct plot_series s[MAXN];
	for (int k = 0; k < MAXN; k++) {
		for (int i = 0; i < 3; i++)
			y[k][i] = k + i;
		snprintf(names[k], sizeof names[k], "f%d", k);
		s[k] = (struct plot_series){.name = names[k], .count = 3, .x = x,
					    .y = y[k], .dashed = k % 3 == 0};
	}
	s[2].colour = "#1f77b4";    /* the palette's first */
	s[5].colour = "#123456";
	s[9].colour = "#123456";    /* taken by f5 */
	s[11].colour = "#1F77B4";   /* taken by f2 */
	for (size_t n = 18; n <= MAXN; n += n < 20 ? 2 : 20) {
		struct plot p = {.title = "colours", .x_scale = AXIS_LINEAR,
				 .y_scale = AXIS_LINEAR, .series = s, .nseries = n};
		struct out o = render(&p);
		char name[80], styles[MAXN][48], why[200] = "";
		int distinct = o.rc == 0;
		const char *at = o.buf;
		for (size_t k = 0; distinct && k < n; k++) {
			at = strstr(at + 1, "<polyline");
			distinct = at != NULL;
			if (!distinct)
				break;
			polyline_style(at, styles[k], sizeof styles[k]);
			distinct = styles[k][0] == '#';
			for (size_t j = 0; distinct && j < k; j++)
				if (!strncasecmp(styles[j], styles[k], 7)) {
					distinct = 0;
					snprintf(why, sizeof why, "f%zu and f%zu: %.47s", j, k,
						 styles[k]);
				}
		}
		snprintf(name, sizeof name, "%zu series: every line its own colour "
			 "(and so its own colour and dash)", n);
		t_check(distinct, name, "rc %d %s", o.rc, why);
		snprintf(name, sizeof name, "%zu series: a fixed colour kept by the "
			 "first series to ask for it", n);
		t_check(!strncmp(styles[2], "#1f77b4", 7) && !strncmp(styles[5], "#123456", 7),
			name, "f2 %s, f5 %s", styles[2], styles[5]);
		free(o.buf);
	}
}

/* A key of notes under the plot: a row each, name and text, the image
 * as wide as the longest and taller by the rows; the plot area above
 * it. */
static void test_notes(void)
{
	double x[2] = {1, 2}, y[2] = {3, 4};
	struct plot_series s = {.name = "safe", .count = 2, .x = x, .y = y};
	static const char long_text[] = "a note much longer than the image is wide "
		"at first, so that the image has to grow to hold it whole, as a "
		"long description of a function would";
	struct plot_note notes[2] = {{"safe", "the call that survives a bad page"},
				     {"safe_unblocked", long_text}};
	struct plot p = {.title = "key", .x_scale = AXIS_LINEAR, .y_scale = AXIS_LINEAR,
			 .series = &s, .nseries = 1, .caption = "the caption"};
	struct out plain = render(&p);
	p.notes = notes;
	p.nnotes = 2;
	struct out keyed = render(&p);
	if (check_doc("notes", &keyed) && plain.rc == 0) {
		double w0 = attr(strstr(plain.buf, "<svg"), "width"),
		       h0 = attr(strstr(plain.buf, "<svg"), "height"),
		       w = attr(strstr(keyed.buf, "<svg"), "width"),
		       h = attr(strstr(keyed.buf, "<svg"), "height");
		const char *cap = strstr(keyed.buf, ">the caption<");
		const char *a = strstr(keyed.buf, ">safe_unblocked<");
		const char *b = a ? strstr(a, long_text) : NULL;
		t_check(cap && a && b && cap < a &&
			strstr(keyed.buf, ">the call that survives a bad page<") &&
			w > w0 && w >= (double)strlen(long_text) * 7 && h > h0 + 2 * 14,
			"notes: a row each under the caption, the image wider and "
			"taller for them", "w %g (%g), h %g (%g)", w, w0, h, h0);
	}
	free(plain.buf);
	free(keyed.buf);
}

/* Bars from lo to hi at each point, taken into the y range; a band as a
 * polygon along its tops and back along its bottoms, with a legend row;
 * the caption. */
static void test_bars_and_bands(void)
{
	double x[4] = {1, 2, 3, 4}, y[4] = {2, 3, 4, 5}, lo[4] = {1, 2.5, 3.5, 4.5},
	       hi[4] = {3, 3.5, 4.5, 50};
	double bl[4] = {0.5, 0.5, 0.5, 0.5}, bh[4] = {1.5, 2, 2.5, 3};
	struct plot_series s[] = {{.name = "with bars", .count = 4, .x = x, .y = y,
				   .lo = lo, .hi = hi},
				  {.name = "without", .count = 4, .x = x, .y = y}};
	struct plot_band b = {"the control", 4, x, bl, bh};
	struct plot p = {.title = "bars", .x_scale = AXIS_LINEAR,
			 .y_scale = AXIS_LINEAR, .series = s, .nseries = 2,
			 .bands = &b, .nbands = 1,
			 .caption = "bars: min to max of 5 runs"};
	struct out o = render(&p);
	if (check_doc("bars and bands", &o)) {
		const char *g = strstr(o.buf, "stroke-opacity=\"0.7\"");
		const char *end = g ? strstr(g, "</g>") : NULL;
		size_t lines = 0;
		for (const char *l = g; l && end && (l = strstr(l, "<line")) && l < end; l++)
			lines++;
		t_check(count(o.buf, "stroke-opacity=\"0.7\"") == 1 && lines == 3 * 4,
			"bars: a bar with two caps at each point of the series with bars",
			"%zu groups, %zu lines", count(o.buf, "stroke-opacity=\"0.7\""), lines);
		t_check(strstr(o.buf, ">50</text>") != NULL,
			"bars: the y axis reaches the top of the highest bar", "no 50 tick");
		const char *poly = strstr(o.buf, "<polygon");
		size_t pts = 0;
		for (const char *q = poly ? strstr(poly, "points=\"") : NULL; q && *q != '/'; q++)
			pts += *q == ',';
		t_check(poly && count(o.buf, "<polygon") == 1 && pts == 8 &&
			strstr(o.buf, ">the control</text>"),
			"bands: one area of 2 x 4 corners, named in the legend",
			"%zu polygons, %zu corners", count(o.buf, "<polygon"), pts);
		t_check(strstr(o.buf, ">bars: min to max of 5 runs</text>") != NULL,
			"caption: drawn", "missing");
	}
	free(o.buf);
}

/* Panels: one image as wide as the widest, as tall as all of them; a
 * panel with nothing to draw is left out, and with none at all there is
 * no image. */
static void test_panels(void)
{
	double x[2] = {1, 2}, y[2] = {3, 4}, bad[2] = {NAN, NAN};
	struct plot_series a = {.name = "a", .count = 2, .x = x, .y = y},
			   b = {.name = "a much longer legend entry than the first "
				"panel has", .count = 2, .x = x, .y = y},
			   none = {.name = "none", .count = 2, .x = bad, .y = bad};
	struct plot p[3] = {
		{.title = "one", .x_scale = AXIS_LINEAR, .y_scale = AXIS_LINEAR,
		 .series = &a, .nseries = 1},
		{.title = "empty", .x_scale = AXIS_LINEAR, .y_scale = AXIS_LINEAR,
		 .series = &none, .nseries = 1},
		{.title = "two", .x_scale = AXIS_LINEAR, .y_scale = AXIS_LINEAR,
		 .series = &b, .nseries = 1},
	};
	struct out one = render(&p[0]), two = render(&p[2]), all = {NULL, 0, -2};
	FILE *f = open_memstream(&all.buf, &all.len);
	if (f) {
		all.rc = svg_plots(f, p, 3);
		fclose(f);
	}
	if (check_doc("panels", &all)) {
		double w1 = attr(strstr(one.buf, "<svg"), "width"),
		       h1 = attr(strstr(one.buf, "<svg"), "height"),
		       w2 = attr(strstr(two.buf, "<svg"), "width"),
		       h2 = attr(strstr(two.buf, "<svg"), "height"),
		       w = attr(strstr(all.buf, "<svg"), "width"),
		       h = attr(strstr(all.buf, "<svg"), "height");
		t_check(count(all.buf, "<svg") == 1 && count(all.buf, "fill=\"none\" stroke=\"#333333\"") == 2 &&
			strstr(all.buf, ">one</text>") && strstr(all.buf, ">two</text>") &&
			!strstr(all.buf, ">empty</text>") && w == fmax(w1, w2) && h == h1 + h2 &&
			strstr(all.buf, "<g transform=\"translate(0,"),
			"panels: two of three stacked, one image, the widest width",
			"w %g (%g, %g), h %g (%g + %g)", w, w1, w2, h, h1, h2);
	}
	free(one.buf);
	free(two.buf);
	free(all.buf);
	all = (struct out){NULL, 0, -2};
	f = open_memstream(&all.buf, &all.len);
	if (f) {
		all.rc = svg_plots(f, &p[1], 1);
		fclose(f);
	}
	t_check(all.rc == -1 && all.len == 0, "panels: nothing to draw in any, no image",
		"rc %d, %zu bytes", all.rc, all.len);
	free(all.buf);
}

/* Whether the tag starting at tag holds text. */
static int in_tag(const char *tag, const char *text)
{
	const char *at = strstr(tag, text);
	return at && at < strchr(tag, '>');
}

/* The x value of the frame (the rect with fill none) of each panel, and
 * its width, in the panel's own coordinates. */
static int frames(const char *doc, double *x, double *w, int max)
{
	int n = 0;
	for (const char *r = strstr(doc, "<rect"); r && n < max; r = strstr(r + 1, "<rect")) {
		const char *fill = strstr(r, " fill=\"none\"");
		if (fill && fill < strchr(r, '>')) {
			x[n] = attr(r, "x");
			w[n++] = attr(r, "width");
		}
	}
	return n;
}

/* What a bench plot promises: ticks at the sizes measured; a line dashed
 * where the function streams and solid where it does not, changing
 * halfway between; a colour the caller fixes; strong series wider and
 * drawn over the others; stacked panels' plot areas aligned. */
static void test_bench_promises(void)
{
	double x[4] = {2.0 * MiB, 16.0 * MiB, 128.0 * MiB, 1024.0 * MiB};
	double y[4] = {10, 20, 30, 20}, z[4] = {30, 20, 10, 15};
	int half[4] = {0, 0, 1, 1}, odd[4] = {1, 0, 1, 0};
	struct plot_series s[2] = {
		{.name = "auto", .count = 4, .x = x, .y = y, .dashed_at = half,
		 .colour = "#123456", .strong = 1},
		{.name = "stosb", .count = 4, .x = x, .y = z},
	};
	struct plot p = {.title = "t", .x_scale = AXIS_LOG2_BYTES,
			 .y_scale = AXIS_LINEAR, .series = s, .nseries = 2,
			 .x_marks = x, .nx_marks = 4};
	struct out o = render(&p);
	if (check_doc("bench promises", &o)) {
		t_check(strstr(o.buf, ">2 MiB<") && strstr(o.buf, ">16 MiB<") &&
			strstr(o.buf, ">128 MiB<") && strstr(o.buf, ">1 GiB<") &&
			!strstr(o.buf, ">4 MiB<") && !strstr(o.buf, ">256 MiB<") &&
			!strstr(o.buf, ">64 MiB<"),
			"x marks: the sizes measured are the ticks, and only they",
			"%s", o.buf);
		const char *a = strstr(o.buf, "<title>auto</title>");
		const char *b = strstr(o.buf, "<title>stosb</title>");
		t_check(a && b && b < a, "strong: drawn over the others, though "
			"listed first", "auto at %td, stosb at %td", a ? a - o.buf : -1,
			b ? b - o.buf : -1);
		/* auto: solid over 2 and 16 MiB to halfway, dashed on. */
		const char *solid = a ? strstr(a, "<polyline") : NULL;
		const char *dashed = solid ? strstr(solid + 1, "<polyline") : NULL;
		const char *end = dashed ? strstr(dashed + 1, "<polyline") : NULL;
		t_check(solid && dashed && !end &&
			polyline_points(solid, 0) == 3 && polyline_points(dashed, 0) == 3 &&
			!in_tag(solid, "stroke-dasharray") &&
			in_tag(dashed, "stroke-dasharray") &&
			in_tag(solid, "stroke=\"#123456\" stroke-width=\"3.4\"") &&
			strstr(a, "fill=\"#123456\""),
			"dashed_at: solid to halfway between the last cached and the "
			"first streaming size, dashed from there; its own colour, wide",
			"%s", a ? a : o.buf);
	}
	free(o.buf);
	s[0].dashed_at = odd;
	o = render(&p);
	const char *a = o.buf ? strstr(o.buf, "<title>auto</title>") : NULL;
	size_t lines = 0;
	for (const char *l = a ? strstr(a, "<polyline") : NULL; l && l < strstr(a, "</g>");
	     l = strstr(l + 1, "<polyline"))
		lines++;
	t_check(lines == 4, "dashed_at: a style change at every edge, four "
		"stretches", "%zu polylines", lines);
	free(o.buf);

	/* Dense marks: every one ticked, labels only where they fit. */
	double many[30], yy[30];
	for (int i = 0; i < 30; i++) {
		many[i] = 64.0 * (double)(1ull << i);
		yy[i] = i;
	}
	struct plot_series d = {.name = "d", .count = 30, .x = many, .y = yy};
	struct plot dense = {.title = "dense", .x_scale = AXIS_LOG2_BYTES,
			     .y_scale = AXIS_LINEAR, .series = &d, .nseries = 1,
			     .x_marks = many, .nx_marks = 30};
	o = render(&dense);
	size_t labels = count(o.buf ? o.buf : "", " text-anchor=\"middle\">");
	t_check(o.rc == 0 && strstr(o.buf, ">64 B<") && labels >= 4 && labels < 30,
		"x marks: 30 sizes, labels thinned to fit", "%zu labels", labels);
	free(o.buf);

	/* Two panels, legends of different widths: one x axis's pixels. */
	struct plot two[2] = {p, p};
	struct plot_series wide = {.name = "a legend entry much longer than the "
				   "other panel's", .count = 4, .x = x, .y = y};
	two[1].series = &wide;
	two[1].nseries = 1;
	two[1].compact = 1;
	struct out all = {NULL, 0, -2};
	FILE *f = open_memstream(&all.buf, &all.len);
	if (f) {
		all.rc = svg_plots(f, two, 2);
		fclose(f);
	}
	double fx_[2] = {0}, fw[2] = {0};
	int n = all.rc == 0 ? frames(all.buf, fx_, fw, 2) : 0;
	t_check(n == 2 && fx_[0] == fx_[1] && fw[0] == fw[1],
		"panels: their plot areas share left and right edges",
		"%d frames: x %g and %g, widths %g and %g", n, fx_[0], fx_[1],
		fw[0], fw[1]);
	free(all.buf);
}

int main(void)
{
	test_bench_promises();
	test_checkers();
	test_distinct_colours();
	test_notes();
	test_bars_and_bands();
	test_panels();
	test_basic();
	test_escaping();
	test_dropped_points();
	test_nothing_to_draw();
	test_log2_labels();
	test_log10_labels();
	test_layouts();
	test_locale();
	return t_finish();
}
