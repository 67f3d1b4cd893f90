/* calibrate_report.c - what "ntmem calibrate" found: the ladders in
 * words, the table behind each, JSON, and the profile. */
#define _GNU_SOURCE
#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <time.h>

#include "calibrate.h"
#include "introspect.h"
#include "output/json.h"
#include "util/outfile.h"
#include "util/size.h"

static const char *const class_keys[3] = {"set_zero", "set_nonzero", "copy"};

int cal_check_output(const char *path, struct cli_error *e)
{
	struct ntm_outfile out;
	if (ntm_outfile_prepare(&out, path, NTM_OUTFILE_MKDIR))
		return cli_error(e, CLI_USAGE, "cannot write the profile '%s': %s",
				 path, ntm_outfile_reason(&out));
	return 0;
}

static const char *rung_name(const struct cal_class *k, unsigned r)
{
	return k->cands[k->fit.rungs[r].cand].name;
}

void cal_words(const struct cal_class *k, char *buf, size_t len)
{
	size_t used = 0;
	char s[32];
	buf[0] = '\0';
	for (unsigned r = 0; r < k->fit.count && used < len; r++) {
		const struct fit_rung *g = &k->fit.rungs[r];
		int streams = (int)g->cand == k->streaming;
		const char *lead = r == 0 ? "" : streams ? ", streams" : ", then";
		size_t from = r ? k->fit.rungs[r - 1].to : 0;
		ntm_format_size(from, s, sizeof s);
		if (streams && r)
			used += (size_t)snprintf(buf + used, len - used,
						 "%s from %s (%s)", lead, s, rung_name(k, r));
		else if (streams)
			used += (size_t)snprintf(buf + used, len - used,
						 "streams at every size (%s)",
						 rung_name(k, r));
		else
			used += (size_t)snprintf(buf + used, len - used, "%s%s%s",
						 lead, r ? " " : "", rung_name(k, r));
		if (!streams && g->to != SIZE_MAX && used < len)
			used += (size_t)snprintf(buf + used, len - used, " up to %s",
						 ntm_format_size(g->to, s, sizeof s));
	}
}

/* The ladder as profiles and NTMEM_TUNABLES write it. */
static void ladder_text(const struct cal_class *k, char *buf, size_t len)
{
	size_t used = 0;
	for (unsigned r = 0; r < k->fit.count && used < len; r++) {
		const struct fit_rung *g = &k->fit.rungs[r];
		used += (size_t)(g->to == SIZE_MAX
					 ? snprintf(buf + used, len - used, "%s",
						    rung_name(k, r))
					 : snprintf(buf + used, len - used, "%s:%zu,",
						    rung_name(k, r), g->to));
	}
}

int cal_write_profile(const struct cal_options *o, const struct cal_class *k,
		      const char *path, struct cli_error *e)
{
	struct profile p;
	ntm_profile_init(&p, ntm_cpu());
	char comment[1024], when[64];
	time_t now = time(NULL);
	strftime(when, sizeof when, "%Y-%m-%d %H:%M:%S UTC", gmtime(&now));
	size_t len = (size_t)snprintf(comment, sizeof comment,
				      "calibrated %s (%s effort, %.0f s)", when,
				      o->effort->name, o->seconds);
	for (int cls = 0; cls < 3; cls++) {
		struct profile_ladder *pl = &p.ladder[cls];
		ladder_text(&k[cls], pl->rungs, sizeof pl->rungs);
		if (k[cls].streaming >= 0)
			snprintf(pl->streaming, sizeof pl->streaming, "%s",
				 k[cls].cands[k[cls].streaming].name);
		char words[256];
		cal_words(&k[cls], words, sizeof words);
		if (len < sizeof comment)
			len += (size_t)snprintf(comment + len, sizeof comment - len,
						"\n%s: %s", k[cls].label, words);
	}
	p.min_chunk = o->parallel.min_chunk;
	if (ntm_profile_write(path, &p, comment, o->system ? NTM_PROFILE_SHARED : 0))
		return cli_error(e, CLI_FAILED, "cannot write the profile '%s': %s",
				 path, strerror(errno));
	return 0;
}

/* The best and second-best measured candidates at a point. */
static void top_two(const struct cal_class *k, const struct fit_point *p,
		    int *first, int *second)
{
	*first = *second = -1;
	for (size_t c = 0; c < k->ncands; c++) {
		if (!p->measured[c])
			continue;
		if (*first < 0 || p->gbps[c] > p->gbps[*first]) {
			*second = *first;
			*first = (int)c;
		} else if (*second < 0 || p->gbps[c] > p->gbps[*second]) {
			*second = (int)c;
		}
	}
}

/* The rung that serves grid point i (not one of the small path's). */
static unsigned rung_at(const struct cal_class *k, size_t i)
{
	unsigned r = 0;
	while (r + 1 < k->fit.count && k->fit.rungs[r].last + k->nsmall < i)
		r++;
	return r;
}

void cal_rung_confidence(const struct cal_class *k, unsigned r,
			 struct cal_confidence *c)
{
	const struct fit_rung *g = &k->fit.rungs[r];
	memset(c, 0, sizeof *c);
	c->lead = 1e9;
	for (size_t i = g->first; i <= g->last; i++) {
		const struct fit_point *p = &k->points[k->nsmall + i];
		int rival = -1;
		for (size_t o = 0; o < k->ncands; o++)
			if (o != g->cand && p->measured[o] &&
			    (rival < 0 || p->gbps[o] > p->gbps[rival]))
				rival = (int)o;
		if (rival < 0 || !p->measured[g->cand])
			continue;
		double lead = p->gbps[g->cand] / p->gbps[rival];
		if (lead < c->lead) {
			c->lead = lead;
			c->rival = k->cands[rival].name;
			c->wins = p->wins[g->cand];
			c->rounds = p->rounds;
		}
	}
}

/* Each rung's confidence in a line, and a ladder that goes A, B, A with
 * B only tied within noise said to zig-zag. */
static void print_confidence(const struct cal_class *k)
{
	char s[32], t[32];
	for (unsigned r = 0; r < k->fit.count; r++) {
		struct cal_confidence c;
		cal_rung_confidence(k, r, &c);
		size_t to = k->fit.rungs[r].to;
		snprintf(t, sizeof t, "%s %s", to == SIZE_MAX ? "from" : "up to",
			 ntm_format_size(to == SIZE_MAX && r ? k->fit.rungs[r - 1].to : to,
					 s, sizeof s));
		printf("  %s %-11s %-15s ", r ? "    " : "rung", rung_name(k, r),
		       to == SIZE_MAX && !r ? "at every size" : t);
		if (!c.rival)
			printf("no other candidate measured\n");
		else if (c.lead >= 1 + MARGIN)
			printf("clear, at least %.2fx %s (won %ld of %ld rounds there)\n",
			       c.lead, c.rival, c.wins, c.rounds);
		else if (c.lead >= 1 - MARGIN)
			printf("tied within noise with %s (%.2fx, won %ld of %ld rounds)\n",
			       c.rival, c.lead, c.wins, c.rounds);
		else
			printf("behind %s at one size (%.2fx, won %ld of %ld rounds): "
			       "kept where the rounds could not decide\n", c.rival,
			       c.lead, c.wins, c.rounds);
		if (r && r + 1 < k->fit.count &&
		    k->fit.rungs[r - 1].cand == k->fit.rungs[r + 1].cand &&
		    c.lead < 1 + MARGIN)
			printf("  note: the ladder zig-zags within noise: %s, %s, %s; "
			       "%s alone would serve as well\n", rung_name(k, r - 1),
			       rung_name(k, r), rung_name(k, r - 1), rung_name(k, r - 1));
	}
	if (!k->nundecided)
		return;
	printf("  too noisy to decide at");
	for (size_t i = 0; i < k->nundecided; i++)
		printf("%s %s", i ? "," : "",
		       ntm_format_size(k->points[k->undecided[i]].size, s, sizeof s));
	printf(" (the rounds disagreed even at twice the runs): the built-in "
	       "ladder's choice counted as tied there\n");
}

static void print_class(const struct cal_class *k)
{
	char words[256], s[32];
	cal_words(k, words, sizeof words);
	printf("\n%s: %s\n", k->label, words);
	if (k->npicked) {
		int ladder_streams = 0;
		for (unsigned r = 0; r < k->fit.count; r++)
			ladder_streams |= (int)k->fit.rungs[r].cand == k->streaming;
		printf("  streaming variants at %s (GB/s):",
		       ntm_format_size(k->pick.size, s, sizeof s));
		for (size_t i = 0; i < k->npicked; i++)
			printf(" %s %.2f%s", k->picked[i].name, k->pick.gbps[i],
			       strcmp(k->picked[i].name, k->cands[k->streaming].name)
				       ? "" : ladder_streams ? " (chosen)"
				       : " (chosen for NTMEM_F_NONTEMPORAL: the ladder "
					 "itself never streams)");
		printf("\n");
	}
	print_confidence(k);
	printf("  %10s  %-11s %7s  %-11s %7s  %-11s %s\n", "size", "best", "GB/s",
	       "next", "ratio", "ladder", "its ratio");
	for (size_t i = 0; i < k->npoints; i++) {
		const struct fit_point *p = &k->points[i];
		int a, b;
		top_two(k, p, &a, &b);
		printf("  %10s  %-11s %7.2f  ", ntm_format_size(p->size, s, sizeof s),
		       k->cands[a].name, p->gbps[a]);
		if (b >= 0)
			printf("%-11s %6.2fx  ", k->cands[b].name, p->gbps[a] / p->gbps[b]);
		else
			printf("%-20s ", "no other candidate");
		if (i < k->nsmall) {
			printf("(small path)\n");
			continue;
		}
		size_t c = k->fit.rungs[rung_at(k, i)].cand;
		printf("%-11s %.2f\n", k->cands[c].name,
		       p->measured[c] ? p->ratio[c] : 0.0);
	}
	for (size_t i = 0; i < k->nrefined; i++) {
		const struct cal_refinement *f = &k->refined[i];
		printf("  edge %s/%s, tried at %s: %.2f against %.2f GB/s\n",
		       rung_name(k, f->rung), rung_name(k, f->rung + 1),
		       ntm_format_size(f->size, s, sizeof s), f->below, f->above);
	}
	if (k->fit.margin > MARGIN + 1e-9)
		printf("  (the margin was widened to %.0f%% to fit %d rungs)\n",
		       k->fit.margin * 100, NTMEM_LADDER_MAX);
}

static void print_parallel(const struct cal_parallel *r)
{
	char s[32], t[32];
	if (r->skipped) {
		printf("\nparallel memset: not measured: %s\n", r->skipped);
		return;
	}
	if (r->min_chunk)
		printf("\nparallel memset on %u threads: pays from %s (%s a thread)\n",
		       r->threads,
		       ntm_format_size(r->min_chunk * r->threads, s, sizeof s),
		       ntm_format_size(r->min_chunk, t, sizeof t));
	else if (r->n)
		/* The setting is a size from which a split pays: one that pays
		 * only inside the cache, as two threads often do, has none. */
		printf("\nparallel memset on %u threads: no size from which it "
		       "pays 1.1x up to %s (%.2fx there); the built-in least "
		       "bytes a thread stays\n", r->threads,
		       ntm_format_size(r->sizes[r->n - 1], s, sizeof s),
		       r->ratio[r->n - 1]);
	else
		printf("\nparallel memset on %u threads: no size measured\n",
		       r->threads);
	printf("  %10s %9s %9s %7s\n", "size", "1 thread", "parallel", "ratio");
	for (size_t i = 0; i < r->n; i++)
		printf("  %10s %9.2f %9.2f %6.2fx\n",
		       ntm_format_size(r->sizes[i], s, sizeof s), r->serial[i],
		       r->parallel[i], r->ratio[i]);
}

/* For programs that cannot be preloaded: glibc streams its memcpy above
 * glibc.cpu.x86_non_temporal_threshold (x86-64), so the tunable nearest
 * the measured memcpy ladder is its first streaming size, within the
 * range glibc takes (0x4040 up to SIZE_MAX >> 4). */
static void print_glibc_tunable(const struct cal_class *copy)
{
#if defined(__x86_64__)
	size_t from = SIZE_MAX;
	for (unsigned r = 0; r < copy->fit.count && from == SIZE_MAX; r++)
		if ((int)copy->fit.rungs[r].cand == copy->streaming)
			from = r ? copy->fit.rungs[r - 1].to : 0;
	size_t most = SIZE_MAX >> 4, least = 0x4040;
	size_t value = from == SIZE_MAX ? most : from < least ? least : from;
	char s[32];
	printf("\nFor programs that cannot be preloaded, glibc's memcpy comes "
	       "closest with\n  GLIBC_TUNABLES=glibc.cpu.x86_non_temporal_threshold=%#zx",
	       value);
	if (from == SIZE_MAX)
		printf("  (memcpy never streams here: the most glibc takes)\n");
	else
		printf("  (memcpy streams from %s here)\n",
		       ntm_format_size(value, s, sizeof s));
#else
	(void)copy;
#endif
}

static void print_text(const struct cal_options *o, const struct cal_class *k,
		       const char *path, int written)
{
	const struct cpu *cpu = ntm_cpu();
	printf("ntmem calibrate (%s effort, %.0f s): %s, %u online CPUs, pinned "
	       "to CPU %d\n", o->effort->name, o->seconds,
	       cpu->brand[0] ? cpu->brand : "unknown CPU", cpu->online_cpus, o->cpu);
	printf("Each size: medians of %ld interleaved runs; 'ratio' is the best "
	       "over the next, 'its ratio' the ladder's choice against the best "
	       "(paired); within %.0f%% is a tie.\n", o->effort->rounds,
	       MARGIN * 100);
	for (int cls = 0; cls < 3; cls++)
		print_class(&k[cls]);
	print_parallel(&o->parallel);
	printf("\nVerdict:");
	for (int cls = 0; cls < 3; cls++) {
		char words[256];
		cal_words(&k[cls], words, sizeof words);
		printf("%s %s: %s", cls ? ";" : "", k[cls].label, words);
	}
	print_glibc_tunable(&k[NTMEM_CLASS_COPY]);
	printf("\n%s%s\n", written ? "Profile written to " : "Dry run: no profile written",
	       written ? path : "");
}

static void json_point(struct json *j, const struct fit_point *p, size_t n,
		       const struct fn *names)
{
	json_object(j, NULL);
	json_uint(j, "size", p->size);
	json_array(j, "results");
	for (size_t c = 0; c < n; c++) {
		if (!p->measured[c])
			continue;
		json_object(j, NULL);
		json_string(j, "variant", names[c].name);
		json_double(j, "gbps_median", p->gbps[c]);
		json_double(j, "ratio_to_best", p->ratio[c]);
		json_end(j);
	}
	json_end(j);
	json_end(j);
}

static void json_class(struct json *j, const struct cal_class *k)
{
	char words[256], ladder[512];
	cal_words(k, words, sizeof words);
	ladder_text(k, ladder, sizeof ladder);
	json_object(j, NULL);
	json_string(j, "class", class_keys[k->cls]);
	json_string(j, "label", k->label);
	json_uint(j, "value", (uint64_t)k->value);
	json_string(j, "ladder", ladder);
	json_string(j, "words", words);
	json_double(j, "margin", k->fit.margin);
	json_array(j, "rungs");
	for (unsigned r = 0; r < k->fit.count; r++) {
		json_object(j, NULL);
		json_string(j, "variant", rung_name(k, r));
		json_uint(j, "from", r ? k->fit.rungs[r - 1].to : 0);
		if (k->fit.rungs[r].to == SIZE_MAX)
			json_null(j, "to");
		else
			json_uint(j, "to", k->fit.rungs[r].to);
		struct cal_confidence c;
		cal_rung_confidence(k, r, &c);
		json_object(j, "confidence");
		if (c.rival) {
			json_string(j, "rival", c.rival);
			json_double(j, "lead", c.lead);
			json_uint(j, "wins", (uint64_t)c.wins);
			json_uint(j, "rounds", (uint64_t)c.rounds);
			json_string(j, "verdict", c.lead >= 1 + MARGIN ? "clear"
						  : c.lead >= 1 - MARGIN ? "tie" : "undecided");
		} else {
			json_null(j, "rival");
			json_string(j, "verdict", "no other candidate");
		}
		json_end(j);
		json_end(j);
	}
	json_end(j);
	json_string(j, "streaming", k->streaming >= 0 ? k->cands[k->streaming].name
						      : NULL);
	json_array(j, "streaming_pick");
	if (k->npicked)
		json_point(j, &k->pick, k->npicked, k->picked);
	json_end(j);
	json_array(j, "points");
	for (size_t i = 0; i < k->npoints; i++)
		json_point(j, &k->points[i], k->ncands, k->cands);
	json_end(j);
	json_array(j, "refinements");
	for (size_t i = 0; i < k->nrefined; i++) {
		const struct cal_refinement *f = &k->refined[i];
		json_object(j, NULL);
		json_string(j, "below", rung_name(k, f->rung));
		json_string(j, "above", rung_name(k, f->rung + 1));
		json_uint(j, "size", f->size);
		json_double(j, "below_gbps", f->below);
		json_double(j, "above_gbps", f->above);
		json_end(j);
	}
	json_end(j);
	json_end(j);
}

void cal_report(const struct cal_options *o, const struct cal_class *k,
		const char *path, int written)
{
	if (!o->json) {
		print_text(o, k, path, written);
		return;
	}
	struct json j;
	json_start(&j, stdout);
	json_string(&j, "command", "calibrate");
	json_string(&j, "effort", o->effort->name);
	json_int(&j, "cpu", o->cpu);
	json_double(&j, "seconds", o->seconds);
	json_array(&j, "classes");
	for (int cls = 0; cls < 3; cls++)
		json_class(&j, &k[cls]);
	json_end(&j);
	json_object(&j, "parallel");
	json_uint(&j, "threads", o->parallel.threads);
	json_string(&j, "skipped", o->parallel.skipped);
	if (o->parallel.min_chunk)
		json_uint(&j, "min_chunk", o->parallel.min_chunk);
	else
		json_null(&j, "min_chunk");
	json_array(&j, "points");
	for (size_t i = 0; i < o->parallel.n; i++) {
		json_object(&j, NULL);
		json_uint(&j, "size", o->parallel.sizes[i]);
		json_double(&j, "serial_gbps", o->parallel.serial[i]);
		json_double(&j, "parallel_gbps", o->parallel.parallel[i]);
		json_double(&j, "ratio", o->parallel.ratio[i]);
		json_end(&j);
	}
	json_end(&j);
	json_end(&j);
	json_string(&j, "profile", path);
	json_bool(&j, "written", written);
	json_finish(&j);
}
