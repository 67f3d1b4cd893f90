/* test_size.c - sizes with units: the parser the library's tunables and
 * every tool option share. */
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include "harness.h"
#include "util/size.h"

static void ok(const char *s, size_t want)
{
	size_t got = 0;
	const char *why = NULL;
	char name[96];
	snprintf(name, sizeof name, "size '%s' = %zu", s, want);
	int rc = ntm_parse_size(s, &got, &why);
	t_check(rc == 0 && got == want, name, "rc %d, got %zu (%s)", rc, got,
		why ? why : "");
}

static void bad(const char *s, const char *why_has)
{
	size_t got = 12345;
	const char *why = NULL;
	char name[96];
	snprintf(name, sizeof name, "size '%s' rejected: %s", s ? s : "(null)",
		 why_has);
	int rc = ntm_parse_size(s, &got, &why);
	t_check(rc == -1 && got == 12345 && why && strstr(why, why_has), name,
		"rc %d, got %zu, why '%s'", rc, got, why ? why : "");
}

int main(void)
{
	ok("0", 0);
	ok("1", 1);
	ok("4096", 4096);
	ok("64B", 64);
	ok("4K", 4096);
	ok("4KB", 4096);
	ok("4kib", 4096);
	ok("2MB", 2u << 20);
	ok("2MiB", 2u << 20);
	ok("128mb", 128u << 20);
	ok("1GB", (size_t)1 << 30);
	ok("4096MB", (size_t)4 << 30);
	ok("3GiB", (size_t)3 << 30);
	ok("1TB", (size_t)1 << 40);
	ok("16 MB", 16u << 20);
	ok("18446744073709551615", SIZE_MAX);
	ok("16777215TB", (size_t)16777215 << 40);
	/* Decimals with a unit: exact where the unit divides, else the
	 * nearest byte. */
	ok("1.5GB", (size_t)3 << 29);
	ok("1.5 GiB", (size_t)3 << 29);
	ok("0.5KB", 512);
	ok("2.25MB", (size_t)9 << 18);
	bad("1.0B", "a fraction of a byte");
	ok("0.1KB", 102);           /* 102.4 */
	ok("0.0009765625KB", 1);    /* 1/1024 KiB: one byte exactly */
	ok("0.0007KB", 1);          /* 0.7168 B, to the nearest */
	ok("0.0004KB", 0);          /* 0.4096 B */
	ok("0.00048828125KB", 1);   /* half a byte: a half rounds up */
	ok("1.0000000000000000009GB", (size_t)1 << 30);  /* the 19th digit: not read */
	/* Half a byte exactly (2^-41 TiB), but the digits past the 18th are
	 * not read: 0.000000000000454747 TiB, under half a byte. */
	ok("0.00000000000045474735088646411895751953125TB", 0);
	ok("1.00000000000000000001GB", (size_t)1 << 30);
	ok("16777215.5TB", ((size_t)16777215 << 40) + ((size_t)1 << 39));

	bad("", "not a size");
	bad(NULL, "not a size");
	bad("MB", "not a size");
	bad("-1", "not a size");
	bad("+5", "not a size");
	bad("1.5", "a fraction of a byte");
	bad("1.5B", "a fraction of a byte");
	bad("1.GB", "after the decimal point");
	bad(".5GB", "not a size");
	bad("1.5.5GB", "unknown unit");
	bad("1,5GB", "unknown unit");
	bad("16777215.99999999999999TB", "too large");
	bad("12Q", "unknown unit");
	bad("12MBB", "unknown unit");
	bad("0x10", "unknown unit");
	bad("18446744073709551616", "too large");
	bad("99999999999999999999999", "too large");
	bad("16777216TB", "too large");
	bad("18446744073709551615K", "too large");

	char buf[32];
	t_check(!strcmp(ntm_format_size(0, buf, sizeof buf), "0 B"),
		"format 0", "%s", buf);
	t_check(!strcmp(ntm_format_size(2u << 20, buf, sizeof buf), "2 MiB"),
		"format 2 MiB", "%s", buf);
	t_check(!strcmp(ntm_format_size(3u << 29, buf, sizeof buf), "1.5 GiB"),
		"format 1.5 GiB", "%s", buf);
	t_check(!strcmp(ntm_format_size(1000, buf, sizeof buf), "1000 B"),
		"format 1000 B", "%s", buf);
	return t_finish();
}
