/* pollution_aggressors.c - "ntmem pollution": the aggressors that are not
 * one function of the list: the idle control, hinted, streamread, and the
 * consumer that rereads a destination; and timing one aggressor call,
 * which every mode does. */
#include <errno.h>
#include <math.h>
#include <stdint.h>

#include "measure/benchfn.h"
#include "pollution_modes.h"

const struct fn pol_idle[NOPS] = {
	{.name = "idle", .description = "no aggressor: as long spent spinning",
	 .op = NTMEM_OP_SET, .kind = FN_LIBC, .variant_id = -1, .supported = 1},
	{.name = "idle", .description = "no aggressor: as long spent spinning",
	 .op = NTMEM_OP_COPY, .kind = FN_LIBC, .variant_id = -1, .supported = 1},
};

int pol_is_idle(const struct fn *f)
{
	return f == &pol_idle[0] || f == &pol_idle[1];
}

/* auto with a hot region: the extent's last --hot bytes written last,
 * cached, by the calling thread; the rest as the policy says. */
const struct fn pol_hinted[NOPS] = {
	{.name = "hinted",
	 .description = "ntmem_set_opts: auto, the last --hot bytes written last, cached",
	 .op = NTMEM_OP_SET, .kind = FN_AUTO, .variant_id = -1, .supported = 1},
	{.name = "hinted",
	 .description = "ntmem_copy_opts: auto, the last --hot bytes written last, cached",
	 .op = NTMEM_OP_COPY, .kind = FN_AUTO, .variant_id = -1, .supported = 1},
};

int pol_is_hinted(const struct fn *f)
{
	return f == &pol_hinted[0] || f == &pol_hinted[1];
}

/* The consumer: sum the 8-byte words of [p, p + n). */
uint64_t pol_consume(const unsigned char *p, size_t n)
{
	const uint64_t *w = (const uint64_t *)p;
	uint64_t a = 0, b = 0, x = 0, y = 0;
	size_t words = n / 8, i = 0;
	for (; i + 4 <= words; i += 4) {
		a += w[i];
		b += w[i + 1];
		x += w[i + 2];
		y += w[i + 3];
	}
	for (; i < words; i++)
		a += w[i];
	return a + b + x + y;
}

/* The plain alternative to a hot region: stream everything, then the
 * caller reads the last --hot bytes itself.  What it costs the victim is
 * what caching the hot bytes costs, however it is done: the baseline for
 * hinted. */
const struct fn pol_streamread[NOPS] = {
	{.name = "streamread",
	 .description = "ntmem_set_flags, streaming; then the last --hot bytes read",
	 .op = NTMEM_OP_SET, .kind = FN_AUTO, .variant_id = -1, .supported = 1},
	{.name = "streamread",
	 .description = "ntmem_copy_flags, streaming; then the last --hot bytes read",
	 .op = NTMEM_OP_COPY, .kind = FN_AUTO, .variant_id = -1, .supported = 1},
};

int pol_is_streamread(const struct fn *f)
{
	return f == &pol_streamread[0] || f == &pol_streamread[1];
}

static int run_streamread(struct ctx *c, const struct fn *f)
{
	size_t n = c->o->size, hot = c->o->hot < n ? c->o->hot : n;
	void *done = f->op == NTMEM_OP_SET
		? ntmem_set_flags(c->dst.p, 0, n, NTMEM_F_NONTEMPORAL)
		: ntmem_copy_flags(c->dst.p, c->src.p, n, NTMEM_F_NONTEMPORAL);
	if (done)
		pol_sink += (uintptr_t)pol_consume(c->dst.p + (n - hot), hot);
	return done ? 0 : -1;
}

/* One hinted call over the whole buffer; 0, or -1 with errno. */
static int run_hinted(struct ctx *c, const struct fn *f)
{
	size_t n = c->o->size, hot = c->o->hot < n ? c->o->hot : n;
	struct ntmem_opts opts = {.hot_off = n - hot, .hot_len = hot};
	void *done = f->op == NTMEM_OP_SET ? ntmem_set_opts(c->dst.p, 0, n, &opts)
					   : ntmem_copy_opts(c->dst.p, c->src.p, n, &opts);
	return done ? 0 : -1;
}

int pol_run(struct ctx *c, const struct fn *f)
{
	if (pol_is_hinted(f))
		return run_hinted(c, f);
	if (pol_is_streamread(f))
		return run_streamread(c, f);
	return fn_run(f, c->dst.p, c->src.p, c->o->size, 0);
}

volatile uintptr_t pol_sink;

/* A refused call is never timed: the first one is kept here and ends the
 * measurement (pollution_modes.c). */
static const struct fn *refused;
static int refused_errno;

const struct fn *pol_refused(int *err)
{
	if (err)
		*err = refused_errno;
	return refused;
}

void pol_refused_clear(void)
{
	refused = NULL;
}

uint64_t pol_aggress(struct ctx *c, const struct fn *f)
{
	uint64_t t0 = ntm_now_ns();
	if (!f)
		return 0;
	if (pol_is_idle(f)) {
		uint64_t t;
		while ((t = ntm_now_ns()) - t0 < c->idle_ns[f->op])
			;
		return t - t0;
	}
	int failed = pol_run(c, f);
	if (failed && !refused) {
		refused = f;
		refused_errno = errno;
	}
	return ntm_now_ns() - t0;
}

double pol_gbps(size_t bytes, double ns)
{
	return ns > 0 ? (double)bytes / ns : NAN;
}

void pol_count(const struct perf_values *a, const struct perf_values *b,
	       double *misses, double *refs)
{
	*misses += (double)(b->misses - a->misses);
	*refs += (double)(b->refs - a->refs);
}
