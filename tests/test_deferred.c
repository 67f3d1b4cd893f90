/* test_deferred.c - the process's policy, built by the first call that
 * needs it (src/dispatch/select.c): which calls build it and which do
 * not, that every call before it gives memset's and memcpy's bytes, that
 * NTMEM_TUNABLES or a profile still build it as the library loads, and
 * that a signal handler's call never waits for a build or a detection
 * that it interrupted on its own thread.
 *
 * Linked with --wrap=sysconf: the CPU's detection calls sysconf, and the
 * wrapper raises a signal from inside it when a test asks, so that the
 * handler runs with the detection half done, every time; or it holds the
 * detection there while another thread forks. */
#include <errno.h>
#include <pthread.h>
#include <semaphore.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "dispatch/cpu.h"
#include "dispatch/profile.h"
#include "dispatch/select.h"
#include "harness.h"
#include "ntmem.h"
#include "util/once.h"

#define KiB ((size_t)1 << 10)
#define MiB ((size_t)1 << 20)

static int state(void)
{
	return __atomic_load_n(&ntm_policy_state, __ATOMIC_ACQUIRE);
}

/* sysconf, raising SIGUSR1 first when armed (once); or, when held,
 * saying so and waiting to be let go. */
static volatile sig_atomic_t raise_in_sysconf, hold_in_sysconf;
static sem_t held, let_go;
long __real_sysconf(int name);
long __wrap_sysconf(int name);
long __wrap_sysconf(int name)
{
	if (raise_in_sysconf) {
		raise_in_sysconf = 0;
		raise(SIGUSR1);
	}
	if (hold_in_sysconf) {
		hold_in_sysconf = 0;
		sem_post(&held);
		while (sem_wait(&let_go) && errno == EINTR)
			;
	}
	return __real_sysconf(name);
}

/* ntmem_set of n bytes of c at an odd offset, and ntmem_copy of n bytes,
 * against memset's and memcpy's bytes around and inside; 1 when exact.
 * Not in a signal handler: it allocates. */
static int set_exact(size_t n, int c, unsigned flags)
{
	unsigned char *a = malloc(n + 64), *b = malloc(n + 64);
	int ok = a && b;
	if (ok) {
		t_fill_pattern(a, n + 64, 7);
		t_fill_pattern(b, n + 64, 7);
		if (flags)
			ntmem_set_flags(a + 3, c, n, flags);
		else
			ntmem_set(a + 3, c, n);
		memset(b + 3, c, n);
		ok = !memcmp(a, b, n + 64);
	}
	free(a);
	free(b);
	return ok;
}

static int copy_exact(size_t n)
{
	unsigned char *a = malloc(n + 64), *b = malloc(n + 64), *s = malloc(n);
	int ok = a && b && s;
	if (ok) {
		t_fill_pattern(a, n + 64, 1);
		t_fill_pattern(b, n + 64, 1);
		t_fill_pattern(s, n, 2);
		ntmem_copy(a + 5, s, n);
		memcpy(b + 5, s, n);
		ok = !memcmp(a, b, n + 64);
	}
	free(a);
	free(b);
	free(s);
	return ok;
}

/* Wait up to seconds for child pid, and kill it after: its exit status,
 * or -1 if it did not end in time or died of a signal. */
static int wait_for(pid_t pid, int seconds)
{
	int status = 0;
	for (int i = 0; i < seconds * 100; i++) {
		if (waitpid(pid, &status, WNOHANG) == pid)
			return WIFEXITED(status) ? WEXITSTATUS(status) : -1;
		usleep(10000);
	}
	kill(pid, SIGKILL);
	waitpid(pid, &status, 0);
	return -1;
}

/* Run fn in a child of this (still deferred) process: its exit status,
 * or -1 if it did not end within 20 s or died of a signal. */
static int in_child(int (*fn)(void))
{
	pid_t pid = fork();
	if (pid == 0)
		_exit(fn());
	return pid < 0 ? -1 : wait_for(pid, 20);
}

/* Exit statuses of the children below: 0, or the first step that failed. */

/* Calls the entry points run inline never build it (where they have a
 * loop: on x86-64, to 24 KiB at least); calls beyond, up to
 * NTM_DEFERRED_CALLS of them, take the C library's function; the next
 * builds it, and the entry points' limits become the policy's. */
static int calls_until_built(void)
{
	size_t set_reach = ntm_limits.inline_max[NTMEM_OP_SET];
	size_t copy_reach = ntm_limits.inline_max[NTMEM_OP_COPY];
#if defined(__x86_64__)
	if (set_reach < 24 * KiB - 1 || copy_reach < 24 * KiB - 1)
		return 1;
#endif
	if (set_reach >= 64 * KiB || copy_reach >= 64 * KiB)
		return 1;
	for (size_t n = 1; n <= set_reach; n = n * 3 + 1)
		if (!set_exact(n, 0, 0) || !set_exact(n, 0xa5, 0))
			return 2;
	if (!set_exact(set_reach, 0, 0) || !copy_exact(copy_reach))
		return 2;
	for (size_t n = 1; n <= copy_reach; n = n * 3 + 1)
		if (!copy_exact(n))
			return 2;
	if (state() != NTM_POLICY_DEFERRED)
		return 3;
	struct ntm_route r;
	ntm_select(&r, NULL, NTMEM_CLASS_SET_ZERO, 64 * KiB, 0, 0, NTM_CALLER_ENTRY);
	if (r.kind != NTM_ROUTE_BASELINE || r.v != ntm_libc_variant(NTMEM_OP_SET))
		return 4;
	for (int i = 0; i < NTM_DEFERRED_CALLS; i++)
		if (!(i % 2 ? copy_exact(64 * KiB) : set_exact(64 * KiB, i, 0)))
			return 5;
	if (state() != NTM_POLICY_DEFERRED)
		return 6;
	if (!set_exact(64 * KiB, 0, 0) || state() != NTM_POLICY_READY)
		return 7;
	const struct policy *p = ntm_policy_ready();
	for (int op = 0; op < 2; op++)
		if (ntm_limits.inline_max[op] != p->inline_max[op])
			return 8;
	return 0;
}

/* One call from NTM_LEARN_MIN up builds it at once. */
static int large_call_builds(void)
{
	if (!copy_exact(NTM_LEARN_MIN))
		return 1;
	return state() == NTM_POLICY_READY ? 0 : 2;
}

/* So does one that asks to stream, at any size past the small path. */
static int flags_build(void)
{
	if (!set_exact(8 * KiB, 0, NTMEM_F_NONTEMPORAL))
		return 1;
	return state() == NTM_POLICY_READY ? 0 : 2;
}

/* And a question about it: the answer is the policy's. */
static int query_builds(void)
{
	struct ntmem_ladder_info li;
	if (ntmem_ladder_info(NTMEM_CLASS_COPY, &li))
		return 1;
	return state() == NTM_POLICY_READY ? 0 : 2;
}

/* The signal handler: a call that would build the policy, run while its
 * thread is inside the CPU's detection.  It must neither wait nor build. */
static unsigned char handler_buf[2 * MiB];
static volatile sig_atomic_t handler_ran, handler_state;
static volatile sig_atomic_t handler_bad;

static void on_usr1(int sig)
{
	(void)sig;
	ntmem_set(handler_buf, 0x3c, sizeof handler_buf);
	for (size_t i = 0; i < sizeof handler_buf; i += 4093)
		if (handler_buf[i] != 0x3c)
			handler_bad = 1;
	if (handler_buf[sizeof handler_buf - 1] != 0x3c)
		handler_bad = 1;
	handler_state = state();
	handler_ran = 1;
}

static int arm_handler(void)
{
	struct sigaction sa;
	memset(&sa, 0, sizeof sa);
	sa.sa_handler = on_usr1;
	sigemptyset(&sa.sa_mask);
	return sigaction(SIGUSR1, &sa, NULL);
}

/* The handler interrupts the detection that ntm_cpu() runs. */
static int handler_in_detection(void)
{
	if (arm_handler())
		return 1;
	raise_in_sysconf = 1;
	const struct cpu *cpu = ntm_cpu();
	if (!handler_ran || raise_in_sysconf)
		return 2;  /* the detection called no sysconf: not exercised */
	if (handler_bad)
		return 3;
	if (handler_state != NTM_POLICY_DEFERRED)
		return 4;  /* it built, on a detection half done */
	if (!cpu->usable && !cpu->reported && !cpu->online_cpus)
		return 5;
	/* The next call of its size builds it. */
	return large_call_builds() ? 6 : 0;
}

/* The handler interrupts the build that a call started. */
static int handler_in_build(void)
{
	if (arm_handler())
		return 1;
	raise_in_sysconf = 1;
	if (!set_exact(NTM_LEARN_MIN, 0x11, 0))
		return 2;
	if (!handler_ran)
		return 3;
	if (handler_bad)
		return 4;
	if (handler_state != NTM_POLICY_BUILDING)
		return 5;
	return state() == NTM_POLICY_READY ? 0 : 6;
}

static void *build_in_thread(void *arg)
{
	(void)arg;
	return (void *)(long)!set_exact(NTM_LEARN_MIN, 0x44, 0);
}

/* Another thread forks while this one is inside the build: in the fork
 * child that build never ends, so the child's next call that needs the
 * policy builds it again, and the CPU's description is read again. */
static int fork_during_build(void)
{
	if (sem_init(&held, 0, 0) || sem_init(&let_go, 0, 0))
		return 1;
	hold_in_sysconf = 1;
	pthread_t t;
	if (pthread_create(&t, NULL, build_in_thread, NULL))
		return 1;
	while (sem_wait(&held) && errno == EINTR)
		;
	pid_t pid = fork();
	if (pid == 0) {
		if (state() != NTM_POLICY_DEFERRED)
			_exit(2);
		if (!set_exact(NTM_LEARN_MIN, 0x22, 0) || state() != NTM_POLICY_READY)
			_exit(3);
		struct ntmem_cpu_info info;
		_exit(ntmem_cpu_info(&info) || !info.online_cpus ? 4 : 0);
	}
	sem_post(&let_go);
	void *bad = NULL;
	pthread_join(t, &bad);
	if (pid < 0 || bad)
		return 5;
	int rc = wait_for(pid, 10);
	if (rc)
		return rc < 0 ? 6 : rc;
	return state() == NTM_POLICY_READY ? 0 : 7;
}

static void test_children(void)
{
	static const struct {
		const char *name;
		int (*fn)(void);
	} cases[] = {
		{"deferred: calls before it are exact, and the one past "
		 "NTM_DEFERRED_CALLS builds it", calls_until_built},
		{"deferred: a call of NTM_LEARN_MIN builds it", large_call_builds},
		{"deferred: a call that asks to stream builds it", flags_build},
		{"deferred: ntmem_ladder_info builds it", query_builds},
		{"deferred: a handler inside the CPU's detection neither waits nor builds",
		 handler_in_detection},
		{"deferred: a handler inside the build takes the C library's",
		 handler_in_build},
		{"deferred: a fork while another thread builds it: the child "
		 "builds it again", fork_during_build},
	};
	const char *no_threads = t_fork_with_threads_unsupported();
	for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
		if (cases[i].fn == fork_during_build && no_threads) {
			t_skip(cases[i].name, no_threads);
			continue;
		}
		int rc = in_child(cases[i].fn);
		t_check(rc == 0, cases[i].name, "%s",
			rc < 0 ? "the child hung or died" : "a step failed (below)");
		if (rc > 0)
			printf("  step %d of the child failed\n", rc);
	}
}

/* How the policy stands as the library is loaded with env set: run this
 * program again with it; its exit status is the state. */
static int state_with(const char *name, const char *value)
{
	pid_t pid = fork();
	if (pid == 0) {
		unsetenv("NTMEM_TUNABLES");
		unsetenv("NTMEM_PROFILE");
		setenv(name, value, 1);
		char *argv[] = {"test_deferred", "--state", NULL};
		t_exec_self(argv);
		_exit(100);
	}
	int status = 0;
	if (pid < 0 || waitpid(pid, &status, 0) != pid || !WIFEXITED(status))
		return -1;
	return WEXITSTATUS(status);
}

static void test_loaded_with(void)
{
	int s = state_with("NTMEM_TUNABLES", "adapt=0");
	t_check(s == NTM_POLICY_READY, "deferred: not with NTMEM_TUNABLES",
		"state %d", s);
	s = state_with("NTMEM_PROFILE", "/nonexistent/ntmem-profile");
	t_check(s == NTM_POLICY_READY, "deferred: not with NTMEM_PROFILE naming a file",
		"state %d", s);
	s = state_with("NTMEM_PROFILE", "none");
	t_check(s == NTM_POLICY_DEFERRED, "deferred: with NTMEM_PROFILE=none",
		"state %d", s);
}

static int calls;
static void count_call(void)
{
	calls++;
}

/* util/once.h: a run in progress is declined, not waited for. */
static void test_once(void)
{
	int s = NTM_ONCE_RUNNING;
	int r = ntm_once(&s, count_call, 0);
	t_check(r == 0 && calls == 0 && s == NTM_ONCE_RUNNING,
		"once: a run in progress declined", "returned %d, %d calls", r, calls);
	s = NTM_ONCE_NOT_RUN;
	r = ntm_once(&s, count_call, 0);
	int again = ntm_once(&s, count_call, 1);
	t_check(r == 1 && again == 1 && calls == 1 && s == NTM_ONCE_DONE,
		"once: runs once", "returned %d then %d, %d calls", r, again, calls);
}

int main(int argc, char **argv)
{
	if (argc == 2 && !strcmp(argv[1], "--state"))
		return state();
	test_once();
	const char *profile = getenv("NTMEM_PROFILE");
	if (getenv("NTMEM_TUNABLES") ||
	    (profile && profile[0] && strcmp(profile, "none"))) {
		t_skip("deferred: the policy of this process", "NTMEM_TUNABLES or "
		       "NTMEM_PROFILE is set: the policy is built as the library loads");
	} else if (state() != NTM_POLICY_DEFERRED) {
		char path[1024];
		const char *why;
		if (!ntm_profile_in_effect(path, sizeof path, &why))
			t_skip("deferred: the policy of this process", "a profile file "
			       "is present: the policy is built as the library loads");
		else
			t_fail("deferred: the policy of this process", "state %d at "
			       "main, not deferred", state());
	} else {
		t_pass("deferred: the policy of this process");
		test_children();
	}
	test_loaded_with();
	return t_finish();
}
