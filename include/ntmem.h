/*
 * ntmem.h - clear and copy large memory without trashing the caches.
 *
 * An ordinary store to a line that is not cached first reads that line
 * (read-for-ownership), so clearing or copying an extent much larger than
 * the last-level cache moves twice the bytes it needs to and evicts
 * everyone else's working set.  Streaming (non-temporal) stores write
 * whole lines around the cache.  They win above the cache size and lose
 * below it; libntmem chooses per call, and lets the caller force either.
 *
 * Thread safety: every function may be called from any thread at any
 * time.  The first call picks the variants and thresholds once; later
 * calls only read that decision.
 *
 * The library never prints, never exits, and never fails because of a bad
 * environment variable or calibration profile: it ignores the setting and
 * records why (see ntmem_policy_ignored()).
 */
#ifndef NTMEM_H
#define NTMEM_H

#include <stddef.h>

#ifdef __cplusplus
extern "C" {
#endif

#define NTMEM_VERSION_MAJOR 0
#define NTMEM_VERSION_MINOR 1
#define NTMEM_VERSION_PATCH 0

/* "0.1.0": the version of the library actually loaded. */
const char *ntmem_version(void);

/* ------------------------------------------------------------------ */
/* Clearing and copying                                                */
/* ------------------------------------------------------------------ */

/*
 * ntmem_set - fill n bytes at dst with the byte (unsigned char)c.
 * ntmem_copy - copy n bytes from src to dst.
 *
 * The result is exactly memset's and memcpy's; when the buffers overlap,
 * ntmem_copy gives memmove's result.  Both return dst.  n == 0 touches
 * nothing, and dst and src may then be NULL.
 *
 * Each call chooses cached or streaming stores from the policy in effect
 * for this process (see "Policy" below): streaming when n is at or above
 * the operation's threshold (for ntmem_set, the one for its value).  A
 * call that streams returns fenced: its streaming stores are ordered
 * before any later store of this thread, so a release store after it
 * publishes the data to other threads.
 */
void *ntmem_set(void *dst, int c, size_t n);
void *ntmem_copy(void *dst, const void *src, size_t n);

/*
 * Flags for ntmem_set_flags() and ntmem_copy_flags().
 *
 * NTMEM_F_TEMPORAL     Use cached stores at every size.
 * NTMEM_F_NONTEMPORAL  Stream every whole, 64-byte aligned line, whatever
 *                      n is.  The partial lines at either end are always
 *                      written with cached stores.
 * NTMEM_F_NOFENCE      Skip the trailing SFENCE.  The caller must then call
 *                      ntmem_fence() before publishing the data; useful
 *                      when clearing many small pieces in a row.
 *
 * TEMPORAL together with NONTEMPORAL, or any unknown bit, makes the call
 * fail with errno EINVAL, return NULL and write nothing.
 *
 * Overlapping copies are always done with cached stores (memmove's
 * algorithm): the streaming loops run forwards only.
 */
#define NTMEM_F_TEMPORAL    0x1u
#define NTMEM_F_NONTEMPORAL 0x2u
#define NTMEM_F_NOFENCE     0x4u

void *ntmem_set_flags(void *dst, int c, size_t n, unsigned flags);
void *ntmem_copy_flags(void *dst, const void *src, size_t n, unsigned flags);

/*
 * ntmem_fence - order every earlier streaming store of this thread before
 * its later stores (SFENCE on x86).  Needed only after NTMEM_F_NOFENCE or
 * after calling a streaming variant with NTMEM_F_NOFENCE.
 */
void ntmem_fence(void);

/* ------------------------------------------------------------------ */
/* Variants                                                            */
/* ------------------------------------------------------------------ */

/*
 * Every implementation the library has, whether or not this CPU can run
 * it, is a variant with a stable id (0 .. ntmem_variant_count() - 1) and a
 * short name that is unique within its operation ("stosb", "nt_avx512").
 * Tests, benchmarks and users who know better call them directly.
 */
enum ntmem_op {
	NTMEM_OP_SET,  /* memset */
	NTMEM_OP_COPY  /* memcpy; the buffers must not overlap */
};

struct ntmem_variant_info {
	const char *name;        /* e.g. "nt_avx512" */
	const char *description; /* one line, e.g. "AVX-512 VMOVNTDQ ..." */
	enum ntmem_op op;
	int streaming;           /* 1: whole lines go around the cache */
	int zero_only;           /* 1: can only write zeros (CLZERO) */
	const char *requires;    /* CPU features it needs, e.g. "AVX-512F" */
	int supported;           /* 1: this CPU and OS can run it */
	const char *why_unsupported; /* NULL when supported */
};

int ntmem_variant_count(void);

/* Fill *info for variant id.  Returns 0, or -1 with errno EINVAL. */
int ntmem_variant_info(int id, struct ntmem_variant_info *info);

/* The id of the variant of op called name, or -1 with errno ENOENT. */
int ntmem_variant_find(enum ntmem_op op, const char *name);

/*
 * Run one variant.  Same results, return value and flags as
 * ntmem_set_flags()/ntmem_copy_flags(), except that only NTMEM_F_NOFENCE
 * is accepted.  Fails, writing nothing and returning NULL, with errno:
 *   EINVAL   bad id, wrong operation, other flags, overlapping buffers,
 *            or c != 0 for a zero-only variant;
 *   ENOTSUP  this CPU or OS cannot run the variant.
 */
void *ntmem_variant_set(int id, void *dst, int c, size_t n, unsigned flags);
void *ntmem_variant_copy(int id, void *dst, const void *src, size_t n,
			 unsigned flags);

/* ------------------------------------------------------------------ */
/* Policy                                                              */
/* ------------------------------------------------------------------ */

/*
 * Per operation, the policy holds a cached variant, a streaming variant
 * and a threshold: calls with n >= threshold stream.  memset has a second
 * threshold for values other than zero: writing zeros can be far faster
 * than writing data, so the two can cross over at different sizes.  Each
 * value comes from the first of these that is present and valid:
 *
 *   1. NTMEM_TUNABLES, comma-separated key=value pairs:
 *        set_threshold=SIZE      copy_threshold=SIZE
 *        set_nonzero_threshold=SIZE
 *        set_cached=NAME         copy_cached=NAME
 *        set_streaming=NAME      copy_streaming=NAME
 *        set=NAME                copy=NAME
 *      SIZE is a byte count with an optional unit (B, K/KB/KiB, M/MB/MiB,
 *      G/GB/GiB, T/TB/TiB: all powers of 1024), or "max" for never.
 *      set_threshold sets the non-zero threshold too, unless
 *      set_nonzero_threshold is given.  set=NAME forces one variant for
 *      every ntmem_set call: a streaming NAME also sets the thresholds
 *      to 0, a cached one to "max" (again unless set_nonzero_threshold
 *      is given).  A zero-only NAME (clzero) serves zeros only; other
 *      values then stream with the best other streaming variant.
 *   2. a calibration profile written by "ntmem calibrate", read from
 *      NTMEM_PROFILE if set ("" or "none" disables it), else from
 *      $XDG_CACHE_HOME/ntmem/profile, else ~/.cache/ntmem/profile.  A
 *      profile made on another CPU, corrupt, truncated or of a newer
 *      format is ignored.
 *   3. the built-in default: the fastest variant by static ranking, and a
 *      threshold from the cache topology (the per-thread share of the
 *      last-level cache, within fixed floors and caps).
 */
enum ntmem_origin {
	NTMEM_ORIGIN_DEFAULT,     /* built-in ranking or topology */
	NTMEM_ORIGIN_PROFILE,     /* calibration profile (profile_path) */
	NTMEM_ORIGIN_ENVIRONMENT  /* NTMEM_TUNABLES */
};

struct ntmem_policy_info {
	int cached;                 /* variant id */
	enum ntmem_origin cached_origin;
	int streaming;              /* variant id */
	enum ntmem_origin streaming_origin;
	int streaming_any_value;    /* used for ntmem_set with c != 0 when
				       streaming is zero-only; else the same */
	size_t threshold;           /* stream from here up; SIZE_MAX: never */
	enum ntmem_origin threshold_origin;
	size_t threshold_nonzero;   /* the same for ntmem_set with c != 0;
				       equal to threshold for copy */
	enum ntmem_origin threshold_nonzero_origin;
	const char *profile_path;   /* the profile read, or NULL */
};

/* Fill *info for op.  Returns 0, or -1 with errno EINVAL. */
int ntmem_policy_info(enum ntmem_op op, struct ntmem_policy_info *info);

/* "default", "profile" or "environment". */
const char *ntmem_origin_name(enum ntmem_origin origin);

/*
 * The i-th setting that was ignored, with the reason, e.g.
 * "NTMEM_TUNABLES: set_threshold=12Q: unknown unit (use B, KB, ...)".  NULL past the
 * end.  The strings live as long as the process.
 */
const char *ntmem_policy_ignored(int i);

#ifdef __cplusplus
}
#endif

#endif /* NTMEM_H */
