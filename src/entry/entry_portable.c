/* entry_portable.c - the entry points where no vector width has its own
 * (any architecture but x86-64 and AArch64): a small path of two to four
 * overlapping word stores, the ladder beyond it. */
#include "dispatch/width.h"
#include "entry.h"

#include <stdint.h>

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

#define ENTRY_WIDTH NTM_WIDTH_PORTABLE
#define ENTRY_NAME(stem) ntm_##stem##_portable
#define ENTRY_SMALL_MAX NTM_PORTABLE_SMALL_MAX
#define ENTRY_SMALL_NAME "word stores"
#define ENTRY_SMALL_SET(d, c, n) small_set_words((d), (c), (n))
#define ENTRY_SMALL_COPY(d, s, n) small_copy_words((d), (s), (n))
#include "entry_c.h"
