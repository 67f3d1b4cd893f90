/* test_stack.c - the stack a call takes (tests/stackcheck.h), the first
 * call of its kind included: under the shim and with libntmem.a, at most
 * the C library's for the same call plus 1 KiB, on a painted stack in a
 * program bound at load; and a first 2 MiB copy fits an SS_AUTODISARM
 * alternate stack of 8 KiB with 2 KiB of handler locals, and a ucontext
 * stack of 8 KiB with 5 KiB of locals, changing no byte below them. */
#define _GNU_SOURCE
#include "preload/spawn.h"

#include "ntmem.h"

#define STACK_COPY(d, s, n) ntmem_copy((d), (s), (n))
#define STACK_SET(d, c, n) ntmem_set((d), (c), (n))
#include "stackcheck.h"

#define ALLOWANCE 1024

/* argv's output's "depth N", or -1 (the message in why). */
static long depth_of(char *const argv[], const char *const *env, char *why,
		     size_t len)
{
	struct outcome o;
	long d = -1;
	if (spawn(argv, env, 60, &o) == 0 && exited(&o, 0) &&
	    sscanf(o.out, "depth %ld", &d) == 1)
		;
	else
		snprintf(why, len, "%s: status %#x, %s", argv[0], o.status, o.err ? o.err : "");
	outcome_free(&o);
	return d;
}

static void test_depths(const struct places *at, const char *self)
{
	static const size_t sizes[] = {8, 300, 4096, 65536, 1 << 20, 2 << 20, 16 << 20};
	char helper[PATH_MAX + 16], preload[PATH_MAX + 16], n[32], why[300] = "";
	snprintf(helper, sizeof helper, "%s/stack", at->helpers);
	snprintf(preload, sizeof preload, "LD_PRELOAD=%s", at->shim);
	const char *native[] = {"-LD_PRELOAD", "NTMEM_PROFILE=none", NULL};
	const char *shimmed[] = {preload, "NTMEM_PROFILE=none", NULL};
	int bad = 0;
	long worst = LONG_MIN;
	for (int copy = 0; copy < 2; copy++)
		for (size_t i = 0; i < sizeof sizes / sizeof sizes[0]; i++) {
			snprintf(n, sizeof n, "%zu", sizes[i]);
			char *op = copy ? "copy" : "set";
			char *h_argv[] = {helper, "depth", op, n, NULL};
			char *l_argv[] = {(char *)self, "--lib", "depth", op, n, NULL};
			long libc = depth_of(h_argv, native, why, sizeof why);
			long shim = SHIM_SANITIZED ? 0 : depth_of(h_argv, shimmed, why, sizeof why);
			long lib = depth_of(l_argv, native, why, sizeof why);
			if (libc < 0 || shim < 0 || lib < 0) {
				bad++;
				continue;
			}
			long over = (shim > lib ? shim : lib) - libc;
			worst = over > worst ? over : worst;
			if (over > ALLOWANCE && !bad++)
				snprintf(why, sizeof why, "%s of %s B: the C library %ld B, "
					 "the shim %ld B, libntmem.a %ld B", op, n, libc, shim, lib);
		}
	t_check(!bad, "stack: no first call takes more than the C library's "
		"stack plus 1 KiB (shim and libntmem.a)", "%s", why);
	if (!bad)
		printf("  the most over the C library's: %ld B\n", worst);
}

static void test_small(const struct places *at, const char *self, const char *mode,
		       const char *name)
{
	char helper[PATH_MAX + 16], preload[PATH_MAX + 16];
	snprintf(helper, sizeof helper, "%s/stack", at->helpers);
	snprintf(preload, sizeof preload, "LD_PRELOAD=%s", at->shim);
	const char *shimmed[] = {preload, "NTMEM_PROFILE=none", NULL};
	const char *native[] = {"-LD_PRELOAD", "NTMEM_PROFILE=none", NULL};
	char *h_argv[] = {helper, (char *)mode, NULL};
	char *l_argv[] = {(char *)self, "--lib", (char *)mode, NULL};
	struct outcome o, l;
	int shim_ok = SHIM_SANITIZED || (spawn(h_argv, shimmed, 60, &o) == 0 &&
					 exited(&o, 0) && strstr(o.out, "PASS"));
	int lib_ok = spawn(l_argv, native, 60, &l) == 0 && exited(&l, 0) &&
		     strstr(l.out, "PASS");
	t_check(shim_ok && lib_ok, name, "shim %s (status %#x), libntmem.a %s (status "
		"%#x)", shim_ok ? "ok" : "overran", SHIM_SANITIZED ? 0 : o.status,
		lib_ok ? "ok" : "overran", l.status);
	if (!SHIM_SANITIZED)
		outcome_free(&o);
	outcome_free(&l);
}

int main(int argc, char **argv)
{
	if (argc > 2 && !strcmp(argv[1], "--lib")) {
		argv[1] = argv[0];
		return stackcheck_main(argc - 1, argv + 1);
	}
	struct places at;
	const char *why = spawn_unavailable();
	if (!why && find_places(&at))
		why = "cannot find build/ntmem and its shim";
	char self[PATH_MAX];
	ssize_t len = readlink("/proc/self/exe", self, sizeof self - 1);
	if (!why && len <= 0)
		why = "cannot find this program (/proc/self/exe)";
	if (why) {
		t_skip("stack: the calls' stack", why);
		return t_finish();
	}
	self[len] = '\0';
	test_depths(&at, self);
	test_small(&at, self, "altstack", "stack: a first 2 MiB copy in a handler on "
		   "an 8 KiB SS_AUTODISARM alternate stack, 2 KiB of locals");
	test_small(&at, self, "coroutine", "stack: a first 2 MiB copy on an 8 KiB "
		   "ucontext stack, 5 KiB of locals");
	return t_finish();
}
