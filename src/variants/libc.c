/* libc.c - the C library's own memset and memcpy as a variant: calibration
 * may find that it wins a band of sizes, and the built-in default uses it
 * where nothing was measured, since it is never slower than itself. */
#include <string.h>

#include "libc.h"
#include "variant.h"

struct libc_fns ntm_libc = {ntm_bytes_set, ntm_bytes_move, ntm_bytes_move};

/* Set by the shim, whose own memset and memcpy these names are. */
static int handed_down;

void ntm_libc_use(const struct libc_fns *fns)
{
	if (fns) {
		__atomic_store_n(&ntm_libc.memset, fns->memset, __ATOMIC_RELAXED);
		__atomic_store_n(&ntm_libc.memcpy, fns->memcpy, __ATOMIC_RELAXED);
		__atomic_store_n(&ntm_libc.memmove, fns->memmove, __ATOMIC_RELAXED);
	}
	handed_down = 1;
}

void ntm_libc_resolve(void)
{
	if (handed_down)
		return;
	__atomic_store_n(&ntm_libc.memset, memset, __ATOMIC_RELAXED);
	__atomic_store_n(&ntm_libc.memcpy, memcpy, __ATOMIC_RELAXED);
	__atomic_store_n(&ntm_libc.memmove, memmove, __ATOMIC_RELAXED);
}

/* Byte loops: only the few calls before the constructor use them, and
 * they must not be turned into calls to the functions they stand for
 * (this file is built with -fno-builtin and no loop idioms). */
void *ntm_bytes_set(void *dst, int c, size_t n)
{
	unsigned char *d = dst;
	while (n--)
		*d++ = (unsigned char)c;
	return dst;
}

void *ntm_bytes_move(void *dst, const void *src, size_t n)
{
	unsigned char *d = dst;
	const unsigned char *s = src;
	if (d <= s || d >= s + n)
		while (n--)
			*d++ = *s++;
	else
		while (n--)
			d[n] = s[n];
	return dst;
}

static void *set_libc(void *dst, int c, size_t n)
{
	return ntm_libc.memset(dst, c, n);
}

static void *copy_libc(void *dst, const void *src, size_t n)
{
	return ntm_libc.memcpy(dst, src, n);
}

DEFINE_FAMILY(libc,
	{.name = "libc",
	 .description = "the C library's memset",
	 .op = NTMEM_OP_SET, .role = NTMEM_ROLE_LIBC, .rank = 1, .requires = 0,
	 .set = set_libc},
	{.name = "libc",
	 .description = "the C library's memcpy",
	 .op = NTMEM_OP_COPY, .role = NTMEM_ROLE_LIBC, .rank = 1, .requires = 0,
	 .copy = copy_libc});
