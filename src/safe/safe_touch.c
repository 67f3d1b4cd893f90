/* safe_touch.c - write each page of a range once, a fault turned into the
 * error madvise(MADV_POPULATE_WRITE) would give: ntmem_populate's way
 * where the kernel lacks that advice.  The guard is a per-thread
 * sigsetjmp that the safe calls' SIGSEGV/SIGBUS handler (safe_handler.c)
 * jumps back to when the fault lies in the range being written; it hands
 * every other fault on as it does for the safe calls. */
#define _GNU_SOURCE
#include <errno.h>
#include <setjmp.h>
#include <signal.h>
#include <stdint.h>
#include <unistd.h>

#include "safe.h"

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

int ntm_safe_touch_pages(unsigned char *p, size_t len)
{
	struct touch_guard g;
	size_t page = (size_t)sysconf(_SC_PAGESIZE);
	g.lo = (uintptr_t)p;
	g.hi = g.lo + len;
	/* The jump back restores the mask saved here, from before the
	 * unblocking (see ntm_faults_unblock). */
	if (sigsetjmp(g.back, 1))
		return fault_errno(g.sig, g.code);
	struct ntm_fault_mask mask;
	ntm_faults_unblock(0, &mask);
	armed = &g;
	for (size_t i = 0; i < len; i += page)
		touch(p + i);
	armed = NULL;
	ntm_faults_restore(&mask);
	return 0;
}
