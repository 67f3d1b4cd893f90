/*
 * test_ladder_edits.c - the NTMEM_TUNABLES keys that edit a ladder
 * (copy_cached, set_cached, *_streaming, *_threshold) on every recorded
 * machine's built-in ladders (data/machines/, the CPU from each one's
 * bench tables), whose rungs may be cached above streaming (Zen 4's copy
 * ladder: vec_avx512 to 8 MiB, streaming to 64 MiB, rep movsb above).
 *
 * Each edit is checked size by size against the ladder before it, at
 * every edge, one byte either side and the sizes between:
 *
 *   - X_cached=NAME: every size a cached rung served is served by NAME,
 *     every size that streamed streams with the same variant, and
 *     NTMEM_F_TEMPORAL takes NAME;
 *   - X_streaming=NAME: every size that streamed streams with NAME,
 *     every other keeps its variant;
 *   - X_threshold=T: from T every size streams (the ladder's streaming
 *     variant); below it a size keeps its cached variant, and one that
 *     streamed takes its cached twin (what NTMEM_F_TEMPORAL took).
 *
 * The edit is also made on the ladder itself (ntm_ladder_set_cached):
 * the same number of rungs, the same edges.
 */
#define _GNU_SOURCE
#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "dispatch/cpu.h"
#include "dispatch/policy.h"
#include "dispatch/registry.h"
#include "dispatch/width.h"
#include "harness.h"
#include "machines.h"
#include "util/size.h"

#define DATA "data/machines"
#define MAX_SIZES 96

static struct policy before, after;  /* large: off the stack */

/* Two at a time: before and after in one message. */
static const char *ladder_text(const struct ladder *l)
{
	static char bufs[2][512];
	static int k;
	char *buf = bufs[k ^= 1];
	size_t used = 0;
	buf[0] = '\0';
	for (unsigned i = 0; i < l->count && used < sizeof bufs[0]; i++) {
		char to[32] = "...";
		if (l->to[i] != SIZE_MAX)
			ntm_format_size(l->to[i], to, sizeof to);
		used += (size_t)snprintf(buf + used, sizeof bufs[0] - used, "%s%s to %s",
					 i ? ", " : "", l->v[i]->name, to);
	}
	return buf;
}

/* The sizes to look at: past the small path, each edge and a byte
 * either side, the middle of each band, and very large. */
static size_t sizes_of(const struct ladder *l, size_t small_max, size_t extra,
		       size_t *out)
{
	size_t n = 0;
	size_t from = small_max + 1;
	out[n++] = from;
	for (unsigned i = 0; i < l->count && n + 5 < MAX_SIZES; i++) {
		size_t to = l->to[i];
		if (to == SIZE_MAX)
			break;
		out[n++] = from + (to - from) / 2;
		out[n++] = to - 1;
		out[n++] = to;
		out[n++] = to + 1;
		from = to;
	}
	out[n++] = from + 1000;
	out[n++] = SIZE_MAX / 2;
	if (extra && extra != SIZE_MAX) {
		out[n++] = extra - 1;
		out[n++] = extra;
		out[n++] = extra + 1;
	}
	return n;
}

/* The ladder-level edit: rung for rung, edges unchanged. */
static int cached_in_place(const struct ladder *l, const struct variant *v,
			   char *why, size_t len)
{
	struct ladder e = *l;
	ntm_ladder_set_cached(&e, v, NTMEM_ORIGIN_ENVIRONMENT);
	if (e.count != l->count) {
		snprintf(why, len, "%u rungs became %u", l->count, e.count);
		return 0;
	}
	for (unsigned i = 0; i < l->count; i++) {
		int streams = ntm_streams(l->v[i]);
		if (e.to[i] != l->to[i] || (streams && e.v[i] != l->v[i]) ||
		    (!streams && e.v[i] != v)) {
			snprintf(why, len, "rung %u: %s to %zu became %s to %zu", i,
				 l->v[i]->name, l->to[i], e.v[i]->name, e.to[i]);
			return 0;
		}
	}
	return 1;
}

enum edit { CACHED, STREAMING, THRESHOLD };

/* What the edit must leave at n, given the ladder before it. */
static const struct variant *expected(enum edit kind, const struct ladder *b,
				      size_t n, const struct variant *v, size_t t)
{
	const struct variant *was = ntm_ladder_variant(b, n, 0);
	switch (kind) {
	case CACHED:
		return ntm_streams(was) ? was : v;
	case STREAMING:
		return ntm_streams(was) ? v : was;
	case THRESHOLD:
		if (n >= t)
			return b->streaming;
		return ntm_streams(was) ? ntm_ladder_variant(b, n, NTMEM_F_TEMPORAL) : was;
	}
	return NULL;
}

/* One edit of one class, size by size.  Returns 1, or 0 with why. */
static int check_class(enum edit kind, int cls, const struct variant *v, size_t t,
		       size_t small_max, char *why, size_t len)
{
	const struct ladder *b = &before.ladder[cls], *a = &after.ladder[cls];
	size_t sizes[MAX_SIZES];
	size_t count = sizes_of(b, small_max, kind == THRESHOLD ? t : 0, sizes);
	for (size_t i = 0; i < count; i++) {
		size_t n = sizes[i];
		const struct variant *want = expected(kind, b, n, v, t);
		const struct variant *got = ntm_ladder_variant(a, n, 0);
		if (n > small_max && got != want) {
			snprintf(why, len, "%zu B: %s, want %s; before: %s; after: %s", n,
				 got->name, want->name, ladder_text(b), ladder_text(a));
			return 0;
		}
	}
	const struct variant *nt = ntm_ladder_variant(a, SIZE_MAX / 2, NTMEM_F_NONTEMPORAL);
	const struct variant *want_nt = kind == STREAMING ? v : b->streaming;
	if (nt != want_nt) {
		snprintf(why, len, "NONTEMPORAL: %s, want %s", nt->name, want_nt->name);
		return 0;
	}
	if (kind == CACHED && ntm_ladder_variant(a, SIZE_MAX / 2, NTMEM_F_TEMPORAL) != v) {
		snprintf(why, len, "TEMPORAL: %s, want %s",
			 ntm_ladder_variant(a, SIZE_MAX / 2, NTMEM_F_TEMPORAL)->name, v->name);
		return 0;
	}
	if (kind == CACHED)
		return cached_in_place(b, v, why, len);
	return 1;
}

/* The classes a key names: set_* both memset classes, copy_* copies. */
static int classes_of(enum ntmem_op op, int *cls)
{
	if (op == NTMEM_OP_COPY) {
		cls[0] = NTMEM_CLASS_COPY;
		return 1;
	}
	cls[0] = NTMEM_CLASS_SET_ZERO;
	cls[1] = NTMEM_CLASS_SET_NONZERO;
	return 2;
}

static const char *const op_key[2] = {"set", "copy"};

/* key=value on machine's CPU against its built-in ladders. */
static int edit_ok(const struct cpu *cpu, enum edit kind, enum ntmem_op op,
		   const struct variant *v, size_t t, char *why, size_t len)
{
	static const char *const suffix[] = {"cached", "streaming", "threshold"};
	char tun[128];
	if (kind == THRESHOLD)
		snprintf(tun, sizeof tun, "%s_threshold=%zu", op_key[op], t);
	else
		snprintf(tun, sizeof tun, "%s_%s=%s", op_key[op], suffix[kind], v->name);
	ntm_policy_build(&after, cpu, tun, NULL);
	if (after.note_count) {
		snprintf(why, len, "%s: %s", tun, after.notes[0]);
		return 0;
	}
	size_t small_max = ntm_width_small_max(ntm_width_for(cpu->usable));
	int cls[2], n = classes_of(op, cls);
	for (int i = 0; i < n; i++) {
		/* A zero-only streaming variant leaves other values alone. */
		if (kind == STREAMING && v->zero_only && cls[i] == NTMEM_CLASS_SET_NONZERO)
			continue;
		char sub[400];
		if (!check_class(kind, cls[i], v, t, small_max, sub, sizeof sub)) {
			snprintf(why, len, "%s, %s: %s", tun, ntm_class_key[cls[i]], sub);
			return 0;
		}
	}
	return 1;
}

/* Every variant of op that this CPU runs and the key takes. */
static int each_variant(const struct cpu *cpu, enum edit kind, enum ntmem_op op,
			char *why, size_t len, int *tried)
{
	for (int id = 0; id < ntm_variant_count(); id++) {
		const struct variant *v = ntm_variant(id);
		if (v->op != op || ntm_variant_unsupported(v) ||
		    ntm_streams(v) != (kind == STREAMING))
			continue;
		++*tried;
		if (!edit_ok(cpu, kind, op, v, 0, why, len))
			return 0;
	}
	return 1;
}

/* Thresholds at each edge of the ladders, between them, and never. */
static int each_threshold(const struct cpu *cpu, enum ntmem_op op, char *why,
			  size_t len, int *tried)
{
	const struct ladder *l = &before.ladder[op == NTMEM_OP_COPY ? NTMEM_CLASS_COPY
								   : NTMEM_CLASS_SET_ZERO];
	size_t small_max = ntm_width_small_max(ntm_width_for(cpu->usable));
	size_t ts[2 * NTMEM_LADDER_MAX + 2];
	int n = 0;
	for (unsigned i = 0; i + 1 < l->count; i++) {
		ts[n++] = l->to[i];
		ts[n++] = l->to[i] + l->to[i] / 2;
	}
	ts[n++] = small_max + 1;
	ts[n++] = SIZE_MAX;
	for (int i = 0; i < n; i++) {
		++*tried;
		if (!edit_ok(cpu, THRESHOLD, op, NULL, ts[i], why, len))
			return 0;
	}
	return 1;
}

static void edit_machine(const char *name, const struct cpu *cpu)
{
	ntm_policy_build(&before, cpu, NULL, NULL);
	for (int cls = 0; cls < NTMEM_CLASSES; cls++)
		printf("  %s %s: %s\n", name, ntm_class_key[cls],
		       ladder_text(&before.ladder[cls]));
	static const char *const what[] = {"cached", "streaming", "threshold"};
	for (int kind = CACHED; kind <= THRESHOLD; kind++)
		for (int op = 0; op < 2; op++) {
			char label[400], why[900] = "";
			int tried = 0, ok;
			snprintf(label, sizeof label, "edits on %s: %s_%s moves no edge "
				 "but its own", name, op_key[op], what[kind]);
			if (kind == THRESHOLD && !ntm_ranked(op, NTMEM_ROLE_STREAMING, 1, ntm_cpu()->usable)) {
				t_skip(label, "no streaming variant runs here");
				continue;
			}
			ok = kind == THRESHOLD ? each_threshold(cpu, op, why, sizeof why, &tried)
					       : each_variant(cpu, kind, op, why, sizeof why, &tried);
			if (!tried)
				t_skip(label, "no variant of that kind runs here");
			else
				t_check(ok, label, "%s", why);
		}
}

/* A machine's CPU from the first of its tables that names it: 1 for an
 * x86-64 one, 0 for another architecture's, -1 when there is none. */
static int recorded_cpu(const char *name, struct cpu *cpu)
{
	char path[512], arch[32];
	snprintf(path, sizeof path, "%s/%.256s/set0.json", DATA, name);
	struct t_json *j = machine_json(path);
	int rc = j && !machine_cpu(j, cpu, arch, sizeof arch) ? !strcmp(arch, "x86_64") : -1;
	t_json_free(j);
	return rc;
}

int main(void)
{
	DIR *d = opendir(DATA);
	if (!d) {
		t_skip("ladder edits", "not run from the repository root (no " DATA ")");
		return t_finish();
	}
	struct dirent *e;
	int machines = 0;
	while ((e = readdir(d))) {
		if (e->d_name[0] == '.')
			continue;
		struct cpu cpu;
		int x86 = recorded_cpu(e->d_name, &cpu);
		char label[300];
		snprintf(label, sizeof label, "edits on %s", e->d_name);
		if (x86 < 0) {
			t_fail(label, "no machine.identity in %s/%.256s/set0.json", DATA,
			       e->d_name);
			continue;
		}
#ifndef __x86_64__
		if (x86) {
			t_skip(label, "an x86-64 machine: its ladders name variants "
			       "this build's registry does not have");
			continue;
		}
#endif
		edit_machine(e->d_name, &cpu);
		machines++;
	}
	closedir(d);
#ifdef __x86_64__
	t_check(machines > 0, "ladder edits: machines recorded", "none in " DATA);
#endif
	return t_finish();
}
