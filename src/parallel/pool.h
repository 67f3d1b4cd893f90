/* pool.h - the worker threads that parallel calls share.
 *
 * One pool per process, one job at a time.  A caller takes the pool with
 * ntm_pool_acquire(), plans its job, and runs it with ntm_pool_run(),
 * which also gives the pool back.  The rules that keep it safe:
 *
 *   - Threads start lazily, from the first call that wants them, and are
 *     reused.  Only ntm_pool_acquire() creates them, and only the
 *     parallel entry points call it: never a plain ntmem call, so a
 *     signal handler that uses plain calls never creates threads.
 *   - A caller that finds the pool taken (another thread's job, or its
 *     own, interrupted by a signal handler) does not wait: acquire
 *     returns 0 and the caller works alone.  No lock is ever waited for,
 *     so nothing can deadlock.
 *   - If a thread cannot be created, acquire returns the workers it has
 *     (maybe 0); the job still completes, on fewer threads.
 *   - The child of fork() starts with a fresh, empty pool (an atfork
 *     handler); a child made without the handlers (vfork, _Fork, clone)
 *     never touches the pool and works alone.
 *   - A destructor stops and joins the workers at exit and at dlclose;
 *     calls after it work alone.
 *
 * Workers block every asynchronous signal, so the program's handlers
 * run on its own threads, and are pinned to the CPU each job asks for.
 */
#ifndef NTM_POOL_H
#define NTM_POOL_H

#include <pthread.h>

#include "numa.h"
#include "split.h"

#define NTM_POOL_MAX_WORKERS (NTM_MAX_PARTS - 1)

struct pool_job {
	/* Run part k (0 .. nparts - 1).  Returns 0 or an errno value.  The
	 * pool fences (ntm_fence) after each part a worker runs, before
	 * the caller can see it done. */
	int (*run)(struct pool_job *job, unsigned k);
	void *arg;
	unsigned nparts;            /* 1 .. workers acquired + 1 */
	int cpu[NTM_MAX_PARTS];     /* part k >= 1 runs on a worker pinned to
				       cpu[k]; -1: on any allowed CPU.
				       Part 0 runs on the caller. */
	int result[NTM_MAX_PARTS];  /* what run() returned for each part */
};

/*
 * Take the pool for a job that wants up to want workers (besides the
 * caller), starting the pool and creating threads as needed.  Returns
 * the number of workers now at the caller's disposal, 1 .. want, with
 * the pool held: then call ntm_pool_run() (or ntm_pool_release()).
 * Returns 0 without holding the pool when the caller must work alone.
 * Never waits for another caller.  errno is left as it was.
 */
unsigned ntm_pool_acquire(unsigned want);

/* The CPUs and nodes the workers may use; valid while the pool is held. */
const struct topology *ntm_pool_topology(void);

/* With the pool held: run parts 1 .. nparts - 1 on workers and part 0 on
 * the calling thread, wait for all, give the pool back.  Fills
 * job->result. */
void ntm_pool_run(struct pool_job *job);

/* Give the pool back without running anything. */
void ntm_pool_release(void);

/* How many CPUs the workers may use (the process's affinity mask as the
 * library was loaded, within its cpuset) and on how many nodes (0 until
 * the pool has started and looked). */
void ntm_pool_universe(unsigned *cpus, unsigned *nodes);

/* The CPUs of the process's affinity mask as the library was loaded,
 * before any thread was pinned: at most max, ascending, into cpus[].
 * Returns how many. */
unsigned ntm_process_cpus(int *cpus, unsigned max);

struct pool_stats {
	unsigned workers;             /* threads alive now */
	unsigned long long create_failed;
	unsigned long long jobs;      /* jobs run on more than one thread */
	unsigned long long busy;      /* callers that found the pool taken */
};
void ntm_pool_stats(struct pool_stats *s);

/* For the tests: how threads are created (pthread_create).  Replace it to
 * simulate failure; set it before the pool starts or between calls. */
extern int (*ntm_pool_thread_create)(pthread_t *thread,
				     const pthread_attr_t *attr,
				     void *(*start)(void *), void *arg);

/* For the tests: stop and join the workers now, as the destructor does;
 * the next call starts a fresh pool.  Returns 0, or -1 if the pool is
 * held by another caller (nothing is done then). */
int ntm_pool_restart(void);

/* For the tests: use t as the machine's topology the next time the pool
 * starts (its CPUs must exist); NULL: discover it. */
void ntm_pool_fake_topology(const struct topology *t);

#endif
