/* pollution.c - "ntmem pollution": what a clear or copy costs everyone
 * else's cache, and what streaming costs the data's own next reader.
 *
 * The victim is a randomized pointer chase (chase.h) on huge pages where
 * the kernel gives them.  Four modes (pollution_modes.h):
 *
 *   after       warm the victim, run the aggressor once, time one pass;
 *               against a warm pass with no aggressor before it.
 *   concurrent  the victim chases on another CPU; its rate while the
 *               aggressor runs against its rate alone.
 *   reread      right after the aggressor writes the destination, read its
 *               last part back; against the same read after a cached write.
 *   mixed       one thread alternates aggressor calls with lookups in a hot
 *               table; total time per method, and the lookup part.
 *
 * Every measurement is repeated --runs times with the functions taken in
 * a rotating order, and the medians are reported.  The command line is
 * read in pollution_opts.c, planned in pollution_plan.c, reported in
 * pollution_report.c. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "commands.h"
#include "pollution.h"
#include "pollution_report.h"
#include "pollution_victim.h"

/* Parse and plan into a fresh *o.  Returns 0, 1 when help or the list was
 * asked for (nothing else checked), or -1 with e. */
static int prepare(int argc, char **argv, struct popts *o, struct cli_error *e)
{
	if (pol_parse(argc, argv, o, e))
		return -1;
	if (o->help || o->list)
		return 1;
	return pol_plan(o, e) ? -1 : 0;
}

int pollution_parse_describe(int argc, char **argv, char *desc, size_t desc_len,
			     char *err, size_t err_len)
{
	struct popts *o = malloc(sizeof *o);
	struct cli_error e = {CLI_FAILED, "out of memory"};
	int r = o ? prepare(argc, argv, o, &e) : -1;
	if (r < 0)
		snprintf(err, err_len, "%s", e.msg);
	else if (r > 0)
		snprintf(desc, desc_len, "%s", o->help ? "help" : "list");
	else
		pol_describe(o, desc, desc_len);
	free(o);
	return r;
}

int pollution_json(int argc, char **argv, FILE *out, char *err, size_t err_len)
{
	struct popts *o = malloc(sizeof *o);
	struct cli_error e = {CLI_FAILED, "out of memory"};
	int r = o ? prepare(argc, argv, o, &e) : -1;
	if (r > 0)
		r = cli_error(&e, CLI_USAGE, "nothing measured: help asked for");
	if (!r) {
		struct ctx c = {.o = o};
		r = pol_measure(&c, &e);
		if (!r)
			pol_write_json(&c, out);
		pol_ctx_free(&c);
	}
	if (r)
		snprintf(err, err_len, "%s", e.msg);
	free(o);
	return r;
}

int cmd_pollution(int argc, char **argv)
{
	static struct popts opts;
	struct popts *o = &opts;
	struct cli_error e;
	int r = prepare(argc, argv, o, &e);
	if (r < 0)
		cli_exit(&e);
	if (o->help)
		pol_usage(stdout);
	else if (o->list)
		pol_list_functions(stdout, o);
	if (r > 0)
		return 0;

	if (o->command) {
		if (pol_victim_command(o, &e))
			cli_exit(&e);
		return 0;
	}
	/* The plot's target is checked now, not after minutes of measuring. */
	struct cli_output plot;
	if (o->plot && cli_output_open(&plot, "--plot", o->plot, &e))
		cli_exit(&e);
	struct ctx c = {.o = o, .progress = cli_progress_wanted()};
	if (pol_measure(&c, &e))
		cli_exit(&e);
	if (o->json)
		pol_write_json(&c, stdout);
	else
		pol_print_table(&c, stdout);
	cli_output_finish(o->plot ? &plot : NULL,
			  o->plot && pol_write_plot(&c, plot.f));
	pol_ctx_free(&c);
	return 0;
}
