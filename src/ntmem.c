/* ntmem.c - the public entry points: check flags, decide, call, fence. */
#include "ntmem.h"

#include <errno.h>
#include <stdint.h>
#include <string.h>

#include "fence.h"
#include "policy.h"
#include "registry.h"

#define KNOWN_FLAGS (NTMEM_F_TEMPORAL | NTMEM_F_NONTEMPORAL | NTMEM_F_NOFENCE)

const char *ntmem_version(void)
{
#define STR_(x) #x
#define STR(x) STR_(x)
	return STR(NTMEM_VERSION_MAJOR) "." STR(NTMEM_VERSION_MINOR) "." STR(
		NTMEM_VERSION_PATCH);
}

static int bad_flags(unsigned flags)
{
	const unsigned both = NTMEM_F_TEMPORAL | NTMEM_F_NONTEMPORAL;
	return (flags & ~KNOWN_FLAGS) || (flags & both) == both;
}

static int overlap(const void *a, const void *b, size_t n)
{
	uintptr_t x = (uintptr_t)a, y = (uintptr_t)b;
	return x - y < n || y - x < n;
}

void *ntmem_set_flags(void *dst, int c, size_t n, unsigned flags)
{
	if (bad_flags(flags)) {
		errno = EINVAL;
		return NULL;
	}
	if (n == 0)
		return dst;
	const struct variant *v =
		ntm_choose(&ntm_policy()->op[NTMEM_OP_SET], n, c, flags);
	v->set(dst, c, n);
	if (v->streaming && !(flags & NTMEM_F_NOFENCE))
		ntm_fence();
	return dst;
}

void *ntmem_copy_flags(void *dst, const void *src, size_t n, unsigned flags)
{
	if (bad_flags(flags)) {
		errno = EINVAL;
		return NULL;
	}
	if (n == 0)
		return dst;
	if (overlap(dst, src, n))
		return memmove(dst, src, n);
	const struct variant *v =
		ntm_choose(&ntm_policy()->op[NTMEM_OP_COPY], n, 0, flags);
	v->copy(dst, src, n);
	if (v->streaming && !(flags & NTMEM_F_NOFENCE))
		ntm_fence();
	return dst;
}

void *ntmem_set(void *dst, int c, size_t n)
{
	return ntmem_set_flags(dst, c, n, 0);
}

void *ntmem_copy(void *dst, const void *src, size_t n)
{
	return ntmem_copy_flags(dst, src, n, 0);
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
	v->set(dst, c, n);
	if (v->streaming && !(flags & NTMEM_F_NOFENCE))
		ntm_fence();
	return dst;
}

void *ntmem_variant_copy(int id, void *dst, const void *src, size_t n,
			 unsigned flags)
{
	const struct variant *v = callable(id, NTMEM_OP_COPY, flags);
	if (!v)
		return NULL;
	if (n && overlap(dst, src, n)) {
		errno = EINVAL;
		return NULL;
	}
	if (n == 0)
		return dst;
	v->copy(dst, src, n);
	if (v->streaming && !(flags & NTMEM_F_NOFENCE))
		ntm_fence();
	return dst;
}
