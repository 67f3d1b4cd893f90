/* harness.h - the tiny shared test harness.
 *
 * A test program runs named checks; each ends as passed, failed or
 * skipped (with the reason printed).  t_finish() prints the summary line
 * "N passed, N failed, N skipped" that tests/run.sh adds up. */
#ifndef NTM_HARNESS_H
#define NTM_HARNESS_H

#include <stddef.h>
#include <stdint.h>

void t_pass(const char *name);
void t_fail(const char *name, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));
void t_skip(const char *name, const char *why);
/* Pass or fail name on ok; on failure print the message. */
void t_check(int ok, const char *name, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));
int t_finish(void);  /* prints the summary; returns the exit status */
/* The checks failed so far: for a part of a test run in a child of its
 * own, which reports to its parent by its exit status. */
int t_failed_count(void);

/* NTMEM_TEST_QUICK=1 (under qemu and the sanitizers): fewer cases. */
int t_quick(void);

/* A deterministic PRNG, so a failure can be replayed. */
uint64_t t_rand(void);

/*
 * A buffer between two PROT_NONE guard pages: data[0] is the first byte
 * after the lower guard, data[cap] the first byte of the upper one.
 */
struct guarded {
	unsigned char *data;
	size_t cap;
	void *map;
	size_t map_len;
};
int t_guarded_alloc(struct guarded *g, size_t cap);
void t_guarded_free(struct guarded *g);

/*
 * A strict JSON parser (RFC 8259) for checking the tool's --json output.
 * t_json_parse returns NULL and describes the first error in err.
 */
enum t_json_type { TJ_NULL, TJ_BOOL, TJ_NUMBER, TJ_STRING, TJ_ARRAY, TJ_OBJECT };
struct t_json {
	enum t_json_type type;
	int boolean;
	double number;
	char *string;            /* TJ_STRING */
	size_t count;            /* TJ_ARRAY, TJ_OBJECT */
	char **keys;             /* TJ_OBJECT */
	struct t_json *items;
};
struct t_json *t_json_parse(const char *text, char *err, size_t err_len);
/* Member key of an object, or NULL (also when j is not an object). */
const struct t_json *t_json_get(const struct t_json *j, const char *key);
void t_json_free(struct t_json *j);

/* Run a shell command; its stdout into *out (malloc'd), returns the exit
 * status (or -1).  stderr goes to *err when err is not NULL. */
int t_run(const char *cmd, char **out, char **err);

/*
 * The library reads NTMEM_TUNABLES and NTMEM_PROFILE as it is loaded, so a
 * test that needs them set runs itself again with them: call first thing
 * in main.  pairs: "NAME=VALUE" strings, NULL-terminated; a VALUE of
 * NULL-after-'=' ("NAME=") sets it empty.  Returns only once they are in
 * effect (or exits 1 if exec fails).
 */
void t_reexec_with(char **argv, const char *const *pairs);

/* The best-ranked streaming variant of op (an enum ntmem_op) that runs
 * here and writes any value, or NULL. */
const char *t_streaming_variant(int op);

/* t_reexec_with NTMEM_PROFILE=none and tunables that stream both calls
 * from above: libc below it, t_streaming_variant above.  Returns -1,
 * without re-executing, when no streaming variant runs here. */
int t_reexec_streaming_above(char **argv, const char *above);

/* Execute this program again with argv, in this process: through
 * $TEST_WRAPPER when that is set (an emulator such as qemu-user, which
 * the kernel does not run foreign binaries with by itself), else
 * /proc/self/exe.  Returns only if exec fails, with errno set. */
void t_exec_self(char **argv);

/* The ntmem binary under test: $NTMEM_BIN, else build/ntmem. */
const char *t_ntmem(void);

/* Known bytes: p[i] = i * 167 + seed (mod 256). */
void t_fill_pattern(unsigned char *p, size_t n, unsigned seed);

/* 1 under qemu-user (tests/run.sh's TEST_WRAPPER names it). */
int t_under_qemu(void);

/* Why a child forked while other threads run cannot start threads of its
 * own here, or NULL when it can: qemu-user 7.2 aborts such a child in
 * qemu itself ("cpu == current_cpu"), and ThreadSanitizer refuses it. */
const char *t_fork_with_threads_unsupported(void);

/* A scratch directory named for tag: make it first (0, or -1 having
 * failed the test), then name files in it (a path valid for the next
 * three calls), and remove it with everything in it at the end.  It is
 * made beside the build (BUILD/scratch) when libntmem would trust a
 * profile there, else in /tmp; t_scratch_untrusted() then says why
 * (NULL when it is trusted), for the tests that read profiles to skip. */
int t_scratch_make(const char *tag);
const char *t_scratch_untrusted(void);
/* Why other users cannot reach the scratch directory (a directory above
 * it not searchable by others, as /root is), or NULL. */
const char *t_scratch_closed(void);
const char *t_scratch_path(const char *name);
const char *t_scratch_dir(void);
void t_scratch_remove(void);

/* The whole of a file as text (up to 64 KiB), or "" when it cannot be
 * read; valid until the next call. */
const char *t_file_text(const char *path);

/* Entries of dir whose names start with prefix, or -1 if dir cannot be
 * read. */
int t_count_prefixed(const char *dir, const char *prefix);

#endif
