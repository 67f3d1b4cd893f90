/*
 * verify.c - the interposed functions, as a program sees them.
 *
 *   verify symbols SHIM   every name resolves to SHIM's definition: the
 *                         dynamic linker's first definition, and the one
 *                         this program's own references are bound to
 *   verify results [memmove-only]
 *                         every function against the reference, at sizes
 *                         from 0 to past 8 MiB, odd alignments, overlapping
 *                         buffers; guard bytes around each destination.
 *                         memmove-only: overlapping buffers for the memmove
 *                         forms only, for AddressSanitizer, whose memcpy
 *                         refuses them before the shim sees them
 */
#include "helper.h"
#include "preload/glibc_chk.h"

#include <string.h>
#include <strings.h>
#include <sys/mman.h>


/* Each function called the way a program calls it, through its PLT. */
enum returns { RETURNS_DST, RETURNS_END, RETURNS_NOTHING };
struct fn {
	const char *name;
	int copies;
	enum returns ret;
	void *(*call)(void *dst, const void *src, int c, size_t n);
	void *address;  /* as this program's references see it */
};

static void *call_memset(void *d, const void *s, int c, size_t n)
{ (void)s; return memset(d, c, n); }
static void *call_bzero(void *d, const void *s, int c, size_t n)
{ (void)s; (void)c; bzero(d, n); return NULL; }
static void *call___bzero(void *d, const void *s, int c, size_t n)
{ (void)s; (void)c; __bzero(d, n); return NULL; }
static void *call_explicit_bzero(void *d, const void *s, int c, size_t n)
{ (void)s; (void)c; explicit_bzero(d, n); return NULL; }
static void *call___memset_chk(void *d, const void *s, int c, size_t n)
{ (void)s; return __memset_chk(d, c, n, n); }
static void *call___explicit_bzero_chk(void *d, const void *s, int c, size_t n)
{ (void)s; (void)c; __explicit_bzero_chk(d, n, n + 1); return NULL; }
static void *call_memcpy(void *d, const void *s, int c, size_t n)
{ (void)c; return memcpy(d, s, n); }
static void *call_memmove(void *d, const void *s, int c, size_t n)
{ (void)c; return memmove(d, s, n); }
static void *call_mempcpy(void *d, const void *s, int c, size_t n)
{ (void)c; return mempcpy(d, s, n); }
static void *call___mempcpy(void *d, const void *s, int c, size_t n)
{ (void)c; return __mempcpy(d, s, n); }
static void *call___memcpy_chk(void *d, const void *s, int c, size_t n)
{ (void)c; return __memcpy_chk(d, s, n, n); }
static void *call___memmove_chk(void *d, const void *s, int c, size_t n)
{ (void)c; return __memmove_chk(d, s, n, n + 64); }
static void *call___mempcpy_chk(void *d, const void *s, int c, size_t n)
{ (void)c; return __mempcpy_chk(d, s, n, SIZE_MAX); }

#define FN(f, copies, ret) {#f, copies, ret, call_##f, (void *)f}
static const struct fn fns[] = {
	FN(memset, 0, RETURNS_DST),
	FN(bzero, 0, RETURNS_NOTHING),
	FN(__bzero, 0, RETURNS_NOTHING),
	FN(explicit_bzero, 0, RETURNS_NOTHING),
	FN(__memset_chk, 0, RETURNS_DST),
	FN(__explicit_bzero_chk, 0, RETURNS_NOTHING),
	FN(memcpy, 1, RETURNS_DST),
	FN(memmove, 1, RETURNS_DST),
	FN(mempcpy, 1, RETURNS_END),
	FN(__mempcpy, 1, RETURNS_END),
	FN(__memcpy_chk, 1, RETURNS_DST),
	FN(__memmove_chk, 1, RETURNS_DST),
	FN(__mempcpy_chk, 1, RETURNS_END),
};
#define NFNS (sizeof fns / sizeof fns[0])

static int symbols(const char *shim)
{
	void *h = dlopen(shim, RTLD_NOLOAD | RTLD_LAZY);
	for (size_t i = 0; i < NFNS; i++) {
		void *first = dlsym(RTLD_DEFAULT, fns[i].name);
		void *own = h ? dlsym(h, fns[i].name) : NULL;
		char name[64];
		snprintf(name, sizeof name, "symbol %s", fns[i].name);
		printf("INFO %s is defined by %s\n", fns[i].name,
		       helper_definer(fns[i].name));
		if (!own)
			helper_fail(name, "the shim %s is not loaded or lacks it", shim);
		else if (first != own)
			helper_fail(name, "the first definition is %p, the shim's %p",
				    first, own);
		else if (fns[i].address != own)
			helper_fail(name, "this program's reference leads to %p, the "
				    "shim's definition is %p", fns[i].address, own);
		else
			helper_pass(name);
	}
	if (h)
		dlclose(h);
	return helper_exit();
}

#define GUARD 64
#define MAX_N ((8u << 20) + 67)

static unsigned char *dst_area, *src_area, *want;

/* One call of f, checked against the reference: the bytes, the return
 * value and the guard bytes on either side.  Returns 0 or -1. */
static int check_one(const struct fn *f, size_t n, size_t dalign,
		     size_t salign, int c, char *why, size_t len)
{
	unsigned char *d = dst_area + GUARD + dalign;
	const unsigned char *s = src_area + salign;
	size_t span = n + 2 * GUARD;
	ref_pattern(d - GUARD, span, (unsigned)(n + dalign));
	ref_move(want, d - GUARD, span);
	if (f->copies)
		ref_move(want + GUARD, s, n);
	else
		ref_set(want + GUARD, f->call == call_memset ||
				      f->call == call___memset_chk ? c : 0, n);
	void *r = f->call(d, s, c, n);
	void *expect = f->ret == RETURNS_DST ? (void *)d
		       : f->ret == RETURNS_END ? (void *)(d + n) : NULL;
	long at = ref_differ(d - GUARD, want, span);
	if (f->ret != RETURNS_NOTHING && r != expect)
		snprintf(why, len, "n=%zu: returned dst%+ld, want dst%+ld", n,
			 (long)((unsigned char *)r - d),
			 (long)((unsigned char *)expect - d));
	else if (at >= 0)
		snprintf(why, len, "n=%zu dst+%zu src+%zu c=%d: byte %ld (%s) is "
			 "0x%02x, want 0x%02x", n, dalign, salign, c, at - GUARD,
			 at < GUARD || at >= (long)(GUARD + n) ? "a guard byte"
							       : "inside",
			 d[at - GUARD], want[at]);
	else
		return 0;
	return -1;
}

static const size_t sizes[] = {
	0, 1, 2, 3, 4, 5, 7, 8, 9, 12, 15, 16, 17, 24, 31, 32, 33, 48, 63,
	64, 65, 100, 127, 128, 129, 255, 256, 257, 511, 512, 513, 1000, 1023, 1024, 1025,
	2049, 4095, 4096, 4097, 8191, 65536 + 3, (1u << 20) + 5, MAX_N,
};

static void results_of(const struct fn *f)
{
	static const size_t aligns[][2] = {{0, 0}, {1, 3}, {13, 13}, {63, 2}};
	char why[256], name[64];
	int cases = 0;
	snprintf(name, sizeof name, "results %s", f->name);
	for (size_t i = 0; i < sizeof sizes / sizeof sizes[0]; i++)
		for (size_t a = 0; a < 4; a++) {
			if (sizes[i] > (1u << 20) && a > 1)
				continue;  /* two alignments are enough there */
			int c = a == 2 ? 0 : 0xa5 - (int)a;
			if (check_one(f, sizes[i], aligns[a][0], aligns[a][1], c, why,
				      sizeof why)) {
				helper_fail(name, "%s", why);
				return;
			}
			cases++;
		}
	printf("INFO %s: %d cases\n", name, cases);
	helper_pass(name);
}

/* Copies whose buffers overlap give memmove's result, forwards and
 * backwards, inside the small path and beyond it. */
static void overlap_of(const struct fn *f)
{
	static const size_t ns[] = {2, 3, 5, 12, 20, 40, 300, 600, 5000,
				    (1u << 20) + 3};
	static const long shifts[] = {1, -1, 7, -7, 64, -64, 4097, -4097};
	char name[64];
	snprintf(name, sizeof name, "overlap %s", f->name);
	for (size_t i = 0; i < sizeof ns / sizeof ns[0]; i++)
		for (size_t k = 0; k < sizeof shifts / sizeof shifts[0]; k++) {
			size_t n = ns[i];
			unsigned char *base = dst_area + GUARD + 8192;
			unsigned char *d = base + shifts[k], *s = base;
			ref_pattern(base - 8192, n + 16384, (unsigned)(n + k));
			ref_move(want, base - 8192, n + 16384);
			ref_move(want + 8192 + shifts[k], want + 8192, n);
			f->call(d, s, 0, n);
			long at = ref_differ(base - 8192, want, n + 16384);
			if (at >= 0) {
				helper_fail(name, "n=%zu shift %+ld: byte %ld differs", n,
					    shifts[k], at - 8192);
				return;
			}
		}
	helper_pass(name);
}

static int results(int every_overlap)
{
	size_t area = MAX_N + 2 * GUARD + 64 + 16384;
	dst_area = mmap(NULL, area, PROT_READ | PROT_WRITE,
			MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	src_area = mmap(NULL, area, PROT_READ | PROT_WRITE,
			MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	want = mmap(NULL, area, PROT_READ | PROT_WRITE,
		    MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (dst_area == MAP_FAILED || src_area == MAP_FAILED || want == MAP_FAILED) {
		helper_fail("results", "out of memory");
		return 1;
	}
	ref_pattern(src_area, area, 77);
	for (size_t i = 0; i < NFNS; i++) {
		results_of(&fns[i]);
		if (fns[i].copies && (every_overlap || strstr(fns[i].name, "memmove")))
			overlap_of(&fns[i]);
	}
	return helper_exit();
}

int main(int argc, char **argv)
{
	if (argc == 3 && !strcmp(argv[1], "symbols"))
		return symbols(argv[2]);
	if (argc == 2 && !strcmp(argv[1], "results"))
		return results(1);
	if (argc == 3 && !strcmp(argv[1], "results") &&
	    !strcmp(argv[2], "memmove-only"))
		return results(0);
	fprintf(stderr, "usage: verify symbols SHIM | verify results "
		"[memmove-only]\n");
	return 2;
}
