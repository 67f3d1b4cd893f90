/* sandbox.h - a program that locks itself into a seccomp filter at the
 * start of main and then makes large memcpy and memset calls, as a
 * sandboxed server would: for test_sandbox, which runs it linked with
 * libntmem.a (SANDBOX_COPY and SANDBOX_SET are ntmem_copy and ntmem_set)
 * and as a plain program under the shim (memcpy and memset).
 *
 * The filter allows write, exit_group, futex, mmap, munmap, brk, madvise,
 * rt_sigreturn, clock_gettime and getcpu (the last two for hosts whose
 * vDSO falls back to them), and kills the process on any other system
 * call.  Two threads, pinned to two CPUs before the filter, make
 * SANDBOX_CALLS calls of each kind between them (fewer where the tests
 * are quick), 1 MiB to 64 MiB, each checked.  Exit status 0 and the line "sandbox: N calls exact"; a call
 * the filter refused kills the process (SIGSYS).
 *
 * The includer defines SANDBOX_COPY(d, s, n), SANDBOX_SET(d, c, n). */
#ifndef NTM_TEST_SANDBOX_H
#define NTM_TEST_SANDBOX_H

#define _GNU_SOURCE
#include <linux/audit.h>
#include <linux/filter.h>
#include <linux/futex.h>
#include <linux/seccomp.h>
#include <pthread.h>
#include <sched.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <sys/syscall.h>
#include <unistd.h>

#define SANDBOX_CALLS 3000
#define SANDBOX_MAX ((size_t)64 << 20)

#if defined(__x86_64__)
#define SANDBOX_ARCH AUDIT_ARCH_X86_64
#elif defined(__aarch64__)
#define SANDBOX_ARCH AUDIT_ARCH_AARCH64
#endif

#define ALLOW(nr) BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, (nr), 0, 1), \
		  BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_ALLOW)

/* The filter, on every thread of the process (TSYNC).  0, or -1. */
static int sandbox_lock(void)
{
#ifdef SANDBOX_ARCH
	struct sock_filter f[] = {
		BPF_STMT(BPF_LD | BPF_W | BPF_ABS, offsetof(struct seccomp_data, arch)),
		BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, SANDBOX_ARCH, 1, 0),
		BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_KILL_PROCESS),
		BPF_STMT(BPF_LD | BPF_W | BPF_ABS, offsetof(struct seccomp_data, nr)),
		ALLOW(SYS_write), ALLOW(SYS_exit_group), ALLOW(SYS_futex),
		ALLOW(SYS_mmap), ALLOW(SYS_munmap), ALLOW(SYS_brk), ALLOW(SYS_madvise),
		ALLOW(SYS_rt_sigreturn), ALLOW(SYS_clock_gettime), ALLOW(SYS_getcpu),
		BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_KILL_PROCESS),
	};
	struct sock_fprog prog = {sizeof f / sizeof f[0], f};
	if (prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0))
		return -1;
	return (int)syscall(SYS_seccomp, SECCOMP_SET_MODE_FILTER,
			    SECCOMP_FILTER_FLAG_TSYNC, &prog);
#else
	return -1;
#endif
}

struct sandbox_worker {
	int cpu;
	unsigned char *src, *dst;
	unsigned calls, wrong;
	int done;
};

/* Twice: once the threads have started (their start-up makes system
 * calls the filter refuses), then once the filter is in place. */
static pthread_barrier_t sandbox_start;
static int sandbox_done, sandbox_never;

static void sandbox_wait(int *word, int value)
{
	while (__atomic_load_n(word, __ATOMIC_ACQUIRE) == value)
		syscall(SYS_futex, word, FUTEX_WAIT_PRIVATE, value, NULL, NULL, 0);
}

/* Call k's size: mostly 1 MiB, up to 64 MiB (every 50th), less a few
 * bytes, so that every band from 1 MiB is reached and the whole takes a
 * second or two. */
static size_t sandbox_size(unsigned k)
{
	static const unsigned mib[] = {1, 1, 1, 1, 1, 1, 1, 2, 4, 16};
	size_t m = k % 50 == 49 ? 64 : mib[k % 10];
	return (m << 20) - 1 - k % 61;
}

static void *sandbox_work(void *arg)
{
	struct sandbox_worker *w = arg;
	pthread_barrier_wait(&sandbox_start);
	pthread_barrier_wait(&sandbox_start);
	for (unsigned k = 0; k < w->calls; k++) {
		size_t n = sandbox_size(k), off = 1 + k % 61;
		unsigned char c = (unsigned char)(k * 7 + 1);
		SANDBOX_SET(w->dst + off, c, n);
		w->wrong += w->dst[off] != c || w->dst[off + n - 1] != c ||
			    w->dst[off + n / 2] != c;
		SANDBOX_COPY(w->dst + off, w->src + off, n);
		if (k % 8 == 0)
			w->wrong += memcmp(w->dst + off, w->src + off, n) != 0;
		else
			w->wrong += w->dst[off + n - 1] != w->src[off + n - 1] ||
				    w->dst[off + n / 3] != w->src[off + n / 3];
	}
	__atomic_store_n(&w->done, 1, __ATOMIC_RELEASE);
	__atomic_add_fetch(&sandbox_done, 1, __ATOMIC_RELEASE);
	syscall(SYS_futex, &sandbox_done, FUTEX_WAKE_PRIVATE, 1, NULL, NULL, 0);
	/* A thread's own exit is a system call the filter refuses: this one
	 * waits for exit_group instead. */
	sandbox_wait(&sandbox_never, 0);
	return NULL;
}

static int sandbox_main(unsigned calls)
{
	struct sandbox_worker w[2];
	pthread_t t[2];
	long ncpu = sysconf(_SC_NPROCESSORS_ONLN);
	pthread_barrier_init(&sandbox_start, NULL, 3);
	for (int i = 0; i < 2; i++) {
		size_t len = SANDBOX_MAX + 4096;
		w[i] = (struct sandbox_worker){.cpu = ncpu > 1 ? i : 0,
					       .calls = calls / 2};
		w[i].src = mmap(NULL, len, PROT_READ | PROT_WRITE,
				MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
		w[i].dst = mmap(NULL, len, PROT_READ | PROT_WRITE,
				MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
		if (w[i].src == MAP_FAILED || w[i].dst == MAP_FAILED)
			return 3;
		for (size_t j = 0; j < len; j += 64)
			w[i].src[j] = (unsigned char)(j >> 6);
		if (pthread_create(&t[i], NULL, sandbox_work, &w[i]))
			return 3;
		cpu_set_t set;
		CPU_ZERO(&set);
		CPU_SET(w[i].cpu, &set);
		pthread_setaffinity_np(t[i], sizeof set, &set);
	}
	pthread_barrier_wait(&sandbox_start);
	if (sandbox_lock())
		return 4;
	pthread_barrier_wait(&sandbox_start);
	for (int seen; (seen = __atomic_load_n(&sandbox_done, __ATOMIC_ACQUIRE)) < 2;)
		sandbox_wait(&sandbox_done, seen);
	char line[96];
	unsigned wrong = w[0].wrong + w[1].wrong;
	int len = snprintf(line, sizeof line, "sandbox: %u calls %s\n",
			   2 * (w[0].calls + w[1].calls), wrong ? "WRONG" : "exact");
	if (write(1, line, (size_t)len) < 0)
		return 5;
	/* exit_group itself: a sanitizer's _exit would check for leaks with
	 * system calls the filter refuses. */
	syscall(SYS_exit_group, wrong ? 2 : 0);
	return 6;
}

#endif
