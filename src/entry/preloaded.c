/* preloaded.c - ntmem_preloaded(): whether this process's memset and
 * memcpy are libntmem-preload.so's.  Part of libntmem itself, so that a
 * program with its own copy of the library (the ntmem tool links it
 * statically) can tell that it runs under the shim. */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <errno.h>

#include "ntmem.h"

/* The shim exports one mark beside the C library's names (preload.c).
 * Calls go to the shim when the first memset and memcpy the dynamic
 * linker finds are defined in the object that carries the mark. */
int ntmem_preloaded(void)
{
	static const char *const names[] = {"memset", "memcpy"};
	int saved = errno, yes = 0;
	Dl_info mark, fn;
	void *m = dlsym(RTLD_DEFAULT, "ntmem_preload_version");
	if (m && dladdr(m, &mark)) {
		yes = 1;
		for (size_t i = 0; i < sizeof names / sizeof names[0]; i++) {
			void *f = dlsym(RTLD_DEFAULT, names[i]);
			if (!f || !dladdr(f, &fn) || fn.dli_fbase != mark.dli_fbase)
				yes = 0;
		}
	}
	errno = saved;
	return yes;
}
