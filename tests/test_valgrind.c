/*
 * test_valgrind.c - safe calls under valgrind count the bytes left as
 * they do on the CPU.
 *
 * A safe call served by rep movsb or rep stosb took the bytes left from
 * rcx at the fault.  valgrind's emulation of a rep string instruction
 * counts rcx down before the element's access, so there the count was
 * one short (4095 left where 4096 are).  The guarded loops now take the
 * end from before the rep and the progress from rdi, which is exact in
 * both.  This test runs itself under valgrind (memcheck) with the rep
 * loops as the policy, and each vector loop as the control, and checks
 * every count against the page layout it made.
 */
#define _GNU_SOURCE
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "harness.h"
#include "ntmem.h"

#define PAGE 4096

/* In the child: three pages readable and writable around a PROT_NONE
 * one; each call starts a page before the hole and spans two pages, so
 * exactly one page is left. */
static int child(void)
{
	unsigned char *m = mmap(NULL, 4 * PAGE, PROT_READ | PROT_WRITE,
				MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	unsigned char *src = mmap(NULL, 4 * PAGE, PROT_READ | PROT_WRITE,
				  MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (m == MAP_FAILED || src == MAP_FAILED || mprotect(m + 2 * PAGE, PAGE, PROT_NONE))
		return 2;
	memset(src, 7, 4 * PAGE);
	printf("copy-write %zu\n", ntmem_copy_safe(m + PAGE, src, 2 * PAGE, 0));
	printf("copy-read %zu\n", ntmem_copy_safe(src, m + PAGE, 2 * PAGE, 0));
	printf("set-write %zu\n", ntmem_set_safe(m + PAGE, 1, 2 * PAGE, 0));
	printf("guarded %s %s\n",
	       ntmem_variant_guarded_by(ntmem_policy_choice(NTMEM_OP_COPY, 0, 2 * PAGE, 0)),
	       ntmem_variant_guarded_by(ntmem_policy_choice(NTMEM_OP_SET, 1, 2 * PAGE, 0)));
	return 0;
}

static size_t value_of(const char *out, const char *key)
{
	const char *s = strstr(out, key);
	return s ? strtoul(s + strlen(key), NULL, 10) : 0;
}

static void under_valgrind(const char *exe, const char *copy, const char *set)
{
	char cmd[4200], name[128], *out = NULL, *err = NULL;
	snprintf(cmd, sizeof cmd, "NTMEM_PROFILE=none NTMEM_TUNABLES=copy=%s,set=%s "
		 "valgrind -q --error-exitcode=99 '%s' --child", copy, set, exe);
	int st = t_run(cmd, &out, &err);
	snprintf(name, sizeof name, "valgrind: safe calls by %s and %s leave "
		 "exactly one page", copy, set);
	char want[64];
	snprintf(want, sizeof want, "guarded %s %s", copy, set);
	t_check(st == 0 && out && strstr(out, want) &&
			value_of(out, "copy-write ") == PAGE &&
			value_of(out, "copy-read ") == PAGE &&
			value_of(out, "set-write ") == PAGE,
		name, "status %d\n%s%s", st, out ? out : "", err ? err : "");
	free(out);
	free(err);
}

static int has_valgrind(void)
{
	return system("valgrind --version >/dev/null 2>&1") == 0;
}

/* Why this build cannot run the test here, or NULL. */
static const char *cannot_run(void)
{
#if !defined(__x86_64__)
	return "the rep string loops are x86-64's";
#endif
#if defined(__SANITIZE_ADDRESS__) || defined(__SANITIZE_THREAD__)
	return "a sanitizer build cannot run under valgrind";
#endif
#if defined(__has_feature)
#if __has_feature(address_sanitizer) || __has_feature(thread_sanitizer)
	return "a sanitizer build cannot run under valgrind";
#endif
#endif
	const char *wrapper = getenv("TEST_WRAPPER");
	if (wrapper && *wrapper)
		return "under an emulator (TEST_WRAPPER)";
	if (!has_valgrind())
		return "valgrind is not installed (apt-get install valgrind)";
	return NULL;
}

int main(int argc, char **argv)
{
	if (argc == 2 && !strcmp(argv[1], "--child"))
		return child();
	const char *why = cannot_run();
	if (why) {
		t_skip("valgrind: safe calls", why);
		return t_finish();
	}
	char exe[4096];
	ssize_t n = readlink("/proc/self/exe", exe, sizeof exe - 1);
	if (n <= 0) {
		t_fail("valgrind: this program's path", "readlink /proc/self/exe");
		return t_finish();
	}
	exe[n] = '\0';
	/* valgrind runs a copy without debug information: the valgrind of
	 * Debian 12 cannot read clang's DWARF 5 and gives up on the whole
	 * program. */
	char copy[] = "/tmp/ntmem-valgrind-XXXXXX", cmd[4200];
	int fd = mkstemp(copy);
	if (fd >= 0)
		close(fd);
	snprintf(cmd, sizeof cmd, "objcopy --strip-debug '%s' '%s' && chmod 700 '%s'",
		 exe, copy, copy);
	const char *run = fd >= 0 && system(cmd) == 0 ? copy : exe;
	under_valgrind(run, "movsb", "stosb");
	/* The control: vector loops, whose fixups always used their own
	 * progress register. */
	under_valgrind(run, "vec_avx2", "vec_avx2");
	if (fd >= 0)
		unlink(copy);
	return t_finish();
}
