/* test_signal.c - a signal handler may call ntmem_set and ntmem_copy at
 * any time, including while the interrupted thread is inside one of them
 * and during the process's very first calls (issue 12, defect 4: a
 * handler re-entering the first call's setup deadlocked in pthread_once).
 *
 * A fresh process (this program run again) arms a POSIX timer that sends
 * SIGUSR1 every 200 us from .preinit_array, before any constructor, so
 * signals land in the first calls, in the library's constructor and in
 * the main thread's own ntmem_set/ntmem_copy calls.  The handler clears
 * and copies buffers of its own, small and large, and checks every byte.
 * alarm() bounds the whole run: a deadlock ends it with SIGALRM, which
 * this parent reports as a failure instead of hanging. */
#define _GNU_SOURCE
#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "harness.h"
#include "ntmem.h"

#define HANDLER_BYTES ((size_t)1 << 20)
#define MAIN_BYTES ((size_t)4 << 20)
#define WANT_SIGNALS 3000
#define DEADLINE_S 60

static unsigned char *hbuf, *hsrc;   /* the handler's */
static volatile sig_atomic_t handled, handler_bad;
static timer_t timer;
static int armed;

/* n bytes at p all equal to v? */
static int all(const unsigned char *p, size_t n, unsigned char v)
{
	for (size_t i = 0; i < n; i++)
		if (p[i] != v)
			return 0;
	return 1;
}

static int same(const unsigned char *a, const unsigned char *b, size_t n)
{
	for (size_t i = 0; i < n; i++)
		if (a[i] != b[i])
			return 0;
	return 1;
}

/* Small (the inline path), medium and large (the ladder), and now and
 * then the whole buffer through the streaming variant. */
static void on_signal(int sig)
{
	(void)sig;
	static const size_t sizes[] = {7, 200, 4096, 65536};
	int saved = errno;
	unsigned k = (unsigned)handled;
	int whole = k % 16 == 15;
	size_t n = whole ? HANDLER_BYTES : sizes[k % (sizeof sizes / sizeof sizes[0])];
	unsigned char v = (unsigned char)(k * 37 + 1);
	unsigned flags = whole ? NTMEM_F_NONTEMPORAL : 0;
	if (ntmem_set_flags(hbuf, v, n, flags) != hbuf || !all(hbuf, n, v))
		handler_bad = 1;
	ntmem_set(hsrc, (unsigned char)(v + 1), n);
	if (ntmem_copy(hbuf, hsrc, n) != hbuf || !same(hbuf, hsrc, n))
		handler_bad = 1;
	handled = handled + 1;
	errno = saved;
}

static int arm(long interval_ns)
{
	struct sigaction sa;
	memset(&sa, 0, sizeof sa);
	sa.sa_handler = on_signal;
	sa.sa_flags = SA_RESTART;
	sigemptyset(&sa.sa_mask);
	if (sigaction(SIGUSR1, &sa, NULL))
		return -1;
	struct sigevent ev;
	memset(&ev, 0, sizeof ev);
	ev.sigev_notify = SIGEV_SIGNAL;
	ev.sigev_signo = SIGUSR1;
	if (timer_create(CLOCK_MONOTONIC, &ev, &timer))
		return -1;
	struct itimerspec its = {{0, interval_ns}, {0, interval_ns}};
	armed = !timer_settime(timer, 0, &its, NULL);
	return armed ? 0 : -1;
}

/* The child, first thing of all: buffers, the watchdog, the barrage, and
 * a few calls of its own before the library's constructor has run. */
static void before_constructors(int argc, char **argv, char **envp)
{
	(void)argc;
	(void)argv;
	int child = 0;
	for (char **e = envp; *e; e++)
		child |= !strcmp(*e, "NTMEM_SIGNAL_CHILD=1");
	if (!child)
		return;
	hbuf = mmap(NULL, 2 * HANDLER_BYTES, PROT_READ | PROT_WRITE,
		    MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (hbuf == MAP_FAILED)
		_exit(3);
	hsrc = hbuf + HANDLER_BYTES;
	alarm(DEADLINE_S);
	if (arm(200000))
		_exit(4);
	static unsigned char early[65536];
	for (int i = 0; i < 2000; i++) {
		ntmem_set(early, i, sizeof early);
		ntmem_copy(early + 1024, early, 2048);
	}
}

__attribute__((section(".preinit_array"), used))
static void (*const preinit)(int, char **, char **) = before_constructors;

/* The child's main: its own clears and copies, checked, until the handler
 * has run WANT_SIGNALS times. */
static int child_main(void)
{
	static const size_t sizes[] = {3, 64, 513, 8192, 300000, MAIN_BYTES};
	unsigned char *a = mmap(NULL, 2 * MAIN_BYTES, PROT_READ | PROT_WRITE,
				MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (a == MAP_FAILED || !armed)
		return 5;
	unsigned char *b = a + MAIN_BYTES;
	int bad = 0;
	for (unsigned i = 0; handled < WANT_SIGNALS && !bad; i++) {
		size_t n = sizes[i % (sizeof sizes / sizeof sizes[0])];
		unsigned char v = (unsigned char)(i * 11 + 3);
		bad |= ntmem_set(a, v, n) != a || !all(a, n, v);
		bad |= ntmem_copy(b, a, n) != b || !same(a, b, n);
		bad |= ntmem_set_flags(b, 0, n, NTMEM_F_NONTEMPORAL) != b || !all(b, n, 0);
	}
	timer_delete(timer);
	alarm(0);
	printf("child: %d signals handled, main %s, handler %s\n", (int)handled,
	       bad ? "saw wrong bytes" : "ok", handler_bad ? "saw wrong bytes" : "ok");
	return bad || handler_bad ? 1 : 0;
}

int main(int argc, char **argv)
{
	(void)argc;
	if (getenv("NTMEM_SIGNAL_CHILD"))
		return child_main();
	fflush(stdout);
	pid_t pid = fork();
	if (pid == 0) {
		setenv("NTMEM_SIGNAL_CHILD", "1", 1);
		t_exec_self(argv);
		_exit(127);
	}
	int status = -1;
	waitpid(pid, &status, 0);
	if (WIFSIGNALED(status) && WTERMSIG(status) == SIGALRM)
		t_fail("signal handler calling ntmem during ntmem calls",
		       "deadlock: no progress for %d s (killed by the watchdog)", DEADLINE_S);
	else
		t_check(WIFEXITED(status) && WEXITSTATUS(status) == 0,
			"signal handler calling ntmem during ntmem calls, from the first "
			"call on: no deadlock, right bytes", "child status %#x", status);
	return t_finish();
}
