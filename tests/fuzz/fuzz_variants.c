/* fuzz_variants.c - every variant (ntmem_variant_set/copy) and the public
 * calls (ntmem_set, ntmem_copy and their _flags forms) against the C
 * library as the oracle.
 *
 * The input picks the call, the size (log-uniform up to FV_MAX bytes),
 * the offsets, the value, the flags and, for copies, an overlap.  The
 * buffers lie between PROT_NONE guard pages, against the lower or the
 * upper one, so a byte read or written outside them faults.  Every call
 * is made twice: by ntmem on one arena, by memset/memcpy/memmove on a
 * twin; the arenas must then be equal, the return value and errno as
 * ntmem.h documents, errno unchanged on success, and a copy's separate
 * source untouched. */
#define _GNU_SOURCE
#include <errno.h>
#include <sys/mman.h>
#include <unistd.h>

#include "fuzz.h"
#include "ntmem.h"

#define FV_MAX ((size_t)4 << 20)    /* the largest call */
#define FV_SLACK 4096               /* room for offsets and overlaps */
#define FV_ARENA (FV_MAX + 2 * FV_SLACK)
#define FV_SENTINEL 31337
#define FV_NEAR ((size_t)64 << 10)  /* compared on every run around the
				       call; the whole arena now and then */

#ifndef NTMEM_F_PARALLEL
#define NTMEM_F_PARALLEL 0
#endif
#define FV_KNOWN (NTMEM_F_TEMPORAL | NTMEM_F_NONTEMPORAL | NTMEM_F_NOFENCE | \
		  NTMEM_F_PARALLEL)

/* FV_ARENA usable bytes with a PROT_NONE page on each side. */
static unsigned char *fv_guarded(void)
{
	size_t page = (size_t)sysconf(_SC_PAGESIZE);
	size_t len = FV_ARENA + 2 * page;
	unsigned char *m = mmap(NULL, len, PROT_NONE, MAP_PRIVATE | MAP_ANONYMOUS,
				-1, 0);
	if (m == MAP_FAILED || mprotect(m + page, FV_ARENA, PROT_READ | PROT_WRITE))
		abort();
	return m + page;
}

/* The arena ntmem writes, its twin libc writes, a source arena, and
 * random bytes to fill them from (twice an arena: any offset below
 * FV_ARENA has an arena's worth after it). */
static unsigned char *fv_dut, *fv_ref, *fv_src, *fv_pattern;

static void fv_setup(void)
{
	if (fv_dut)
		return;
	fv_dut = fv_guarded();
	fv_ref = fv_guarded();
	fv_src = fv_guarded();
	fv_pattern = malloc(2 * FV_ARENA);
	if (!fv_pattern)
		abort();
	uint64_t x = 0x9e3779b97f4a7c15ull;
	for (size_t i = 0; i < 2 * FV_ARENA; i++) {
		x ^= x << 13;
		x ^= x >> 7;
		x ^= x << 17;
		fv_pattern[i] = (unsigned char)x;
	}
}

/* Bytes chosen by seed into p[0, n): a copy from the pattern, with libc's
 * memcpy, which the fuzzer does not instrument, so it costs little. */
static void fv_fill(unsigned char *p, size_t n, uint64_t seed)
{
	memcpy(p, fv_pattern + seed % FV_ARENA, n);
}

/* One call, decoded from the input. */
struct fv_call {
	enum { FV_PUBLIC, FV_PUBLIC_FLAGS, FV_VARIANT } kind;
	enum ntmem_op op;
	int id;                     /* FV_VARIANT */
	size_t n, dst_off, src_off; /* offsets into the arenas */
	int c;
	unsigned flags;
	int overlap;                /* copy: the source inside the dst arena */
	int null_dst;               /* n == 0: NULL pointers */
};

static size_t fv_size(struct fuzz_in *in)
{
	unsigned bits = (unsigned)fuzz_take(in, 1) % 23;  /* up to 4 MiB */
	size_t n = (size_t)fuzz_take(in, 3) & (((size_t)1 << bits) - 1);
	return n > FV_MAX ? FV_MAX : n;
}

static unsigned fv_flags(struct fuzz_in *in)
{
	static const unsigned unknown[] = {0x8, 0x10, 0x40, 0x1000, 0x80000000u};
	unsigned b = (unsigned)fuzz_take(in, 1);
	unsigned f = b & FV_KNOWN;
	if ((b & 0xc0) == 0xc0)
		f |= unknown[(b >> 3) % 5];
	return f;
}

static void fv_decode(struct fuzz_in *in, struct fv_call *k)
{
	unsigned sel = (unsigned)fuzz_take(in, 1);
	memset(k, 0, sizeof *k);
	k->kind = sel % 4 == 0 ? FV_PUBLIC : sel % 4 == 1 ? FV_PUBLIC_FLAGS : FV_VARIANT;
	k->op = sel & 4 ? NTMEM_OP_COPY : NTMEM_OP_SET;
	k->n = fv_size(in);
	int at_end = (sel & 8) != 0;  /* against the upper guard */
	k->dst_off = at_end ? FV_ARENA - k->n : (size_t)fuzz_take(in, 1) % 128;
	k->src_off = (sel & 16) ? FV_ARENA - k->n : (size_t)fuzz_take(in, 1) % 128;
	k->c = (sel & 32) ? (int)(int16_t)fuzz_take(in, 2) : (int)fuzz_take(in, 1);
	k->overlap = (sel & 0xc0) == 0xc0;
	k->null_dst = k->n == 0 && (sel & 64);
	if (k->kind == FV_PUBLIC_FLAGS)
		k->flags = fv_flags(in);
	if (k->kind == FV_VARIANT) {
		/* Every id, and one past the last: a bad one. */
		k->id = (int)(fuzz_take(in, 1) % (uint64_t)(ntmem_variant_count() + 1));
		unsigned f = (unsigned)fuzz_take(in, 1);
		k->flags = f & 0x80 ? fv_flags(in) : f & NTMEM_F_NOFENCE;
		struct ntmem_variant_info v;
		if (!ntmem_variant_info(k->id, &v) && !(f & 0x40))
			k->op = v.op;  /* mostly the variant's own operation */
	}
	if (k->overlap && k->op == NTMEM_OP_COPY) {
		/* The source within FV_SLACK of the destination, either side. */
		long d = (long)(fuzz_take(in, 2) % (2 * FV_SLACK)) - FV_SLACK;
		long s = (long)k->dst_off + d;
		k->src_off = s < 0 ? 0 : (size_t)s + k->n > FV_ARENA ? FV_ARENA - k->n
								   : (size_t)s;
	}
}

/* What ntmem.h promises for this call: 0 (it runs), or the errno values
 * it may fail with (a bit each: 1 EINVAL, 2 ENOTSUP). */
static int fv_refusal(const struct fv_call *k, int overlapping)
{
	unsigned f = k->flags;
	if (k->kind != FV_VARIANT) {
		int bad = (f & ~FV_KNOWN) ||
			  (f & (NTMEM_F_TEMPORAL | NTMEM_F_NONTEMPORAL)) ==
				  (NTMEM_F_TEMPORAL | NTMEM_F_NONTEMPORAL);
		return bad ? 1 : 0;
	}
	struct ntmem_variant_info v;
	if (ntmem_variant_info(k->id, &v) || v.op != k->op || (f & ~NTMEM_F_NOFENCE))
		return 1 | (ntmem_variant_info(k->id, &v) || v.supported ? 0 : 2);
	int bad = (v.zero_only && (unsigned char)k->c) || (overlapping && k->n);
	return (bad ? 1 : 0) | (v.supported ? 0 : 2);
}

/* Make the call on the ntmem arena. */
static void *fv_call_ntmem(const struct fv_call *k, unsigned char *dst,
			   const unsigned char *src)
{
	int set = k->op == NTMEM_OP_SET;
	switch (k->kind) {
	case FV_PUBLIC:
		return set ? ntmem_set(dst, k->c, k->n) : ntmem_copy(dst, src, k->n);
	case FV_PUBLIC_FLAGS:
		return set ? ntmem_set_flags(dst, k->c, k->n, k->flags)
			   : ntmem_copy_flags(dst, src, k->n, k->flags);
	default:
		return set ? ntmem_variant_set(k->id, dst, k->c, k->n, k->flags)
			   : ntmem_variant_copy(k->id, dst, src, k->n, k->flags);
	}
}

static void fv_compare(size_t lo, size_t hi, int whole)
{
	if (whole) {
		lo = 0;
		hi = FV_ARENA;
	}
	if (memcmp(fv_dut + lo, fv_ref + lo, hi - lo)) {
		size_t i = lo;
		while (fv_dut[i] == fv_ref[i])
			i++;
		FUZZ_FAIL("byte %zu of the arena: ntmem wrote %#x, libc %#x", i,
			  fv_dut[i], fv_ref[i]);
	}
}

FUZZ_TARGET(variants)
{
	static unsigned long runs;
	struct fuzz_in in = {data, size};
	struct fv_call k;
	fv_setup();
	fv_decode(&in, &k);
	uint64_t seed = fuzz_take(&in, 8);
	int copy = k.op == NTMEM_OP_COPY;
	int inside = copy && k.overlap;  /* source in the destination arena */

	/* The same bytes in both arenas around the call, and the source. */
	size_t lo = k.dst_off > FV_NEAR ? k.dst_off - FV_NEAR : 0;
	size_t hi = k.dst_off + k.n + FV_NEAR > FV_ARENA ? FV_ARENA
							  : k.dst_off + k.n + FV_NEAR;
	fv_fill(fv_dut + lo, hi - lo, seed);
	memcpy(fv_ref + lo, fv_dut + lo, hi - lo);
	if (copy && !inside)
		fv_fill(fv_src + k.src_off, k.n, ~seed);
	unsigned char *dst = k.null_dst ? NULL : fv_dut + k.dst_off;
	const unsigned char *src = k.null_dst ? NULL
				   : inside ? fv_dut + k.src_off : fv_src + k.src_off;
	int overlapping = inside && k.src_off < k.dst_off + k.n &&
			  k.dst_off < k.src_off + k.n;

	int refusal = fv_refusal(&k, overlapping);
	errno = FV_SENTINEL;
	void *r = fv_call_ntmem(&k, dst, src);
	int err = errno;
	ntmem_fence();
	if (!refusal) {
		if (r != dst)
			FUZZ_FAIL("returned %p, not dst %p (errno %d)", r, (void *)dst, err);
		if (err != FV_SENTINEL)
			FUZZ_FAIL("errno changed to %d by a call that succeeded", err);
		unsigned char *ref = fv_ref + k.dst_off;
		if (k.n && !copy)
			memset(ref, k.c, k.n);
		else if (k.n)
			memmove(ref, inside ? fv_ref + k.src_off : src, k.n);
	} else if (!(k.n == 0 && r == dst)) {
		int want = (refusal & 1 && err == EINVAL) || (refusal & 2 && err == ENOTSUP);
		if (r != NULL || !want)
			FUZZ_FAIL("a refused call returned %p with errno %d (refusal %d)",
				  r, err, refusal);
	}
	fv_compare(lo, hi, ++runs % 64 == 0);
	if (copy && !inside) {
		unsigned char *again = malloc(k.n ? k.n : 1);
		if (!again)
			abort();
		fv_fill(again, k.n, ~seed);
		if (memcmp(again, fv_src + k.src_off, k.n))
			FUZZ_FAIL("a copy wrote to its source");
		free(again);
	}
	return 0;
}
