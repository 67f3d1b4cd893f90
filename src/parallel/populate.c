/* populate.c - fault a mapping in for writing, on several threads: the
 * kernel's own clearing of fresh pages, made parallel.
 *
 * MADV_POPULATE_WRITE (Linux 5.14) reports a page it cannot have as an
 * error.  Without it each page is written once, under a guard: a
 * per-thread sigsetjmp that the safe calls' SIGSEGV/SIGBUS handler
 * (safe_handler.c) jumps back to when the fault lies in the range being
 * written; it hands every other fault on as it does for the safe
 * calls. */
#define _GNU_SOURCE
#include <errno.h>
#include <setjmp.h>
#include <signal.h>
#include <stdint.h>
#include <sys/mman.h>
#include <unistd.h>

#include "ntmem.h"
#include "parallel.h"
#include "safe/safe.h"

#ifndef MADV_POPULATE_WRITE
#define MADV_POPULATE_WRITE 23
#endif

int ntm_populate_force_touch;

static int populate_write_state;  /* 0 unknown, 1 works, 2 absent */

int ntm_populate_writes(void)
{
	int s = __atomic_load_n(&populate_write_state, __ATOMIC_RELAXED);
	if (s == 0) {
		/* The kernel checks the advice before the length: a length
		 * of 0 answers "known?" and touches nothing. */
		int saved = errno;
		void *somewhere = (void *)(uintptr_t)sysconf(_SC_PAGESIZE);
		s = madvise(somewhere, 0, MADV_POPULATE_WRITE) ? 2 : 1;
		errno = saved;
		__atomic_store_n(&populate_write_state, s, __ATOMIC_RELAXED);
	}
	return s == 1 && !__atomic_load_n(&ntm_populate_force_touch, __ATOMIC_RELAXED);
}

static int madvise_piece(const struct extent_work *w, size_t off, size_t len)
{
	int saved = errno;
	int e = madvise(w->dst + off, len, MADV_POPULATE_WRITE) ? errno : 0;
	errno = saved;
	return e;
}

/* The guard of the calling thread's touch loop, on its stack. */
struct touch_guard {
	sigjmp_buf back;
	uintptr_t lo, hi;                /* the range being written */
	volatile int sig, code;          /* the fault caught */
};

/* The handler reads it: initial-exec, so that no access allocates (the
 * first access to other TLS of a dlopen'd library may call malloc). */
static __thread struct touch_guard *volatile armed
	__attribute__((tls_model("initial-exec")));

void ntm_touch_fixup(int sig, const void *info)
{
	const siginfo_t *si = info;
	struct touch_guard *g = armed;
	uintptr_t a = (uintptr_t)si->si_addr;
	if (g && a >= g->lo && a < g->hi) {
		armed = NULL;
		g->sig = sig;
		g->code = si->si_code;
		siglongjmp(g->back, 1);
	}
}

/* What madvise would have said about the fault caught. */
static int fault_errno(int sig, int code)
{
	if (sig == SIGBUS)
		return EFAULT;
	if (code == SEGV_MAPERR)
		return ENOMEM;
	if (code == SEGV_ACCERR)
		return EINVAL;
	return EFAULT;
}

/* One write a page that changes no byte: a compare-and-swap of the byte
 * with itself, so that a store of another thread in between is never
 * lost.  Not an atomic add of zero: LLVM turns that into a fenced load,
 * which faults a page in for reading only (and never on a read-only
 * one); a compare-and-swap that succeeds always stores. */
static inline void touch(unsigned char *p)
{
	unsigned char v = 0;  /* a guess, right for a fresh page: no read
				 fault before the write fault */
	while (!__atomic_compare_exchange_n(p, &v, v, 0, __ATOMIC_RELAXED,
					    __ATOMIC_RELAXED))
		;
}

static int touch_piece(const struct extent_work *w, size_t off, size_t len)
{
	struct touch_guard g;
	size_t page = (size_t)sysconf(_SC_PAGESIZE);
	g.lo = (uintptr_t)(w->dst + off);
	g.hi = g.lo + len;
	/* The jump back restores the mask saved here, from before the
	 * unblocking (see ntm_faults_unblock). */
	if (sigsetjmp(g.back, 1))
		return fault_errno(g.sig, g.code);
	struct ntm_fault_mask mask;
	ntm_faults_unblock(0, &mask);
	armed = &g;
	for (size_t i = 0; i < len; i += page)
		touch(w->dst + off + i);
	armed = NULL;
	ntm_faults_restore(&mask);
	return 0;
}

int ntmem_populate_opts(void *addr, size_t len, const struct ntmem_opts *opts)
{
	struct ntmem_opts o = {0};
	if (opts)
		o = *opts;
	uintptr_t a = (uintptr_t)addr;
	if ((o.flags & ~NTMEM_F_PARALLEL) || o.hot_off || o.hot_len ||
	    len > UINTPTR_MAX - a) {
		errno = EINVAL;
		return -1;
	}
	if (len == 0)
		return 0;
	uintptr_t page = (uintptr_t)sysconf(_SC_PAGESIZE);
	uintptr_t start = a & ~(page - 1);
	uintptr_t end = (a + len + page - 1) & ~(page - 1);
	if (end <= start) {  /* the last page ends at the top of memory */
		errno = EINVAL;
		return -1;
	}
	/* Parts end on a 1 GiB or 2 MiB page where they can, so that one
	 * thread clears each huge page; else on a page. */
	const size_t grains[] = {(size_t)1 << 30, (size_t)2 << 20, page};
	int writes = ntm_populate_writes();
	if (!writes && ntm_safe_install())
		return -1;
	struct extent_work w = {.fn = writes ? madvise_piece : touch_piece,
				.dst = (unsigned char *)start};
	struct span all = {0, end - start};
	int e = ntm_extent_run(&w, &all, 1,
			       o.flags & NTMEM_F_PARALLEL ? o.threads : 1,
			       o.min_chunk, grains, 3);
	if (e) {
		errno = e;
		return -1;
	}
	return 0;
}

int ntmem_populate(void *addr, size_t len, unsigned flags)
{
	struct ntmem_opts o = {.flags = flags};
	return ntmem_populate_opts(addr, len, &o);
}
