/* peers.h - memset and memcpy from other shared objects, timed beside
 * ntmem's own: the preloaded shim's (the path a preloaded program takes)
 * and those a user might pick instead, such as PMDK's libpmem.
 *
 * None is a build dependency: each is opened with dlopen(RTLD_LOCAL |
 * RTLD_NOW) when the tool first lists its functions, so that it
 * interposes nothing in this process, and is skipped, with dlopen's or
 * dlsym's reason, where it is not installed.  One more peer is one row
 * of the table in peers.c. */
#ifndef NTM_PEERS_H
#define NTM_PEERS_H

#include <stddef.h>

/* How a peer's functions are called. */
enum peer_abi {
	PEER_ABI_LIBC,     /* memset(dst, c, n), memcpy(dst, src, n) */
	PEER_ABI_FLAGS,    /* the same with a last argument: flags */
};

struct peer_def {
	const char *name;           /* bench's -f name */
	const char *description;
	const char *library;        /* the soname dlopen is given; NULL: ntmem's
				       own shim, found as "ntmem run" finds it */
	const char *set_symbol, *copy_symbol;
	enum peer_abi abi;
	unsigned flags;             /* PEER_ABI_FLAGS: every call's flags */
	const char *drain_symbol;   /* called once after every call, or NULL */
	int nontemporal;            /* 1: every call streams; -1: unknown */
	const char *install;        /* how to install it, for the skip note */
};

typedef void *peer_set_fn(void *, int, size_t);
typedef void *peer_copy_fn(void *, const void *, size_t);
typedef void *peer_set_flags_fn(void *, int, size_t, unsigned);
typedef void *peer_copy_flags_fn(void *, const void *, size_t, unsigned);

/* A peer as opened. */
struct peer {
	const struct peer_def *def;
	int supported;
	char why[1024];             /* !supported: why not */
	char path[512];             /* the object the functions are in */
	union { peer_set_fn *plain; peer_set_flags_fn *flags; } set;
	union { peer_copy_fn *plain; peer_copy_flags_fn *flags; } copy;
	void (*drain)(void);
};

/* The peers, opened on the first call (once per process): count and i-th. */
size_t peer_count(void);
const struct peer *peer_get(size_t i);

/* Open def's library at path (NULL: by its soname, as dlopen searches)
 * into *p; the result is in p->supported and p->why.  For the tests,
 * which name the shim of the build they test. */
void peer_open(struct peer *p, const struct peer_def *def, const char *path);

/* The row of the table named name, or NULL. */
const struct peer_def *peer_def_find(const char *name);

/* One call of p's memset (peer_set) or memcpy (peer_copy), then its
 * drain: what a program using the peer would write.  Inline, as they are
 * timed at 64 bytes too.  Each returns what the function returned. */
static inline void *peer_set(const struct peer *p, void *dst, int value,
			     size_t n)
{
	void *r = p->def->abi == PEER_ABI_FLAGS
			  ? p->set.flags(dst, value, n, p->def->flags)
			  : p->set.plain(dst, value, n);
	if (p->drain)
		p->drain();
	return r;
}

static inline void *peer_copy(const struct peer *p, void *dst,
			      const void *src, size_t n)
{
	void *r = p->def->abi == PEER_ABI_FLAGS
			  ? p->copy.flags(dst, src, n, p->def->flags)
			  : p->copy.plain(dst, src, n);
	if (p->drain)
		p->drain();
	return r;
}

#endif
