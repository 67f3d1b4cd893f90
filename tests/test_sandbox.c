/* test_sandbox.c - a program in a seccomp sandbox (tests/sandbox.h: write,
 * exit_group, futex, mmap, munmap, brk, madvise, rt_sigreturn,
 * clock_gettime and getcpu, nothing else) makes 3,000 calls each of
 * memcpy and memset from 1 MiB to 64 MiB on two CPUs, and must run to
 * completion: linked with libntmem.a (this program, run again with
 * --sandbox) and as a plain program under the shim; with no profile, with
 * a profile present, and with the bands learning after 16 calls, so that
 * trials run inside the sandbox too. */
#define _GNU_SOURCE
#include "dispatch/policy.h"
#include "dispatch/profile.h"
#include "preload/spawn.h"

#include "ntmem.h"

#define SANDBOX_COPY(d, s, n) ntmem_copy((d), (s), (n))
#define SANDBOX_SET(d, c, n) ntmem_set((d), (c), (n))
#include "sandbox.h"

/* A profile of this CPU in the scratch directory, as calibrate writes
 * one: its ladders those of the built-in policy.  Its path, or NULL. */
static const char *write_profile(void)
{
	static char path[PATH_MAX];
	if (t_scratch_make("sandbox") || t_scratch_untrusted())
		return NULL;
	snprintf(path, sizeof path, "%s", t_scratch_path("profile"));
	struct profile p;
	const struct policy *pol = ntm_policy_for_report();
	ntm_profile_init(&p, ntm_cpu());
	for (int cls = 0; cls < NTMEM_CLASSES; cls++)
		if (ntm_ladder_format(&pol->ladder[cls], p.ladder[cls].rungs,
				      sizeof p.ladder[cls].rungs))
			return NULL;
	return ntm_profile_write(path, &p, NULL, 0) ? NULL : path;
}

static void run_one(const char *what, char *const argv[], const char *const *env)
{
	struct outcome o;
	if (spawn(argv, env, 120, &o)) {
		t_fail(what, "could not start %s", argv[0]);
		return;
	}
	char end[80], out[80], err[80];
	if (o.timed_out)
		snprintf(end, sizeof end, "timed out");
	else if (WIFSIGNALED(o.status))
		snprintf(end, sizeof end, "killed by %s", strsignal(WTERMSIG(o.status)));
	else
		snprintf(end, sizeof end, "exit %d", WEXITSTATUS(o.status));
	t_check(exited(&o, 0) && strstr(o.out, "exact"), what, "%s; stdout: %s; "
		"stderr: %s", end, first_line(o.out, out, sizeof out),
		first_line(o.err, err, sizeof err));
	outcome_free(&o);
}

int main(int argc, char **argv)
{
	unsigned calls = t_quick() ? SANDBOX_CALLS / 5 : SANDBOX_CALLS;
	if (argc == 3 && !strcmp(argv[1], "--sandbox"))
		return sandbox_main((unsigned)atoi(argv[2]));
	const char *name = "sandbox: calls under a seccomp filter installed at main";
	const char *why = spawn_unavailable();
#ifndef SANDBOX_ARCH
	why = "no seccomp filter for this architecture here";
#endif
	struct places at;
	if (!why && find_places(&at))
		why = "cannot find build/ntmem and its shim";
	if (why) {
		t_skip(name, why);
		return t_finish();
	}
	const char *profile = write_profile();
	char profile_env[PATH_MAX + 16];
	snprintf(profile_env, sizeof profile_env, "NTMEM_PROFILE=%s", profile ? profile : "");
	const char *const setups[][3] = {
		{"no profile", "NTMEM_PROFILE=none", "-NTMEM_TUNABLES"},
		{"a profile present", profile_env, "-NTMEM_TUNABLES"},
		{"learning after 16 calls", "NTMEM_PROFILE=none",
		 "NTMEM_TUNABLES=learn_after=16"},
	};
	char count[16], self[PATH_MAX], helper[PATH_MAX + 16], preload[PATH_MAX + 16];
	snprintf(count, sizeof count, "%u", calls);
	ssize_t len = readlink("/proc/self/exe", self, sizeof self - 1);
	if (len <= 0)
		snprintf(self, sizeof self, "%s", argv[0]);
	else
		self[len] = '\0';
	snprintf(helper, sizeof helper, "%s/sandbox", at.helpers);
	snprintf(preload, sizeof preload, "LD_PRELOAD=%s", at.shim);
	for (size_t i = 0; i < sizeof setups / sizeof setups[0]; i++) {
		char what[200];
		if (i == 1 && !profile) {
			t_skip("sandbox: with a profile present", t_scratch_untrusted()
			       ? t_scratch_untrusted() : "could not write the profile");
			continue;
		}
		const char *env[] = {setups[i][1], setups[i][2], "-LD_PRELOAD", NULL};
		char *lib_argv[] = {self, "--sandbox", count, NULL};
		snprintf(what, sizeof what, "sandbox: libntmem.a, %s: %u calls of each, "
			 "to completion", setups[i][0], calls);
		run_one(what, lib_argv, env);
		if (SHIM_SANITIZED) {
			t_skip("sandbox: the shim", SHIM_SANITIZED_WHY);
			continue;
		}
		const char *shim_env[] = {setups[i][1], setups[i][2], preload, NULL};
		char *shim_argv[] = {helper, count, NULL};
		snprintf(what, sizeof what, "sandbox: the shim, %s: %u calls of each, "
			 "to completion", setups[i][0], calls);
		run_one(what, shim_argv, shim_env);
	}
	t_scratch_remove();
	return t_finish();
}
