/* safe_handler.c - the one SIGSEGV/SIGBUS handler of the safe calls: it
 * sends a fault of guarded code on (ntm_safe_fixup, and ntmem_populate's
 * touch loop: ntm_touch_fixup, safe_touch.c) and every other signal
 * where it would have gone without ntmem.
 *
 * Installed with
 *   SA_SIGINFO  for the fault's code and the context to edit;
 *   SA_ONSTACK  so that it runs on the alternate stack a program set up
 *               for its own handler (a stack overflow must still reach
 *               that handler through this one);
 *   SA_NODEFER  so that the signal stays deliverable while it runs: this
 *               handler then blocks exactly what the program's handler
 *               asked for (its sa_mask, and the signal unless it had
 *               SA_NODEFER) before calling it, and a handler that
 *               expects to fault again inside itself still can.
 * The program's handler therefore runs with the mask and flags it asked
 * for, except that it runs on the alternate stack whenever one is set
 * up, with or without SA_ONSTACK.
 */
#define _GNU_SOURCE
#include "safe.h"

#include "ntmem.h"

#include <errno.h>
#include <pthread.h>
#include <sched.h>
#include <signal.h>
#include <string.h>

static unsigned char safe_ready;  /* the handler is installed */

static const int caught[2] = {SIGSEGV, SIGBUS};

/* What each signal did before ntmem's handler.  Two slots each, so that
 * ntmem_safe_init() can fill one while a handler reads the other. */
static struct sigaction previous[2][2];
static int current[2];            /* the slot in effect */
static int reset_to_default[2];   /* the previous handler had SA_RESETHAND
				     and has run: it is SIG_DFL now */
static int installing;            /* a lock: 1 while a thread installs */

static int index_of(int sig)
{
	return sig == SIGBUS;
}

/* Raised by the kernel for the instruction that was interrupted: a page
 * or protection fault, a bus error, a memory error it must act on.  Not:
 * kill(2), sigqueue(3), tgkill(2), nor an asynchronous memory-error
 * report (BUS_MCEERR_AO), which can interrupt any instruction. */
static int synchronous(int sig, const siginfo_t *si)
{
	if (si->si_code <= 0)
		return 0;
	return !(sig == SIGBUS && si->si_code == BUS_MCEERR_AO);
}

/* Call the program's handler as the kernel would have. */
static void call_previous(int sig, siginfo_t *si, void *context,
			  const struct sigaction *p)
{
	sigset_t block = p->sa_mask, saved;
	if (!(p->sa_flags & SA_NODEFER))
		sigaddset(&block, sig);
	if (p->sa_flags & SA_RESETHAND)
		__atomic_store_n(&reset_to_default[index_of(sig)], 1,
				 __ATOMIC_RELAXED);
	pthread_sigmask(SIG_BLOCK, &block, &saved);
	if (p->sa_flags & SA_SIGINFO)
		p->sa_sigaction(sig, si, context);
	else
		p->sa_handler(sig);
	pthread_sigmask(SIG_SETMASK, &saved, NULL);
}

/* Not ours: what would have happened without ntmem. */
static void pass_on(int sig, siginfo_t *si, void *context)
{
	int i = index_of(sig);
	const struct sigaction *p =
		&previous[i][__atomic_load_n(&current[i], __ATOMIC_ACQUIRE)];
	void (*h)(int) = __atomic_load_n(&reset_to_default[i], __ATOMIC_RELAXED)
				 ? SIG_DFL
				 : p->sa_handler;
	int sync = synchronous(sig, si);
	if (h == SIG_IGN && !sync)
		return;  /* ignored, as it would have been */
	if (h == SIG_DFL || h == SIG_IGN) {
		/* The default action (the kernel overrides SIG_IGN for a
		 * fault too).  A fault recurs when this returns and then
		 * kills the process at the faulting instruction; anything
		 * else is raised again, with SA_NODEFER not blocked. */
		struct sigaction dfl;
		memset(&dfl, 0, sizeof dfl);
		dfl.sa_handler = SIG_DFL;
		sigemptyset(&dfl.sa_mask);
		sigaction(sig, &dfl, NULL);
		if (!sync)
			raise(sig);
		return;
	}
	call_previous(sig, si, context, p);
}

/* force_align_arg_pointer: qemu-user (7.2) enters x86-64 handlers with
 * the stack 8 bytes off the ABI's alignment; the handler and the one it
 * chains to would then fault on the first aligned vector spill. */
#if defined(__x86_64__) || defined(__i386__)
__attribute__((force_align_arg_pointer))
#endif
static void on_fault(int sig, siginfo_t *si, void *context)
{
	int saved = errno;
	if (synchronous(sig, si))
		ntm_touch_fixup(sig, si);  /* returns unless it is populate's */
	if (!synchronous(sig, si) || !ntm_safe_fixup(si, context))
		pass_on(sig, si, context);
	errno = saved;
}

static int is_ours(const struct sigaction *sa)
{
	return (sa->sa_flags & SA_SIGINFO) && sa->sa_sigaction == on_fault;
}

/* Put ntmem's handler in front of whatever signal i has now.  Under the
 * installing lock. */
static int put_in_front(int i)
{
	struct sigaction now, ours;
	if (sigaction(caught[i], NULL, &now))
		return -1;
	if (is_ours(&now))
		return 0;
	int slot = !__atomic_load_n(&current[i], __ATOMIC_RELAXED);
	previous[i][slot] = now;
	__atomic_store_n(&current[i], slot, __ATOMIC_RELEASE);
	__atomic_store_n(&reset_to_default[i], 0, __ATOMIC_RELAXED);
	memset(&ours, 0, sizeof ours);
	ours.sa_sigaction = on_fault;
	ours.sa_flags = SA_SIGINFO | SA_ONSTACK | SA_NODEFER |
			(now.sa_flags & SA_RESTART);
	sigemptyset(&ours.sa_mask);
	if (sigaction(caught[i], &ours, NULL) || sigaction(caught[i], NULL, &now))
		return -1;
	if (!is_ours(&now)) {  /* e.g. ASan with allow_user_segv_handler=0 */
		errno = ENOTSUP;
		return -1;
	}
	return 0;
}

/* Install or reinstall, with every signal blocked so that no handler of
 * this thread can come to wait for the lock it holds.  errno changes
 * only on failure. */
static int install(void)
{
	int saved_errno = errno, rc = 0;
	sigset_t all, saved;
	sigfillset(&all);
	pthread_sigmask(SIG_BLOCK, &all, &saved);
	while (__atomic_exchange_n(&installing, 1, __ATOMIC_ACQUIRE))
		sched_yield();
	ntm_guarded_forms_init();
	for (int i = 0; i < 2 && !rc; i++)
		rc = put_in_front(i);
	if (!rc) {
		__atomic_store_n(&safe_ready, 1, __ATOMIC_RELEASE);
		ntm_guarded_entries_open();
	}
	__atomic_store_n(&installing, 0, __ATOMIC_RELEASE);
	int failure = errno;
	pthread_sigmask(SIG_SETMASK, &saved, NULL);
	errno = rc ? failure : saved_errno;
	return rc;
}

/*
 * Unloaded (a dlclose of libntmem.so, or of an object it is linked into):
 * a disposition left pointing at on_fault would send the next fault into
 * unmapped code.  Where ntmem's handler is still the one installed, put
 * back what it replaced.  (A handler installed after ntmem's that chains
 * to it cannot be mended: such a program must keep the library loaded,
 * as ntmem(3) says.)  At exit this runs after the destructors of the
 * objects that use the library.
 */
__attribute__((destructor)) static void uninstall(void)
{
	if (!__atomic_load_n(&safe_ready, __ATOMIC_ACQUIRE))
		return;
	for (int i = 0; i < 2; i++) {
		struct sigaction now, before;
		if (sigaction(caught[i], NULL, &now) || !is_ours(&now))
			continue;
		before = previous[i][__atomic_load_n(&current[i], __ATOMIC_ACQUIRE)];
		if (__atomic_load_n(&reset_to_default[i], __ATOMIC_RELAXED)) {
			memset(&before, 0, sizeof before);
			before.sa_handler = SIG_DFL;
		}
		sigaction(caught[i], &before, NULL);
	}
}

int ntm_safe_install(void)
{
	if (__atomic_load_n(&safe_ready, __ATOMIC_ACQUIRE))
		return 0;
	return install();
}

int ntm_safe_reinstall(void)
{
	return install();
}
