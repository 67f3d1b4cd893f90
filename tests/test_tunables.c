/* test_tunables.c - NTMEM_TUNABLES is read whole and what it ignores is
 * said: every item counts however many there are (the hundredth as the
 * first), ignored ones past the notes' room are counted, and each
 * command of the tool but info (which lists them itself) prints them on
 * standard error, once, as it starts.  Run from the repository root, as
 * tests/run.sh does. */
#define _GNU_SOURCE  /* dladdr */
#include <dlfcn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "harness.h"
#include "dispatch/policy.h"
#include "util/size.h"

static struct policy pol;  /* large */

/* n items, "filler" n - 1 times and then last, comma-separated. */
static const char *items(int n, const char *filler, const char *last)
{
	static char text[1024];
	text[0] = '\0';
	for (int i = 0; i + 1 < n; i++)
		snprintf(text + strlen(text), sizeof text - strlen(text), "%s,", filler);
	snprintf(text + strlen(text), sizeof text - strlen(text), "%s", last);
	return text;
}

/* Every item is read: the last of 100 decides, as the last of 2 would;
 * a bad item at any place is noted by name. */
static void test_every_item(void)
{
	ntm_policy_build(&pol, ntm_cpu(), items(100, "adapt=1", "adapt=0"), NULL);
	t_check(!pol.learn && pol.note_count == 0,
		"tunables: the 100th item, adapt=0, turns learning off",
		"learn %d, %d notes: %s", pol.learn, pol.note_count,
		pol.note_count ? pol.notes[0] : "");

	/* The items' values cycle: the last one's stays. */
	char text[1024] = "";
	for (int i = 1; i <= 100; i++)
		snprintf(text + strlen(text), sizeof text - strlen(text), "%sthreads=%d",
			 i > 1 ? "," : "", i % 9 + 1);
	ntm_policy_build(&pol, ntm_cpu(), text, NULL);
	t_check(pol.threads == 100 % 9 + 1 && pol.note_count == 0,
		"tunables: of 100 items threads=N, N cycling, the last applies",
		"threads %u, %d notes", pol.threads, pol.note_count);

	snprintf(text, sizeof text, "%s,bogus80=1,", items(79, "adapt=1", "adapt=1"));
	snprintf(text + strlen(text), sizeof text - strlen(text), "%s",
		 items(20, "adapt=1", "adapt=1"));
	ntm_policy_build(&pol, ntm_cpu(), text, NULL);
	t_check(pol.note_count == 1 && strstr(pol.notes[0], "unknown key 'bogus80'"),
		"tunables: a bad 80th item is noted by name", "%d notes: %s",
		pol.note_count, pol.note_count ? pol.notes[0] : "");

	/* A ladder's further rungs (items without '=') after 90 others. */
	snprintf(text, sizeof text, "%s", items(91, "adapt=1", "set=portable:1MiB,libc"));
	ntm_policy_build(&pol, ntm_cpu(), text, NULL);
	const struct ladder *l = &pol.ladder[NTMEM_CLASS_SET_ZERO];
	t_check(pol.note_count == 0 && l->count == 2 && !strcmp(l->v[0]->name, "portable") &&
		l->to[0] == MiB && !strcmp(l->v[1]->name, "libc"),
		"tunables: a ladder at the 91st item, its second rung the 92nd",
		"%d notes, %u rungs: %s", pol.note_count, l->count,
		pol.note_count ? pol.notes[0] : "");
}

/* More ignored items than the notes hold: the last note counts the rest. */
static void test_notes_overflow(void)
{
	static const struct {
		int bad;
		const char *last;  /* the last note, or NULL: the 15th bad one's */
	} cases[] = {
		{15, NULL},
		{16, "1 more setting was ignored; only the first 15 are listed"},
		{40, "25 more settings were ignored; only the first 15 are listed"},
	};
	for (size_t c = 0; c < sizeof cases / sizeof cases[0]; c++) {
		char text[1024] = "", name[96];
		for (int i = 1; i <= cases[c].bad; i++)
			snprintf(text + strlen(text), sizeof text - strlen(text), "%sbad%d=1",
				 i > 1 ? "," : "", i);
		ntm_policy_build(&pol, ntm_cpu(), text, NULL);
		int listed = cases[c].bad < NTM_MAX_NOTES ? cases[c].bad : NTM_MAX_NOTES;
		const char *last = pol.note_count ? pol.notes[pol.note_count - 1] : "";
		snprintf(name, sizeof name, "tunables: %d bad items, %d notes, the last %s",
			 cases[c].bad, listed, cases[c].last ? "counting the rest" : "the 15th");
		t_check(pol.note_count == listed && strstr(pol.notes[0], "'bad1'") &&
			(cases[c].last ? !strcmp(last, cases[c].last)
				       : strstr(last, "'bad15'") != NULL),
			name, "%d notes, last '%s'", pol.note_count, last);
	}
}

/* ntmem info --json: what the library made of 100 items. */
static void test_info_reads_all(void)
{
	char cmd[1400], *out = NULL, err[160];
	snprintf(cmd, sizeof cmd, "NTMEM_TUNABLES=%s %s info --json",
		 items(100, "adapt=1", "adapt=0"), t_ntmem());
	int st = t_run(cmd, &out, NULL);
	struct t_json *j = t_json_parse(out, err, sizeof err);
	const struct t_json *on = t_json_get(t_json_get(j, "learning"), "on");
	const struct t_json *ign = t_json_get(j, "ignored");
	t_check(st == 0 && on && on->type == TJ_BOOL && !on->boolean && ign &&
		ign->type == TJ_ARRAY && ign->count == 0,
		"info --json: 100 items, the last adapt=0: learning off, nothing ignored",
		"status %d %s", st, j ? "" : err);
	t_json_free(j);
	free(out);
}

/* Lines of text that mention NTMEM_TUNABLES, and how many are line. */
static int lines_about(const char *text, const char *line, int *exact)
{
	int n = 0;
	*exact = 0;
	for (const char *l = text; l && *l; l = strchr(l, '\n') ? strchr(l, '\n') + 1 : NULL) {
		size_t len = strcspn(l, "\n");
		char copy[512];
		snprintf(copy, sizeof copy, "%.*s", (int)len, l);
		n += strstr(copy, "NTMEM_TUNABLES") != NULL;
		*exact += !strcmp(copy, line);
	}
	return n;
}

/* What a command that preloads the shim needs before it: nothing, or in
 * a sanitized build the ASan runtime preloaded (which must come first,
 * as test_preload.c explains); NULL with *why when that cannot be. */
static const char *preload_first(const char **why)
{
	static char ld[4200];
	Dl_info asan;
	void *init = dlsym(RTLD_DEFAULT, "__asan_init");
	if (!init)
		return "";
	if (!dladdr(init, &asan) || !asan.dli_fname || !strstr(asan.dli_fname, ".so")) {
		*why = "the ASan runtime is linked in statically: the sanitized "
		       "shim cannot be preloaded behind it";
		return NULL;
	}
	snprintf(ld, sizeof ld, "LD_PRELOAD=%s ", asan.dli_fname);
	return ld;
}

/* Each command prints the ignored items once, on stderr, before it runs;
 * nothing for a clean variable; info lists them in its output only. */
static void test_commands_say_so(void)
{
	static const struct {
		const char *args;
		int preloads;  /* runs a program under the shim */
	} commands[] = {
		{"bench memset -s 64KB -f glibc -r 1", 0},
		{"run -- true", 1},
		{"run --compare 1 -- true", 1},
	};
	const char *line = "ntmem: NTMEM_TUNABLES: unknown key 'copy_treshold' (ignored)";
	const char *why = NULL, *first = preload_first(&why);
	for (size_t i = 0; i < sizeof commands / sizeof commands[0]; i++) {
		char cmd[4800], name[128], *out = NULL, *err = NULL;
		int exact;
		snprintf(name, sizeof name, "%s: a typo in NTMEM_TUNABLES, said once on "
			 "stderr", commands[i].args);
		if (commands[i].preloads && !first) {
			t_skip(name, why);
			continue;
		}
		const char *env = commands[i].preloads ? first : "";
		snprintf(cmd, sizeof cmd, "%sNTMEM_TUNABLES=copy_treshold=32MiB %s %s "
			 ">/dev/null", env, t_ntmem(), commands[i].args);
		int st = t_run(cmd, &out, &err);
		int about = lines_about(err, line, &exact);
		t_check(st == 0 && about == 1 && exact == 1, name, "status %d: %s", st, err);
		free(out);
		free(err);

		snprintf(cmd, sizeof cmd, "%sNTMEM_TUNABLES=adapt=0 %s %s >/dev/null",
			 env, t_ntmem(), commands[i].args);
		st = t_run(cmd, &out, &err);
		about = lines_about(err, line, &exact);
		snprintf(name, sizeof name, "%s: a clean NTMEM_TUNABLES, nothing said",
			 commands[i].args);
		t_check(st == 0 && about == 0, name, "status %d: %s", st, err);
		free(out);
		free(err);
	}

	char cmd[512], *out = NULL, *err = NULL;
	int exact;
	snprintf(cmd, sizeof cmd, "NTMEM_TUNABLES=copy_treshold=32MiB %s info", t_ntmem());
	int st = t_run(cmd, &out, &err);
	t_check(st == 0 && lines_about(err, line, &exact) == 0 &&
		strstr(out, "\nIgnored settings\n  NTMEM_TUNABLES: unknown key "
		       "'copy_treshold'\n"),
		"info: the ignored item in its own list, not on stderr",
		"status %d: %s", st, err);
	free(out);
	free(err);
}

int main(void)
{
	test_every_item();
	test_notes_overflow();
	test_info_reads_all();
	test_commands_say_so();
	return t_finish();
}
