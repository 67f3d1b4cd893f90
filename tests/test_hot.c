/* test_hot.c - the hot region: bytes equal memset's and memcpy's with the
 * region at the start, in the middle, at the end and covering everything,
 * alone and with NTMEM_F_PARALLEL; the region is written last, by the
 * calling thread, with the cached variant, after the rest has been
 * written with streaming stores; a region outside the extent is EINVAL
 * and writes nothing.
 *
 * The policy is fixed for the test: the C library (a cached variant)
 * below 64 MiB, streaming above.  Calls of ntm_libc.memset/memcpy are
 * watched: the hot region must be the one cached call, made last. */
#define _GNU_SOURCE
#include <errno.h>
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include "harness.h"
#include "variants/libc.h"
#include "ntmem.h"
#include "util/size.h"

#define CANARY 64

static struct guarded buf, ref, src;

/* What the watched call must see. */
static struct {
	pthread_t caller;
	unsigned char *extent, *hot;
	const unsigned char *from;   /* a copy's source; NULL for a set */
	size_t n, hot_len;
	int c;
	int calls, wrong;            /* cached calls; ones that broke a rule */
} watch;

static void *(*real_memset)(void *, int, size_t);
static void *(*real_memcpy)(void *, const void *, size_t);

/* The rest of the extent, outside the hot region, already written? */
static int rest_written(void)
{
	size_t lo = (size_t)(watch.hot - watch.extent), hi = lo + watch.hot_len;
	for (size_t i = 0; i < watch.n; i++) {
		if (i == lo)
			i = hi;
		if (i >= watch.n)
			break;
		int want = watch.from ? watch.from[i] : (unsigned char)watch.c;
		if (watch.extent[i] != want)
			return 0;
	}
	return 1;
}

/* Atomic counts: with a cached rest (TEMPORAL), workers call too. */
static void check_cached_call(void *d, size_t n)
{
	__atomic_add_fetch(&watch.calls, 1, __ATOMIC_RELAXED);
	if (d != watch.hot || n != watch.hot_len ||
	    !pthread_equal(pthread_self(), watch.caller) || !rest_written())
		__atomic_add_fetch(&watch.wrong, 1, __ATOMIC_RELAXED);
}

static void *watched_memset(void *d, int c, size_t n)
{
	check_cached_call(d, n);
	return real_memset(d, c, n);
}

static void *watched_memcpy(void *d, const void *s, size_t n)
{
	check_cached_call(d, n);
	return real_memcpy(d, s, n);
}

/* One hinted call against libc's result.  Returns 1 if the bytes, the
 * return value and (when watched) the order of writing are right. */
static int hinted(int copy, size_t n, size_t off, const struct ntmem_opts *o,
		  int watched, char *why, size_t len)
{
	size_t span = n + 2 * CANARY + 64;
	t_fill_pattern(buf.data, span, (unsigned)(n + o->hot_off));
	memcpy(ref.data, buf.data, span);
	t_fill_pattern(src.data, n + off, 77);
	unsigned char *d = buf.data + CANARY + off, *r = ref.data + CANARY + off;
	watch.caller = pthread_self();
	watch.extent = d;
	watch.hot = d + o->hot_off;
	watch.from = copy ? src.data + off : NULL;
	watch.n = n;
	watch.hot_len = o->hot_len;
	watch.c = 0x6b;
	watch.calls = watch.wrong = 0;
	void *ret = copy ? ntmem_copy_opts(d, src.data + off, n, o)
			 : ntmem_set_opts(d, 0x6b, n, o);
	if (copy)
		memcpy(r, src.data + off, n);
	else
		memset(r, 0x6b, n);
	const char *bad = ret != d ? "wrong return"
			  : memcmp(buf.data, ref.data, span) ? "bytes differ from libc's"
			  : watched && watch.calls != 1 ? "not one cached call"
			  : watched && watch.wrong ? "hot region not written last, by the caller"
			  : NULL;
	if (bad)
		snprintf(why, len, "%s n=%zu hot %zu+%zu flags %#x: %s (%d calls)",
			 copy ? "copy" : "set", n, o->hot_off, o->hot_len, o->flags,
			 bad, watch.calls);
	return !bad;
}

static void test_positions(void)
{
	size_t n = MiB + 37, l = 64 * KiB + 3;
	const size_t where[][2] = {{0, l}, {(n - l) / 2, l}, {n - l, l}, {0, n}};
	static const char *const names[] = {"at the start", "in the middle",
					    "at the end", "covering everything"};
	static const unsigned flags[] = {0, NTMEM_F_NONTEMPORAL, NTMEM_F_PARALLEL};
	for (int w = 0; w < 4; w++) {
		int ok = 1;
		char why[200] = "", name[96];
		for (int copy = 0; ok && copy < 2; copy++)
			for (int f = 0; ok && f < 3; f++) {
				struct ntmem_opts o = {.flags = flags[f], .threads = 2,
						       .min_chunk = 16 * KiB,
						       .hot_off = where[w][0],
						       .hot_len = where[w][1]};
				ok = hinted(copy, n, 5, &o, 1, why, sizeof why);
			}
		snprintf(name, sizeof name, "hot: region %s: bytes, written last by the caller",
			 names[w]);
		t_check(ok, name, "%s", why);
	}
}

/* Cached rest (TEMPORAL), tiny extents, an empty region: bytes only. */
static void test_other_shapes(void)
{
	int ok = 1;
	char why[200] = "";
	struct ntmem_opts o = {.flags = NTMEM_F_TEMPORAL | NTMEM_F_PARALLEL,
			       .threads = 3, .min_chunk = 4 * KiB,
			       .hot_off = 1000, .hot_len = 200 * KiB};
	for (int copy = 0; copy < 2; copy++)
		ok = ok && hinted(copy, 700 * KiB, 3, &o, 0, why, sizeof why);
	for (size_t n = 1; ok && n < 200; n += 7)
		for (size_t off = 0; ok && off <= n; off += 5) {
			struct ntmem_opts t = {.hot_off = off, .hot_len = (n - off) / 2};
			ok = hinted(0, n, 1, &t, 0, why, sizeof why) &&
			     hinted(1, n, 1, &t, 0, why, sizeof why);
		}
	struct ntmem_opts empty = {.hot_off = 4096, .hot_len = 0};
	ok = ok && hinted(0, 4096, 0, &empty, 0, why, sizeof why);
	t_check(ok, "hot: cached rest, tiny extents, an empty region at the end",
		"%s", why);
}

static void test_bounds(void)
{
	const size_t n = 4096;
	const size_t bad[][2] = {{n + 1, 0}, {4000, 97}, {10, SIZE_MAX},
				 {SIZE_MAX, 1}, {n, 1}};
	int ok = 1;
	for (int i = 0; i < 5; i++) {
		memset(buf.data, 0x33, n);
		struct ntmem_opts o = {.hot_off = bad[i][0], .hot_len = bad[i][1]};
		errno = 0;
		ok &= ntmem_set_opts(buf.data, 1, n, &o) == NULL && errno == EINVAL;
		errno = 0;
		ok &= ntmem_copy_opts(buf.data, src.data, n, &o) == NULL && errno == EINVAL;
		for (size_t k = 0; k < n; k++)
			ok &= buf.data[k] == 0x33;
	}
	t_check(ok, "hot: a region outside the extent: NULL, EINVAL, nothing written",
		"accepted or wrote");
}

int main(int argc, char **argv)
{
	(void)argc;
	if (t_reexec_streaming_above(argv, "64MiB")) {
		t_skip("hot", "no streaming variant runs here");
		return t_finish();
	}
	if (t_guarded_alloc(&buf, 2 * MiB) || t_guarded_alloc(&ref, 2 * MiB) ||
	    t_guarded_alloc(&src, 2 * MiB)) {
		t_fail("hot: buffers", "cannot map 6 MiB");
		return t_finish();
	}
	real_memset = ntm_libc.memset;
	real_memcpy = ntm_libc.memcpy;
	ntm_libc.memset = watched_memset;
	ntm_libc.memcpy = watched_memcpy;
	test_positions();
	test_other_shapes();
	test_bounds();
	ntm_libc.memset = real_memset;
	ntm_libc.memcpy = real_memcpy;
	return t_finish();
}
