/* rep.c - the string instructions: rep stosb, rep stosq and rep movsb.
 * Cached: on most CPUs they allocate every line they write, though some
 * stop allocating above the LLC size (measure, don't assume). */
#include "../cpu.h"
#include "../variant.h"

#ifdef __x86_64__
#include <stdint.h>
#include <string.h>

static void ntm_set_stosb(void *dst, int c, size_t n)
{
	__asm__ volatile("rep stosb"
			 : "+D"(dst), "+c"(n)
			 : "a"(c)
			 : "memory");
}

/* rep stosq on an 8-byte aligned body; the few bytes around it by memset. */
static void ntm_set_stosq(void *dst, int c, size_t n)
{
	unsigned char *d = dst;
	size_t head = (size_t)(-(uintptr_t)d) & 7;
	if (n < head + 8) {
		memset(d, c, n);
		return;
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
}

static void ntm_copy_movsb(void *dst, const void *src, size_t n)
{
	__asm__ volatile("rep movsb"
			 : "+D"(dst), "+S"(src), "+c"(n)
			 :
			 : "memory");
}

DEFINE_FAMILY(rep,
	{"stosb", "rep stosb over the whole span (ERMS)",
	 NTMEM_OP_SET, false, false, CPU_ERMS, ntm_set_stosb, NULL},
	{"stosq", "rep stosq over the 8-byte aligned body",
	 NTMEM_OP_SET, false, false, 0, ntm_set_stosq, NULL},
	{"movsb", "rep movsb over the whole span (ERMS)",
	 NTMEM_OP_COPY, false, false, CPU_ERMS, NULL, ntm_copy_movsb});
#else
DEFINE_EMPTY_FAMILY(rep);
#endif
