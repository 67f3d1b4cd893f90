/* test_errno.c - no successful public call changes errno (issue 12,
 * defect 3: the first call set it to ENOENT from the sysfs and profile
 * probes).
 *
 * Every call is made with errno set to a sentinel first, and errno must
 * still hold it after a call that succeeded.  The whole sequence runs
 * twice, each time in a fresh process and as that process's first calls
 * into the library: once from .preinit_array, before any constructor
 * (the library's included), and once from main. */
#define _GNU_SOURCE
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/wait.h>
#include <unistd.h>

#include "harness.h"
#include "ntmem.h"

#define SENTINEL 7777
#define LARGE ((size_t)72 << 20)  /* above every built-in threshold here */
#define MAX_FAILS 32

/* What the sequence found; no stdio before main. */
static char fails[MAX_FAILS][160];
static int nfails, ncalls;

static void record(const char *what, int ok)
{
	ncalls++;
	if (!ok && nfails < MAX_FAILS) {
		int e = errno;
		snprintf(fails[nfails++], sizeof fails[0], "%s: errno %d after success",
			 what, e);
	}
}

/* Set errno, make the call, check: CALL must succeed (OK true), then
 * errno must be the sentinel still. */
#define CHECK(what, call, ok)                                      \
	do {                                                       \
		errno = SENTINEL;                                  \
		__typeof__(call) r_ = (call);                      \
		record(what, (ok) ? errno == SENTINEL : 1);        \
		(void)r_;                                          \
	} while (0)

static void clears_and_copies(unsigned char *a, unsigned char *b)
{
	static const size_t sizes[] = {0, 1, 100, 4096, (size_t)1 << 20, LARGE};
	static const unsigned flag_sets[] = {
		0, NTMEM_F_TEMPORAL, NTMEM_F_NONTEMPORAL, NTMEM_F_NOFENCE,
		NTMEM_F_NONTEMPORAL | NTMEM_F_NOFENCE,
	};
	for (size_t i = 0; i < sizeof sizes / sizeof sizes[0]; i++) {
		size_t n = sizes[i];
		CHECK("ntmem_set zeros", ntmem_set(a, 0, n), r_ == a);
		CHECK("ntmem_set 0x5a", ntmem_set(a, 0x5a, n), r_ == a);
		CHECK("ntmem_copy", ntmem_copy(b, a, n), r_ == b);
		for (size_t f = 0; f < sizeof flag_sets / sizeof flag_sets[0]; f++) {
			CHECK("ntmem_set_flags", ntmem_set_flags(a, 1, n, flag_sets[f]), r_ == a);
			CHECK("ntmem_copy_flags", ntmem_copy_flags(b, a, n, flag_sets[f]),
			      r_ == b);
		}
	}
	errno = SENTINEL;
	ntmem_fence();
	record("ntmem_fence", errno == SENTINEL);
}

static void variants(unsigned char *a, unsigned char *b)
{
	CHECK("ntmem_variant_count", ntmem_variant_count(), r_ > 0);
	for (int id = 0; id < ntmem_variant_count(); id++) {
		struct ntmem_variant_info v;
		CHECK("ntmem_variant_info", ntmem_variant_info(id, &v), r_ == 0);
		CHECK("ntmem_role_name", ntmem_role_name(v.role), r_ != NULL);
		CHECK("ntmem_variant_find", ntmem_variant_find(v.op, v.name), r_ == id);
		if (!v.supported)
			continue;
		if (v.op == NTMEM_OP_SET)
			CHECK("ntmem_variant_set", ntmem_variant_set(id, a, 0, 1 << 16, 0),
			      r_ == a);
		else
			CHECK("ntmem_variant_copy", ntmem_variant_copy(id, b, a, 1 << 16, 0),
			      r_ == b);
	}
}

static void policy(void)
{
	static const size_t sizes[] = {1, 600, (size_t)1 << 20, LARGE};
	for (int cls = 0; cls < 3; cls++) {
		struct ntmem_ladder_info l;
		CHECK("ntmem_ladder_info", ntmem_ladder_info((enum ntmem_class)cls, &l),
		      r_ == 0);
	}
	for (size_t i = 0; i < sizeof sizes / sizeof sizes[0]; i++)
		for (int op = 0; op < 2; op++) {
			CHECK("ntmem_policy_choice",
			      ntmem_policy_choice((enum ntmem_op)op, 0, sizes[i], 0), r_ != -1);
			CHECK("ntmem_policy_choice NONTEMPORAL",
			      ntmem_policy_choice((enum ntmem_op)op, 1, sizes[i],
						  NTMEM_F_NONTEMPORAL), r_ != -1);
		}
	struct ntmem_policy_status st;
	CHECK("ntmem_policy_status", ntmem_policy_status(&st), r_ == 0);
	CHECK("ntmem_policy_ignored", ntmem_policy_ignored(0), 1);
	CHECK("ntmem_origin_name", ntmem_origin_name(NTMEM_ORIGIN_PROFILE), r_ != NULL);
	struct ntmem_cpu_info cpu;
	CHECK("ntmem_cpu_info", ntmem_cpu_info(&cpu), r_ == 0);
	CHECK("ntmem_version", ntmem_version(), r_ != NULL);
}

/* The sequence, into fails[]; the buffers from mmap, not malloc, so
 * nothing but the library is asked anything first. */
static void run_sequence(void)
{
	size_t len = LARGE + 4096;
	unsigned char *a = mmap(NULL, 2 * len, PROT_READ | PROT_WRITE,
				MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (a == MAP_FAILED) {
		snprintf(fails[nfails++], sizeof fails[0], "mmap failed");
		return;
	}
	/* The first call of all, bare. */
	CHECK("first ntmem_set", ntmem_set(a, 0, 100), r_ == a);
	clears_and_copies(a, a + len);
	variants(a, a + len);
	policy();
	munmap(a, 2 * len);
}

static int preinit_ran;

static void first_calls_before_constructors(int argc, char **argv, char **envp)
{
	(void)argc;
	(void)argv;
	for (char **e = envp; *e; e++)
		if (!strcmp(*e, "NTMEM_ERRNO_PHASE=preinit")) {
			preinit_ran = 1;
			run_sequence();
		}
}

__attribute__((section(".preinit_array"), used))
static void (*const preinit)(int, char **, char **) = first_calls_before_constructors;

/* Run this program again in phase, in a fresh process; report. */
static void phase(char **argv, const char *value, const char *name)
{
	pid_t pid = fork();
	if (pid == 0) {
		setenv("NTMEM_ERRNO_PHASE", value, 1);
		t_exec_self(argv);
		_exit(127);
	}
	int status = -1;
	waitpid(pid, &status, 0);
	t_check(WIFEXITED(status) && WEXITSTATUS(status) == 0, name,
		"child status %#x (its failures are above)", status);
}

int main(int argc, char **argv)
{
	(void)argc;
	const char *ph = getenv("NTMEM_ERRNO_PHASE");
	if (ph && !strcmp(ph, "main"))
		run_sequence();
	if (ph) {
		if (!strcmp(ph, "preinit") && !preinit_ran)
			printf("FAIL  .preinit_array did not run\n");
		for (int i = 0; i < nfails; i++)
			printf("FAIL  errno (%s first): %s\n", ph, fails[i]);
		printf("%s first: %d calls checked, %d changed errno\n", ph, ncalls, nfails);
		return nfails || !ncalls || (!strcmp(ph, "preinit") && !preinit_ran);
	}
	phase(argv, "preinit", "errno unchanged by every successful call, made "
	      "before any constructor");
	phase(argv, "main", "errno unchanged by every successful call, made first "
	      "from main");
	return t_finish();
}
