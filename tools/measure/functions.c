/* functions.c - registry variants, libc and auto behind one interface. */
#define _GNU_SOURCE
#include "functions.h"

#include <errno.h>
#include <pthread.h>
#include <sched.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "measure.h"

size_t fn_list(enum ntmem_op op, struct fn *out, size_t max)
{
	size_t n = 0;
	for (int id = 0; id < ntmem_variant_count() && n < max; id++) {
		struct ntmem_variant_info v;
		ntmem_variant_info(id, &v);
		/* The C library's own function is listed once, as "glibc". */
		if (v.op != op || v.role == NTMEM_ROLE_LIBC)
			continue;
		out[n++] = (struct fn){
			.name = v.name, .description = v.description, .op = op,
			.kind = FN_VARIANT, .variant_id = id,
			.streaming = v.streaming, .zero_only = v.zero_only,
			.role = v.role, .rank = v.rank,
			.supported = v.supported,
			.why_unsupported = v.why_unsupported,
		};
	}
	if (n + 4 > max)
		return n;
	int libc_id = -1;
	for (int id = 0; id < ntmem_variant_count(); id++) {
		struct ntmem_variant_info v;
		ntmem_variant_info(id, &v);
		if (v.op == op && v.role == NTMEM_ROLE_LIBC)
			libc_id = id;
	}
	out[n++] = (struct fn){
		.name = "glibc",
		.description = op == NTMEM_OP_SET ? "the C library's memset"
						  : "the C library's memcpy",
		.op = op, .kind = FN_LIBC, .variant_id = libc_id, .supported = 1,
		.role = NTMEM_ROLE_LIBC,
	};
	out[n++] = (struct fn){
		.name = "auto",
		.description = op == NTMEM_OP_SET
				       ? "ntmem_set: the policy in effect chooses"
				       : "ntmem_copy: the policy in effect chooses",
		.op = op, .kind = FN_AUTO, .variant_id = -1, .supported = 1,
	};
	out[n++] = (struct fn){
		.name = "safe",
		.description = op == NTMEM_OP_SET
				       ? "ntmem_set_safe: auto's choice, but a bad page "
					 "ends the call instead of a crash"
				       : "ntmem_copy_safe: auto's choice, but a bad page "
					 "ends the call instead of a crash",
		.op = op, .kind = FN_SAFE, .variant_id = -1, .supported = 1,
	};
	out[n++] = (struct fn){
		.name = "safe_unblocked",
		.description = "safe with NTMEM_F_UNBLOCKED: no signal-mask call; "
			       "the caller vouches SIGSEGV, SIGBUS are unblocked",
		.op = op, .kind = FN_SAFE, .variant_id = -1, .supported = 1,
		.safe_flags = NTMEM_F_UNBLOCKED,
	};
	return n;
}

size_t fn_list_peers(enum ntmem_op op, struct fn *out, size_t n, size_t max)
{
	for (size_t i = 0; i < peer_count() && n < max; i++) {
		const struct peer *p = peer_get(i);
		out[n++] = (struct fn){
			.name = p->def->name, .description = p->def->description,
			.op = op, .kind = FN_PEER, .variant_id = -1,
			.streaming = p->def->nontemporal == 1,
			.supported = p->supported, .why_unsupported = p->why,
			.peer = p,
		};
	}
	return n;
}

const struct fn *fn_find(const struct fn *list, size_t n, const char *name)
{
	for (size_t i = 0; i < n; i++)
		if (!strcmp(list[i].name, name))
			return &list[i];
	return NULL;
}

const struct fn *fn_of_kind(const struct fn *list, size_t n, enum fn_kind kind)
{
	for (size_t i = 0; i < n; i++)
		if (list[i].kind == kind)
			return &list[i];
	return NULL;
}

const struct fn *fn_best(const struct fn *list, size_t n, enum ntmem_role role,
			 int zero_ok)
{
	const struct fn *best = NULL;
	for (size_t i = 0; i < n; i++) {
		const struct fn *f = &list[i];
		if (f->kind != FN_VARIANT || !f->supported || f->role != role ||
		    (f->zero_only && !zero_ok))
			continue;
		if (!best || f->rank > best->rank)
			best = f;
	}
	return best;
}

int fn_run(const struct fn *f, void *dst, const void *src, size_t n,
	   int value)
{
	int set = f->op == NTMEM_OP_SET;
	void *done = dst;
	switch (f->kind) {
	case FN_VARIANT:
		if (set)
			done = ntmem_variant_set(f->variant_id, dst, value, n, 0);
		else
			done = ntmem_variant_copy(f->variant_id, dst, src, n, 0);
		break;
	case FN_LIBC:
		if (set)
			memset(dst, value, n);
		else
			memcpy(dst, src, n);
		break;
	case FN_AUTO:
		if (set)
			ntmem_set(dst, value, n);
		else
			ntmem_copy(dst, src, n);
		break;
	case FN_SAFE:  /* not done, or refused: (size_t)-1 */
		if (set ? ntmem_set_safe(dst, value, n, f->safe_flags)
			: ntmem_copy_safe(dst, src, n, f->safe_flags))
			done = NULL;
		break;
	case FN_PEER:
		done = set ? peer_set(f->peer, dst, value, n)
			   : peer_copy(f->peer, dst, src, n);
		break;
	}
	return !done && n ? -1 : 0;
}

#define MAX_THREADS 64

/* One thread's part of a plain split. */
struct part {
	const struct fn *f;
	unsigned char *dst;
	const unsigned char *src;
	size_t n;
	int value, cpu, rc, err;
	pthread_t thread;
};

static void *run_part(void *arg)
{
	struct part *p = arg;
	if (p->cpu >= 0)
		pin_to_cpu(p->cpu);
	p->rc = fn_run(p->f, p->dst, p->src, p->n, p->value);
	p->err = errno;
	return NULL;
}

/* The allowed CPUs other than the caller's, in order, into cpus[]: those
 * the process had before bench pinned this thread, since a thread
 * started now inherits the pinned mask. */
static unsigned other_cpus(int *cpus, unsigned max)
{
	int all[MAX_THREADS + 1];
	unsigned n = 0, total = allowed_cpus(all, MAX_THREADS + 1);
	int self = current_cpu();
	for (unsigned i = 0; i < total && n < max; i++)
		if (all[i] != self)
			cpus[n++] = all[i];
	return n;
}

int fn_run_threads(const struct fn *f, void *dst, const void *src, size_t n,
		   int value, unsigned threads)
{
	if (threads <= 1)
		return fn_run(f, dst, src, n, value);
	if (f->kind == FN_AUTO) {
		struct ntmem_opts opts = {.flags = NTMEM_F_PARALLEL, .threads = threads};
		void *done = f->op == NTMEM_OP_SET ? ntmem_set_opts(dst, value, n, &opts)
						   : ntmem_copy_opts(dst, src, n, &opts);
		return !done && n ? -1 : 0;
	}
	struct part parts[MAX_THREADS];
	int cpus[MAX_THREADS];
	threads = threads > MAX_THREADS ? MAX_THREADS : threads;
	unsigned ncpus = other_cpus(cpus, MAX_THREADS);
	size_t lines = n / 64, off = 0;
	for (unsigned k = 0; k < threads; k++) {
		size_t end = k + 1 == threads ? n : (lines * (k + 1) / threads) * 64;
		parts[k] = (struct part){f, (unsigned char *)dst + off,
					 src ? (const unsigned char *)src + off : NULL,
					 end - off, value,
					 k && ncpus ? cpus[(k - 1) % ncpus] : -1, 0, 0, 0};
		off = end;
	}
	unsigned started = 1;
	for (; started < threads; started++)
		if (pthread_create(&parts[started].thread, NULL, run_part, &parts[started]))
			break;
	run_part(&parts[0]);  /* the caller's own part, on its own CPU */
	for (unsigned k = started; k < threads; k++)
		run_part(&parts[k]);  /* could not start: run here */
	int rc = parts[0].rc, err = parts[0].err;
	for (unsigned k = 1; k < threads; k++) {
		if (k < started)
			pthread_join(parts[k].thread, NULL);
		if (parts[k].rc && !rc) {
			rc = parts[k].rc;
			err = parts[k].err;
		}
	}
	errno = err;
	return rc;
}

static int call_target(void *arg, size_t size)
{
	const struct fn_target *t = arg;
	size_t chunk = t->chunk ? t->chunk : size;
	for (size_t off = 0; off < size; off += chunk) {
		size_t n = size - off < chunk ? size - off : chunk;
		if (fn_run_threads(t->f, t->dst + off, t->src ? t->src + off : NULL, n,
				   t->value, t->threads))
			return -1;
	}
	return 0;
}

/* Whole calls on one thread: the function and nothing around it, one
 * callable per kind, so that at 64 bytes (a few ns a call) every kind
 * pays the same small cost of being timed. */
static int call_libc_set(void *arg, size_t size)
{
	const struct fn_target *t = arg;
	memset(t->dst, t->value, size);
	return 0;
}

static int call_libc_copy(void *arg, size_t size)
{
	const struct fn_target *t = arg;
	memcpy(t->dst, t->src, size);
	return 0;
}

static int call_auto_set(void *arg, size_t size)
{
	const struct fn_target *t = arg;
	ntmem_set(t->dst, t->value, size);
	return 0;
}

static int call_auto_copy(void *arg, size_t size)
{
	const struct fn_target *t = arg;
	ntmem_copy(t->dst, t->src, size);
	return 0;
}

/* The flags as constants, as a program passes them: a load of them per
 * call would be timed too. */
static int call_safe_set(void *arg, size_t size)
{
	const struct fn_target *t = arg;
	return ntmem_set_safe(t->dst, t->value, size, 0) ? -1 : 0;
}

static int call_safe_copy(void *arg, size_t size)
{
	const struct fn_target *t = arg;
	return ntmem_copy_safe(t->dst, t->src, size, 0) ? -1 : 0;
}

static int call_safe_set_unblocked(void *arg, size_t size)
{
	const struct fn_target *t = arg;
	return ntmem_set_safe(t->dst, t->value, size, NTMEM_F_UNBLOCKED) ? -1 : 0;
}

static int call_safe_copy_unblocked(void *arg, size_t size)
{
	const struct fn_target *t = arg;
	return ntmem_copy_safe(t->dst, t->src, size, NTMEM_F_UNBLOCKED) ? -1 : 0;
}

static int call_peer_set(void *arg, size_t size)
{
	const struct fn_target *t = arg;
	peer_set(t->f->peer, t->dst, t->value, size);
	return 0;
}

static int call_peer_copy(void *arg, size_t size)
{
	const struct fn_target *t = arg;
	peer_copy(t->f->peer, t->dst, t->src, size);
	return 0;
}

/* A peer called as the C library's function is, with nothing after the
 * call: what glibc's own callable costs, so the two compare alike. */
static int call_plain_set(void *arg, size_t size)
{
	const struct fn_target *t = arg;
	t->f->peer->set.plain(t->dst, t->value, size);
	return 0;
}

static int call_plain_copy(void *arg, size_t size)
{
	const struct fn_target *t = arg;
	t->f->peer->copy.plain(t->dst, t->src, size);
	return 0;
}

struct benchfn fn_callable(struct fn_target *t)
{
	int set = t->f->op == NTMEM_OP_SET;
	int (*call)(void *, size_t) = call_target;
	if (!t->chunk && t->threads <= 1 && t->f->kind == FN_LIBC)
		call = set ? call_libc_set : call_libc_copy;
	else if (!t->chunk && t->threads <= 1 && t->f->kind == FN_AUTO)
		call = set ? call_auto_set : call_auto_copy;
	else if (!t->chunk && t->threads <= 1 && t->f->kind == FN_SAFE)
		call = t->f->safe_flags & NTMEM_F_UNBLOCKED
			       ? (set ? call_safe_set_unblocked : call_safe_copy_unblocked)
			       : (set ? call_safe_set : call_safe_copy);
	else if (!t->chunk && t->threads <= 1 && t->f->kind == FN_PEER &&
		 t->f->peer->def->abi != PEER_ABI_FLAGS && !t->f->peer->drain)
		call = set ? call_plain_set : call_plain_copy;
	else if (!t->chunk && t->threads <= 1 && t->f->kind == FN_PEER)
		call = set ? call_peer_set : call_peer_copy;
	return (struct benchfn){t->f->name, call, t};
}

/* glibc's loader lists its tunables with their values (glibc 2.33+). */
static size_t libc_thresholds[2];
static pthread_once_t libc_once = PTHREAD_ONCE_INIT;

static void read_libc_thresholds(void)
{
	char loader[512] = "";
	FILE *maps = fopen("/proc/self/maps", "re");
	if (maps) {
		char line[768];
		while (fgets(line, sizeof line, maps)) {
			char *path = strchr(line, '/');
			if (path && strstr(path, "/ld-linux")) {
				path[strcspn(path, "\n")] = '\0';
				snprintf(loader, sizeof loader, "%s", path);
				break;
			}
		}
		fclose(maps);
	}
	if (!loader[0] || strchr(loader, '\''))
		return;
	char cmd[600];
	snprintf(cmd, sizeof cmd, "'%s' --list-tunables 2>/dev/null", loader);
	FILE *p = popen(cmd, "re");
	if (!p)
		return;
	char line[256];
	int listed = 0;
	while (fgets(line, sizeof line, p)) {
		unsigned long long v;
		listed = 1;
		if (sscanf(line, "glibc.cpu.x86_non_temporal_threshold: %llx", &v) == 1)
			libc_thresholds[NTMEM_OP_COPY] = (size_t)v;
		if (sscanf(line, "glibc.cpu.x86_memset_non_temporal_threshold: %llx",
			   &v) == 1)
			libc_thresholds[NTMEM_OP_SET] = (size_t)v;
	}
	pclose(p);
	/* glibc before 2.40 has no streaming memset (and no tunable for it). */
	if (listed && !libc_thresholds[NTMEM_OP_SET])
		libc_thresholds[NTMEM_OP_SET] = SIZE_MAX;
}

size_t libc_stream_threshold(enum ntmem_op op)
{
	pthread_once(&libc_once, read_libc_thresholds);
	return libc_thresholds[op];
}

int fn_streams(const struct fn *f, size_t n, int value)
{
	struct ntmem_variant_info v;
	int id;
	switch (f->kind) {
	case FN_VARIANT:
		return f->streaming;
	case FN_AUTO:
	case FN_SAFE:
		id = ntmem_policy_choice(f->op, value, n, 0);
		return id >= 0 && !ntmem_variant_info(id, &v) && v.streaming;
	case FN_LIBC: {
		size_t t = libc_stream_threshold(f->op);
		return t ? n >= t : -1;
	}
	case FN_PEER:
		return f->peer->def->nontemporal;
	}
	return -1;
}

const char *fn_dispatch(const struct fn *f, size_t n, int value)
{
	struct ntmem_variant_info v;
	if (f->kind != FN_AUTO)
		return NULL;
	int id = ntmem_policy_choice(f->op, value, n, 0);
	if (id == NTMEM_SMALL_PATH)
		return "small path";
	return id >= 0 && !ntmem_variant_info(id, &v) ? v.name : "?";
}
