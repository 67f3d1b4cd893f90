/* functions.c - registry variants, libc and auto behind one interface. */
#define _GNU_SOURCE
#include "functions.h"

#include <errno.h>
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>


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
	if (n + 3 > max)
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
				       ? "ntmem_set_safe: auto's choice, fault-tolerant"
				       : "ntmem_copy_safe: auto's choice, fault-tolerant",
		.op = op, .kind = FN_SAFE, .variant_id = -1, .supported = 1,
	};
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
		if (set ? ntmem_set_safe(dst, value, n, 0)
			: ntmem_copy_safe(dst, src, n, 0))
			done = NULL;
		break;
	}
	return !done && n ? -1 : 0;
}

static int call_target(void *arg, size_t size)
{
	const struct fn_target *t = arg;
	size_t chunk = t->chunk ? t->chunk : size;
	for (size_t off = 0; off < size; off += chunk) {
		size_t n = size - off < chunk ? size - off : chunk;
		if (fn_run(t->f, t->dst + off, t->src ? t->src + off : NULL, n,
			   t->value))
			return -1;
	}
	return 0;
}

struct benchfn fn_callable(struct fn_target *t)
{
	return (struct benchfn){t->f->name, call_target, t};
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
