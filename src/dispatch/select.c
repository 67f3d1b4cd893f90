/* select.c - the selector's out-of-line parts (select.h): running a route
 * that is not a cached rung's, and the limits the assembly reads. */
#include "select.h"

#include "variants/fence.h"
#include "variants/libc.h"
#include "width.h"

/* All 0 until the constructor has built the policy: every call past the
 * small path is routed. */
struct ntm_limits ntm_limits;

size_t ntm_select_small_max(void)
{
	static size_t memo;  /* CPUID is slow in a VM: once */
	size_t m = __atomic_load_n(&memo, __ATOMIC_RELAXED);
	if (!m) {
		m = ntm_width_small_max(ntm_width_choose());
		__atomic_store_n(&memo, m, __ATOMIC_RELAXED);
	}
	return m;
}

void *ntm_route_set(struct ntm_route r, void *dst, int c, size_t n, unsigned flags)
{
	r.v->set(dst, c, n);
	ntm_fence_after(r.streams, flags);
	return dst;
}

void *ntm_route_copy(struct ntm_route r, void *dst, const void *src, size_t n,
		     unsigned flags)
{
	if (r.kind == NTM_ROUTE_OVERLAP)
		return ntm_libc.memmove(dst, src, n);
	r.v->copy(dst, src, n);
	ntm_fence_after(r.streams, flags);
	return dst;
}

void ntm_select_set_inline(const struct policy *p)
{
	for (int op = 0; op < 2; op++)
		__atomic_store_n(&ntm_limits.inline_max[op], p->inline_max[op],
				 __ATOMIC_RELAXED);
}

/* The shim runs the classes of its width, and, for the names defined in
 * C, the SSE2 width's to 128 bytes (preload.c); while counting, none. */
void ntm_select_set_shim(int width, int counting)
{
	size_t evex_end = 0, avx2_end = 0, sse2_end = 0, sse2_below = 0;
#if defined(__x86_64__)
	if (!counting) {
		evex_end = width == NTM_WIDTH_AVX512 ? SIZE_MAX : 0;
		avx2_end = width == NTM_WIDTH_AVX2 ? SIZE_MAX : 0;
		sse2_end = width == NTM_WIDTH_SSE2 ? SIZE_MAX : 0;
		sse2_below = NTM_SMALL_VECTORS * 16 + 1;
	}
#else
	(void)width;
	(void)counting;
#endif
	/* The wider widths' limits shut first and opened last: each width's
	 * classes serve any size below its limit. */
	__atomic_store_n(&ntm_limits.shim_evex_end, 0, __ATOMIC_RELEASE);
	__atomic_store_n(&ntm_limits.shim_avx2_end, 0, __ATOMIC_RELEASE);
	__atomic_store_n(&ntm_limits.shim_sse2_end, sse2_end, __ATOMIC_RELEASE);
	__atomic_store_n(&ntm_limits.shim_sse2_below, sse2_below, __ATOMIC_RELEASE);
	__atomic_store_n(&ntm_limits.shim_avx2_end, avx2_end, __ATOMIC_RELEASE);
	__atomic_store_n(&ntm_limits.shim_evex_end, evex_end, __ATOMIC_RELEASE);
}
