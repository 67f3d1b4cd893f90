/* test_parallel.c - NTMEM_F_PARALLEL: results equal memset's and
 * memcpy's at odd sizes and offsets and with more threads than lines;
 * every part uses the variant picked for the whole extent; a thread that
 * cannot be created leaves the call to fewer threads; fork while the
 * pool is busy, concurrent callers and a signal handler re-entering a
 * parallel call neither deadlock nor corrupt; dlclose joins the workers.
 *
 * The policy is fixed for the test: the C library below 1 MiB, a
 * streaming variant from there (so the variant used is visible: calls of
 * ntm_libc.memset are counted). */
#define _GNU_SOURCE
#include <dirent.h>
#include <dlfcn.h>
#include <errno.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/wait.h>
#include <unistd.h>

#include "harness.h"
#include "variants/libc.h"
#include "ntmem.h"
#include "parallel/pool.h"
#include "util/size.h"

#define CANARY 64

static struct guarded buf, ref, src;

static unsigned long long jobs_so_far(void)
{
	struct pool_stats s;
	ntm_pool_stats(&s);
	return s.jobs;
}

/* One parallel set or copy of n bytes at offset off against libc's, with
 * canaries around.  Returns 1 if equal. */
static int one_call(int copy, size_t n, size_t off, int c,
		    const struct ntmem_opts *o, char *why, size_t len)
{
	size_t span = n + 2 * CANARY + 64;
	t_fill_pattern(buf.data, span, (unsigned)n);
	memcpy(ref.data, buf.data, span);
	unsigned char *d = buf.data + CANARY + off, *r = ref.data + CANARY + off;
	void *ret;
	if (copy) {
		t_fill_pattern(src.data, n + off, (unsigned)c);
		ret = ntmem_copy_opts(d, src.data + off, n, o);
		memcpy(r, src.data + off, n);
	} else {
		ret = ntmem_set_opts(d, c, n, o);
		memset(r, c, n);
	}
	if (ret != d || memcmp(buf.data, ref.data, span)) {
		snprintf(why, len, "%s n=%zu off=%zu c=%#x flags=%#x threads=%u: %s",
			 copy ? "copy" : "set", n, off, c, o->flags, o->threads,
			 ret != d ? "wrong return" : "bytes differ from libc's");
		return 0;
	}
	return 1;
}

static void test_results(int copy)
{
	static const size_t sizes[] = {1, 63, 64, 65, 127, 129, 4095, 4097,
				       65536 + 17, MiB + 5, 3 * MiB + 77};
	static const size_t offs[] = {0, 1, 13, 63};
	static const unsigned threads[] = {2, 3, 8};
	static const unsigned flags[] = {0, NTMEM_F_TEMPORAL, NTMEM_F_NONTEMPORAL,
					 NTMEM_F_NOFENCE};
	size_t nsizes = sizeof sizes / sizeof sizes[0] - (t_quick() ? 1 : 0);
	unsigned long long jobs = jobs_so_far();
	char why[200] = "", name[96];
	int ok = 1;
	for (size_t s = 0; ok && s < nsizes; s++)
		for (size_t o = 0; ok && o < 4; o++)
			for (size_t t = 0; ok && t < 3; t++)
				for (size_t f = 0; ok && f < 4; f++) {
					struct ntmem_opts opt = {
						.flags = flags[f] | NTMEM_F_PARALLEL,
						.threads = threads[t], .min_chunk = 1};
					ok = one_call(copy, sizes[s], offs[o], 0, &opt, why, sizeof why) &&
					     one_call(copy, sizes[s], offs[o], 0xa7, &opt, why, sizeof why);
				}
	snprintf(name, sizeof name, "parallel %s equals %s: odd sizes, offsets, 2-8 threads",
		 copy ? "copy" : "set", copy ? "memcpy" : "memset");
	t_check(ok && jobs_so_far() > jobs, name, "%s", ok ? "no call ran in parallel" : why);
}

static void test_more_threads_than_lines(void)
{
	char why[200] = "";
	unsigned long long jobs = jobs_so_far();
	struct ntmem_opts o = {.flags = NTMEM_F_PARALLEL, .threads = 64, .min_chunk = 1};
	int ok = one_call(0, 3 * 64, 0, 0x5c, &o, why, sizeof why) &&
		 one_call(0, 3 * 64 - 7, 7, 0x5c, &o, why, sizeof why) &&
		 one_call(1, 2 * 64 + 1, 3, 0x11, &o, why, sizeof why);
	t_check(ok && jobs_so_far() > jobs, "parallel: 64 threads over 3 lines",
		"%s", ok ? "did not split" : why);
}

/* Without opts: the thread count of the affinity mask, 4 MiB chunks. */
static void test_default_threads(void)
{
	cpu_set_t set;
	sched_getaffinity(0, sizeof set, &set);
	size_t n = 9 * MiB + 3;
	unsigned long long jobs = jobs_so_far();
	unsigned char *d = buf.data + 5;
	t_fill_pattern(buf.data, n + 64, 3);
	memcpy(ref.data, buf.data, n + 64);
	void *ret = ntmem_set_flags(d, 0x3c, n, NTMEM_F_PARALLEL);
	memset(ref.data + 5, 0x3c, n);
	int same = ret == d && !memcmp(buf.data, ref.data, n + 64);
	if (CPU_COUNT(&set) < 2) {
		t_check(same, "parallel: default thread count (1 CPU: alone)", "differs");
		t_skip("parallel: the default splits over the affinity mask",
		       "only one CPU in this thread's affinity mask");
		return;
	}
	t_check(same && jobs_so_far() > jobs,
		"parallel: ntmem_set_flags(PARALLEL) splits over the affinity mask",
		"%s", same ? "did not split" : "bytes differ");
}

static void test_bad_arguments(void)
{
	memset(buf.data, 0x77, 4096);
	int ok = 1;
	errno = 0;
	ok &= !ntmem_set_flags(buf.data, 1, 4096, NTMEM_F_PARALLEL | NTMEM_F_TEMPORAL |
						       NTMEM_F_NONTEMPORAL) && errno == EINVAL;
	errno = 0;
	struct ntmem_opts o = {.flags = 0x40 | NTMEM_F_PARALLEL};
	ok &= !ntmem_set_opts(buf.data, 1, 4096, &o) && errno == EINVAL;
	errno = 0;
	ok &= !ntmem_copy_opts(buf.data, src.data, 4096, &o) && errno == EINVAL;
	for (size_t i = 0; i < 4096; i++)
		ok &= buf.data[i] == 0x77;
	errno = 555;
	struct ntmem_opts good = {.flags = NTMEM_F_PARALLEL, .threads = 2, .min_chunk = 1};
	ok &= ntmem_set_opts(buf.data, 2, 4096, &good) == buf.data && errno == 555;
	ok &= ntmem_set_opts(NULL, 2, 0, &good) == NULL && errno == 555;
	ok &= ntmem_set_opts(buf.data, 2, 10, NULL) == buf.data && buf.data[9] == 2;
	t_check(ok, "parallel: bad flags EINVAL writing nothing; errno kept on success",
		"failed");
}

static void test_overlap(void)
{
	struct ntmem_opts o = {.flags = NTMEM_F_PARALLEL, .threads = 4, .min_chunk = 1};
	size_t n = 256 * KiB;
	int ok = 1;
	for (int dir = 0; dir < 2; dir++) {
		t_fill_pattern(buf.data, n + 4096, 9);
		memcpy(ref.data, buf.data, n + 4096);
		unsigned char *d = buf.data + (dir ? 1000 : 0), *s = buf.data + (dir ? 0 : 1000);
		ntmem_copy_opts(d, s, n, &o);
		memmove(ref.data + (dir ? 1000 : 0), ref.data + (dir ? 0 : 1000), n);
		ok &= !memcmp(buf.data, ref.data, n + 4096);
	}
	t_check(ok, "parallel: overlapping copies give memmove's result", "differ");
}

/* ---- the variant is the whole extent's ---- */

static int libc_calls;
static void *(*real_memset)(void *, int, size_t);
static void *(*real_memcpy)(void *, const void *, size_t);

static void *counting_memset(void *d, int c, size_t n)
{
	__atomic_add_fetch(&libc_calls, 1, __ATOMIC_RELAXED);
	return real_memset(d, c, n);
}

static void *counting_memcpy(void *d, const void *s, size_t n)
{
	__atomic_add_fetch(&libc_calls, 1, __ATOMIC_RELAXED);
	return real_memcpy(d, s, n);
}

static void test_whole_extent_variant(void)
{
	real_memset = ntm_libc.memset;
	real_memcpy = ntm_libc.memcpy;
	ntm_libc.memset = counting_memset;
	ntm_libc.memcpy = counting_memcpy;
	/* 1.5 MiB streams (at or above 1 MiB); its 768 KiB halves alone
	 * would not. */
	struct ntmem_opts o = {.flags = NTMEM_F_PARALLEL, .threads = 2,
			       .min_chunk = 64 * KiB};
	char why[200] = "";
	unsigned long long jobs = jobs_so_far();
	libc_calls = 0;
	int ok = one_call(0, 3 * MiB / 2, 0, 0x21, &o, why, sizeof why) &&
		 one_call(1, 3 * MiB / 2, 0, 0x21, &o, why, sizeof why);
	int big = libc_calls, split = jobs_so_far() >= jobs + 2;
	libc_calls = 0;
	ok = ok && one_call(0, 768 * KiB, 0, 0x21, &o, why, sizeof why) &&
	     one_call(1, 768 * KiB, 0, 0x21, &o, why, sizeof why);
	int small = libc_calls;
	ntm_libc.memset = real_memset;
	ntm_libc.memcpy = real_memcpy;
	t_check(ok && split && big == 0 && small == 4,
		"parallel: every part uses the variant of the whole extent's size",
		"%s; split %d, libc calls at 1.5 MiB %d (want 0), at 768 KiB %d (want 4)",
		why, split, big, small);
}

/* ---- threads that cannot be created ---- */

static int creates_allowed;

static int limited_create(pthread_t *t, const pthread_attr_t *a,
			  void *(*start)(void *), void *arg)
{
	if (creates_allowed-- > 0)
		return pthread_create(t, a, start, arg);
	return EAGAIN;
}

static void test_create_failure(void)
{
	struct ntmem_opts o = {.flags = NTMEM_F_PARALLEL, .threads = 4,
			       .min_chunk = 4 * KiB};
	char why[200] = "";
	struct pool_stats before, after;
	ntm_pool_restart();
	ntm_pool_thread_create = limited_create;
	creates_allowed = 0;
	ntm_pool_stats(&before);
	int ok = one_call(0, MiB + 3, 1, 0x42, &o, why, sizeof why);
	ntm_pool_stats(&after);
	t_check(ok && after.workers == 0 && after.create_failed > before.create_failed &&
			after.jobs == before.jobs,
		"parallel: no thread can be created: the caller does it all",
		"%s workers %u, failures %llu -> %llu", why, after.workers,
		before.create_failed, after.create_failed);

	ntm_pool_restart();
	creates_allowed = 1;
	ntm_pool_stats(&before);
	ok = one_call(1, MiB + 3, 1, 0x42, &o, why, sizeof why);
	ntm_pool_stats(&after);
	t_check(ok && after.workers == 1 && after.jobs == before.jobs + 1,
		"parallel: one of three threads created: two threads do it",
		"%s workers %u, jobs %llu -> %llu", why, after.workers, before.jobs,
		after.jobs);
	ntm_pool_thread_create = pthread_create;
	ntm_pool_restart();
}

/* ---- fork while busy ---- */

static int stop_busy;
static unsigned char *busy_buf;

static void *keep_busy(void *arg)
{
	(void)arg;
	struct ntmem_opts o = {.flags = NTMEM_F_PARALLEL, .threads = 2,
			       .min_chunk = 64 * KiB};
	for (int i = 0; !__atomic_load_n(&stop_busy, __ATOMIC_RELAXED); i++)
		ntmem_set_opts(busy_buf, i, 4 * MiB, &o);
	return NULL;
}

/* In the child: a fresh pool, and parallel calls that work. */
static int child_works(void)
{
	alarm(30);  /* a deadlock ends as a failure, not a hang */
	struct pool_stats s0, s1;
	ntm_pool_stats(&s0);
	size_t n = 2 * MiB + 9;
	unsigned char *p = mmap(NULL, n, PROT_READ | PROT_WRITE,
				MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (p == MAP_FAILED)
		return 1;
	struct ntmem_opts o = {.flags = NTMEM_F_PARALLEL, .threads = 2,
			       .min_chunk = 64 * KiB};
	for (int round = 0; round < 3; round++) {
		ntmem_set_opts(p, 0x60 + round, n, &o);
		for (size_t i = 0; i < n; i++)
			if (p[i] != 0x60 + round)
				return 2;
	}
	ntm_pool_stats(&s1);
	return s0.workers == 0 && s1.workers >= 1 && s1.jobs >= s0.jobs + 3 ? 0 : 3;
}

static void test_fork_while_busy(void)
{
	const char *why_not = t_fork_with_threads_unsupported();
	if (why_not) {
		t_skip("parallel: fork while the pool is busy", why_not);
		return;
	}
	busy_buf = mmap(NULL, 4 * MiB, PROT_READ | PROT_WRITE,
			MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	pthread_t t;
	stop_busy = 0;
	pthread_create(&t, NULL, keep_busy, NULL);
	usleep(20000);
	int ok = 1, status = 0;
	for (int i = 0; ok && i < 5; i++) {
		pid_t pid = fork();
		if (pid == 0)
			_exit(child_works());
		ok = pid > 0 && waitpid(pid, &status, 0) == pid && WIFEXITED(status) &&
		     WEXITSTATUS(status) == 0;
		usleep(3000);
	}
	__atomic_store_n(&stop_busy, 1, __ATOMIC_RELAXED);
	pthread_join(t, NULL);
	munmap(busy_buf, 4 * MiB);
	t_check(ok, "parallel: fork while the pool is busy: the child gets a fresh pool",
		"child status %#x (exit 1 map, 2 bytes, 3 pool not fresh or unused)", status);
}

/* ---- concurrent callers ---- */

struct caller {
	pthread_t thread;
	int index;
	int bad;
};

static void *call_repeatedly(void *arg)
{
	struct caller *c = arg;
	size_t n = MiB + 100;
	unsigned char *d = malloc(n), *s = malloc(n);
	struct ntmem_opts o = {.flags = NTMEM_F_PARALLEL, .threads = 2,
			       .min_chunk = 64 * KiB};
	for (int i = 0; d && s && i < 30; i++) {
		unsigned char v = (unsigned char)(c->index * 31 + i);
		if (i % 2) {
			memset(s, v, n);
			ntmem_copy_opts(d, s, n, &o);
		} else {
			ntmem_set_opts(d, v, n, &o);
		}
		for (size_t k = 0; k < n; k += 997)
			c->bad += d[k] != v;
		c->bad += d[n - 1] != v;
	}
	c->bad += !d || !s;
	free(d);
	free(s);
	return NULL;
}

static void test_concurrent_callers(void)
{
	struct caller callers[4];
	struct pool_stats before, after;
	ntm_pool_stats(&before);
	for (int i = 0; i < 4; i++) {
		callers[i] = (struct caller){.index = i};
		pthread_create(&callers[i].thread, NULL, call_repeatedly, &callers[i]);
	}
	int bad = 0;
	for (int i = 0; i < 4; i++) {
		pthread_join(callers[i].thread, NULL);
		bad += callers[i].bad;
	}
	ntm_pool_stats(&after);
	printf("note  concurrent callers: %llu calls split, %llu found the pool busy\n",
	       after.jobs - before.jobs, after.busy - before.busy);
	t_check(bad == 0 && after.jobs > before.jobs,
		"parallel: 4 threads calling at once: right bytes, no deadlock",
		"%d wrong bytes, %llu calls split", bad, after.jobs - before.jobs);
}

/* ---- a signal handler re-entering a parallel call ---- */

static unsigned char sig_buf[256 * 1024];
static int sig_calls, sig_bad;

static void on_signal(int sig)
{
	(void)sig;
	int saved = errno;
	unsigned char v = (unsigned char)(sig_calls + 1);
	struct ntmem_opts o = {.flags = NTMEM_F_PARALLEL, .threads = 2,
			       .min_chunk = 16 * KiB};
	ntmem_set_opts(sig_buf, v, sizeof sig_buf, &o);
	for (size_t i = 0; i < sizeof sig_buf; i += 61)
		sig_bad += sig_buf[i] != v;
	sig_calls++;
	errno = saved;
}

static int kicks_done;

static void *kick(void *arg)
{
	pthread_t target = *(pthread_t *)arg;
	for (int i = 0; i < 200; i++) {
		pthread_kill(target, SIGUSR1);
		usleep(200);
	}
	__atomic_store_n(&kicks_done, 1, __ATOMIC_RELEASE);
	return NULL;
}

static void test_signal_reentry(void)
{
	struct sigaction sa = {.sa_handler = on_signal}, old;
	sigemptyset(&sa.sa_mask);
	sigaction(SIGUSR1, &sa, &old);
	pthread_t self = pthread_self(), t;
	pthread_create(&t, NULL, kick, &self);
	struct ntmem_opts o = {.flags = NTMEM_F_PARALLEL, .threads = 2,
			       .min_chunk = 64 * KiB};
	int bad = 0;
	for (int i = 0; !__atomic_load_n(&kicks_done, __ATOMIC_ACQUIRE); i++) {
		ntmem_set_opts(buf.data, i, MiB, &o);
		for (size_t k = 0; k < MiB; k += 4093)
			bad += buf.data[k] != (unsigned char)i;
	}
	pthread_join(t, NULL);
	sigaction(SIGUSR1, &old, NULL);
	t_check(bad == 0 && sig_bad == 0 && sig_calls > 0,
		"parallel: a handler's parallel call inside a parallel call: no deadlock",
		"%d wrong bytes outside, %d inside, %d handler calls", bad, sig_bad,
		sig_calls);
}

/* ---- dlclose ---- */

static int count_threads(void)
{
	DIR *d = opendir("/proc/self/task");
	int n = 0;
	for (struct dirent *e; d && (e = readdir(d));)
		n += e->d_name[0] != '.';
	if (d)
		closedir(d);
	return n;
}

static int mapped(const char *name)
{
	FILE *f = fopen("/proc/self/maps", "r");
	char line[512];
	int found = 0;
	while (f && fgets(line, sizeof line, f))
		found |= strstr(line, name) != NULL;
	if (f)
		fclose(f);
	return found;
}

static void test_dlclose(void)
{
	char path[1024];
	snprintf(path, sizeof path, "%s", t_ntmem());
	char *slash = strrchr(path, '/');
	snprintf(slash ? slash + 1 : path, sizeof path - (size_t)(slash ? slash + 1 - path : 0),
		 "libntmem.so");
	void *h = dlopen(path, RTLD_NOW | RTLD_LOCAL);
	if (!h) {
		t_skip("parallel: dlclose joins the workers", dlerror());
		return;
	}
	void *(*set_opts)(void *, int, size_t, const struct ntmem_opts *) =
		(void *(*)(void *, int, size_t, const struct ntmem_opts *))dlsym(h, "ntmem_set_opts");
	int before = count_threads();
	struct ntmem_opts o = {.flags = NTMEM_F_PARALLEL, .threads = 3,
			       .min_chunk = 64 * KiB};
	int ok = set_opts && set_opts(buf.data, 0x19, MiB, &o) == buf.data &&
		 buf.data[MiB - 1] == 0x19 && buf.data[0] == 0x19;
	int during = count_threads();
	dlclose(h);
	int after = count_threads();
	if (mapped("libntmem.so")) {
		t_skip("parallel: dlclose joins the workers", "dlclose left the library mapped");
		return;
	}
	if (ok && during == before && getenv("NTMEM_EMULATED")) {
		t_skip("parallel: dlclose joins the workers", "/proc/self/task does "
		       "not show the workers here: under qemu-user it lists the "
		       "emulator's own threads");
		return;
	}
	t_check(ok && during == before + 2 && after == before,
		"parallel: dlclose joins the workers",
		"threads %d, %d with the library's pool, %d after dlclose", before, during,
		after);
}

int main(int argc, char **argv)
{
	(void)argc;
	if (t_reexec_streaming_above(argv, "1MiB")) {
		t_skip("parallel", "no streaming variant runs here");
		return t_finish();
	}

	if (t_guarded_alloc(&buf, 10 * MiB) || t_guarded_alloc(&ref, 10 * MiB) ||
	    t_guarded_alloc(&src, 10 * MiB)) {
		t_fail("parallel: buffers", "cannot map 30 MiB");
		return t_finish();
	}
	test_results(0);
	test_results(1);
	test_more_threads_than_lines();
	test_default_threads();
	test_bad_arguments();
	test_overlap();
	test_whole_extent_variant();
	test_create_failure();
	test_fork_while_busy();
	test_concurrent_callers();
	test_signal_reentry();
	test_dlclose();
	return t_finish();
}
