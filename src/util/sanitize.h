/* sanitize.h - in a build of the library with AddressSanitizer, the
 * public calls check their buffers before they touch them, as the C
 * library's memset and memcpy interceptors do.
 *
 * ASan instruments the C the compiler sees; it cannot see into the
 * entry points' assembly, the variants' vector and streaming loops, or
 * rep movsb, so an overflowing ntmem_copy was found only when the C
 * library's function served it.  NTM_ASAN_WRITE and NTM_ASAN_READ ask the
 * runtime whether any byte of the range is poisoned (a redzone, freed
 * memory) and, if one is, report it as an access of the whole range from
 * the caller's frame, and the program stops as at any ASan error.  They
 * cost a scan of the range's shadow (an eighth of its size), as the
 * interceptors do, and compile to nothing in other builds.
 */
#ifndef NTM_SANITIZE_H
#define NTM_SANITIZE_H

#include <stddef.h>

#if defined(__SANITIZE_ADDRESS__)
#define NTM_ASAN 1
#elif defined(__has_feature)
#if __has_feature(address_sanitizer)
#define NTM_ASAN 1
#endif
#endif

#ifdef NTM_ASAN
#include <sanitizer/asan_interface.h>

/* Always inline: the report's first frame is then the public call. */
static inline __attribute__((always_inline)) void
ntm_asan_check(const void *p, size_t n, int is_write)
{
	void *bad = n ? __asan_region_is_poisoned((void *)p, n) : NULL;
	if (bad)
		__asan_report_error(__builtin_return_address(0),
				    __builtin_frame_address(0),
				    __builtin_frame_address(0), bad, is_write, n);
}
#define NTM_ASAN_WRITE(p, n) ntm_asan_check((p), (n), 1)
#define NTM_ASAN_READ(p, n) ntm_asan_check((p), (n), 0)
#else
#define NTM_ASAN_WRITE(p, n) ((void)0)
#define NTM_ASAN_READ(p, n) ((void)0)
#endif

#endif
