/* test_safe.c - ntmem_copy_safe() and ntmem_set_safe(): exact results
 * around PROT_NONE pages for every guarded form this CPU runs and for
 * the public calls, overlapping buffers, a file truncated under 4
 * copying threads, 8 threads faulting at once, and faults that are not
 * ours reaching the program's handler (or killing it) as without ntmem.
 *
 * The "hole" is a PROT_NONE page with read-write memory on both sides.
 * A source that runs into it must stop exactly at its first byte (a
 * read fault), a destination the same (a write fault); a copy that goes
 * past the hole must leave the memory beyond it alone.  Canaries around
 * every buffer catch a stray store that the guard would otherwise hide.
 * Linked with -Wl,--wrap=ntm_fence to count the library's fences. */
#define _GNU_SOURCE
#include <errno.h>
#include <pthread.h>
#include <setjmp.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>

#include "harness.h"
#include "ntmem.h"
#include "dispatch/registry.h"
#include "safe/safe.h"

#include "safe_common.h"

static unsigned long fences;
void __real_ntm_fence(void);
void __wrap_ntm_fence(void);
void __wrap_ntm_fence(void)
{
	__atomic_fetch_add(&fences, 1, __ATOMIC_RELAXED);
	__real_ntm_fence();
}

static struct hole rh, wh;           /* read side, write side */
static struct guarded srcbuf, dstbuf; /* the other side of each call */

/* ---- what a case calls ---- */

struct target {
	const char *name;
	enum ntmem_op op;
	const struct variant *v;  /* a guarded form; NULL: the public call */
	unsigned flags;           /* the public call's */
	int zero_only;            /* a set that writes zeros only */
};

/* The byte a set writes for seed x. */
static int value_for(const struct target *t, size_t x)
{
	return t->zero_only ? 0 : (int)(x * 7 + 3) & 0xff;
}

static struct ntm_guarded_result call(const struct target *t, void *d,
				      const void *s, int c, size_t n)
{
	if (t->v)
		return t->op == NTMEM_OP_COPY ? ntm_guarded_copy(t->v, d, s, n)
					      : ntm_guarded_set(t->v, d, c, n);
	size_t r = t->op == NTMEM_OP_COPY ? ntmem_copy_safe(d, s, n, t->flags)
					  : ntmem_set_safe(d, c, n, t->flags);
	return (struct ntm_guarded_result){r, NTM_FAULT_NONE};
}

/* What dst[k, n) holds after a read fault: the public call zero-fills
 * it unless told not to; the guarded loops leave it as it was.  The
 * portable guard runs the variant itself, which may have stored bytes
 * it could read from beyond the hole: nothing to check then. */
static int zero_filled(const struct target *t)
{
	return !t->v && !(t->flags & NTMEM_F_NOZEROFILL);
}

static int tail_known(const struct target *t)
{
	return zero_filled(t) || NTM_SAFE_EXTABLE;
}

/* A copy of n bytes whose source meets the hole after k bytes. */
static int read_case(const struct target *t, size_t k, size_t n, size_t mis,
		     char *why, size_t len)
{
	const unsigned char *s = rh.at - k;
	unsigned char *d = dstbuf.data + CANARY + mis;
	memset(d - CANARY, PRE, n + 2 * CANARY);
	unsigned long before = recovered();
	struct ntm_guarded_result r = call(t, d, s, 0, n);
	const char *bad = NULL;
	if (r.left != n - k)
		bad = "r";
	else if (t->v && r.fault != NTM_FAULT_READ)
		bad = "fault kind";
	else if (memcmp(d, s, k))
		bad = "bytes before the fault";
	else if (tail_known(t) && !all_are(d + k, n - k, zero_filled(t) ? 0 : PRE))
		bad = zero_filled(t) ? "zero fill" : "bytes after the fault";
	else if (!all_are(d - CANARY, CANARY, PRE) || !all_are(d + n, CANARY, PRE))
		bad = "canaries around dst";
	else if (recovered() == before)
		bad = "no fault was recovered";
	if (bad)
		snprintf(why, len, "read fault k=%zu n=%zu misalign=%zu: %s "
			 "(r=%zu kind=%zu)", k, n, mis, bad, r.left, r.fault);
	return !bad;
}

/* A copy (c < 0) or set of n bytes whose destination meets the hole
 * after k bytes. */
static int write_case(const struct target *t, size_t k, size_t n, size_t mis,
		      int c, char *why, size_t len)
{
	unsigned char *d = wh.at - k;
	const unsigned char *s = srcbuf.data + CANARY + mis;
	size_t past = n + CANARY > k + P ? n + CANARY - k - P : 0;
	memset(d - CANARY, PRE, k + CANARY);
	memset(wh.at + P, PRE, past);
	unsigned long before = recovered();
	struct ntm_guarded_result r = call(t, d, s, c < 0 ? 0 : c, n);
	const char *bad = NULL;
	if (r.left != n - k)
		bad = "r";
	else if (t->v && r.fault != NTM_FAULT_WRITE)
		bad = "fault kind";
	else if (c < 0 ? memcmp(d, s, k) != 0 : !all_are(d, k, (unsigned char)c))
		bad = "bytes before the fault";
	else if (!all_are(d - CANARY, CANARY, PRE))
		bad = "canary below dst";
	else if (NTM_SAFE_EXTABLE && !all_are(wh.at + P, past, PRE))
		bad = "memory past the hole";  /* the portable guard runs the
						  variant, which may store in
						  any order */
	else if (recovered() == before)
		bad = "no fault was recovered";
	if (bad)
		snprintf(why, len, "write fault k=%zu n=%zu misalign=%zu: %s "
			 "(r=%zu kind=%zu)", k, n, mis, bad, r.left, r.fault);
	return !bad;
}

/* ---- the matrix ---- */

/* Bytes a call runs past the start of the hole. */
static const size_t past_hole[] = {1, 7, 64, 100, 333, P + 200};
#define NPAST (sizeof past_hole / sizeof past_hole[0])

/* k for case i of 256: 1..128 (the call starts in the last 128 bytes of
 * a page) and P-127..P (in the first 128). */
static size_t k_near(size_t i)
{
	return i < 128 ? i + 1 : P - 255 + i;
}

/* One case of side for target t; c < 0: copy. */
static int one_case(const struct target *t, int side, size_t k, size_t after,
		    size_t mis, char *why, size_t len)
{
	int c = t->op == NTMEM_OP_SET ? value_for(t, k) : -1;
	if (side == NTM_FAULT_READ)
		return read_case(t, k, k + after, mis, why, len);
	return write_case(t, k, k + after, mis, c, why, len);
}

static void fault_matrix(const struct target *t, int side)
{
	char name[160], why[200] = "";
	int bad = 0;
	size_t cases = 0, step = t_quick() ? 5 : 1, classes = t_quick() ? 1 : 64;
	for (size_t i = 0; i < 256 && !bad; i += step)
		for (size_t j = 0; j < classes && !bad; j++, cases++)
			bad = !one_case(t, side, k_near(i), past_hole[(i + j) % NPAST],
					(i * 5 + j * 9) % 64, why, sizeof why);
	/* Sizes up to 4 MiB: the hole 1 to 1023 pages further on. */
	static const size_t pages[] = {1, 3, 16, 255, 1023};
	static const size_t near[] = {1, 64, 127, 128, P - 128, P - 64, P - 1, P};
	for (size_t a = 0; a < 5 && !bad; a++)
		for (size_t b = 0; b < 8 && !bad; b += t_quick() ? 3 : 1, cases++)
			bad = !one_case(t, side, pages[a] * P + near[b],
					past_hole[(a + b) % NPAST], (a * 8 + b * 5) % 64,
					why, sizeof why);
	snprintf(name, sizeof name, "%s: %s faults, exact (%zu cases)", t->name,
		 side == NTM_FAULT_READ ? "read" : "write", cases);
	t_check(!bad, name, "%s", why);
}

/* ---- without faults ---- */

static int clean_case(const struct target *t, size_t n, size_t dm, size_t sm,
		      char *why, size_t len)
{
	unsigned char *d = dstbuf.data + CANARY + dm;
	const unsigned char *s = srcbuf.data + CANARY + sm;
	int c = value_for(t, n);
	memset(d - CANARY, PRE, n + 2 * CANARY);
	struct ntm_guarded_result r = call(t, d, s, c, n);
	const char *bad = NULL;
	if (r.left || r.fault)
		bad = "reported a fault";
	else if (t->op == NTMEM_OP_COPY ? memcmp(d, s, n) != 0
					: !all_are(d, n, (unsigned char)c))
		bad = "wrong bytes";
	else if (!all_are(d - CANARY, CANARY, PRE) || !all_are(d + n, CANARY, PRE))
		bad = "canaries around dst";
	if (bad)
		snprintf(why, len, "n=%zu dst+%zu src+%zu: %s (r=%zu)", n, dm, sm,
			 bad, r.left);
	return !bad;
}

/* Every size to 700 and some up to 4 MiB, misaligned every way, with no
 * fault recovered on the way. */
static void no_fault(const struct target *t)
{
	static const size_t big[] = {1000, 4095, 4096, 4097, 10007, 65536 + 13,
				     (1u << 20) + 5, ((size_t)4 << 20) + 3};
	char name[160], why[200] = "";
	unsigned long before = recovered();
	int bad = 0;
	for (size_t n = 0; n <= 700 && !bad; n += t_quick() ? 7 : 1)
		bad = !clean_case(t, n, n % 64, (n * 5 + 3) % 64, why, sizeof why);
	for (size_t i = 0; i < sizeof big / sizeof big[0] && !bad; i++)
		for (size_t m = 0; m < 64 && !bad; m += 21)
			bad = !clean_case(t, big[i], m, (m * 7 + i) % 64, why,
					  sizeof why);
	if (!bad && recovered() != before)
		snprintf(why, sizeof why, "%lu faults recovered where none happened",
			 recovered() - before), bad = 1;
	snprintf(name, sizeof name, "%s: no fault, memcpy's/memset's result", t->name);
	t_check(!bad, name, "%s", why);
}

/* ---- the streaming shape: a fault in each of its parts ---- */

static void streaming_parts(const struct target *t)
{
	char why[200] = "", name[300];
	struct { const char *part; int side; size_t k, n, mis; } cases[] = {
		{"the cached head", NTM_FAULT_READ, 10, 4000, 1},
		{"the streaming body", NTM_FAULT_READ, 1000, 4096, 0},
		{"the cached tail", NTM_FAULT_READ, 1300, 1310, 0},
		{"the streaming body", NTM_FAULT_WRITE, 640, 4096, 0},
		/* In a block's first pages: the later pages' lines at lower
		 * offsets must not have been written.  n - k stays within the
		 * two pages mapped past the hole. */
		{"the four-page blocks", NTM_FAULT_READ, P + 700, 4 * P + 300, 3},
		{"the four-page blocks", NTM_FAULT_READ, 5 * P + 300, 8 * P + 200, 0},
		{"the four-page blocks", NTM_FAULT_WRITE, 2 * P + 640, 5 * P, 0},
		{"the four-page blocks", NTM_FAULT_WRITE, 5 * P + 640, 8 * P + 200, 5},
		{"the cached tail", NTM_FAULT_WRITE, 1280, 1310, 0},
	};
	for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
		int c = t->op == NTMEM_OP_SET ? value_for(t, 9) : -1;
		if (cases[i].side == NTM_FAULT_READ && t->op == NTMEM_OP_SET)
			continue;
		int ok = cases[i].side == NTM_FAULT_READ
				 ? read_case(t, cases[i].k, cases[i].n, cases[i].mis,
					     why, sizeof why)
				 : write_case(t, cases[i].k, cases[i].n, cases[i].mis,
					      c, why, sizeof why);
		snprintf(name, sizeof name, "%s: %s fault in %s", t->name,
			 cases[i].side == NTM_FAULT_READ ? "read" : "write",
			 cases[i].part);
		t_check(ok, name, "%s", why);
	}
}

/* ---- every guarded form this CPU runs ---- */

static void forms(void)
{
	for (int id = 0; id < ntmem_variant_count(); id++) {
		struct ntmem_variant_info info;
		char name[160];
		ntmem_variant_info(id, &info);
		snprintf(name, sizeof name, "guarded %s %s", info.name,
			 info.op == NTMEM_OP_SET ? "set" : "copy");
		if (!info.supported) {
			t_skip(name, info.why_unsupported);
			continue;
		}
		const char *by = ntmem_variant_guarded_by(id);
		struct target t = {name, info.op, ntm_variant(id), 0, info.zero_only};
		if (by && strcmp(by, info.name)) {
			/* A stand-in: its own form is tested under its name. */
			snprintf(name, sizeof name, "%s %s (by the guarded %s)",
				 info.name, info.op == NTMEM_OP_SET ? "set" : "copy", by);
			no_fault(&t);
			char why[200] = "";
			t_check(write_case(&t, 100, 300, 5,
					   info.op == NTMEM_OP_SET ? value_for(&t, 1) : -1,
					   why, sizeof why),
				name, "%s", why);
			continue;
		}
		no_fault(&t);
		if (info.op == NTMEM_OP_COPY)
			fault_matrix(&t, NTM_FAULT_READ);
		fault_matrix(&t, NTM_FAULT_WRITE);
		if (info.streaming)
			streaming_parts(&t);
	}
}

/* ---- the public calls ---- */

static void public_calls(void)
{
	static const struct target copies[] = {
		{"ntmem_copy_safe", NTMEM_OP_COPY, NULL, 0, 0},
		{"ntmem_copy_safe TEMPORAL", NTMEM_OP_COPY, NULL, NTMEM_F_TEMPORAL, 0},
		{"ntmem_copy_safe NONTEMPORAL", NTMEM_OP_COPY, NULL, NTMEM_F_NONTEMPORAL, 0},
		{"ntmem_copy_safe NOZEROFILL", NTMEM_OP_COPY, NULL, NTMEM_F_NOZEROFILL, 0},
		{"ntmem_copy_safe NONTEMPORAL|NOFENCE|NOZEROFILL", NTMEM_OP_COPY, NULL,
		 NTMEM_F_NONTEMPORAL | NTMEM_F_NOFENCE | NTMEM_F_NOZEROFILL, 0},
	};
	static const struct target sets[] = {
		{"ntmem_set_safe", NTMEM_OP_SET, NULL, 0, 0},
		{"ntmem_set_safe TEMPORAL", NTMEM_OP_SET, NULL, NTMEM_F_TEMPORAL, 0},
		{"ntmem_set_safe NONTEMPORAL", NTMEM_OP_SET, NULL, NTMEM_F_NONTEMPORAL, 0},
	};
	for (size_t i = 0; i < sizeof copies / sizeof copies[0]; i++) {
		no_fault(&copies[i]);
		fault_matrix(&copies[i], NTM_FAULT_READ);
		fault_matrix(&copies[i], NTM_FAULT_WRITE);
	}
	for (size_t i = 0; i < sizeof sets / sizeof sets[0]; i++) {
		no_fault(&sets[i]);
		fault_matrix(&sets[i], NTM_FAULT_WRITE);
	}
	ntmem_fence();
}

/* ---- overlapping buffers ---- */

/* memmove's result without a fault, both directions, every shift to 70
 * and some far ones. */
static void overlapping(void)
{
	static const size_t sizes[] = {0, 1, 5, 16, 63, 64, 65, 100, 255, 256, 257,
				       511, 512, 513, 1000, 4096, 10000, 100000};
	static const size_t far[] = {100, 1000, 5000, 40000};
	static unsigned char ref[100000 + 40000 + 2 * CANARY];
	char why[160] = "";
	int bad = 0;
	for (size_t z = 0; z < sizeof sizes / sizeof sizes[0] && !bad; z++)
		for (size_t sh = 0; sh < 70 + 4 && !bad; sh += t_quick() ? 5 : 1) {
			size_t n = sizes[z], shift = sh < 70 ? sh : far[sh - 70];
			size_t span = n + shift + 2 * CANARY;
			for (int up = 0; up < 2 && !bad; up++) {
				unsigned char *base = dstbuf.data + CANARY;
				unsigned char *d = up ? base + shift : base;
				unsigned char *s = up ? base : base + shift;
				fill_pat(dstbuf.data, span, n + shift);
				memcpy(ref, dstbuf.data, span);
				memmove(ref + (d - dstbuf.data), ref + (s - dstbuf.data), n);
				unsigned flags = z % 2 ? NTMEM_F_NONTEMPORAL : 0;
				size_t r = ntmem_copy_safe(d, s, n, flags);
				if (r || memcmp(dstbuf.data, ref, span))
					bad = snprintf(why, sizeof why,
						       "n=%zu shift=%zu %s: r=%zu or bytes differ",
						       n, shift, up ? "up" : "down", r);
			}
		}
	t_check(!bad, "overlapping buffers: memmove's result", "%s", why);
}

/* Overlapping buffers that run into the hole: the first byte either side
 * cannot reach going up is exact, and the bytes before it are memmove's
 * (the source as it was). */
static int overlap_fault_case(size_t below, size_t shift, size_t n, int up,
			      char *why, size_t len)
{
	static unsigned char before[64 << 10];
	unsigned char *lo = wh.at - below;
	unsigned char *d = up ? lo + shift : lo, *s = up ? lo : lo + shift;
	size_t ks = below - (size_t)(s - lo), kd = below - (size_t)(d - lo);
	size_t k = ks <= kd ? ks : kd;
	fill_pat(lo, below, shift + n);
	memcpy(before, lo, below);
	size_t r = ntmem_copy_safe(d, s, n, 0);
	const char *bad = NULL;
	if (r != n - k)
		bad = "r";
	else if (memcmp(d, before + (s - lo), k))
		bad = "bytes before the fault";
	else if (ks <= kd && !all_are(d + k, kd - k, 0))
		bad = "zero fill";
	if (bad)
		snprintf(why, len, "%zu below the hole, shift %zu, n=%zu %s: %s (r=%zu)",
			 below, shift, n, up ? "up" : "down", bad, r);
	return !bad;
}

static void overlapping_faults(void)
{
	static const size_t shifts[] = {1, 7, 64, 300, 5000};
	static const size_t extra[] = {1, 100, 4096, 20000};
	char why[200] = "";
	int bad = 0;
	for (size_t a = 0; a < 5 && !bad; a++)
		for (size_t b = 0; b < 4 && !bad; b++)
			for (int up = 0; up < 2 && !bad; up++) {
				size_t below = shifts[a] + extra[b];
				bad = !overlap_fault_case(below, shifts[a], below + 50, up,
							  why, sizeof why);
			}
	t_check(!bad, "overlapping buffers into a hole: exact r, memmove's bytes",
		"%s", why);
}

/* ---- the fence contract ---- */

static void fence_contract(void)
{
	unsigned char *d = dstbuf.data + CANARY;
	const unsigned char *s = srcbuf.data + CANARY;
	/* Where nothing streams (portable-only builds), NONTEMPORAL calls
	 * are cached and need no fence. */
	struct ntmem_ladder_info li;
	struct ntmem_variant_info sv;
	ntmem_ladder_info(NTMEM_CLASS_COPY, &li);
	unsigned long nt = !ntmem_variant_info(li.streaming, &sv) && sv.streaming;
	struct {
		const char *name;
		int copy;
		const void *from;
		size_t n, want_r;
		unsigned flags;
		unsigned long want_fences;
	} cases[] = {
		{"streaming copy", 1, s, 200000, 0, NTMEM_F_NONTEMPORAL, nt},
		{"streaming copy that faults", 1, rh.at - 100000, 150000, 50000,
		 NTMEM_F_NONTEMPORAL, nt},
		{"streaming copy, NOFENCE", 1, s, 200000, 0,
		 NTMEM_F_NONTEMPORAL | NTMEM_F_NOFENCE, 0},
		{"streaming copy that faults, NOFENCE", 1, rh.at - 100000, 150000,
		 50000, NTMEM_F_NONTEMPORAL | NTMEM_F_NOFENCE, 0},
		{"cached copy that faults", 1, rh.at - 100000, 150000, 50000,
		 NTMEM_F_TEMPORAL, 0},
		{"streaming set", 0, NULL, 200000, 0, NTMEM_F_NONTEMPORAL, nt},
		{"streaming set that faults", 0, NULL, 150000, 50000,
		 NTMEM_F_NONTEMPORAL, nt},
	};
	for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
		unsigned char *to = cases[i].copy || !cases[i].want_r ? d
							: wh.at - 100000;
		unsigned long f0 = fences;
		size_t r = cases[i].copy
				   ? ntmem_copy_safe(to, cases[i].from, cases[i].n, cases[i].flags)
				   : ntmem_set_safe(to, 7, cases[i].n, cases[i].flags);
		char name[120];
		snprintf(name, sizeof name, "fences: %s", cases[i].name);
		t_check(r == cases[i].want_r && fences - f0 == cases[i].want_fences,
			name, "r=%zu (want %zu), %lu fences (want %lu)", r,
			cases[i].want_r, fences - f0, cases[i].want_fences);
	}
	ntmem_fence();
}

/* ---- the API's edges ---- */

/* The first call of a process finds no handler yet: 64 bytes take the
 * entry's fast class (one to two vectors of AVX2 and AVX-512), whose one
 * compare must send it to install the handler first. */
static void first_call_installs(void)
{
	unsigned char buf[300];
	size_t s = ntmem_set_safe(wh.at - 17, 9, 64, 0);
	size_t r = ntmem_copy_safe(buf, rh.at - 17, 200, 0);
	t_check(s == 47 && all_are(wh.at - 17, 17, 9) && r == 183 &&
			!memcmp(buf, rh.at - 17, 17) && all_are(buf + 17, 183, 0),
		"the first safe call installs the handler itself",
		"r=%zu, %zu (want 47, 183)", s, r);
}

static void api_edges(void)
{
	unsigned char *d = dstbuf.data + CANARY;
	const unsigned char *s = srcbuf.data + CANARY;
	static const unsigned bad_flags[] = {
		NTMEM_F_TEMPORAL | NTMEM_F_NONTEMPORAL, 0x8u, 0x10u, 0x80000000u};
	int ok = 1;
	for (size_t i = 0; i < 4; i++) {
		memset(d, PRE, 64);
		errno = 0;
		ok &= ntmem_copy_safe(d, s, 64, bad_flags[i]) == (size_t)-1 &&
		      errno == EINVAL && all_are(d, 64, PRE);
		errno = 0;
		ok &= ntmem_set_safe(d, 1, 64, bad_flags[i]) == (size_t)-1 &&
		      errno == EINVAL && all_are(d, 64, PRE);
	}
	t_check(ok, "bad flags: (size_t)-1, EINVAL, nothing written",
		"a bad flag passed");
	t_check(ntmem_copy_safe(NULL, NULL, 0, 0) == 0 &&
			ntmem_set_safe(NULL, 0, 0, NTMEM_F_NONTEMPORAL) == 0,
		"n == 0 touches nothing", "returned nonzero");
	memset(d, PRE, 64);
	size_t r1 = ntmem_copy_safe(d, NULL, 64, 0);
	size_t r2 = ntmem_set_safe(NULL, 1, 64, 0);
	t_check(r1 == 64 && all_are(d, 64, 0) && r2 == 64,
		"NULL is a fault like any other", "r=%zu, %zu (want 64, 64)", r1, r2);
	errno = 4321;
	ntmem_copy_safe(d, s, 5000, 0);
	ntmem_copy_safe(d, rh.at - 100, 5000, 0);
	ntmem_set_safe(wh.at - 100, 0, 5000, NTMEM_F_NONTEMPORAL);
	int e = errno;
	int init = ntmem_safe_init() | ntmem_safe_init();
	t_check(e == 4321 && errno == 4321 && init == 0,
		"errno is left alone; ntmem_safe_init() again is harmless",
		"errno %d, init %d", e, init);
}

/* Each variant names the guarded form that serves it: its own where its
 * family has one, else a stand-in of its kind that runs here. */
static void guarded_by(void)
{
	static const char *const own[] = {"vec_sse2", "nt_sse2", "vec_avx2",
					  "nt_avx", "vec_avx512", "nt_avx512",
					  "stosb", "movsb", "movnti", "movdir64b"};
	int ok = 1;
	char why[160] = "";
	for (int id = 0; id < ntmem_variant_count(); id++) {
		struct ntmem_variant_info v, g;
		ntmem_variant_info(id, &v);
		errno = 0;
		const char *by = ntmem_variant_guarded_by(id);
		if (!v.supported) {
			ok &= !by && errno == ENOTSUP;
			continue;
		}
		int gid = by ? ntmem_variant_find(v.op, by) : -1;
		int has_own = 0;
		for (size_t i = 0; i < sizeof own / sizeof own[0]; i++)
			has_own |= !strcmp(own[i], v.name);
		if (gid < 0 || ntmem_variant_info(gid, &g) || !g.supported ||
		    g.streaming != v.streaming || (g.zero_only && gid != id) ||
		    (NTM_SAFE_EXTABLE && has_own && strcmp(by, v.name)) ||
		    (!NTM_SAFE_EXTABLE && strcmp(by, v.name))) {
			snprintf(why, sizeof why, "%s is guarded by %s", v.name,
				 by ? by : "(null)");
			ok = 0;
		}
	}
	errno = 0;
	ok &= !ntmem_variant_guarded_by(-1) && errno == EINVAL;
	errno = 0;
	ok &= !ntmem_variant_guarded_by(ntmem_variant_count()) && errno == EINVAL;
	t_check(ok, "ntmem_variant_guarded_by: own form, or a stand-in of its kind",
		"%s", why);
}

#if NTM_SAFE_EXTABLE

/* Ranges that overlap, or a fixup inside a range, would send a fault to
 * the wrong place. */
static void extable_sane(void)
{
	const struct extable_entry *a, *b, *first = __start_ntm_extable,
				      *end = __stop_ntm_extable;
	int ok = end > first;
	for (a = first; a < end; a++) {
		ok &= ntm_extable_target(&a->from) < ntm_extable_target(&a->to);
		for (b = first; b < end; b++) {
			uintptr_t fx = ntm_extable_target(&a->fixup);
			ok &= fx < ntm_extable_target(&b->from) || fx >= ntm_extable_target(&b->to);
			if (a != b)
				ok &= ntm_extable_target(&a->to) <= ntm_extable_target(&b->from) ||
				      ntm_extable_target(&b->to) <= ntm_extable_target(&a->from);
		}
	}
	t_check(ok, "the exception table: disjoint ranges, fixups outside them",
		"%zu entries, some overlap", (size_t)(end - first));
}
#endif

/* ---- the policy decides ---- */

/* Run again with a policy of one streaming variant at every size: a
 * safe call then streams (one fence) where the built-in policy would
 * not, and its faults stay exact.  Exit status 0, or which check failed. */
static int policy_child(const char *copy_name, const char *set_name)
{
	if (ntmem_policy_choice(NTMEM_OP_COPY, 0, 100000, 0) !=
		    ntmem_variant_find(NTMEM_OP_COPY, copy_name) ||
	    ntmem_policy_choice(NTMEM_OP_SET, 1, 100000, 0) !=
		    ntmem_variant_find(NTMEM_OP_SET, set_name))
		return 10;
	unsigned char *d = dstbuf.data + CANARY;
	unsigned long f0 = fences;
	if (ntmem_copy_safe(d, rh.at - 50000, 60000, 0) != 10000 ||
	    memcmp(d, rh.at - 50000, 50000) || !all_are(d + 50000, 10000, 0) ||
	    fences - f0 != 1)
		return 11;
	f0 = fences;
	if (ntmem_set_safe(wh.at - 30000, 7, 40000, 0) != 10000 ||
	    !all_are(wh.at - 30000, 30000, 7) || fences - f0 != 1)
		return 12;
	f0 = fences;
	if (ntmem_copy_safe(d, rh.at - 50000, 60000, NTMEM_F_TEMPORAL) != 10000 ||
	    fences - f0 != 0)
		return 13;
	return 0;
}

static void policy_routing(char **argv)
{
	const char *copy_name = t_streaming_variant(NTMEM_OP_COPY);
	const char *set_name = t_streaming_variant(NTMEM_OP_SET);
	char tunables[160], name[240];
	if (!copy_name || !set_name) {
		t_skip("the policy's choice runs guarded", "no streaming variant here");
		return;
	}
	snprintf(tunables, sizeof tunables, "copy=%s,set=%s", copy_name, set_name);
	snprintf(name, sizeof name, "the policy's choice runs guarded "
		 "(NTMEM_TUNABLES=%s: streams, one fence, exact)", tunables);
	char *args[] = {argv[0], "--policy-child", (char *)copy_name,
			(char *)set_name, NULL};
	fflush(stdout);
	pid_t pid = fork();
	if (pid == 0) {
		setenv("NTMEM_TUNABLES", tunables, 1);
		t_exec_self(args);
		_exit(127);
	}
	int s = -1;
	if (pid > 0)
		waitpid(pid, &s, 0);
	if (exited(s, 127))
		t_skip(name, "cannot run this test again");
	else
		t_check(exited(s, 0), name, "child status %#x", s);
}

int main(int argc, char **argv)
{
	if (hole_alloc(&rh) || hole_alloc(&wh) || t_guarded_alloc(&srcbuf, BUF) ||
	    t_guarded_alloc(&dstbuf, BUF)) {
		t_fail("setup", "no memory for the buffers");
		return t_finish();
	}
	fill_pat(srcbuf.data, srcbuf.cap, 0);
	fill_pat(rh.map, (size_t)(rh.at - rh.map), 0);
	if (argc > 3 && !strcmp(argv[1], "--policy-child"))
		return policy_child(argv[2], argv[3]);
	first_call_installs();
	api_edges();
	guarded_by();
#if NTM_SAFE_EXTABLE
	extable_sane();
#endif
	forms();
	public_calls();
	overlapping();
	overlapping_faults();
	fence_contract();
	policy_routing(argv);
	printf("  %lu faults recovered in this process\n", recovered());
	return t_finish();
}
