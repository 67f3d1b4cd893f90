/* registry.c - the table of all variants.  Ids run over set variants, then
 * copy variants, cached before streaming within each: a stable order for
 * tables and tests. */
#include "registry.h"

#include <errno.h>
#include <pthread.h>
#include <string.h>

#include "cpu.h"

extern const struct variant_family ntm_family_rep, ntm_family_sse2,
	ntm_family_avx, ntm_family_avx512, ntm_family_portable,
	ntm_family_movnti, ntm_family_movdir64b, ntm_family_clzero;

static const struct variant_family *const families[] = {
	&ntm_family_rep,    &ntm_family_sse2,      &ntm_family_avx,
	&ntm_family_avx512, &ntm_family_portable,  &ntm_family_movnti,
	&ntm_family_movdir64b, &ntm_family_clzero,
};

#define MAX_VARIANTS 64

static const struct variant *table[MAX_VARIANTS];
static const char *why_not[MAX_VARIANTS];  /* NULL: this CPU runs it */
static int table_len;
static pthread_once_t table_once = PTHREAD_ONCE_INIT;

static void build_table(void)
{
	for (int op = NTMEM_OP_SET; op <= NTMEM_OP_COPY; op++)
		for (int streaming = 0; streaming <= 1; streaming++)
			for (size_t f = 0; f < sizeof families / sizeof families[0]; f++)
				for (size_t i = 0; i < families[f]->count; i++) {
					const struct variant *v = &families[f]->variants[i];
					if ((int)v->op == op && v->streaming == streaming &&
					    table_len < MAX_VARIANTS) {
						why_not[table_len] = ntm_variant_unsupported(v);
						table[table_len++] = v;
					}
				}
}

int ntm_variant_count(void)
{
	pthread_once(&table_once, build_table);
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
	*why = v ? why_not[id] : NULL;
	return v;
}

int ntm_variant_id(const struct variant *v)
{
	for (int id = 0; id < ntm_variant_count(); id++)
		if (table[id] == v)
			return id;
	return -1;
}

const struct variant *ntm_variant_named(enum ntmem_op op, const char *name)
{
	for (int id = 0; name && id < ntm_variant_count(); id++)
		if (table[id]->op == op && !strcmp(table[id]->name, name))
			return table[id];
	return NULL;
}

const char *ntm_variant_unsupported(const struct variant *v)
{
	return ntm_cpu_missing(ntm_cpu(), v->requires);
}

/* The public view. */

int ntmem_variant_count(void)
{
	return ntm_variant_count();
}

int ntmem_variant_info(int id, struct ntmem_variant_info *info)
{
	const struct variant *v = ntm_variant(id);
	if (!v || !info) {
		errno = EINVAL;
		return -1;
	}
	info->name = v->name;
	info->description = v->description;
	info->op = v->op;
	info->streaming = v->streaming;
	info->zero_only = v->zero_only;
	/* Each variant needs at most one feature. */
	info->requires = v->requires ? ntm_cpu_feature_name(v->requires) : "";
	ntm_variant_checked(id, &info->why_unsupported);
	info->supported = info->why_unsupported == NULL;
	return 0;
}

int ntmem_variant_find(enum ntmem_op op, const char *name)
{
	const struct variant *v = ntm_variant_named(op, name);
	if (!v) {
		errno = ENOENT;
		return -1;
	}
	return ntm_variant_id(v);
}
