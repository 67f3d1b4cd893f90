/* test_report_sides.c - "ntmem run --report" tells what ran: a program
 * makes a known number of calls of one size that learns (the trials start
 * after 16 calls here), and the report's count for each candidate must
 * be what the learning's own schedule gives, computed here from the same
 * band with the side the report shows winning. */
#include "dispatch/learn.h"
#include "dispatch/select.h"
#include "preload/spawn.h"

#define CALLS 200
#define AFTER 16
#define SIZE ((size_t)2 << 20)

/* The calls each side runs in a band of the process's policy when every
 * call begins in one thread, and `winner` is fastest. */
static void schedule_counts(const struct learn_band *b, unsigned prior,
			    unsigned winner, unsigned long *count)
{
	struct learn_slot s;
	memset(&s, 0, sizeof s);
	for (unsigned i = 0; i < CALLS; i++) {
		struct learn_ticket t;
		if (i < AFTER) {  /* the band's gate: the prior, untimed */
			count[prior]++;
			continue;
		}
		unsigned side = ntm_learn_begin(&s, b, prior, &t);
		count[side]++;
		if (t.slot)
			ntm_learn_end(&t, b, SIZE, side == winner ? 1000 : 9000);
	}
}

/* The calls the report puts on variant name in the bucket of SIZE. */
static double calls_of(const struct t_json *bucket, const char *name)
{
	const struct t_json *paths = t_json_get(bucket, "paths");
	for (size_t i = 0; paths && i < paths->count; i++)
		if (!strcmp(tj_str(&paths->items[i], "path"), name))
			return tj_num(&paths->items[i], "calls");
	return 0;
}

static void test_sides(const char *op, enum ntmem_class cls, const char *function,
		       const char *class_key)
{
	char what[96];
	snprintf(what, sizeof what, "report: each candidate's calls, %s", op);
	struct ntm_route route = ntm_select(ntm_policy_for_report(), cls, SIZE, 0, 0);
	const struct learn_band *b = route.kind == NTM_ROUTE_LEARNED ? route.band : NULL;
	unsigned prior = route.prior;
	if (!b) {
		t_skip(what, "no candidate rivals the ladder at 2 MiB on this CPU");
		return;
	}
	struct places at;
	if (find_places(&at)) {
		t_fail(what, "cannot find build/ntmem and its shim");
		return;
	}
	struct report r;
	char size[32], calls[32];
	snprintf(size, sizeof size, "%zu", SIZE);
	snprintf(calls, sizeof calls, "%d", CALLS);
	const char *opts[] = {"--report-json", report_file(&r), NULL};
	const char *args[] = {op, size, calls, NULL};
	const char *env[] = {"NTMEM_PROFILE=none", "NTMEM_TUNABLES=learn_after=16", NULL};
	struct outcome o;
	spawn(run_argv(&at, opts, "repeat", args), env, 120, &o);
	relay(what, &o);
	report_read(&r);
	const struct t_json *bucket = r.json ? report_bucket(&r, function, class_key, (double)SIZE) : NULL;
	if (!bucket) {
		t_fail(what, "no bucket of 2 MiB for %s in the report (%s)", function, r.why);
	} else {
		/* The winner: the side with the most calls. */
		unsigned winner = 0;
		for (unsigned i = 1; i < b->nsides; i++)
			if (calls_of(bucket, b->side[i]->name) >
			    calls_of(bucket, b->side[winner]->name))
				winner = i;
		unsigned long want[NTM_LEARN_SIDES] = {0};
		schedule_counts(b, prior, winner, want);
		int bad = tj_num(bucket, "calls") != CALLS;
		char why[256];
		snprintf(why, sizeof why, "%.0f calls in the bucket", tj_num(bucket, "calls"));
		for (unsigned i = 0; i < b->nsides; i++) {
			double got = calls_of(bucket, b->side[i]->name);
			if (got != (double)want[i] && !bad++)
				snprintf(why, sizeof why, "%s: %.0f calls, the schedule "
					 "gives %lu", b->side[i]->name, got, want[i]);
		}
		t_check(!bad, what, "%s", why);
	}
	report_free(&r);
	outcome_free(&o);
}

int main(void)
{
	if (SHIM_SANITIZED) {
		t_skip("report: each candidate's calls", SHIM_SANITIZED_WHY);
	} else if (spawn_unavailable()) {
		t_skip("report: each candidate's calls", spawn_unavailable());
	} else {
		test_sides("copy", NTMEM_CLASS_COPY, "memcpy", "copy");
		test_sides("set", NTMEM_CLASS_SET_NONZERO, "memset", "set_nonzero");
	}
	return t_finish();
}
