/* libc.h - the C library's memset, memcpy and memmove, reached through
 * pointers.  In the LD_PRELOAD shim these names are ntmem's own, so a
 * plain call would come back into ntmem; the pointers lead to the C
 * library's definitions instead. */
#ifndef NTM_LIBC_H
#define NTM_LIBC_H

#include <stddef.h>

#include "features.h"

struct libc_fns {
	void *(*memset)(void *dst, int c, size_t n);
	void *(*memcpy)(void *dst, const void *src, size_t n);
	void *(*memmove)(void *dst, const void *src, size_t n);
};

/* Until ntm_libc_resolve() has run they are these byte loops: always
 * correct, never a way back into the caller, and safe to call before
 * the shim is relocated (they read nothing but their arguments). */
NTM_HIDDEN void *ntm_bytes_set(void *dst, int c, size_t n);
NTM_HIDDEN void *ntm_bytes_move(void *dst, const void *src, size_t n);
extern struct libc_fns ntm_libc;

/* The shim, whose own these names are, hands down the C library's
 * definitions it found (NULL: none, keep the portable loops), before the
 * library's constructor runs.  Called once. */
void ntm_libc_use(const struct libc_fns *fns);

/* Point ntm_libc at the C library's memset, memcpy and memmove, unless
 * the shim has handed its own down.  Called once, by the library's
 * constructor, before the policy is built. */
void ntm_libc_resolve(void);

#endif
