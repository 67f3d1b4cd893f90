/* calibrate_undo.c - "ntmem calibrate --undo": remove the profile a
 * calibration wrote, so that libntmem goes back to what it ran before,
 * and say which file went and what libntmem reads now.  Only a file that
 * starts as every profile does is removed: --output or NTMEM_PROFILE may
 * name any file. */
#define _GNU_SOURCE
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "calibrate.h"
#include "introspect.h"

/* Does the file at path start as a profile ("ntmem-profile N")?  0 yes;
 * else -1 with errno (EINVAL: another file). */
static int looks_like_profile(const char *path)
{
	static const char magic[] = "ntmem-profile ";
	char head[sizeof magic - 1];
	FILE *f = fopen(path, "r");
	if (!f)
		return -1;
	size_t n = fread(head, 1, sizeof head, f);
	int bad = ferror(f);
	int saved = errno;
	fclose(f);
	if (bad) {
		errno = saved ? saved : EIO;
		return -1;
	}
	if (n != sizeof head || memcmp(head, magic, sizeof head)) {
		errno = EINVAL;
		return -1;
	}
	return 0;
}

/* What libntmem reads now that path is gone: the system-wide profile
 * where there is one (and this was the user's), else no profile. */
static void now_reads(const char *removed, char *buf, size_t len)
{
	char in_effect[1024], without[400];
	const char *why;
	if (!ntm_profile_in_effect(in_effect, sizeof in_effect, &why) &&
	    strcmp(in_effect, removed) && !access(in_effect, F_OK)) {
		snprintf(buf, len, "the profile %s", in_effect);
		return;
	}
	cal_without_profile(without, sizeof without);
	snprintf(buf, len, "%s", without);
}

int cal_undo(const char *path, int system, struct cli_error *e)
{
	struct stat st;
	char next[1500];
	const char *what = system ? "system-wide profile" : "profile";
	if (lstat(path, &st)) {
		if (errno != ENOENT && errno != ENOTDIR)
			return cli_error(e, CLI_FAILED, "cannot remove the %s '%s': %s",
					 what, path, strerror(errno));
		now_reads(path, next, sizeof next);
		printf("No %s at %s: nothing to remove.\nlibntmem uses %s.\n", what,
		       path, next);
		return 0;
	}
	if (looks_like_profile(path)) {
		if (errno == EINVAL)
			return cli_error(e, CLI_FAILED, "%s: not a profile written by "
					 "ntmem calibrate (it does not start with "
					 "'ntmem-profile'): not removed", path);
		return cli_error(e, CLI_FAILED, "cannot read the %s '%s' to check "
				 "it: %s: not removed", what, path, strerror(errno));
	}
	if (unlink(path))
		return cli_error(e, CLI_FAILED, "cannot remove the %s '%s': %s%s",
				 what, path, strerror(errno),
				 errno == EACCES || errno == EPERM
					 ? " (its directory is not yours to change)" : "");
	now_reads(path, next, sizeof next);
	printf("Removed the %s %s%s.\nlibntmem now uses %s.\n", what, path,
	       S_ISLNK(st.st_mode) ? " (a symbolic link: the file it named stays)"
				   : "", next);
	return 0;
}
