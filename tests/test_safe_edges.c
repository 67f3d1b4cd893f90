/* test_safe_edges.c - the safe calls where a careless design dies:
 *
 *   - SIGSEGV and SIGBUS blocked in the calling thread (a thread that
 *     blocks every signal, a handler whose sa_mask is full, a crash
 *     reporter's SIGSEGV handler), where the kernel kills the process at
 *     a fault whatever handler is installed; ntmem_populate's touch loop
 *     has the same exposure;
 *   - spans whose end wraps past the top of the address space;
 *   - dlclose() of libntmem.so after its handler went in front of the
 *     program's.
 *
 * Each case runs in a child process, so that a death is a failure of the
 * case and not the end of the test. */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <errno.h>
#include <limits.h>
#include <pthread.h>
#include <setjmp.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>

#include "harness.h"
#include "ntmem.h"

#define P 4096
#define LEN 1000
#define BEFORE 100  /* a call starts this far before the hole */

/* A read-write page, then a PROT_NONE one (the hole), then a read-write
 * one. */
static unsigned char *map, *hole;
static unsigned char src[2 * LEN], dst[2 * LEN];

static int hole_alloc(void)
{
	map = mmap(NULL, 3 * P, PROT_READ | PROT_WRITE,
		   MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (map == MAP_FAILED)
		return -1;
	hole = map + P;
	return mprotect(hole, P, PROT_NONE);
}

/* Run fn in a child; its exit status 0 passes, anything else (a death
 * included) fails name, with what the code means. */
static void in_child(const char *name, int (*fn)(void), const char *codes)
{
	fflush(stdout);
	pid_t pid = fork();
	if (pid == 0) {
		struct rlimit none = {0, 0};
		setrlimit(RLIMIT_CORE, &none);
		alarm(60);
		_exit(fn());
	}
	int status = -1;
	if (pid > 0)
		waitpid(pid, &status, 0);
	if (WIFSIGNALED(status))
		t_fail(name, "the child died of signal %d", WTERMSIG(status));
	else
		t_check(WIFEXITED(status) && WEXITSTATUS(status) == 0, name,
			"the child exited %d (%s)", WEXITSTATUS(status), codes);
}

static int blocked_now(int sig)
{
	sigset_t now;
	pthread_sigmask(SIG_BLOCK, NULL, &now);
	return sigismember(&now, sig) == 1;
}

/* The reproducer: a read fault 100 bytes in, and a write fault;
 * exactly the bytes not done, the bytes done right. */
static int calls_survive(unsigned flags)
{
	t_fill_pattern(map, P, 3);
	if (ntmem_copy_safe(dst, hole - BEFORE, LEN, flags) != LEN - BEFORE)
		return 1;
	if (memcmp(dst, hole - BEFORE, BEFORE))
		return 2;
	if (ntmem_copy_safe(hole - BEFORE, src, LEN, flags) != LEN - BEFORE)
		return 3;
	if (ntmem_set_safe(hole - BEFORE, 7, LEN, flags) != LEN - BEFORE)
		return 4;
	return 0;
}

static int all_blocked(void)
{
	sigset_t all;
	sigfillset(&all);
	pthread_sigmask(SIG_BLOCK, &all, NULL);
	int r = calls_survive(0);
	if (r)
		return r;
	/* The mask is the caller's again afterwards. */
	return blocked_now(SIGSEGV) && blocked_now(SIGBUS) ? 0 : 5;
}

static int one_blocked(void)
{
	sigset_t segv;
	sigemptyset(&segv);
	sigaddset(&segv, SIGSEGV);
	pthread_sigmask(SIG_BLOCK, &segv, NULL);
	int r = calls_survive(0);
	if (r)
		return r;
	return blocked_now(SIGSEGV) && !blocked_now(SIGBUS) ? 0 : 5;
}

/* NTMEM_F_UNBLOCKED, where the caller's word is true. */
static int vouched(void)
{
	int r = calls_survive(NTMEM_F_UNBLOCKED);
	if (r)
		return r;
	/* and with the other flags the entry points handle */
	return calls_survive(NTMEM_F_UNBLOCKED | NTMEM_F_TEMPORAL |
			     NTMEM_F_NOFENCE) ? 6 : 0;
}

static volatile sig_atomic_t handler_result = -1;

static void usr1_handler(int sig)
{
	(void)sig;
	handler_result = calls_survive(0);
}

/* A SIGUSR1 handler whose sa_mask is full makes the calls.  The handler
 * is installed first: the calls are async-signal-safe from then on. */
static int full_mask_handler(void)
{
	if (ntmem_safe_init())
		return 11;
	struct sigaction sa;
	memset(&sa, 0, sizeof sa);
	sa.sa_handler = usr1_handler;
	sigfillset(&sa.sa_mask);
	if (sigaction(SIGUSR1, &sa, NULL))
		return 10;
	raise(SIGUSR1);
	return handler_result;
}

static sigjmp_buf reporter_env;

/* A crash reporter: on a fault of the program's own, it copies the
 * memory around it with ntmem_copy_safe, SIGSEGV blocked (its sa_mask),
 * then leaves. */
static void reporter(int sig, siginfo_t *si, void *context)
{
	(void)sig;
	(void)context;
	if (si->si_addr == hole + 5)
		handler_result = calls_survive(0);
	siglongjmp(reporter_env, 1);
}

static int crash_reporter(void)
{
	if (ntmem_safe_init())
		return 20;
	struct sigaction sa;
	memset(&sa, 0, sizeof sa);
	sa.sa_sigaction = reporter;
	sa.sa_flags = SA_SIGINFO;
	sigfillset(&sa.sa_mask);
	if (sigaction(SIGSEGV, &sa, NULL))
		return 21;
	if (ntmem_safe_init())  /* ntmem's in front again */
		return 22;
	volatile int read_through = 0;
	if (sigsetjmp(reporter_env, 1) == 0) {
		(void)*(volatile unsigned char *)(hole + 5);
		read_through = 1;
	}
	return read_through ? 23 : handler_result;
}

extern int ntm_populate_force_touch;

/* ntmem_populate's touch loop (used where MADV_POPULATE_WRITE is not)
 * reaching a page it cannot write, every signal blocked: an error, not a
 * death. */
static int populate_blocked(void)
{
	sigset_t all;
	sigfillset(&all);
	pthread_sigmask(SIG_BLOCK, &all, NULL);
	ntm_populate_force_touch = 1;
	errno = 0;
	if (ntmem_populate(map, 3 * P, 0) != -1 || !errno)
		return 30;
	return blocked_now(SIGSEGV) ? 0 : 31;
}

static void blocked_signals(void)
{
	const char *codes = "1-4: a call's result, 5: the mask afterwards, "
			    "6: with more flags";
	in_child("blocked: every signal blocked in the thread", all_blocked, codes);
	in_child("blocked: SIGSEGV alone blocked", one_blocked, codes);
	in_child("blocked: NTMEM_F_UNBLOCKED where nothing is blocked", vouched,
		 codes);
	in_child("blocked: in a SIGUSR1 handler whose sa_mask is full",
		 full_mask_handler, "10-11: setting up; 1-4: a call's result");
	in_child("blocked: in a crash reporter's SIGSEGV handler behind ntmem's",
		 crash_reporter, "20-23: setting up; 1-4: a call's result");
	in_child("blocked: ntmem_populate's touch loop, every signal blocked",
		 populate_blocked, "30: no error, 31: the mask afterwards");
}

/* ---- the top of the address space ---- */

static void wrapping(void)
{
	unsigned char *top = (unsigned char *)(uintptr_t)-64;
	const unsigned flag_sets[] = {0, NTMEM_F_UNBLOCKED};
	for (int i = 0; i < 2; i++) {
		unsigned f = flag_sets[i];
		char name[96];
		snprintf(name, sizeof name, "wrap: dst 64 bytes below the top, flags %#x", f);
		size_t a = ntmem_set_safe(top, 1, 200, f);
		size_t b = ntmem_copy_safe(top, src, 200, f);
		t_check(a == 200 && b == 200, name, "set left %zu, copy left %zu, want 200",
			a, b);
		snprintf(name, sizeof name, "wrap: src 64 bytes below the top, flags %#x", f);
		memset(dst, 0xee, sizeof dst);
		size_t c = ntmem_copy_safe(dst, top, 200, f);
		int zeros = 1;
		for (size_t k = 0; k < 200; k++)
			zeros &= dst[k] == 0;
		t_check(c == 200 && zeros && dst[200] == 0xee, name,
			"left %zu (want 200), zero fill %s", c, zeros ? "right" : "wrong");
	}

	/* A writable page before the hole, n = SIZE_MAX: the page is written
	 * and the rest is reported, so dst + n wrapping ends nothing early.
	 * (No copy of that size: its source range holds its destination, and
	 * after a write fault memmove's result may have been written past it
	 * anywhere above.) */
	memset(map, 0, P);
	size_t left = ntmem_set_safe(map, 5, SIZE_MAX, 0);
	int fives = 1;
	for (size_t k = 0; k < P; k++)
		fives &= map[k] == 5;
	t_check(left == SIZE_MAX - P && fives, "wrap: a set of SIZE_MAX bytes before a hole",
		"left %zu, want %zu; the page %s", left, SIZE_MAX - P,
		fives ? "written" : "not all written");
}

/* ---- dlclose ---- */

static char libpath[PATH_MAX];
static sigjmp_buf own_env;
static volatile sig_atomic_t own_ran;

static void own_handler(int sig)
{
	(void)sig;
	own_ran = 1;
	siglongjmp(own_env, 1);
}

/* The program's handler, then libntmem.so opened, a faulting safe call
 * (ntmem's handler goes in front), dlclose: the program's handler must be
 * the one installed again, and get the program's next fault. */
static int dlclose_after_safe_call(void)
{
	struct sigaction sa, now;
	memset(&sa, 0, sizeof sa);
	sa.sa_handler = own_handler;
	sigemptyset(&sa.sa_mask);
	if (sigaction(SIGSEGV, &sa, NULL))
		return 40;
	void *lib = dlopen(libpath, RTLD_NOW | RTLD_LOCAL);
	if (!lib)
		return 41;
	size_t (*copy_safe)(void *, const void *, size_t, unsigned) =
		(size_t (*)(void *, const void *, size_t, unsigned))dlsym(lib, "ntmem_copy_safe");
	if (!copy_safe || copy_safe(dst, hole - BEFORE, LEN, 0) != LEN - BEFORE)
		return 42;
	dlclose(lib);
	if (sigaction(SIGSEGV, NULL, &now) || now.sa_handler != own_handler)
		return 43;
	/* volatile: it changes between sigsetjmp and the jump back */
	volatile int read_through = 0;
	if (sigsetjmp(own_env, 1) == 0) {
		(void)*(volatile unsigned char *)(hole + 5);
		read_through = 1;
	}
	if (read_through)
		return 44;
	return own_ran ? 0 : 45;
}

static void unloading(void)
{
	char dir[PATH_MAX];
	const char *why = NULL;
	if (!realpath(t_ntmem(), dir))
		why = "the ntmem binary of this build is not there";
	else {
		*strrchr(dir, '/') = '\0';
		snprintf(libpath, sizeof libpath, "%.*s/libntmem.so", PATH_MAX - 16, dir);
		if (access(libpath, R_OK))
			why = "this build has no libntmem.so";
	}
	if (why) {
		t_skip("dlclose: the program's handler is back after unloading", why);
		return;
	}
	in_child("dlclose: the program's handler is back after unloading",
		 dlclose_after_safe_call,
		 "40-42: setting up, 43: not the program's handler, 44-45: its fault");
}

int main(void)
{
	if (hole_alloc()) {
		t_fail("setup", "mmap: %s", strerror(errno));
		return t_finish();
	}
	t_fill_pattern(src, sizeof src, 1);
	blocked_signals();
	wrapping();
	unloading();
	return t_finish();
}
