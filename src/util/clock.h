/* clock.h - the one clock the library and the shim time calls with. */
#ifndef NTM_CLOCK_H
#define NTM_CLOCK_H

#include <stdint.h>
#include <time.h>

/* Monotonic nanoseconds: a vDSO call, no system call, async-signal-safe. */
static inline uint64_t ntm_now_ns(void)
{
	struct timespec t;
	clock_gettime(CLOCK_MONOTONIC, &t);
	return (uint64_t)t.tv_sec * 1000000000u + (uint64_t)t.tv_nsec;
}

#endif
