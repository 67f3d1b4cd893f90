/* test_help.c - each command's --help lists its own options: every
 * option its section of ntmem(1) documents and no other, each short
 * option beside the same long one in both.  Short options differ from
 * command to command (-s is --size in bench, --stream-above in run), so
 * the command's own --help is where a user must find them.  Run from the
 * repository root (docs/ntmem.1), as tests/run.sh does. */
#define _GNU_SOURCE
#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "harness.h"

#define MAX_OPTS 64

/* An option: "--size", and its short letter ('s'), or 0. */
struct opt {
	char name[32];
	char letter;
};

struct opts {
	struct opt o[MAX_OPTS];
	int n;
};

static void add(struct opts *s, const char *name, size_t len, char letter)
{
	for (int i = 0; i < s->n; i++)
		if (strlen(s->o[i].name) == len && !strncmp(s->o[i].name, name, len)) {
			s->o[i].letter = s->o[i].letter ? s->o[i].letter : letter;
			return;
		}
	if (s->n == MAX_OPTS || len >= sizeof s->o[0].name)
		return;
	memcpy(s->o[s->n].name, name, len);
	s->o[s->n].name[len] = '\0';
	s->o[s->n++].letter = letter;
}

static size_t option_len(const char *p)
{
	size_t n = 2;
	while (isalnum((unsigned char)p[n]) || p[n] == '_' || p[n] == '-')
		n++;
	return n;
}

/* The options a man page line after .TP defines: every "\-\-name" on it,
 * the first one with the "\-x" that leads the line, if any. */
static void man_line(const char *line, struct opts *s)
{
	char plain[512];
	size_t k = 0;
	for (const char *p = line; *p && k + 1 < sizeof plain; p++)
		if (!(p[0] == '\\' && p[1] == '-'))
			plain[k++] = *p;
	plain[k] = '\0';
	char letter = 0;
	const char *lead = strstr(plain, ".BR -");
	if (lead && isalpha((unsigned char)lead[5]) && !isalnum((unsigned char)lead[6]))
		letter = lead[5];
	for (const char *p = plain; (p = strstr(p, "--")); ) {
		if (p > plain && (isalnum((unsigned char)p[-1]) || p[-1] == '-')) {
			p += 2;
			continue;
		}
		size_t len = option_len(p);
		if (len > 2)
			add(s, p, len, letter);
		letter = 0;
		p += len;
	}
}

/* The options of ntmem(1)'s section for cmd ("BENCH" for bench). */
static int man_options(const char *man, const char *cmd, struct opts *s)
{
	char head[32];
	snprintf(head, sizeof head, "\n.SH %s\n", cmd);
	for (char *c = head + 5; *c; c++)
		*c = (char)toupper((unsigned char)*c);
	const char *at = strstr(man, head);
	if (!at)
		return -1;
	at += strlen(head);
	const char *end = strstr(at, "\n.SH ");
	for (const char *p = at; (p = strstr(p, "\n.TP\n")) && (!end || p < end);) {
		p += 5;
		char line[512];
		size_t n = strcspn(p, "\n");
		snprintf(line, sizeof line, "%.*s", (int)(n < sizeof line ? n : sizeof line - 1), p);
		man_line(line, s);
	}
	return 0;
}

/* The options a --help text lists: lines that start, indented, with
 * "-x, --name" or "--name". */
static void help_options(const char *text, struct opts *s)
{
	for (const char *l = text; l && *l; l = strchr(l, '\n') ? strchr(l, '\n') + 1 : NULL) {
		size_t indent = strspn(l, " ");
		const char *p = l + indent;
		if (indent < 2 || indent > 6 || p[0] != '-')
			continue;
		char letter = 0;
		if (p[1] != '-' && isalpha((unsigned char)p[1]) && p[2] == ',' && p[3] == ' ') {
			letter = p[1];
			p += 4;
		}
		if (p[0] == '-' && p[1] == '-' && option_len(p) > 2)
			add(s, p, option_len(p), letter);
	}
}

static const struct opt *find(const struct opts *s, const char *name)
{
	for (int i = 0; i < s->n; i++)
		if (!strcmp(s->o[i].name, name))
			return &s->o[i];
	return NULL;
}

static void check_command(const char *man, const char *cmd)
{
	char name[96], why[512] = "", run[256], *out = NULL;
	struct opts m = {0}, h = {0};
	snprintf(name, sizeof name, "%s --help: the options of its ntmem(1) section",
		 cmd);
	snprintf(run, sizeof run, "%s %s --help", t_ntmem(), cmd);
	int st = t_run(run, &out, NULL);
	if (st || !out || man_options(man, cmd, &m) || m.n == 0) {
		t_fail(name, "status %d, or no section %s in docs/ntmem.1", st, cmd);
		free(out);
		return;
	}
	help_options(out, &h);
	/* --help itself: ntmem(1) says once, for all, that every command
	 * takes it. */
	add(&m, "--help", 6, 'h');
	for (int i = 0; i < m.n && !why[0]; i++) {
		const struct opt *o = find(&h, m.o[i].name);
		if (!o)
			snprintf(why, sizeof why, "%s: documented, not in --help", m.o[i].name);
		else if (o->letter != m.o[i].letter)
			snprintf(why, sizeof why, "%s: -%c in --help, -%c in ntmem(1)",
				 o->name, o->letter ? o->letter : '?',
				 m.o[i].letter ? m.o[i].letter : '?');
	}
	for (int i = 0; i < h.n && !why[0]; i++)
		if (!find(&m, h.o[i].name))
			snprintf(why, sizeof why, "%s: in --help, not in ntmem(1)", h.o[i].name);
	t_check(!why[0] && h.n >= 2, name, "%s (%d options in --help, %d documented)",
		why, h.n, m.n);
	free(out);
}

int main(void)
{
	const char *man = t_file_text("docs/ntmem.1");
	if (strlen(man) >= 65535) {
		t_fail("--help against ntmem(1)", "docs/ntmem.1 is over the 64 KiB "
		       "t_file_text reads: read it whole");
		return t_finish();
	}
	if (!*man) {
		t_skip("--help against ntmem(1)", "not run from the repository root "
		       "(no docs/ntmem.1)");
		return t_finish();
	}
	static const char *const commands[] = {"info", "bench", "calibrate",
					       "pollution", "populate", "run"};
	for (size_t i = 0; i < sizeof commands / sizeof commands[0]; i++)
		check_command(man, commands[i]);
	char *out = NULL, run[256];
	snprintf(run, sizeof run, "%s --help", t_ntmem());
	int st = t_run(run, &out, NULL);
	t_check(st == 0 && out && strstr(out, "lists its own") &&
		strstr(out, "-s is --size in bench, --stream-above in run"),
		"ntmem --help: short options differ by command, and where each "
		"command's are", "status %d: %s", st, out ? out : "");
	free(out);
	return t_finish();
}
