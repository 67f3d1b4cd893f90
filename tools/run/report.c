/*
 * report.c - the report of "ntmem run --report" and --report-json, from
 * the merged records: who ran, what they called at which sizes, which
 * path served each size, and the verdicts (verdict.c).
 */
#define _GNU_SOURCE
#include "report.h"

#include <string.h>
#include <sys/wait.h>

#include "introspect.h"
#include "ntmem.h"
#include "output/json.h"
#include "util/size.h"

#define PROGRAMS_MAX 256

/* ------------------------------------------------------------------ */
/* Per function                                                        */
/* ------------------------------------------------------------------ */

struct line_sums {
	uint64_t calls, bytes, timed_calls, timed_ns;
};

static void sum_line(const struct tree_line *l, unsigned k, struct line_sums *s)
{
	for (unsigned key = 0; key < TREE_PATH_KEYS; key++) {
		s->calls += l->cell[k][key].calls;
		s->bytes += l->cell[k][key].bytes;
	}
	s->timed_calls += l->time[k].calls;
	s->timed_ns += l->time[k].ns;
}

static struct line_sums line_total(const struct tree_line *l)
{
	struct line_sums s = {0};
	for (unsigned k = 0; k < NTM_RECORD_BUCKETS; k++)
		sum_line(l, k, &s);
	return s;
}

/* "memset (other values)", "memcpy". */
/* The lines in the order the report lists them: each function, memset
 * of other values right after memset of zeros. */
static unsigned line_at(unsigned i)
{
	static unsigned order[NTM_RECORD_LINES];
	static int ready;
	if (!ready) {
		unsigned n = 0;
		for (unsigned f = 0; f < SHIM_FUNCTIONS; f++) {
			order[n++] = f;
			if (f < SHIM_SET_FUNCTIONS)
				order[n++] = ntm_record_line(f, 1);
		}
		ready = 1;
	}
	return order[i];
}

static void line_title(unsigned line, char *buf, size_t len)
{
	static const char *const names[] = {
#define NAME(f) #f,
		NTM_SHIM_SET_FUNCTIONS(NAME) NTM_SHIM_COPY_FUNCTIONS(NAME)
#undef NAME
	};
	enum shim_fn f = tree_line_function(line);
	int takes_value = f == SHIM_memset || f == SHIM___memset_chk;
	snprintf(buf, len, "%s%s", names[f],
		 !takes_value ? "" : line >= SHIM_FUNCTIONS ? " (other values)"
							     : " (zeros)");
}

static const char *function_name(unsigned line)
{
	static char buf[48];
	line_title(line, buf, sizeof buf);
	char *space = strchr(buf, ' ');
	if (space)
		*space = '\0';
	return buf;
}

static void bucket_label(unsigned k, char *buf, size_t len)
{
	char a[32], b[32];
	uint64_t to = ntm_record_bucket_to(k);
	if (k == 0)
		snprintf(buf, len, "0 B");
	else if (!to)
		snprintf(buf, len, "[%s, ...)", ntm_format_size(ntm_record_bucket_from(k), a, sizeof a));
	else
		snprintf(buf, len, "[%s, %s)",
			 ntm_format_size(ntm_record_bucket_from(k), a, sizeof a),
			 ntm_format_size(to, b, sizeof b));
}

/* The paths that served bucket k of l: "movsb", "small path + vec_avx2";
 * with counts, where more than one did, how many calls each served, as
 * the learning's candidates do: "libc 20, nt_avx 1004". */
static void bucket_paths(const struct tree_line *l, unsigned k, int counts,
			 char *buf, size_t len)
{
	size_t used = 0;
	int paths = 0;
	for (unsigned key = 0; key < TREE_PATH_KEYS; key++)
		paths += l->cell[k][key].calls != 0;
	buf[0] = '\0';
	for (unsigned key = 0; key < TREE_PATH_KEYS && used < len; key++) {
		unsigned long long calls = l->cell[k][key].calls;
		if (!calls)
			continue;
		if (counts && paths > 1)
			used += (size_t)snprintf(buf + used, len - used, "%s%s %llu",
						 used ? ", " : "", tree_path_name(key), calls);
		else
			used += (size_t)snprintf(buf + used, len - used, "%s%s",
						 used ? " + " : "", tree_path_name(key));
	}
}

static void format_seconds(double s, char *buf, size_t len)
{
	if (s < 1e-3)
		snprintf(buf, len, "%.1f us", s * 1e6);
	else if (s < 1)
		snprintf(buf, len, "%.1f ms", s * 1e3);
	else
		snprintf(buf, len, "%.2f s", s);
}

/* Under the first time of calls from 4 KiB: that it holds the page
 * faults of memory touched for the first time (a fresh buffer's first
 * memset or memcpy: the kernel maps and clears each page then), which
 * the shim cannot take apart from the stores, and the command's count of
 * them where ntmem run has it. */
static void text_fault_note(FILE *f, const struct tree *t)
{
	fprintf(f, "  (this time includes the page faults on the first touch of "
		"fresh memory, when the kernel maps and clears each page");
	if (t->minor_faults >= 0)
		fprintf(f, ": the command's processes took %ld minor faults in all, "
			"in these calls and elsewhere", t->minor_faults);
	fprintf(f, ")\n");
}

static void text_function(FILE *f, const struct tree *t, unsigned line,
			  double cpu_s, int *fault_note)
{
	const struct tree_line *l = &t->line[line];
	struct line_sums total = line_total(l);
	char title[48], size[48], bytes[32], when[32], paths[256];
	if (!total.calls)
		return;
	line_title(line, title, sizeof title);
	fprintf(f, "\n%s: %llu call%s, %s", title, (unsigned long long)total.calls,
		total.calls == 1 ? "" : "s",
		ntm_format_size(total.bytes, bytes, sizeof bytes));
	if (total.timed_calls) {
		double s = (double)total.timed_ns * 1e-9;
		format_seconds(s, when, sizeof when);
		fprintf(f, "; calls from %d KiB took %s", NTM_RECORD_TIMED_MIN / 1024,
			when);
		if (cpu_s > 0)
			fprintf(f, ", %.1f%% of the CPU time", 100 * s / cpu_s);
	}
	fprintf(f, "\n");
	if (total.timed_calls && !*fault_note) {
		text_fault_note(f, t);
		*fault_note = 1;
	}
	fprintf(f, "  %-22s %12s %12s %7s %10s  %s\n", "size", "calls", "bytes",
		"share", "time", "path");
	for (unsigned k = 0; k < NTM_RECORD_BUCKETS; k++) {
		struct line_sums s = {0};
		sum_line(l, k, &s);
		if (!s.calls)
			continue;
		bucket_label(k, size, sizeof size);
		bucket_paths(l, k, 1, paths, sizeof paths);
		if (s.timed_calls)
			format_seconds((double)s.timed_ns * 1e-9, when, sizeof when);
		else
			snprintf(when, sizeof when, "-");
		fprintf(f, "  %-22s %12llu %12s %6.1f%% %10s  %s\n", size,
			(unsigned long long)s.calls,
			ntm_format_size(s.bytes, bytes, sizeof bytes),
			total.bytes ? 100.0 * (double)s.bytes / (double)total.bytes : 0.0,
			when, paths);
	}
}

/* ------------------------------------------------------------------ */
/* The whole report                                                    */
/* ------------------------------------------------------------------ */

static void status_text(int status, char *buf, size_t len)
{
	if (WIFSIGNALED(status))
		snprintf(buf, len, "killed by signal %d", WTERMSIG(status));
	else
		snprintf(buf, len, "exit status %d", WEXITSTATUS(status));
}

static unsigned running(const struct tree *t)
{
	unsigned n = 0;
	for (size_t i = 0; i < t->nproc; i++)
		n += t->proc[i].running;
	return n;
}

static void text_programs(FILE *f, const struct tree *t)
{
	static struct tree_program programs[PROGRAMS_MAX];
	size_t n = tree_programs(t, programs, PROGRAMS_MAX);
	char bytes[32];
	fprintf(f, "  %-22s %10s %14s %14s\n", "program", "processes", "calls",
		"bytes");
	for (size_t i = 0; i < n; i++)
		fprintf(f, "  %-22s %10u %14llu %14s\n", programs[i].name,
			programs[i].processes, (unsigned long long)programs[i].calls,
			ntm_format_size(programs[i].bytes, bytes, sizeof bytes));
}

void report_text(FILE *f, const struct tree *t, const struct run_outcome *o,
		 char *const *command)
{
	char cmd[512], status[64], wall[32], cpu[32];
	double cpu_s = o->user_s + o->sys_s;
	cli_format_command(command, cmd, sizeof cmd);
	status_text(o->status, status, sizeof status);
	format_seconds(o->wall_s, wall, sizeof wall);
	format_seconds(cpu_s, cpu, sizeof cpu);
	fprintf(f, "\nntmem run: report for %s\n  %s; %zu process%s; %s wall, "
		"%s CPU\n", cmd, status, t->nproc, t->nproc == 1 ? "" : "es", wall,
		cpu);
	if (!t->nproc) {
		if (!report_lost_text(f, t))
			fprintf(f, "  no process recorded a call: the command is "
				"statically linked or setuid, or cleared LD_PRELOAD, "
				"so the shim never loaded\n");
		return;
	}
	fprintf(f, "  policy: %s%s\n", t->header.policy,
		t->policies_differ ? " (some processes ran another policy)" : "");
	report_lost_text(f, t);
	report_unseen_text(f);
	if (running(t))
		fprintf(f, "  %u processes were still running: their counts are "
			"those so far\n", running(t));
	if (t->unreadable)
		fprintf(f, "  %u record files were incomplete and are left out\n",
			t->unreadable);
	text_programs(f, t);
	unsigned with_calls = 0;
	int fault_note = 0;
	for (unsigned i = 0; i < NTM_RECORD_LINES; i++) {
		with_calls += line_total(&t->line[line_at(i)]).calls != 0;
		text_function(f, t, line_at(i), cpu_s, &fault_note);
	}
	if (!with_calls) {
		fprintf(f, "\nno calls to memset, memcpy or their relatives reached "
			"the shim (a program may copy in the kernel, as cp does with "
			"copy_file_range)\n");
		return;
	}
	report_learning_text(f, t);
	if (!report_verdict_heading(f, t))
		return;
	for (int cls = 0; cls < 3; cls++) {
		struct verdict v;
		if (report_verdict(t, cls, &v))
			fprintf(f, "  %s: %s\n", verdict_class_name(cls), v.text);
	}
}

/* ------------------------------------------------------------------ */
/* JSON                                                                */
/* ------------------------------------------------------------------ */

static void json_buckets(struct json *j, const struct tree_line *l)
{
	char paths[256];
	json_array(j, "buckets");
	for (unsigned k = 0; k < NTM_RECORD_BUCKETS; k++) {
		struct line_sums s = {0};
		sum_line(l, k, &s);
		if (!s.calls)
			continue;
		json_object(j, NULL);
		json_uint(j, "from", ntm_record_bucket_from(k));
		if (ntm_record_bucket_to(k))
			json_uint(j, "to", k ? ntm_record_bucket_to(k) : 1);
		else
			json_null(j, "to");
		json_uint(j, "calls", s.calls);
		json_uint(j, "bytes", s.bytes);
		json_uint(j, "timed_calls", s.timed_calls);
		json_double(j, "seconds", (double)s.timed_ns * 1e-9);
		bucket_paths(l, k, 0, paths, sizeof paths);
		json_string(j, "rung", paths);
		json_array(j, "paths");
		for (unsigned key = 0; key < TREE_PATH_KEYS; key++) {
			const struct ntm_record_cell *c = &l->cell[k][key];
			if (!c->calls)
				continue;
			json_object(j, NULL);
			json_string(j, "path", tree_path_name(key));
			json_bool(j, "streams", tree_path_streams(key));
			json_uint(j, "calls", c->calls);
			json_uint(j, "bytes", c->bytes);
			json_end(j);
		}
		json_end(j);
		json_end(j);
	}
	json_end(j);
}

static void json_functions(struct json *j, const struct tree *t)
{
	json_array(j, "functions");
	for (unsigned i = 0; i < NTM_RECORD_LINES; i++) {
		unsigned line = line_at(i);
		struct line_sums s = line_total(&t->line[line]);
		if (!s.calls)
			continue;
		json_object(j, NULL);
		json_string(j, "function", function_name(line));
		json_string(j, "class", ntm_class_key[tree_line_class(line)]);
		json_uint(j, "calls", s.calls);
		json_uint(j, "bytes", s.bytes);
		json_uint(j, "timed_calls", s.timed_calls);
		json_double(j, "seconds", (double)s.timed_ns * 1e-9);
		json_buckets(j, &t->line[line]);
		json_end(j);
	}
	json_end(j);
}

static void json_processes(struct json *j, const struct tree *t)
{
	static struct tree_program programs[PROGRAMS_MAX];
	size_t n = tree_programs(t, programs, PROGRAMS_MAX);
	json_array(j, "programs");
	for (size_t i = 0; i < n; i++) {
		json_object(j, NULL);
		json_string(j, "name", programs[i].name);
		json_uint(j, "processes", programs[i].processes);
		json_uint(j, "calls", programs[i].calls);
		json_uint(j, "bytes", programs[i].bytes);
		json_end(j);
	}
	json_end(j);
	json_array(j, "processes");
	for (size_t i = 0; i < t->nproc; i++) {
		const struct tree_process *p = &t->proc[i];
		json_object(j, NULL);
		json_int(j, "pid", p->pid);
		json_int(j, "ppid", p->ppid);
		json_string(j, "program", p->program);
		json_string(j, "ended", p->running ? "running"
					: p->superseded ? "exec"
					: p->exited ? "exit" : "without exit");
		json_uint(j, "calls", p->calls);
		json_uint(j, "bytes", p->bytes);
		json_end(j);
	}
	json_end(j);
}

static void json_verdicts(struct json *j, const struct tree *t)
{
	json_array(j, "verdicts");
	for (int cls = 0; cls < 3; cls++) {
		struct verdict v;
		if (!report_verdict(t, cls, &v))
			continue;
		json_object(j, NULL);
		json_string(j, "class", ntm_class_key[cls]);
		json_uint(j, "calls", v.calls);
		json_uint(j, "bytes", v.bytes);
		json_uint(j, "streamed_calls", v.streamed_calls);
		json_uint(j, "streamed_bytes", v.streamed_bytes);
		if (v.streams_from)
			json_uint(j, "streams_from", v.streams_from);
		else
			json_null(j, "streams_from");
		if (v.streams_to)
			json_uint(j, "streams_to", v.streams_to);
		else
			json_null(j, "streams_to");
		json_uint(j, "window_from", ntm_record_bucket_from(v.lo));
		if (ntm_record_bucket_to(v.hi))
			json_uint(j, "window_to", v.hi ? ntm_record_bucket_to(v.hi) : 1);
		else
			json_null(j, "window_to");
		json_double(j, "window_share", v.window_share);
		json_string(j, "text", v.text);
		json_end(j);
	}
	json_end(j);
}

void report_json(FILE *f, const struct tree *t, const struct run_outcome *o,
		 char *const *command)
{
	struct json j;
	json_start(&j, f);
	json_string(&j, "command", "run");
	json_string(&j, "version", ntmem_version());
	json_array(&j, "argv");
	for (int i = 0; command[i]; i++)
		json_string(&j, NULL, command[i]);
	json_end(&j);
	if (WIFSIGNALED(o->status))
		json_int(&j, "signal", WTERMSIG(o->status));
	else
		json_int(&j, "exit_status", WEXITSTATUS(o->status));
	json_double(&j, "wall_seconds", o->wall_s);
	json_double(&j, "user_seconds", o->user_s);
	json_double(&j, "sys_seconds", o->sys_s);
	json_string(&j, "policy", t->have_header ? t->header.policy : "");
	json_bool(&j, "policies_differ", t->policies_differ);
	json_uint(&j, "timed_from", NTM_RECORD_TIMED_MIN);
	json_uint(&j, "small_max", t->header.small_max);
	json_uint(&j, "incomplete_records", t->unreadable);
	if (t->minor_faults >= 0)
		json_int(&j, "minor_faults", t->minor_faults);
	else
		json_null(&j, "minor_faults");
	report_lost_json(&j, t);
	json_processes(&j, t);
	json_functions(&j, t);
	report_learning_json(&j, t);
	if (report_verdict_basis(t) == VERDICT_WITHHELD) {
		json_array(&j, "verdicts");
		json_end(&j);
	} else {
		json_verdicts(&j, t);
	}
	json_finish(&j);
}
