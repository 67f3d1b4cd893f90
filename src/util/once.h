/* once.h - run a function once per process, for what the library reads
 * or formats only when asked (a description of the CPU, the variants'
 * requirements in words) and for what its constructor makes.
 *
 * No call of memset or memcpy ever asks: what a call needs is made as
 * the library loads.  A reporter may, and it must never wait for ever.
 * pthread_once does, where the child of _Fork() or of clone() without
 * CLONE_VM copied a run that another thread of the parent had under way:
 * no fork handler runs there to say that run is gone.  So the state
 * names the process whose thread runs fn, and a caller in any other
 * process runs fn again, from the start.  fn must not ask for the same
 * once, and runs to completion (no cancellation point). */
#ifndef NTM_ONCE_H
#define NTM_ONCE_H

#include <sched.h>
#include <unistd.h>

enum { NTM_ONCE_NOT_RUN = 0, NTM_ONCE_DONE = -1 };

/* Runs fn unless it has run: *state is 0, -1 once fn has returned, or
 * while fn runs the pid of the process running it.  A thread of that
 * process waits for it, yielding the CPU between looks. */
static inline void ntm_once(int *state, void (*fn)(void))
{
	int s = __atomic_load_n(state, __ATOMIC_ACQUIRE);
	if (__builtin_expect(s == NTM_ONCE_DONE, 1))
		return;
	int me = (int)getpid();
	for (;;) {
		/* Not run, or run by a process that is not this one: its run
		 * was copied here and never ends. */
		if (s != NTM_ONCE_DONE && s != me &&
		    __atomic_compare_exchange_n(state, &s, me, 0, __ATOMIC_ACQUIRE,
						__ATOMIC_ACQUIRE)) {
			fn();
			__atomic_store_n(state, NTM_ONCE_DONE, __ATOMIC_RELEASE);
			return;
		}
		if (s == NTM_ONCE_DONE)
			return;
		if (s == me) {
			sched_yield();
			s = __atomic_load_n(state, __ATOMIC_ACQUIRE);
		}
	}
}

#endif
