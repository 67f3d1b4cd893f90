/* functions.h - what the benchmarks time: every registry variant of an
 * operation, libc's own function ("glibc") and the automatic path
 * ("auto"), behind one call. */
#ifndef NTM_FUNCTIONS_H
#define NTM_FUNCTIONS_H

#include <stddef.h>

#include "ntmem.h"

enum fn_kind { FN_VARIANT, FN_LIBC, FN_AUTO };

struct fn {
	const char *name;
	const char *description;
	enum ntmem_op op;
	enum fn_kind kind;
	int variant_id;           /* FN_VARIANT; FN_LIBC: the libc variant */
	int streaming;            /* FN_VARIANT: always streams */
	int zero_only;
	int supported;
	const char *why_unsupported;
};

#define FN_MAX 40

/* Every function of op, supported or not: registry order, then glibc,
 * then auto.  Returns the count. */
size_t fn_list(enum ntmem_op op, struct fn *out, size_t max);

/* The function of op called name, or NULL. */
const struct fn *fn_find(const struct fn *list, size_t n, const char *name);

/* Run f once: set n bytes of dst to value, or copy n bytes of src to dst.
 * Streaming calls are fenced before this returns.  A variant that refuses
 * the call (a zero-only one given another value) ends the program with
 * exit 1: timing a call that did nothing would be a lie. */
void fn_run(const struct fn *f, void *dst, const void *src, size_t n,
	    int value);

/* 1 if a call over n bytes (writing value, for memset) streams, 0 if
 * not, -1 if unknown (libc without a readable threshold). */
int fn_streams(const struct fn *f, size_t n, int value);

/* libc's streaming threshold for op as glibc's loader reports it
 * (SIZE_MAX: never streams), or 0 when unknown. */
size_t libc_stream_threshold(enum ntmem_op op);

#endif
