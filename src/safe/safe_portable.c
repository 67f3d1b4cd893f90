/* safe_portable.c - the safe calls where guarded_x86_64.S does not
 * exist (any architecture but x86-64, or any build with
 * NTM_SAFE_PORTABLE): every call runs the variant the policy chose under
 * a sigsetjmp(3) guard of its own.  After a fault it finds the exact byte
 * by doing the work again, still guarded, in pieces up to the piece that
 * faults and then byte by byte in it.  A call costs one sigsetjmp more
 * than ntmem_copy(), where the exception table costs nothing.
 *
 * The guard holds the call's buffers: the handler jumps back to it only
 * for a fault inside them, so that a fault in a signal handler that
 * interrupted the call is not taken for the call's own. */
#define _GNU_SOURCE
#include "safe.h"

#if !NTM_SAFE_EXTABLE
#include <pthread.h>
#include <setjmp.h>
#include <signal.h>
#include <stdint.h>
#include <ucontext.h>

#include "dispatch/registry.h"

struct guard {
	sigjmp_buf env;
	uintptr_t lo[2], hi[2];   /* the buffers: dst, src (empty for sets) */
};

/* The guard of this thread's safe call while its variant runs.  The
 * handler reads it: initial-exec, so that no access allocates (the first
 * access to other TLS of a dlopen'd library may call malloc). */
static __thread struct guard *armed __attribute__((tls_model("initial-exec")));

static int inside(const struct guard *g, uintptr_t a)
{
	for (int i = 0; i < 2; i++)
		if (a - g->lo[i] < g->hi[i] - g->lo[i])
			return 1;
	return 0;
}

/* The jump leaves the handler without sigreturn, so it restores the
 * signal mask of the faulting call itself: a handler of the program's
 * that chained to ntmem's may have blocked SIGSEGV. */
/* Counted here, where a fault is sent on to its fixup. */
unsigned long ntm_safe_recovered;

int ntm_safe_fixup(const void *info, void *context)
{
	const siginfo_t *si = info;
	const ucontext_t *uc = context;
	struct guard *g = armed;
	if (!g || !inside(g, (uintptr_t)si->si_addr))
		return 0;
	armed = NULL;
	__atomic_fetch_add(&ntm_safe_recovered, 1, __ATOMIC_RELAXED);
	pthread_sigmask(SIG_SETMASK, &uc->uc_sigmask, NULL);
	siglongjmp(g->env, 1);
}

/* The buffers widened to whole 4 KiB pages: a variant may load or store
 * the aligned word that holds a buffer's first or last byte (glibc's
 * memcpy does, on RISC-V), and when that page goes away the fault is
 * reported at the word, outside the buffer by a few bytes. */
#define GUARD_PAGE ((uintptr_t)4096)

static void bounds(struct guard *g, int copy, unsigned char *d,
		   const unsigned char *s, size_t len)
{
	uintptr_t sz[2] = {len, copy ? len : 0};
	uintptr_t at[2] = {(uintptr_t)d, (uintptr_t)s};
	for (int i = 0; i < 2; i++) {
		g->lo[i] = g->hi[i] = at[i] & ~(GUARD_PAGE - 1);
		if (sz[i])
			g->hi[i] = (at[i] + sz[i] + GUARD_PAGE - 1) & ~(GUARD_PAGE - 1);
	}
}

/* Run v over len bytes (from s for a copy, of c for a set) under a
 * guard.  Returns 1 if it faulted. */
static int faulted(const struct variant *v, unsigned char *d,
		   const unsigned char *s, int c, size_t len)
{
	struct guard g;
	int copy = v->op == NTMEM_OP_COPY;
	bounds(&g, copy, d, s, len);
	if (sigsetjmp(g.env, 0))
		return 1;
	armed = &g;
	if (copy)
		v->copy(d, s, len);
	else
		v->set(d, c, len);
	armed = NULL;
	return 0;
}

/* Byte by byte, read then write, each access where the loop says it is
 * (volatile): the fault says which byte and which side. */
static struct ntm_guarded_result bytes(int copy, unsigned char *d,
				       const unsigned char *s, int c, size_t len)
{
	struct guard g;
	volatile size_t i = 0;
	volatile size_t side = NTM_FAULT_READ;
	bounds(&g, copy, d, s, len);
	if (sigsetjmp(g.env, 0))
		return (struct ntm_guarded_result){len - i, side};
	armed = &g;
	for (; i < len; i++) {
		unsigned char b = (unsigned char)c;
		if (copy) {
			side = NTM_FAULT_READ;
			b = ((const volatile unsigned char *)s)[i];
		}
		side = NTM_FAULT_WRITE;
		((volatile unsigned char *)d)[i] = b;
	}
	armed = NULL;
	return (struct ntm_guarded_result){0, NTM_FAULT_NONE};
}

#define PIECE ((size_t)64 << 10)

/* The buffers do not overlap, so doing part of the work again is
 * harmless.  A fault that does not recur (another thread mapped the
 * page meanwhile) leaves the work done. */
static struct ntm_guarded_result run(const struct variant *v, unsigned char *d,
				     const unsigned char *s, int c, size_t n)
{
	if (!faulted(v, d, s, c, n))
		return (struct ntm_guarded_result){0, NTM_FAULT_NONE};
	for (size_t at = 0; at < n; at += PIECE) {
		size_t len = n - at < PIECE ? n - at : PIECE;
		const unsigned char *from = s + at;
		if (!faulted(v, d + at, from, c, len))
			continue;
		struct ntm_guarded_result r =
			bytes(v->op == NTMEM_OP_COPY, d + at, from, c, len);
		if (r.left) {
			r.left += n - at - len;
			return r;
		}
	}
	return (struct ntm_guarded_result){0, NTM_FAULT_NONE};
}

struct ntm_guarded_result ntm_guarded_copy(const struct variant *v, void *dst,
					   const void *src, size_t n)
{
	return run(v, dst, src, 0, n);
}

struct ntm_guarded_result ntm_guarded_set(const struct variant *v, void *dst,
					  int c, size_t n)
{
	return run(v, dst, dst, c, n);
}

int ntm_guarded_streams(const struct variant *v)
{
	return ntm_streams(v);
}

const struct variant *ntm_guarded_by(const struct variant *v)
{
	return ntm_variant_unsupported(v) ? NULL : v;
}

void ntm_guarded_forms_init(void)
{
}

void ntm_guarded_entries_open(void)
{
}
#endif
