/* safe_common.h - what the safe calls' tests share (test_safe.c,
 * test_safe_handler.c): known bytes, and a PROT_NONE page with read-write
 * memory on both sides, "the hole". */
#ifndef NTM_SAFE_COMMON_H
#define NTM_SAFE_COMMON_H

#include <stddef.h>
#include <sys/mman.h>
#include <sys/wait.h>

#include "safe/safe.h"

#if defined(__SANITIZE_ADDRESS__)
#define UNDER_ASAN 1
#elif defined(__has_feature)
#if __has_feature(address_sanitizer)
#define UNDER_ASAN 1
#endif
#endif
#ifndef UNDER_ASAN
#define UNDER_ASAN 0
#endif

#define P 4096u                       /* the page size on x86-64 */
#define CANARY 128
#define PRE 0xA5                      /* what untouched bytes hold */
#define MAX_K ((size_t)1024 * P)      /* 4 MiB before the hole */
#define MAX_AFTER (P + 256)           /* bytes a call runs past the hole */
#define BUF (MAX_K + MAX_AFTER + 2 * CANARY + 128)

static inline unsigned long recovered(void)
{
	return __atomic_load_n(&ntm_safe_recovered, __ATOMIC_RELAXED);
}

/* Known bytes, never zero (a zero fill must be told from data). */
static inline unsigned char pat(size_t i)
{
	return (unsigned char)(i % 251 + 1);
}

static inline void fill_pat(unsigned char *p, size_t n, size_t seed)
{
	for (size_t i = 0; i < n; i++)
		p[i] = pat(i + seed);
}

static inline int all_are(const unsigned char *p, size_t n, unsigned char v)
{
	for (size_t i = 0; i < n; i++)
		if (p[i] != v)
			return 0;
	return 1;
}

/* A child's status: it exited with code. */
static inline int exited(int status, int code)
{
	return WIFEXITED(status) && WEXITSTATUS(status) == code;
}

struct hole {
	unsigned char *map;
	size_t len;
	unsigned char *at;   /* the PROT_NONE page; before it MAX_K + CANARY
				bytes, after it 2 pages, read-write */
};

static inline int hole_alloc(struct hole *h)
{
	size_t before = MAX_K + 2 * P;
	h->len = before + 3 * P;
	h->map = mmap(NULL, h->len, PROT_READ | PROT_WRITE,
		      MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (h->map == MAP_FAILED)
		return -1;
	h->at = h->map + before;
	return mprotect(h->at, P, PROT_NONE);
}

#endif
