/* shim_path.h - where libntmem-preload.so is: "ntmem run" preloads it,
 * and "ntmem bench -f shim" opens it to time its own memcpy and memset. */
#ifndef NTM_SHIM_PATH_H
#define NTM_SHIM_PATH_H

#include <stddef.h>

#define SHIM_NAME "libntmem-preload.so"

/* The SHIMDIR the tool was built for (make SHIMDIR=...; LIBDIR by
 * default), where "make install" puts the shim. */
const char *shim_libdir(void);

/* The directory of the running program, in buf; NULL when unknown. */
const char *shim_exe_dir(char *buf, size_t len);

/* The shim in exe_dir (the build tree), else in exe_dir/../lib (an
 * installed tree, wherever PREFIX put it), else in libdir: its absolute
 * path into path.  With a width (shim_width_dir()), the library of that
 * width's own in the first of them that has one, width/SHIM_NAME; else
 * the dispatching one.  Returns 0, or -1 with where it looked in why. */
int shim_find(const char *exe_dir, const char *libdir, const char *width,
	      char *path, size_t len, char *why, size_t why_len);

/* The vector width the shim runs in a process given NTMEM_TUNABLES
 * tunables (NULL: none): shim_width= where this CPU runs it, else the
 * CPU's own.  Its name ("avx512", ...), or NULL where the shim has no
 * library of one width (not x86-64). */
const char *shim_width_dir(const char *tunables);

#endif
