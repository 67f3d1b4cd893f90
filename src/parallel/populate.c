/* populate.c - fault a mapping in for writing, on several threads: the
 * kernel's own clearing of fresh pages, made parallel.
 *
 * MADV_POPULATE_WRITE (Linux 5.14) reports a page it cannot have as an
 * error.  Without it each page is written once, under the safe calls'
 * guard (safe/safe_touch.c). */
#define _GNU_SOURCE
#include <errno.h>
#include <stdint.h>
#include <sys/mman.h>
#include <unistd.h>

#include "ntmem.h"
#include "parallel.h"
#include "safe/safe.h"

#ifndef MADV_POPULATE_WRITE
#define MADV_POPULATE_WRITE 23
#endif

int ntm_populate_force_touch;

static int populate_write_state;  /* 0 unknown, 1 works, 2 absent */

int ntm_populate_writes(void)
{
	int s = __atomic_load_n(&populate_write_state, __ATOMIC_RELAXED);
	if (s == 0) {
		/* The kernel checks the advice before the length: a length
		 * of 0 answers "known?" and touches nothing. */
		int saved = errno;
		void *somewhere = (void *)(uintptr_t)sysconf(_SC_PAGESIZE);
		s = madvise(somewhere, 0, MADV_POPULATE_WRITE) ? 2 : 1;
		errno = saved;
		__atomic_store_n(&populate_write_state, s, __ATOMIC_RELAXED);
	}
	return s == 1 && !__atomic_load_n(&ntm_populate_force_touch, __ATOMIC_RELAXED);
}

static int madvise_piece(const struct extent_work *w, size_t off, size_t len)
{
	int saved = errno;
	int e = madvise(w->dst + off, len, MADV_POPULATE_WRITE) ? errno : 0;
	errno = saved;
	return e;
}

/* Each page of a piece written once, a fault there turned into the error
 * madvise would give (safe/safe_touch.c). */
static int touch_piece(const struct extent_work *w, size_t off, size_t len)
{
	return ntm_safe_touch_pages(w->dst + off, len);
}

int ntm_populate(void *addr, size_t len, const struct ntmem_opts *opts)
{
	struct ntmem_opts o = {0};
	if (opts)
		o = *opts;
	uintptr_t a = (uintptr_t)addr;
	if ((o.flags & ~NTMEM_F_PARALLEL) || o.hot_off || o.hot_len ||
	    len > UINTPTR_MAX - a) {
		errno = EINVAL;
		return -1;
	}
	if (len == 0)
		return 0;
	uintptr_t page = (uintptr_t)sysconf(_SC_PAGESIZE);
	uintptr_t start = a & ~(page - 1);
	uintptr_t end = (a + len + page - 1) & ~(page - 1);
	if (end <= start) {  /* the last page ends at the top of memory */
		errno = EINVAL;
		return -1;
	}
	/* Parts end on a 1 GiB or 2 MiB page where they can, so that one
	 * thread clears each huge page; else on a page. */
	const size_t grains[] = {(size_t)1 << 30, (size_t)2 << 20, page};
	int writes = ntm_populate_writes();
	if (!writes && ntm_safe_install())
		return -1;
	struct extent_work w = {.fn = writes ? madvise_piece : touch_piece,
				.dst = (unsigned char *)start};
	struct span all = {0, end - start};
	int e = ntm_extent_run(&w, &all, 1,
			       o.flags & NTMEM_F_PARALLEL ? o.threads : 1,
			       o.min_chunk, grains, 3);
	if (e) {
		errno = e;
		return -1;
	}
	return 0;
}
