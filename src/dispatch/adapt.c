/* adapt.c - the trials at contested edges (see adapt.h). */
#include "adapt.h"

#include <time.h>

/* An edge between rungs j and j + 1 is contested where one streams and
 * the other does not, and NTMEM_TUNABLES set neither. */
int ntm_adapt_contested(const struct ladder *l, unsigned j)
{
	return j + 1 < l->count && l->v[j] != l->v[j + 1] &&
	       ntm_streams(l->v[j]) != ntm_streams(l->v[j + 1]) &&
	       l->origin[j] != NTMEM_ORIGIN_ENVIRONMENT &&
	       l->origin[j + 1] != NTMEM_ORIGIN_ENVIRONMENT;
}

/* Within a factor of two of the edge at, either side. */
static int near(size_t n, size_t at)
{
	return n >= at / 2 && n / 2 <= at;
}

int ntm_adapt_edge(const struct ladder *l, size_t n)
{
	if (n < NTM_ADAPT_MIN)
		return -1;
	unsigned i = ntm_ladder_rung(l, n);
	/* The edge above the rung, then the one below: the nearer one
	 * where both qualify, as the one above n is the nearer in ratio
	 * only when n is past their geometric middle. */
	int up = ntm_adapt_contested(l, i) && near(n, l->to[i]) ? (int)i : -1;
	int down = i > 0 && ntm_adapt_contested(l, i - 1) && near(n, l->to[i - 1])
			   ? (int)i - 1 : -1;
	if (up >= 0 && down >= 0)
		return (double)l->to[i] / (double)n < (double)n / (double)l->to[i - 1]
			       ? up : down;
	return up >= 0 ? up : down;
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

size_t ntm_adapt_from(const struct ladder *l)
{
	size_t from, to;
	for (unsigned j = 0; j + 1 < l->count; j++)
		if (ntm_adapt_band(l, j, &from, &to))
			return from;
	return SIZE_MAX;
}

unsigned ntm_adapt_side(struct adapt_slot *s, int *timed)
{
	unsigned k = __atomic_fetch_add(&s->calls, 1, __ATOMIC_RELAXED) %
		     NTM_ADAPT_PERIOD;
	*timed = 0;
	if (k == 0) {
		__atomic_store_n(&s->best[0], UINT64_MAX, __ATOMIC_RELAXED);
		__atomic_store_n(&s->best[1], UINT64_MAX, __ATOMIC_RELAXED);
	}
	if (k < 2 * NTM_ADAPT_TRY) {
		*timed = k % NTM_ADAPT_TRY != 0;
		return k / NTM_ADAPT_TRY;
	}
	unsigned pick = __atomic_load_n(&s->pick, __ATOMIC_RELAXED);
	if (k == 2 * NTM_ADAPT_TRY) {
		uint64_t lo = __atomic_load_n(&s->best[0], __ATOMIC_RELAXED);
		uint64_t hi = __atomic_load_n(&s->best[1], __ATOMIC_RELAXED);
		if (lo != UINT64_MAX && hi != UINT64_MAX) {
			unsigned now = 1 + (hi < lo);
			__atomic_fetch_add(&s->trials, 1, __ATOMIC_RELAXED);
			if (pick && now != pick)
				__atomic_fetch_add(&s->switches, 1, __ATOMIC_RELAXED);
			__atomic_store_n(&s->pick, now, __ATOMIC_RELAXED);
			pick = now;
		}
	}
	return pick ? pick - 1 : 2;
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
				      size_t n, struct adapt_call *a)
{
	a->slot = NULL;
	int j = ntm_adapt_edge(l, n);
	if (j < 0)
		return l->v[ntm_ladder_rung(l, n)];
	struct adapt_slot *s = ntm_adapt_slot(cls, l, j, n);
	int timed;
	unsigned side = ntm_adapt_side(s, &timed);
	if (side > 1)  /* not decided yet: the ladder's own */
		return l->v[ntm_ladder_rung(l, n)];
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
