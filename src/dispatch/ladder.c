/* ladder.c - build, edit, parse and print ladders. */
#include "ladder.h"

#include <stdio.h>
#include <string.h>

#include "registry.h"
#include "util/size.h"

const char *const ntm_class_key[NTMEM_CLASSES] = {
	[NTMEM_CLASS_SET_ZERO] = "set",
	[NTMEM_CLASS_SET_NONZERO] = "set_nonzero",
	[NTMEM_CLASS_COPY] = "copy",
};

void ntm_ladder_single(struct ladder *l, const struct variant *v,
		       const struct variant *streaming,
		       enum ntmem_origin origin)
{
	memset(l, 0, sizeof *l);
	ntm_ladder_push(l, v, SIZE_MAX, origin);
	l->streaming = streaming;
	l->streaming_origin = origin;
}

int ntm_ladder_push(struct ladder *l, const struct variant *v, size_t to,
		    enum ntmem_origin origin)
{
	if (l->count == NTMEM_LADDER_MAX ||
	    (l->count && to <= l->to[l->count - 1]))
		return -1;
	l->to[l->count] = to;
	l->v[l->count] = v;
	l->origin[l->count] = origin;
	l->why[l->count] = NULL;
	l->around[l->count] = 0;
	l->count++;
	return 0;
}

void ntm_ladder_finish(struct ladder *l,
		       const struct variant *fallback_streaming)
{
	const struct variant *below = NULL;
	for (unsigned i = 0; i < l->count; i++)
		if (!ntm_streams(l->v[i])) {
			below = l->v[i];
			break;
		}
	/* A ladder that streams everywhere keeps its first cached choice
	 * from before (cached[0]); one that never had any uses the
	 * lowest-ranked fallback the caller left there. */
	if (!below)
		below = l->cached[0];
	for (unsigned i = 0; i < l->count; i++) {
		if (!ntm_streams(l->v[i]))
			below = l->v[i];
		l->cached[i] = below;
	}
	l->to[l->count - 1] = SIZE_MAX;
	if (!l->streaming) {
		for (unsigned i = 0; i < l->count; i++)
			if (ntm_streams(l->v[i]))
				l->streaming = l->v[i];
		if (!l->streaming)
			l->streaming = fallback_streaming;
	}
}

size_t ntm_ladder_threshold(const struct ladder *l)
{
	for (unsigned i = 0; i < l->count; i++)
		if (ntm_streams(l->v[i]))
			return i ? l->to[i - 1] : 0;
	return SIZE_MAX;
}

/* Stream from t up with l->streaming.  Below t every size keeps the
 * cached variant that served it: a cached rung keeps its band (cut at
 * t), and the band of a streaming rung goes to its cached twin, the
 * rung below it, which NTMEM_F_TEMPORAL calls there already took.  So
 * no edge between two cached rungs moves, and a cached rung above a
 * streaming one keeps its lower edge; only the edge at t is new. */
void ntm_ladder_set_threshold(struct ladder *l, size_t t,
			      enum ntmem_origin origin)
{
	struct ladder old = *l;
	l->count = 0;
	size_t from = 0;
	for (unsigned i = 0; i < old.count && from < t; i++) {
		size_t to = old.to[i] < t ? old.to[i] : t;
		if (!ntm_streams(old.v[i])) {
			int cut = to != old.to[i];
			ntm_ladder_push(l, old.v[i], to, cut ? origin : old.origin[i]);
			/* An uncut rung keeps what it said; a cut one now ends at
			 * t, which its reason did not say. */
			l->why[l->count - 1] = cut ? NULL : old.why[i];
			l->around[l->count - 1] = cut ? 0 : old.around[i];
		} else if (l->count) {  /* the rung below reaches on, its twin */
			l->to[l->count - 1] = to;
			l->origin[l->count - 1] = origin;
		} else {
			ntm_ladder_push(l, old.cached[i], to, origin);
		}
		from = old.to[i];
	}
	if (t < SIZE_MAX || l->count == 0)
		ntm_ladder_push(l, old.streaming, SIZE_MAX, origin);
	l->cached[0] = old.cached[0];
	ntm_ladder_finish(l, old.streaming);
}

/* v serves every cached rung in place: no edge moves, so a cached rung
 * above a streaming one stays above it.  Neighbours that become alike
 * are left to the caller to merge (the policy does). */
void ntm_ladder_set_cached(struct ladder *l, const struct variant *v,
			   enum ntmem_origin origin)
{
	for (unsigned i = 0; i < l->count; i++)
		if (!ntm_streams(l->v[i])) {
			l->v[i] = v;
			l->origin[i] = origin;
			l->why[i] = NULL;  /* the reason was the old variant's */
			l->around[i] = 0;
		}
	l->cached[0] = v;  /* TEMPORAL, where every rung streams */
	ntm_ladder_finish(l, l->streaming);
}

void ntm_ladder_set_streaming(struct ladder *l, const struct variant *v,
			      enum ntmem_origin origin)
{
	for (unsigned i = 0; i < l->count; i++)
		if (ntm_streams(l->v[i])) {
			l->v[i] = v;
			l->origin[i] = origin;
			l->why[i] = NULL;  /* the reason was the old variant's */
		}
	l->streaming = v;
	l->streaming_origin = origin;
	ntm_ladder_finish(l, v);
}

static const char *const op_word[2] = {"set", "copy"};

/* One "NAME" or "NAME:SIZE" item; last says whether a size may be absent. */
static int parse_rung(struct ladder *l, enum ntmem_op op, int zero_ok,
		      char *item, int last, enum ntmem_origin origin,
		      char *why, size_t why_len)
{
	char *colon = strchr(item, ':');
	if (colon)
		*colon = '\0';
	const struct variant *v = ntm_variant_named(op, item);
	const char *missing;
	size_t to = SIZE_MAX;
	const char *err;
	if (!v) {
		snprintf(why, why_len, "no %s variant named '%s'", op_word[op], item);
		return -1;
	}
	if (v->zero_only && !zero_ok) {
		snprintf(why, why_len, "%s writes zeros only; this ladder is for "
			 "other values", item);
		return -1;
	}
	if ((missing = ntm_variant_unsupported(v))) {
		snprintf(why, why_len, "%s: %s", item, missing);
		return -1;
	}
	if (!colon && !last) {
		snprintf(why, why_len, "'%s' needs a size (NAME:SIZE): only the "
			 "last rung has none", item);
		return -1;
	}
	if (colon && last) {
		snprintf(why, why_len, "the last rung, '%s', serves every larger "
			 "size and takes no size", item);
		return -1;
	}
	if (colon && ntm_parse_size(colon + 1, &to, &err)) {
		snprintf(why, why_len, "%s:%s: %s", item, colon + 1, err);
		return -1;
	}
	if (colon && (to == 0 || to == SIZE_MAX)) {
		snprintf(why, why_len, "%s:%s: %s", item, colon + 1,
			 to ? "too large" : "a rung must end above 0");
		return -1;
	}
	if (ntm_ladder_push(l, v, to, origin)) {
		if (l->count == NTMEM_LADDER_MAX)
			snprintf(why, why_len, "more than %d rungs",
				 NTMEM_LADDER_MAX);
		else
			snprintf(why, why_len, "sizes must rise: %s:%s after %zu",
				 item, colon + 1, l->to[l->count - 1]);
		return -1;
	}
	return 0;
}

int ntm_ladder_parse(struct ladder *l, enum ntmem_op op, int zero_ok,
		     const char *text, enum ntmem_origin origin, char *why,
		     size_t why_len)
{
	char copy[512];
	if (strlen(text) >= sizeof copy) {
		snprintf(why, why_len, "longer than %zu bytes", sizeof copy - 1);
		return -1;
	}
	strcpy(copy, text);
	memset(l, 0, sizeof *l);
	for (char *item = copy;;) {
		char *comma = strchr(item, ',');
		if (comma)
			*comma = '\0';
		if (!*item) {
			snprintf(why, why_len, "an empty rung");
			return -1;
		}
		if (parse_rung(l, op, zero_ok, item, !comma, origin, why, why_len))
			return -1;
		if (!comma)
			return 0;
		item = comma + 1;
	}
}

int ntm_ladder_format(const struct ladder *l, char *buf, size_t len)
{
	size_t used = 0;
	for (unsigned i = 0; i < l->count; i++) {
		int n = i + 1 < l->count
				? snprintf(buf + used, len - used, "%s:%zu,",
					   l->v[i]->name, l->to[i])
				: snprintf(buf + used, len - used, "%s", l->v[i]->name);
		if (n < 0 || (size_t)n >= len - used)
			return -1;
		used += (size_t)n;
	}
	return 0;
}
