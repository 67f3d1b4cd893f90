/* peers.c - the table of peers and their opening (see peers.h). */
#define _GNU_SOURCE
#include "peers.h"

#include <dlfcn.h>
#include <limits.h>
#include <link.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "shim_path.h"

/* libpmem's flags, from its documentation (pmem_memcpy(3), libpmem.h):
 * PMEM_F_MEM_NODRAIN leaves the drain (SFENCE) to the caller, and
 * PMEM_F_MEM_NONTEMPORAL asks for streaming stores at every size. */
#define PMEM_F_MEM_NODRAIN (1u << 0)
#define PMEM_F_MEM_NONTEMPORAL (1u << 1)

static const struct peer_def table[] = {
	{"shim", "libntmem-preload.so's own memset/memcpy: what a preloaded "
		 "program calls",
	 NULL, "memset", "memcpy", PEER_ABI_LIBC, 0, NULL, -1,
	 "build it with 'make'"},
	/* Streaming forced, drained once per call: pmem's fastest way to
	 * write memory it will not read soon. */
	{"pmem", "PMDK libpmem, streaming forced: pmem_memset/pmem_memcpy "
		 "NONTEMPORAL|NODRAIN, then pmem_drain",
	 "libpmem.so.1", "pmem_memset", "pmem_memcpy", PEER_ABI_FLAGS,
	 PMEM_F_MEM_NONTEMPORAL | PMEM_F_MEM_NODRAIN, "pmem_drain", 1,
	 "Debian package libpmem1"},
	/* Flags 0: what a pmem program gets by default, flushed and drained
	 * (streaming from pmem's own threshold up). */
	{"pmem_default", "PMDK libpmem, its default flags: pmem_memset/"
			 "pmem_memcpy with flags 0",
	 "libpmem.so.1", "pmem_memset", "pmem_memcpy", PEER_ABI_FLAGS, 0, NULL,
	 -1, "Debian package libpmem1"},
};
#define NPEERS (sizeof table / sizeof table[0])

static struct peer peers[NPEERS];
static pthread_once_t once = PTHREAD_ONCE_INIT;

/* sym must be defined in the object handle opened, not in one it depends
 * on: the shim's memcpy, not the C library's that dlsym would also find. */
static int defined_in(void *handle, void *sym)
{
	struct link_map *lm;
	Dl_info here, there;
	return dlinfo(handle, RTLD_DI_LINKMAP, &lm) == 0 &&
	       dladdr((void *)lm->l_ld, &here) && dladdr(sym, &there) &&
	       here.dli_fbase == there.dli_fbase;
}

/* Symbol name of handle into *out; 0, or -1 with p->why. */
static int symbol(struct peer *p, void *handle, const char *name, void **out)
{
	dlerror();
	*out = dlsym(handle, name);
	if (!*out) {
		const char *err = dlerror();
		snprintf(p->why, sizeof p->why, "%s has no %s: %s", p->path, name,
			 err ? err : "NULL");
		return -1;
	}
	if (!defined_in(handle, *out)) {
		snprintf(p->why, sizeof p->why, "%s does not define %s itself",
			 p->path, name);
		return -1;
	}
	return 0;
}

/* Where def's library is, into p->path; 0, or -1 with p->why. */
static int locate(struct peer *p, const struct peer_def *def, const char *path)
{
	if (path || def->library) {
		snprintf(p->path, sizeof p->path, "%s", path ? path : def->library);
		return 0;
	}
	char dir[PATH_MAX];
	/* The one ntmem run would preload (NTMEM_TUNABLES shim_width= too). */
	const char *width = shim_width_dir(getenv("NTMEM_TUNABLES"));
	if (shim_find(shim_exe_dir(dir, sizeof dir), shim_libdir(), width, p->path,
		      sizeof p->path, p->why, sizeof p->why))
		return -1;
	return 0;
}

void peer_open(struct peer *p, const struct peer_def *def, const char *path)
{
	memset(p, 0, sizeof *p);
	p->def = def;
	if (locate(p, def, path))
		return;
	/* RTLD_LOCAL: the peer's memcpy must not become this process's. */
	void *handle = dlopen(p->path, RTLD_LOCAL | RTLD_NOW);
	if (!handle) {
		const char *err = dlerror();
		snprintf(p->why, sizeof p->why, "%s (%s)", err ? err : p->path,
			 def->install);
		return;
	}
	void *set, *copy, *drain = NULL;
	if (symbol(p, handle, def->set_symbol, &set) ||
	    symbol(p, handle, def->copy_symbol, &copy) ||
	    (def->drain_symbol && symbol(p, handle, def->drain_symbol, &drain))) {
		dlclose(handle);
		return;
	}
	/* Object to function pointers: POSIX dlsym's own convention. */
	memcpy(&p->set, &set, sizeof set);
	memcpy(&p->copy, &copy, sizeof copy);
	memcpy(&p->drain, &drain, sizeof drain);
	p->supported = 1;
	/* Never closed: the functions are used until the process ends. */
}

static void open_all(void)
{
	for (size_t i = 0; i < NPEERS; i++)
		peer_open(&peers[i], &table[i], NULL);
}

size_t peer_count(void)
{
	return NPEERS;
}

const struct peer *peer_get(size_t i)
{
	pthread_once(&once, open_all);
	return i < NPEERS ? &peers[i] : NULL;
}

const struct peer_def *peer_def_find(const char *name)
{
	for (size_t i = 0; i < NPEERS; i++)
		if (!strcmp(table[i].name, name))
			return &table[i];
	return NULL;
}
