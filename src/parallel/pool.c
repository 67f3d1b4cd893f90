/* pool.c - the worker threads parallel calls share: lazy start, one job
 * at a time, futex hand-offs, fresh after fork, joined at exit. */
#define _GNU_SOURCE
#include "pool.h"

#include <errno.h>
#include <limits.h>
#include <linux/futex.h>
#include <sched.h>
#include <signal.h>
#include <stdint.h>
#include <string.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "variants/fence.h"

/* Spins before sleeping: a worker between back-to-back calls, a caller
 * whose workers finish just after it.  A few microseconds, no more: two
 * cores may be all there is. */
#define SPINS 2000

enum pool_state { POOL_NEVER_STARTED, POOL_RUNNING, POOL_DEAD };

/* One worker; a line of its own, so that hand-offs to different workers
 * never contend for a line. */
struct worker {
	uint32_t seq;             /* futex: bumped for each task and to stop */
	unsigned part;            /* the task: part of job */
	struct pool_job *job;
	int pinned;               /* the CPU the thread is pinned to; -1: the
				     whole universe; -2: as it was created */
	pthread_t thread;
} __attribute__((aligned(64)));

static struct worker workers[NTM_POOL_MAX_WORKERS];

static struct {
	int busy;                 /* 1 while a caller holds the pool */
	int state;                /* enum pool_state */
	int stopping;             /* workers: leave at the next wake-up */
	pid_t pid;                /* the process that started the pool */
	unsigned nworkers;
	cpu_set_t universe;       /* every CPU the workers may use */
	struct topology topo;
	const struct topology *fake;
	struct pool_stats stats;
	unsigned known_cpus, known_nodes;  /* for ntm_pool_universe */
	uint32_t pending __attribute__((aligned(64))); /* futex: parts not
							   done yet */
} pool;

int (*ntm_pool_thread_create)(pthread_t *, const pthread_attr_t *,
			      void *(*)(void *), void *) = pthread_create;

static void cpu_relax(void)
{
#if defined(__x86_64__) || defined(__i386__)
	__builtin_ia32_pause();
#elif defined(__aarch64__)
	__asm__ volatile("yield" ::: "memory");
#endif
}

static void futex_wait(uint32_t *word, uint32_t seen)
{
	syscall(SYS_futex, word, FUTEX_WAIT_PRIVATE, seen, NULL, NULL, 0);
}

static void futex_wake(uint32_t *word, int count)
{
	syscall(SYS_futex, word, FUTEX_WAKE_PRIVATE, count, NULL, NULL, 0);
}

/* Wait until *word is no longer seen; returns its new value. */
static uint32_t wait_change(uint32_t *word, uint32_t seen)
{
	uint32_t v;
	for (int i = 0; i < SPINS; i++) {
		if ((v = __atomic_load_n(word, __ATOMIC_ACQUIRE)) != seen)
			return v;
		cpu_relax();
	}
	while ((v = __atomic_load_n(word, __ATOMIC_ACQUIRE)) == seen)
		futex_wait(word, seen);
	return v;
}

/* Pin the calling worker to cpu (-1: anywhere in the universe). */
static void pin(struct worker *w, int cpu)
{
	if (cpu == w->pinned)
		return;
	cpu_set_t set;
	if (cpu >= 0) {
		CPU_ZERO(&set);
		CPU_SET(cpu, &set);
	} else {
		set = pool.universe;
	}
	sched_setaffinity(0, sizeof set, &set);  /* a refusal costs speed only */
	w->pinned = cpu;
}

static void *worker_main(void *arg)
{
	struct worker *w = arg;
	uint32_t seen = 0;
	for (;;) {
		seen = wait_change(&w->seq, seen);
		if (__atomic_load_n(&pool.stopping, __ATOMIC_ACQUIRE))
			return NULL;
		struct pool_job *job = w->job;
		unsigned k = w->part;
		pin(w, job->cpu[k]);
		job->result[k] = job->run(job, k);
		ntm_fence();  /* the streaming stores, before the release */
		/* After this the job may be gone: touch nothing of it. */
		if (__atomic_sub_fetch(&pool.pending, 1, __ATOMIC_ACQ_REL) == 0)
			futex_wake(&pool.pending, 1);
	}
}

static void after_fork_in_child(void)
{
	/* The child has only the thread that forked: no workers, and no
	 * job in flight, whatever the parent was doing. */
	memset(workers, 0, sizeof workers);
	pool.busy = 0;
	pool.state = POOL_NEVER_STARTED;
	pool.stopping = 0;
	pool.pid = 0;
	pool.nworkers = 0;
	pool.pending = 0;
}

static void start(void)
{
	static int atfork_registered;
	if (!atfork_registered && !pthread_atfork(NULL, NULL, after_fork_in_child))
		atfork_registered = 1;
	__atomic_store_n(&pool.pid, getpid(), __ATOMIC_RELEASE);
	pool.state = POOL_RUNNING;
	if (sched_getaffinity(0, sizeof pool.universe, &pool.universe))
		CPU_ZERO(&pool.universe);
}

/* The process's affinity mask as the library was loaded: what "taskset"
 * gave it, before the program pinned any thread (as "ntmem bench" pins
 * itself to one CPU, and then asks for two threads). */
static cpu_set_t process_cpus;

__attribute__((constructor)) static void remember_process_cpus(void)
{
	int saved = errno;
	if (sched_getaffinity(0, sizeof process_cpus, &process_cpus))
		memset(&process_cpus, 0xff, sizeof process_cpus);
	errno = saved;
}

/* The first worker learns the universe: the kernel trims the mask it is
 * given to what the process's cpuset allows now, whatever the creating
 * thread was pinned to.  Then the nodes. */
static void learn_universe(pthread_t thread)
{
	cpu_set_t all;
	memset(&all, 0xff, sizeof all);
	if (!pthread_setaffinity_np(thread, sizeof process_cpus, &process_cpus) ||
	    !pthread_setaffinity_np(thread, sizeof all, &all))
		pthread_getaffinity_np(thread, sizeof pool.universe, &pool.universe);
	if (pool.fake)
		pool.topo = *pool.fake;
	else
		ntm_topology_discover(&pool.topo, &pool.universe);
	__atomic_store_n(&pool.known_cpus, (unsigned)CPU_COUNT(&pool.universe),
			 __ATOMIC_RELAXED);
	__atomic_store_n(&pool.known_nodes, pool.topo.nnodes, __ATOMIC_RELAXED);
}

/* Create workers until there are want, or one cannot be created. */
static void grow(unsigned want)
{
	sigset_t all, old;
	sigfillset(&all);
	/* Faults in a worker must reach their handlers (populate's guard). */
	sigdelset(&all, SIGSEGV);
	sigdelset(&all, SIGBUS);
	sigdelset(&all, SIGILL);
	sigdelset(&all, SIGFPE);
	while (pool.nworkers < want) {
		struct worker *w = &workers[pool.nworkers];
		memset(w, 0, sizeof *w);
		w->pinned = -2;
		pthread_sigmask(SIG_SETMASK, &all, &old);
		int e = ntm_pool_thread_create(&w->thread, NULL, worker_main, w);
		pthread_sigmask(SIG_SETMASK, &old, NULL);
		if (e) {
			__atomic_add_fetch(&pool.stats.create_failed, 1, __ATOMIC_RELAXED);
			return;
		}
		if (pool.nworkers == 0)
			learn_universe(w->thread);
		if (!pthread_setaffinity_np(w->thread, sizeof pool.universe,
					    &pool.universe))
			w->pinned = -1;
		__atomic_store_n(&pool.nworkers, pool.nworkers + 1, __ATOMIC_RELEASE);
	}
}

void ntm_pool_release(void)
{
	__atomic_store_n(&pool.busy, 0, __ATOMIC_RELEASE);
}

unsigned ntm_pool_acquire(unsigned want)
{
	if (want == 0)
		return 0;
	if (want > NTM_POOL_MAX_WORKERS)
		want = NTM_POOL_MAX_WORKERS;
	int saved = errno;
	/* A child made without the atfork handlers shares nothing with the
	 * parent's threads, or (vfork) shares everything: hands off. */
	pid_t owner = __atomic_load_n(&pool.pid, __ATOMIC_ACQUIRE);
	if (owner && owner != getpid())
		return 0;
	if (__atomic_exchange_n(&pool.busy, 1, __ATOMIC_ACQUIRE)) {
		__atomic_add_fetch(&pool.stats.busy, 1, __ATOMIC_RELAXED);
		return 0;
	}
	if (pool.state == POOL_NEVER_STARTED)
		start();
	if (pool.state == POOL_RUNNING)
		grow(want);
	errno = saved;
	unsigned have = pool.state == POOL_RUNNING ? pool.nworkers : 0;
	if (have == 0) {
		ntm_pool_release();
		return 0;
	}
	return have < want ? have : want;
}

const struct topology *ntm_pool_topology(void)
{
	return &pool.topo;
}

/* The worker for each part: the one already pinned where the part runs,
 * if free, so a steady stream of calls pins nothing; else the next free. */
static void choose_workers(const struct pool_job *job, unsigned *slot)
{
	unsigned char taken[NTM_POOL_MAX_WORKERS] = {0};
	unsigned n = pool.nworkers;
	for (unsigned k = 1; k < job->nparts; k++) {
		slot[k] = n;
		for (unsigned i = 0; i < n && slot[k] == n; i++)
			if (!taken[i] && workers[i].pinned == job->cpu[k])
				slot[k] = i;
		if (slot[k] < n)
			taken[slot[k]] = 1;
	}
	for (unsigned k = 1, i = 0; k < job->nparts; k++) {
		if (slot[k] < n)
			continue;
		while (taken[i])
			i++;
		slot[k] = i;
		taken[i] = 1;
	}
}

void ntm_pool_run(struct pool_job *job)
{
	int saved = errno;
	unsigned slot[NTM_MAX_PARTS];
	if (job->nparts > pool.nworkers + 1)
		job->nparts = pool.nworkers + 1;  /* a caller's mistake: stay safe */
	choose_workers(job, slot);
	__atomic_store_n(&pool.pending, job->nparts - 1, __ATOMIC_RELAXED);
	for (unsigned k = 1; k < job->nparts; k++) {
		struct worker *w = &workers[slot[k]];
		w->job = job;
		w->part = k;
		__atomic_add_fetch(&w->seq, 1, __ATOMIC_RELEASE);
		futex_wake(&w->seq, 1);
	}
	job->result[0] = job->run(job, 0);
	uint32_t left;
	for (int i = 0; (left = __atomic_load_n(&pool.pending, __ATOMIC_ACQUIRE));)
		if (i++ < SPINS)
			cpu_relax();
		else
			futex_wait(&pool.pending, left);
	if (job->nparts > 1)
		__atomic_add_fetch(&pool.stats.jobs, 1, __ATOMIC_RELAXED);
	ntm_pool_release();
	errno = saved;
}

unsigned ntm_process_cpus(int *cpus, unsigned max)
{
	unsigned n = 0;
	for (int c = 0; c < CPU_SETSIZE && n < max; c++)
		if (CPU_ISSET(c, &process_cpus))
			cpus[n++] = c;
	return n;
}

void ntm_pool_universe(unsigned *cpus, unsigned *nodes)
{
	*cpus = __atomic_load_n(&pool.known_cpus, __ATOMIC_RELAXED);
	*nodes = __atomic_load_n(&pool.known_nodes, __ATOMIC_RELAXED);
	if (*cpus == 0)  /* not started: what it will start from */
		*cpus = (unsigned)CPU_COUNT(&process_cpus);
}

void ntm_pool_stats(struct pool_stats *s)
{
	s->workers = __atomic_load_n(&pool.nworkers, __ATOMIC_RELAXED);
	s->create_failed = __atomic_load_n(&pool.stats.create_failed, __ATOMIC_RELAXED);
	s->jobs = __atomic_load_n(&pool.stats.jobs, __ATOMIC_RELAXED);
	s->busy = __atomic_load_n(&pool.stats.busy, __ATOMIC_RELAXED);
}

/* Stop and join every worker, leaving the pool in state next.  Returns
 * -1 if another caller holds the pool (then only a shutdown marks it, so
 * that later calls work alone). */
static int stop(enum pool_state next)
{
	pid_t owner = __atomic_load_n(&pool.pid, __ATOMIC_ACQUIRE);
	if (owner && owner != getpid())
		return -1;
	if (__atomic_exchange_n(&pool.busy, 1, __ATOMIC_ACQUIRE)) {
		if (next == POOL_DEAD)
			__atomic_store_n(&pool.state, POOL_DEAD, __ATOMIC_RELEASE);
		return -1;
	}
	int saved = errno;
	__atomic_store_n(&pool.stopping, 1, __ATOMIC_RELEASE);
	for (unsigned i = 0; i < pool.nworkers; i++) {
		__atomic_add_fetch(&workers[i].seq, 1, __ATOMIC_RELEASE);
		futex_wake(&workers[i].seq, 1);
	}
	for (unsigned i = 0; i < pool.nworkers; i++)
		pthread_join(workers[i].thread, NULL);
	__atomic_store_n(&pool.nworkers, 0, __ATOMIC_RELEASE);
	pool.stopping = 0;
	pool.state = next;
	if (next == POOL_NEVER_STARTED)
		__atomic_store_n(&pool.pid, 0, __ATOMIC_RELEASE);
	errno = saved;
	ntm_pool_release();
	return 0;
}

int ntm_pool_restart(void)
{
	return stop(POOL_NEVER_STARTED);
}

void ntm_pool_fake_topology(const struct topology *t)
{
	pool.fake = t;
}

/* At exit and at dlclose: no worker may outlive the code it runs. */
__attribute__((destructor)) static void stop_at_exit(void)
{
	stop(POOL_DEAD);
}
