/* portable.c - plain C word loops that build on any architecture: the
 * fallback where no other variant can run.  Cached stores. */
#include <stdint.h>

#include "features.h"
#include "variant.h"

/* may_alias: the caller's buffer can hold objects of any type. */
typedef uintptr_t __attribute__((may_alias)) word;

static void *ntm_set_portable(void *dst, int c, size_t n)
{
	unsigned char *d = dst;
	unsigned char b = (unsigned char)c;
	for (; n && ((uintptr_t)d % sizeof(word)); n--)
		*d++ = b;
	word w = (word)-1 / 0xff * b;  /* b in every byte */
	for (; n >= 4 * sizeof(word); n -= 4 * sizeof(word)) {
		word *p = (word *)(void *)d;
		p[0] = w;
		p[1] = w;
		p[2] = w;
		p[3] = w;
		d += 4 * sizeof(word);
	}
	for (; n >= sizeof(word); n -= sizeof(word), d += sizeof(word))
		*(word *)(void *)d = w;
	while (n--)
		*d++ = b;
	return dst;
}

static void *ntm_copy_portable(void *dst, const void *src, size_t n)
{
	unsigned char *d = dst;
	const unsigned char *s = src;
	for (; n && ((uintptr_t)d % sizeof(word)); n--)
		*d++ = *s++;
	/* Aligned stores; loads from any alignment, which the compiler turns
	 * into plain loads where the target allows them. */
	for (; n >= sizeof(word); n -= sizeof(word)) {
		word w;
		__builtin_memcpy(&w, s, sizeof w);
		*(word *)(void *)d = w;
		d += sizeof(word);
		s += sizeof(word);
	}
	while (n--)
		*d++ = *s++;
	return dst;
}

DEFINE_FAMILY(portable,
	{.name = "portable",
	 .description = "plain C word stores, any architecture",
	 .op = NTMEM_OP_SET, .role = NTMEM_ROLE_PLAIN, .rank = 1, .requires = 0,
	 .set = ntm_set_portable},
	{.name = "portable",
	 .description = "plain C word copy, any architecture",
	 .op = NTMEM_OP_COPY, .role = NTMEM_ROLE_PLAIN, .rank = 1, .requires = 0,
	 .copy = ntm_copy_portable});
