/* fuzz.h - what the libFuzzer targets in tests/fuzz share.
 *
 * Each target is one file defining FUZZ_TARGET(name).  Built by
 * tests/fuzz/run.sh with clang -fsanitize=fuzzer,address,undefined, it is
 * libFuzzer's LLVMFuzzerTestOneInput; included by tests/test_fuzz_replay.c
 * (with FUZZ_REPLAY defined), it is fuzz_NAME, which that normal test
 * calls on every file of tests/fuzz/corpus/NAME: the seeds, and every
 * input that ever found a bug. */
#ifndef NTM_FUZZ_H
#define NTM_FUZZ_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#ifdef FUZZ_REPLAY
#define FUZZ_TARGET(name) int fuzz_##name(const uint8_t *data, size_t size)
#else
#define FUZZ_TARGET(name) int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
#endif

/* The oracle disagreed: say how, and abort, which libFuzzer reports with
 * the input (and the replay test as a crash). */
#define FUZZ_FAIL(...)                                 \
	do {                                           \
		fprintf(stderr, "fuzz: " __VA_ARGS__); \
		fputc('\n', stderr);                   \
		abort();                               \
	} while (0)

/* The input, read a few bytes at a time; past its end, zeros. */
struct fuzz_in {
	const uint8_t *p;
	size_t n;
};

static inline uint64_t fuzz_take(struct fuzz_in *in, unsigned bytes)
{
	uint64_t v = 0;
	for (unsigned i = 0; i < bytes; i++) {
		v = v << 8 | (in->n ? *in->p : 0);
		if (in->n) {
			in->p++;
			in->n--;
		}
	}
	return v;
}

/* A copy of data as a C string, in a buffer of exactly size + 1 bytes,
 * so that ASan catches a read past its end.  free() it. */
static inline char *fuzz_string(const uint8_t *data, size_t size)
{
	char *s = malloc(size + 1);
	if (!s)
		abort();
	memcpy(s, data, size);
	s[size] = '\0';
	return s;
}

#endif
