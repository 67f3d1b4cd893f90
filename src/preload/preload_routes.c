/* preload_routes.c - where each of the shim's functions sends its calls
 * beyond the direct path: the entry points of the shim's width, or the
 * counting wrappers (preload_count.c hands its table in); and the routes
 * before the constructor has set them.  Below the interposed functions
 * (preload.c) and the counters, which both use it. */
#include "dispatch/select.h"
#include "preload.h"
#include "variants/libc.h"

static const struct entry_width *width;

/* ntm_entry_width() runs CPUID and reads no relocated data; racing first
 * calls store the same pointer. */
void ntm_shim_set_width(const struct entry_width *w)
{
	__atomic_store_n(&width, w, __ATOMIC_RELEASE);
}

const struct entry_width *ntm_shim_width(void)
{
	const struct entry_width *w = __atomic_load_n(&width, __ATOMIC_ACQUIRE);
	if (!w) {
		w = ntm_entry_width();
		__atomic_store_n(&width, w, __ATOMIC_RELEASE);
	}
	return w;
}

/*
 * Before the constructor has routed them, calls may come before this
 * object is even relocated: the dynamic linker relocates the libraries a
 * program needs before one preloaded ahead of them, and their IFUNC
 * resolvers run then, memcpy included.  Until then every pointer held in
 * data (the routes, the entry widths' tables) is still unrelocated, so
 * such a call must read none.  A variable that holds its own address
 * tells: it does so only once the relocation has been applied (volatile,
 * so that no compiler assumes it).
 */
static const volatile void *volatile self_address = &self_address;

static int relocated(void)
{
	return self_address == &self_address;
}

/* The routes until the constructor has run: the entry points, asked of
 * CPUID alone, once this object is relocated. */
void *ntm_shim_early_set(void *dst, int c, size_t n)
{
	if (!relocated())
		return ntm_bytes_set(dst, c, n);
	return ntm_shim_width()->set(dst, c, n);
}

void *ntm_shim_early_copy(void *dst, const void *src, size_t n)
{
	if (!relocated())
		return ntm_bytes_move(dst, src, n);
	return ntm_shim_width()->copy(dst, src, n);
}

/* Empty (zero, in .bss: nothing to relocate) until the constructor. */
union shim_route ntm_shim_routes[SHIM_FUNCTIONS], ntm_shim_beyond[SHIM_FUNCTIONS];

void ntm_shim_route_all(const union shim_route *counted)
{
	const struct entry_width *w = ntm_shim_width();
	for (int f = 0; f < SHIM_FUNCTIONS; f++) {
		if (ntm_shim_op(f) == NTMEM_OP_SET) {
			__atomic_store_n(&ntm_shim_routes[f].set,
					 counted ? counted[f].set : w->set, __ATOMIC_RELAXED);
			__atomic_store_n(&ntm_shim_beyond[f].set,
					 counted ? counted[f].set : ntm_set_unflagged,
					 __ATOMIC_RELAXED);
		} else {
			__atomic_store_n(&ntm_shim_routes[f].copy,
					 counted ? counted[f].copy : w->copy, __ATOMIC_RELAXED);
			__atomic_store_n(&ntm_shim_beyond[f].copy,
					 counted ? counted[f].copy : ntm_copy_unflagged,
					 __ATOMIC_RELAXED);
		}
	}
	ntm_select_set_shim(w->width, counted != NULL);
}
