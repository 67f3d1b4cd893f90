/* spawn.h - what the shim's test programs (test_run, test_preload,
 * test_preload_real) share: running a command with its output captured,
 * the helpers' PASS/FAIL lines as checks, and the --report table. */
#ifndef NTM_PRELOAD_SPAWN_H
#define NTM_PRELOAD_SPAWN_H

#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "../harness.h"
#include "measure/shim_path.h"
#include "ntmem.h"

/* A shim built with AddressSanitizer cannot be preloaded into other
 * programs: the ASan runtime must come first, and it interposes memset
 * and memcpy itself. */
#if defined(__SANITIZE_ADDRESS__)
#define SHIM_SANITIZED 1
#elif defined(__has_feature)
#if __has_feature(address_sanitizer)
#define SHIM_SANITIZED 1
#endif
#endif
#ifndef SHIM_SANITIZED
#define SHIM_SANITIZED 0
#endif
#define SHIM_SANITIZED_WHY                                                  \
	"this build uses AddressSanitizer, whose runtime must be loaded first " \
	"and interposes memset and memcpy itself: the gcc and clang builds "    \
	"test the shim"

/* Why programs cannot be started here, or NULL when they can: under an
 * emulator (tests/run.sh's TEST_WRAPPER, qemu-user for a cross build),
 * this foreign program cannot exec another without binfmt_misc, which
 * make check does not rely on.  The native builds run these checks. */
static inline const char *spawn_unavailable(void)
{
	const char *w = getenv("TEST_WRAPPER");
	return w && *w ? "under an emulator (TEST_WRAPPER) a test program "
			 "cannot start another foreign program; the native "
			 "gcc and clang builds run these checks"
		       : NULL;
}

struct outcome {
	int status;     /* as waitpid gives it */
	int timed_out;
	char *out, *err;
};

/* Where the build under test keeps things: the ntmem binary, the shim
 * next to it, the helper programs under tests/preload/. */
/* shim: the library ntmem run preloads here, the one of this CPU's width
 * (or NTMEM_TUNABLES shim_width='s) where the build has it; dispatching:
 * the one that runs every width, which ntmem run --report preloads. */
struct places {
	char ntmem[PATH_MAX], shim[PATH_MAX], dispatching[PATH_MAX];
	char helpers[PATH_MAX];
};

static inline int find_places(struct places *p)
{
	char dir[PATH_MAX], shim[PATH_MAX + 32];
	if (!realpath(t_ntmem(), p->ntmem))
		return -1;
	snprintf(dir, sizeof dir, "%s", p->ntmem);
	*strrchr(dir, '/') = '\0';
	snprintf(shim, sizeof shim, "%s/libntmem-preload.so", dir);
	if (!realpath(shim, p->dispatching))
		return -1;
	const char *width = shim_width_dir(getenv("NTMEM_TUNABLES"));
	snprintf(shim, sizeof shim, "%s/%s/libntmem-preload.so", dir,
		 width ? width : ".");
	if (!realpath(shim, p->shim))
		snprintf(p->shim, sizeof p->shim, "%s", p->dispatching);
	snprintf(p->helpers, sizeof p->helpers, "%.*s/tests/preload",
		 PATH_MAX - 20, dir);
	return 0;
}

static inline char *spawn_slurp(const char *path)
{
	FILE *f = fopen(path, "r");
	size_t len = 0, cap = 4096;
	char *s = malloc(cap);
	if (!s)
		abort();
	while (f) {
		if (len + 4096 + 1 > cap && !(s = realloc(s, cap *= 2)))
			abort();
		size_t n = fread(s + len, 1, 4096, f);
		len += n;
		if (n == 0)
			break;
	}
	if (f)
		fclose(f);
	s[len] = '\0';
	return s;
}

/* In the child: "NAME=VALUE" sets, "-NAME" unsets. */
static inline void spawn_env(const char *const *env)
{
	for (; env && *env; env++) {
		if (**env == '-') {
			unsetenv(*env + 1);
			continue;
		}
		char name[128];
		const char *eq = strchr(*env, '=');
		snprintf(name, sizeof name, "%.*s", (int)(eq - *env), *env);
		setenv(name, eq + 1, 1);
	}
}

/* Run argv (no shell) with env changes, stdout and stderr captured, for
 * at most timeout_s seconds (then SIGKILL).  stdout goes to the file
 * stdout_path when it is not NULL (o->out is then empty).  Returns 0, or
 * -1 if it could not be started. */
static inline int spawn_to(char *const argv[], const char *const *env,
			   int timeout_s, const char *stdout_path,
			   struct outcome *o)
{
	char out[] = "/tmp/ntmem-preload-out-XXXXXX";
	char err[] = "/tmp/ntmem-preload-err-XXXXXX";
	int fo = mkstemp(out), fe = mkstemp(err);
	memset(o, 0, sizeof *o);
	if (fo < 0 || fe < 0)
		return -1;
	if (stdout_path) {
		close(fo);
		fo = open(stdout_path, O_WRONLY | O_CREAT | O_TRUNC, 0644);
		if (fo < 0)
			return -1;
	}
	fflush(NULL);
	pid_t pid = fork();
	if (pid == 0) {
		int null = open("/dev/null", O_RDONLY);
		dup2(null, 0);
		dup2(fo, 1);
		dup2(fe, 2);
		spawn_env(env);
		execvp(argv[0], argv);
		_exit(127);
	}
	close(fo);
	close(fe);
	struct timespec tick = {0, 5 * 1000 * 1000};
	for (long waited = 0; pid > 0; waited += 5) {
		pid_t w = waitpid(pid, &o->status, WNOHANG);
		if (w == pid)
			break;
		if (w < 0 && errno != EINTR)
			break;
		if (waited >= timeout_s * 1000L) {
			kill(pid, SIGKILL);
			waitpid(pid, &o->status, 0);
			o->timed_out = 1;
			break;
		}
		nanosleep(&tick, NULL);
	}
	o->out = spawn_slurp(out);
	o->err = spawn_slurp(err);
	unlink(out);
	unlink(err);
	return pid > 0 ? 0 : -1;
}

static inline int spawn(char *const argv[], const char *const *env,
			int timeout_s, struct outcome *o)
{
	return spawn_to(argv, env, timeout_s, NULL, o);
}

static inline void outcome_free(struct outcome *o)
{
	free(o->out);
	free(o->err);
	o->out = o->err = NULL;
}

static inline int exited(const struct outcome *o, int code)
{
	return !o->timed_out && WIFEXITED(o->status) &&
	       WEXITSTATUS(o->status) == code;
}

/* argv for "ntmem run OPTS... -- HELPER ARGS..." (opts may be NULL; a
 * NULL helper means ARGS[0] is the command itself).  Static: the
 * next call reuses it. */
static inline char **run_argv(const struct places *at, const char *const *opts,
			       const char *helper, const char *const *args)
{
	static char *argv[40];
	static char path[PATH_MAX + 64];
	int n = 0;
	argv[n++] = (char *)at->ntmem;
	argv[n++] = "run";
	for (; opts && *opts; opts++)
		argv[n++] = (char *)*opts;
	argv[n++] = "--";
	if (helper) {
		snprintf(path, sizeof path, "%s/%s", at->helpers, helper);
		argv[n++] = path;
	}
	for (; args && *args; args++)
		argv[n++] = (char *)*args;
	argv[n] = NULL;
	return argv;
}

/* The first line of s, for messages. */
static inline const char *first_line(const char *s, char *buf, size_t len)
{
	snprintf(buf, len, "%.*s", (int)strcspn(s, "\n"), s);
	return buf;
}

/* A helper's "PASS name" and "FAIL name: why" lines as checks named
 * "what: name".  Returns the number of PASS lines; a helper that printed
 * none, or failed without saying why, is a failure of "what". */
static inline int relay(const char *what, const struct outcome *o)
{
	int passes = 0, fails = 0;
	char name[512], line[1024];
	for (const char *s = o->out; *s;) {
		size_t n = strcspn(s, "\n");
		snprintf(line, sizeof line, "%.*s", (int)n, s);
		s += n + (s[n] == '\n');
		if (!strncmp(line, "PASS ", 5)) {
			snprintf(name, sizeof name, "%.100s: %.400s", what, line + 5);
			t_pass(name);
			passes++;
		} else if (!strncmp(line, "FAIL ", 5)) {
			char *colon = strstr(line + 5, ": ");
			if (colon)
				*colon = '\0';
			snprintf(name, sizeof name, "%.100s: %.400s", what, line + 5);
			t_fail(name, "%s", colon ? colon + 2 : "failed");
			fails++;
		}
	}
	if (o->timed_out)
		t_fail(what, "did not finish in time");
	else if (!passes && !fails)
		t_fail(what, "no result (status 0x%x): %s", o->status,
		       first_line(o->err, line, sizeof line));
	else if (!fails && !exited(o, 0))
		t_fail(what, "status 0x%x: %s", o->status,
		       first_line(o->err, line, sizeof line));
	return passes;
}

/*
 * "ntmem run --report-json FILE" for the tests: report_file() makes FILE
 * (pass it after --report-json), report_read() parses what ntmem run
 * wrote there.  The report's paths are "small path", "before the
 * policy", "overlap: libc memmove", or a rung's variant name.
 */
struct report {
	char path[64];
	struct t_json *json;    /* NULL: none written, or not JSON (why) */
	char why[256];
};

static inline const char *report_file(struct report *r)
{
	snprintf(r->path, sizeof r->path, "/tmp/ntmem-report-XXXXXX");
	int fd = mkstemp(r->path);
	if (fd >= 0)
		close(fd);
	r->json = NULL;
	r->why[0] = '\0';
	return r->path;
}

static inline void report_read(struct report *r)
{
	char *text = spawn_slurp(r->path);
	r->json = *text ? t_json_parse(text, r->why, sizeof r->why) : NULL;
	if (!*text)
		snprintf(r->why, sizeof r->why, "no report in %s", r->path);
	free(text);
	unlink(r->path);
}

static inline void report_free(struct report *r)
{
	t_json_free(r->json);
	r->json = NULL;
}

static inline const char *tj_str(const struct t_json *j, const char *key)
{
	const struct t_json *v = t_json_get(j, key);
	return v && v->type == TJ_STRING ? v->string : "";
}

static inline double tj_num(const struct t_json *j, const char *key)
{
	const struct t_json *v = t_json_get(j, key);
	return v && v->type == TJ_NUMBER ? v->number : -1;
}

/* A path's kind: "small", "baseline", "overlap", or "rung". */
static inline const char *path_kind(const char *path)
{
	if (!strcmp(path, "small path"))
		return "small";
	if (!strcmp(path, "before the policy"))
		return "baseline";
	if (!strncmp(path, "overlap", 7))
		return "overlap";
	return "rung";
}

/* Call fn for every path of every bucket of every function. */
typedef void report_path_fn(void *ctx, const struct t_json *function,
			    const struct t_json *bucket, const struct t_json *path);

static inline void report_each_path(const struct report *r, report_path_fn *fn,
				    void *ctx)
{
	const struct t_json *fs = r->json ? t_json_get(r->json, "functions") : NULL;
	for (size_t i = 0; fs && i < fs->count; i++) {
		const struct t_json *bs = t_json_get(&fs->items[i], "buckets");
		for (size_t k = 0; bs && k < bs->count; k++) {
			const struct t_json *ps = t_json_get(&bs->items[k], "paths");
			for (size_t p = 0; ps && p < ps->count; p++)
				fn(ctx, &fs->items[i], &bs->items[k], &ps->items[p]);
		}
	}
}

struct report_sum_state {
	const char *function, *kind;
	unsigned long long calls, bytes;
};

static inline void report_sum_one(void *ctx, const struct t_json *f,
				  const struct t_json *b, const struct t_json *p)
{
	struct report_sum_state *s = ctx;
	const char *kind = path_kind(tj_str(p, "path"));
	(void)b;
	if (s->function && strcmp(tj_str(f, "function"), s->function))
		return;
	/* A rung counts as its call class: "set", "set_nonzero", "copy". */
	int match = !strcmp(s->kind, "any") ||
		    (!strcmp(kind, "rung") ? !strcmp(tj_str(f, "class"), s->kind)
					   : !strcmp(kind, s->kind));
	if (!match)
		return;
	s->calls += (unsigned long long)tj_num(p, "calls");
	s->bytes += (unsigned long long)tj_num(p, "bytes");
}

/* Calls and bytes of function's paths (every function's, if NULL) of
 * kind: "small", "overlap", "baseline", a class for its rungs, or "any". */
static inline void report_sum(const struct report *r, const char *function,
			      const char *kind, unsigned long long *calls,
			      unsigned long long *bytes)
{
	struct report_sum_state s = {function, kind, 0, 0};
	report_each_path(r, report_sum_one, &s);
	*calls = s.calls;
	*bytes = s.bytes;
}

struct report_rungs_state {
	const char *function;
	int rungs, streaming;
	unsigned long long streamed_calls;
};

static inline void report_rungs_one(void *ctx, const struct t_json *f,
				    const struct t_json *b, const struct t_json *p)
{
	struct report_rungs_state *s = ctx;
	const struct t_json *streams = t_json_get(p, "streams");
	(void)b;
	if (strcmp(path_kind(tj_str(p, "path")), "rung") ||
	    (s->function && strcmp(tj_str(f, "function"), s->function)))
		return;
	s->rungs++;
	if (streams && streams->type == TJ_BOOL && streams->boolean) {
		s->streaming++;
		s->streamed_calls += (unsigned long long)tj_num(p, "calls");
	}
}

/* Of function's rung paths (every function's, if NULL): how many, how
 * many stream, and the calls of those. */
static inline void report_rungs(const struct report *r, const char *function,
				int *rungs, int *streaming,
				unsigned long long *streamed_calls)
{
	struct report_rungs_state s = {function, 0, 0, 0};
	report_each_path(r, report_rungs_one, &s);
	*rungs = s.rungs;
	*streaming = s.streaming;
	*streamed_calls = s.streamed_calls;
}

/* The bucket of function's calls in class cls that holds size n. */
static inline const struct t_json *report_bucket(const struct report *r,
						 const char *function,
						 const char *cls, double n)
{
	const struct t_json *fs = r->json ? t_json_get(r->json, "functions") : NULL;
	for (size_t i = 0; fs && i < fs->count; i++) {
		const struct t_json *f = &fs->items[i];
		const struct t_json *bs = t_json_get(f, "buckets");
		if (strcmp(tj_str(f, "function"), function) ||
		    strcmp(tj_str(f, "class"), cls))
			continue;
		for (size_t k = 0; bs && k < bs->count; k++) {
			const struct t_json *to = t_json_get(&bs->items[k], "to");
			if (tj_num(&bs->items[k], "from") <= n &&
			    (!to || to->type == TJ_NULL || n < to->number))
				return &bs->items[k];
		}
	}
	return NULL;
}

/* The program named name in the report's "programs", or NULL. */
static inline const struct t_json *report_program(const struct report *r,
						  const char *name)
{
	const struct t_json *ps = r->json ? t_json_get(r->json, "programs") : NULL;
	for (size_t i = 0; ps && i < ps->count; i++)
		if (!strcmp(tj_str(&ps->items[i], "name"), name))
			return &ps->items[i];
	return NULL;
}

#endif
