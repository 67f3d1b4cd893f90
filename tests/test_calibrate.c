/* test_calibrate.c - "ntmem calibrate": usage errors, --dry-run writes
 * nothing, a written profile is what libntmem then reads.  The measured
 * values themselves are never asserted: they are the machine's to say. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "harness.h"

static char dir[] = "/tmp/ntmem-calibrate-test-XXXXXX";

static void test_usage_errors(void)
{
	static const struct {
		const char *args, *must_say;
	} cases[] = {
		{"--quick --thorough", "choose one"},
		{"--bogus", "unknown option '--bogus'"},
		{"--output", "needs a value"},
		{"--output ''", "--output: empty path"},
		{"--cpu 99999", "--cpu"},
		{"extra", "unexpected argument 'extra'"},
	};
	for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
		char cmd[512], name[128], *err = NULL;
		snprintf(cmd, sizeof cmd, "%s calibrate %s", t_ntmem(), cases[i].args);
		int status = t_run(cmd, NULL, &err);
		snprintf(name, sizeof name, "calibrate %s: exit 2, says '%s'", cases[i].args,
			 cases[i].must_say);
		t_check(status == 2 && strstr(err, cases[i].must_say) &&
			strstr(err, "ntmem calibrate: "), name, "status %d: %s", status, err);
		free(err);
	}

	char cmd[512], *err = NULL;
	snprintf(cmd, sizeof cmd, "NTMEM_PROFILE=none %s calibrate --quick", t_ntmem());
	int status = t_run(cmd, NULL, &err);
	t_check(status == 2 && strstr(err, "--output"),
		"calibrate with profiles disabled and no --output: exit 2", "status %d: %s",
		status, err);
	free(err);

	char *out = NULL;
	snprintf(cmd, sizeof cmd, "%s calibrate --help", t_ntmem());
	status = t_run(cmd, &out, NULL);
	t_check(status == 0 && strstr(out, "Usage: ntmem calibrate") &&
		strstr(out, "--dry-run"), "calibrate --help", "status %d", status);
	free(out);
}

/* ntmem info's {"bytes": N or null} against calibrate's N or null. */
static int same_threshold(const struct t_json *info, const struct t_json *cal)
{
	const struct t_json *bytes = t_json_get(info, "bytes");
	return bytes && cal && bytes->type == cal->type &&
	       (cal->type == TJ_NULL || bytes->number == cal->number) &&
	       !strcmp(t_json_get(info, "origin")->string, "profile");
}

static void test_write_and_read_back(void)
{
	char cmd[1024], *out = NULL, err[160], profile[300];
	snprintf(profile, sizeof profile, "%s/cache/ntmem/profile", dir);

	/* --dry-run writes nothing, not even at the default path. */
	snprintf(cmd, sizeof cmd, "XDG_CACHE_HOME=%s/cache %s calibrate --quick --dry-run",
		 dir, t_ntmem());
	int status = t_run(cmd, &out, NULL);
	t_check(status == 0 && access(profile, F_OK) != 0 && strstr(out, "Verdict:") &&
		strstr(out, "memset") && strstr(out, "memcpy"),
		"calibrate --dry-run: a verdict, and no profile written", "status %d", status);
	free(out);

	snprintf(cmd, sizeof cmd, "XDG_CACHE_HOME=%s/cache %s calibrate --quick --json",
		 dir, t_ntmem());
	status = t_run(cmd, &out, NULL);
	struct t_json *j = t_json_parse(out, err, sizeof err);
	const struct t_json *ops = t_json_get(j, "operations");
	int ok = status == 0 && j && ops && ops->type == TJ_ARRAY && ops->count == 2 &&
		 t_json_get(j, "written")->boolean && access(profile, F_OK) == 0;
	for (size_t i = 0; ok && i < ops->count; i++) {
		const struct t_json *op = &ops->items[i];
		const struct t_json *xs = t_json_get(op, "crossovers");
		int set = !strcmp(t_json_get(op, "op")->string, "memset");
		ok &= t_json_get(op, "cached")->type == TJ_STRING && xs &&
		      xs->type == TJ_ARRAY && xs->count == (set ? 2u : 1u) &&
		      (!set || t_json_get(op, "threshold_nonzero"));
		for (size_t k = 0; ok && k < xs->count; k++) {
			const struct t_json *x = &xs->items[k];
			const struct t_json *pts = t_json_get(x, "points");
			ok &= t_json_get(x, "verdict")->type == TJ_STRING &&
			      t_json_get(x, "confident")->type == TJ_BOOL && pts &&
			      pts->type == TJ_ARRAY && pts->count >= 1;
		}
	}
	t_check(ok, "calibrate --json: valid report, profile written at the default path",
		"status %d %s", status, j ? "" : err);

	/* libntmem then reads exactly what calibrate chose. */
	char *info = NULL;
	snprintf(cmd, sizeof cmd, "XDG_CACHE_HOME=%s/cache %s info --json", dir, t_ntmem());
	status = t_run(cmd, &info, NULL);
	struct t_json *k = t_json_parse(info, err, sizeof err);
	ok = status == 0 && k && ok;
	for (size_t i = 0; ok && i < 2; i++) {
		const struct t_json *op = &ops->items[i];
		const struct t_json *p = t_json_get(t_json_get(k, "policy"),
						    t_json_get(op, "op")->string);
		const struct t_json *cached = t_json_get(p, "cached");
		const struct t_json *th = t_json_get(p, "threshold");
		ok &= !strcmp(t_json_get(cached, "name")->string,
			      t_json_get(op, "cached")->string) &&
		      !strcmp(t_json_get(cached, "origin")->string, "profile") &&
		      same_threshold(th, t_json_get(op, "threshold"));
		if (!strcmp(t_json_get(op, "op")->string, "memset"))
			ok &= same_threshold(t_json_get(p, "threshold_nonzero"),
					     t_json_get(op, "threshold_nonzero"));
	}
	t_check(ok, "calibrate: libntmem reads the profile back, value for value",
		"status %d %s", status, k ? "" : err);
	t_json_free(j);
	t_json_free(k);
	free(out);
	free(info);
}

int main(void)
{
	if (!mkdtemp(dir)) {
		t_fail("mkdtemp", "failed");
		return t_finish();
	}
	test_usage_errors();
	test_write_and_read_back();
	char cmd[300];
	snprintf(cmd, sizeof cmd, "rm -rf %s", dir);
	if (system(cmd))
		t_fail("cleanup", "%s", cmd);
	return t_finish();
}
