/* callcost.c - what a small call costs: ns per call of memset, ntmem_set,
 * memcpy and ntmem_copy at 64 B, 256 B and 1 KiB, in a loop of back-to-back
 * calls, medians of interleaved rounds.  Built twice by "make bench", once
 * against libntmem.a and once against libntmem.so, since a call into a
 * shared library goes through the PLT (and, for an IFUNC, that is the
 * only indirection: the same as for the C library's memset). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "ntmem.h"

#define ROUNDS 7
#define CALLS 2000000L

static unsigned char dst[4096] __attribute__((aligned(64)));
static unsigned char src[4096] __attribute__((aligned(64)));

static double now_ns(void)
{
	struct timespec t;
	clock_gettime(CLOCK_MONOTONIC, &t);
	return (double)t.tv_sec * 1e9 + (double)t.tv_nsec;
}

/* One loop per function, so each call site is a plain direct call. */
#define TIMED(call)                                                   \
	do {                                                          \
		double t0 = now_ns();                                 \
		for (long i = 0; i < CALLS; i++) {                    \
			call;                                         \
			__asm__ volatile("" ::: "memory");            \
		}                                                     \
		t = (now_ns() - t0) / CALLS;                          \
	} while (0)

static int cmp(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;
	return (x > y) - (x < y);
}

int main(int argc, char **argv)
{
	static const size_t sizes[] = {64, 256, 1024};
	static const char *const names[] = {"memset", "ntmem_set", "memcpy",
					    "ntmem_copy"};
	const char *build = argc > 1 ? argv[1] : "";
	unsigned char *volatile d = dst;  /* opaque: no call is folded */
	printf("# ns per call, median of %d interleaved rounds of %ld calls%s%s\n",
	       ROUNDS, CALLS, build[0] ? ", " : "", build);
	printf("# set diff = ntmem_set - memset, copy diff = ntmem_copy - memcpy: "
	       "ns a call, negative where ntmem is faster\n");
	printf("%8s %10s %10s %10s %10s %10s %10s\n", "size", names[0], names[1],
	       "set diff", names[2], names[3], "copy diff");
	for (size_t s = 0; s < sizeof sizes / sizeof sizes[0]; s++) {
		size_t n = sizes[s];
		double v[4][ROUNDS], t;
		for (int r = 0; r < ROUNDS; r++)
			for (int k = 0; k < 4; k++) {
				int f = (k + r) % 4;  /* rotate the order */
				if (f == 0)
					TIMED(memset(d, (int)i, n));
				else if (f == 1)
					TIMED(ntmem_set(d, (int)i, n));
				else if (f == 2)
					TIMED(memcpy(d, src, n));
				else
					TIMED(ntmem_copy(d, src, n));
				v[f][r] = t;
			}
		double m[4];
		for (int f = 0; f < 4; f++) {
			qsort(v[f], ROUNDS, sizeof v[f][0], cmp);
			m[f] = v[f][ROUNDS / 2];
		}
		printf("%6zu B %10.2f %10.2f %+10.2f %10.2f %10.2f %+10.2f\n", n, m[0],
		       m[1], m[1] - m[0], m[2], m[3], m[3] - m[2]);
	}
	return 0;
}
