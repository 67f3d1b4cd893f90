/* harness.c - counting, reporting and guarded buffers for the tests. */
#include "harness.h"
#include "ntmem.h"

#include <ctype.h>
#include <dirent.h>
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

static int passed, failed, skipped;

void t_pass(const char *name)
{
	passed++;
	printf("pass  %s\n", name);
	fflush(stdout);  /* a later crash must not take the record with it */
}

static void vfail(const char *name, const char *fmt, va_list ap)
{
	failed++;
	printf("FAIL  %s: ", name);
	vprintf(fmt, ap);
	printf("\n");
	fflush(stdout);
}

void t_fail(const char *name, const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	vfail(name, fmt, ap);
	va_end(ap);
}

void t_check(int ok, const char *name, const char *fmt, ...)
{
	if (ok) {
		t_pass(name);
		return;
	}
	va_list ap;
	va_start(ap, fmt);
	vfail(name, fmt, ap);
	va_end(ap);
}

void t_skip(const char *name, const char *why)
{
	skipped++;
	printf("skip  %s: %s\n", name, why);
	fflush(stdout);
}

int t_failed_count(void)
{
	return failed;
}

int t_finish(void)
{
	printf("%d passed, %d failed, %d skipped\n", passed, failed, skipped);
	return failed ? 1 : 0;
}

int t_quick(void)
{
	const char *q = getenv("NTMEM_TEST_QUICK");
	return q && *q && *q != '0';
}

uint64_t t_rand(void)
{
	static uint64_t state = 0x9e3779b97f4a7c15ull;
	/* splitmix64 */
	uint64_t z = (state += 0x9e3779b97f4a7c15ull);
	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
	z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
	return z ^ (z >> 31);
}

int t_guarded_alloc(struct guarded *g, size_t cap)
{
	size_t page = (size_t)sysconf(_SC_PAGESIZE);
	cap = (cap + page - 1) / page * page;
	g->map_len = cap + 2 * page;
	g->map = mmap(NULL, g->map_len, PROT_NONE,
		      MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
	if (g->map == MAP_FAILED)
		return -1;
	g->data = (unsigned char *)g->map + page;
	g->cap = cap;
	if (mprotect(g->data, cap, PROT_READ | PROT_WRITE)) {
		munmap(g->map, g->map_len);
		return -1;
	}
	return 0;
}

void t_guarded_free(struct guarded *g)
{
	munmap(g->map, g->map_len);
}

/* ---- JSON ---- */

struct parser {
	const char *s;
	const char *start;
	char *err;
	size_t err_len;
	int failed;
};

static void perr(struct parser *p, const char *what)
{
	if (!p->failed)
		snprintf(p->err, p->err_len, "at byte %ld: %s",
			 (long)(p->s - p->start), what);
	p->failed = 1;
}

static void skip_ws(struct parser *p)
{
	while (*p->s == ' ' || *p->s == '\t' || *p->s == '\n' || *p->s == '\r')
		p->s++;
}

static int parse_value(struct parser *p, struct t_json *out, int depth);

static char *parse_string(struct parser *p)
{
	if (*p->s != '"') {
		perr(p, "expected a string");
		return NULL;
	}
	p->s++;
	size_t cap = 16, len = 0;
	char *buf = malloc(cap);
	for (;;) {
		unsigned char c = (unsigned char)*p->s++;
		if (c == '"')
			break;
		if (c < 0x20) {
			perr(p, c ? "control character in string" : "unterminated string");
			free(buf);
			return NULL;
		}
		if (c == '\\') {
			char e = *p->s++;
			const char *map = "\"\"\\\\//b\bf\fn\nr\rt\t";
			const char *m = strchr(map, e);
			if (e == 'u') {
				for (int i = 0; i < 4; i++)
					if (!isxdigit((unsigned char)p->s[i])) {
						perr(p, "bad \\u escape");
						free(buf);
						return NULL;
					}
				p->s += 4;
				c = '?';  /* the checks never need the code point */
			} else if (e && m && (m - map) % 2 == 0) {
				c = (unsigned char)m[1];
			} else {
				perr(p, "bad escape");
				free(buf);
				return NULL;
			}
		}
		if (len + 2 > cap)
			buf = realloc(buf, cap *= 2);
		buf[len++] = (char)c;
	}
	buf[len] = '\0';
	return buf;
}

static int parse_number(struct parser *p, struct t_json *out)
{
	const char *s = p->s;
	if (*s == '-')
		s++;
	if (*s == '0')
		s++;
	else if (isdigit((unsigned char)*s))
		while (isdigit((unsigned char)*s))
			s++;
	else {
		perr(p, "bad number");
		return -1;
	}
	if (*s == '.') {
		s++;
		if (!isdigit((unsigned char)*s)) {
			perr(p, "bad fraction");
			return -1;
		}
		while (isdigit((unsigned char)*s))
			s++;
	}
	if (*s == 'e' || *s == 'E') {
		s++;
		if (*s == '+' || *s == '-')
			s++;
		if (!isdigit((unsigned char)*s)) {
			perr(p, "bad exponent");
			return -1;
		}
		while (isdigit((unsigned char)*s))
			s++;
	}
	out->type = TJ_NUMBER;
	out->number = strtod(p->s, NULL);
	p->s = s;
	return 0;
}

static int parse_container(struct parser *p, struct t_json *out, int depth,
			   int object)
{
	out->type = object ? TJ_OBJECT : TJ_ARRAY;
	p->s++;
	skip_ws(p);
	char close = object ? '}' : ']';
	if (*p->s == close) {
		p->s++;
		return 0;
	}
	size_t cap = 0;
	for (;;) {
		if (out->count == cap) {
			cap = cap ? 2 * cap : 8;
			out->items = realloc(out->items, cap * sizeof *out->items);
			if (object)
				out->keys = realloc(out->keys, cap * sizeof *out->keys);
		}
		skip_ws(p);
		if (object) {
			char *key = parse_string(p);
			if (!key)
				return -1;
			for (size_t i = 0; i < out->count; i++)
				if (!strcmp(out->keys[i], key)) {
					perr(p, "duplicate key");
					free(key);
					return -1;
				}
			out->keys[out->count] = key;
			skip_ws(p);
			if (*p->s++ != ':') {
				out->count++;
				memset(&out->items[out->count - 1], 0, sizeof *out->items);
				perr(p, "expected ':'");
				return -1;
			}
		}
		struct t_json *item = &out->items[out->count++];
		memset(item, 0, sizeof *item);
		if (parse_value(p, item, depth + 1))
			return -1;
		skip_ws(p);
		if (*p->s == ',') {
			p->s++;
			continue;
		}
		if (*p->s == close) {
			p->s++;
			return 0;
		}
		perr(p, object ? "expected ',' or '}'" : "expected ',' or ']'");
		return -1;
	}
}

static int parse_value(struct parser *p, struct t_json *out, int depth)
{
	skip_ws(p);
	if (depth > 64) {
		perr(p, "nested too deeply");
		return -1;
	}
	switch (*p->s) {
	case '{':
		return parse_container(p, out, depth, 1);
	case '[':
		return parse_container(p, out, depth, 0);
	case '"':
		out->type = TJ_STRING;
		out->string = parse_string(p);
		return out->string ? 0 : -1;
	case 't':
	case 'f':
	case 'n': {
		static const char *const words[] = {"true", "false", "null"};
		for (int i = 0; i < 3; i++)
			if (!strncmp(p->s, words[i], strlen(words[i]))) {
				p->s += strlen(words[i]);
				out->type = i == 2 ? TJ_NULL : TJ_BOOL;
				out->boolean = i == 0;
				return 0;
			}
		perr(p, "bad literal");
		return -1;
	}
	default:
		return parse_number(p, out);
	}
}

static void free_inner(struct t_json *j)
{
	free(j->string);
	for (size_t i = 0; i < j->count; i++) {
		free_inner(&j->items[i]);
		if (j->keys)
			free(j->keys[i]);
	}
	free(j->items);
	free(j->keys);
}

void t_json_free(struct t_json *j)
{
	if (j) {
		free_inner(j);
		free(j);
	}
}

struct t_json *t_json_parse(const char *text, char *err, size_t err_len)
{
	struct parser p = {text, text, err, err_len, 0};
	struct t_json *j = calloc(1, sizeof *j);
	if (!parse_value(&p, j, 0)) {
		skip_ws(&p);
		if (*p.s)
			perr(&p, "text after the value");
	} else
		perr(&p, "invalid");
	if (p.failed) {
		t_json_free(j);
		return NULL;
	}
	return j;
}

const struct t_json *t_json_get(const struct t_json *j, const char *key)
{
	if (!j || j->type != TJ_OBJECT)
		return NULL;
	for (size_t i = 0; i < j->count; i++)
		if (!strcmp(j->keys[i], key))
			return &j->items[i];
	return NULL;
}

/* ---- running commands ---- */

static char *slurp(FILE *f)
{
	size_t cap = 4096, len = 0;
	char *buf = malloc(cap);
	size_t got;
	while ((got = fread(buf + len, 1, cap - len - 1, f)) > 0) {
		len += got;
		if (cap - len < 2)
			buf = realloc(buf, cap *= 2);
	}
	buf[len] = '\0';
	return buf;
}

int t_run(const char *cmd, char **out, char **err)
{
	char errfile[] = "/tmp/ntmem-test-stderr-XXXXXX";
	int fd = mkstemp(errfile);
	if (fd < 0)
		return -1;
	close(fd);
	char full[4096];
	snprintf(full, sizeof full, "%s 2>%s", cmd, errfile);
	FILE *p = popen(full, "r");
	if (!p) {
		unlink(errfile);
		return -1;
	}
	char *o = slurp(p);
	int status = pclose(p);
	if (out)
		*out = o;
	else
		free(o);
	if (err) {
		FILE *e = fopen(errfile, "r");
		*err = e ? slurp(e) : calloc(1, 1);
		if (e)
			fclose(e);
	}
	unlink(errfile);
	return WIFEXITED(status) ? WEXITSTATUS(status) : -1;
}

const char *t_ntmem(void)
{
	const char *b = getenv("NTMEM_BIN");
	return b && *b ? b : "build/ntmem";
}

/* Under an emulator (tests/run.sh's TEST_WRAPPER, e.g. "qemu-aarch64
 * -cpu a64fx") the kernel cannot run this binary by itself: run it
 * through the wrapper again, by way of the shell, which splits the
 * wrapper into words. */
void t_exec_self(char **argv)
{
	const char *wrapper = getenv("TEST_WRAPPER");
	char exe[4096];
	ssize_t len;
	if (!wrapper || !*wrapper ||
	    (len = readlink("/proc/self/exe", exe, sizeof exe - 1)) <= 0) {
		execv("/proc/self/exe", argv);
		return;
	}
	exe[len] = '\0';
	size_t argc = 0;
	while (argv[argc])
		argc++;
	char **sh = calloc(argc + 5, sizeof *sh);
	if (!sh) {
		execv("/proc/self/exe", argv);
		return;
	}
	sh[0] = "/bin/sh";
	sh[1] = "-c";
	sh[2] = "exec $TEST_WRAPPER \"$@\"";
	sh[3] = "sh";
	sh[4] = exe;
	for (size_t i = 1; i < argc; i++)
		sh[4 + i] = argv[i];
	execv("/bin/sh", sh);
	free(sh);
	execv("/proc/self/exe", argv);
}

void t_reexec_with(char **argv, const char *const *pairs)
{
	int differ = 0;
	for (const char *const *p = pairs; *p; p++) {
		const char *eq = strchr(*p, '=');
		char name[128];
		snprintf(name, sizeof name, "%.*s", (int)(eq - *p), *p);
		const char *now = getenv(name);
		if (!now || strcmp(now, eq + 1)) {
			setenv(name, eq + 1, 1);
			differ = 1;
		}
	}
	if (!differ)
		return;
	t_exec_self(argv);
	fprintf(stderr, "FAIL re-exec with the test's environment: %s\n",
		strerror(errno));
	exit(1);
}

const char *t_streaming_variant(int op)
{
	const char *name = NULL;
	int rank = -1;
	for (int id = 0; id < ntmem_variant_count(); id++) {
		struct ntmem_variant_info v;
		if (!ntmem_variant_info(id, &v) && (int)v.op == op && v.supported &&
		    v.streaming && !v.zero_only && v.rank > rank) {
			name = v.name;
			rank = v.rank;
		}
	}
	return name;
}

int t_reexec_streaming_above(char **argv, const char *above)
{
	const char *s = t_streaming_variant(NTMEM_OP_SET);
	const char *c = t_streaming_variant(NTMEM_OP_COPY);
	if (!s || !c)
		return -1;
	char tunables[256];
	snprintf(tunables, sizeof tunables,
		 "NTMEM_TUNABLES=set=libc:%s,%s,copy=libc:%s,%s", above, s, above, c);
	const char *const env[] = {"NTMEM_PROFILE=none", tunables, NULL};
	t_reexec_with(argv, env);
	return 0;
}

void t_fill_pattern(unsigned char *p, size_t n, unsigned seed)
{
	for (size_t i = 0; i < n; i++)
		p[i] = (unsigned char)(i * 167 + seed);
}

int t_under_qemu(void)
{
	const char *wrapper = getenv("TEST_WRAPPER");
	return wrapper && strstr(wrapper, "qemu");
}

#if defined(__SANITIZE_THREAD__)
#define T_TSAN 1
#elif defined(__has_feature)
#if __has_feature(thread_sanitizer)
#define T_TSAN 1
#endif
#endif

const char *t_fork_with_threads_unsupported(void)
{
	if (t_under_qemu())
		return "qemu-user aborts a child forked while other threads run "
		       "once it starts a thread";
#ifdef T_TSAN
	return "ThreadSanitizer does not support starting threads after a "
	       "multi-threaded fork (the plain builds test it)";
#else
	return NULL;
#endif
}

static char scratch[256];
static int scratch_trusted;

/* Owned by root or this user and writable by neither group nor others:
 * what libntmem asks of a profile's file and every directory above it,
 * here checked directly on each prefix of the resolved path. */
static int trusted_chain(const char *dir)
{
	char real[4096], prefix[4096];
	struct stat st;
	if (!realpath(dir, real))
		return 0;
	for (size_t i = 1;; i++) {
		if (real[i] != '/' && real[i])
			continue;
		snprintf(prefix, sizeof prefix, "%.*s", i > 1 ? (int)i : 1, real);
		if (stat(prefix, &st) || (st.st_uid != 0 && st.st_uid != geteuid()) ||
		    (st.st_mode & (S_IWGRP | S_IWOTH)))
			return 0;
		if (!real[i])
			return 1;
	}
}

/* The build directory this program belongs to (BUILD/tests/test_x gives
 * BUILD), or "" when it is not one of a build's tests. */
static void build_dir(char *buf, size_t len)
{
	ssize_t n = readlink("/proc/self/exe", buf, len - 1);
	buf[n > 0 ? n : 0] = '\0';
	char *name = strrchr(buf, '/');
	if (!name || name - buf < 7 || strncmp(name - 6, "/tests", 6) ||
	    strncmp(name, "/test_", 6)) {
		buf[0] = '\0';
		return;
	}
	name[-6] = '\0';
}

int t_scratch_make(const char *tag)
{
	/* Beside the build when every directory above it is trusted, so
	 * that profiles written there are ones libntmem reads; else /tmp,
	 * which it never trusts (sticky, but writable by all). */
	char parent[4096];
	build_dir(parent, sizeof parent - 16);
	strcat(parent, "/scratch");
	if (parent[0] == '/' && (!mkdir(parent, 0755) || errno == EEXIST) &&
	    trusted_chain(parent) &&
	    (size_t)snprintf(scratch, sizeof scratch, "%s/ntmem-%.32s-test-XXXXXX",
			     parent, tag) < sizeof scratch) {
		if (mkdtemp(scratch)) {
			scratch_trusted = 1;
			return 0;
		}
	}
	scratch_trusted = 0;
	snprintf(scratch, sizeof scratch, "/tmp/ntmem-%s-test-XXXXXX", tag);
	if (mkdtemp(scratch))
		return 0;
	t_fail("scratch directory", "mkdtemp %s: %s", scratch, strerror(errno));
	scratch[0] = '\0';
	return -1;
}

const char *t_scratch_closed(void)
{
	static char why[400];
	char prefix[256];
	struct stat st;
	for (size_t i = 1; scratch[i]; i++) {
		if (scratch[i] != '/')
			continue;
		snprintf(prefix, sizeof prefix, "%.*s", (int)i, scratch);
		if (!stat(prefix, &st) && !(st.st_mode & S_IXOTH)) {
			snprintf(why, sizeof why, "%s is mode %04o: other users cannot "
				 "reach the scratch directory below it", prefix,
				 (unsigned)(st.st_mode & 07777));
			return why;
		}
	}
	return NULL;
}

const char *t_scratch_untrusted(void)
{
	return scratch_trusted ? NULL
		: "no directory above the build could hold files libntmem trusts "
		  "as profiles (each owned by root or this user, none writable "
		  "by group or others), and /tmp never can: the scratch "
		  "directory is in /tmp";
}

const char *t_scratch_dir(void)
{
	return scratch;
}

const char *t_scratch_path(const char *name)
{
	static char buf[4][512];
	static int k;
	k = (k + 1) % 4;
	snprintf(buf[k], sizeof buf[k], "%s/%s", scratch, name);
	return buf[k];
}

void t_scratch_remove(void)
{
	char cmd[300];
	if (!scratch[0])
		return;
	snprintf(cmd, sizeof cmd, "rm -rf %s", scratch);
	if (system(cmd))
		t_fail("scratch directory", "%s", cmd);
}

const char *t_file_text(const char *path)
{
	static char buf[1 << 16];
	buf[0] = '\0';
	FILE *f = fopen(path, "r");
	if (f) {
		buf[fread(buf, 1, sizeof buf - 1, f)] = '\0';
		fclose(f);
	}
	return buf;
}

int t_count_prefixed(const char *dir, const char *prefix)
{
	DIR *d = opendir(dir);
	if (!d)
		return -1;
	int n = 0;
	struct dirent *e;
	while ((e = readdir(d)))
		n += !strncmp(e->d_name, prefix, strlen(prefix));
	closedir(d);
	return n;
}
