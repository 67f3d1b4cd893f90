/* registry.c - the table of all variants.  Ids run over set variants, then
 * copy variants, cached before streaming within each: a stable order for
 * tables and tests. */
#include "util/once.h"
#include "registry.h"

#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "cpu.h"

extern const struct variant_family ntm_family_rep, ntm_family_sse2,
	ntm_family_avx, ntm_family_avx512, ntm_family_portable,
	ntm_family_movnti, ntm_family_movdir64b, ntm_family_clzero,
	ntm_family_libc, ntm_family_neon, ntm_family_stnp, ntm_family_dc_zva;

static const struct variant_family *const families[] = {
	&ntm_family_rep,    &ntm_family_sse2,      &ntm_family_avx,
	&ntm_family_avx512, &ntm_family_portable,  &ntm_family_movnti,
	&ntm_family_movdir64b, &ntm_family_clzero, &ntm_family_libc,
	&ntm_family_neon,   &ntm_family_stnp,      &ntm_family_dc_zva,
};

#define NFAMILIES (sizeof families / sizeof families[0])

#define MAX_VARIANTS 64
#define NROLES (NTMEM_ROLE_STREAMING + 1)
#define NSHAPES (NTM_SHAPE_AHEAD + 1)

static const struct variant *table[MAX_VARIANTS];
static char requires_text[MAX_VARIANTS][64];  /* "AVX-512F AVX-512BW" */
static int table_len;
static int table_once, texts_once;  /* util/once.h */

/* Per op, role and shape, the ids of its variants, the highest rank
 * first: ntm_ranked takes the first this CPU runs, where a scan of the
 * whole table for each of the fifty-odd questions a policy's build asks
 * was much of the build's cost (docs/results.md, "The policy made at
 * load"). */
static unsigned char by_rank[2][NROLES][NSHAPES][MAX_VARIANTS];
static unsigned char by_rank_len[2][NROLES][NSHAPES];

static void describe_requires(unsigned bits, char *out)
{
	size_t used = 0;
	out[0] = '\0';
	for (unsigned bit = 1; bit && bit < CPU_FEATURE_END; bit <<= 1)
		if (bits & bit)
			used += (size_t)snprintf(out + used, used < 64 ? 64 - used : 0,
						 "%s%s", used ? " " : "",
						 ntm_cpu_feature_name(bit));
}

/* Insert variant id into its list, after those of a higher or equal rank. */
static void rank_in(int id)
{
	const struct variant *v = table[id];
	unsigned char *list = by_rank[v->op][v->role][v->shape];
	unsigned char *len = &by_rank_len[v->op][v->role][v->shape];
	unsigned at = *len;
	while (at > 0 && table[list[at - 1]]->rank < v->rank) {
		list[at] = list[at - 1];
		at--;
	}
	list[at] = (unsigned char)id;
	(*len)++;
}

/* Sets before copies, cached before streaming within each: the variants
 * of each (op, streaming) bucket in the families' order.  Two passes over
 * the families: count each bucket, then place. */
static void build_table(void)
{
	int at[2][2] = {{0}};
	for (int pass = 0; pass < 2; pass++) {
		int next = 0;
		for (int op = 0; pass && op < 2; op++)
			for (int st = 0; st < 2; st++) {
				int count = at[op][st];
				at[op][st] = next;
				next += count;
			}
		for (size_t f = 0; f < NFAMILIES; f++)
			for (size_t i = 0; i < families[f]->count; i++) {
				const struct variant *v = &families[f]->variants[i];
				int *slot = &at[v->op][ntm_streams(v)];
				if (pass && *slot < MAX_VARIANTS)
					table[*slot] = v;
				(*slot)++;
			}
	}
	table_len = at[1][1] < MAX_VARIANTS ? at[1][1] : MAX_VARIANTS;
	for (int id = 0; id < table_len; id++)
		rank_in(id);
}

int ntm_variant_count(void)
{
	ntm_once(&table_once, build_table);
	return table_len;
}

const struct variant *ntm_variant(int id)
{
	if (id < 0 || id >= ntm_variant_count())
		return NULL;
	return table[id];
}

const struct variant *ntm_variant_checked(int id, const char **why)
{
	const struct variant *v = ntm_variant(id);
	*why = v ? ntm_variant_unsupported(v) : NULL;
	return v;
}

int ntm_variant_id(const struct variant *v)
{
	for (int id = 0, n = ntm_variant_count(); id < n; id++)
		if (table[id] == v)
			return id;
	return -1;
}

const struct variant *ntm_variant_named(enum ntmem_op op, const char *name)
{
	for (int id = 0, n = ntm_variant_count(); name && id < n; id++)
		if (table[id]->op == op && !strcmp(table[id]->name, name))
			return table[id];
	return NULL;
}

const char *ntm_variant_unsupported(const struct variant *v)
{
	return ntm_cpu_missing(ntm_cpu_features(), v->requires);
}

/* The first of op's variants of role and shape, by rank, that usable
 * runs (zero-only ones only if zero_ok). */
static const struct variant *first_ranked(enum ntmem_op op, enum ntmem_role role,
					  enum ntm_copy_shape shape, int zero_ok,
					  unsigned usable)
{
	ntm_variant_count();
	const unsigned char *list = by_rank[op][role][shape];
	for (unsigned i = 0; i < by_rank_len[op][role][shape]; i++) {
		const struct variant *v = table[list[i]];
		if ((!v->zero_only || zero_ok) && !(v->requires & ~usable))
			return v;
	}
	return NULL;
}

const struct variant *ntm_ranked(enum ntmem_op op, enum ntmem_role role,
				 int zero_ok, unsigned usable)
{
	return first_ranked(op, role, NTM_SHAPE_LINES, zero_ok, usable);
}

const struct variant *ntm_ranked_copy(enum ntm_copy_shape shape,
				      unsigned usable)
{
	return first_ranked(NTMEM_OP_COPY, NTMEM_ROLE_STREAMING, shape, 1, usable);
}

/* The cached variant to fall back on: libc, else the best cached one. */
const struct variant *ntm_ranked_cached(enum ntmem_op op, unsigned usable)
{
	static const enum ntmem_role order[] = {
		NTMEM_ROLE_LIBC, NTMEM_ROLE_VECTOR, NTMEM_ROLE_STRING,
		NTMEM_ROLE_PLAIN};
	for (size_t i = 0; i < sizeof order / sizeof order[0]; i++) {
		const struct variant *v = ntm_ranked(op, order[i], 0, usable);
		if (v)
			return v;
	}
	return NULL;  /* not reached: portable always runs */
}

const struct variant *ntm_width_loop(enum ntmem_op op, enum ntm_width w,
				     unsigned usable)
{
	unsigned needs = ntm_width_loop_requires(w);
	if (!needs || (needs & ~usable))
		return NULL;
	ntm_variant_count();
	const unsigned char *list = by_rank[op][NTMEM_ROLE_VECTOR][NTM_SHAPE_LINES];
	for (unsigned i = 0; i < by_rank_len[op][NTMEM_ROLE_VECTOR][NTM_SHAPE_LINES]; i++)
		if (table[list[i]]->requires == needs)
			return table[list[i]];
	return NULL;
}

/* Scans the family tables directly: it must work before anything is
 * detected or built, in signal handlers too.  The answer is the same
 * every time, so racing first calls only store the same pointer. */
const struct variant *ntm_baseline(enum ntmem_op op, int streaming)
{
	static const struct variant *memo[2][2];
	const struct variant *best =
		__atomic_load_n(&memo[op][streaming], __ATOMIC_RELAXED);
	if (best)
		return best;
	for (size_t f = 0; f < NFAMILIES; f++)
		for (size_t i = 0; i < families[f]->count; i++) {
			const struct variant *v = &families[f]->variants[i];
			int role_ok = streaming ? ntm_streams(v) && !v->zero_only
						: v->role == NTMEM_ROLE_VECTOR ||
							  v->role == NTMEM_ROLE_PLAIN;
			if (v->op != op || !role_ok || v->shape != NTM_SHAPE_LINES ||
			    (v->requires & ~NTM_ARCH_BASELINE))
				continue;
			/* A vector loop beats a plain one; rank decides within. */
			if (!best || (v->role == NTMEM_ROLE_VECTOR &&
				      best->role == NTMEM_ROLE_PLAIN) ||
			    (v->role == best->role && v->rank > best->rank))
				best = v;
		}
	if (!best)  /* no streaming variant on this architecture */
		best = ntm_baseline(op, 0);
	__atomic_store_n(&memo[op][streaming], best, __ATOMIC_RELAXED);
	return best;
}

const struct variant *ntm_libc_variant(enum ntmem_op op)
{
	for (size_t i = 0; i < ntm_family_libc.count; i++)
		if (ntm_family_libc.variants[i].op == op)
			return &ntm_family_libc.variants[i];
	return NULL;
}

/* Only what lists the variants shows these: not made as the table is,
 * which every process's start builds. */
static void describe_all_requires(void)
{
	for (int id = 0; id < ntm_variant_count(); id++)
		describe_requires(table[id]->requires, requires_text[id]);
}

const char *ntm_variant_requires(int id)
{
	if (!ntm_variant(id))
		return NULL;
	ntm_once(&texts_once, describe_all_requires);
	return requires_text[id];
}
