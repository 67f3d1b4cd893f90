/*
 * test_asan.c - in an AddressSanitizer build of the library, the public
 * calls report an overflow as the C library's interceptors do, whatever
 * variant serves them (util/sanitize.h).  Before, ASan saw an
 * overflowing ntmem_set or ntmem_copy only when the C library's function
 * served it: a 100 KB ntmem_copy, a small overflowing copy and a read
 * past the source went unseen.
 *
 * Each bad call runs in a child, whose standard error must hold ASan's
 * report of the right kind (a read or a write, of the call's size); the
 * same calls within bounds, the control, must report nothing.  Other
 * builds skip: there is no ASan to report to.
 */
#define _GNU_SOURCE
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "harness.h"
#include "ntmem.h"

#if defined(__SANITIZE_ADDRESS__)
#define ASAN 1
#elif defined(__has_feature)
#if __has_feature(address_sanitizer)
#define ASAN 1
#endif
#endif

#ifdef ASAN
#define BIG (100 * 1024)
#define SMALL 600   /* past every width's small path (at most 512 B) */

enum call { SET, COPY, SET_FLAGS, COPY_FLAGS, VARIANT_COPY, COPY_OPTS };

static const char *const call_name[] = {
	"ntmem_set", "ntmem_copy", "ntmem_set_flags", "ntmem_copy_flags",
	"ntmem_variant_copy", "ntmem_copy_opts",
};

/* The call, on heap buffers of n bytes; over: the destination (write) or
 * the source (read) is one byte short. */
static void make_call(enum call c, size_t n, int over_dst, int over_src)
{
	unsigned char *dst = malloc(n - (size_t)over_dst);
	unsigned char *src = malloc(n - (size_t)over_src);
	if (!dst || !src)
		_exit(3);
	memset(src, 0x5a, n - (size_t)over_src);
	struct ntmem_opts o = {.flags = NTMEM_F_NONTEMPORAL};
	int movsb = ntmem_variant_find(NTMEM_OP_COPY, "movsb");
	switch (c) {
	case SET:
		ntmem_set(dst, 1, n);
		break;
	case COPY:
		ntmem_copy(dst, src, n);
		break;
	case SET_FLAGS:
		ntmem_set_flags(dst, 0, n, NTMEM_F_NONTEMPORAL);
		break;
	case COPY_FLAGS:
		ntmem_copy_flags(dst, src, n, NTMEM_F_TEMPORAL);
		break;
	case VARIANT_COPY:
		ntmem_variant_copy(movsb >= 0 ? movsb : ntmem_variant_find(NTMEM_OP_COPY,
						       "portable"), dst, src, n, 0);
		break;
	case COPY_OPTS:
		ntmem_copy_opts(dst, src, n, &o);
		break;
	}
	free(dst);
	free(src);
}

/* Run the call in a child; its exit status and standard error. */
static int in_child(enum call c, size_t n, int over_dst, int over_src,
		    char *err, size_t len)
{
	int fds[2];
	if (pipe(fds))
		return -1;
	fflush(NULL);
	pid_t pid = fork();
	if (pid == 0) {
		close(fds[0]);
		dup2(fds[1], 2);
		make_call(c, n, over_dst, over_src);
		_exit(0);
	}
	close(fds[1]);
	size_t got = 0;
	ssize_t r;
	while ((r = read(fds[0], err + got, len - 1 - got)) > 0 && got + 1 < len)
		got += (size_t)r;
	err[got] = '\0';
	close(fds[0]);
	int status;
	waitpid(pid, &status, 0);
	return status;
}

static void check(enum call c, size_t n, int over_dst, int over_src)
{
	static char err[16384];
	char name[160], want[64];
	int status = in_child(c, n, over_dst, over_src, err, sizeof err);
	snprintf(name, sizeof name, "asan: %s of %zu B %s", call_name[c], n,
		 over_dst ? "past the destination: reported as a write"
		 : over_src ? "past the source: reported as a read"
			    : "within bounds: nothing reported");
	if (!over_dst && !over_src) {
		t_check(WIFEXITED(status) && WEXITSTATUS(status) == 0 &&
				!strstr(err, "AddressSanitizer"),
			name, "status 0x%x: %.600s", status, err);
		return;
	}
	snprintf(want, sizeof want, "%s of size %zu", over_dst ? "WRITE" : "READ", n);
	t_check(!(WIFEXITED(status) && WEXITSTATUS(status) == 0) &&
			strstr(err, "ERROR: AddressSanitizer: heap-buffer-overflow") &&
			strstr(err, want),
		name, "status 0x%x, want '%s': %.600s", status, want, err);
}
#endif

int main(void)
{
#ifndef ASAN
	t_skip("asan: overflowing calls are reported",
	       "not an AddressSanitizer build (make check's sanitize stage is)");
#else
	static const enum call calls[] = {SET, COPY, SET_FLAGS, COPY_FLAGS,
					  VARIANT_COPY, COPY_OPTS};
	for (size_t i = 0; i < sizeof calls / sizeof calls[0]; i++) {
		enum call c = calls[i];
		int copies = c != SET && c != SET_FLAGS;
		check(c, BIG, 0, 0);
		check(c, BIG, 1, 0);
		check(c, SMALL, 1, 0);
		if (copies) {
			check(c, BIG, 0, 1);
			check(c, SMALL, 0, 1);
		}
	}
#endif
	return t_finish();
}
