/* size.c - parse and print byte counts with binary units. */
#include "size.h"

#include <ctype.h>
#include <stdint.h>
#include <stdio.h>
#include <strings.h>

static const struct {
	const char *name;
	unsigned shift;
} units[] = {
	{"", 0},    {"b", 0},    {"k", 10},   {"kb", 10},  {"kib", 10},
	{"m", 20},  {"mb", 20},  {"mib", 20}, {"g", 30},   {"gb", 30},
	{"gib", 30}, {"t", 40},  {"tb", 40},  {"tib", 40},
};

/* The digits after a decimal point at *p as num / den, den a power of
 * ten; *p moves past them.  Digits beyond the 18th cannot move a size by
 * a byte (2^40 x 10^-18 is a millionth) and are read but not counted.  By
 * hand, not strtod(): the library parses tunables in programs whose
 * locale may spell the point as a comma. */
#define FRACTION_DIGITS 18

struct fraction {
	uint64_t num, den;
};

static struct fraction read_fraction(const char **p)
{
	struct fraction f = {0, 1};
	for (int digits = 0; isdigit((unsigned char)**p); (*p)++)
		if (digits++ < FRACTION_DIGITS) {
			f.num = f.num * 10 + (uint64_t)(**p - '0');
			f.den *= 10;
		}
	return f;
}

/* num / den of 2^shift bytes, to the nearest byte (a half up), exactly:
 * long division one bit at a time, the remainder below den < 2^60. */
static uint64_t fraction_bytes(struct fraction f, unsigned shift)
{
	uint64_t q = 0, r = f.num;
	for (unsigned i = 0; i < shift; i++) {
		r *= 2;
		q = q * 2 + (r >= f.den);
		if (r >= f.den)
			r -= f.den;
	}
	return q + (2 * r >= f.den);
}

int ntm_parse_size(const char *s, size_t *out, const char **why)
{
	const char *p = s;
	if (!s || !isdigit((unsigned char)*p)) {
		*why = "not a size: expected digits, then an optional unit";
		return -1;
	}
	uintmax_t v = 0;
	for (; isdigit((unsigned char)*p); p++) {
		unsigned digit = (unsigned)(*p - '0');
		if (v > (SIZE_MAX - digit) / 10) {
			*why = "too large";
			return -1;
		}
		v = v * 10 + digit;
	}
	struct fraction frac = {0, 1};
	int has_point = *p == '.';
	if (has_point) {
		p++;
		if (!isdigit((unsigned char)*p)) {
			*why = "not a size: expected digits after the decimal point";
			return -1;
		}
		frac = read_fraction(&p);
	}
	while (*p == ' ')
		p++;
	for (size_t i = 0; i < sizeof units / sizeof units[0]; i++) {
		unsigned shift = units[i].shift;
		if (strcasecmp(p, units[i].name))
			continue;
		if (has_point && shift == 0) {
			*why = "a fraction of a byte: sizes are whole bytes (a "
			       "fraction needs a unit above B, as in 1.5KB)";
			return -1;
		}
		uintmax_t part = fraction_bytes(frac, shift);
		if (v > (SIZE_MAX >> shift) || (v << shift) > SIZE_MAX - part) {
			*why = "too large";
			return -1;
		}
		*out = (size_t)((v << shift) + part);
		return 0;
	}
	*why = "unknown unit (use B, KB, MB, GB, TB or KiB, MiB, GiB, TiB)";
	return -1;
}

char *ntm_format_size(size_t n, char *buf, size_t len)
{
	static const char *const names[] = {"B", "KiB", "MiB", "GiB", "TiB"};
	unsigned u = 0;
	size_t whole = n;
	while (whole >= 1024 && u < 4) {
		whole /= 1024;
		u++;
	}
	size_t unit = (size_t)1 << (10 * u);
	if (n % unit == 0)
		snprintf(buf, len, "%zu %s", n / unit, names[u]);
	else
		snprintf(buf, len, "%.1f %s", (double)n / (double)unit, names[u]);
	return buf;
}
