/*
 * verdict.c - the verdict of "ntmem run --report", per call class, in one
 * sentence that reads forwards:
 *   - where most of the class's bytes were: the fewest adjacent size
 *     buckets holding 90% of them, [from, to) as the tables print them;
 *   - where this machine's ladder writes around the cache: each band of
 *     rungs that do, as the selector said as the program started and the
 *     record keeps (ntm_select_around_cache: a streaming variant, or one
 *     the CPU stops allocating for at those sizes, as rep movsb above the
 *     L3 on AMD Zen), with the variants that serve it, and the rung that
 *     takes over where a band ends below the top;
 *   - what was streamed, and by which variants, from the counts per path:
 *     a zero-only rung such as CLZERO is named when it served the calls;
 * and from those, whether streaming applies to the program.
 */
#include "verdict.h"

#include <stdio.h>
#include <string.h>

#include "introspect.h"
#include "util/size.h"

#define WINDOW_SHARE 0.90  /* the verdict's "most bytes" */

static const char *const class_bytes[3] = {
	"the bytes cleared (memset of zeros)",
	"the bytes set to other values",
	"the bytes copied",
};
static const char *const class_calls[3] = {
	"memset of zeros", "memset of other values", "copies",
};

/* Per bucket, summed over the lines of one class. */
struct class_sums {
	uint64_t calls[NTM_RECORD_BUCKETS], bytes[NTM_RECORD_BUCKETS];
};

static unsigned rung_count(const struct tree *t, int cls)
{
	const struct ntm_record_ladder *l = &t->header.ladder[cls];
	return !t->have_header ? 0 : l->count < NTMEM_LADDER_MAX ? l->count
								   : NTMEM_LADDER_MAX;
}

/* Whether the calls of bucket k that path key served wrote around the
 * cache: its variant streams, or it is the variant of a rung marked
 * around (record.h) whose sizes hold the whole bucket. */
static int cell_around(const struct tree *t, int cls, unsigned k, unsigned key)
{
	if (tree_path_streams(key))
		return 1;
	const struct ntm_record_ladder *l = &t->header.ladder[cls];
	uint64_t from = ntm_record_bucket_from(k), to = ntm_record_bucket_to(k);
	for (unsigned i = 0, n = rung_count(t, cls); i < n; i++) {
		uint64_t lo = i ? l->to[i - 1] : 0, hi = i + 1 < n ? l->to[i] : 0;
		if (l->around[i] && key == NTM_PATH_VARIANT + (unsigned)l->variant[i] &&
		    from >= lo && (!hi || (to && to <= hi)))
			return 1;
	}
	return 0;
}


const char *verdict_class_name(int cls)
{
	return class_calls[cls];
}

static void sum_class(const struct tree *t, int cls, struct class_sums *s,
		      struct verdict *v)
{
	memset(s, 0, sizeof *s);
	for (unsigned line = 0; line < NTM_RECORD_LINES; line++) {
		if (tree_line_class(line) != cls)
			continue;
		for (unsigned k = 0; k < NTM_RECORD_BUCKETS; k++)
			for (unsigned key = 0; key < TREE_PATH_KEYS; key++) {
				const struct ntm_record_cell *c = &t->line[line].cell[k][key];
				s->calls[k] += c->calls;
				s->bytes[k] += c->bytes;
				if (cell_around(t, cls, k, key)) {
					v->streamed_calls += c->calls;
					v->streamed_bytes += c->bytes;
				}
			}
	}
	for (unsigned k = 0; k < NTM_RECORD_BUCKETS; k++) {
		v->calls += s->calls[k];
		v->bytes += s->bytes[k];
	}
}

/* The fewest adjacent buckets that hold WINDOW_SHARE of w (bytes, or
 * calls when no call wrote a byte). */
static void find_window(const uint64_t *w, uint64_t total, struct verdict *v)
{
	unsigned best = NTM_RECORD_BUCKETS + 1;
	for (unsigned lo = 0; lo < NTM_RECORD_BUCKETS; lo++) {
		uint64_t sum = 0;
		for (unsigned hi = lo; hi < NTM_RECORD_BUCKETS && hi - lo < best; hi++) {
			sum += w[hi];
			if ((double)sum >= WINDOW_SHARE * (double)total) {
				best = hi - lo;
				v->lo = lo;
				v->hi = hi;
				v->window_share = (double)sum / (double)total;
				break;
			}
		}
	}
}

/* Per path key, the class's bytes (calls, when no call wrote a byte) in
 * buckets lo..hi that went around the cache (around) or not, into
 * w[TREE_PATH_KEYS]. */
static void sum_paths(const struct tree *t, const struct verdict *v,
		      unsigned lo, unsigned hi, int around, uint64_t *w)
{
	memset(w, 0, TREE_PATH_KEYS * sizeof *w);
	for (unsigned line = 0; line < NTM_RECORD_LINES; line++)
		for (unsigned k = lo; tree_line_class(line) == v->cls && k <= hi; k++)
			for (unsigned key = 0; key < TREE_PATH_KEYS; key++) {
				const struct ntm_record_cell *c = &t->line[line].cell[k][key];
				if (cell_around(t, v->cls, k, key) == around)
					w[key] += v->bytes ? c->bytes : c->calls;
			}
}

/* "clzero", "nt_avx512 and clzero": the paths of w, most bytes first, up
 * to three. */
static void name_paths(const uint64_t *w, char *buf, size_t len)
{
	int used[TREE_PATH_KEYS] = {0};
	size_t at = 0;
	buf[0] = '\0';
	for (int n = 0; n < 3; n++) {
		int best = -1;
		for (unsigned key = 0; key < TREE_PATH_KEYS; key++)
			if (w[key] && !used[key] && (best < 0 || w[key] > w[best]))
				best = (int)key;
		if (best < 0)
			break;
		used[best] = 1;
		if (at < len)
			at += (size_t)snprintf(buf + at, len - at, "%s%s", n ? " and " : "",
					       tree_path_name((unsigned)best));
	}
}

/* The ladder's streaming bands: rungs first..last stream, serving
 * [from, to), to 0 when the band runs to the end. */
struct band {
	uint64_t from, to;
	unsigned first, last;
};

static const char *rung_name(const struct ntm_record_ladder *l, unsigned i)
{
	const struct variant *var = ntm_variant(l->variant[i]);
	return var ? var->name : "?";
}

static unsigned find_bands(const struct tree *t, int cls, struct band *b)
{
	const struct ntm_record_ladder *l = &t->header.ladder[cls];
	unsigned n = 0, count = rung_count(t, cls);
	for (unsigned i = 0; i < count; i++) {
		const struct variant *var = ntm_variant(l->variant[i]);
		if (!var || !(ntm_streams(var) || l->around[i]))
			continue;
		if (!n || b[n - 1].last + 1 != i)
			b[n++] = (struct band){i ? l->to[i - 1] : t->header.small_max + 1,
					       0, i, i};
		b[n - 1].last = i;
		b[n - 1].to = i + 1 < count ? l->to[i] : 0;
	}
	return n;
}

/* "from 8 MiB to 64 MiB, nt_avx512; from 64 MiB its ladder takes movsb",
 * "from 12 MiB, nt_avx512 to 64 MiB, then clzero": every band. */
static void describe_bands(const struct tree *t, int cls, const struct band *b,
			   unsigned n, char *buf, size_t len)
{
	const struct ntm_record_ladder *l = &t->header.ladder[cls];
	char x[32], y[32];
	size_t at = 0;
	for (unsigned k = 0; k < n && at < len; k++) {
		at += (size_t)snprintf(buf + at, len - at, "%sfrom %s", k ? "; and " : "",
				       ntm_format_size(b[k].from, x, sizeof x));
		if (b[k].to && at < len)
			at += (size_t)snprintf(buf + at, len - at, " to %s",
					       ntm_format_size(b[k].to, x, sizeof x));
		for (unsigned i = b[k].first; i <= b[k].last && at < len; i++) {
			const struct variant *var = ntm_variant(l->variant[i]);
			int in_effect = l->around[i] && !(var && ntm_streams(var));
			at += (size_t)snprintf(buf + at, len - at, "%s%s%s%s%s",
					       i == b[k].first ? ", " : ", then ",
					       rung_name(l, i), in_effect
					       ? ", which allocates no lines there" : "",
					       i < b[k].last ? " to " : "",
					       i < b[k].last ? ntm_format_size(l->to[i], y,
									       sizeof y) : "");
		}
		if (b[k].to && at < len)
			at += (size_t)snprintf(buf + at, len - at, "; from %s its ladder "
					       "takes %s", ntm_format_size(b[k].to, x, sizeof x),
					       rung_name(l, b[k].last + 1));
	}
}

/* The class's bytes (calls, when none wrote a byte) that streamed in
 * buckets no streaming band of the ladder covers: learning on real calls
 * ran them, in its trials or where it chose streaming (ntmem(3)). */
static uint64_t learned_streaming(const struct tree *t, const struct verdict *v,
				  const struct band *b, unsigned n)
{
	uint64_t sum = 0;
	for (unsigned k = 1; k < NTM_RECORD_BUCKETS; k++) {
		uint64_t from = ntm_record_bucket_from(k), to = ntm_record_bucket_to(k);
		int covered = 0;
		for (unsigned i = 0; i < n; i++)
			covered |= from >= b[i].from && (!b[i].to || (to && to <= b[i].to));
		if (covered)
			continue;
		for (unsigned line = 0; line < NTM_RECORD_LINES; line++)
			for (unsigned key = 0; tree_line_class(line) == v->cls &&
					       key < TREE_PATH_KEYS; key++) {
				const struct ntm_record_cell *c = &t->line[line].cell[k][key];
				if (cell_around(t, v->cls, k, key))
					sum += v->bytes ? c->bytes : c->calls;
			}
	}
	return sum;
}

/* Where the window of most bytes lies against the streaming bands. */
enum where { BELOW, ABOVE, BETWEEN, AROUND, WITHIN };

static enum where window_where(const struct verdict *v, const struct band *b,
			       unsigned n)
{
	uint64_t from = ntm_record_bucket_from(v->lo);
	uint64_t to = v->hi ? ntm_record_bucket_to(v->hi) : 1;
	int overlaps = 0;
	if (!to)
		to = UINT64_MAX;
	for (unsigned k = 0; k < n; k++) {
		uint64_t end = b[k].to ? b[k].to : UINT64_MAX;
		if (from >= b[k].from && to <= end)
			return WITHIN;
		overlaps |= from < end && to > b[k].from;
	}
	if (overlaps)
		return AROUND;
	if (to <= b[0].from)
		return BELOW;
	return b[n - 1].to && from >= b[n - 1].to ? ABOVE : BETWEEN;
}

static const char *percent(double share, char *buf, size_t len)
{
	if (share > 0 && share < 0.01)
		snprintf(buf, len, "under 1%%");
	else
		snprintf(buf, len, "%.0f%%", 100 * share);
	return buf;
}

/* "calls of 16 KiB to 4 MiB": the window's buckets, the top not included,
 * as in the tables' [from, to). */
static void window_label(const struct verdict *v, char *buf, size_t len)
{
	char a[32], b[32];
	uint64_t from = ntm_record_bucket_from(v->lo);
	uint64_t to = ntm_record_bucket_to(v->hi);
	if (v->hi == 0)
		snprintf(buf, len, "calls of 0 bytes");
	else if (!to)
		snprintf(buf, len, "calls of %s and more",
			 ntm_format_size(from, a, sizeof a));
	else
		snprintf(buf, len, "calls of %s to %s",
			 ntm_format_size(from, a, sizeof a),
			 ntm_format_size(to, b, sizeof b));
}

static void write_verdict(const struct tree *t, struct verdict *v)
{
	static const char *const where_words[] = {
		[BELOW] = "below where this machine streams",
		[ABOVE] = "above where this machine streams",
		[BETWEEN] = "between the sizes where this machine streams",
		[AROUND] = "partly where this machine streams",
		[WITHIN] = "where this machine streams",
	};
	char share[32], streamed_pct[32], window[96], bands[320];
	char streamers[160], others[160];
	uint64_t w[TREE_PATH_KEYS];
	struct band b[NTMEM_LADDER_MAX];
	unsigned n = find_bands(t, v->cls, b);
	const char *bytes = class_bytes[v->cls];
	double streamed = v->bytes ? (double)v->streamed_bytes / (double)v->bytes
				   : (double)v->streamed_calls / (double)v->calls;
	window_label(v, window, sizeof window);
	percent(v->window_share, share, sizeof share);
	if (!n) {
		/* --stream-above takes no size of the small path, which never
		 * streams: advise it only where the calls are larger. */
		int can_force = ntm_record_bucket_to(v->hi) == 0 ||
				ntm_record_bucket_to(v->hi) > t->header.small_max + 1;
		snprintf(v->text, sizeof v->text, "%s of %s were in %s. This "
			 "machine's ladder for %s writes around the cache at no size, "
			 "so ntmem never streams them here%s.", share, bytes, window,
			 class_calls[v->cls], can_force ? " (ntmem run --stream-above "
			 "forces it)" : ", and calls this small never stream");
		return;
	}
	describe_bands(t, v->cls, b, n, bands, sizeof bands);
	sum_paths(t, v, 0, NTM_RECORD_BUCKETS - 1, 1, w);
	name_paths(w, streamers, sizeof streamers);
	sum_paths(t, v, v->lo, v->hi, 0, w);
	name_paths(w, others, sizeof others);
	percent(streamed, streamed_pct, sizeof streamed_pct);
	uint64_t learned = learned_streaming(t, v, b, n);
	char learned_pct[32], by_learning[128] = "";
	if (learned)
		snprintf(by_learning, sizeof by_learning, "; %s of them where the "
			 "ladder does not stream, by learning (its trials, or its choice)",
			 percent((double)learned / (double)(v->bytes ? v->streamed_bytes
							     : v->streamed_calls),
				 learned_pct, sizeof learned_pct));
	if (streamed >= 0.5) {
		snprintf(v->text, sizeof v->text, "%s of %s were streamed, by %s (this "
			 "machine streams %s%s): streaming applies to this program.",
			 streamed_pct, bytes, streamers, bands, by_learning);
		return;
	}
	enum where at = window_where(v, b, n);
	size_t used = (size_t)snprintf(v->text, sizeof v->text, "%s of %s were in "
				       "%s, %s (%s)", share, bytes, window,
				       where_words[at], bands);
	if (used >= sizeof v->text)
		return;
	if (v->streamed_calls)
		snprintf(v->text + used, sizeof v->text - used, "; %s were streamed, "
			 "by %s%s: streaming applies to a small part of this program.",
			 streamed_pct, streamers, by_learning);
	else if (at == AROUND || at == WITHIN)
		snprintf(v->text + used, sizeof v->text - used, ", but none was "
			 "streamed (%s served them): streaming does not apply to "
			 "this program.", others[0] ? others : "no rung");
	else
		snprintf(v->text + used, sizeof v->text - used, ": streaming does not "
			 "apply to this program.");
}

int report_verdict(const struct tree *t, int cls, struct verdict *v)
{
	struct class_sums s;
	struct band b[NTMEM_LADDER_MAX];
	memset(v, 0, sizeof *v);
	v->cls = cls;
	sum_class(t, cls, &s, v);
	if (!v->calls)
		return 0;
	find_window(v->bytes ? s.bytes : s.calls, v->bytes ? v->bytes : v->calls, v);
	if (find_bands(t, cls, b)) {
		v->streams_from = b[0].from;
		v->streams_to = b[0].to;
		v->stream_variant = rung_name(&t->header.ladder[cls], b[0].first);
	}
	write_verdict(t, v);
	return 1;
}
