/* test_safe_handler.c - the safe calls' one SIGSEGV/SIGBUS handler under
 * load and beside the program's own: 8 threads faulting at once, a file
 * truncated under 4 copying threads, and faults that are not ours
 * reaching the program's handler (or killing it) as without ntmem, with
 * its sa_mask, SA_SIGINFO, SA_NODEFER, SA_RESETHAND and alternate stack
 * honoured.  The calls' results around a hole are test_safe.c's. */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <setjmp.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>

#include "harness.h"
#include "ntmem.h"
#include "safe_common.h"

static struct hole rh;  /* the hole the foreign faults touch */

/* ---- 8 threads faulting at once ---- */

#define FAULTERS 8
#define FAULTER_SPAN ((size_t)96 << 10)

struct faulter {
	pthread_t thread;
	unsigned seed;
	int calls;
	char why[160];
};

static unsigned next_rand(unsigned *s)
{
	*s = *s * 1103515245u + 12345u;
	return *s >> 8;
}

/* Its own hole and buffer; copies into and out of the hole and sets into
 * it through the public calls, every result checked. */
static void *faulter(void *arg)
{
	struct faulter *f = arg;
	unsigned char *map = mmap(NULL, FAULTER_SPAN + 2 * P, PROT_READ | PROT_WRITE,
				  MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	unsigned char *buf = malloc(FAULTER_SPAN);
	if (map == MAP_FAILED || !buf || mprotect(map + FAULTER_SPAN, P, PROT_NONE)) {
		snprintf(f->why, sizeof f->why, "no memory");
		return NULL;
	}
	unsigned char *hole = map + FAULTER_SPAN;
	fill_pat(map, FAULTER_SPAN, f->seed);
	static const unsigned flags[] = {0, NTMEM_F_TEMPORAL, NTMEM_F_NONTEMPORAL};
	for (int i = 0; i < f->calls && !f->why[0]; i++) {
		size_t k = 1 + next_rand(&f->seed) % (FAULTER_SPAN - P);
		size_t n = k + 1 + next_rand(&f->seed) % (P - 1);
		unsigned fl = flags[i % 3];
		size_t r;
		const char *what;
		if (i % 3 == 0) {
			what = "read";
			r = ntmem_copy_safe(buf, hole - k, n, fl);
			if (r == n - k && memcmp(buf, hole - k, k))
				r = (size_t)-2;
		} else if (i % 3 == 1) {
			what = "write";
			r = ntmem_copy_safe(hole - k, buf, n, fl);
			if (r == n - k && memcmp(buf, hole - k, k))
				r = (size_t)-2;
		} else {
			what = "set";
			r = ntmem_set_safe(hole - k, (int)(i & 0xff), n, fl);
			if (r == n - k && !all_are(hole - k, k, (unsigned char)i))
				r = (size_t)-2;
		}
		if (r != n - k)
			snprintf(f->why, sizeof f->why, "%s k=%zu n=%zu: r=%zu", what, k,
				 n, r);
	}
	free(buf);
	munmap(map, FAULTER_SPAN + 2 * P);
	return NULL;
}

static void concurrent_faults(void)
{
	struct faulter f[FAULTERS];
	int ok = 1;
	for (int i = 0; i < FAULTERS; i++) {
		f[i] = (struct faulter){.seed = 1000u + (unsigned)i * 77u,
					.calls = t_quick() ? 40 : 300};
		ok &= !pthread_create(&f[i].thread, NULL, faulter, &f[i]);
	}
	const char *why = "";
	for (int i = 0; i < FAULTERS; i++) {
		pthread_join(f[i].thread, NULL);
		if (f[i].why[0]) {
			ok = 0;
			why = f[i].why;
		}
	}
	t_check(ok, "8 threads faulting at once, each result exact", "%s", why);
}

/* ---- a file truncated under 4 copying threads ---- */

#define FILE_BYTES ((size_t)8 << 20)
#define READ_MAX ((size_t)128 << 10)

struct reader {
	pthread_t thread;
	const unsigned char *map;
	unsigned seed;
	unsigned long calls, faulted;
	char why[160];
};
static int readers_stop;

/* Every byte copied is the file's or a zero (past the end of the file
 * in its last page, or regrown and not yet rewritten), and the rest is
 * zero-filled.  Where the fault lies is not checked: a page can vanish
 * while the call reads it, so the first byte the call could not read
 * may lie anywhere in it. */
static void *reader(void *arg)
{
	struct reader *rd = arg;
	unsigned char *buf = malloc(READ_MAX);
	while (buf && !__atomic_load_n(&readers_stop, __ATOMIC_ACQUIRE) &&
	       !rd->why[0]) {
		size_t o = next_rand(&rd->seed) % FILE_BYTES;
		size_t room = FILE_BYTES - o < READ_MAX ? FILE_BYTES - o : READ_MAX;
		size_t n = 1 + next_rand(&rd->seed) % room;
		memset(buf, PRE, n);
		unsigned flags = rd->calls % 2 ? NTMEM_F_NONTEMPORAL : 0;
		size_t r = ntmem_copy_safe(buf, rd->map + o, n, flags);
		rd->calls++;
		int ok = r <= n && all_are(buf + n - r, r, 0);
		for (size_t i = 0; ok && i < n - r; i++)
			ok = buf[i] == pat(o + i) || buf[i] == 0;
		rd->faulted += r != 0;
		if (!ok)
			snprintf(rd->why, sizeof rd->why, "offset %zu n=%zu: r=%zu", o, n, r);
	}
	free(buf);
	return NULL;
}

/* The other process: shrink the file step by step, grow it back and
 * rewrite it, a few times over. */
static void truncator(int fd, const unsigned char *content)
{
	for (int round = 0; round < (t_quick() ? 3 : 10); round++) {
		for (size_t size = FILE_BYTES; size > 0; size -= FILE_BYTES / 16) {
			if (ftruncate(fd, (off_t)(size - FILE_BYTES / 32 + 1000)))
				_exit(3);
			usleep(2000);
		}
		if (ftruncate(fd, (off_t)FILE_BYTES) ||
		    pwrite(fd, content, FILE_BYTES, 0) != (ssize_t)FILE_BYTES)
			_exit(4);
		usleep(5000);
	}
	_exit(0);
}

static void truncated_file(void)
{
	char path[] = "/tmp/ntmem-test-safe-XXXXXX";
	int fd = mkstemp(path);
	unsigned char *content = malloc(FILE_BYTES);
	if (fd < 0 || !content) {
		t_fail("a file truncated under 4 copying threads", "no temporary file");
		return;
	}
	unlink(path);
	fill_pat(content, FILE_BYTES, 0);
	const unsigned char *map = MAP_FAILED;
	if (pwrite(fd, content, FILE_BYTES, 0) == (ssize_t)FILE_BYTES)
		map = mmap(NULL, FILE_BYTES, PROT_READ, MAP_SHARED, fd, 0);
	pid_t pid = map == MAP_FAILED ? -1 : fork();
	if (pid == 0)
		truncator(fd, content);
	struct reader rd[4];
	for (int i = 0; i < 4 && pid > 0; i++) {
		rd[i] = (struct reader){.map = map, .seed = 7u + (unsigned)i};
		pthread_create(&rd[i].thread, NULL, reader, &rd[i]);
	}
	int status = -1;
	if (pid > 0)
		waitpid(pid, &status, 0);
	__atomic_store_n(&readers_stop, 1, __ATOMIC_RELEASE);
	unsigned long calls = 0, faulted = 0;
	const char *why = pid > 0 ? "" : "could not map the file or fork";
	for (int i = 0; i < 4 && pid > 0; i++) {
		pthread_join(rd[i].thread, NULL);
		calls += rd[i].calls;
		faulted += rd[i].faulted;
		if (rd[i].why[0])
			why = rd[i].why;
	}
	if (!why[0] && !(WIFEXITED(status) && WEXITSTATUS(status) == 0))
		why = "the truncating process failed";
	if (!why[0] && !faulted)
		why = "no call met the truncation (nothing was tested)";
	t_check(!why[0], "a file truncated by another process under 4 copying threads",
		"%s (%lu calls, %lu faulted)", why, calls, faulted);
	printf("  truncated file: %lu calls, %lu met the end of the file\n", calls,
	       faulted);
	if (map != MAP_FAILED)
		munmap((void *)map, FILE_BYTES);
	free(content);
	close(fd);
}

/* ---- faults that are not ours ---- */

/* Run fn in a child process (no core file); its wait status. */
static int in_child(void (*fn)(void))
{
	fflush(stdout);
	pid_t pid = fork();
	if (pid == 0) {
		struct rlimit none = {0, 0};
		setrlimit(RLIMIT_CORE, &none);
		alarm(60);  /* a child that hangs dies of SIGALRM: a failure */
		fn();
		_exit(0);
	}
	int status = -1;
	if (pid > 0)
		waitpid(pid, &status, 0);
	return status;
}

static sigjmp_buf child_env;
static void *volatile seen_addr;
static volatile int seen_sig, seen_code, seen_blocked;

static void own_siginfo(int sig, siginfo_t *si, void *context)
{
	sigset_t now;
	(void)context;
	pthread_sigmask(SIG_BLOCK, NULL, &now);
	seen_sig = sig;
	seen_addr = si->si_addr;
	seen_code = si->si_code;
	seen_blocked = sigismember(&now, SIGUSR1) && sigismember(&now, sig);
	if (si->si_code > 0)
		siglongjmp(child_env, 1);
}

static void own_plain(int sig)
{
	seen_sig = sig;
	siglongjmp(child_env, 1);
}

static void install(void (*plain)(int),
		    void (*info)(int, siginfo_t *, void *), int flags)
{
	struct sigaction sa;
	memset(&sa, 0, sizeof sa);
	if (info)
		sa.sa_sigaction = info;
	else
		sa.sa_handler = plain;
	sa.sa_flags = flags | (info ? SA_SIGINFO : 0);
	sigemptyset(&sa.sa_mask);
	sigaddset(&sa.sa_mask, SIGUSR1);
	if (sigaction(SIGSEGV, &sa, NULL))
		_exit(9);
}

/* A safe call's fault, which the program must not see; exit code on
 * failure. */
static void safe_call_works(int code)
{
	unsigned char buf[300];
	seen_sig = 0;
	if (ntmem_copy_safe(buf, rh.at - 10, 300, 0) != 290 || seen_sig)
		_exit(code);
}

/* A fault of the program's own; returns once its handler jumped back. */
static void touch_hole(int code)
{
	if (sigsetjmp(child_env, 1) == 0) {
		(void)*(volatile unsigned char *)(rh.at + 5);
		_exit(code);
	}
}

static void child_handler_before(void)
{
	install(NULL, own_siginfo, 0);
	if (ntmem_safe_init())
		_exit(10);
	safe_call_works(11);
	touch_hole(12);
	if (seen_sig != SIGSEGV || seen_addr != rh.at + 5 ||
	    seen_code != SEGV_ACCERR || !seen_blocked)
		_exit(13);
	safe_call_works(14);
	kill(getpid(), SIGSEGV);  /* sent, not raised by a fault */
	if (seen_code != SI_USER)
		_exit(15);
}

/* The parent installed ntmem's handler before it forked: a handler the
 * child installs replaces it, and ntmem_safe_init() puts it back in
 * front, which is the order of a program that installs its handler
 * before its first safe call. */
static void child_plain_handler(void)
{
	install(own_plain, NULL, 0);
	if (ntmem_safe_init())
		_exit(23);
	safe_call_works(20);
	touch_hole(21);
	if (seen_sig != SIGSEGV)
		_exit(22);
}

static struct sigaction chained_to;

/* A handler that handles faults at rh.at + 5 and chains the rest. */
static void own_chaining(int sig, siginfo_t *si, void *context)
{
	if (si->si_addr == rh.at + 5) {
		seen_sig = sig;
		siglongjmp(child_env, 1);
	}
	chained_to.sa_sigaction(sig, si, context);
}

static void child_handler_after_chaining(void)
{
	struct sigaction sa;
	if (ntmem_safe_init())
		_exit(30);
	memset(&sa, 0, sizeof sa);
	sa.sa_sigaction = own_chaining;
	sa.sa_flags = SA_SIGINFO;
	sigemptyset(&sa.sa_mask);
	if (sigaction(SIGSEGV, &sa, &chained_to) || !(chained_to.sa_flags & SA_SIGINFO))
		_exit(31);
	safe_call_works(32);
	touch_hole(33);
	if (seen_sig != SIGSEGV)
		_exit(34);
}

static void child_handler_after_reinit(void)
{
	if (ntmem_safe_init())
		_exit(40);
	install(NULL, own_siginfo, 0);
	if (ntmem_safe_init())
		_exit(41);
	safe_call_works(42);
	touch_hole(43);
	if (seen_addr != rh.at + 5)
		_exit(44);
}

static void child_no_handler(void)
{
	if (ntmem_safe_init())
		_exit(50);
	safe_call_works(51);
	(void)*(volatile unsigned char *)(rh.at + 5);
	_exit(52);
}

static void child_no_handler_sigbus(void)
{
	char path[] = "/tmp/ntmem-test-safe-bus-XXXXXX";
	int fd = mkstemp(path);
	unlink(path);
	if (fd < 0 || ftruncate(fd, P))
		_exit(60);
	volatile unsigned char *m = mmap(NULL, P, PROT_READ, MAP_SHARED, fd, 0);
	if (m == MAP_FAILED || ntmem_safe_init() || ftruncate(fd, 0))
		_exit(61);
	unsigned char buf[16];
	if (ntmem_copy_safe(buf, (const void *)m, 16, 0) != 16)
		_exit(62);
	(void)m[1];
	_exit(63);
}

static void child_ignored(void)
{
	signal(SIGSEGV, SIG_IGN);
	if (ntmem_safe_init())
		_exit(70);
	kill(getpid(), SIGSEGV);  /* ignored, as without ntmem */
	safe_call_works(71);
	(void)*(volatile unsigned char *)(rh.at + 5);  /* a fault kills anyway */
	_exit(72);
}

static void child_resethand(void)
{
	install(NULL, own_siginfo, SA_RESETHAND);
	if (ntmem_safe_init())
		_exit(85);
	safe_call_works(80);
	touch_hole(81);
	if (seen_addr != rh.at + 5)
		_exit(82);
	safe_call_works(83);
	(void)*(volatile unsigned char *)(rh.at + 5);  /* now SIG_DFL */
	_exit(84);
}

static void own_nodefer(int sig, siginfo_t *si, void *context)
{
	sigset_t now;
	(void)si;
	(void)context;
	pthread_sigmask(SIG_BLOCK, NULL, &now);
	seen_blocked = sigismember(&now, sig);
	siglongjmp(child_env, 1);
}

static void child_nodefer(void)
{
	install(NULL, own_nodefer, SA_NODEFER);
	if (ntmem_safe_init())
		_exit(93);
	seen_blocked = 1;
	touch_hole(90);
	if (seen_blocked)
		_exit(91);
	safe_call_works(92);
}

/* Stack overflow: the program's handler on its alternate stack. */
static void own_overflow(int sig, siginfo_t *si, void *context)
{
	(void)sig;
	(void)si;
	(void)context;
	_exit(100);
}

static int recurse(volatile int depth)
{
	volatile char pad[512];
	if (depth < 0)
		return 0;
	pad[0] = (char)depth;
	return recurse(depth + 1) + pad[0];
}

static void child_altstack(void)
{
	static char alt[64 << 10];
	stack_t ss = {.ss_sp = alt, .ss_size = sizeof alt};
	struct sigaction sa;
	memset(&sa, 0, sizeof sa);
	sa.sa_sigaction = own_overflow;
	sa.sa_flags = SA_SIGINFO | SA_ONSTACK;
	sigemptyset(&sa.sa_mask);
	if (sigaltstack(&ss, NULL) || sigaction(SIGSEGV, &sa, NULL))
		_exit(101);
	if (ntmem_safe_init())
		_exit(102);
	safe_call_works(103);
	recurse(0);
	_exit(104);
}

static int died_of(int status, int sig)
{
	/* Under ASan its own handler is the one before ntmem's: it reports
	 * and exits instead of dying of the signal. */
	if (UNDER_ASAN && (sig == SIGSEGV || sig == SIGBUS))
		return WIFEXITED(status) && WEXITSTATUS(status) != 0 &&
		       WEXITSTATUS(status) < 10;
	return WIFSIGNALED(status) && WTERMSIG(status) == sig;
}

static void foreign_faults(void)
{
	int s;
	if (UNDER_ASAN)
		printf("  (AddressSanitizer's reports of SEGV and SIGBUS from the "
		       "children without a handler of their own are expected)\n");
	s = in_child(child_handler_before);
	t_check(exited(s, 0), "a fault not ours reaches the program's SA_SIGINFO handler "
		"(si_addr, si_code, sa_mask)", "child status %#x", s);
	s = in_child(child_plain_handler);
	t_check(exited(s, 0), "... and a plain handler", "child status %#x", s);
	s = in_child(child_handler_after_chaining);
	t_check(exited(s, 0), "a handler installed later that chains keeps safe calls working",
		"child status %#x", s);
	s = in_child(child_handler_after_reinit);
	t_check(exited(s, 0), "a handler installed later, then ntmem_safe_init() again",
		"child status %#x", s);
	s = in_child(child_nodefer);
	t_check(exited(s, 0), "SA_NODEFER is honoured", "child status %#x", s);
	s = in_child(child_altstack);
	t_check(exited(s, 100), "a stack overflow reaches the program's handler on its "
		"alternate stack", "child status %#x", s);
	s = in_child(child_no_handler);
	t_check(died_of(s, SIGSEGV), "without a handler the program dies of SIGSEGV",
		"child status %#x", s);
	s = in_child(child_no_handler_sigbus);
	t_check(died_of(s, SIGBUS), "without a handler the program dies of SIGBUS",
		"child status %#x", s);
	s = in_child(child_ignored);
	t_check(WIFSIGNALED(s) && WTERMSIG(s) == SIGSEGV,
		"SIG_IGN: a sent SIGSEGV is ignored, a fault still kills",
		"child status %#x", s);
	s = in_child(child_resethand);
	t_check(WIFSIGNALED(s) && WTERMSIG(s) == SIGSEGV,
		"SA_RESETHAND: the second fault gets the default action",
		"child status %#x", s);
}

int main(void)
{
	if (hole_alloc(&rh)) {
		t_fail("setup", "no memory for the hole");
		return t_finish();
	}
	fill_pat(rh.map, (size_t)(rh.at - rh.map), 0);
	concurrent_faults();
	truncated_file();
	foreign_faults();
	printf("  %lu faults recovered in this process\n", recovered());
	return t_finish();
}
