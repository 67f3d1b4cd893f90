/* chase.c - the pointer-chase victim of "ntmem pollution". */
#include "chase.h"

uint64_t chase_random(uint64_t *state)
{
	uint64_t x = *state;
	x ^= x >> 12;
	x ^= x << 25;
	x ^= x >> 27;
	*state = x;
	return x * 0x2545F4914F6CDD1Dull;
}

void chase_build(void *buf, size_t lines, uint64_t seed)
{
	unsigned char *base = buf;
	uint64_t state = seed ? seed : 0x9E3779B97F4A7C15ull;

	if (lines == 0)
		return;

	/* Sattolo's shuffle, done in place: the first word of line i first
	 * holds i; after the shuffle it holds the successor of line i in a
	 * single cycle through all lines. */
	for (size_t i = 0; i < lines; i++)
		*(uintptr_t *)(base + i * CHASE_LINE) = i;
	for (size_t i = lines - 1; i > 0; i--) {
		size_t j = (size_t)(chase_random(&state) % i);  /* j < i */
		uintptr_t *a = (uintptr_t *)(base + i * CHASE_LINE);
		uintptr_t *b = (uintptr_t *)(base + j * CHASE_LINE);
		uintptr_t t = *a;
		*a = *b;
		*b = t;
	}
	/* Indices become addresses. */
	for (size_t i = 0; i < lines; i++) {
		uintptr_t *w = (uintptr_t *)(base + i * CHASE_LINE);
		*w = (uintptr_t)(base + *w * CHASE_LINE);
	}
}

void *chase_run(void *p, size_t steps)
{
	void *const *q = p;
	while (steps >= 4) {
		q = *q;
		q = *q;
		q = *q;
		q = *q;
		steps -= 4;
	}
	while (steps--)
		q = *q;
	return (void *)q;
}

uint64_t chase_lookups(const void *table, size_t lines, size_t m,
		       uint64_t *state)
{
	const unsigned char *base = table;
	uint64_t sum = 0;
	for (size_t i = 0; i < m; i++) {
		size_t line = (size_t)(chase_random(state) % lines);
		sum += *(const volatile uint64_t *)(base + line * CHASE_LINE);
	}
	return sum;
}
