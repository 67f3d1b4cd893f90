/* test_small.c - the entry points' own code: the small path and the
 * vector loop they run inline, against memset, memcpy and memmove, for
 * every n from 0 to 2 KiB at every dst (and src) offset 0-63, pressed
 * against guard pages at both ends, with canaries around, and at every
 * distance of dst above src modulo 4 KiB up to 1100 bytes. */
#include <stdio.h>
#include <string.h>

#include "harness.h"
#include "ntmem.h"

#define MAX_N 2048
#define CANARY 64
#define SPAN (MAX_N + 2 * CANARY + 64)

static struct guarded dst, src;
/* A destination whose start lies up to PAGE_SHIFT_MAX + 64 bytes into its
 * page, for test_page_offsets. */
#define PAGE_SHIFT_MAX 1100
static struct guarded far;
/* ref also holds check_move's window: n + shift (< 80) + 2 * CANARY. */
static unsigned char ref[SPAN + 80], pattern[SPAN + 80 + 256];

/* Known bytes, different for each seed (libc's memcpy: fast, and not the
 * code under test). */
static void fill(unsigned char *p, size_t n, unsigned seed)
{
	memcpy(p, pattern + seed % 256, n);
}

/* The window [lo, hi) around the call equals the reference. */
static int same_around(const unsigned char *lo, const unsigned char *hi,
		       const unsigned char *r)
{
	return memcmp(lo, r, (size_t)(hi - lo)) == 0;
}

/* Where a call of n bytes at offset off goes: placement 0 starts right
 * after the lower guard page (plus off), placement 1 ends right before
 * the upper one (less off). */
static unsigned char *place(const struct guarded *g, int at_end, size_t n,
			    size_t off)
{
	return at_end ? g->data + g->cap - n - off : g->data + off;
}

static int check_set(size_t n, size_t off, int at_end, unsigned flags)
{
	unsigned char *d = place(&dst, at_end, n, off);
	unsigned char *lo = d - CANARY < dst.data ? dst.data : d - CANARY;
	unsigned char *hi = d + n + CANARY > dst.data + dst.cap
				    ? dst.data + dst.cap : d + n + CANARY;
	int c = (int)(n * 7 + off) & 0xff;
	fill(lo, (size_t)(hi - lo), (unsigned)n);
	memcpy(ref, lo, (size_t)(hi - lo));
	memset(ref + (d - lo), c, n);
	void *ret = flags ? ntmem_set_flags(d, c, n, flags) : ntmem_set(d, c, n);
	return ret == d && same_around(lo, hi, ref);
}

/* ntmem_copy(d, s, n), d in g, gives memcpy's bytes and leaves those
 * around them. */
static int copy_matches(const struct guarded *g, unsigned char *d,
			const unsigned char *s, size_t n)
{
	unsigned char *lo = d - CANARY < g->data ? g->data : d - CANARY;
	unsigned char *hi = d + n + CANARY > g->data + g->cap
				    ? g->data + g->cap : d + n + CANARY;
	fill(lo, (size_t)(hi - lo), (unsigned)n + 3);
	memcpy(ref, lo, (size_t)(hi - lo));
	memcpy(ref + (d - lo), s, n);
	return ntmem_copy(d, s, n) == d && same_around(lo, hi, ref);
}

static int check_copy(size_t n, size_t doff, size_t soff, int at_end)
{
	return copy_matches(&dst, place(&dst, at_end, n, doff),
			    place(&src, !at_end, n, soff), n);
}

/* Overlapping copies within one buffer give memmove's result. */
static int check_move(size_t n, size_t shift, int forward)
{
	unsigned char *base = dst.data + CANARY;
	unsigned char *d = forward ? base + shift : base, *s = forward ? base : base + shift;
	fill(dst.data, n + shift + 2 * CANARY, (unsigned)(n + shift));
	memcpy(ref, dst.data, n + shift + 2 * CANARY);
	memmove(ref + (d - dst.data), ref + (s - dst.data), n);
	return ntmem_copy(d, s, n) == d &&
	       memcmp(dst.data, ref, n + shift + 2 * CANARY) == 0;
}

static void test_sets(void)
{
	static const unsigned flag_sets[] = {0, NTMEM_F_TEMPORAL, NTMEM_F_NOFENCE};
	size_t step = t_quick() ? 7 : 1;
	for (size_t f = 0; f < sizeof flag_sets / sizeof flag_sets[0]; f++) {
		char name[96], why[96] = "";
		int ok = 1;
		for (size_t n = 0; ok && n <= MAX_N; n += (n < 1100 ? 1 : step * 5))
			for (size_t off = 0; ok && off < 64; off += step)
				for (int end = 0; ok && end < 2; end++)
					if (!check_set(n, off, end, flag_sets[f])) {
						ok = 0;
						snprintf(why, sizeof why, "n=%zu off=%zu at %s",
							 n, off, end ? "end" : "start");
					}
		snprintf(name, sizeof name, "set, flags %#x: n 0-%d, every offset, "
			 "against both guard pages", flag_sets[f], MAX_N);
		t_check(ok, name, "%s", why);
	}
}

static void test_copies(void)
{
	size_t step = t_quick() ? 9 : 1;
	char why[96] = "";
	int ok = 1;
	for (size_t n = 0; ok && n <= 1024; n += (t_quick() ? 3 : 1))
		for (size_t doff = 0; ok && doff < 64; doff += step)
			for (size_t soff = 0; ok && soff < 64; soff += step)
				if (!check_copy(n, doff, soff, (int)((n + doff + soff) & 1))) {
					ok = 0;
					snprintf(why, sizeof why, "n=%zu dst off %zu src off %zu",
						 n, doff, soff);
				}
	t_check(ok, "copy: n 0-1024, every dst and src offset, guard pages", "%s", why);

	ok = 1;
	for (size_t n = 1025; ok && n <= MAX_N; n += (t_quick() ? 13 : 1))
		for (size_t off = 0; ok && off < 64; off += 3)
			for (int end = 0; ok && end < 2; end++)
				if (!check_copy(n, off, 63 - off, end)) {
					ok = 0;
					snprintf(why, sizeof why, "n=%zu off %zu", n, off);
				}
	t_check(ok, "copy: n 1025-2048 (the inline loop), offsets, guard pages",
		"%s", why);
}

static void test_moves(void)
{
	char why[96] = "";
	int ok = 1;
	for (size_t n = 1; ok && n <= MAX_N; n += (n < 600 ? 1 : 37))
		for (size_t shift = 1; ok && shift < 80 && shift < n + 2; shift += 3)
			for (int fwd = 0; ok && fwd < 2; fwd++)
				if (!check_move(n, shift, fwd)) {
					ok = 0;
					snprintf(why, sizeof why, "n=%zu shift %zu %s", n,
						 shift, fwd ? "forward" : "backward");
				}
	t_check(ok, "copy of overlapping buffers gives memmove's result", "%s", why);
}

/* Copies whose dst lies 0 to PAGE_SHIFT_MAX bytes above src modulo
 * 4 KiB (the buffers' pages are aligned): the inline loop copies those
 * under ALIAS_WINDOW (1 KiB) and under half of n from the end down
 * (ALIASING_BACK), the others up. */
static void test_page_offsets(void)
{
	char why[96] = "";
	int ok = 1;
	for (size_t n = 129; ok && n <= MAX_N; n += (t_quick() ? 61 : 7))
		for (size_t k = 0; ok && k <= PAGE_SHIFT_MAX; k += (t_quick() ? 13 : 3))
			for (size_t soff = 0; ok && soff < 64; soff += 37)
				if (!copy_matches(&far, far.data + soff + k, src.data + soff, n)) {
					ok = 0;
					snprintf(why, sizeof why, "n=%zu dst %zu above src", n, k);
				}
	t_check(ok, "copy: n 129-2048, dst 0-1100 bytes above src modulo 4 KiB",
		"%s", why);
}

int main(void)
{
	if (t_guarded_alloc(&dst, MAX_N + 2 * CANARY + 64) ||
	    t_guarded_alloc(&src, MAX_N + 2 * CANARY + 64) ||
	    t_guarded_alloc(&far, MAX_N + PAGE_SHIFT_MAX + 64 + CANARY)) {
		t_fail("allocate guarded buffers", "mmap failed");
		return t_finish();
	}
	for (size_t i = 0; i < sizeof pattern; i++)
		pattern[i] = (unsigned char)(i * 131 + i / 256);
	for (size_t i = 0; i < src.cap; i++)
		src.data[i] = (unsigned char)(i * 37 + 11);
	test_sets();
	test_copies();
	test_moves();
	test_page_offsets();
	t_guarded_free(&far);
	t_guarded_free(&dst);
	t_guarded_free(&src);
	return t_finish();
}
