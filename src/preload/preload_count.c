/*
 * preload_count.c - the shim's side of "ntmem run --report": each
 * process keeps a record of its calls (record.h) in the directory ntmem
 * run named, mapped shared, so the counts reach the file as they are made
 * and survive however the process ends.  ntmem run merges the records
 * once the command has finished.  A process that cannot make its record
 * leaves a marker saying why, or is counted in its parent's record, so
 * that the report can say how many processes it is missing.
 *
 * Counting is switched on by routing the functions through the wrappers
 * below, so the ordinary path has no test for it.  A counted call costs a
 * few relaxed atomic additions (lock-free, safe in signal handlers), and
 * from NTM_RECORD_TIMED_MIN bytes up two clock reads.  No descriptor
 * stays open: the record is mapped and its file closed at once.  A forked
 * child starts a record of its own (pthread_atfork); an exec'd program
 * loads the shim again and starts its own; a child of vfork or
 * posix_spawn shares its parent's memory until it execs, and its few
 * calls before that count as the parent's.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <pthread.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include "dispatch/args.h"
#include "dispatch/registry.h"
#include "dispatch/select.h"
#include "preload.h"
#include "util/clock.h"
#include "variants/fence.h"
#include "variants/libc.h"

static struct ntm_record *record;          /* NULL: not counting */
static char report_dir[PATH_MAX];

/* Each variant's path slot in the record (describe() assigns them), by
 * registry id; a variant past the record's slots counts in the last. */
#define MAX_VARIANT_IDS 64
static unsigned char slot_of[MAX_VARIANT_IDS];

/* The path a call took: the selector's route, and the variant that ran. */
static unsigned path_of(enum ntm_route_kind kind, const struct variant *v)
{
	switch (kind) {
	case NTM_ROUTE_SMALL:
		return NTM_PATH_SMALL;
	case NTM_ROUTE_OVERLAP:
		return NTM_PATH_OVERLAP;
	case NTM_ROUTE_BASELINE:
		return NTM_PATH_BASELINE;
	default: {
		int id = ntm_variant_id(v);
		return NTM_PATH_VARIANT +
		       (id >= 0 && id < MAX_VARIANT_IDS ? slot_of[id]
							: NTM_RECORD_VARIANTS - 1);
	}
	}
}

static void add(uint64_t *counter, uint64_t v)
{
	__atomic_fetch_add(counter, v, __ATOMIC_RELAXED);
}

/* Count a call of n bytes that takes a route of kind and runs v; returns
 * its start time if it is to be timed, else 0. */
static uint64_t count(enum shim_fn f, enum ntmem_class cls, size_t n,
		      enum ntm_route_kind kind, const struct variant *v)
{
	struct ntm_record *rec = __atomic_load_n(&record, __ATOMIC_RELAXED);
	if (!rec)
		return 0;
	unsigned line = ntm_record_line(f, cls == NTMEM_CLASS_SET_NONZERO);
	struct ntm_record_cell *c = &rec->cell[line][ntm_record_bucket(n)][path_of(kind, v)];
	add(&c->calls, 1);
	add(&c->bytes, n);
	return n >= NTM_RECORD_TIMED_MIN ? ntm_now_ns() : 0;
}

static void timed(enum shim_fn f, enum ntmem_class cls, size_t n,
		  uint64_t start)
{
	struct ntm_record *r = __atomic_load_n(&record, __ATOMIC_RELAXED);
	if (!start || !r)
		return;
	struct ntm_record_time *t =
		&r->time[ntm_record_line(f, cls == NTMEM_CLASS_SET_NONZERO)]
			[ntm_record_bucket(n)];
	add(&t->calls, 1);
	add(&t->ns, ntm_now_ns() - start);
}

/* A counted call: its route, and for a band that learns the side and its
 * ticket, taken before the call so that the count says what ran. */
struct counted {
	struct ntm_route r;
	const struct variant *v;
	struct learn_ticket t;
	uint64_t t0;
};

static void take(struct counted *k, enum shim_fn f, enum ntmem_class cls, size_t n,
		 int overlap)
{
	k->r = ntm_select(ntm_policy_for_call(), cls, n, 0, overlap);
	k->t.slot = NULL;
	k->v = k->r.kind == NTM_ROUTE_LEARNED ? ntm_learned_take(k->r, &k->t) : k->r.v;
	k->t0 = k->t.slot ? ntm_now_ns() : 0;
	k->r.streams = k->v && ntm_streams(k->v);
	uint64_t start = count(f, cls, n, k->r.kind, k->v);
	k->t0 = k->t0 ? k->t0 : start;
}

/* After the call: its fence, the learning's sample, the record's time. */
static void done(const struct counted *k, enum shim_fn f, enum ntmem_class cls,
		 size_t n)
{
	if (k->r.kind != NTM_ROUTE_SMALL && k->r.kind != NTM_ROUTE_INLINE)
		ntm_fence_after(k->r.streams, 0);
	if (k->t.slot)
		ntm_learned_done(k->r, &k->t, n, k->t0, ntm_now_ns());
	timed(f, cls, n, k->t0);
}

/* Each wrapper asks the selector once, counts the route it got, and runs
 * that route: the small path and the inline loop are the entry's own;
 * the rest the variant the route names, the learning's side included. */
#define COUNTED_SET(f)                                                   \
	static void *counted_##f(void *dst, int c, size_t n)             \
	{                                                                \
		enum ntmem_class cls = ntm_class_of(NTMEM_OP_SET, c);    \
		struct counted k;                                        \
		take(&k, SHIM_##f, cls, n, 0);                           \
		if (k.r.kind == NTM_ROUTE_SMALL || k.r.kind == NTM_ROUTE_INLINE) \
			ntm_shim_width()->set(dst, c, n);                \
		else                                                     \
			k.v->set(dst, c, n);                             \
		done(&k, SHIM_##f, cls, n);                              \
		return dst;                                              \
	}
#define COUNTED_COPY(f)                                                  \
	static void *counted_##f(void *dst, const void *src, size_t n)   \
	{                                                                \
		struct counted k;                                        \
		take(&k, SHIM_##f, NTMEM_CLASS_COPY, n, ntm_overlap(dst, src, n)); \
		if (k.r.kind == NTM_ROUTE_SMALL || k.r.kind == NTM_ROUTE_INLINE) \
			ntm_shim_width()->copy(dst, src, n);             \
		else if (k.r.kind == NTM_ROUTE_OVERLAP)                  \
			ntm_libc.memmove(dst, src, n);                   \
		else                                                     \
			k.v->copy(dst, src, n);                          \
		done(&k, SHIM_##f, NTMEM_CLASS_COPY, n);                 \
		return dst;                                              \
	}
NTM_SHIM_SET_FUNCTIONS(COUNTED_SET)
NTM_SHIM_COPY_FUNCTIONS(COUNTED_COPY)

#define ROUTE_SET(f) [SHIM_##f] = {.set = counted_##f},
#define ROUTE_COPY(f) [SHIM_##f] = {.copy = counted_##f},
const union shim_route ntm_shim_counted[SHIM_FUNCTIONS] = {
	NTM_SHIM_SET_FUNCTIONS(ROUTE_SET) NTM_SHIM_COPY_FUNCTIONS(ROUTE_COPY)
};

/* ------------------------------------------------------------------ */
/* The record file                                                     */
/* ------------------------------------------------------------------ */

/* The report directory, opened for one process's record or marker and
 * closed again: what the path leads to must be a directory (not a
 * symbolic link) of this user's, closed to others, or a directory put in
 * its place could be written to.  Every file is then made through the
 * descriptor, never by a path that could since lead elsewhere.  A
 * descriptor, or -1 with errno (ENOTDIR or ELOOP for a link, EPERM for
 * a directory not ours). */
static int open_report_dir(void)
{
	struct stat st;
	int fd = open(report_dir, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
	if (fd < 0)
		return -1;
	if (fstat(fd, &st) || st.st_uid != geteuid() || (st.st_mode & 077)) {
		close(fd);
		errno = EPERM;
		return -1;
	}
	return fd;
}

/* The name of this process's entry seq in the report directory: its
 * record (NTM_RECORD_SUFFIX) or its marker (NTM_LOST_SUFFIX). */
static void entry_name(char *name, size_t len, unsigned seq, const char *suffix)
{
	snprintf(name, len, "%ld-%u%s", (long)getpid(), seq, suffix);
}

/* Has this process an entry numbered seq with suffix in dir (a fork
 * child's marker, before it exec'd the program now starting)? */
static int entry_at(int dir, unsigned seq, const char *suffix)
{
	char name[64];
	struct stat st;
	entry_name(name, sizeof name, seq, suffix);
	return fstatat(dir, name, &st, AT_SYMLINK_NOFOLLOW) == 0;
}

/* A new, zeroed record in dir named after this process, mapped shared,
 * its blocks reserved up front (a store to an unbacked page of a full
 * file system would raise SIGBUS in the program); NULL with errno if any
 * step fails. */
static struct ntm_record *record_create(int dir)
{
	char name[64];
	int fd = -1;
	for (unsigned seq = 0; fd < 0 && seq < 1000; seq++) {
		if (entry_at(dir, seq, NTM_LOST_SUFFIX))
			continue;
		entry_name(name, sizeof name, seq, NTM_RECORD_SUFFIX);
		fd = openat(dir, name, O_RDWR | O_CREAT | O_EXCL | O_CLOEXEC |
				       O_NOFOLLOW, 0600);
		if (fd < 0 && errno != EEXIST)
			return NULL;
	}
	if (fd < 0)
		return NULL;
	void *map = MAP_FAILED;
	int err = posix_fallocate(fd, 0, sizeof(struct ntm_record));
	if (!err) {
		map = mmap(NULL, sizeof(struct ntm_record), PROT_READ | PROT_WRITE,
			   MAP_SHARED, fd, 0);
		err = errno;
	}
	close(fd);
	if (map == MAP_FAILED) {
		unlinkat(dir, name, 0);
		errno = err;
		return NULL;
	}
	return map;
}

/* ------------------------------------------------------------------ */
/* A process without a record                                          */
/* ------------------------------------------------------------------ */

/* Is the report directory, by its path, a directory of this user's
 * closed to others (as open_report_dir() asks, without a descriptor)? */
static int report_dir_ours(void)
{
	struct stat st;
	return !lstat(report_dir, &st) && S_ISDIR(st.st_mode) &&
	       st.st_uid == geteuid() && !(st.st_mode & 077);
}

/* Make the marker name, to target, in dir, or with dir -1 (no
 * descriptor was left to open it by) by its path, once
 * report_dir_ours(): a marker needs no descriptor, and ntmem run takes
 * only a record directory whose path no other user can change. */
static int make_marker(int dir, const char *name, const char *target)
{
	char path[PATH_MAX + 64];
	if (dir >= 0)
		return symlinkat(target, dir, name);
	if (!report_dir_ours()) {
		errno = EPERM;
		return -1;
	}
	snprintf(path, sizeof path, "%s/%s", report_dir, name);
	return symlink(target, path);
}

/* Has this process a record numbered seq, by dir or, without it, by the
 * path? */
static int record_at(int dir, unsigned seq)
{
	char name[64], path[PATH_MAX + 64];
	struct stat st;
	if (dir >= 0)
		return entry_at(dir, seq, NTM_RECORD_SUFFIX);
	entry_name(name, sizeof name, seq, NTM_RECORD_SUFFIX);
	snprintf(path, sizeof path, "%s/%s", report_dir, name);
	return lstat(path, &st) == 0;
}

/* Say in the report directory dir that this process has no record, and
 * why (err): a marker (record.h, NTM_LOST_SUFFIX) at the first number no
 * record or marker of this pid has.  Only a short symbolic link: no data
 * block, and no descriptor (make_marker), for when none is left (dir -1
 * and err EMFILE or ENFILE; any other dir -1: no directory to make it
 * in).  0, or -1 when not even that can be made. */
static int leave_marker(int dir, int err)
{
	char name[64], target[32];
	if (dir < 0 && err != EMFILE && err != ENFILE)
		return -1;
	snprintf(target, sizeof target, NTM_LOST_PREFIX "%d", err);
	for (unsigned seq = 0; seq < 1000; seq++) {
		if (record_at(dir, seq))
			continue;
		entry_name(name, sizeof name, seq, NTM_LOST_SUFFIX);
		if (!make_marker(dir, name, target))
			return 0;
		if (errno != EEXIST)
			return -1;
	}
	return -1;
}

/* This process could make no record (err says why): a marker, else, in
 * a fork child, a count in the parent's record, which the child still
 * maps: shared, so the count reaches the parent's file.  A path that no
 * longer leads to a directory of this user's (moved, or a link put in its
 * place) takes no marker: the count is all. */
static void record_failed(struct ntm_record *parent, int dir, int err)
{
	if (!leave_marker(dir, err) || !parent)
		return;
	__atomic_fetch_add(&parent->lost_children, 1, __ATOMIC_RELAXED);
	__atomic_store_n(&parent->lost_errno, err, __ATOMIC_RELAXED);
}

/* This process's record in the report directory, or NULL having said
 * why it has none (record_failed). */
static struct ntm_record *record_open(struct ntm_record *parent)
{
	int dir = open_report_dir();
	struct ntm_record *r = dir >= 0 ? record_create(dir) : NULL;
	if (!r)
		record_failed(parent, dir, errno);
	if (dir >= 0)
		close(dir);
	return r;
}

/* The line "ntmem info" gives as the policy's sources.  The record's
 * field is fixed: a longer line is cut, and ends in "..." to say so. */
static void describe_policy(const struct policy *p, char *buf, size_t len)
{
	int n = snprintf(buf, len, "built-in %s; profile %s: %s; NTMEM_TUNABLES %s%s%s",
			 p->default_how[0], p->profile_path[0] ? p->profile_path : "-",
			 p->profile_status, p->has_tunables ? "'" : "not set",
			 p->has_tunables ? p->tunables : "", p->has_tunables ? "'" : "");
	if (n >= 0 && (size_t)n >= len && len >= 4)
		memcpy(buf + len - 4, "...", 4);
}

/* Give v a path slot, unless it has one; the last slot takes the rest. */
static void assign_slot(struct ntm_record *r, const struct variant *v,
			unsigned *used)
{
	int id = v ? ntm_variant_id(v) : -1;
	if (id < 0 || id >= MAX_VARIANT_IDS)
		return;
	for (unsigned i = 0; i < *used; i++)
		if (r->variant[i] == id)
			return;
	if (*used == NTM_RECORD_VARIANTS - 1)
		r->variant[*used] = -1;  /* "other" */
	if (*used >= NTM_RECORD_VARIANTS - 1)
		return;
	slot_of[id] = (unsigned char)*used;
	r->variant[(*used)++] = id;
}

/* Every variant a call can reach under p gets a slot: the ladders' rungs,
 * cached twins and streaming variants, the learning's sides, the inline
 * loops. */
static void assign_slots(struct ntm_record *r, const struct policy *p)
{
	unsigned used = 0;
	for (unsigned i = 0; i < NTM_RECORD_VARIANTS; i++)
		r->variant[i] = -1;
	for (unsigned i = 0; i < MAX_VARIANT_IDS; i++)
		slot_of[i] = NTM_RECORD_VARIANTS - 1;
	for (int op = 0; op < 2; op++)
		assign_slot(r, p->loop[op], &used);
	for (int cls = 0; cls < NTMEM_CLASSES; cls++) {
		const struct ladder *l = &p->ladder[cls];
		for (unsigned i = 0; i < l->count; i++) {
			assign_slot(r, l->v[i], &used);
			assign_slot(r, l->cached[i], &used);
		}
		assign_slot(r, l->streaming, &used);
		for (unsigned k = 0; k < NTM_LEARN_BANDS; k++)
			for (unsigned i = 0; i < p->band[cls][k].nsides; i++)
				assign_slot(r, p->band[cls][k].side[i], &used);
	}
}

/* The header: who, the ladders, and what each path slot means. */
static void describe(struct ntm_record *r, const struct policy *p)
{
	const struct entry_width *w = ntm_shim_width();
	r->size = sizeof *r;
	r->pid = getpid();
	r->ppid = getppid();
	r->small_max = p->small_max;
	snprintf(r->program, sizeof r->program, "%s", program_invocation_short_name);
	snprintf(r->small_name, sizeof r->small_name, "%s", w->small_name);
	describe_policy(p, r->policy, sizeof r->policy);
	for (int cls = 0; cls < NTMEM_CLASSES; cls++) {
		const struct ladder *l = &p->ladder[cls];
		r->ladder[cls].count = l->count;
		for (unsigned i = 0; i < l->count; i++) {
			r->ladder[cls].variant[i] = ntm_variant_id(l->v[i]);
			r->ladder[cls].to[i] = l->to[i];
			r->ladder[cls].around[i] = (uint8_t)ntm_select_around_cache(p, cls, i);
		}
		r->learn_from[cls] = p->learn_from[cls] == SIZE_MAX ? UINT64_MAX
								    : p->learn_from[cls];
	}
	assign_slots(r, p);
	/* The magic last: a reader takes a record with it as whole. */
	snprintf(r->magic, sizeof r->magic, "%s", NTM_RECORD_MAGIC);
}

/* In the child of fork: a record of its own, with its parent's header.
 * Until this runs the child counts into its parent's record: only the
 * calls of atfork handlers registered before the shim's. */
static void start_child_record(void)
{
	int saved = errno;  /* the program's, after its fork() */
	struct ntm_record *parent = record, *r = record_open(parent);
	__atomic_store_n(&record, r, __ATOMIC_RELAXED);
	if (!r) {
		ntm_shim_route_all(NULL);
		errno = saved;
		return;
	}
	if (!parent)  /* the parent has no record, and does not count */
		ntm_shim_route_all(ntm_shim_counted);
	const struct policy *p = ntm_policy_for_call();
	if (p)
		describe(r, p);
	else if (parent)
		ntm_shim_width()->copy(r, parent, offsetof(struct ntm_record, cell));
	r->lost_children = 0;  /* the parent's, if copied */
	r->lost_errno = 0;
	r->pid = getpid();
	r->ppid = getppid();
	errno = saved;
}

int ntm_shim_report_setup(void)
{
	/* Absolute, and no '/' at the end, after which a link would be
	 * followed whatever O_NOFOLLOW says. */
	const char *dir = secure_getenv(NTM_REPORT_ENV);
	if (!dir || dir[0] != '/' || dir[strlen(dir) - 1] == '/' ||
	    strlen(dir) >= sizeof report_dir)
		return 0;
	const struct policy *p = ntm_policy_for_report();  /* the report describes it */
	snprintf(report_dir, sizeof report_dir, "%s", dir);
	struct ntm_record *r = record_open(NULL);
	if (r)
		describe(r, p);
	/* Children try for records of their own, even where this process
	 * could make none. */
	if (pthread_atfork(NULL, NULL, start_child_record)) {
		if (r)
			munmap(r, sizeof *r);
		return 0;
	}
	if (!r)
		return 0;
	__atomic_store_n(&record, r, __ATOMIC_RELAXED);
	return 1;
}

/* exit() ran: the counts are final.  (A process ended by _exit, exec or
 * a signal leaves 0; its counts are as complete.) */
__attribute__((destructor)) static void record_exit(void)
{
	struct ntm_record *r = __atomic_load_n(&record, __ATOMIC_RELAXED);
	if (!r)
		return;
	for (int cls = 0; cls < NTMEM_CLASSES; cls++) {
		struct ntm_record_learning *l = &r->learning[cls];
		for (unsigned k = 0; k < NTM_LEARN_BANDS; k++)
			for (unsigned d = 0; d < NTM_LEARN_DOMAINS; d++) {
				struct learn_state st;
				ntm_learn_state(ntm_learn_domain_slot(d, cls, k), &st);
				l->losing[k] += st.losing;
				l->timed += st.timed;
				l->clock_ns += st.clock_ns;
			}
	}
	__atomic_store_n(&r->exited, 1, __ATOMIC_RELEASE);
}
