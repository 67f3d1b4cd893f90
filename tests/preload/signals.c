/*
 * signals.c - memset and memcpy called from a signal handler that
 * interrupts memset and memcpy.
 *
 * A timer fires every 200 microseconds while the program copies and
 * clears megabytes; the handler itself clears and copies buffers of its
 * own, small and beyond the small path, and checks them.  The shim's
 * paths take no lock and allocate nothing, so neither side may hang or
 * see a wrong byte.
 */
#include "helper.h"

#include <signal.h>
#include <string.h>
#include <sys/time.h>
#include <time.h>

#define HANDLER_N (96u << 10)
#define MAIN_N ((1u << 20) + 11)

static unsigned char h_src[HANDLER_N], h_dst[HANDLER_N];
static unsigned char m_src[MAIN_N], m_dst[MAIN_N];
static volatile sig_atomic_t handled, handler_bad;

static void on_alarm(int sig)
{
	(void)sig;
	static const size_t ns[] = {24, 700, HANDLER_N};
	size_t n = ns[handled % 3];
	memset(h_dst, 0x3c, n);
	for (size_t i = 0; i < n; i += 97)
		if (h_dst[i] != 0x3c)
			handler_bad = 1;
	memcpy(h_dst, h_src, n);
	if (ref_differ(h_dst, h_src, n) >= 0)
		handler_bad = 1;
	memmove(h_dst + 5, h_dst, n - 5);
	if (ref_differ(h_dst + 5, h_src, n - 5) >= 0)
		handler_bad = 1;
	handled++;
}

static double seconds(void)
{
	struct timespec t;
	clock_gettime(CLOCK_MONOTONIC, &t);
	return (double)t.tv_sec + 1e-9 * (double)t.tv_nsec;
}

int main(void)
{
	ref_pattern(h_src, sizeof h_src, 1);
	ref_pattern(m_src, sizeof m_src, 2);
	struct sigaction sa = {.sa_handler = on_alarm};
	sigemptyset(&sa.sa_mask);
	sa.sa_flags = SA_RESTART;
	struct itimerval every = {{0, 200}, {0, 200}}, off = {{0, 0}, {0, 0}};
	if (sigaction(SIGALRM, &sa, NULL) || setitimer(ITIMER_REAL, &every, NULL)) {
		helper_fail("signal handler", "cannot set up the timer");
		return helper_exit();
	}
	int main_bad = 0, rounds = 0;
	double deadline = seconds() + 3.0;
	while ((handled < 50 || rounds < 10) && seconds() < deadline) {
		memset(m_dst, rounds & 0xff, MAIN_N);
		if (m_dst[MAIN_N - 1] != (rounds & 0xff) || m_dst[0] != (rounds & 0xff))
			main_bad = 1;
		memcpy(m_dst, m_src, MAIN_N);
		if (ref_differ(m_dst, m_src, MAIN_N) >= 0)
			main_bad = 1;
		rounds++;
	}
	setitimer(ITIMER_REAL, &off, NULL);
	printf("INFO %d rounds, the handler ran %d times\n", rounds, (int)handled);
	if (handled == 0)
		helper_fail("signal handler", "the timer never fired");
	else if (handler_bad)
		helper_fail("signal handler", "a copy or clear in the handler was wrong");
	else if (main_bad)
		helper_fail("signal handler", "a copy or clear it interrupted was wrong");
	else
		helper_pass("signal handler");
	return helper_exit();
}
