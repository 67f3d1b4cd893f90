/* test_mix.c - "ntmem bench --mix": the distribution parsers (a bad file
 * is a usage error naming its line and field), the sequence drawn from a
 * distribution against the distribution itself, and the command's
 * output.  Never asserts a timing. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "harness.h"
#include "measure/sizedist.h"

static const char *op_name(enum ntmem_op op)
{
	return op == NTMEM_OP_COPY ? "memcpy" : "memset";
}

/* ------------------------------------------------------------------ */
/* Parsing                                                             */
/* ------------------------------------------------------------------ */

static void test_csv_good(void)
{
	struct sizedist d;
	struct cli_error e;
	const char *text = "0, 0.5,0.25 ,2.5e-1\r\n\n";
	int r = sizedist_parse_csv("t.csv", text, strlen(text), NTMEM_OP_COPY, &d, &e);
	t_check(!r && d.nranges == 3 && d.ranges[0].lo == 1 && d.ranges[0].hi == 1 &&
			d.ranges[0].weight == 0.5 && d.ranges[2].lo == 3 &&
			d.ranges[2].weight == 0.25 && d.total == 1 && d.max_size == 3,
		"mix csv: probabilities per size, zeros left out, blanks and CRLF taken",
		"r %d (%s) nranges %zu total %g", r, r ? e.msg : "", d.nranges, d.total);
	if (!r)
		sizedist_free(&d);
}

static void test_csv_bad(void)
{
	static const struct {
		const char *text, *must_say;
	} cases[] = {
		{"0,0.5,x,0.5", "bad.csv:1: field 3 (size 2): 'x': not a number"},
		{"0,0.5,,0.5", "bad.csv:1: field 3 (size 2): '': empty"},
		{"0.5,-0.25", "bad.csv:1: field 2 (size 1): '-0.25': negative"},
		{"0.5,nan", "field 2 (size 1): 'nan': not a number"},
		{"inf,0.5", "field 1 (size 0): 'inf': not a number"},
		{"0.5,0x10", "field 2 (size 1): '0x10': not a number"},
		{"0.5,1e999", "field 2 (size 1): '1e999': too large"},
		{"0.5,1.2.3", "field 2 (size 1): '1.2.3': not a number"},
		{"0.5,0.5\n0.5\n", "bad.csv:2: a distribution is one line"},
		{"0,0,0\n", "bad.csv:1: every probability is 0"},
		{"", "bad.csv:1: no probabilities"},
		{"0.5,0.5,", "field 3 (size 2): '': empty"},
	};
	for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
		struct sizedist d;
		struct cli_error e = {0};
		char name[160];
		int r = sizedist_parse_csv("bad.csv", cases[i].text,
					   strlen(cases[i].text), NTMEM_OP_SET, &d, &e);
		snprintf(name, sizeof name, "mix csv error: %s", cases[i].must_say);
		t_check(r == -1 && e.status == CLI_USAGE &&
				strstr(e.msg, cases[i].must_say) &&
				!strncmp(e.msg, "--mix: ", 7),
			name, "r %d status %d: %s", r, e.status, e.msg);
	}
}

/* The example report in tests/data: memcpy's and memmove's [16, 32)
 * buckets are one range; memset's family is apart. */
static void test_report_good(void)
{
	const char *path = "tests/data/report-mix.json";
	struct sizedist d;
	struct cli_error e;
	int r = sizedist_load(path, NTMEM_OP_COPY, &d, &e);
	t_check(!r && d.nranges == 3 && d.ranges[0].lo == 0 && d.ranges[0].hi == 0 &&
			d.ranges[0].weight == 10 && d.ranges[1].lo == 16 &&
			d.ranges[1].hi == 31 && d.ranges[1].weight == 160 &&
			d.ranges[2].lo == 1024 && d.ranges[2].hi == 2047 &&
			d.ranges[2].weight == 30 && d.total == 200 &&
			!strcmp(d.source, "ntmem run report"),
		"mix report: the copy family's buckets, by calls, equal ones merged",
		"r %d (%s) nranges %zu", r, r ? e.msg : "", r ? 0 : d.nranges);
	if (!r)
		sizedist_free(&d);
	r = sizedist_load(path, NTMEM_OP_SET, &d, &e);
	t_check(!r && d.nranges == 1 && d.ranges[0].lo == 4096 &&
			d.ranges[0].hi == 8191 && d.ranges[0].weight == 50,
		"mix report: the set family's buckets", "r %d (%s)", r,
		r ? e.msg : "");
	if (!r)
		sizedist_free(&d);
}

static void test_report_bad(void)
{
#define FN(b) "{\"command\": \"run\", \"functions\": [{\"function\": " \
	      "\"memcpy\",\n\"buckets\": [" b "]}]}"
	static const struct {
		const char *text, *must_say;
	} cases[] = {
		{"{\"command\": \"run\",\n\"functions\": [}", "bad.json: not valid "
		 "JSON: line 2: unexpected '}'"},
		{"{\"command\": \"bench\", \"functions\": []}", "bad.json:1: \"command\" "
		 "is not \"run\""},
		{"{\"command\": \"run\"}", "bad.json:1: expected \"functions\""},
		{FN("{\"from\": 8, \"to\": 4, \"calls\": 1}"), "bad.json:2: functions[0]."
		 "buckets[0]: \"to\" (4) must be above \"from\" (8)"},
		{FN("{\"from\": 8, \"to\": 16,\n\"calls\": 1.5}"), "bad.json:3: "
		 "functions[0].buckets[0].calls: expected a whole number"},
		{FN("{\"from\": 8, \"calls\": 1}"), "bad.json:2: functions[0].buckets[0]: "
		 "no \"to\""},
		{FN("{\"from\": 8, \"to\": 16, \"calls\": 1},\n{\"from\": 12, \"to\": 64, "
		    "\"calls\": 1}"), "bad.json:3: the bucket of sizes 12..63 overlaps"},
		{FN("{\"from\": 8, \"to\": 16, \"calls\": 0}"), "no calls of memcpy's "
		 "family"},
		{FN("{\"from\": 0, \"to\": 4294967296, \"calls\": 1}"), "sizes above 1 GiB"},
		{"{\"command\": \"run\", \"functions\": [{\"function\": \"memcpy\"}]}",
		 "functions[0] (memcpy): expected \"buckets\""},
	};
#undef FN
	for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
		struct sizedist d;
		struct cli_error e = {0};
		char name[200];
		int r = sizedist_parse_report("bad.json", cases[i].text,
					      strlen(cases[i].text), NTMEM_OP_COPY,
					      &d, &e);
		snprintf(name, sizeof name, "mix report error: %s", cases[i].must_say);
		t_check(r == -1 && e.status == CLI_USAGE &&
				strstr(e.msg, cases[i].must_say),
			name, "r %d: %s", r, e.msg);
	}
}

/* ------------------------------------------------------------------ */
/* The sequence                                                        */
/* ------------------------------------------------------------------ */

/* The test's own reading of a CSV file: probabilities into p[0..max). */
static size_t read_csv(const char *path, double *p, size_t max)
{
	char *text = strdup(t_file_text(path)), *save = NULL;
	size_t n = 0;
	for (char *f = strtok_r(text, ",\n", &save); f && n < max;
	     f = strtok_r(NULL, ",\n", &save))
		p[n++] = atof(f);
	free(text);
	return n;
}

/* For every size s: the calls of size <= s number within one of
 * MIX_CALLS times the share of the probability at sizes <= s, as the
 * file says. */
static void check_bundled(const struct sizedist_bundled *b, struct mix_seq *s)
{
	static double p[8192];
	static unsigned count[8192];
	char path[128], name[320];
	snprintf(path, sizeof path, "data/distributions/%s%s.csv",
		 b->op == NTMEM_OP_COPY ? "Memcpy" : "Memset", b->name);
	size_t n = read_csv(path, p, 8192);
	struct sizedist d;
	struct cli_error e;
	snprintf(name, sizeof name, "mix sequence: %s %s matches %s size by size",
		 op_name(b->op), b->name, path);
	if (!n || sizedist_load(b->name, b->op, &d, &e)) {
		t_fail(name, "%zu values in the file; %s", n, e.msg);
		return;
	}
	sizedist_draw(&d, s);
	memset(count, 0, sizeof count);
	int bad = 0;
	for (size_t i = 0; i < MIX_CALLS && !bad; i++) {
		bad = s->calls[i].size >= n ||
		      (size_t)s->calls[i].offset + s->calls[i].size > s->buffer;
		if (!bad)
			count[s->calls[i].size]++;
	}
	double total = 0, cum = 0;
	for (size_t k = 0; k < n; k++)
		total += p[k];
	unsigned below = 0;
	double worst = 0;
	for (size_t k = 0; k < n && !bad; k++) {
		cum += p[k];
		below += count[k];
		double want = cum / total * MIX_CALLS;
		worst = fmax(worst, fabs(below - want));
		bad |= (p[k] == 0 && count[k]) || fabs(below - want) > 1.0 + 1e-9;
	}
	t_check(!bad, name, "worst cumulative miss %.3f calls", worst);
	sizedist_free(&d);
}

static void test_sequence_bundled(void)
{
	static struct mix_seq s;
	for (int op = 0; op < 2; op++) {
		const struct sizedist_bundled *b[16];
		size_t n = sizedist_bundled_list((enum ntmem_op)op, b, 16);
		char name[96];
		snprintf(name, sizeof name, "mix: nine bundled %s distributions",
			 op_name((enum ntmem_op)op));
		t_check(n == 9, name, "%zu", n);
		for (size_t i = 0; i < n; i++)
			check_bundled(b[i], &s);
	}
}

/* One bucket of 1024 sizes: uniform within it, each size exactly 4
 * times; the order shuffled; the same every time. */
static void test_sequence_uniform(void)
{
	static struct mix_seq s1, s2;
	struct size_range r = {1024, 2047, 7};
	struct sizedist d = {.ranges = &r, .nranges = 1, .total = 7, .max_size = 2047};
	sizedist_draw(&d, &s1);
	sizedist_draw(&d, &s2);
	unsigned count[1024] = {0};
	int inside = 1, ascending = 1;
	for (size_t i = 0; i < MIX_CALLS; i++) {
		unsigned sz = s1.calls[i].size;
		inside &= sz >= 1024 && sz <= 2047 &&
			  s1.calls[i].offset + sz <= s1.buffer;
		if (sz >= 1024 && sz <= 2047)
			count[sz - 1024]++;
		ascending &= !i || s1.calls[i - 1].size <= sz;
	}
	int four = 1;
	for (size_t k = 0; k < 1024; k++)
		four &= count[k] == MIX_CALLS / 1024;
	t_check(inside && four, "mix sequence: uniform within a bucket, each size "
		"its share exactly", "inside %d, every size 4 times %d", inside, four);
	t_check(!ascending, "mix sequence: shuffled, not in order of size", "%s",
		"sorted");
	t_check(!memcmp(&s1, &s2, sizeof s1), "mix sequence: the same every time",
		"two draws differ");
	t_check(s1.buffer >= 2 * 2047 && s1.buffer >= MIX_MIN_BUFFER &&
			s1.bytes == (uint64_t)MIX_CALLS * (1024 + 2047) / 2,
		"mix sequence: buffer and bytes", "buffer %zu bytes %llu", s1.buffer,
		(unsigned long long)s1.bytes);
}

/* ------------------------------------------------------------------ */
/* The command                                                         */
/* ------------------------------------------------------------------ */

static void test_command_errors(void)
{
	static const struct {
		const char *args, *must_say;
	} cases[] = {
		{"memcpy --mix BAD", "bad.csv:1: field 3 (size 2): 'x': not a number"},
		{"memcpy --mix nosuch", "--mix: 'nosuch': No such file"},
		{"memcpy --mix MemsetGoogleA", "a distribution of memset calls"},
		{"memcpy --mix GoogleA -s 1MB", "--mix and --size"},
		{"memcpy --mix GoogleA --threads 2", "--mix and --threads"},
		{"memcpy --mix GoogleA --csv", "--mix and --csv"},
		{"memset --mix GoogleA -k 4KB", "--mix and --chunk"},
	};
	if (t_scratch_make("mix"))
		return;
	const char *bad = t_scratch_path("bad.csv");
	FILE *f = fopen(bad, "w");
	if (f) {
		fputs("0,0.5,x\n", f);
		fclose(f);
	}
	for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
		char args[256], cmd[1024], name[160], *err = NULL;
		snprintf(args, sizeof args, "%s", cases[i].args);
		char *at = strstr(args, "BAD");
		if (at)
			snprintf(at, sizeof args - (size_t)(at - args), "%s", bad);
		snprintf(cmd, sizeof cmd, "%s bench %s -r 1 -l 1", t_ntmem(), args);
		int status = t_run(cmd, NULL, &err);
		snprintf(name, sizeof name, "mix command: exit 2, %s", cases[i].must_say);
		t_check(status == 2 && err && strstr(err, cases[i].must_say), name,
			"status %d, stderr: %s", status, err ? err : "");
		free(err);
	}
	t_scratch_remove();
}

static void test_command_help(void)
{
	for (int op = 0; op < 2; op++) {
		char cmd[512], name[96], *out = NULL;
		snprintf(cmd, sizeof cmd, "%s bench %s --mix help", t_ntmem(),
			 op_name((enum ntmem_op)op));
		int status = t_run(cmd, &out, NULL);
		int all = 1;
		static const char *const names[] = {"GoogleA", "GoogleB", "GoogleD",
						    "GoogleL", "GoogleM", "GoogleQ",
						    "GoogleS", "GoogleU", "GoogleW"};
		for (size_t i = 0; i < 9; i++)
			all &= out && strstr(out, names[i]) != NULL;
		snprintf(name, sizeof name, "mix command: --mix help lists the nine "
			 "%s distributions", op_name((enum ntmem_op)op));
		t_check(status == 0 && all, name, "status %d: %s", status, out ? out : "");
		free(out);
	}
}

/* --json over the example report: a result per function, the mix's
 * mean size the sequence's, every number finite. */
static void test_command_json(void)
{
	char cmd[512], *out = NULL, err[256];
	snprintf(cmd, sizeof cmd, "%s bench memcpy --mix tests/data/report-mix.json "
		 "-f glibc,auto -r 1 -l 1 --json", t_ntmem());
	int status = t_run(cmd, &out, NULL);
	struct t_json *j = out ? t_json_parse(out, err, sizeof err) : NULL;
	const struct t_json *res = t_json_get(j, "results"), *mixes = t_json_get(j, "mixes");
	const struct t_json *m0 = mixes && mixes->count ? &mixes->items[0] : NULL;
	int ok = status == 0 && res && res->count == 2 && m0;
	for (size_t i = 0; ok && i < res->count; i++) {
		const struct t_json *ns = t_json_get(&res->items[i], "ns_per_call_median");
		const struct t_json *gb = t_json_get(&res->items[i], "gbps_median");
		const struct t_json *mix = t_json_get(&res->items[i], "mix");
		ok = ns && gb && ns->type == TJ_NUMBER && gb->type == TJ_NUMBER &&
		     ns->number > 0 && gb->number > 0 && mix &&
		     !strcmp(mix->string, "tests/data/report-mix.json");
	}
	const struct t_json *mean = t_json_get(m0, "mean_size");
	/* (10 * 0 + 160 * 23.5 + 30 * 1535.5) / 200, within the draw's
	 * rounding of each bucket's share to whole calls */
	t_check(ok && mean && fabs(mean->number - 249.125) < 1,
		"mix command: --json has every function's ns per call and GB/s",
		"status %d: %s", status, out ? out : "");
	t_json_free(j);
	free(out);
}

int main(void)
{
	test_csv_good();
	test_csv_bad();
	test_report_good();
	test_report_bad();
	test_sequence_bundled();
	test_sequence_uniform();
	test_command_errors();
	test_command_help();
	test_command_json();
	return t_finish();
}
