/* pollution_concurrent.c - "ntmem pollution" mode concurrent: the victim
 * chases on a CPU of its own; its rate in a window while the aggressor
 * runs, against its rate in a window alone.  One instance of the modes'
 * skeleton (pollution_modes.h). */
#define _GNU_SOURCE
#include <errno.h>
#include <math.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "pollution_modes.h"

#define WINDOW_NS 20000000ull  /* the shortest window */

struct victim_thread {
	_Alignas(64) _Atomic uint64_t steps;
	_Alignas(64) _Atomic int stop;
	_Atomic int ready;
	void *start;
	size_t lines;
	int cpu;
	int want_counters;
	int pin_errno;
	struct perfcount pc;
	pthread_t id;
};

static void *victim_main(void *arg)
{
	struct victim_thread *v = arg;
	if (pin_to_cpu(v->cpu)) {
		v->pin_errno = errno;
		atomic_store(&v->ready, -1);
		return NULL;
	}
	if (v->want_counters)
		perfcount_open(&v->pc);
	void *p = chase_run(v->start, 3 * v->lines);  /* warm */
	atomic_store(&v->ready, 1);
	uint64_t n = 0;
	while (!atomic_load_explicit(&v->stop, memory_order_relaxed)) {
		p = chase_run(p, 256);
		n += 256;
		atomic_store_explicit(&v->steps, n, memory_order_relaxed);
	}
	pol_sink = (uintptr_t)p;
	return NULL;
}

static void sleep_ns(uint64_t ns)
{
	struct timespec ts = {(time_t)(ns / 1000000000u), (long)(ns % 1000000000u)};
	while (nanosleep(&ts, &ts) && errno == EINTR)
		;
}

static int concurrent_start(struct mode_run *m, struct cli_error *e)
{
	const struct popts *o = m->c->o;
	struct victim_thread *v = aligned_alloc(64, (sizeof *v + 63) / 64 * 64);
	if (!v)
		return cli_error(e, CLI_FAILED, "out of memory");
	memset(v, 0, sizeof *v);
	v->start = m->c->victim.p;
	v->lines = m->vsize / CHASE_LINE;
	v->cpu = o->victim_cpu;
	v->want_counters = m->c->pc.available;
	v->pc.fd = v->pc.fd_refs = -1;
	chase_build(m->c->victim.p, v->lines, POL_SEED ^ m->vsize);
	int err = pthread_create(&v->id, NULL, victim_main, v);
	if (err) {
		free(v);
		return cli_error(e, CLI_FAILED, "cannot start the victim thread: %s",
				 strerror(err));
	}
	while (!atomic_load(&v->ready))
		sleep_ns(100000);
	if (atomic_load(&v->ready) < 0) {
		pthread_join(v->id, NULL);
		err = v->pin_errno;
		free(v);
		char allowed[256];
		return cli_error(e, CLI_USAGE, "--victim-cpu: cannot run on CPU %d: "
				 "%s (this process may use %s)", o->victim_cpu,
				 strerror(err), allowed_cpus_text(allowed, sizeof allowed));
	}
	sleep_ns(5000000);
	m->thread = v;
	m->lines = v->lines;
	m->counted = v->pc.available;
	return 0;
}

static void concurrent_stop(struct mode_run *m)
{
	struct victim_thread *v = m->thread;
	atomic_store(&v->stop, 1);
	pthread_join(v->id, NULL);
	perfcount_close(&v->pc);
	free(v);
	m->thread = NULL;
}

/* The victim's steps and the time, and its counters, at one moment. */
struct mark {
	uint64_t steps, ns;
	struct perf_values pv;
};

static void mark(const struct victim_thread *v, struct mark *k)
{
	perfcount_read(&v->pc, &k->pv);
	k->steps = atomic_load_explicit(&v->steps, memory_order_relaxed);
	k->ns = ntm_now_ns();
}

/* ns per access between two marks, and the counts per pass of lines. */
static double per_access(const struct mark *a, const struct mark *b,
			 size_t lines, int counted, double *misses, double *refs)
{
	if (b->steps <= a->steps)
		return NAN;
	double steps = (double)(b->steps - a->steps);
	if (counted) {
		double m = 0, f = 0;
		pol_count(&a->pv, &b->pv, &m, &f);
		*misses += m * (double)lines / steps;
		*refs += f * (double)lines / steps;
	}
	return (double)(b->ns - a->ns) / steps;
}

static void concurrent_sample(struct mode_run *m, size_t k, long r)
{
	struct victim_thread *v = m->thread;
	struct samples *s = &m->s[k];
	struct mark a, b, c, d;
	/* Alone: the aggressor's CPU idles. */
	mark(v, &a);
	sleep_ns(WINDOW_NS);
	mark(v, &b);
	/* During: the aggressor runs, at least one call, for at least as
	 * long as the window alone. */
	mark(v, &c);
	uint64_t calls = 0;
	do {
		pol_aggress(m->c, m->fn[k]);
		calls++;
	} while (ntm_now_ns() - c.ns < WINDOW_NS);
	mark(v, &d);
	/* Counts only from runs where both windows saw the victim move. */
	int counted = m->counted && b.steps > a.steps && d.steps > c.steps;
	s->base[r] = per_access(&a, &b, m->lines, counted, &s->miss_base,
				&s->ref_base);
	s->with[r] = per_access(&c, &d, m->lines, counted, &s->miss_with,
				&s->ref_with);
	s->gbps[r] = pol_gbps(m->c->o->size * calls, (double)(d.ns - c.ns));
}

const struct mode_def pol_concurrent = {
	.mode = MODE_CONCURRENT, .start = concurrent_start,
	.stop = concurrent_stop, .sample = concurrent_sample,
};
