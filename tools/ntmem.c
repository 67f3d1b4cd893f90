/* ntmem.c - the ntmem command: dispatch to a subcommand. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "output/cli.h"
#include "commands.h"
#include "measure/emulation.h"
#include "ntmem.h"

static const struct command {
	const char *name;
	int (*run)(int argc, char **argv);
	const char *summary;
	int measures;  /* describes or times the machine */
	int lists_ignored;  /* its output lists the ignored settings itself */
} commands[] = {
	{"info", cmd_info, "CPU features, variants, and the policy in effect", 1, 1},
	{"bench", cmd_bench, "memset/memcpy bandwidth of every variant", 1, 0},
	{"calibrate", cmd_calibrate, "measure every variant, fit and write the ladders", 1, 0},
	{"pollution", cmd_pollution, "what each method costs everyone else's cache", 1, 0},
	{"populate", cmd_populate, "fault in a fresh mapping on several threads", 1, 0},
	{"run", cmd_run, "run a program with the memset/memcpy shim preloaded", 0, 0},
};

static void usage(FILE *f)
{
	fprintf(f, "Usage: ntmem COMMAND [OPTIONS]\n"
		   "Clear and copy large memory without trashing the caches.\n\n"
		   "Commands:\n");
	for (size_t i = 0; i < sizeof commands / sizeof commands[0]; i++)
		fprintf(f, "  %-10s %s\n", commands[i].name, commands[i].summary);
	fprintf(f, "\n'ntmem COMMAND --help' describes a command and lists its own\n"
		   "options; a short option may mean another thing in another\n"
		   "command (-s is --size in bench, --stream-above in run).  See\n"
		   "also ntmem(1).\n"
		   "  -h, --help     show this help\n"
		   "  -V, --version  show the version\n");
}

/* The commands that measure or describe the machine say so when it may
 * be an emulator (see emulation.c), on stderr. */
static void note_emulation(const struct command *c)
{
	const char *why = c->measures ? tool_emulation_reason() : NULL;
	if (why)
		fprintf(stderr, "ntmem: note: maybe not real hardware (%s): "
			"timings and cache sizes under emulation are not "
			"meaningful\n", why);
}

/* The items of NTMEM_TUNABLES that libntmem ignores, on stderr, once,
 * before the command runs: a typo there would otherwise change nothing
 * and say nothing (ntmem info lists them).  This process's own policy
 * read the same variable as it loaded, as run's programs do; its notes
 * of the profile are info's to show. */
static void note_ignored_tunables(const struct command *c)
{
	const char *text = getenv("NTMEM_TUNABLES");
	const char *prefix = "NTMEM_TUNABLES: ";
	if (c->lists_ignored || !text || !*text)
		return;
	const char *note;
	for (int i = 0; (note = ntmem_policy_ignored(i)); i++) {
		if (!strncmp(note, prefix, strlen(prefix)))
			fprintf(stderr, "ntmem: %s (ignored)\n", note);
		else if (strncmp(note, "profile ", 8) && strncmp(note, "NTMEM_PROFILE", 13))
			fprintf(stderr, "ntmem: %s%s\n", prefix, note);  /* the count
									   of those that did not fit */
	}
}

int main(int argc, char **argv)
{
	if (argc < 2) {
		usage(stderr);
		return 2;
	}
	const char *cmd = argv[1];
	if (!strcmp(cmd, "-h") || !strcmp(cmd, "--help") || !strcmp(cmd, "help")) {
		usage(stdout);
		return 0;
	}
	if (!strcmp(cmd, "-V") || !strcmp(cmd, "--version")) {
		printf("ntmem %s\n", ntmem_version());
		return 0;
	}
	for (size_t i = 0; i < sizeof commands / sizeof commands[0]; i++)
		if (!strcmp(cmd, commands[i].name)) {
			cli_command = commands[i].name;
			note_emulation(&commands[i]);
			note_ignored_tunables(&commands[i]);
			return commands[i].run(argc - 1, argv + 1);
		}
	cli_usage_error("unknown command '%s'", cmd);
}
