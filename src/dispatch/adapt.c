/* adapt.c - the trials at contested edges (see adapt.h). */
#include "adapt.h"

#include <time.h>

int ntm_adapt_contested(const struct ladder *l, unsigned j)
{
	return j + 1 < l->count && l->v[j] != l->v[j + 1] &&
	       ntm_streams(l->v[j]) != ntm_streams(l->v[j + 1]) &&
	       l->origin[j] != NTMEM_ORIGIN_ENVIRONMENT &&
	       l->origin[j + 1] != NTMEM_ORIGIN_ENVIRONMENT;
}

int ntm_adapt_band(const struct ladder *l, unsigned j, size_t *from,
		   size_t *to)
{
	if (!ntm_adapt_contested(l, j))
		return 0;
	size_t at = l->to[j];
	*from = at / 2 < NTM_ADAPT_MIN ? NTM_ADAPT_MIN : at / 2;
	*to = at > SIZE_MAX / 2 ? SIZE_MAX : 2 * at;
	return *from <= *to;
}

unsigned ntm_adapt_edges(const struct ladder *l, size_t l3)
{
	size_t most = 4 * (l3 ? l3 : (size_t)64 << 20), from, to;
	unsigned edges = 0;
	for (unsigned j = 0; j + 1 < l->count; j++)
		if (l->to[j] <= most && ntm_adapt_band(l, j, &from, &to))
			edges |= 1u << j;
	return edges;
}

size_t ntm_adapt_from(const struct ladder *l, unsigned edges)
{
	size_t from, to;
	for (unsigned j = 0; j + 1 < l->count; j++)
		if (edges >> j & 1 && ntm_adapt_band(l, j, &from, &to))
			return from;
	return SIZE_MAX;
}

/* Edge j is one of edges, and n in its band. */
static int near(const struct ladder *l, unsigned edges, unsigned j, size_t n)
{
	size_t from, to;
	return edges >> j & 1 && ntm_adapt_band(l, j, &from, &to) && n >= from &&
	       n <= to;
}

int ntm_adapt_edge(const struct ladder *l, unsigned edges, size_t n)
{
	unsigned i = ntm_ladder_rung(l, n);
	int up = near(l, edges, i, n) ? (int)i : -1;
	int down = i > 0 && near(l, edges, i - 1, n) ? (int)i - 1 : -1;
	/* Both: the nearer in ratio. */
	if (up >= 0 && down >= 0)
		return (double)l->to[i] / (double)n < (double)n / (double)l->to[i - 1]
			       ? up : down;
	return up >= 0 ? up : down;
}

/* A period: the trial (the streaming side, then the cached side), the
 * decision, and the rest on the faster. */
unsigned ntm_adapt_side(struct adapt_slot *s, unsigned own,
			unsigned streaming, int *timed)
{
	enum { TRIAL = NTM_ADAPT_STREAMED + NTM_ADAPT_CACHED };
	unsigned k = __atomic_fetch_add(&s->calls, 1, __ATOMIC_RELAXED) %
		     NTM_ADAPT_PERIOD;
	unsigned pick = __atomic_load_n(&s->pick, __ATOMIC_RELAXED);
	unsigned in_use = pick ? pick - 1 : own;
	*timed = 0;
	if (k == 0) {
		__atomic_store_n(&s->best[0], UINT64_MAX, __ATOMIC_RELAXED);
		__atomic_store_n(&s->best[1], UINT64_MAX, __ATOMIC_RELAXED);
	}
	if (k < NTM_ADAPT_STREAMED) {
		*timed = k > 0;
		return streaming;
	}
	if (k < TRIAL) {
		*timed = k - NTM_ADAPT_STREAMED >= NTM_ADAPT_CACHED_WARM;
		return !streaming;
	}
	if (k == TRIAL) {
		uint64_t lo = __atomic_load_n(&s->best[0], __ATOMIC_RELAXED);
		uint64_t hi = __atomic_load_n(&s->best[1], __ATOMIC_RELAXED);
		if (lo != UINT64_MAX && hi != UINT64_MAX) {
			unsigned now = hi < lo;
			__atomic_fetch_add(&s->trials, 1, __ATOMIC_RELAXED);
			if (now != in_use)
				__atomic_fetch_add(&s->switches, 1, __ATOMIC_RELAXED);
			__atomic_store_n(&s->pick, now + 1, __ATOMIC_RELAXED);
			in_use = now;
		}
	}
	return in_use;
}

void ntm_adapt_record(struct adapt_slot *s, unsigned side, size_t n,
		      uint64_t ns)
{
	uint64_t per_mib = ns * ((uint64_t)1 << 20) / (n ? n : 1);
	uint64_t old = __atomic_load_n(&s->best[side], __ATOMIC_RELAXED);
	while (per_mib < old &&
	       !__atomic_compare_exchange_n(&s->best[side], &old, per_mib, 1,
					    __ATOMIC_RELAXED, __ATOMIC_RELAXED))
		;
}

/* Per class, edge and power of two: an edge's band spans at most three
 * (from at / 2 to 2 * at). */
static struct adapt_slot slots[3][NTMEM_LADDER_MAX][3];  /* enum ntmem_class */

static unsigned log2_floor(size_t n)
{
	return (unsigned)(63 - __builtin_clzll((unsigned long long)n));
}

struct adapt_slot *ntm_adapt_slot(int cls, const struct ladder *l, int j,
				  size_t n)
{
	unsigned base = log2_floor(l->to[j] / 2), at = log2_floor(n);
	unsigned k = at > base ? at - base : 0;
	return &slots[cls][j][k < 3 ? k : 2];
}

void ntm_adapt_counts(int cls, int j, unsigned long long *trials,
		      unsigned long long *switches)
{
	*trials = *switches = 0;
	for (int k = 0; k < 3; k++) {
		*trials += __atomic_load_n(&slots[cls][j][k].trials, __ATOMIC_RELAXED);
		*switches += __atomic_load_n(&slots[cls][j][k].switches,
					     __ATOMIC_RELAXED);
	}
}

static uint64_t now_ns(void)
{
	struct timespec t;
	clock_gettime(CLOCK_MONOTONIC, &t);
	return (uint64_t)t.tv_sec * 1000000000u + (uint64_t)t.tv_nsec;
}

const struct variant *ntm_adapt_begin(int cls, const struct ladder *l,
				      unsigned edges, size_t n,
				      struct adapt_call *a)
{
	a->slot = NULL;
	unsigned i = ntm_ladder_rung(l, n);
	int j = ntm_adapt_edge(l, edges, n);
	if (j < 0)
		return l->v[i];
	struct adapt_slot *s = ntm_adapt_slot(cls, l, j, n);
	int timed;
	unsigned side = ntm_adapt_side(s, i > (unsigned)j,
				       ntm_streams(l->v[j + 1]), &timed);
	if (timed) {
		a->slot = s;
		a->side = side;
		a->t0 = now_ns();
	}
	return l->v[(unsigned)j + side];
}

void ntm_adapt_end(const struct adapt_call *a, size_t n)
{
	if (a->slot)
		ntm_adapt_record(a->slot, a->side, n, now_ns() - a->t0);
}
