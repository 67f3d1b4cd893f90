/*
 * preload_count.c - the shim's side of "ntmem run --report": per function,
 * how many calls and bytes took each path (the small path, each rung of
 * the call's ladder, the C library's memmove for overlapping copies, the
 * baseline before the policy was built), written at exit to the
 * descriptor ntmem run kept open for it.
 *
 * Counting is switched on by routing the functions through the wrappers
 * below, so the ordinary path has no test for it.  A counted call costs
 * two relaxed atomic additions: lock-free, safe in signal handlers.  The
 * counters live in the process's memory, so a forked child starts with
 * its parent's; only the process ntmem run started writes a report.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <limits.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/stat.h>
#include <unistd.h>

#include "dispatch/args.h"
#include "dispatch/policy.h"
#include "preload.h"
#include "dispatch/registry.h"
#include "util/size.h"

enum {
	SLOT_SMALL,     /* the entry's small path */
	SLOT_BASELINE,  /* beyond it, before the policy was built */
	SLOT_OVERLAP,   /* an overlapping copy beyond it: memmove */
	SLOT_RUNG,      /* + i: rung i of the call's ladder */
	SLOTS = SLOT_RUNG + NTMEM_LADDER_MAX
};

struct tally {
	uint64_t calls, bytes;
};

/* [function][row][slot]; row 1 is memset of values other than zero, row
 * 0 everything else (memset of zeros, or the copies). */
static struct tally tallies[SHIM_FUNCTIONS][2][SLOTS];

/* The path the entry point takes for a call of n bytes with flags 0: the
 * tests check these against ntmem_policy_choice(). */
static unsigned slot_of(enum ntmem_class cls, size_t n, int overlap)
{
	if (n <= ntm_shim_width()->small_max)
		return SLOT_SMALL;
	if (overlap)
		return SLOT_OVERLAP;
	const struct policy *p = ntm_policy_ready();
	if (!p)
		return SLOT_BASELINE;
	return SLOT_RUNG + ntm_ladder_rung(&p->ladder[cls], n);
}

static void count(enum shim_fn f, enum ntmem_class cls, size_t n, int overlap)
{
	struct tally *t = &tallies[f][cls == NTMEM_CLASS_SET_NONZERO]
				  [slot_of(cls, n, overlap)];
	__atomic_fetch_add(&t->calls, 1, __ATOMIC_RELAXED);
	__atomic_fetch_add(&t->bytes, n, __ATOMIC_RELAXED);
}

#define COUNTED_SET(f)                                                   \
	static void *counted_##f(void *dst, int c, size_t n)             \
	{                                                                \
		count(SHIM_##f, ntm_class_of(NTMEM_OP_SET, c), n, 0);    \
		return ntm_shim_width()->set(dst, c, n);                 \
	}
#define COUNTED_COPY(f)                                                  \
	static void *counted_##f(void *dst, const void *src, size_t n)   \
	{                                                                \
		count(SHIM_##f, NTMEM_CLASS_COPY, n,                     \
		      ntm_overlap(dst, src, n));                         \
		return ntm_shim_width()->copy(dst, src, n);              \
	}
NTM_SHIM_SET_FUNCTIONS(COUNTED_SET)
NTM_SHIM_COPY_FUNCTIONS(COUNTED_COPY)

#define ROUTE_SET(f) [SHIM_##f] = {.set = counted_##f},
#define ROUTE_COPY(f) [SHIM_##f] = {.copy = counted_##f},
const union shim_route ntm_shim_counted[SHIM_FUNCTIONS] = {
	NTM_SHIM_SET_FUNCTIONS(ROUTE_SET) NTM_SHIM_COPY_FUNCTIONS(ROUTE_COPY)
};

#define NAME(f) [SHIM_##f] = #f,
static const char *const names[SHIM_FUNCTIONS] = {
	NTM_SHIM_SET_FUNCTIONS(NAME) NTM_SHIM_COPY_FUNCTIONS(NAME)
};

/* ------------------------------------------------------------------ */
/* The report                                                          */
/* ------------------------------------------------------------------ */

static struct {
	int fd;           /* -1: no report */
	pid_t pid;
	dev_t dev;
	ino_t ino;
} report = {.fd = -1};

static int same_file(int fd, dev_t dev, ino_t ino)
{
	struct stat st;
	return fstat(fd, &st) == 0 && st.st_dev == dev && st.st_ino == ino;
}

int ntm_shim_report_setup(void)
{
	const char *v = secure_getenv(NTM_REPORT_ENV);
	long long fd, pid;
	unsigned long long dev, ino;
	int end = 0;
	if (!v || sscanf(v, "%lld:%lld:%llu:%llu%n", &fd, &pid, &dev, &ino,
			 &end) != 4 || v[end] || fd < 0 || fd > INT_MAX ||
	    pid != (long long)getpid() || !same_file((int)fd, dev, ino))
		return 0;
	report.fd = (int)fd;
	report.pid = (pid_t)pid;
	report.dev = (dev_t)dev;
	report.ino = (ino_t)ino;
	return 1;
}

/* Write all of s; a failed write ends the report quietly. */
static int put(const char *s, int len)
{
	while (len > 0) {
		ssize_t w = write(report.fd, s, (size_t)len);
		if (w < 0 && errno == EINTR)
			continue;
		if (w <= 0)
			return -1;
		s += w;
		len -= (int)w;
	}
	return 0;
}

/* "copy rung 1: nt_avx512, 64 MiB to max", "small path (set_nonzero): up
 * to 512 B, AVX-512 stores" and the like. */
static void slot_label(enum shim_fn f, int row, unsigned slot, char *buf,
		       size_t len)
{
	const struct entry_width *w = ntm_shim_width();
	enum ntmem_op op = ntm_shim_op(f);
	enum ntmem_class cls = op == NTMEM_OP_COPY ? NTMEM_CLASS_COPY
				: row ? NTMEM_CLASS_SET_NONZERO : NTMEM_CLASS_SET_ZERO;
	const struct policy *p = ntm_policy_ready();
	char a[32], b[32];
	if (slot == SLOT_SMALL) {
		snprintf(buf, len, "small path (%s): up to %s, %s", ntm_class_key[cls],
			 ntm_format_size(w->small_max, a, sizeof a), w->small_name);
	} else if (slot == SLOT_BASELINE) {
		snprintf(buf, len, "before the policy was built (%s): %s",
			 ntm_class_key[cls], ntm_baseline(op, 0)->name);
	} else if (slot == SLOT_OVERLAP) {
		snprintf(buf, len, "overlapping copy: the C library's memmove");
	} else if (!p) {
		snprintf(buf, len, "%s rung %u", ntm_class_key[cls], slot - SLOT_RUNG);
	} else {
		const struct ladder *l = &p->ladder[cls];
		unsigned i = slot - SLOT_RUNG;
		size_t from = i ? l->to[i - 1] : w->small_max + 1;
		snprintf(buf, len, "%s rung %u: %s, %s to %s", ntm_class_key[cls],
			 i, l->v[i]->name, ntm_format_size(from, a, sizeof a),
			 l->to[i] == SIZE_MAX ? "max"
					      : ntm_format_size(l->to[i], b, sizeof b));
	}
}

static void write_report(void)
{
	char line[512], label[256];
	int len = snprintf(line, sizeof line,
			   "ntmem run: report of pid %ld (%s): calls by path\n"
			   "  %-22s %12s %18s  %s\n",
			   (long)report.pid, program_invocation_short_name,
			   "function", "calls", "bytes", "path");
	if (put(line, len))
		return;
	for (int f = 0; f < SHIM_FUNCTIONS; f++)
		for (int row = 0; row < 2; row++)
			for (unsigned s = 0; s < SLOTS; s++) {
				const struct tally *t = &tallies[f][row][s];
				uint64_t calls = __atomic_load_n(&t->calls, __ATOMIC_RELAXED);
				uint64_t bytes = __atomic_load_n(&t->bytes, __ATOMIC_RELAXED);
				if (!calls)
					continue;
				slot_label(f, row, s, label, sizeof label);
				len = snprintf(line, sizeof line,
					       "  %-22s %12llu %18llu  %s\n", names[f],
					       (unsigned long long)calls,
					       (unsigned long long)bytes, label);
				if (put(line, len < (int)sizeof line ? len
								   : (int)sizeof line - 1))
					return;
			}
}

/* At exit, after the program's own destructors: only in the process
 * that asked, and only to the file it named.  The report's own copies go
 * uncounted. */
__attribute__((destructor)) static void shim_report(void)
{
	if (report.fd < 0 || getpid() != report.pid ||
	    !same_file(report.fd, report.dev, report.ino))
		return;
	int saved = errno;
	ntm_shim_route_all(0);
	write_report();
	errno = saved;
}
