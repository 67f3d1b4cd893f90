/*
 * repeat.c - a program that makes one kind of call over and over, for the
 * report's account of the learning (test_report_sides): "repeat copy|set
 * SIZE COUNT" makes COUNT memcpy calls of SIZE bytes (or memset of 0x5a),
 * each checked against the reference, and prints PASS or FAIL.
 */
#include "helper.h"

#include <string.h>

int main(int argc, char **argv)
{
	if (argc != 4)
		return 2;
	int copy = !strcmp(argv[1], "copy");
	size_t n = strtoull(argv[2], NULL, 0);
	long count = strtol(argv[3], NULL, 0);
	unsigned char *a = malloc(n + 1), *b = malloc(n + 1), *want = malloc(n + 1);
	if (!a || !b || !want)
		return 2;
	ref_pattern(a, n + 1, 7);
	ref_pattern(b, n + 1, 9);
	/* Through a pointer, so that no compiler turns the call into code
	 * of its own. */
	void *(*volatile cp)(void *, const void *, size_t) = memcpy;
	void *(*volatile st)(void *, int, size_t) = memset;
	long wrong = -1;
	for (long i = 0; i < count && wrong < 0; i++) {
		if (copy) {
			a[i % n] ^= 1;  /* each copy moves something new */
			cp(b, a, n);
			if (ref_differ(a, b, n) >= 0)
				wrong = i;
		} else {
			st(b, 0x5a, n);
			ref_set(want, 0x5a, n);
			if (ref_differ(want, b, n) >= 0)
				wrong = i;
			b[i % n] = 0;
		}
	}
	if (wrong >= 0)
		helper_fail("repeat", "call %ld of %zu bytes differs", wrong, n);
	else
		helper_pass("repeat");
	return helper_exit();
}
