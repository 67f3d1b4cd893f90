/* once.h - run a function once per process, where a caller may decline
 * to wait for it.
 *
 * pthread_once always waits for a run in progress, and a signal handler
 * that interrupted that run on its own thread then waits forever.  A
 * call that needs the result inside the user's memset or memcpy (the
 * policy, built on the first call that needs it) asks without waiting
 * and, told no, carries on without it.  fn must not itself ask for the
 * same once; it runs to completion (no cancellation point), and may run
 * again in a fork child (ntm_once_after_fork), from the start. */
#ifndef NTM_ONCE_H
#define NTM_ONCE_H

#include <sched.h>

enum { NTM_ONCE_NOT_RUN, NTM_ONCE_RUNNING, NTM_ONCE_DONE };

/* 1 once fn has run (here or elsewhere); 0 when another call is running
 * it and wait is 0.  Waiting callers yield the CPU between looks. */
static inline int ntm_once(int *state, void (*fn)(void), int wait)
{
	int s = __atomic_load_n(state, __ATOMIC_ACQUIRE);
	while (s != NTM_ONCE_DONE) {
		int expected = NTM_ONCE_NOT_RUN;
		if (s == NTM_ONCE_NOT_RUN &&
		    __atomic_compare_exchange_n(state, &expected, NTM_ONCE_RUNNING, 0,
						__ATOMIC_ACQUIRE, __ATOMIC_ACQUIRE)) {
			fn();
			__atomic_store_n(state, NTM_ONCE_DONE, __ATOMIC_RELEASE);
			return 1;
		}
		if (!wait)
			return 0;
		sched_yield();
		s = __atomic_load_n(state, __ATOMIC_ACQUIRE);
	}
	return 1;
}

/* In a fork child: a run another thread of the parent had under way
 * never ends here, so the next caller runs fn again. */
static inline void ntm_once_after_fork(int *state)
{
	if (__atomic_load_n(state, __ATOMIC_RELAXED) == NTM_ONCE_RUNNING)
		__atomic_store_n(state, NTM_ONCE_NOT_RUN, __ATOMIC_RELAXED);
}

#endif
