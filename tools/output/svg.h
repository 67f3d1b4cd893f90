/* svg.h - line plots as standalone SVG files, for --plot.
 *
 * One polyline with markers per series, a legend, labelled axes with tick
 * labels; x and y can each be linear or logarithmic (base 2 ticks for
 * sizes).  Points with a non-finite or, on a log axis, non-positive
 * coordinate are left out of their line. */
#ifndef NTM_SVG_H
#define NTM_SVG_H

#include <stddef.h>
#include <stdio.h>

struct plot_series {
	const char *name;        /* legend text */
	size_t count;
	const double *x, *y;
	int dashed;              /* e.g. streaming variants dashed */
};

enum axis_scale { AXIS_LINEAR, AXIS_LOG2_BYTES, AXIS_LOG10 };

struct plot {
	const char *title;
	const char *subtitle;    /* smaller line under the title, or NULL */
	const char *x_label, *y_label;
	enum axis_scale x_scale, y_scale;  /* AXIS_LOG2_BYTES labels ticks
					      as 4 KiB, 1 MiB, 1 GiB ... */
	const struct plot_series *series;
	size_t nseries;
};

/* Write the plot to f.  Returns 0, or -1 if there is nothing to draw. */
int svg_plot(FILE *f, const struct plot *p);

#endif
