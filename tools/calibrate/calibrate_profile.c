/* calibrate_profile.c - the profile "ntmem calibrate" writes: per call
 * class the ladder it calibrated, where it beat the built-in one; how and
 * when it was made; and, in comment, what deleting it returns to. */
#define _GNU_SOURCE
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <time.h>

#include "calibrate.h"
#include "introspect.h"
#include "util/outfile.h"

int cal_check_output(const char *opt, const char *path, int make_dirs,
		     struct cli_error *e)
{
	struct ntm_outfile out;
	if (ntm_outfile_prepare(&out, path, make_dirs ? NTM_OUTFILE_MKDIR : 0))
		return cli_error(e, CLI_USAGE, "%s%scannot write the profile '%s': %s",
				 opt ? opt : "", opt ? ": " : "", path,
				 ntm_outfile_reason(&out));
	return 0;
}

void cal_without_profile(char *buf, size_t len)
{
	static struct policy p;  /* large */
	ntm_policy_build(&p, ntm_cpu(), NULL, NULL);
	if (p.builtin_recorded)
		snprintf(buf, len, "the built-in entry for this CPU (%.200s)",
			 p.default_how[0]);
	else
		snprintf(buf, len, "the rule for CPUs not recorded");
}

/* The comment: when, how long, what deleting it returns to and the
 * command that does, and per class whether it holds a calibrated
 * ladder. */
static void comment_text(const struct cal_options *o, const struct cal_class *k,
			 const char *path, time_t made, char *buf, size_t len)
{
	char when[64], back[320], words[256], undo[1200];
	strftime(when, sizeof when, "%Y-%m-%d %H:%M:%S UTC", gmtime(&made));
	cal_without_profile(back, sizeof back);
	cal_undo_command(o, path, undo, sizeof undo);
	size_t used = (size_t)snprintf(buf, len, "calibrated %s (%s effort, %.0f s).\n"
				       "Delete this file to go back to %s:\n%s", when,
				       o->effort->name, o->seconds, back, undo);
	for (int cls = 0; cls < 3 && used < len; cls++) {
		cal_words(&k[cls].written, words, sizeof words);
		used += (size_t)snprintf(buf + used, len - used, "\n%s: %s", k[cls].label,
					 k[cls].keeps_builtin ? "no ladder here: the built-in "
					 "one stays, as calibration did not beat it twice"
					 : words);
	}
}

int cal_write_profile(const struct cal_options *o, const struct cal_class *k,
		      const char *path, struct cli_error *e)
{
	struct profile p;
	char comment[2048];
	time_t now = time(NULL);
	struct ntm_outfile out;
	/* --output's directory was there when measuring began; the profile
	 * writer makes missing ones, so a directory gone since must fail
	 * here rather than be made. */
	if (o->output && ntm_outfile_prepare(&out, path, 0))
		return cli_error(e, CLI_FAILED, "--output: cannot write the profile "
				 "'%s': %s", path, ntm_outfile_reason(&out));
	ntm_profile_init(&p, ntm_cpu());
	snprintf(p.effort, sizeof p.effort, "%s", o->effort->name);
	p.made = (long long)now;
	comment_text(o, k, path, now, comment, sizeof comment);
	for (int cls = 0; cls < 3; cls++) {
		struct profile_ladder *pl = &p.ladder[cls];
		if (k[cls].keeps_builtin)
			continue;  /* absent: the built-in ladder serves */
		cal_ladder_text(&k[cls].written, pl->rungs, sizeof pl->rungs);
		if (k[cls].streaming >= 0)
			snprintf(pl->streaming, sizeof pl->streaming, "%s",
				 k[cls].cands[k[cls].streaming].name);
	}
	p.min_chunk = o->parallel.min_chunk;
	if (ntm_profile_write(path, &p, comment, o->system ? NTM_PROFILE_SHARED : 0))
		return cli_error(e, CLI_FAILED, "cannot write the profile '%s': %s",
				 path, strerror(errno));
	return 0;
}
