/* registry.c - the table of all variants.  Ids run over set variants, then
 * copy variants, cached before streaming within each: a stable order for
 * tables and tests. */
#include "util/once.h"
#include "registry.h"

#include <errno.h>
#include <pthread.h>
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

static const struct variant *table[MAX_VARIANTS];
static const char *why_not[MAX_VARIANTS];  /* NULL: this CPU runs it */
static char requires_text[MAX_VARIANTS][64];  /* "AVX-512F AVX-512BW" */
static int table_len;
static int table_once;  /* util/once.h */
static pthread_once_t texts_once = PTHREAD_ONCE_INIT;

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

static void build_table(void)
{
	table_len = 0;  /* again in a fork child (ntm_variants_after_fork) */
	for (int op = NTMEM_OP_SET; op <= NTMEM_OP_COPY; op++)
		for (int streaming = 0; streaming <= 1; streaming++)
			for (size_t f = 0; f < NFAMILIES; f++)
				for (size_t i = 0; i < families[f]->count; i++) {
					const struct variant *v = &families[f]->variants[i];
					if ((int)v->op == op && ntm_streams(v) == streaming &&
					    table_len < MAX_VARIANTS) {
						why_not[table_len] = ntm_variant_unsupported(v);
						table[table_len++] = v;
					}
				}
}

int ntm_variant_count(void)
{
	ntm_once(&table_once, build_table, 1);
	return table_len;
}

int ntm_variants_try(void)
{
	return ntm_once(&table_once, build_table, 0);
}

void ntm_variants_after_fork(void)
{
	ntm_once_after_fork(&table_once);
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
	*why = v ? why_not[id] : NULL;
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

const struct variant *ntm_ranked(enum ntmem_op op, enum ntmem_role role,
				 int zero_ok, unsigned usable)
{
	const struct variant *best = NULL;
	for (int id = 0, n = ntm_variant_count(); id < n; id++) {
		const struct variant *v = table[id];
		if (v->op != op || v->role != role || (v->zero_only && !zero_ok) ||
		    v->shape != NTM_SHAPE_LINES || (v->requires & ~usable))
			continue;
		if (!best || v->rank > best->rank)
			best = v;
	}
	return best;
}

const struct variant *ntm_ranked_copy(enum ntm_copy_shape shape,
				      unsigned usable)
{
	const struct variant *best = NULL;
	for (int id = 0, n = ntm_variant_count(); id < n; id++) {
		const struct variant *v = table[id];
		if (v->op != NTMEM_OP_COPY || !ntm_streams(v) || v->shape != shape ||
		    (v->requires & ~usable))
			continue;
		if (!best || v->rank > best->rank)
			best = v;
	}
	return best;
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
	for (int id = 0, n = needs ? ntm_variant_count() : 0; id < n; id++) {
		const struct variant *v = table[id];
		if (v->op == op && v->role == NTMEM_ROLE_VECTOR && v->requires == needs &&
		    !(needs & ~usable))
			return v;
	}
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
	pthread_once(&texts_once, describe_all_requires);
	return requires_text[id];
}
