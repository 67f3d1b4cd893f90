/* ntmem.c - the public entry points: the small path first (in the entry
 * of this CPU's vector width), then the selector's route, the call, the
 * fence. */
#include "ntmem.h"

#include <errno.h>
#include <stdint.h>

#include "dispatch/args.h"
#include "safe/safe.h"
#include "dispatch/registry.h"
#include "dispatch/select.h"
#include "dispatch/width.h"
#include "entry.h"
#include "parallel/parallel.h"
#include "variants/fence.h"
#include "variants/libc.h"
#include "util/sanitize.h"


const char *ntmem_version(void)
{
#define STR_(x) #x
#define STR(x) STR_(x)
	return STR(NTMEM_VERSION_MAJOR) "." STR(NTMEM_VERSION_MINOR) "." STR(
		NTMEM_VERSION_PATCH);
}

/* The table of the width dispatch chooses: addresses only, computed
 * without relocated data, so IFUNC resolvers may call it. */
NTM_NO_SANITIZE const struct entry_width *ntm_entry_width_for(enum ntm_width w)
{
	switch (w) {
#if defined(__x86_64__)
	case NTM_WIDTH_AVX512:
		return &ntm_entry_avx512;
	case NTM_WIDTH_AVX2:
		return &ntm_entry_avx2;
	default:
		return &ntm_entry_sse2;
#elif defined(__aarch64__)
	default:
		return &ntm_entry_neon;
#else
	default:
		return &ntm_entry_portable;
#endif
	}
}

NTM_NO_SANITIZE const struct entry_width *ntm_entry_width(void)
{
	return ntm_entry_width_for(ntm_width_choose());
}

/* In an AddressSanitizer build the plain calls are C, which checks the
 * buffers first (util/sanitize.h); the resolvers' direct jumps to the
 * assembly would leave nowhere to check. */
#if defined(__x86_64__) && defined(__ELF__) && !defined(NTM_ASAN)
/* IFUNC resolvers: the dynamic linker calls them once, before anything
 * else of the library runs, and the calls then go straight to the entry
 * of this CPU's width, as calls to glibc's memset do. */
/* Named only in ifunc attributes, which clang does not count as a use. */
#define NTM_RESOLVER NTM_NO_SANITIZE __attribute__((used))

NTM_RESOLVER static safe_copy_fn *resolve_copy_safe(void)
{
	return ntm_entry_width()->safe_copy;
}
NTM_RESOLVER static safe_set_fn *resolve_set_safe(void)
{
	return ntm_entry_width()->safe_set;
}

typedef void *set_entry(void *, int, size_t);
typedef void *copy_entry(void *, const void *, size_t);
typedef void *set_flags_entry(void *, int, size_t, unsigned);
typedef void *copy_flags_entry(void *, const void *, size_t, unsigned);

NTM_RESOLVER static set_entry *resolve_set(void)
{
	return ntm_entry_width()->set;
}
NTM_RESOLVER static copy_entry *resolve_copy(void)
{
	return ntm_entry_width()->copy;
}
NTM_RESOLVER static set_flags_entry *resolve_set_flags(void)
{
	return ntm_entry_width()->set_flags;
}
NTM_RESOLVER static copy_flags_entry *resolve_copy_flags(void)
{
	return ntm_entry_width()->copy_flags;
}

void *ntmem_set(void *dst, int c, size_t n) __attribute__((ifunc("resolve_set")));
void *ntmem_copy(void *dst, const void *src, size_t n)
	__attribute__((ifunc("resolve_copy")));
static void *set_flagged(void *dst, int c, size_t n, unsigned flags)
	__attribute__((ifunc("resolve_set_flags")));
static void *copy_flagged(void *dst, const void *src, size_t n, unsigned flags)
	__attribute__((ifunc("resolve_copy_flags")));
size_t ntmem_copy_safe(void *dst, const void *src, size_t n, unsigned flags)
	__attribute__((ifunc("resolve_copy_safe")));
size_t ntmem_set_safe(void *dst, int c, size_t n, unsigned flags)
	__attribute__((ifunc("resolve_set_safe")));
#else
/* One width per architecture (or an ASan build): no choice at load. */
void *ntmem_set(void *dst, int c, size_t n)
{
	NTM_ASAN_WRITE(dst, n);
	return ntm_entry_width()->set(dst, c, n);
}

void *ntmem_copy(void *dst, const void *src, size_t n)
{
	NTM_ASAN_READ(src, n);
	NTM_ASAN_WRITE(dst, n);
	return ntm_entry_width()->copy(dst, src, n);
}

static void *set_flagged(void *dst, int c, size_t n, unsigned flags)
{
	return ntm_entry_width()->set_flags(dst, c, n, flags);
}

static void *copy_flagged(void *dst, const void *src, size_t n, unsigned flags)
{
	return ntm_entry_width()->copy_flags(dst, src, n, flags);
}

size_t ntmem_copy_safe(void *dst, const void *src, size_t n, unsigned flags)
{
	return ntm_entry_width()->safe_copy(dst, src, n, flags);
}

size_t ntmem_set_safe(void *dst, int c, size_t n, unsigned flags)
{
	return ntm_entry_width()->safe_set(dst, c, n, flags);
}
#endif

/* [off, off + len) of r as the plain entry points write it. */
static void plain(const struct ntm_request *r, size_t off, size_t len,
		  unsigned flags)
{
	if (r->op == NTMEM_OP_SET)
		set_flagged(r->dst + off, r->c, len, flags);
	else
		copy_flagged(r->dst + off, r->src + off, len, flags);
}

/* A call with options (checked): a plain call where no thread and no hot
 * region is wanted, else the extent by parallel/, then the hot region
 * last, cached, by the calling thread. */
static void *write_request(const struct ntm_request *r)
{
	unsigned flags = r->o.flags & ~NTMEM_F_PARALLEL;
	if (r->n == 0)
		return r->dst;
	struct ntm_route route =
		ntm_select(ntm_policy_for_call(), ntm_class_of(r->op, r->c), r->n, flags,
			   r->op == NTMEM_OP_COPY && ntm_overlap(r->dst, r->src, r->n));
	if (route.kind == NTM_ROUTE_OVERLAP)
		return ntm_libc.memmove(r->dst, r->src, r->n);
	if (!ntm_parallel_applies(r)) {
		plain(r, 0, r->n, flags);  /* the small path, the same cost */
		return r->dst;
	}
	ntm_parallel_write(r);
	if (r->o.hot_len)
		plain(r, r->o.hot_off, r->o.hot_len, NTMEM_F_TEMPORAL);
	return r->dst;
}

void *ntmem_set_flags(void *dst, int c, size_t n, unsigned flags)
{
	if (ntm_bad_flags(flags, NTM_CALL_FLAGS)) {
		errno = EINVAL;
		return NULL;
	}
	NTM_ASAN_WRITE(dst, n);
	if (flags & NTMEM_F_PARALLEL) {
		struct ntm_request r = {NTMEM_OP_SET, dst, NULL, c, n, {.flags = flags}};
		return write_request(&r);
	}
	return set_flagged(dst, c, n, flags);
}

void *ntmem_copy_flags(void *dst, const void *src, size_t n, unsigned flags)
{
	if (ntm_bad_flags(flags, NTM_CALL_FLAGS)) {
		errno = EINVAL;
		return NULL;
	}
	NTM_ASAN_READ(src, n);
	NTM_ASAN_WRITE(dst, n);
	if (flags & NTMEM_F_PARALLEL) {
		struct ntm_request r = {NTMEM_OP_COPY, dst, src, 0, n, {.flags = flags}};
		return write_request(&r);
	}
	return copy_flagged(dst, src, n, flags);
}

/* The options checked, then the call; EINVAL, having written nothing, for
 * bad flags or a hot region outside the extent. */
static void *checked_request(struct ntm_request *r, const struct ntmem_opts *opts)
{
	if (opts)
		r->o = *opts;
	if (ntm_bad_flags(r->o.flags, NTM_CALL_FLAGS) || r->o.hot_off > r->n ||
	    r->o.hot_len > r->n - r->o.hot_off) {
		errno = EINVAL;
		return NULL;
	}
	if (r->op == NTMEM_OP_COPY)
		NTM_ASAN_READ(r->src, r->n);
	NTM_ASAN_WRITE(r->dst, r->n);
	return write_request(r);
}

void *ntmem_set_opts(void *dst, int c, size_t n, const struct ntmem_opts *opts)
{
	struct ntm_request r = {NTMEM_OP_SET, dst, NULL, c, n, {0}};
	return checked_request(&r, opts);
}

void *ntmem_copy_opts(void *dst, const void *src, size_t n,
		      const struct ntmem_opts *opts)
{
	struct ntm_request r = {NTMEM_OP_COPY, dst, src, 0, n, {0}};
	return checked_request(&r, opts);
}

int ntmem_populate_opts(void *addr, size_t len, const struct ntmem_opts *opts)
{
	return ntm_populate(addr, len, opts);
}

int ntmem_populate(void *addr, size_t len, unsigned flags)
{
	struct ntmem_opts o = {.flags = flags};
	return ntm_populate(addr, len, &o);
}

int ntmem_safe_init(void)
{
	return ntm_safe_reinstall();
}

void ntmem_fence(void)
{
	ntm_fence();
}

/* Checks shared by the two direct-call entry points.  Returns the variant,
 * or NULL with errno set. */
static const struct variant *callable(int id, enum ntmem_op op,
				      unsigned flags)
{
	const char *why_not;
	const struct variant *v = ntm_variant_checked(id, &why_not);
	if (!v || v->op != op || (flags & ~NTMEM_F_NOFENCE)) {
		errno = EINVAL;
		return NULL;
	}
	if (why_not) {
		errno = ENOTSUP;
		return NULL;
	}
	return v;
}

void *ntmem_variant_set(int id, void *dst, int c, size_t n, unsigned flags)
{
	const struct variant *v = callable(id, NTMEM_OP_SET, flags);
	if (!v)
		return NULL;
	if (v->zero_only && (unsigned char)c != 0) {
		errno = EINVAL;
		return NULL;
	}
	if (n == 0)
		return dst;
	NTM_ASAN_WRITE(dst, n);
	v->set(dst, c, n);
	ntm_fence_after(ntm_streams(v), flags);
	return dst;
}

void *ntmem_variant_copy(int id, void *dst, const void *src, size_t n,
			 unsigned flags)
{
	const struct variant *v = callable(id, NTMEM_OP_COPY, flags);
	if (!v)
		return NULL;
	if (n && ntm_overlap(dst, src, n)) {
		errno = EINVAL;
		return NULL;
	}
	if (n == 0)
		return dst;
	NTM_ASAN_READ(src, n);
	NTM_ASAN_WRITE(dst, n);
	v->copy(dst, src, n);
	ntm_fence_after(ntm_streams(v), flags);
	return dst;
}
