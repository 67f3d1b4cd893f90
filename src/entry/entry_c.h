/* entry_c.h - the entry points of one vector width written in C, for
 * architectures without them in assembly.  Define first:
 *
 *   ENTRY_WIDTH            the enum ntm_width
 *   ENTRY_NAME(stem)       the names, e.g. ntm_##stem##_neon
 *   ENTRY_TARGET           a target attribute string, or leave undefined
 *   ENTRY_SMALL_MAX        the small path serves n <= this: the width's
 *                          (dispatch/width.h), as a constant
 *   ENTRY_SMALL_NAME       e.g. "NEON stores"
 *   ENTRY_SMALL_SET(d, c, n), ENTRY_SMALL_COPY(d, s, n)
 *                          the small path; copies load before they store
 *
 * Defines the four entry points and the table ENTRY_NAME(entry). */
#include "dispatch/select.h"
#include "entry.h"

#ifdef ENTRY_TARGET
#define ENTRY_FN __attribute__((target(ENTRY_TARGET)))
#else
#define ENTRY_FN
#endif

ENTRY_FN static void *ENTRY_NAME(entry_set)(void *dst, int c, size_t n)
{
	if (__builtin_expect(n <= ENTRY_SMALL_MAX, 1)) {
		ENTRY_SMALL_SET(dst, c, n);
		return dst;
	}
	return ntm_set_large(dst, c, n, 0);
}

ENTRY_FN static void *ENTRY_NAME(entry_copy)(void *dst, const void *src,
					     size_t n)
{
	if (__builtin_expect(n <= ENTRY_SMALL_MAX, 1)) {
		ENTRY_SMALL_COPY(dst, src, n);
		return dst;
	}
	return ntm_copy_large(dst, src, n, 0);
}

/* flags are valid. */
ENTRY_FN static void *ENTRY_NAME(entry_set_flags)(void *dst, int c, size_t n,
						  unsigned flags)
{
	if (ntm_select_is_small(n, ENTRY_SMALL_MAX, flags)) {
		ENTRY_SMALL_SET(dst, c, n);
		return dst;
	}
	return ntm_set_large(dst, c, n, flags);
}

ENTRY_FN static void *ENTRY_NAME(entry_copy_flags)(void *dst, const void *src,
						   size_t n, unsigned flags)
{
	if (ntm_select_is_small(n, ENTRY_SMALL_MAX, flags)) {
		ENTRY_SMALL_COPY(dst, src, n);
		return dst;
	}
	return ntm_copy_large(dst, src, n, flags);
}

const struct entry_width ENTRY_NAME(entry) = {
	ENTRY_WIDTH,
	ENTRY_NAME(entry_set), ENTRY_NAME(entry_copy),
	ENTRY_NAME(entry_set_flags), ENTRY_NAME(entry_copy_flags),
	ntm_copy_safe_slow, ntm_set_safe_slow, ENTRY_SMALL_NAME,
};

#undef ENTRY_FN
