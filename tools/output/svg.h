/* svg.h - line plots as standalone SVG files, for --plot.
 *
 * A line with markers per series, each in a colour no other line of its
 * plot has (up to 40 series: a colour the caller fixes, or the palette's)
 * and a marker shape of five, optional error bars and reference bands, a
 * legend, labelled axes with tick labels, a key of notes under the plot;
 * x and y can each be linear or logarithmic (base 2 ticks for sizes), and
 * x can be ticked at the values measured instead; several plots can be
 * stacked as panels.  Points with a non-finite or, on a log axis,
 * non-positive coordinate are left out of their line. */
#ifndef NTM_SVG_H
#define NTM_SVG_H

#include <stddef.h>
#include <stdio.h>

struct plot_series {
	const char *name;        /* legend text */
	size_t count;
	const double *x, *y;
	int dashed;              /* e.g. streaming variants dashed */
	const double *lo, *hi;   /* an error bar from lo[i] to hi[i] at each
				    point, or NULL for none; the plot's
				    caption says what they span */
	const char *colour;      /* "#rrggbb", so that a name keeps its
				    colour from plot to plot, unless an
				    earlier series of the plot has it;
				    NULL (or taken): the palette's next
				    colour no series of the plot has.
				    Past 40 series colours repeat, with
				    hollow markers and another dash */
	int strong;              /* drawn wider, over the others */
	const int *dashed_at;    /* per point, or NULL (then dashed): the
				    line is dashed between two dashed points
				    and changes halfway between a dashed
				    and a solid one */
};

/* A reference band, e.g. a control's range: a grey area from lo[i] to
 * hi[i] at each x[i], drawn under the lines, with its own legend row. */
struct plot_band {
	const char *name;
	size_t count;
	const double *x, *lo, *hi;
};

enum axis_scale { AXIS_LINEAR, AXIS_LOG2_BYTES, AXIS_LOG10 };

/* A row of the key under a plot: a name, and what it is. */
struct plot_note {
	const char *name, *text;
};

struct plot {
	const char *title;
	const char *subtitle;    /* smaller line under the title, or NULL */
	const char *x_label, *y_label;
	enum axis_scale x_scale, y_scale;  /* AXIS_LOG2_BYTES labels ticks
					      as 4 KiB, 1 MiB, 1 GiB ... */
	const struct plot_series *series;
	size_t nseries;
	const struct plot_band *bands;
	size_t nbands;
	const char *caption;     /* a line under the plot, or NULL: what the
				    bars and bands mean */
	const double *x_marks;   /* tick (and label, where they fit) x at
				    these values only, e.g. the sizes
				    measured; NULL: ticks at round values */
	size_t nx_marks;
	int y_from_data;         /* a linear y axis spans the data only,
				    instead of starting at 0 */
	int compact;             /* a shorter panel, as a ratio under the
				    main plot */
	const struct plot_note *notes;  /* the key under the caption, a row
					   each, or NULL */
	size_t nnotes;
};

/* Write the plot to f.  Returns 0, or -1 if there is nothing to draw (or
 * no memory for the series' looks; nothing written then). */
int svg_plot(FILE *f, const struct plot *p);

/* n plots as panels, one under another, in one image of their common
 * width, their plot areas' left and right edges aligned; a panel with
 * nothing to draw is left out.  Returns 0, or -1 if no panel has
 * anything to draw. */
int svg_plots(FILE *f, const struct plot *p, size_t n);

#endif
