/*
 * test_verdict.c - the verdict of "ntmem run --report" against every
 * ladder shape the recorded machines have: each machine's built-in
 * ladders (its CPU from data/machines/, through the policy builder), the
 * rule for CPUs not recorded on the same CPU, and made-up ladders of the
 * shapes that matter (a streaming band that gives way to a cached rung
 * above it; a band of two streaming rungs, a zero-only one above; two
 * bands).  For each rung, calls of a size it serves, recorded on the path
 * of its variant as the shim records them, and the sentence is checked
 * against what the ladder says independently: the window named as
 * [from, to) of its bucket, below, above or between where the ladder
 * streams, the variant that streamed, and every "A to B" with A < B.
 */
#define _GNU_SOURCE
#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "dispatch/policy.h"
#include "dispatch/registry.h"
#include "dispatch/select.h"
#include "dispatch/width.h"
#include "harness.h"
#include "machines.h"
#include "run/report.h"
#include "util/size.h"

static struct tree tree;  /* large: one at a time */

static unsigned class_line(int cls)
{
	return cls == NTMEM_CLASS_COPY ? (unsigned)SHIM_memcpy
	       : ntm_record_line(SHIM_memset, cls == NTMEM_CLASS_SET_NONZERO);
}

/* A tree whose command ran ladder l for cls, no call yet. */
static void tree_with(const struct ntm_record_ladder *l, int cls, size_t small_max)
{
	memset(&tree, 0, sizeof tree);
	tree.have_header = 1;
	tree.header.small_max = small_max;
	tree.header.ladder[cls] = *l;
}

/* n calls of size bytes served by variant id. */
static void add_calls(int cls, int id, uint64_t n, uint64_t size)
{
	struct ntm_record_cell *c =
		&tree.line[class_line(cls)].cell[ntm_record_bucket(size)][NTM_PATH_VARIANT + id];
	c->calls += n;
	c->bytes += n * size;
}

static uint64_t rung_from(const struct ntm_record_ladder *l, unsigned i, size_t small_max)
{
	return i ? l->to[i - 1] : small_max + 1;
}

/* The rung writes around the cache: it streams, or is marked so. */
static int rung_streams(const struct ntm_record_ladder *l, unsigned i)
{
	return ntm_streams(ntm_variant(l->variant[i])) || l->around[i];
}

/* A bucket wholly inside rung i, or -1: the first, or with last the
 * highest below 1 TiB. */
static int bucket_in(const struct ntm_record_ladder *l, unsigned i,
		     size_t small_max, int last)
{
	uint64_t from = rung_from(l, i, small_max);
	uint64_t to = i + 1 < l->count ? l->to[i] : UINT64_MAX;
	int found = -1;
	for (unsigned k = 1; k + 1 < NTM_RECORD_BUCKETS; k++)
		if (ntm_record_bucket_from(k) >= from && ntm_record_bucket_to(k) <= to) {
			found = (int)k;
			if (!last)
				break;
		}
	return found;
}

/* The size "64 MiB" or "1.5 GiB" that starts at s, into *n; 0, or -1
 * when s starts no size. */
static int size_at(const char *s, size_t *n)
{
	char num[32], unit[8], both[48];
	const char *err;
	if (sscanf(s, "%31[0-9.] %7[KMGTiB]", num, unit) != 2)
		return -1;
	snprintf(both, sizeof both, "%s%s", num, unit);
	return ntm_parse_size(both, n, &err);
}

/* Every "SIZE to SIZE" in text rises. */
static int reads_forwards(const char *text, char *why, size_t len)
{
	for (const char *p = text; (p = strstr(p, " to ")); p++) {
		const char *a = p;
		for (int words = 0; a > text && words < 2; words += *--a == ' ')
			;
		size_t x, y;
		if (size_at(a + (*a == ' '), &x) || size_at(p + 4, &y))
			continue;
		if (x >= y) {
			snprintf(why, len, "'%.*s' reads backwards",
				 (int)(p + 4 - a + 8), a);
			return 0;
		}
	}
	return 1;
}

/* The first streaming rung at or after i (count: none). */
static unsigned next_streaming(const struct ntm_record_ladder *l, unsigned i)
{
	while (i < l->count && !rung_streams(l, i))
		i++;
	return i;
}

/* What the verdict must say of calls in bucket k, served by rung i. */
static void expect(const struct ntm_record_ladder *l, unsigned i, unsigned k,
		   size_t small_max, const char *text, char *why, size_t len)
{
	char a[32], b[32], want[160];
	const char *name = ntm_variant(l->variant[i])->name;
	unsigned first = next_streaming(l, 0);
	why[0] = '\0';
	if (rung_streams(l, i)) {
		if (!strstr(text, "were streamed, by ") || !strstr(text, name) ||
		    !strstr(text, "streaming applies to this program."))
			snprintf(why, len, "streamed by %s, not said so", name);
		return;
	}
	snprintf(want, sizeof want, "were in calls of %s to %s, ",
		 ntm_format_size(ntm_record_bucket_from(k), a, sizeof a),
		 ntm_format_size(ntm_record_bucket_to(k), b, sizeof b));
	if (first == l->count) {
		if (!strstr(text, "writes around the cache at no size"))
			snprintf(why, len, "no rung writes around the cache, not said so");
		return;
	}
	if (!strstr(text, want) || !strstr(text, "streaming does not apply")) {
		snprintf(why, len, "want '%s' and 'does not apply'", want);
		return;
	}
	if (i < first) {
		snprintf(want, sizeof want, "below where this machine streams (from %s",
			 ntm_format_size(rung_from(l, first, small_max), a, sizeof a));
	} else if (next_streaming(l, i) == l->count) {
		/* Above the last band: say where it ends and what takes over. */
		unsigned end = i;
		while (!rung_streams(l, end - 1))
			end--;
		snprintf(want, sizeof want, "from %s its ladder takes %s",
			 ntm_format_size(l->to[end - 1], a, sizeof a),
			 ntm_variant(l->variant[end])->name);
		if (!strstr(text, "above where this machine streams ("))
			snprintf(why, len, "calls above the band, not said so");
	} else {
		snprintf(want, sizeof want, "between the sizes where this machine streams");
	}
	if (!why[0] && !strstr(text, want))
		snprintf(why, len, "want '%s'", want);
}

static int checked, shapes_back, shapes_two;

/* Calls of one size in each rung of l, alone; then most bytes in a rung
 * that does not stream and a few in one that does. */
static void check_ladder(const char *what, const struct ntm_record_ladder *l,
			 int cls, size_t small_max)
{
	char name[256], why[256];
	for (unsigned i = 0; i < l->count; i++) {
		shapes_back += rung_streams(l, i) && i + 1 < l->count &&
			       !rung_streams(l, i + 1);
		shapes_two += rung_streams(l, i) && i + 1 < l->count &&
			      rung_streams(l, i + 1);
		for (int last = 0; last < 2; last++) {
			int k = bucket_in(l, i, small_max, last);
			if (k < 0 || (last && k == bucket_in(l, i, small_max, 0)))
				continue;
			tree_with(l, cls, small_max);
			add_calls(cls, l->variant[i], 10, ntm_record_bucket_from((unsigned)k));
			struct verdict v;
			report_verdict(&tree, cls, &v);
			expect(l, i, (unsigned)k, small_max, v.text, why, sizeof why);
			if (!why[0])
				reads_forwards(v.text, why, sizeof why);
			snprintf(name, sizeof name, "verdict %s %s: calls of %llu B on %s",
				 what, ntm_class_key[cls],
				 (unsigned long long)ntm_record_bucket_from((unsigned)k),
				 ntm_variant(l->variant[i])->name);
			t_check(!why[0], name, "%s: '%s'", why, v.text);
			checked++;
		}
	}
	unsigned s = next_streaming(l, 0), c = 0;
	while (c < l->count && rung_streams(l, c))
		c++;
	int ks = s < l->count ? bucket_in(l, s, small_max, 0) : -1;
	int kc = c < l->count ? bucket_in(l, c, small_max, 1) : -1;
	if (ks < 0 || kc < 0)
		return;
	/* Bytes 97 to 3: 97 x S/m calls of C bytes, 3 x C/m of S bytes. */
	uint64_t cs = ntm_record_bucket_from((unsigned)kc);
	uint64_t ss = ntm_record_bucket_from((unsigned)ks);
	uint64_t m = cs < ss ? cs : ss;
	tree_with(l, cls, small_max);
	add_calls(cls, l->variant[c], 97 * (ss / m), cs);
	add_calls(cls, l->variant[s], 3 * (cs / m), ss);
	struct verdict v;
	report_verdict(&tree, cls, &v);
	char want[128];
	snprintf(want, sizeof want, "; 3%% were streamed, by %s: streaming applies "
		 "to a small part", ntm_variant(l->variant[s])->name);
	why[0] = '\0';
	if (!strstr(v.text, want))
		snprintf(why, sizeof why, "want '%s'", want);
	else
		reads_forwards(v.text, why, sizeof why);
	snprintf(name, sizeof name, "verdict %s %s: 97%% of the bytes cached, 3%% "
		 "streamed", what, ntm_class_key[cls]);
	t_check(!why[0], name, "%s: '%s'", why, v.text);
}

/* Class cls's ladder of p as the shim records it, the selector's word on
 * each rung included. */
static void record_ladder(const struct policy *p, int cls, struct ntm_record_ladder *l)
{
	const struct ladder *from = &p->ladder[cls];
	memset(l, 0, sizeof *l);
	l->count = from->count;
	for (unsigned i = 0; i < from->count; i++) {
		l->variant[i] = ntm_variant_id(from->v[i]);
		l->to[i] = from->to[i];
		l->around[i] = (uint8_t)ntm_select_around_cache(p, cls, i);
	}
}

static void check_policy(const char *what, const struct cpu *cpu)
{
	static struct policy p;
	ntm_policy_build(&p, cpu, NULL, NULL);
	size_t small_max = ntm_width_small_max(ntm_width_for(cpu->usable));
	for (int cls = 0; cls < 3; cls++) {
		struct ntm_record_ladder l;
		record_ladder(&p, cls, &l);
		check_ladder(what, &l, cls, small_max);
	}
}

static void check_machines(void)
{
	DIR *d = opendir(MACHINES_DIR);
	struct dirent *e;
	int machines = 0;
	while (d && (e = readdir(d))) {
		char path[512], arch[32], what[300];
		struct cpu cpu;
		if (e->d_name[0] == '.')
			continue;
		snprintf(path, sizeof path, "%s/%s/set0.json", MACHINES_DIR, e->d_name);
		struct t_json *j = machine_json(path);
		int bad = !j || machine_cpu(j, &cpu, arch, sizeof arch);
		t_json_free(j);
		if (bad) {
			t_fail("verdict: a recorded machine", "%s: no identity", path);
			continue;
		}
		machines++;
#ifndef __x86_64__
		if (!strcmp(arch, "x86_64")) {
			snprintf(what, sizeof what, "verdict %s", e->d_name);
			t_skip(what, "an x86-64 machine: its ladders name x86-64 variants");
			continue;
		}
#endif
		snprintf(what, sizeof what, "%s (built-in)", e->d_name);
		check_policy(what, &cpu);
		cpu.model = 0x10000;  /* as if nobody had recorded it */
		snprintf(what, sizeof what, "%s (rule for CPUs not recorded)", e->d_name);
		check_policy(what, &cpu);
	}
	if (d)
		closedir(d);
	t_check(machines > 0, "verdict: recorded machines found", "none in "
		MACHINES_DIR " (run from the repository root)");
}

/* A ladder that writes around the cache at no size: for calls of 8 to
 * 128 bytes, which the small path serves and --stream-above refuses, the
 * verdict advises no --stream-above; for 1 GiB calls it does. */
static void check_advice(int vcpy)
{
	struct ntm_record_ladder l = {1, {vcpy}, {SIZE_MAX}, {0}};
	struct verdict v;
	tree_with(&l, NTMEM_CLASS_COPY, 256);
	for (uint64_t n = 8; n <= 128; n *= 2)
		add_calls(NTMEM_CLASS_COPY, vcpy, 100, n);
	int small = report_verdict(&tree, NTMEM_CLASS_COPY, &v) &&
		    !strstr(v.text, "--stream-above") && strstr(v.text, "calls this small never stream");
	char small_text[sizeof v.text];
	snprintf(small_text, sizeof small_text, "%s", v.text);
	tree_with(&l, NTMEM_CLASS_COPY, 256);
	add_calls(NTMEM_CLASS_COPY, vcpy, 10, GiB);
	int large = report_verdict(&tree, NTMEM_CLASS_COPY, &v) &&
		    strstr(v.text, "ntmem run --stream-above forces it");
	t_check(small && large, "verdict: --stream-above advised only for calls it "
		"can stream", "small calls: '%s'; 1 GiB: '%s'", small_text, v.text);
}

/* Calls the ladder would stream that were not streamed: in a bucket the
 * edge at 8 MiB cuts ([4 MiB, 8 MiB) with the edge moved to 6 MiB), or
 * copies that overlapped and went to the C library's memmove.  The
 * verdict names what served them instead. */
static void check_not_streamed(const struct ntm_record_ladder *shape)
{
	struct ntm_record_ladder l = *shape;
	struct verdict v;
	l.to[0] = 6 * MiB;
	tree_with(&l, NTMEM_CLASS_COPY, 256);
	add_calls(NTMEM_CLASS_COPY, l.variant[0], 10, 5 * MiB);
	report_verdict(&tree, NTMEM_CLASS_COPY, &v);
	char want[256], why[256] = "";
	snprintf(want, sizeof want, "were in calls of 4 MiB to 8 MiB, partly where "
		 "this machine streams (from 6 MiB to 64 MiB, %s; from 64 MiB its "
		 "ladder takes %s), but none was streamed (%s served them): "
		 "streaming does not apply", ntm_variant(l.variant[1])->name,
		 ntm_variant(l.variant[2])->name, ntm_variant(l.variant[0])->name);
	t_check(strstr(v.text, want) && reads_forwards(v.text, why, sizeof why),
		"verdict: calls in a bucket the streaming edge cuts, none streamed",
		"want '%s': '%s' %s", want, v.text, why);

	tree_with(shape, NTMEM_CLASS_COPY, 256);
	struct ntm_record_cell *c = &tree.line[SHIM_memmove]
				     .cell[ntm_record_bucket(16 * MiB)][NTM_PATH_OVERLAP];
	c->calls = 4;
	c->bytes = 4 * 16 * MiB;
	report_verdict(&tree, NTMEM_CLASS_COPY, &v);
	t_check(strstr(v.text, "were in calls of 16 MiB to 32 MiB, where this "
			       "machine streams (from 8 MiB") &&
		strstr(v.text, "but none was streamed (overlap: libc memmove served "
			       "them)"),
		"verdict: overlapping copies where the ladder streams, none streamed",
		"'%s'", v.text);
}

/* Calls the learning sent to a streaming candidate below the ladder's
 * streaming band: the verdict says streaming applies, and that the
 * learning chose it, for all of the streamed bytes; calls the ladder
 * streams itself are not counted as learned. */
static void check_learned(const struct ntm_record_ladder *shape)
{
	struct verdict v;
	tree_with(shape, NTMEM_CLASS_COPY, 256);
	add_calls(NTMEM_CLASS_COPY, shape->variant[1], 90, 2 * MiB);
	add_calls(NTMEM_CLASS_COPY, shape->variant[0], 10, 2 * MiB);
	report_verdict(&tree, NTMEM_CLASS_COPY, &v);
	t_check(strstr(v.text, "90% of the bytes copied were streamed") &&
			strstr(v.text, "100% of them where the ladder does not stream, by learning") &&
			strstr(v.text, "streaming applies to this program"),
		"verdict: streaming the learning chose below the ladder's band", "'%s'",
		v.text);
	tree_with(shape, NTMEM_CLASS_COPY, 256);
	add_calls(NTMEM_CLASS_COPY, shape->variant[1], 10, 16 * MiB);
	report_verdict(&tree, NTMEM_CLASS_COPY, &v);
	t_check(!strstr(v.text, "learning"),
		"verdict: streaming where the ladder streams is not called learned",
		"'%s'", v.text);
}

/* The best-ranked registry variant of op and role, run here or not (the
 * verdict reads names and roles only); zero_only as asked. */
static int by_role(enum ntmem_op op, enum ntmem_role role, int zero_only)
{
	int best = -1;
	for (int id = 0; id < ntm_variant_count(); id++) {
		const struct variant *v = ntm_variant(id);
		if (v->op == op && v->role == role && !!v->zero_only == !!zero_only &&
		    (best < 0 || v->rank > ntm_variant(best)->rank))
			best = id;
	}
	return best;
}

/* The shapes the issue found, whatever the built-in table holds now.
 * Returns 0 where the architecture has no streaming variant. */
static int check_made_up(void)
{
	int vset = by_role(NTMEM_OP_SET, NTMEM_ROLE_VECTOR, 0);
	int vcpy = by_role(NTMEM_OP_COPY, NTMEM_ROLE_VECTOR, 0);
	int nset = by_role(NTMEM_OP_SET, NTMEM_ROLE_STREAMING, 0);
	int ncpy = by_role(NTMEM_OP_COPY, NTMEM_ROLE_STREAMING, 0);
	int zero = by_role(NTMEM_OP_SET, NTMEM_ROLE_STREAMING, 1);
	int lset = by_role(NTMEM_OP_SET, NTMEM_ROLE_LIBC, 0);
	int lcpy = by_role(NTMEM_OP_COPY, NTMEM_ROLE_LIBC, 0);
	if (ncpy < 0 || nset < 0 || vset < 0 || vcpy < 0) {
		t_skip("verdict: made-up ladders", "no streaming or vector variant "
		       "on this architecture");
		return 0;
	}
	const struct {
		const char *what;
		int cls;
		struct ntm_record_ladder l;
	} shapes[] = {
		{"streams 8-64 MiB, then cached", NTMEM_CLASS_COPY,
		 {3, {vcpy, ncpy, lcpy}, {8 * MiB, 64 * MiB, SIZE_MAX}, {0}}},
		{"two streaming bands", NTMEM_CLASS_COPY,
		 {4, {lcpy, ncpy, lcpy, ncpy}, {8 * MiB, 64 * MiB, GiB, SIZE_MAX}, {0}}},
		{"streams from the small path on", NTMEM_CLASS_SET_NONZERO,
		 {1, {nset}, {SIZE_MAX}, {0}}},
		{"a zero-only rung above another streaming one", NTMEM_CLASS_SET_ZERO,
		 {3, {vset, nset, zero >= 0 ? zero : nset}, {12 * MiB, 64 * MiB, SIZE_MAX}, {0}}},
		{"a zero-only band, then the C library", NTMEM_CLASS_SET_ZERO,
		 {3, {vset, zero >= 0 ? zero : nset, lset}, {12 * MiB, 512 * MiB, SIZE_MAX}, {0}}},
		{"a cached rung that writes around the cache above the L3",
		 NTMEM_CLASS_COPY,
		 {3, {vcpy, lcpy, vcpy}, {1 * MiB, 64 * MiB, SIZE_MAX}, {0, 0, 1}}},
	};
	for (size_t i = 0; i < sizeof shapes / sizeof shapes[0]; i++)
		check_ladder(shapes[i].what, &shapes[i].l, shapes[i].cls, 256);
	check_not_streamed(&shapes[0].l);
	check_advice(vcpy);
	check_learned(&shapes[0].l);
	return 1;
}

int main(void)
{
	int streams = check_made_up();
	check_machines();
	printf("  %d verdicts checked; streaming bands that give way to a "
	       "cached rung: %d; streaming rungs followed by another: %d\n",
	       checked, shapes_back, shapes_two);
	if (streams)
		t_check(shapes_back > 0 && shapes_two > 0, "verdict: ladders that "
			"stream, then stop, and bands of two streaming rungs, were "
			"among those checked", "%d checked, %d and %d such bands",
			checked, shapes_back, shapes_two);
	return t_finish();
}
