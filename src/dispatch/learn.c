/* learn.c - learning on real calls (learn.h). */
#define _GNU_SOURCE
#include "learn.h"

#include <errno.h>
#include <sched.h>
#include <string.h>
#include <unistd.h>

#include "cpu.h"

/* The trial word: epoch, side in use + 1, log2 of the period, and the low
 * 32 bits of the trial's first call.  Positions within a period are
 * differences of 32-bit call counts, so they survive the count's wrap. */
#define EPOCH_BITS 24
#define EPOCH_MASK ((1u << EPOCH_BITS) - 1)
#define TRIAL_EPOCH(tr) ((uint32_t)((tr) >> 40) & EPOCH_MASK)
#define TRIAL_IN_USE(tr) ((unsigned)((tr) >> 37) & 7u)
#define TRIAL_PERIOD_LOG2(tr) ((unsigned)((tr) >> 32) & 31u)
#define TRIAL_AT(tr) ((uint32_t)(tr))
/* A sample: its epoch, and nanoseconds per MiB below it. */
#define SAMPLE_SHIFT 40
#define SAMPLE_MAX (((uint64_t)1 << SAMPLE_SHIFT) - 1)

static uint64_t trial_word(uint32_t epoch, unsigned in_use, unsigned period_log2,
			   uint32_t at)
{
	return (uint64_t)(epoch & EPOCH_MASK) << 40 | (uint64_t)in_use << 37 |
	       (uint64_t)period_log2 << 32 | at;
}

static unsigned log2_of(unsigned x)
{
	return (unsigned)(31 - __builtin_clz(x));
}

void ntm_learn_init(struct learn_slot *s, unsigned after)
{
	memset(s, 0, sizeof *s);
	s->tally = (uint64_t)1 << 32;
	s->trial = trial_word(1, 0, log2_of(NTM_LEARN_PERIOD_MIN), after);
}

/* Untimed calls before side s's timed ones, when side prev ran before. */
static unsigned warm(const struct learn_band *b, unsigned prev, unsigned s)
{
	return b->near_cache && ntm_streams(b->side[prev]) && !ntm_streams(b->side[s])
		       ? NTM_LEARN_WARM_CACHED : NTM_LEARN_WARM;
}

/* The k-th side of a trial whose side in use is last: the others in
 * order, then last. */
static unsigned trial_side(const struct learn_band *b, unsigned last, unsigned k)
{
	if (k + 1 == b->nsides)
		return last;
	return k < last ? k : k + 1;
}

/* Position p of a trial whose side in use is last: its side, and its
 * sample (1) or a warm-up (0); -1 past the trial. */
static int schedule(const struct learn_band *b, unsigned last, uint32_t p,
		    unsigned *side, unsigned *sample)
{
	unsigned prev = last;
	for (unsigned k = 0; k < b->nsides; k++) {
		unsigned s = trial_side(b, last, k);
		unsigned w = warm(b, prev, s);
		*side = s;
		if (p < w)
			return 0;
		p -= w;
		if (p < NTM_LEARN_SAMPLES) {
			*sample = p;
			return 1;
		}
		p -= NTM_LEARN_SAMPLES;
		prev = s;
	}
	return -1;
}

/* Calls of a trial whose side in use is last, and of them those of side
 * `of` (its warm-ups and samples). */
static unsigned trial_length(const struct learn_band *b, unsigned last,
			     int of, unsigned *of_calls)
{
	unsigned prev = last, total = 0;
	for (unsigned k = 0; k < b->nsides; k++) {
		unsigned s = trial_side(b, last, k);
		unsigned n = warm(b, prev, s) + NTM_LEARN_SAMPLES;
		if ((int)s == of)
			*of_calls = n;
		total += n;
		prev = s;
	}
	return total;
}

unsigned ntm_learn_trial_calls(const struct learn_band *b)
{
	unsigned most = 0, unused;
	for (unsigned last = 0; last < b->nsides; last++) {
		unsigned n = trial_length(b, last, -1, &unused);
		most = n > most ? n : most;
	}
	return most;
}

unsigned ntm_learn_bound(const struct learn_band *b)
{
	unsigned most = 0;
	for (unsigned last = 0; last < b->nsides; last++)
		for (unsigned win = 0; win < b->nsides; win++) {
			unsigned winner = 0;
			unsigned n = trial_length(b, last, (int)win, &winner) - winner;
			most = n > most ? n : most;
		}
	return most;
}

/* Give up a trial whose samples did not all come: the side in use stays,
 * the next trial a period on. */
static void give_up(struct learn_slot *s, uint64_t tr, uint64_t ticket)
{
	uint32_t next = TRIAL_EPOCH(tr) + 1;
	uint64_t fresh = trial_word(next, TRIAL_IN_USE(tr), TRIAL_PERIOD_LOG2(tr),
				    (uint32_t)ticket + (1u << TRIAL_PERIOD_LOG2(tr)));
	__atomic_store_n(&s->tally, (uint64_t)(next & EPOCH_MASK) << 32,
			 __ATOMIC_RELAXED);
	__atomic_compare_exchange_n(&s->trial, &tr, fresh, 0, __ATOMIC_RELEASE,
				    __ATOMIC_RELAXED);
}

unsigned ntm_learn_begin(struct learn_slot *s, const struct learn_band *b,
			 unsigned prior, struct learn_ticket *t)
{
	t->slot = NULL;
	uint64_t ticket = __atomic_fetch_add(&s->calls, 1, __ATOMIC_RELAXED);
	uint64_t tr = __atomic_load_n(&s->trial, __ATOMIC_ACQUIRE);
	unsigned in_use = TRIAL_IN_USE(tr);
	unsigned use = in_use ? in_use - 1 : prior;
	uint32_t pos = (uint32_t)ticket - TRIAL_AT(tr);
	if (pos >= 0x80000000u)  /* the trial is still to come */
		return use;
	unsigned side, sample = 0;
	int timed = schedule(b, in_use ? in_use - 1 : 0, pos, &side, &sample);
	if (timed < 0) {
		if (pos >= ntm_learn_trial_calls(b) + NTM_LEARN_GRACE)
			give_up(s, tr, ticket);
		return use;
	}
	if (timed) {
		t->slot = s;
		t->epoch = TRIAL_EPOCH(tr);
		t->side = (unsigned char)side;
		t->sample = (unsigned char)sample;
	}
	return side;
}

/* The least nanoseconds per MiB of each side in this epoch's samples. */
static void least_times(const struct learn_slot *s, const struct learn_band *b,
			uint32_t epoch, uint64_t *best)
{
	for (unsigned i = 0; i < b->nsides; i++) {
		best[i] = UINT64_MAX;
		for (unsigned k = 0; k < NTM_LEARN_SAMPLES; k++) {
			uint64_t v = __atomic_load_n(&s->sample[i][k], __ATOMIC_RELAXED);
			if ((uint32_t)(v >> SAMPLE_SHIFT) == epoch &&
			    (v & SAMPLE_MAX) < best[i])
				best[i] = v & SAMPLE_MAX;
		}
	}
}

/* Every sample of the epoch is in: keep or change the side, and set the
 * next trial a period on. */
static void decide(struct learn_slot *s, const struct learn_band *b, uint32_t epoch)
{
	uint64_t tr = __atomic_load_n(&s->trial, __ATOMIC_ACQUIRE);
	if (TRIAL_EPOCH(tr) != epoch)
		return;  /* given up meanwhile */
	uint64_t best[NTM_LEARN_SIDES];
	least_times(s, b, epoch, best);
	unsigned win = 0;
	for (unsigned i = 1; i < b->nsides; i++)
		if (best[i] < best[win])
			win = i;
	unsigned in_use = TRIAL_IN_USE(tr), period = TRIAL_PERIOD_LOG2(tr);
	if (in_use && win != in_use - 1 &&
	    best[win] * 100 >= best[in_use - 1] * (100 - NTM_LEARN_MARGIN_PCT))
		win = in_use - 1;  /* not faster by the margin: keep it */
	int held = in_use && win == in_use - 1;
	if (held && period < log2_of(NTM_LEARN_PERIOD_MAX))
		period++;
	else if (!held)
		period = log2_of(NTM_LEARN_PERIOD_MIN);
	uint32_t next = (epoch + 1) & EPOCH_MASK;
	uint64_t now = __atomic_load_n(&s->calls, __ATOMIC_RELAXED);
	uint64_t fresh = trial_word(next, win + 1, period, (uint32_t)now + (1u << period));
	__atomic_store_n(&s->tally, (uint64_t)next << 32, __ATOMIC_RELAXED);
	if (!__atomic_compare_exchange_n(&s->trial, &tr, fresh, 0, __ATOMIC_RELEASE,
					 __ATOMIC_RELAXED))
		return;
	__atomic_fetch_add(&s->trials, 1, __ATOMIC_RELAXED);
	if (win != (in_use ? in_use - 1 : 0))
		__atomic_fetch_add(&s->switches, 1, __ATOMIC_RELAXED);
}

void ntm_learn_end(const struct learn_ticket *t, const struct learn_band *b,
		   size_t n, uint64_t ns)
{
	struct learn_slot *s = t->slot;
	if (!s)
		return;
	uint64_t mib = n >> 20 ? n >> 20 : 1;
	uint64_t per_mib = ns / mib;
	if (per_mib > SAMPLE_MAX)
		per_mib = SAMPLE_MAX;
	__atomic_store_n(&s->sample[t->side][t->sample],
			 (uint64_t)t->epoch << SAMPLE_SHIFT | per_mib, __ATOMIC_RELAXED);
	/* Count it in its own epoch only: a late sample's trial is over. */
	uint64_t old = __atomic_load_n(&s->tally, __ATOMIC_RELAXED), now;
	do {
		if ((uint32_t)(old >> 32) != t->epoch)
			return;
		now = old + 1;
	} while (!__atomic_compare_exchange_n(&s->tally, &old, now, 1,
					      __ATOMIC_ACQ_REL, __ATOMIC_RELAXED));
	if ((uint32_t)now == (uint32_t)b->nsides * NTM_LEARN_SAMPLES)
		decide(s, b, t->epoch);
}

unsigned ntm_learn_in_use(const struct learn_slot *s, unsigned prior)
{
	unsigned in_use = TRIAL_IN_USE(__atomic_load_n(&s->trial, __ATOMIC_ACQUIRE));
	return in_use ? in_use - 1 : prior;
}

void ntm_learn_state(const struct learn_slot *s, struct learn_state *st)
{
	uint64_t tr = __atomic_load_n(&s->trial, __ATOMIC_ACQUIRE);
	uint64_t calls = __atomic_load_n(&s->calls, __ATOMIC_RELAXED);
	uint32_t pos = (uint32_t)calls - TRIAL_AT(tr);
	st->calls = calls;
	st->trials = __atomic_load_n(&s->trials, __ATOMIC_RELAXED);
	st->switches = __atomic_load_n(&s->switches, __ATOMIC_RELAXED);
	st->decided = (int)TRIAL_IN_USE(tr) - 1;
	st->next_trial_in = pos >= 0x80000000u ? (uint32_t)-pos : 0;
	st->period = 1u << TRIAL_PERIOD_LOG2(tr);
}

/* ------------------------------------------------------------------ */
/* The process's slots, per L3 domain                                 */
/* ------------------------------------------------------------------ */

#define MAX_CPUS 1024

/*
 * One row of slots per L3 domain, claimed the first time a thread on a
 * CPU of that domain learns, not at start-up: which L3 a CPU shares is a
 * sysfs file per CPU, which every program would otherwise pay for as it
 * starts, whether it makes a call that learns or not.  row_key[r] is the
 * L3's id + 2 (1 for a CPU whose L3 sysfs does not name), 0 while free;
 * row_ready[r] is set once the row's slots are started; domain_of[cpu]
 * is the row + 1, 0 until that CPU is looked up.
 */
static struct learn_slot slots[NTM_LEARN_DOMAINS][NTMEM_CLASSES][NTM_LEARN_BANDS];
static long row_key[NTM_LEARN_DOMAINS];
static int row_ready[NTM_LEARN_DOMAINS];
static unsigned char domain_of[MAX_CPUS];

/* The id Linux gives the L3 that CPU cpu shares, or -1: the path and the
 * number by hand, as this runs inside a call (ntm_read_line's contract). */
static long l3_id(unsigned cpu)
{
	char path[96] = "/sys/devices/system/cpu/cpu", digits[12], text[32];
	size_t n = 0, at = strlen(path);
	do
		digits[n++] = (char)('0' + cpu % 10);
	while ((cpu /= 10) != 0);
	while (n)
		path[at++] = digits[--n];
	memcpy(path + at, "/cache/index3/id", sizeof "/cache/index3/id");
	if (ntm_read_line(path, text, sizeof text) || text[0] < '0' || text[0] > '9')
		return -1;
	long id = 0;
	for (const char *c = text; *c >= '0' && *c <= '9' && id < (1L << 40); c++)
		id = id * 10 + (*c - '0');
	return id;
}

static void start_row(unsigned r, unsigned after)
{
	for (int cls = 0; cls < NTMEM_CLASSES; cls++)
		for (unsigned k = 0; k < NTM_LEARN_BANDS; k++)
			ntm_learn_init(&slots[r][cls][k], after);
	__atomic_store_n(&row_ready[r], 1, __ATOMIC_RELEASE);
}

/* The row of the L3 whose key is key: the one claimed for it, else a
 * free one, claimed and started here; with more L3s than rows, the
 * extra ones share, round robin. */
static unsigned claim_row(long key, unsigned after)
{
	for (unsigned r = 0; r < NTM_LEARN_DOMAINS; r++) {
		long cur = __atomic_load_n(&row_key[r], __ATOMIC_ACQUIRE);
		if (cur == 0 && __atomic_compare_exchange_n(&row_key[r], &cur, key, 0,
							    __ATOMIC_ACQ_REL,
							    __ATOMIC_ACQUIRE)) {
			start_row(r, after);
			return r;
		}
		if (cur == key)  /* claimed for it, here or by a racing thread */
			return r;
	}
	return (unsigned)(key % NTM_LEARN_DOMAINS);
}

struct learn_slot *ntm_learn_slot(int cls, unsigned k, unsigned after)
{
	int cpu = sched_getcpu();
	int known = cpu >= 0 && cpu < MAX_CPUS;
	unsigned d = known ? __atomic_load_n(&domain_of[cpu], __ATOMIC_RELAXED) : 0;
	if (d == 0) {
		int saved = errno;
		d = claim_row(known ? l3_id((unsigned)cpu) + 2 : 1, after) + 1;
		if (known)
			__atomic_store_n(&domain_of[cpu], (unsigned char)d, __ATOMIC_RELAXED);
		errno = saved;
	}
	/* A row another thread is starting: this call does not learn. */
	if (!__atomic_load_n(&row_ready[d - 1], __ATOMIC_ACQUIRE))
		return NULL;
	return &slots[d - 1][cls][k];
}

/* The online CPUs, into on (MAX_CPUS); CPU 0 alone where sysfs says
 * nothing. */
static void online_cpus(unsigned char *on)
{
	char list[1024];
	if (ntm_read_line("/sys/devices/system/cpu/online", list, sizeof list) ||
	    ntm_parse_cpu_list(list, on, MAX_CPUS)) {
		memset(on, 0, MAX_CPUS);
		on[0] = 1;
	}
}

unsigned ntm_learn_domains(void)
{
	int saved = errno;
	unsigned char on[MAX_CPUS];
	long seen[NTM_LEARN_DOMAINS];
	unsigned nseen = 0;
	online_cpus(on);
	for (unsigned cpu = 0; cpu < MAX_CPUS && nseen < NTM_LEARN_DOMAINS; cpu++) {
		long key = on[cpu] ? l3_id(cpu) + 2 : 0;
		unsigned d = 0;
		while (key && d < nseen && seen[d] != key)
			d++;
		if (key && d == nseen)
			seen[nseen++] = key;
	}
	errno = saved;
	return nseen ? nseen : 1;
}

void ntm_learn_domains_init(unsigned after)
{
	int saved = errno;
	unsigned char on[MAX_CPUS];
	online_cpus(on);
	for (unsigned cpu = 0; cpu < MAX_CPUS; cpu++)
		if (on[cpu])
			domain_of[cpu] = (unsigned char)(claim_row(l3_id(cpu) + 2, after) + 1);
	for (unsigned r = 0; r < NTM_LEARN_DOMAINS; r++)
		if (__atomic_load_n(&row_key[r], __ATOMIC_ACQUIRE))
			start_row(r, after);
	errno = saved;
}
