/* bench_report.c - what "ntmem bench" measured, as a table in the style
 * of perf bench mem, JSON or CSV (the plot: bench_plot.c); and its list of
 * functions. */
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include "bench.h"
#include "output/json.h"
#include "util/size.h"

void bench_list_functions(enum ntmem_op op)
{
	struct fn fns[FN_MAX];
	size_t n = fn_list_peers(op, fns, fn_list(op, fns, FN_MAX), FN_MAX);
	printf("Functions for %s:\n", op == NTMEM_OP_SET ? "memset" : "memcpy");
	for (size_t i = 0; i < n; i++) {
		const char *kind = fns[i].kind == FN_VARIANT || fns[i].streaming
					   ? (fns[i].streaming ? "streaming" : "cached")
					   : "by size";
		printf("  %-14s %-9s %s%s%s%s\n", fns[i].name, kind,
		       fns[i].description, fns[i].supported ? "" : " [skipped: ",
		       fns[i].supported ? "" : fns[i].why_unsupported,
		       fns[i].supported ? "" : "]");
	}
}

static const char *op_name(const struct bench_opts *o)
{
	return o->op == NTMEM_OP_SET ? "memset" : "memcpy";
}

static const char *streams_text(int s)
{
	return s < 0 ? "?" : s ? "yes" : "no";
}

const char *bench_pages_obtained(const struct bench_opts *o)
{
	for (size_t i = 1; i < o->nresults; i++)
		if (strcmp(o->results[i].pages, o->results[0].pages))
			return "varies by size (see the pages column)";
	return o->nresults ? o->results[0].pages : "none (nothing ran)";
}

/* The calls auto learned on before it was timed, per --learned. */
static unsigned long learned_calls(const struct bench_opts *o, size_t *from)
{
	int value = o->value < 0 ? 0 : o->value;
	for (size_t i = 0; o->learned && i < o->nsizes; i++) {
		unsigned long n = bench_learn_calls(o->op, value, o->sizes[i]);
		if (n) {
			*from = o->sizes[i];
			return n;
		}
	}
	return 0;
}

static void print_learned(const struct bench_opts *o)
{
	size_t from = 0;
	char s[32];
	unsigned long n = learned_calls(o, &from);
	if (o->learned && n)
		printf("# learned   auto: %lu untimed calls first at each size it learns "
		       "at (from %s here): those the ladder serves before the first "
		       "trial, and one trial\n", n, ntm_format_size(from, s, sizeof s));
	else if (o->learned)
		printf("# learned   auto: no size here learns (below 1 MiB, adapt=0, or "
		       "no rival)\n");
}

/* Names such as safe_unblocked say little to someone who has not read
 * ntmem(3): the tables say what each function is. */
void bench_print_function_key(const struct bench_opts *o, FILE *f)
{
	fprintf(f, "\n# functions (ntmem bench %s -f help lists every one):\n",
		op_name(o));
	for (size_t i = 0; i < o->nfns; i++) {
		char lead[32];
		snprintf(lead, sizeof lead, "#   %-14s ", o->fns[i].name);
		bench_put_wrapped(f, lead, (int)strlen(lead), o->fns[i].description);
	}
}

void bench_print_table(const struct bench_opts *o, const struct machine *m)
{
	char value[64], chunk[32], s[32];
	bench_value_text(o, value, sizeof value);
	char calls[64];
	if (o->loops)
		snprintf(calls, sizeof calls, "%ld call%s", o->loops,
			 o->loops == 1 ? "" : "s");
	else
		snprintf(calls, sizeof calls, "%s", "calls for about 20 ms");
	char runs[64];
	if (o->runs == 1)
		snprintf(runs, sizeof runs, "of 1 run (a stdev needs two: n/a)");
	else
		snprintf(runs, sizeof runs, "mean and sample stdev of %ld runs", o->runs);
	printf("# ntmem bench %s: GB/s (10^9 bytes/s), %s (%s each, after an "
	       "eighth as many untimed, and at least twice the last-level "
	       "cache)\n", op_name(o), runs, calls);
	printf("# cpu       %s, %u online, pinned to CPU %d\n", m->cpu,
	       m->online_cpus, o->cpu);
	printf("# kernel    %s, THP %s\n", m->kernel, m->thp);
	printf("# pages     %s requested, %s\n", page_request_text(o->pages),
	       bench_pages_obtained(o));
	printf("# value     %s\n", value);
	if (o->chunk)
		printf("# chunk     %s per call\n",
		       ntm_format_size(o->chunk, chunk, sizeof chunk));
	printf("# baseline  %s\n", o->fns[o->baseline].name);
	print_learned(o);
	printf("\n");

	int varied = strstr(bench_pages_obtained(o), "varies") != NULL;
	int threaded = o->nthreads > 1 || o->threads[0] > 1;
	if (threaded)
		printf("# threads   auto: NTMEM_F_PARALLEL calls; the others: the "
		       "extent split over pinned threads; diff against the baseline "
		       "on as many threads\n\n");
	printf("%10s  %-14s %s%-4s %9s  %-10s %9s%s\n", "size", "function",
	       threaded ? "thr " : "", "NT", "GB/s", "(stdev)", "diff",
	       varied ? "  pages" : "");
	size_t last = SIZE_MAX;
	int any_noisy = 0;
	for (size_t i = 0; i < o->nresults; i++) {
		const struct bench_result *r = &o->results[i];
		if (r->size != last && last != SIZE_MAX)
			printf("\n");
		char diff[32];
		if (r->fn == &o->fns[o->baseline])
			snprintf(diff, sizeof diff, "-");
		else
			snprintf(diff, sizeof diff, "%+.2f%%", r->diff_pct);
		char thr[16] = "";
		if (threaded)
			snprintf(thr, sizeof thr, "%-3u ", r->threads);
		int noisy = stats_noisy(&r->stats);
		char sd[16];
		any_noisy |= noisy;
		if (isnan(r->stats.stdev))
			snprintf(sd, sizeof sd, "%5s", "n/a");
		else
			snprintf(sd, sizeof sd, "%5.2f", r->stats.stdev);
		printf("%10s  %-14s %s%-4s %9.2f%c (+- %s) %9s%s%s\n",
		       r->size != last ? ntm_format_size(r->size, s, sizeof s) : "",
		       r->fn->name, thr, streams_text(r->nontemporal), r->stats.mean,
		       noisy ? '~' : ' ', sd, diff, varied ? "  " : "",
		       varied ? r->pages : "");
		last = r->size;
	}
	if (any_noisy)
		printf("\n# ~ noisy: the runs' stdev is over %.0f%% of their median, so a\n"
		       "#   difference of that order may be chance: run again, or with "
		       "more --runs\n", NOISE_LIMIT * 100);
	bench_print_function_key(o, stdout);
	for (size_t i = 0; i < o->nskipped; i++)
		printf("%s# skipped %s: %s\n", i ? "" : "\n", o->skipped[i].what,
		       o->skipped[i].why);
	bench_print_summary(o, stdout);
}

void bench_skipped_json(struct json *j, const struct bench_opts *o)
{
	json_array(j, "skipped");
	for (size_t i = 0; i < o->nskipped; i++) {
		json_object(j, NULL);
		json_string(j, "what", o->skipped[i].what);
		json_string(j, "reason", o->skipped[i].why);
		json_end(j);
	}
	json_end(j);
}

void bench_print_json(const struct bench_opts *o, const struct machine *m)
{
	char value[64];
	bench_value_text(o, value, sizeof value);
	struct json j;
	json_start(&j, stdout);
	json_string(&j, "command", "bench");
	json_string(&j, "op", op_name(o));
	json_string(&j, "version", ntmem_version());
	json_object(&j, "machine");
	machine_json_members(&j, m);
	json_end(&j);
	json_object(&j, "settings");
	json_uint(&j, "runs", (uint64_t)o->runs);
	if (o->loops)
		json_uint(&j, "loops", (uint64_t)o->loops);
	else
		json_string(&j, "loops", "auto");
	json_uint(&j, "chunk", o->chunk);
	size_t learned_from = 0;
	json_uint(&j, "learned_calls", learned_calls(o, &learned_from));
	json_string(&j, "page_request", page_request_name(o->pages));
	json_string(&j, "pages_obtained", bench_pages_obtained(o));
	if (o->value < 0)
		json_null(&j, "value");
	else
		json_uint(&j, "value", (uint64_t)o->value);
	json_string(&j, "value_text", value);
	json_string(&j, "baseline", o->fns[o->baseline].name);
	json_int(&j, "cpu", o->cpu);
	json_end(&j);
	json_array(&j, "results");
	for (size_t i = 0; i < o->nresults; i++) {
		const struct bench_result *r = &o->results[i];
		json_object(&j, NULL);
		json_string(&j, "op", op_name(o));
		json_string(&j, "function", r->fn->name);
		if (r->nontemporal < 0)
			json_null(&j, "nontemporal");
		else
			json_bool(&j, "nontemporal", r->nontemporal);
		json_uint(&j, "size", r->size);
		json_uint(&j, "threads", r->threads);
		json_uint(&j, "runs", (uint64_t)o->runs);
		json_uint(&j, "loops", (uint64_t)r->loops);
		json_double(&j, "gbps_mean", r->stats.mean);
		json_double(&j, "gbps_stdev", r->stats.stdev);
		json_double(&j, "gbps_median", r->stats.median);
		json_double(&j, "gbps_min", r->stats.min);
		json_double(&j, "gbps_max", r->stats.max);
		json_double(&j, "diff_pct", r->diff_pct);
		json_bool(&j, "noisy", stats_noisy(&r->stats));
		json_string(&j, "pages", r->pages);
		if (r->dispatch)
			json_string(&j, "dispatch", r->dispatch);
		json_end(&j);
	}
	json_end(&j);
	bench_skipped_json(&j, o);
	json_finish(&j);
}

void bench_print_csv(const struct bench_opts *o)
{
	printf("op,function,nontemporal,size,runs,gbps_mean,gbps_stdev,"
	       "gbps_median,gbps_min,gbps_max,diff_pct,pages\n");
	for (size_t i = 0; i < o->nresults; i++) {
		const struct bench_result *r = &o->results[i];
		/* No stdev of one run: an empty field, as JSON's null. */
		char sd[32] = "";
		if (!isnan(r->stats.stdev))
			snprintf(sd, sizeof sd, "%.4f", r->stats.stdev);
		printf("%s,%s,%s,%zu,%ld,%.4f,%s,%.4f,%.4f,%.4f,%.4f,\"%s\"\n",
		       op_name(o), r->fn->name,
		       r->nontemporal < 0 ? "" : r->nontemporal ? "true" : "false",
		       r->size, o->runs, r->stats.mean, sd,
		       r->stats.median, r->stats.min, r->stats.max, r->diff_pct,
		       r->pages);
	}
}
