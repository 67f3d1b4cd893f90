/* cached_c.h - the cached vector loops of one width in C, for
 * architectures without them in assembly: include after vector.h (and
 * small.h).  Defines VEC_NAME(cached_set) and VEC_NAME(cached_copy), the
 * width's vector variants. */

/* Any n: the small path up to SMALL_MAX; beyond it, one unaligned line at
 * each end and whole aligned lines between them, four per iteration.
 * The ends overlap the loop instead of being measured out byte by byte,
 * so the loop has no head or tail to branch over. */
__attribute__((target(VEC_TARGET))) static void *VEC_NAME(cached_set)(
	void *dst, int c, size_t n)
{
	unsigned char *d = dst;
	if (n <= SMALL_MAX) {
		VEC_NAME(small_set)(d, c, n);
		return dst;
	}
	const size_t V = VEC_BYTES;
	VEC_T v = VEC_SPLAT(c);
	NTM_UNROLL for (size_t i = 0; i < LINE; i += V) {
		VEC_STOREU(SMALL_AT(d, i), v);
		VEC_STOREU(SMALL_AT(d, n - LINE + i), v);
	}
	unsigned char *p = (unsigned char *)(((uintptr_t)d + LINE) & ~(uintptr_t)(LINE - 1));
	unsigned char *end = (unsigned char *)((uintptr_t)(d + n) & ~(uintptr_t)(LINE - 1));
	for (; end - p >= 4 * LINE; p += 4 * LINE)
		NTM_UNROLL for (size_t i = 0; i < 4 * LINE; i += V)
			VEC_STORE(SMALL_AT(p, i), v);
	for (; p < end; p += LINE)
		NTM_UNROLL for (size_t i = 0; i < LINE; i += V)
			VEC_STORE(SMALL_AT(p, i), v);
	return dst;
}

/* The same for copies; the buffers must not overlap. */
__attribute__((target(VEC_TARGET))) static void *VEC_NAME(cached_copy)(
	void *dst, const void *src, size_t n)
{
	unsigned char *d = dst;
	const unsigned char *s = src;
	if (n <= SMALL_MAX) {
		VEC_NAME(small_copy)(d, s, n);
		return dst;
	}
	const size_t V = VEC_BYTES;
	NTM_UNROLL for (size_t i = 0; i < LINE; i += V) {
		VEC_STOREU(SMALL_AT(d, i), VEC_LOADU(SMALL_AT_C(s, i)));
		VEC_STOREU(SMALL_AT(d, n - LINE + i),
			   VEC_LOADU(SMALL_AT_C(s, n - LINE + i)));
	}
	size_t skip = LINE - ((uintptr_t)d & (LINE - 1));
	unsigned char *p = d + skip;
	const unsigned char *q = s + skip;
	unsigned char *end = (unsigned char *)((uintptr_t)(d + n) & ~(uintptr_t)(LINE - 1));
	for (; end - p >= 4 * LINE; p += 4 * LINE, q += 4 * LINE) {
		VEC_T line[4 * LINE / VEC_BYTES];
		NTM_UNROLL for (size_t i = 0; i < 4 * LINE / V; i++)
			line[i] = VEC_LOADU(SMALL_AT_C(q, i * V));
		NTM_UNROLL for (size_t i = 0; i < 4 * LINE / V; i++)
			VEC_STORE(SMALL_AT(p, i * V), line[i]);
	}
	for (; p < end; p += LINE, q += LINE)
		NTM_UNROLL for (size_t i = 0; i < LINE; i += V)
			VEC_STORE(SMALL_AT(p, i), VEC_LOADU(SMALL_AT_C(q, i)));
	return dst;
}
