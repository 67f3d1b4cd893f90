/* profile_check.c - after "ntmem calibrate" has written a profile: will
 * libntmem read it?  A profile the library does not trust (a directory
 * above it writable by group or others, a file owned by someone else) or
 * that other users cannot read (--system) is ignored where it was meant
 * to serve, so calibrate says so instead of leaving it to be found. */
#define _GNU_SOURCE
#include "calibrate.h"

#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "introspect.h"

static void warn(const char *path, const char *what)
{
	fprintf(stderr, "ntmem calibrate: warning: %s: %s\n", path, what);
}

/* Every directory above the file searchable by others, the file readable
 * by them; else the first that is not, into why. */
static int others_can_read(const char *real, char *why, size_t len)
{
	char prefix[PATH_MAX];
	for (size_t i = 1;; i++) {
		if (real[i] != '/' && real[i])
			continue;
		snprintf(prefix, sizeof prefix, "%.*s", i > 1 ? (int)i : 1, real);
		struct stat st;
		mode_t need = real[i] ? S_IXOTH : S_IROTH;
		if (stat(prefix, &st) || !(st.st_mode & need)) {
			snprintf(why, len, "%.200s is mode %04o: other users cannot %s it",
				 prefix, (unsigned)(st.st_mode & 07777),
				 real[i] ? "search" : "read");
			return 0;
		}
		if (!real[i])
			return 1;
	}
}

void cal_check_written(const char *path, int system)
{
	char why[256], real[PATH_MAX], line[400];
	int fd = ntm_profile_open(path, why, sizeof why);
	if (fd < 0) {
		snprintf(line, sizeof line, "libntmem will ignore this profile: %s", why);
		warn(path, line);
		return;
	}
	struct stat st;
	int owned_by_root = !fstat(fd, &st) && st.st_uid == 0;
	close(fd);
	if (!system)
		return;
	if (!owned_by_root) {
		snprintf(line, sizeof line, "owned by uid %u, not root: libntmem in "
			 "other users' processes will ignore it", (unsigned)st.st_uid);
		warn(path, line);
	}
	if (realpath(path, real) && !others_can_read(real, why, sizeof why)) {
		snprintf(line, sizeof line, "%s; libntmem in their processes will "
			 "ignore it", why);
		warn(path, line);
	}
}
