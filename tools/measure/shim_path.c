/* shim_path.c - find libntmem-preload.so (see shim_path.h). */
#define _GNU_SOURCE
#include "shim_path.h"

#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "introspect.h"

#ifndef NTMEM_LIBDIR
#define NTMEM_LIBDIR "/usr/local/lib"
#endif

const char *shim_libdir(void)
{
	return NTMEM_LIBDIR;
}

const char *shim_exe_dir(char *buf, size_t len)
{
	ssize_t n = readlink("/proc/self/exe", buf, len - 1);
	if (n <= 0)
		return NULL;
	buf[n] = '\0';
	char *slash = strrchr(buf, '/');
	if (!slash)
		return NULL;
	*slash = '\0';
	return buf;
}

/* dir/under/width/SHIM_NAME (no width: dir/under/SHIM_NAME), resolved,
 * into path if it is there and fits. */
static int try_dir(const char *dir, const char *under, const char *width,
		   char *path, size_t len)
{
	char candidate[PATH_MAX];
	snprintf(candidate, sizeof candidate, "%s%s/%s%s%s", dir, under,
		 width ? width : "", width ? "/" : "", SHIM_NAME);
	char *real = realpath(candidate, NULL);
	int found = real && access(real, R_OK) == 0 && strlen(real) < len;
	if (found)
		strcpy(path, real);
	free(real);
	return found;
}

int shim_find(const char *exe_dir, const char *libdir, const char *width,
	      char *path, size_t len, char *why, size_t why_len)
{
	const char *dirs[] = {exe_dir, exe_dir, libdir};
	const char *under[] = {"", "/../lib", ""};
	for (int own = width != NULL; own >= 0; own--)
		for (size_t i = 0; i < sizeof dirs / sizeof dirs[0]; i++)
			if (dirs[i] && try_dir(dirs[i], under[i], own ? width : NULL,
					       path, len))
				return 0;
	snprintf(why, why_len, "cannot find %s: it is neither next to the ntmem "
		 "binary (%s), nor in ../lib beside it, nor in %s; build it with "
		 "'make' or install it with 'make install'", SHIM_NAME,
		 exe_dir ? exe_dir : "unknown", libdir);
	return -1;
}

const char *shim_width_dir(const char *tunables)
{
	enum ntm_width most = ntm_width_choose();
	enum ntm_width w = tunables ? ntm_tunables_shim_width(tunables) : NTM_WIDTH_NONE;
	return ntm_width_name(w != NTM_WIDTH_NONE && w <= most ? w : most);
}
