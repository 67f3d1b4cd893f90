/* functions.h - what the benchmarks time: every registry variant of an
 * operation, libc's own function ("glibc"), the automatic path ("auto")
 * and its fault-tolerant twin ("safe"), behind one call. */
#ifndef NTM_FUNCTIONS_H
#define NTM_FUNCTIONS_H

#include <stddef.h>

#include "benchfn.h"
#include "ntmem.h"
#include "peers.h"

enum fn_kind { FN_VARIANT, FN_LIBC, FN_AUTO, FN_SAFE, FN_PEER };

struct fn {
	const char *name;
	const char *description;
	enum ntmem_op op;
	enum fn_kind kind;
	int variant_id;           /* FN_VARIANT; FN_LIBC: the libc variant */
	int streaming;            /* FN_VARIANT: always streams */
	int zero_only;
	enum ntmem_role role;     /* FN_VARIANT: what kind of method */
	int rank;                 /* FN_VARIANT: preference within the role */
	int supported;
	const char *why_unsupported;
	unsigned safe_flags;      /* FN_SAFE: the flags of its calls */
	const struct peer *peer;  /* FN_PEER: the shim's or another library's */
};

#define FN_MAX 40

/* Every function of op, supported or not: registry order, then glibc,
 * auto, safe and safe_unblocked.  Returns the count. */
size_t fn_list(enum ntmem_op op, struct fn *out, size_t max);

/* The peers (peers.h) as functions of op, supported or not, appended to
 * out[n..max): "shim", "pmem", ...  Opens them the first time.  Returns
 * the new count.  Only bench lists them; the other commands measure
 * ntmem's own methods. */
size_t fn_list_peers(enum ntmem_op op, struct fn *out, size_t n, size_t max);

/* The function of op called name, or NULL. */
const struct fn *fn_find(const struct fn *list, size_t n, const char *name);

/* The first function of this kind in list (the one FN_LIBC, FN_AUTO), or
 * NULL. */
const struct fn *fn_of_kind(const struct fn *list, size_t n, enum fn_kind kind);

/* The best-ranked supported variant of role in list, or NULL; zero-only
 * ones only if zero_ok.  Tools choose by role and rank, never by name. */
const struct fn *fn_best(const struct fn *list, size_t n, enum ntmem_role role,
			 int zero_ok);

/* Run f once: set n bytes of dst to value, or copy n bytes of src to dst.
 * Streaming calls are fenced before this returns.  Returns 0, or -1 with
 * errno when the variant refused (a zero-only one given another value):
 * the caller must not time a call that did nothing. */
int fn_run(const struct fn *f, void *dst, const void *src, size_t n,
	   int value);

/* A function bound to its buffers: what the runner (benchfn.h) calls. */
struct fn_target {
	const struct fn *f;
	unsigned char *dst;
	const unsigned char *src;  /* memcpy's source; NULL for memset */
	size_t chunk;              /* call in pieces of chunk; 0: whole */
	int value;                 /* what memset writes */
	unsigned threads;          /* 0 or 1: the calling thread alone */
};

/*
 * Run f over n bytes on threads threads: auto as the library's parallel
 * call (ntmem_set_opts with NTMEM_F_PARALLEL), every other function as a
 * plain split, the extent cut into threads parts on 64-byte lines, each
 * part run by its own thread pinned to its own allowed CPU (the caller
 * takes the first part).  Threads are started per call.  Returns 0, or
 * -1 with errno.
 */
int fn_run_threads(const struct fn *f, void *dst, const void *src, size_t n,
		   int value, unsigned threads);

/* The callable for t, which must outlive it: one call clears or copies
 * size bytes of t's buffers, in pieces of t->chunk. */
struct benchfn fn_callable(struct fn_target *t);

/* 1 if a call over n bytes (writing value, for memset) streams, 0 if
 * not, -1 if unknown (libc without a readable threshold). */
int fn_streams(const struct fn *f, size_t n, int value);

/* For FN_AUTO: what a call over n bytes (writing value) dispatches to
 * now, a variant name or "small path"; NULL for other kinds. */
const char *fn_dispatch(const struct fn *f, size_t n, int value);

/* libc's streaming threshold for op as glibc's loader reports it
 * (SIZE_MAX: never streams), or 0 when unknown. */
size_t libc_stream_threshold(enum ntmem_op op);

#endif
