/* safe.c - ntmem_copy_safe() and ntmem_set_safe(): the flags, the choice
 * of method, overlapping buffers, the zero fill and the fence around the
 * guarded forms (safe_forms.c, safe_portable.c).
 *
 * On x86-64 the public functions are the assembly entry points of
 * guarded_x86_64.S, one per vector width, chosen by entry/ntmem.c as
 * ntmem_copy's are: they run the small path and the inline cached loop
 * themselves and come here for the rest (..._slow) and after a fault
 * (..._small_fault, ..._resume).  Elsewhere the public functions are
 * the ..._slow ones. */
#include "ntmem.h"

#include <errno.h>
#include <stdint.h>

#include "dispatch/args.h"
#include "dispatch/width.h"
#include "variants/fence.h"
#include "dispatch/registry.h"
#include "dispatch/select.h"
#include "safe.h"

#define SAFE_FLAGS (NTMEM_F_TEMPORAL | NTMEM_F_NONTEMPORAL | NTMEM_F_NOFENCE | \
		    NTMEM_F_NOZEROFILL | NTMEM_F_UNBLOCKED)

/* The backward overlapping copy takes accessibility to change at most
 * every 4 KiB: pages, protection keys, truncated files and memory errors
 * are all page-sized.  (AArch64 MTE tag faults are finer: there such a
 * copy reports the first byte of the faulting 4 KiB block.) */
#define UNIFORM_BLOCK ((uintptr_t)4096)

/*
 * The guarded loops compare end pointers, and an end past the top of the
 * address space wraps, as would the overlapping copy's arithmetic.  So a
 * call runs on the part of its span below the top, and the first byte
 * beyond faults, as one on an unmapped page would: a copy reads before it
 * writes, so at the same byte it is the read.  The last byte of the
 * address space is never a program's, and the part ends before it, so
 * that its end pointer is not 0.
 */
static size_t below_top(const void *p, size_t n)
{
	uintptr_t room = UINTPTR_MAX - (uintptr_t)p;
	return n > room ? (size_t)room : n;
}

/* r, for the part of n bytes below the top (fit), as a result for all n. */
static struct ntm_guarded_result past_top(struct ntm_guarded_result r,
					  size_t n, size_t fit,
					  enum ntm_fault at_top)
{
	if (fit < n) {
		if (!r.left)
			r.fault = at_top;
		r.left += n - fit;
	}
	return r;
}

/* The variant the selector gives a safe call: the ladder's, or the side
 * its learning runs now; the guarded form of it runs. */
static const struct variant *choose(enum ntmem_class cls, size_t n,
				    unsigned flags)
{
	return ntm_select_variant(ntm_policy_for_call(), cls, n, flags, 0);
}

/* v's guarded form, or (v NULL, x86-64) the byte-at-a-time one, which
 * the entry points' fault paths use.  Copies: within the address space;
 * sets are cut at the top here. */
static struct ntm_guarded_result copy_form(const struct variant *v, void *dst,
					   const void *src, size_t n)
{
#ifdef __x86_64__
	if (!v)
		return ntm_guarded_bytes_copy(dst, src, n);
#endif
	return ntm_guarded_copy(v, dst, src, n);
}

static struct ntm_guarded_result set_form(const struct variant *v, void *dst,
					  int c, size_t n)
{
	size_t fit = below_top(dst, n);
	struct ntm_guarded_result r;
#ifdef __x86_64__
	if (!v)
		r = ntm_guarded_bytes_set(dst, c, fit);
	else
#endif
		r = ntm_guarded_set(v, dst, c, fit);
	return past_top(r, n, fit, NTM_FAULT_WRITE);
}

/* After a guarded form has run: zeros after a read fault (the zero fill
 * is guarded too, and a write fault just ends it), then the fence. */
static size_t finish(void *dst, size_t n, unsigned flags,
		     struct ntm_guarded_result r, int streamed)
{
	if (r.left && r.fault == NTM_FAULT_READ && !(flags & NTMEM_F_NOZEROFILL)) {
		const struct variant *z = choose(NTMEM_CLASS_SET_ZERO, r.left, flags);
		set_form(z, (unsigned char *)dst + (n - r.left), 0, r.left);
		streamed |= ntm_guarded_streams(z);
	}
	ntm_fence_after(streamed, flags);
	return r.left;
}

/* One piece of an overlapping copy, with cached stores. */
static struct ntm_guarded_result piece(unsigned char *d, const unsigned char *s,
				       size_t len)
{
	return copy_form(choose(NTMEM_CLASS_COPY, len, NTMEM_F_TEMPORAL), d, s, len);
}

/* dst below src: pieces no longer than the distance, upwards.  No piece
 * overlaps itself, and each writes only below the source bytes still to
 * be read, so the first fault is the exact one. */
static struct ntm_guarded_result copy_down(unsigned char *d,
					   const unsigned char *s, size_t n)
{
	size_t step = s > d ? (size_t)(s - d) : n;  /* d == s: one piece */
	for (size_t at = 0; at < n; at += step) {
		size_t len = n - at < step ? n - at : step;
		struct ntm_guarded_result r = piece(d + at, s + at, len);
		if (r.left) {
			r.left += n - at - len;
			return r;
		}
	}
	return (struct ntm_guarded_result){0, NTM_FAULT_NONE};
}

/*
 * dst above src: pieces no longer than the distance, downwards.  A fault
 * found going down is not the first one going up, but every store so far
 * went above it and so changed no source byte below it: copy again below
 * the 4 KiB block of the faulting byte, which is inaccessible as a whole,
 * until a pass ends without a fault.  Its top is the exact first fault.
 */
static struct ntm_guarded_result copy_up(unsigned char *d,
					 const unsigned char *s, size_t n)
{
	size_t step = (size_t)(d - s), top = n;
	struct ntm_guarded_result last = {0, NTM_FAULT_NONE};
	size_t at = top;
	while (at) {
		size_t len = at < step ? at : step;
		at -= len;
		struct ntm_guarded_result r = piece(d + at, s + at, len);
		if (!r.left)
			continue;
		uintptr_t base = (uintptr_t)(r.fault == NTM_FAULT_READ ? s : d);
		uintptr_t block = (base + at + len - r.left) & ~(UNIFORM_BLOCK - 1);
		top = block > base ? block - base : 0;
		last.fault = r.fault;
		at = top;
	}
	last.left = n - top;
	return last;
}

/*
 * The whole copy but the signal mask: below the top of the address space
 * on the overlap path, the byte-at-a-time form (bytes) or the guarded form
 * of the policy's choice; then beyond the top, the zero fill and the
 * fence.
 */
static size_t copy_whole(void *dst, const void *src, size_t n, unsigned flags,
			 int bytes)
{
	size_t fit_dst = below_top(dst, n), fit_src = below_top(src, n);
	size_t fit = fit_dst < fit_src ? fit_dst : fit_src;
	struct ntm_guarded_result r;
	int streamed = 0;
	if (ntm_overlap(dst, src, fit)) {
		r = (uintptr_t)dst <= (uintptr_t)src ? copy_down(dst, src, fit)
						     : copy_up(dst, src, fit);
	} else if (bytes) {
		r = copy_form(NULL, dst, src, fit);
	} else {
		const struct variant *v = choose(NTMEM_CLASS_COPY, fit, flags);
		r = copy_form(v, dst, src, fit);
		streamed = ntm_guarded_streams(v);
	}
	r = past_top(r, n, fit,
		     fit_src <= fit_dst ? NTM_FAULT_READ : NTM_FAULT_WRITE);
	return finish(dst, n, flags, r, streamed);
}

static size_t set_whole(void *dst, int c, size_t n, unsigned flags, int bytes)
{
	if (bytes)
		return finish(dst, n, flags, set_form(NULL, dst, c, n), 0);
	const struct variant *v = choose(ntm_class_of(NTMEM_OP_SET, c), n, flags);
	return finish(dst, n, flags, set_form(v, dst, c, n),
		      ntm_guarded_streams(v));
}

/* 0, or -1 with errno: flags a safe call refuses (EINVAL), or a handler
 * that cannot be installed. */
static int refused(unsigned flags)
{
	if (ntm_bad_flags(flags, SAFE_FLAGS)) {
		errno = EINVAL;
		return -1;
	}
	return ntm_safe_install();
}

/* The whole call, for whatever the entry points do not do themselves:
 * every call without NTMEM_F_UNBLOCKED, whose signal mask is unknown.
 * op says which: a copy from src, or a set of c. */
static size_t whole_unblocked(enum ntmem_op op, void *dst, const void *src,
			      int c, size_t n, unsigned flags)
{
	if (refused(flags))
		return (size_t)-1;
	if (n == 0)
		return 0;
	struct ntm_fault_mask mask;
	ntm_faults_unblock(flags, &mask);
	size_t left = op == NTMEM_OP_COPY ? copy_whole(dst, src, n, flags, 0)
					  : set_whole(dst, c, n, flags, 0);
	ntm_faults_restore(&mask);
	return left;
}

size_t ntm_copy_safe_slow(void *dst, const void *src, size_t n, unsigned flags)
{
	return whole_unblocked(NTMEM_OP_COPY, dst, src, 0, n, flags);
}

size_t ntm_set_safe_slow(void *dst, int c, size_t n, unsigned flags)
{
	return whole_unblocked(NTMEM_OP_SET, dst, NULL, c, n, flags);
}

#ifdef __x86_64__
/*
 * The small path of an entry point faulted.  It loads everything before
 * it stores, and stores the vector holding the last byte first and the
 * one holding the first byte second: a load fault stored nothing, and a
 * store fault left at most bytes past a first page it cannot write, so
 * that the exact answer is r = n.  Buffers apart: do it again byte by
 * byte from the start.  Overlapping: start over on the overlap path.
 * The entries run only calls with NTMEM_F_UNBLOCKED.
 */
size_t ntm_copy_safe_small_fault(void *dst, const void *src, size_t n,
				 unsigned flags)
{
	return copy_whole(dst, src, n, flags, 1);
}

size_t ntm_set_safe_small_fault(void *dst, int c, size_t n, unsigned flags)
{
	return set_whole(dst, c, n, flags, 1);
}

/* An entry point's cached loop faulted with dst[0, done) complete (its
 * buffers do not overlap): the rest byte by byte, to the exact byte. */
size_t ntm_copy_safe_resume(void *dst, const void *src, size_t n,
			    unsigned flags, size_t done)
{
	return copy_whole((unsigned char *)dst + done,
			  (const unsigned char *)src + done, n - done, flags, 1);
}

size_t ntm_set_safe_resume(void *dst, int c, size_t n, unsigned flags,
			   size_t done)
{
	return set_whole((unsigned char *)dst + done, c, n - done, flags, 1);
}
#endif
