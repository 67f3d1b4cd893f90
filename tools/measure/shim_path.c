/* shim_path.c - find libntmem-preload.so (see shim_path.h). */
#define _GNU_SOURCE
#include "shim_path.h"

#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

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

int shim_find(const char *exe_dir, const char *libdir, char *path,
	      size_t len, char *why, size_t why_len)
{
	const char *dirs[] = {exe_dir, exe_dir, libdir};
	const char *under[] = {"", "/../lib", ""};
	char candidate[PATH_MAX];
	for (size_t i = 0; i < sizeof dirs / sizeof dirs[0]; i++) {
		if (!dirs[i])
			continue;
		snprintf(candidate, sizeof candidate, "%s%s/%s", dirs[i], under[i],
			 SHIM_NAME);
		char *real = realpath(candidate, NULL);
		if (real && access(real, R_OK) == 0 && strlen(real) < len) {
			strcpy(path, real);
			free(real);
			return 0;
		}
		free(real);
	}
	snprintf(why, why_len, "cannot find %s: it is neither next to the ntmem "
		 "binary (%s), nor in ../lib beside it, nor in %s; build it with "
		 "'make' or install it with 'make install'", SHIM_NAME,
		 exe_dir ? exe_dir : "unknown", libdir);
	return -1;
}
