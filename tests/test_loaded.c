/* test_loaded.c - the process's policy, made once as the library loads
 * (src/dispatch/process.c): built before main whatever the environment;
 * a signal handler's calls during that build take the baseline and give
 * memset's and memcpy's bytes; and the child of _Fork() or of clone()
 * without CLONE_VM, made while another thread is inside the library's
 * first report, has a working policy and a report that returns.
 *
 * Linked with --wrap=sysconf,--wrap=syscall: the CPU's detection calls
 * sysconf as the library loads, and the wrapper raises a signal from
 * inside it when the environment asks; the description of the CPU reads
 * sysfs by syscall(SYS_openat, ...), and the wrapper holds a thread there
 * while another forks. */
#define _GNU_SOURCE
#include <errno.h>
#include <pthread.h>
#include <sched.h>
#include <semaphore.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#include "dispatch/policy.h"
#include "harness.h"
#include "ntmem.h"
#include "util/once.h"
#include "util/size.h"

static int state(void)
{
	return __atomic_load_n(&ntm_policy_state, __ATOMIC_ACQUIRE);
}

/* ------------------------------------------------------------------ */
/* A signal inside the constructor's build                            */
/* ------------------------------------------------------------------ */

/* The handler: a set and a copy of 2 MiB, which past the small path take
 * the baseline while the policy is being built, checked byte by byte
 * (static buffers: a handler must not allocate). */
static unsigned char handler_dst[2 * MiB], handler_src[2 * MiB];
static volatile sig_atomic_t handler_ran, handler_state = -1, handler_bad;

static void on_usr1(int sig)
{
	(void)sig;
	for (size_t i = 0; i < sizeof handler_src; i += 4096)
		handler_src[i] = (unsigned char)(i >> 12);
	ntmem_set(handler_dst, 0x3c, sizeof handler_dst);
	for (size_t i = 0; i < sizeof handler_dst; i += 4093)
		handler_bad |= handler_dst[i] != 0x3c;
	ntmem_copy(handler_dst, handler_src, sizeof handler_dst);
	for (size_t i = 0; i < sizeof handler_dst; i += 4096)
		handler_bad |= handler_dst[i] != (unsigned char)(i >> 12);
	handler_state = state();
	handler_ran = 1;
}

/* Armed by the environment, before the library's constructor (102). */
static volatile sig_atomic_t raise_in_sysconf;

__attribute__((constructor(101))) static void arm(void)
{
	if (!getenv("TEST_LOADED_SIGNAL"))
		return;
	struct sigaction sa;
	memset(&sa, 0, sizeof sa);
	sa.sa_handler = on_usr1;
	sigemptyset(&sa.sa_mask);
	if (!sigaction(SIGUSR1, &sa, NULL))
		raise_in_sysconf = 1;
}

long __real_sysconf(int name);
long __wrap_sysconf(int name);
long __wrap_sysconf(int name)
{
	if (raise_in_sysconf) {
		raise_in_sysconf = 0;
		raise(SIGUSR1);
	}
	return __real_sysconf(name);
}

/* Run as the child with TEST_LOADED_SIGNAL: 0, or what went wrong. */
static int signalled_child(void)
{
	if (!handler_ran)
		return 2;  /* the build called no sysconf: not exercised */
	if (handler_bad)
		return 3;
	if (handler_state != NTM_POLICY_BUILDING)
		return 4;
	return state() == NTM_POLICY_READY ? 0 : 5;
}

/* This program again, with env set (NAME=VALUE, or NULL): its exit
 * status, or -1. */
static int again_with(const char *env, const char *arg)
{
	fflush(stdout);
	pid_t pid = fork();
	if (pid == 0) {
		unsetenv("NTMEM_TUNABLES");
		if (env)
			putenv((char *)env);
		char *argv[] = {"test_loaded", (char *)arg, NULL};
		t_exec_self(argv);
		_exit(100);
	}
	int status = 0;
	if (pid < 0 || waitpid(pid, &status, 0) != pid || !WIFEXITED(status))
		return -1;
	return WEXITSTATUS(status);
}

static void test_built_at_load(void)
{
	static const char *const envs[] = {NULL, "NTMEM_TUNABLES=adapt=0",
					   "NTMEM_PROFILE=/nonexistent/profile",
					   "NTMEM_PROFILE=none"};
	int bad = 0;
	char why[160] = "";
	for (size_t i = 0; i < sizeof envs / sizeof envs[0]; i++) {
		int s = again_with(envs[i], "--state");
		if (s != NTM_POLICY_READY && !bad++)
			snprintf(why, sizeof why, "with %s: state %d at main",
				 envs[i] ? envs[i] : "nothing set", s);
	}
	t_check(!bad, "loaded: the policy is built before main, whatever the "
		"environment", "%s", why);
	int rc = again_with("TEST_LOADED_SIGNAL=1", "--signalled");
	t_check(rc == 0, "loaded: a signal handler's calls during the build take "
		"the baseline, exact, and do not wait",
		"child %d (2: not exercised, 3: wrong bytes, 4: not during the build, "
		"5: no policy after)", rc);
}

/* ------------------------------------------------------------------ */
/* util/once.h                                                        */
/* ------------------------------------------------------------------ */

static int once_calls;
static void count_call(void)
{
	once_calls++;
}

static void test_once(void)
{
	int s = NTM_ONCE_NOT_RUN;
	ntm_once(&s, count_call);
	ntm_once(&s, count_call);
	int once = once_calls == 1 && s == NTM_ONCE_DONE;
	/* A run that another process had under way, copied here: run again. */
	s = (int)getpid() + 1;
	ntm_once(&s, count_call);
	t_check(once && once_calls == 2 && s == NTM_ONCE_DONE,
		"once: runs once; a run copied from another process runs again here",
		"%d calls, state %d", once_calls, s);
}

/* ------------------------------------------------------------------ */
/* Children made while another thread is inside a first report        */
/* ------------------------------------------------------------------ */

static sem_t held, let_go;
static volatile sig_atomic_t hold_in_openat;

long __real_syscall(long number, ...);
long __wrap_syscall(long number, ...);
long __wrap_syscall(long number, ...)
{
	va_list ap;
	va_start(ap, number);
	long a[6];
	for (int i = 0; i < 6; i++)
		a[i] = va_arg(ap, long);
	va_end(ap);
	if (number == SYS_openat && hold_in_openat) {
		hold_in_openat = 0;
		sem_post(&held);
		while (sem_wait(&let_go) && errno == EINTR)
			;
	}
	return __real_syscall(number, a[0], a[1], a[2], a[3], a[4], a[5]);
}

static void *first_report(void *arg)
{
	(void)arg;
	struct ntmem_cpu_info info;
	return (void *)(long)ntmem_cpu_info(&info);
}

/* In the child: the policy is ready, a streaming call streams and gives
 * memset's bytes, and the report that another thread of the parent was
 * in the middle of returns.  0, or the step that failed. */
static int child_checks(void)
{
	struct ntmem_policy_status st;
	if (ntmem_policy_status(&st) || !st.ready)
		return 2;
	size_t n = 4 * MiB;
	unsigned char *a = mmap(NULL, n + 64, PROT_READ | PROT_WRITE,
				MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (a == MAP_FAILED)
		return 3;
	memset(a, 0x11, n + 64);
	ntmem_set_flags(a + 1, 0x5a, n, NTMEM_F_NONTEMPORAL);
	for (size_t i = 0; i < n + 64; i += 97)
		if (a[i] != (i >= 1 && i <= n ? 0x5a : 0x11))
			return 4;
	int v = ntmem_policy_choice(NTMEM_OP_SET, 0x5a, n, NTMEM_F_NONTEMPORAL);
	struct ntmem_variant_info vi;
	if (ntmem_variant_info(v, &vi) || (!vi.streaming && t_streaming_variant(NTMEM_OP_SET)))
		return 5;
	struct ntmem_cpu_info info;
	if (ntmem_cpu_info(&info) || !info.online_cpus)
		return 6;
	return 0;
}

static int clone_child(void *arg)
{
	(void)arg;
	_exit(child_checks());
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

/* Another thread is held inside the first ntmem_cpu_info() of this
 * process (reading sysfs) while this one makes a child by how. */
static int child_during_report(int how)
{
	if (sem_init(&held, 0, 0) || sem_init(&let_go, 0, 0))
		return 1;
	hold_in_openat = 1;
	pthread_t t;
	if (pthread_create(&t, NULL, first_report, NULL))
		return 1;
	while (sem_wait(&held) && errno == EINTR)
		;
	pid_t pid;
	static char stack[256 * 1024] __attribute__((aligned(16)));
	if (how == 0)
		pid = _Fork();
	else
		pid = clone(clone_child, stack + sizeof stack, SIGCHLD, NULL);
	if (pid == 0)
		_exit(child_checks());
	int rc = pid < 0 ? 1 : wait_for(pid, 20);
	sem_post(&let_go);
	void *bad = NULL;
	pthread_join(t, &bad);
	return bad ? 7 : rc;
}

static void test_children(void)
{
	static const char *const names[] = {
		"loaded: a child of _Fork() while another thread is in the first report: "
		"a working policy, and the report returns",
		"loaded: a child of clone() without CLONE_VM, the same"};
	const char *no_threads = t_fork_with_threads_unsupported();
	for (int how = 0; how < 2; how++) {
		if (no_threads) {
			t_skip(names[how], no_threads);
			continue;
		}
		/* Each in a process of its own: the first report is made once. */
		int rc = again_with(how ? "TEST_LOADED_HOW=1" : "TEST_LOADED_HOW=0",
				    "--child");
		t_check(rc == 0, names[how], "%d (2: not ready, 3: no memory, 4: wrong "
			"bytes, 5: did not stream, 6: the report failed, -1 or 255: hung "
			"or died)", rc);
	}
}

int main(int argc, char **argv)
{
	if (argc == 2 && !strcmp(argv[1], "--state"))
		return state();
	if (argc == 2 && !strcmp(argv[1], "--signalled"))
		return signalled_child();
	if (argc == 2 && !strcmp(argv[1], "--child")) {
		const char *how = getenv("TEST_LOADED_HOW");
		return child_during_report(how && !strcmp(how, "1"));
	}
	test_once();
	test_built_at_load();
	test_children();
	return t_finish();
}
