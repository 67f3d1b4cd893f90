/* portable.c - plain C word loops that build on any architecture: the
 * fallback where no other variant can run.  Cached stores. */
#include <stdint.h>

#include "dispatch/cpu.h"
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

/* The entry points where no vector width has its own (off x86-64): the
 * small path is two to four overlapping word stores. */
#include "entry/entry.h"

#define PORTABLE_SMALL_MAX 32

static void small_set_words(unsigned char *d, int c, size_t n)
{
	uint64_t w = 0x0101010101010101ull * (unsigned char)c;
	if (n >= 16) {
		__builtin_memcpy(d, &w, 8);
		__builtin_memcpy(d + 8, &w, 8);
		__builtin_memcpy(d + n - 16, &w, 8);
		__builtin_memcpy(d + n - 8, &w, 8);
	} else if (n >= 8) {
		__builtin_memcpy(d, &w, 8);
		__builtin_memcpy(d + n - 8, &w, 8);
	} else {
		while (n--)
			*d++ = (unsigned char)c;
	}
}

/* Loads before stores: memmove-safe. */
static void small_copy_words(unsigned char *d, const unsigned char *s, size_t n)
{
	uint64_t a, b, y, z;
	if (n >= 16) {
		__builtin_memcpy(&a, s, 8);
		__builtin_memcpy(&b, s + 8, 8);
		__builtin_memcpy(&y, s + n - 16, 8);
		__builtin_memcpy(&z, s + n - 8, 8);
		__builtin_memcpy(d, &a, 8);
		__builtin_memcpy(d + 8, &b, 8);
		__builtin_memcpy(d + n - 16, &y, 8);
		__builtin_memcpy(d + n - 8, &z, 8);
	} else if (n >= 8) {
		__builtin_memcpy(&a, s, 8);
		__builtin_memcpy(&z, s + n - 8, 8);
		__builtin_memcpy(d, &a, 8);
		__builtin_memcpy(d + n - 8, &z, 8);
	} else if (d < s) {
		while (n--)
			*d++ = *s++;
	} else {
		while (n--)
			d[n] = s[n];
	}
}

static void *entry_set(void *dst, int c, size_t n)
{
	if (n <= PORTABLE_SMALL_MAX) {
		small_set_words(dst, c, n);
		return dst;
	}
	return ntm_set_large(dst, c, n, 0);
}

static void *entry_copy(void *dst, const void *src, size_t n)
{
	if (n <= PORTABLE_SMALL_MAX) {
		small_copy_words(dst, src, n);
		return dst;
	}
	return ntm_copy_large(dst, src, n, 0);
}

static void *entry_set_flags(void *dst, int c, size_t n, unsigned flags)
{
	if (n <= PORTABLE_SMALL_MAX && (!(flags & NTMEM_F_NONTEMPORAL) || n == 0)) {
		small_set_words(dst, c, n);
		return dst;
	}
	return ntm_set_large(dst, c, n, flags);
}

static void *entry_copy_flags(void *dst, const void *src, size_t n,
			      unsigned flags)
{
	if (n <= PORTABLE_SMALL_MAX && (!(flags & NTMEM_F_NONTEMPORAL) || n == 0)) {
		small_copy_words(dst, src, n);
		return dst;
	}
	return ntm_copy_large(dst, src, n, flags);
}

const struct entry_width ntm_entry_portable = {
	entry_set, entry_copy, entry_set_flags, entry_copy_flags,
	PORTABLE_SMALL_MAX, "word stores", NULL, NULL,
};
