/* bench_mix_report.c - what "ntmem bench --mix" measured, as a table or
 * JSON, and the list of bundled distributions (--mix help). */
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include "bench_mix.h"
#include "output/json.h"
#include "util/size.h"

static const char *op_name(enum ntmem_op op)
{
	return op == NTMEM_OP_SET ? "memset" : "memcpy";
}

void bench_mix_list(enum ntmem_op op)
{
	const struct sizedist_bundled *b[BENCH_MAX_MIXES];
	size_t n = sizedist_bundled_list(op, b, BENCH_MAX_MIXES);
	printf("Size distributions for %s (--mix NAME; 'all' runs each):\n",
	       op_name(op));
	for (size_t i = 0; i < n; i++) {
		struct sizedist d;
		struct cli_error e;
		char mean[32] = "?";
		if (!sizedist_load(b[i]->name, op, &d, &e)) {
			static struct mix_seq s;
			sizedist_draw(&d, &s);
			snprintf(mean, sizeof mean, "%.1f B", (double)s.bytes / MIX_CALLS);
			sizedist_free(&d);
		}
		printf("  %-9s Google fleet, %-11s mean size %s\n", b[i]->name,
		       b[i]->description, mean);
	}
	printf("From the automemcpy paper (ISMM 2021), as llvm-project's libc\n"
	       "benchmarks keep them; Apache-2.0 WITH LLVM-exception.\n"
	       "--mix FILE reads a CSV of the same form (one line: the probability\n"
	       "of size 0, of size 1, ...) or the JSON of 'ntmem run --report-json'.\n");
}

static double mean_size(const struct bench_mix *mix)
{
	return (double)mix->seq.bytes / MIX_CALLS;
}

void bench_mix_print_table(const struct bench_opts *o,
			   const struct bench_mixes *m, const struct machine *mc)
{
	const char *base = o->fns[o->baseline].name;
	char calls[64], buf[32];
	if (o->loops)
		snprintf(calls, sizeof calls, "%ld pass%s", o->loops,
			 o->loops == 1 ? "" : "es");
	else
		snprintf(calls, sizeof calls, "passes for about 20 ms");
	printf("# ntmem bench %s --mix: time per call and GB/s (10^9 bytes/s), "
	       "medians of %ld interleaved run%s (%s each)\n", op_name(o->op),
	       o->runs, o->runs == 1 ? "" : "s", calls);
	printf("# cpu       %s, %u online, pinned to CPU %d\n", mc->cpu,
	       mc->online_cpus, o->cpu);
	char value[48];
	if (o->value < 0)
		snprintf(value, sizeof value, "a source of random bytes");
	else
		snprintf(value, sizeof value, "%s 0x%02x", o->op == NTMEM_OP_SET
			 ? "writing" : "a source of bytes", o->value);
	printf("# sequence  %d calls of sizes drawn from the distribution (seed "
	       "%#llx), the same for every function; %s\n", MIX_CALLS,
	       (unsigned long long)MIX_SEED, value);
	printf("# baseline  %s; 'x %s': time per call over %s's, the median of "
	       "the per-run ratios\n", base, base, base);
	for (size_t i = 0; i < m->n; i++) {
		const struct bench_mix *mix = &m->mix[i];
		printf("\n# %s: %s%s%s, mean size %.1f B, buffers of %s\n",
		       mix->dist.name, mix->dist.source,
		       mix->dist.workload ? ", " : "",
		       mix->dist.workload ? mix->dist.workload : "", mean_size(mix),
		       ntm_format_size(mix->seq.buffer, buf, sizeof buf));
		char x[32];
		snprintf(x, sizeof x, "x %s", base);
		printf("%-14s %10s %9s %10s %7s\n", "function", "ns/call", "GB/s", x,
		       "faster");
		for (size_t k = 0; k < mix->nresults; k++) {
			const struct bench_mix_result *r = &mix->results[k];
			char ratio[16] = "-", wins[16] = "";
			if ((long)k != o->baseline) {
				snprintf(ratio, sizeof ratio, "%.3f", r->ratio);
				snprintf(wins, sizeof wins, "%ld/%ld", r->wins, o->runs);
			}
			printf("%-14s %10.2f %9.2f %10s %7s\n", r->fn->name,
			       r->ns.median, r->gbps.median, ratio, wins);
		}
	}
	bench_print_function_key(o, stdout);
	for (size_t i = 0; i < o->nskipped; i++)
		printf("%s# skipped %s: %s\n", i ? "" : "\n", o->skipped[i].what,
		       o->skipped[i].why);
}

static void result_json(struct json *j, const struct bench_opts *o,
			const struct bench_mix *mix,
			const struct bench_mix_result *r)
{
	json_object(j, NULL);
	json_string(j, "op", op_name(o->op));
	json_string(j, "mix", mix->dist.name);
	json_string(j, "function", r->fn->name);
	json_uint(j, "calls", MIX_CALLS);
	json_double(j, "mean_size", mean_size(mix));
	json_uint(j, "runs", (uint64_t)o->runs);
	json_uint(j, "loops", (uint64_t)r->loops);
	json_double(j, "ns_per_call_median", r->ns.median);
	json_double(j, "ns_per_call_mean", r->ns.mean);
	json_double(j, "ns_per_call_min", r->ns.min);
	json_double(j, "ns_per_call_max", r->ns.max);
	json_double(j, "gbps_median", r->gbps.median);
	json_double(j, "gbps_min", r->gbps.min);
	json_double(j, "gbps_max", r->gbps.max);
	json_double(j, "ratio_to_baseline", r->ratio);
	json_uint(j, "runs_faster_than_baseline", (uint64_t)r->wins);
	json_end(j);
}

static void mixes_json(struct json *j, const struct bench_mixes *m)
{
	json_array(j, "mixes");
	for (size_t i = 0; i < m->n; i++) {
		const struct bench_mix *mix = &m->mix[i];
		json_object(j, NULL);
		json_string(j, "name", mix->dist.name);
		json_string(j, "source", mix->dist.source);
		if (mix->dist.workload)
			json_string(j, "workload", mix->dist.workload);
		json_double(j, "mean_size", mean_size(mix));
		json_uint(j, "max_size", mix->dist.max_size);
		json_uint(j, "buffer", mix->seq.buffer);
		json_end(j);
	}
	json_end(j);
}

void bench_mix_print_json(const struct bench_opts *o,
			  const struct bench_mixes *m, const struct machine *mc)
{
	struct json j;
	json_start(&j, stdout);
	json_string(&j, "command", "bench");
	json_string(&j, "op", op_name(o->op));
	json_string(&j, "version", ntmem_version());
	json_object(&j, "machine");
	machine_json_members(&j, mc);
	json_end(&j);
	json_object(&j, "settings");
	json_string(&j, "mode", "mix");
	json_uint(&j, "runs", (uint64_t)o->runs);
	if (o->loops)
		json_uint(&j, "loops", (uint64_t)o->loops);
	else
		json_string(&j, "loops", "auto");
	json_uint(&j, "calls", MIX_CALLS);
	json_uint(&j, "seed", MIX_SEED);
	if (o->value < 0)
		json_null(&j, "value");
	else
		json_uint(&j, "value", (uint64_t)o->value);
	json_string(&j, "baseline", o->fns[o->baseline].name);
	json_int(&j, "cpu", o->cpu);
	json_end(&j);
	mixes_json(&j, m);
	json_array(&j, "results");
	for (size_t i = 0; i < m->n; i++)
		for (size_t k = 0; k < m->mix[i].nresults; k++)
			result_json(&j, o, &m->mix[i], &m->mix[i].results[k]);
	json_end(&j);
	bench_skipped_json(&j, o);
	json_finish(&j);
}
