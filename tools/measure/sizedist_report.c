/* sizedist_report.c - a distribution from the JSON report of
 * "ntmem run --report-json": the calls per size bucket of the functions
 * of one family (see sizedist.h). */
#include "sizedist.h"

#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "output/jsonread.h"

/* The C library's names the shim serves (src/preload/preload.h), by the
 * operation each performs: a program's memmove is a copy as much as its
 * memcpy is, and its bzero a clear. */
static const char *const copy_family[] = {
	"memcpy", "memmove", "mempcpy", "__memcpy_chk", "__memmove_chk",
	"__mempcpy_chk", "__mempcpy", NULL};
static const char *const set_family[] = {
	"memset", "bzero", "__bzero", "explicit_bzero", "__memset_chk",
	"__explicit_bzero_chk", NULL};

static int in_family(enum ntmem_op op, const char *name)
{
	const char *const *f = op == NTMEM_OP_COPY ? copy_family : set_family;
	for (; *f; f++)
		if (!strcmp(*f, name))
			return 1;
	return 0;
}

/* A bucket as read, with where it was, for messages. */
struct bucket {
	struct size_range r;
	unsigned line;
};

struct report_reader {
	const char *name;
	struct cli_error *e;
	struct bucket *b;
	size_t n, cap;
};

__attribute__((format(printf, 3, 4)))
static int bad(struct report_reader *rr, unsigned line, const char *fmt, ...)
{
	char what[320];
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(what, sizeof what, fmt, ap);
	va_end(ap);
	return cli_error(rr->e, CLI_USAGE, "--mix: %s:%u: %s", rr->name, line, what);
}

/* Member key of v as a whole number of at most 2^62. */
static int whole(struct report_reader *rr, const struct jr_value *v,
		 const char *key, const char *path, double *out)
{
	const struct jr_value *m = jr_get(v, key);
	if (!m)
		return bad(rr, v->line, "%s: no \"%s\"", path, key);
	if (m->type != JR_NUMBER || m->number < 0 || m->number > 0x1p62 ||
	    m->number != floor(m->number))
		return bad(rr, m->line, "%s.%s: expected a whole number, 0 or more",
			   path, key);
	*out = m->number;
	return 0;
}

static int add_bucket(struct report_reader *rr, const struct jr_value *b,
		      const char *path)
{
	double from, to, calls;
	if (b->type != JR_OBJECT)
		return bad(rr, b->line, "%s: expected an object, not %s", path,
			   jr_type_name(b->type));
	if (whole(rr, b, "from", path, &from) || whole(rr, b, "to", path, &to) ||
	    whole(rr, b, "calls", path, &calls))
		return -1;
	if (to <= from)
		return bad(rr, b->line, "%s: \"to\" (%.0f) must be above \"from\" "
			   "(%.0f): a bucket is the sizes from..to-1", path, to, from);
	if (to - 1 > (double)SIZEDIST_MAX_SIZE && calls > 0)
		return bad(rr, b->line, "%s: sizes up to %.0f: sizes above 1 GiB "
			   "are not supported", path, to - 1);
	if (calls == 0)
		return 0;
	if (rr->n == rr->cap) {
		size_t cap = rr->cap ? rr->cap * 2 : 64;
		struct bucket *nb = realloc(rr->b, cap * sizeof *nb);
		if (!nb)
			return bad(rr, b->line, "out of memory");
		rr->b = nb;
		rr->cap = cap;
	}
	rr->b[rr->n++] = (struct bucket){{(size_t)from, (size_t)to - 1, calls},
					 b->line};
	return 0;
}

/* One entry of "functions": its buckets, if it is of op's family. */
static int add_function(struct report_reader *rr, enum ntmem_op op,
			const struct jr_value *f, size_t i)
{
	char path[96];
	snprintf(path, sizeof path, "functions[%zu]", i);
	const struct jr_value *name = jr_get(f, "function");
	if (f->type != JR_OBJECT || !name || name->type != JR_STRING)
		return bad(rr, f->line, "%s: expected an object with a \"function\" "
			   "name", path);
	if (!in_family(op, name->string))
		return 0;
	const struct jr_value *buckets = jr_get(f, "buckets");
	if (!buckets || buckets->type != JR_ARRAY)
		return bad(rr, buckets ? buckets->line : f->line, "%s (%s): expected "
			   "\"buckets\", an array", path, name->string);
	for (size_t k = 0; k < buckets->count; k++) {
		char bpath[128];
		snprintf(bpath, sizeof bpath, "%s.buckets[%zu]", path, k);
		if (add_bucket(rr, &buckets->items[k], bpath))
			return -1;
	}
	return 0;
}

static int by_start(const void *a, const void *b)
{
	const struct bucket *x = a, *y = b;
	return x->r.lo < y->r.lo ? -1 : x->r.lo > y->r.lo ? 1
	       : x->r.hi < y->r.hi ? -1 : x->r.hi > y->r.hi;
}

/* Buckets in order of size, those of the same sizes (memcpy's and
 * memmove's [64, 128), say) as one; partly overlapping ones are an error. */
static int merge(struct report_reader *rr, struct sizedist *d)
{
	if (rr->n)  /* qsort must not be given NULL, even with no items */
		qsort(rr->b, rr->n, sizeof *rr->b, by_start);
	d->ranges = malloc((rr->n ? rr->n : 1) * sizeof *d->ranges);
	if (!d->ranges)
		return bad(rr, 1, "out of memory");
	for (size_t i = 0; i < rr->n; i++) {
		struct size_range *last = d->nranges ? &d->ranges[d->nranges - 1] : NULL;
		const struct bucket *b = &rr->b[i];
		if (last && last->lo == b->r.lo && last->hi == b->r.hi) {
			last->weight += b->r.weight;
		} else if (last && b->r.lo <= last->hi) {
			return bad(rr, b->line, "the bucket of sizes %zu..%zu overlaps "
				   "another, of %zu..%zu", b->r.lo, b->r.hi, last->lo,
				   last->hi);
		} else {
			d->ranges[d->nranges++] = b->r;
		}
		d->total += b->r.weight;
	}
	d->max_size = d->nranges ? d->ranges[d->nranges - 1].hi : 0;
	return 0;
}

static int read_report(struct report_reader *rr, const struct jr_value *root,
		       enum ntmem_op op, struct sizedist *d)
{
	if (root->type != JR_OBJECT)
		return bad(rr, root->line, "expected an object, the report of "
			   "'ntmem run --report-json'");
	const struct jr_value *cmd = jr_get(root, "command");
	if (!cmd || cmd->type != JR_STRING || strcmp(cmd->string, "run"))
		return bad(rr, cmd ? cmd->line : root->line, "\"command\" is not "
			   "\"run\": not a report of 'ntmem run --report-json'");
	const struct jr_value *fns = jr_get(root, "functions");
	if (!fns || fns->type != JR_ARRAY)
		return bad(rr, fns ? fns->line : root->line, "expected \"functions\", "
			   "an array");
	for (size_t i = 0; i < fns->count; i++)
		if (add_function(rr, op, &fns->items[i], i))
			return -1;
	if (merge(rr, d))
		return -1;
	if (!d->nranges)
		return bad(rr, fns->line, "no calls of %s's family (%s) in the report",
			   op == NTMEM_OP_COPY ? "memcpy" : "memset",
			   op == NTMEM_OP_COPY ? "memcpy, memmove, mempcpy and their "
						 "_chk forms"
					       : "memset, bzero, explicit_bzero and "
						 "their _chk forms");
	return 0;
}

int sizedist_parse_report(const char *name, const char *text, size_t len,
			  enum ntmem_op op, struct sizedist *d,
			  struct cli_error *e)
{
	memset(d, 0, sizeof *d);
	snprintf(d->name, sizeof d->name, "%s", name);
	snprintf(d->source, sizeof d->source, "ntmem run report");
	d->op = op;
	char why[256];
	struct jr_value *root = jr_parse(text, len, why, sizeof why);
	if (!root)
		return cli_error(e, CLI_USAGE, "--mix: %s: not valid JSON: %s", name,
				 why);
	struct report_reader rr = {name, e, NULL, 0, 0};
	int r = read_report(&rr, root, op, d);
	free(rr.b);
	jr_free(root);
	if (r)
		sizedist_free(d);
	return r;
}
