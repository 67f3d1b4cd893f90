/* fuzz_size.c - the size parser, ntm_parse_size(), against an oracle
 * written from its contract in size.h: digits, optionally a decimal point
 * and digits (up to 18 counted), optional blanks, then an optional unit
 * (B, K/KB/KiB, M/MB/MiB, G/GB/GiB, T/TB/TiB, any case, powers of 1024),
 * a fraction only with a unit above B and rounded to the nearest byte, a
 * half up; any other text, or a value past SIZE_MAX, fails.  And
 * ntm_format_size() with any value and any buffer length. */
#include <ctype.h>
#include <strings.h>

#include "fuzz.h"
#include "util/size.h"

/* The oracle: 1 and *out, or 0 when s is not a size that fits. */
static int fs_expect(const char *s, size_t *out)
{
	static const char *const units[] = {"", "b", "k", "kb", "kib", "m", "mb",
					    "mib", "g", "gb", "gib", "t", "tb", "tib"};
	static const unsigned shift[] = {0, 0, 10, 10, 10, 20, 20, 20, 30, 30, 30,
					 40, 40, 40};
	const char *p = s;
	if (!isdigit((unsigned char)*p))
		return 0;
	unsigned __int128 v = 0, num = 0, den = 1;
	for (; isdigit((unsigned char)*p); p++)
		if ((v = v * 10 + (unsigned)(*p - '0')) > SIZE_MAX)
			return 0;
	int point = *p == '.';
	if (point && !isdigit((unsigned char)*++p))
		return 0;
	for (int d = 0; point && isdigit((unsigned char)*p); p++, d++)
		if (d < 18) {
			num = num * 10 + (unsigned)(*p - '0');
			den *= 10;
		}
	while (*p == ' ')
		p++;
	for (size_t i = 0; i < sizeof units / sizeof units[0]; i++)
		if (!strcasecmp(p, units[i])) {
			if (point && !shift[i])
				return 0;
			/* round(num * 2^shift / den), a half up */
			v = (v << shift[i]) + (2 * (num << shift[i]) + den) / (2 * den);
			if (v > SIZE_MAX)
				return 0;
			*out = (size_t)v;
			return 1;
		}
	return 0;
}

FUZZ_TARGET(size)
{
	char *text = fuzz_string(data, size);
	size_t got = 0, want = 0;
	const char *why = NULL;
	int ok = ntm_parse_size(text, &got, &why) == 0;
	int expect = fs_expect(text, &want);
	if (ok != expect || (ok && got != want))
		FUZZ_FAIL("size '%s': parsed %d (%zu), expected %d (%zu)", text, ok, got,
			  expect, want);
	if (!ok && (!why || !*why))
		FUZZ_FAIL("size '%s': failed without a reason", text);
	char small[12];
	size_t n = 0;
	memcpy(&n, data, size < sizeof n ? size : sizeof n);
	size_t len = size ? data[0] % sizeof small + 1 : 1;
	char *buf = malloc(len);
	if (!buf)
		abort();
	ntm_format_size(n, buf, len);
	if (strnlen(buf, len) == len)
		FUZZ_FAIL("format %zu into %zu bytes: not terminated", n, len);
	free(buf);
	free(text);
	return 0;
}
