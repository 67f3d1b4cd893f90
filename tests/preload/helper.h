/* helper.h - what the helper programs of test_preload share: a line
 * protocol and reference implementations.
 *
 * The helpers are plain programs that know nothing of ntmem, like the
 * programs the shim serves; test_preload runs them with and without it.
 * Each prints "PASS name", "FAIL name: why" or "INFO ..." lines and
 * exits 1 if anything failed.  The references are byte loops through
 * volatile pointers, so no compiler turns them into calls of the very
 * functions they check. */
#ifndef NTM_PRELOAD_HELPER_H
#define NTM_PRELOAD_HELPER_H

#define _GNU_SOURCE
#include <dlfcn.h>
#include <limits.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

static int helper_failures __attribute__((unused));

__attribute__((format(printf, 2, 3))) static inline void
helper_fail(const char *name, const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	printf("FAIL %s: ", name);
	vprintf(fmt, ap);
	printf("\n");
	va_end(ap);
	fflush(stdout);
	helper_failures++;
}

static inline void helper_pass(const char *name)
{
	printf("PASS %s\n", name);
	fflush(stdout);
}

static inline int helper_exit(void)
{
	return helper_failures ? 1 : 0;
}

static inline void ref_set(void *dst, int c, size_t n)
{
	volatile unsigned char *d = dst;
	for (size_t i = 0; i < n; i++)
		d[i] = (unsigned char)c;
}

/* memmove's result: forwards or backwards as the overlap needs. */
static inline void ref_move(void *dst, const void *src, size_t n)
{
	volatile unsigned char *d = dst;
	const volatile unsigned char *s = src;
	if ((uintptr_t)d <= (uintptr_t)s)
		for (size_t i = 0; i < n; i++)
			d[i] = s[i];
	else
		for (size_t i = n; i-- > 0;)
			d[i] = s[i];
}

/* A pattern that differs at every offset of a line and between lines. */
static inline void ref_pattern(void *dst, size_t n, unsigned seed)
{
	volatile unsigned char *d = dst;
	uint32_t x = seed * 2654435761u + 1;
	for (size_t i = 0; i < n; i++) {
		x = x * 1664525u + 1013904223u;
		d[i] = (unsigned char)(x >> 24);
	}
}

/* The first offset where a and b differ, or -1. */
static inline long ref_differ(const void *a, const void *b, size_t n)
{
	const volatile unsigned char *x = a, *y = b;
	for (size_t i = 0; i < n; i++)
		if (x[i] != y[i])
			return (long)i;
	return -1;
}

/* The file name of the object that defines the running process's
 * definition of name, or "(none)". */
static inline const char *helper_definer(const char *name)
{
	Dl_info info;
	void *f = dlsym(RTLD_DEFAULT, name);
	if (!f || !dladdr(f, &info) || !info.dli_fname)
		return "(none)";
	return info.dli_fname;
}

#endif
