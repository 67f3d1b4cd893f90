/* test_select.c - the selector's routes (src/dispatch/select.h) against a
 * table written out by hand, on a ladder set by NTMEM_TUNABLES; and the
 * entry points' assembly against the selector: a call the selector gives
 * the small path or the inline loop never reaches C, any other does. */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "dispatch/registry.h"
#include "dispatch/select.h"
#include "harness.h"
#include "ntmem.h"
#include "util/size.h"


/* The entry points' calls into C, counted (linked with --wrap). */
static unsigned long reached_c;
void *__real_ntm_set_large(void *dst, int c, size_t n, unsigned flags);
void *__real_ntm_copy_large(void *dst, const void *src, size_t n, unsigned flags);
void *__wrap_ntm_set_large(void *dst, int c, size_t n, unsigned flags);
void *__wrap_ntm_copy_large(void *dst, const void *src, size_t n, unsigned flags);
void *__wrap_ntm_set_large(void *dst, int c, size_t n, unsigned flags)
{
	reached_c++;
	return __real_ntm_set_large(dst, c, n, flags);
}
void *__wrap_ntm_copy_large(void *dst, const void *src, size_t n, unsigned flags)
{
	reached_c++;
	return __real_ntm_copy_large(dst, src, n, flags);
}

/* Symbols the table uses for variants: the width's own loop (or the C
 * library's where the width has none), the C library's, and the
 * streaming variant the ladder names. */
enum sym { LOOP, LIBC, STREAM, NONE };

struct row {
	enum ntmem_class cls;
	size_t n;            /* bytes; SMALL_MAX + k where k < 64 * KiB */
	int past_small;      /* n is small_max + n */
	unsigned flags;
	int overlap;
	enum ntm_route_kind kind;
	enum sym v;
};

/* The ladder of both memset classes and of memcpy, from the tunables:
 * LOOP to 64 KiB, LIBC to 8 MiB, STREAM above; learning off (adapt=0). */
static const struct row table[] = {
	{NTMEM_CLASS_SET_ZERO, 0, 0, 0, 0, NTM_ROUTE_SMALL, LOOP},
	{NTMEM_CLASS_SET_ZERO, 0, 0, NTMEM_F_NONTEMPORAL, 0, NTM_ROUTE_SMALL, STREAM},
	{NTMEM_CLASS_SET_ZERO, 1, 0, 0, 0, NTM_ROUTE_SMALL, LOOP},
	{NTMEM_CLASS_SET_ZERO, 0, 1, 0, 0, NTM_ROUTE_SMALL, LOOP},
	{NTMEM_CLASS_SET_ZERO, 1, 0, NTMEM_F_NONTEMPORAL, 0, NTM_ROUTE_RUNG, STREAM},
	{NTMEM_CLASS_SET_ZERO, 1, 1, 0, 0, NTM_ROUTE_INLINE, LOOP},
	{NTMEM_CLASS_SET_ZERO, 1, 1, NTMEM_F_TEMPORAL, 0, NTM_ROUTE_RUNG, LOOP},
	{NTMEM_CLASS_SET_ZERO, 1, 1, NTMEM_F_NOFENCE, 0, NTM_ROUTE_RUNG, LOOP},
	{NTMEM_CLASS_SET_NONZERO, 64 * KiB - 1, 0, 0, 0, NTM_ROUTE_INLINE, LOOP},
	{NTMEM_CLASS_SET_NONZERO, 64 * KiB, 0, 0, 0, NTM_ROUTE_RUNG, LIBC},
	{NTMEM_CLASS_SET_NONZERO, 8 * MiB - 1, 0, 0, 0, NTM_ROUTE_RUNG, LIBC},
	{NTMEM_CLASS_SET_NONZERO, 8 * MiB, 0, 0, 0, NTM_ROUTE_RUNG, STREAM},
	{NTMEM_CLASS_SET_NONZERO, 8 * MiB, 0, NTMEM_F_TEMPORAL, 0, NTM_ROUTE_RUNG, LIBC},
	{NTMEM_CLASS_SET_NONZERO, 64 * KiB, 0, NTMEM_F_NONTEMPORAL, 0, NTM_ROUTE_RUNG, STREAM},
	{NTMEM_CLASS_SET_ZERO, SIZE_MAX, 0, 0, 0, NTM_ROUTE_RUNG, STREAM},
	{NTMEM_CLASS_COPY, 0, 1, 0, 1, NTM_ROUTE_SMALL, LOOP},
	{NTMEM_CLASS_COPY, 1, 1, 0, 1, NTM_ROUTE_OVERLAP, NONE},
	{NTMEM_CLASS_COPY, 1, 1, 0, 0, NTM_ROUTE_INLINE, LOOP},
	{NTMEM_CLASS_COPY, 16 * MiB, 0, 0, 1, NTM_ROUTE_OVERLAP, NONE},
	{NTMEM_CLASS_COPY, 16 * MiB, 0, 0, 0, NTM_ROUTE_RUNG, STREAM},
	{NTMEM_CLASS_COPY, 16 * MiB, 0, NTMEM_F_TEMPORAL, 0, NTM_ROUTE_RUNG, LIBC},
	{NTMEM_CLASS_COPY, 1 * MiB, 0, NTMEM_F_NONTEMPORAL, 0, NTM_ROUTE_RUNG, STREAM},
};

static const char *kind_name(enum ntm_route_kind k)
{
	static const char *const names[] = {"small", "inline", "overlap",
					    "baseline", "rung", "learned"};
	return (unsigned)k < 6 ? names[k] : "?";
}

static void test_table(const char *loop_name, const char *stream_name)
{
	static struct policy p;
	char tun[256];
	snprintf(tun, sizeof tun, "set=%s:64KiB,libc:8MiB,%s,copy=%s:64KiB,libc:8MiB,%s,"
		 "adapt=0", loop_name, stream_name, loop_name, stream_name);
	ntm_policy_build(&p, ntm_cpu(), tun, NULL);
	if (p.note_count) {
		t_fail("select: the table's ladder", "%s: %s", tun, p.notes[0]);
		return;
	}
	int bad = 0;
	char why[256] = "";
	for (size_t i = 0; i < sizeof table / sizeof table[0]; i++) {
		const struct row *w = &table[i];
		enum ntmem_op op = ntm_op_of(w->cls);
		size_t n = w->past_small ? p.small_max + w->n : w->n;
		const struct variant *want[] = {
			[LOOP] = ntm_variant_named(op, loop_name),
			[LIBC] = ntm_variant_named(op, "libc"),
			[STREAM] = ntm_variant_named(op, stream_name), [NONE] = NULL};
		enum ntm_route_kind kind = w->kind;
		/* No loop of its own at this width: the rung runs in C. */
		if (kind == NTM_ROUTE_INLINE && !p.loop[op])
			kind = NTM_ROUTE_RUNG;
		struct ntm_route r = ntm_select(&p, w->cls, n, w->flags, w->overlap);
		if (r.kind != kind || r.v != want[w->v]) {
			if (!bad++)
				snprintf(why, sizeof why, "row %zu (%zu B, flags %#x, overlap "
					 "%d): %s %s, want %s %s", i, n, w->flags, w->overlap,
					 kind_name(r.kind), r.v ? r.v->name : "-",
					 kind_name(kind), want[w->v] ? want[w->v]->name : "-");
		}
	}
	t_check(!bad, "select: every route of the table", "%d rows wrong; first: %s",
		bad, why);

	/* Before the policy is built, once the constructor has run: the C
	 * library's function, or streaming, the architecture's baseline. */
	struct ntm_route r = ntm_select(NULL, NTMEM_CLASS_COPY, 16 * MiB, 0, 0);
	t_check(r.kind == NTM_ROUTE_BASELINE && r.v == ntm_libc_variant(NTMEM_OP_COPY),
		"select: before the policy, the C library's", "%s %s",
		kind_name(r.kind), r.v ? r.v->name : "-");
	r = ntm_select(NULL, NTMEM_CLASS_SET_ZERO, 16 * MiB, NTMEM_F_NONTEMPORAL, 0);
	t_check(r.kind == NTM_ROUTE_BASELINE && r.v == ntm_baseline(NTMEM_OP_SET, 1),
		"select: before the policy, streaming: the baseline", "%s %s",
		kind_name(r.kind), r.v ? r.v->name : "-");
}

/* The assembly entries against the selector, on the process's policy:
 * calls of each size reach C exactly when the selector's route is
 * neither SMALL nor INLINE. */
static void test_entries_agree(void)
{
	const struct policy *p = ntm_policy_for_report();
	size_t top = 4 * MiB;
	unsigned char *a = malloc(top + 64), *b = malloc(top + 64);
	if (!p || !a || !b) {
		t_fail("select: the entry points agree with the selector", "%s",
		       p ? "out of memory" : "no policy");
		free(a);
		free(b);
		return;
	}
	memset(a, 7, top + 64);
	size_t sizes[128];
	int nsizes = 0;
	for (size_t n = 0; n <= 2 * p->small_max + 2 && nsizes < 120; n += n < 64 ? 1 : 63)
		sizes[nsizes++] = n;
	const size_t edges[] = {p->inline_max[0], p->inline_max[1]};
	for (int e = 0; e < 2; e++)
		for (int d = -1; d <= 1; d++)
			if (edges[e] + d <= top && edges[e] + d > 0 && nsizes < 128)
				sizes[nsizes++] = edges[e] + (size_t)d;
	int bad = 0;
	char why[200] = "";
	for (int i = 0; i < nsizes; i++)
		for (int op = 0; op < 2; op++)
			for (unsigned flags = 0; flags <= NTMEM_F_NONTEMPORAL; flags++) {
				size_t n = sizes[i];
				enum ntmem_class cls = op ? NTMEM_CLASS_COPY : NTMEM_CLASS_SET_NONZERO;
				struct ntm_route r = ntm_select(p, cls, n, flags, 0);
				unsigned long before = reached_c;
				if (op)
					ntmem_copy_flags(b, a, n, flags);
				else
					ntmem_set_flags(b, 5, n, flags);
				int in_c = reached_c != before;
				int want_c = r.kind != NTM_ROUTE_SMALL && r.kind != NTM_ROUTE_INLINE;
				if (in_c != want_c && !bad++)
					snprintf(why, sizeof why, "%s of %zu B, flags %#x: the "
						 "selector says %s, the entry %s C", op ? "copy" : "set",
						 n, flags, kind_name(r.kind), in_c ? "went to" : "stayed out of");
			}
	t_check(!bad, "select: the entry points take the small path and the inline "
		"loop exactly where the selector says", "%d calls wrong; first: %s", bad, why);
	free(a);
	free(b);
}

int main(void)
{
	const char *stream = t_streaming_variant(NTMEM_OP_SET);
	const char *stream_copy = t_streaming_variant(NTMEM_OP_COPY);
	const struct policy *p = ntm_policy_for_report();
	if (!stream || !stream_copy || !p) {
		t_skip("select: every route of the table", "no streaming variant runs "
		       "here (the portable build), or no policy");
	} else if (strcmp(stream, stream_copy)) {
		t_skip("select: every route of the table", "the set and copy streaming "
		       "variants differ in name here");
	} else {
		const struct variant *loop = p->loop[NTMEM_OP_SET];
		test_table(loop ? loop->name : "libc", stream);
	}
	test_entries_agree();
	return t_finish();
}
