/* consumer.c - a program that uses an installed libntmem as any other
 * program would: <ntmem.h> and the library, found through pkg-config or
 * CMake.  tests/check.sh builds it against a DESTDIR install and against
 * the Debian packages, linked statically and dynamically, and runs it.
 *
 * It checks ntmem_set and ntmem_copy, plain and with each side of the
 * ladder forced, against memset and memcpy on known bytes, at sizes from
 * the small path up to several MiB and at odd offsets, with the bytes
 * around the destination left as they were; and that the library it
 * loaded is its header's version.  Prints "ok: ..." and exits 0, or
 * names the first difference and exits 1. */
#include <ntmem.h>

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define STR_(x) #x
#define STR(x) STR_(x)
#define HEADER_VERSION STR(NTMEM_VERSION_MAJOR) "." STR(NTMEM_VERSION_MINOR) \
	"." STR(NTMEM_VERSION_PATCH)

#define GUARD 64  /* bytes on either side that no call may touch */
#define MAX_SIZE (6u << 20)

static unsigned checks;

/* Known bytes: a fixed xorshift sequence, the same on every run. */
static void fill(unsigned char *p, size_t n, uint64_t seed)
{
	uint64_t x = seed | 1;
	for (size_t i = 0; i < n; i++) {
		x ^= x << 13;
		x ^= x >> 7;
		x ^= x << 17;
		p[i] = (unsigned char)x;
	}
}

/* got and want, GUARD bytes before and after included, are equal. */
static int same(const char *what, size_t n, size_t off, unsigned flags,
		const unsigned char *got, const unsigned char *want)
{
	checks++;
	if (!memcmp(got, want, n + 2 * GUARD))
		return 1;
	size_t i = 0;
	while (got[i] == want[i])
		i++;
	fprintf(stderr, "FAIL: %s of %zu bytes at offset %zu, flags 0x%x: byte "
		"%td differs (0x%02x, libc gives 0x%02x)\n", what, n, off, flags,
		(ptrdiff_t)i - GUARD, got[i], want[i]);
	return 0;
}

static int check_size(size_t n, size_t off, unsigned flags,
		      unsigned char *dst, unsigned char *ref, unsigned char *src)
{
	size_t span = n + 2 * GUARD;
	fill(src, span, n + off);
	fill(dst, span, ~(uint64_t)n);
	memcpy(ref, dst, span);
	memcpy(ref + GUARD, src + GUARD, n);
	void *r = flags ? ntmem_copy_flags(dst + GUARD, src + GUARD, n, flags)
			: ntmem_copy(dst + GUARD, src + GUARD, n);
	if (r != dst + GUARD || !same("ntmem_copy", n, off, flags, dst, ref))
		return 0;
	for (int c = 0; c < 256; c += 0xa5) {
		memset(ref + GUARD, c, n);
		r = flags ? ntmem_set_flags(dst + GUARD, c, n, flags)
			  : ntmem_set(dst + GUARD, c, n);
		if (r != dst + GUARD || !same("ntmem_set", n, off, flags, dst, ref))
			return 0;
	}
	return 1;
}

int main(void)
{
	static const size_t sizes[] = {0, 1, 7, 64, 255, 4096 + 13, 65536 + 1,
				       (1u << 20) + 63, MAX_SIZE - 2 * GUARD - 64};
	static const unsigned flags[] = {0, NTMEM_F_TEMPORAL, NTMEM_F_NONTEMPORAL};
	if (strcmp(ntmem_version(), HEADER_VERSION)) {
		fprintf(stderr, "FAIL: the library loaded is ntmem %s, the header "
			"ntmem %s\n", ntmem_version(), HEADER_VERSION);
		return 1;
	}
	unsigned char *buf[3];
	for (int i = 0; i < 3; i++)
		if (!(buf[i] = malloc(MAX_SIZE + 64)))
			return perror("malloc"), 1;
	for (size_t s = 0; s < sizeof sizes / sizeof sizes[0]; s++)
		for (size_t off = 0; off < 64; off += 21)
			for (size_t f = 0; f < sizeof flags / sizeof flags[0]; f++)
				if (!check_size(sizes[s], off, flags[f], buf[0] + off,
						buf[1] + off, buf[2] + (off ^ 5)))
					return 1;
	printf("ok: ntmem %s, %u results equal to memset's and memcpy's\n",
	       ntmem_version(), checks);
	for (int i = 0; i < 3; i++)
		free(buf[i]);
	return 0;
}
