/* test_populate.c - ntmem_populate faults pages in without changing a
 * byte, on 4 KiB pages, THP and (when pages are reserved) hugetlb, alone
 * and in parallel, by MADV_POPULATE_WRITE and by the guarded writes that
 * stand in for it on older kernels; and where a page cannot be had (not
 * mapped, read-only, hugetlb pages run out, a file's end) it returns the
 * error madvise gives, never dies of SIGSEGV or SIGBUS, and leaves the
 * program's own fault handlers in place.  And "ntmem populate": its JSON,
 * and exit 2 naming each bad argument. */
#define _GNU_SOURCE
#include <errno.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/wait.h>
#include <unistd.h>

#include "harness.h"
#include "ntmem.h"
#include "parallel/parallel.h"
#include "parallel/pool.h"
#include "populate/populate.h"
#include "util/size.h"


static size_t page;

/* The two ways pages are faulted in. */
static const char *const path_name[2] = {"madvise", "guarded writes"};

/* Under qemu-user (t_under_qemu): qemu-user 7.2 passes no madvise advice
 * but MADV_DONTNEED to the kernel and answers the rest with success:
 * MADV_POPULATE_WRITE then populates nothing and reports no error.  A
 * child forked while other threads exist aborts in qemu itself when it
 * starts a thread (cpu_exec: "cpu == current_cpu"). */

/* Select a path; NULL, or why it cannot be tested here. */
static const char *use_path(int touch)
{
	ntm_populate_force_touch = touch;
	if (!touch && !ntm_populate_writes())
		return "the kernel lacks MADV_POPULATE_WRITE (before 5.14)";
	if (!touch && t_under_qemu())
		return "qemu-user answers MADV_POPULATE_WRITE with success and "
		       "populates nothing";
	return NULL;
}

/* Pages of [p, p + len) present, by mincore. */
static size_t resident(void *p, size_t len)
{
	size_t n = (len + page - 1) / page, count = 0;
	unsigned char *vec = malloc(n);
	if (!vec || mincore(p, len, vec)) {
		free(vec);
		return 0;
	}
	for (size_t i = 0; i < n; i++)
		count += vec[i] & 1;
	free(vec);
	return count;
}

static void *map_aligned(size_t len, size_t align, int advice)
{
	unsigned char *raw = mmap(NULL, len + align, PROT_READ | PROT_WRITE,
				  MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (raw == MAP_FAILED)
		return NULL;
	unsigned char *p = (unsigned char *)(((uintptr_t)raw + align - 1) & ~(align - 1));
	if (p > raw)
		munmap(raw, (size_t)(p - raw));
	munmap(p + len, (size_t)(raw + len + align - p - len));
	madvise(p, len, advice);
	return p;
}

/* A fresh mapping, some bytes written first: populate must keep them. */
static void check_fresh(const char *kind, size_t len, int advice, unsigned flags)
{
	for (int touch = 0; touch < 2; touch++) {
		char name[128];
		snprintf(name, sizeof name, "populate %s, %s%s", kind, path_name[touch],
			 flags ? ", parallel" : "");
		const char *why = use_path(touch);
		if (why) {
			t_skip(name, why);
			continue;
		}
		unsigned char *p = map_aligned(len, 2 * MiB, advice);
		if (!p) {
			t_fail(name, "cannot map %zu bytes", len);
			continue;
		}
		for (size_t i = 0; i < len; i += 37 * page)
			p[i + 5] = (unsigned char)(i / page + 1);
		struct pool_stats before, after;
		ntm_pool_stats(&before);
		struct ntmem_opts o = {.flags = flags, .threads = 2, .min_chunk = 256 * KiB};
		errno = 999;
		int r = ntmem_populate_opts(p + 3, len - 3, &o);
		int kept_errno = errno == 999;
		ntm_pool_stats(&after);
		int bytes_ok = 1;
		for (size_t i = 0; i < len; i++)
			bytes_ok &= p[i] == (i % (37 * page) == 5 ? (unsigned char)(i / page + 1) : 0);
		size_t present = resident(p, len);
		int split = !flags || after.jobs > before.jobs;
		t_check(r == 0 && kept_errno && bytes_ok && present == len / page && split,
			name, "returned %d (errno %s), bytes %s, %zu of %zu pages present%s", r,
			kept_errno ? "kept" : "changed", bytes_ok ? "kept" : "changed",
			present, len / page, split ? "" : ", did not split");
		munmap(p, len);
	}
}

static void test_fresh_mappings(void)
{
	check_fresh("4 KiB pages", 8 * MiB, MADV_NOHUGEPAGE, 0);
	check_fresh("4 KiB pages", 8 * MiB, MADV_NOHUGEPAGE, NTMEM_F_PARALLEL);
	check_fresh("THP (madvise)", 8 * MiB, MADV_HUGEPAGE, NTMEM_F_PARALLEL);
}

static long proc_long(const char *path)
{
	FILE *f = fopen(path, "r");
	long v = -1;
	if (f && fscanf(f, "%ld", &v) != 1)
		v = -1;
	if (f)
		fclose(f);
	return v;
}

#define FREE_2M "/sys/kernel/mm/hugepages/hugepages-2048kB/free_hugepages"

static void test_hugetlb_reserved(void)
{
	long total = proc_long("/proc/sys/vm/nr_hugepages");
	long free_pages = proc_long(FREE_2M);
	if (total <= 0 || free_pages < 2) {
		char why[160];
		snprintf(why, sizeof why, "no 2 MiB hugetlb pages free (nr_hugepages %ld, "
			 "free %ld); the test may not reserve any", total, free_pages);
		t_skip("populate hugetlb pages", why);
		return;
	}
	for (int touch = 0; touch < 2; touch++) {
		if (use_path(touch))
			continue;
		size_t len = 2 * 2 * MiB;
		unsigned char *p = mmap(NULL, len, PROT_READ | PROT_WRITE,
					MAP_PRIVATE | MAP_ANONYMOUS | MAP_HUGETLB, -1, 0);
		if (p == MAP_FAILED) {
			t_skip("populate hugetlb pages", "mmap(MAP_HUGETLB) failed");
			return;
		}
		struct ntmem_opts o = {.flags = NTMEM_F_PARALLEL, .threads = 2,
				       .min_chunk = 2 * MiB};
		int r = ntmem_populate_opts(p, len, &o);
		t_check(r == 0 && p[0] == 0 && p[len - 1] == 0,
			touch ? "populate hugetlb pages, guarded writes"
			      : "populate hugetlb pages, madvise",
			"returned %d: %s", r, strerror(errno));
		munmap(p, len);
	}
}

/* Each failure, by both paths: the errno madvise gives, and no signal. */
static void expect_error(const char *what, void *p, size_t len, int want)
{
	for (int touch = 0; touch < 2; touch++) {
		char name[160];
		snprintf(name, sizeof name, "populate %s: %s, %s", what, strerror(want),
			 path_name[touch]);
		const char *why = use_path(touch);
		if (why) {
			t_skip(name, why);
			continue;
		}
		struct ntmem_opts o = {.flags = NTMEM_F_PARALLEL, .threads = 2,
				       .min_chunk = 4 * KiB};
		errno = 0;
		int r = ntmem_populate_opts(p, len, &o);
		t_check(r == -1 && errno == want, name, "returned %d, errno %d (%s)", r,
			errno, strerror(errno));
	}
}

static void test_errors(void)
{
	/* A hole in the middle of a range. */
	unsigned char *p = mmap(NULL, 64 * page, PROT_READ | PROT_WRITE,
				MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	munmap(p + 30 * page, 4 * page);
	expect_error("over an unmapped hole", p, 64 * page, ENOMEM);
	munmap(p, 64 * page);

	p = mmap(NULL, 16 * page, PROT_READ, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	expect_error("of a read-only mapping", p, 16 * page, EINVAL);
	munmap(p, 16 * page);

	/* Pages past the end of a file: a write would raise SIGBUS. */
	FILE *f = tmpfile();
	if (f && !ftruncate(fileno(f), (off_t)page)) {
		p = mmap(NULL, 8 * page, PROT_READ | PROT_WRITE, MAP_SHARED, fileno(f), 0);
		expect_error("past a file's end (SIGBUS)", p, 8 * page, EFAULT);
		munmap(p, 8 * page);
	}
	if (f)
		fclose(f);

	/* hugetlb without reservation, more than there are: SIGBUS. */
	long free_pages = proc_long(FREE_2M);
	size_t len = (size_t)(free_pages + 2) * 2 * MiB;
	p = free_pages < 0 || free_pages > 32 ? MAP_FAILED
		: mmap(NULL, len, PROT_READ | PROT_WRITE,
		       MAP_PRIVATE | MAP_ANONYMOUS | MAP_HUGETLB | MAP_NORESERVE, -1, 0);
	if (p == MAP_FAILED) {
		t_skip("populate when hugetlb pages run out",
		       free_pages > 32 ? "too many free hugetlb pages to run out quickly"
				       : "no 2 MiB hugetlb pages in this kernel");
	} else {
		expect_error("when hugetlb pages run out (SIGBUS)", p, len, EFAULT);
		munmap(p, len);
	}
	ntm_populate_force_touch = 0;
}

static void test_arguments(void)
{
	unsigned char x[64];
	int ok = 1;
	errno = 0;
	ok &= ntmem_populate(x, 1, NTMEM_F_TEMPORAL) == -1 && errno == EINVAL;
	struct ntmem_opts hot = {.hot_len = 1};
	errno = 0;
	ok &= ntmem_populate_opts(x, 1, &hot) == -1 && errno == EINVAL;
	errno = 0;
	ok &= ntmem_populate((void *)(UINTPTR_MAX - 10), 100, 0) == -1 && errno == EINVAL;
	errno = 77;
	ok &= ntmem_populate(NULL, 0, NTMEM_F_PARALLEL) == 0 && errno == 77;
	ok &= ntmem_populate(x, sizeof x, 0) == 0 && errno == 77;  /* the stack */
	t_check(ok, "populate: bad flags, a hot region, a wrapping range: EINVAL",
		"accepted");
}

static void test_default_parallel(void)
{
	size_t len = 16 * MiB;
	unsigned char *p = map_aligned(len, 2 * MiB, MADV_NOHUGEPAGE);
	ntm_populate_force_touch = t_under_qemu();
	int r = ntmem_populate(p, len, NTMEM_F_PARALLEL);
	ntm_populate_force_touch = 0;
	t_check(r == 0 && resident(p, len) == len / page,
		"populate: NTMEM_F_PARALLEL with the policy's threads and chunk",
		"returned %d, %zu pages present", r, resident(p, len));
	munmap(p, len);
}

/* ---- the program's own handlers ---- */

static void program_handler(int sig, siginfo_t *si, void *context)
{
	(void)si;
	(void)context;
	_exit(sig == SIGSEGV ? 42 : 43);
}

/* In a child: the program's SIGSEGV handler, a populate by guarded
 * writes running, and a fault of another thread's making meanwhile.  It
 * must reach the program's handler (exit 42), during populate or after. */
static void *fault_later(void *arg)
{
	(void)arg;
	volatile int *guard = mmap(NULL, page, PROT_NONE, MAP_PRIVATE | MAP_ANONYMOUS,
				   -1, 0);
	usleep(2000);
	*guard = 1;
	return NULL;
}

static void test_handlers_kept(void)
{
	struct sigaction mine = {.sa_sigaction = program_handler,
				 .sa_flags = SA_SIGINFO}, old, now;
	sigemptyset(&mine.sa_mask);
	sigaction(SIGSEGV, &mine, &old);
	ntm_populate_force_touch = 1;
	unsigned char *p = map_aligned(4 * MiB, 2 * MiB, MADV_NOHUGEPAGE);
	ntmem_populate(p, 4 * MiB, NTMEM_F_PARALLEL);
	munmap(p, 4 * MiB);
	sigaction(SIGSEGV, NULL, &now);
	sigaction(SIGSEGV, &old, NULL);
	t_check((now.sa_flags & SA_SIGINFO) && now.sa_sigaction == program_handler,
		"populate: the program's SIGSEGV handler is back afterwards",
		"another handler is installed");

	const char *why_not = t_fork_with_threads_unsupported();
	if (why_not) {
		ntm_populate_force_touch = 0;
		t_skip("populate: another thread's fault reaches the program's handler",
		       why_not);
		return;
	}
	fflush(stdout);
	pid_t pid = fork();
	if (pid == 0) {
		alarm(30);
		sigaction(SIGSEGV, &mine, NULL);
		size_t len = 256 * MiB;
		unsigned char *q = map_aligned(len, 2 * MiB, MADV_NOHUGEPAGE);
		pthread_t t;
		pthread_create(&t, NULL, fault_later, NULL);
		for (;;) {
			struct ntmem_opts o = {.flags = NTMEM_F_PARALLEL, .threads = 2};
			ntmem_populate_opts(q, len, &o);
			madvise(q, len, MADV_DONTNEED);
		}
	}
	int status = 0;
	waitpid(pid, &status, 0);
	ntm_populate_force_touch = 0;
	t_check(WIFEXITED(status) && WEXITSTATUS(status) == 42,
		"populate: another thread's fault reaches the program's handler",
		"child status %#x", status);
}

/* ---- ntmem populate ---- */

/* "ntmem populate ARGS" as a shell command.  (Under an emulator,
 * tests/run.sh makes t_ntmem() a script that runs the tool through it.) */
static void populate_command(char *cmd, size_t len, const char *args)
{
	snprintf(cmd, len, "%s populate %s", t_ntmem(), args);
}

static void test_command(void)
{
	char cmd[512], *out = NULL, *err = NULL, why[200] = "";
	populate_command(cmd, sizeof cmd, "-s 8MB -r 2 --threads 2 --json");
	int status = t_run(cmd, &out, NULL);
	struct t_json *j = status == 0 ? t_json_parse(out, why, sizeof why) : NULL;
	const struct t_json *res = t_json_get(j, "results"), *set = t_json_get(j, "settings");
	int ok = j && res && res->type == TJ_ARRAY && set &&
		 t_json_get(set, "threads") && t_json_get(set, "threads")->number == 2;
	int methods = 0;
	for (size_t i = 0; ok && i < res->count; i++) {
		const struct t_json *m = t_json_get(&res->items[i], "method"),
				    *g = t_json_get(&res->items[i], "gbps_median");
		ok = m && m->type == TJ_STRING && g && g->type == TJ_NUMBER && g->number > 0;
		methods += ok;
	}
	const struct t_json *skipped = t_json_get(j, "skipped");
	t_check(ok && skipped && methods + (int)skipped->count == 3,
		"ntmem populate --json: touch, madvise and ntmem, each with GB/s",
		"status %d, %s", status, why[0] ? why : "fields missing");
	t_json_free(j);
	free(out);

	/* One page cannot be split: the threads reported are those used. */
	populate_command(cmd, sizeof cmd, "-s 4KB -r 1 --threads 2 --json");
	status = t_run(cmd, &out, NULL);
	j = status == 0 ? t_json_parse(out, why, sizeof why) : NULL;
	set = t_json_get(j, "settings");
	const struct t_json *thr = t_json_get(set, "threads");
	t_check(thr && thr->number == 1,
		"ntmem populate: one page reports the one thread it can use",
		"status %d, threads %g", status, thr ? thr->number : -1.0);
	t_json_free(j);
	free(out);

	/* More threads than this process has CPUs: refused, as bench does. */
	struct ntmem_parallel_info pi;
	ntmem_parallel_info(&pi);
	char over[64];
	snprintf(over, sizeof over, "-s 1MB --threads %u", pi.cpus_allowed + 1);
	const char *const bad[][2] = {
		{"-s 12Q", "--size"}, {over, "is more than the"}, {"-s 1.5", "a fraction"}, {"-s 0", "--size"}, {"-s 1MB --threads 0", "--threads"},
		{"-s 1MB --threads x", "--threads"}, {"-s 1MB --page 3MB", "--page"},
		{"-s 1MB -r 0", "--runs"}, {"-s 1MB extra", "extra"},
		{"-s 1MB --bogus", "--bogus"}, {"-s 1000TB", "--size"},
	};
	ok = 1;
	for (size_t i = 0; ok && i < sizeof bad / sizeof bad[0]; i++) {
		populate_command(cmd, sizeof cmd, bad[i][0]);
		out = err = NULL;
		status = t_run(cmd, &out, &err);
		ok = status == 2 && err && strstr(err, bad[i][1]);
		if (!ok)
			snprintf(why, sizeof why, "'%s': status %d, %s", bad[i][0], status,
				 err ? err : "");
		free(out);
		free(err);
	}
	t_check(ok, "ntmem populate: bad arguments exit 2 naming the argument", "%s", why);
	populate_command(cmd, sizeof cmd, "--help");
	out = NULL;
	status = t_run(cmd, &out, NULL);
	t_check(status == 0 && out && strstr(out, "Usage: ntmem populate") &&
		strstr(out, "default\n                        1 GiB"),
		"ntmem populate --help, with the default size", "status %d", status);
	free(out);
}

/* Without --size: 1 GiB, or the largest power of two up to half the
 * memory available, at least 2 MiB. */
static void test_default_size(void)
{
	static const size_t budget[][2] = {
		{SIZE_MAX, 1 * GiB}, {4 * GiB, 1 * GiB}, {2 * GiB, 1 * GiB},
		{2 * GiB - 1, 512 * MiB}, {100 * MiB, 32 * MiB}, {1 * MiB, 2 * MiB},
	};
	int ok = 1;
	char why[128] = "";
	for (size_t i = 0; ok && i < sizeof budget / sizeof budget[0]; i++) {
		size_t got = populate_default_size(budget[i][0]);
		ok = got == budget[i][1];
		if (!ok)
			snprintf(why, sizeof why, "budget %zu: %zu, want %zu", budget[i][0],
				 got, budget[i][1]);
	}
	t_check(ok, "ntmem populate: the default size, 1 GiB or less when memory "
		"is short", "%s", why);

	static struct populate_opts o;
	struct cli_error e;
	char *none[] = {"populate", "-r", "1", NULL};
	int r = populate_parse(3, none, &o, &e);
	t_check(r == 0 && o.size_default && o.size == populate_default_size(memory_budget()),
		"ntmem populate: no --size takes the default",
		"r %d, size %zu, default %d: %s", r, o.size, o.size_default, r ? e.msg : "");
	char *given[] = {"populate", "-s", "8MB", NULL};
	r = populate_parse(3, given, &o, &e);
	t_check(r == 0 && !o.size_default && o.size == 8 * MiB,
		"ntmem populate: --size is taken as given", "r %d, size %zu", r, o.size);
}

int main(void)
{
	page = (size_t)sysconf(_SC_PAGESIZE);
	printf("note  MADV_POPULATE_WRITE %s\n",
	       ntm_populate_writes() ? "works here" : "is missing here");
	test_fresh_mappings();
	test_hugetlb_reserved();
	test_errors();
	test_arguments();
	test_default_parallel();
	test_handlers_kept();
	test_command();
	test_default_size();
	return t_finish();
}
