/* sizedist.c - size distributions: the CSV form, and the one sequence of
 * calls drawn from a distribution (see sizedist.h). */
#include "sizedist.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

void sizedist_free(struct sizedist *d)
{
	free(d->ranges);
	d->ranges = NULL;
	d->nranges = 0;
}

/* ------------------------------------------------------------------ */
/* CSV                                                                 */
/* ------------------------------------------------------------------ */

/* Field [f, end) with its blanks trimmed, as a probability into *p.
 * Returns NULL, or why it is not one. */
static const char *csv_value(const char *f, const char *end, double *p,
			     const char **text, int *text_len)
{
	while (f < end && (*f == ' ' || *f == '\t'))
		f++;
	while (end > f && (end[-1] == ' ' || end[-1] == '\t' || end[-1] == '\r'))
		end--;
	*text = f;
	*text_len = (int)(end - f);
	if (f == end)
		return "empty";
	char buf[64];
	if ((size_t)(end - f) >= sizeof buf)
		return "not a number";
	/* Decimal digits, a point, an exponent: strtod alone would also take
	 * "nan", "inf" and hexadecimal. */
	if (strspn(f, "0123456789.eE+-") < (size_t)(end - f))
		return "not a number";
	memcpy(buf, f, (size_t)(end - f));
	buf[end - f] = '\0';
	char *stop;
	*p = strtod(buf, &stop);
	if (*stop || stop == buf)
		return "not a number";
	if (!isfinite(*p))
		return "too large";
	if (*p < 0 || buf[0] == '-')
		return *p == 0 ? NULL : "negative";
	return NULL;
}

/* What follows the one line must be white space. */
static int csv_one_line(const char *name, const char *eol, const char *end,
			struct cli_error *e)
{
	unsigned line = 1;
	for (const char *q = eol; q < end; q++) {
		if (*q == '\n')
			line++;
		else if (*q != ' ' && *q != '\t' && *q != '\r')
			return cli_error(e, CLI_USAGE, "--mix: %s:%u: a distribution "
					 "is one line of probabilities; this is "
					 "line %u", name, line, line);
	}
	return 0;
}

int sizedist_parse_csv(const char *name, const char *text, size_t len,
		       enum ntmem_op op, struct sizedist *d, struct cli_error *e)
{
	memset(d, 0, sizeof *d);
	snprintf(d->name, sizeof d->name, "%s", name);
	snprintf(d->source, sizeof d->source, "CSV file");
	d->op = op;
	const char *end = text + len, *eol = memchr(text, '\n', len);
	if (!eol)
		eol = end;
	if (csv_one_line(name, eol, end, e))
		return -1;
	size_t fields = 1;
	for (const char *q = text; q < eol; q++)
		fields += *q == ',';
	d->ranges = malloc(fields * sizeof *d->ranges);
	if (!d->ranges)
		return cli_error(e, CLI_USAGE, "--mix: %s: out of memory", name);
	const char *f = text;
	for (size_t i = 0; i < fields; i++) {
		const char *comma = memchr(f, ',', (size_t)(eol - f));
		const char *fe = comma ? comma : eol, *shown;
		int shown_len;
		double p;
		const char *why = csv_value(f, fe, &p, &shown, &shown_len);
		if (why && fields == 1 && !shown_len) {
			sizedist_free(d);
			return cli_error(e, CLI_USAGE, "--mix: %s:1: no probabilities "
					 "(an empty line); expected one line of them, "
					 "comma-separated", name);
		}
		if (why) {
			sizedist_free(d);
			return cli_error(e, CLI_USAGE, "--mix: %s:1: field %zu (size "
					 "%zu): '%.*s': %s; expected a probability, a "
					 "decimal number 0 or more", name, i + 1, i,
					 shown_len, shown, why);
		}
		if (p > 0) {
			d->ranges[d->nranges++] = (struct size_range){i, i, p};
			d->total += p;
			d->max_size = i;
		}
		f = fe + 1;
	}
	if (!d->nranges) {
		sizedist_free(d);
		return cli_error(e, CLI_USAGE, "--mix: %s:1: every probability is 0: "
				 "no size to draw", name);
	}
	if (d->max_size > SIZEDIST_MAX_SIZE) {
		sizedist_free(d);
		return cli_error(e, CLI_USAGE, "--mix: %s:1: sizes above 1 GiB are "
				 "not supported", name);
	}
	return 0;
}

/* ------------------------------------------------------------------ */
/* The sequence                                                        */
/* ------------------------------------------------------------------ */

/* splitmix64: small, and the same numbers on every machine. */
static uint64_t next_random(uint64_t *state)
{
	uint64_t z = (*state += 0x9e3779b97f4a7c15ull);
	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
	z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
	return z ^ (z >> 31);
}

/* Uniform in [0, n), n at most 2^32 (53 random bits). */
static size_t below(uint64_t *state, size_t n)
{
	double u = (double)(next_random(state) >> 11) * 0x1p-53;
	size_t k = (size_t)(u * (double)n);
	return k < n ? k : n - 1;
}

/* The sizes in cumulative order: size i at the (i + 1/2)-th quantile. */
static void quantile_sizes(const struct sizedist *d, struct mix_seq *s)
{
	size_t r = 0;
	double before = 0;  /* the weight of the ranges below range r */
	for (size_t i = 0; i < MIX_CALLS; i++) {
		double x = ((double)i + 0.5) / MIX_CALLS * d->total;
		while (r + 1 < d->nranges && x >= before + d->ranges[r].weight) {
			before += d->ranges[r].weight;
			r++;
		}
		const struct size_range *g = &d->ranges[r];
		double frac = (x - before) / g->weight;
		frac = frac < 0 ? 0 : frac;
		size_t span = g->hi - g->lo + 1;
		size_t k = (size_t)(frac * (double)span);
		s->calls[i].size = (uint32_t)(g->lo + (k < span ? k : span - 1));
	}
}

void sizedist_draw(const struct sizedist *d, struct mix_seq *s)
{
	size_t twice = (d->max_size * 2 + 4095) & ~(size_t)4095;
	s->buffer = twice > MIX_MIN_BUFFER ? twice : MIX_MIN_BUFFER;
	quantile_sizes(d, s);
	uint64_t state = MIX_SEED;
	for (size_t i = MIX_CALLS - 1; i > 0; i--) {  /* Fisher-Yates */
		size_t j = below(&state, i + 1);
		uint32_t t = s->calls[i].size;
		s->calls[i].size = s->calls[j].size;
		s->calls[j].size = t;
	}
	s->bytes = 0;
	for (size_t i = 0; i < MIX_CALLS; i++) {
		s->calls[i].offset =
			(uint32_t)below(&state, s->buffer - s->calls[i].size + 1);
		s->bytes += s->calls[i].size;
	}
}
