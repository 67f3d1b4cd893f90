/* test_shim_width.c - the shim runs the width the process may use, not
 * the one whose library ntmem run preloaded: a command that turns a
 * width off for itself (GLIBC_TUNABLES glibc.cpu.hwcaps, set by the
 * command, not by ntmem run) gets the next narrower, by the width the
 * shim reports (tests/preload/width.c); and under valgrind, which runs no
 * AVX-512 instruction, the AVX-512 library's calls run none either. */
#define _GNU_SOURCE
#include "preload/spawn.h"

#include "dispatch/cpu.h"
#include "dispatch/width.h"

#define HWCAPS_EVEX "GLIBC_TUNABLES=glibc.cpu.hwcaps=-AVX512F,-AVX512VL,-AVX512BW"
#define HWCAPS_AVX2 "GLIBC_TUNABLES=glibc.cpu.hwcaps=-AVX2"

/* The width the helper reports, run as argv with env; "" on failure. */
static const char *width_of(char *const argv[], const char *const *env, char *buf,
			    size_t len)
{
	struct outcome o;
	buf[0] = '\0';
	if (spawn(argv, env, 120, &o) == 0 && exited(&o, 0))
		snprintf(buf, len, "%.*s", (int)strcspn(o.out, "\n"), o.out);
	else if (!o.timed_out && WIFSIGNALED(o.status))
		snprintf(buf, len, "killed by %s", strsignal(WTERMSIG(o.status)));
	outcome_free(&o);
	return buf;
}

/* ntmem run -- env HWCAPS helper, against ntmem run -- helper. */
static void test_from_command(const struct places *at, const char *hwcaps,
			      const char *wide, const char *narrow)
{
	char name[200], helper[PATH_MAX + 16], got[64], full[64];
	snprintf(name, sizeof name, "shim width: ntmem run -- env %s: %s, not %s",
		 hwcaps + strlen("GLIBC_TUNABLES="), narrow, wide);
	snprintf(helper, sizeof helper, "%s/width", at->helpers);
	char *plain[] = {(char *)at->ntmem, "run", "--", helper, NULL};
	char *turned[] = {(char *)at->ntmem, "run", "--", "env", (char *)hwcaps, helper, NULL};
	const char *env[] = {"NTMEM_PROFILE=none", "-NTMEM_TUNABLES", "-GLIBC_TUNABLES", NULL};
	width_of(plain, env, full, sizeof full);
	width_of(turned, env, got, sizeof got);
	t_check(!strcmp(full, wide) && !strcmp(got, narrow), name,
		"without it %s, with it %s", full, got);
}

/* Under valgrind (CPUID without AVX-512), the AVX-512 library. */
static void test_valgrind(const struct places *at)
{
	const char *name = "shim width: the AVX-512 library under valgrind runs no "
			   "AVX-512 instruction";
	char shim[PATH_MAX + 64], preload[PATH_MAX + 80], helper[PATH_MAX + 16], got[64];
	snprintf(shim, sizeof shim, "%.*s/avx512/libntmem-preload.so",
		 (int)(strrchr(at->ntmem, '/') - at->ntmem), at->ntmem);
	if (access(shim, R_OK)) {
		t_skip(name, "no AVX-512 library of the shim in this build");
		return;
	}
	if (system("valgrind --version >/dev/null 2>&1")) {
		t_skip(name, "valgrind is not installed");
		return;
	}
	/* A copy without debug information: the valgrind of Debian 12 cannot
	 * read clang's DWARF 5 and gives up on the whole program. */
	char copy[] = "/tmp/ntmem-width-XXXXXX", cmd[PATH_MAX + 128];
	int fd = mkstemp(copy);
	if (fd >= 0)
		close(fd);
	snprintf(cmd, sizeof cmd, "objcopy --strip-debug '%s' '%s'", shim, copy);
	snprintf(preload, sizeof preload, "LD_PRELOAD=%s",
		 fd >= 0 && system(cmd) == 0 ? copy : shim);
	snprintf(helper, sizeof helper, "%s/width", at->helpers);
	char *argv[] = {"valgrind", "-q", "--tool=none", helper, NULL};
	const char *env[] = {preload, "NTMEM_PROFILE=none", "-NTMEM_TUNABLES",
			     "-GLIBC_TUNABLES", NULL};
	width_of(argv, env, got, sizeof got);
	if (fd >= 0)
		unlink(copy);
	t_check(!strcmp(got, "avx2") || !strcmp(got, "sse2"), name, "it said %s",
		got[0] ? got : "nothing");
}

int main(void)
{
	const char *why = spawn_unavailable();
	struct places at;
	if (!why && SHIM_SANITIZED)
		why = SHIM_SANITIZED_WHY;
	if (!why && find_places(&at))
		why = "cannot find build/ntmem and its shim";
#if !defined(__x86_64__)
	why = "the shim has one width off x86-64";
#endif
	if (why) {
		t_skip("shim width: the width the process allows", why);
		return t_finish();
	}
	enum ntm_width w = ntm_width_for(ntm_cpu()->usable);
	if (w == NTM_WIDTH_AVX512)
		test_from_command(&at, HWCAPS_EVEX, "avx512", "avx2");
	else
		t_skip("shim width: AVX-512 turned off by the command",
		       "this process may not use AVX-512 here");
	if (w >= NTM_WIDTH_AVX2 && w != NTM_WIDTH_NEON)
		test_from_command(&at, w == NTM_WIDTH_AVX512
			? HWCAPS_EVEX ",-AVX2" : HWCAPS_AVX2,
			w == NTM_WIDTH_AVX512 ? "avx512" : "avx2", "sse2");
	else
		t_skip("shim width: AVX2 turned off by the command",
		       "this process may not use AVX2 here");
	test_valgrind(&at);
	return t_finish();
}
