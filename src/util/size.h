/* size.h - byte counts with units, as users write them ("128MiB", "4KB"). */
#ifndef NTM_SIZE_H
#define NTM_SIZE_H

/* The binary units, once for the library, the tools and the tests. */
#define KiB ((size_t)1 << 10)
#define MiB ((size_t)1 << 20)
#define GiB ((size_t)1 << 30)

#include <stddef.h>

/*
 * Parse s as a number of bytes with an optional unit: B, K/KB/KiB,
 * M/MB/MiB, G/GB/GiB, T/TB/TiB, case-insensitive, all powers of 1024 (as
 * perf bench reads them).  A bare number is bytes.  With a unit above B
 * the number may have a decimal fraction ("1.5GB"), rounded to the
 * nearest byte (a half up; digits past the 18th are ignored); a fraction
 * of a byte ("1.5", "1.5B") is refused.  Returns
 * 0 and sets *out, or returns -1 and points *why at a static message
 * ("unknown unit ...", "too large", ...).
 */
int ntm_parse_size(const char *s, size_t *out, const char **why);

/* Write n as "64 MiB", "1.5 GiB" or "512 B" into buf; returns buf. */
char *ntm_format_size(size_t n, char *buf, size_t len);

#endif
