/* safe_mask.c - SIGSEGV and SIGBUS unblocked around a safe call, and
 * blocked again after it where they were: the kernel kills a thread
 * that faults with either blocked, whatever handler is installed
 * (safe.h says more).  Below the handler, the safe calls and the touch
 * loop, which all use it. */
#include <pthread.h>
#include <signal.h>

#include "ntmem.h"
#include "safe.h"

static const int caught[2] = {SIGSEGV, SIGBUS};

void ntm_faults_unblock(unsigned flags, struct ntm_fault_mask *m)
{
	m->changed = 0;
	if (flags & NTMEM_F_UNBLOCKED)
		return;
	sigset_t faults, was;
	sigemptyset(&faults);
	for (int i = 0; i < 2; i++)
		sigaddset(&faults, caught[i]);
	pthread_sigmask(SIG_UNBLOCK, &faults, &was);
	sigemptyset(&m->reblock);
	for (int i = 0; i < 2; i++)
		if (sigismember(&was, caught[i]) == 1) {
			sigaddset(&m->reblock, caught[i]);
			m->changed = 1;
		}
}

void ntm_faults_restore(const struct ntm_fault_mask *m)
{
	if (m->changed)
		pthread_sigmask(SIG_BLOCK, &m->reblock, NULL);
}
