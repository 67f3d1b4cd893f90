/* rep.c - the string instructions: rep stosb, rep stosq and rep movsb.
 * Cached: on most CPUs they allocate every line they write, though some
 * stop allocating above the LLC size (measure, don't assume). */
#include "features.h"
#include "variant.h"

#ifdef __x86_64__
#include <stdint.h>
#include <string.h>

static void *ntm_set_stosb(void *dst, int c, size_t n)
{
	void *d = dst;
	__asm__ volatile("rep stosb"
			 : "+D"(d), "+c"(n)
			 : "a"(c)
			 : "memory");
	return dst;
}

/* rep stosq on an 8-byte aligned body; the few bytes around it by memset. */
static void *ntm_set_stosq(void *dst, int c, size_t n)
{
	unsigned char *d = dst;
	size_t head = (size_t)(-(uintptr_t)d) & 7;
	if (n < head + 8) {
		memset(d, c, n);
		return dst;
	}
	memset(d, c, head);
	d += head;
	n -= head;
	size_t words = n / 8;
	uint64_t pattern = 0x0101010101010101ull * (unsigned char)c;
	__asm__ volatile("rep stosq"
			 : "+D"(d), "+c"(words)
			 : "a"(pattern)
			 : "memory");
	memset(d, c, n & 7);  /* rep stosq left d just past the body */
	return dst;
}

static void *ntm_copy_movsb(void *dst, const void *src, size_t n)
{
	void *d = dst;
	__asm__ volatile("rep movsb"
			 : "+D"(d), "+S"(src), "+c"(n)
			 :
			 : "memory");
	return dst;
}

DEFINE_FAMILY(rep,
	{.name = "stosb",
	 .description = "rep stosb over the whole span (ERMS)",
	 .op = NTMEM_OP_SET, .role = NTMEM_ROLE_STRING, .rank = 2, .requires = CPU_ERMS,
	 .set = ntm_set_stosb},
	{.name = "stosq",
	 .description = "rep stosq over the 8-byte aligned body",
	 .op = NTMEM_OP_SET, .role = NTMEM_ROLE_STRING, .rank = 1, .requires = 0,
	 .set = ntm_set_stosq},
	{.name = "movsb",
	 .description = "rep movsb over the whole span (ERMS)",
	 .op = NTMEM_OP_COPY, .role = NTMEM_ROLE_STRING, .rank = 2, .requires = CPU_ERMS,
	 .copy = ntm_copy_movsb});
#else
DEFINE_EMPTY_FAMILY(rep);
#endif
