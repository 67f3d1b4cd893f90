/*
 * preload.c - libntmem-preload.so: the C library's memset, memcpy and
 * their relatives, defined over ntmem's entry points, for programs that
 * nobody will recompile (LD_PRELOAD; "ntmem run" sets it up).
 *
 * Each function gives exactly the C library's result and return value,
 * and each call takes the path ntmem_set or ntmem_copy would: the small
 * path of this CPU's vector width, then the ladder of the process policy.
 * memmove is the copy entry: the small path loads before it stores, and
 * above it overlapping buffers go to the C library's memmove.  The _chk
 * forms that _FORTIFY_SOURCE emits check the destination's size first
 * and fail as the C library's do, through __chk_fail.
 *
 * Safe from the first instruction.  The functions are plain functions,
 * not IFUNCs: the dynamic linker relocates the libraries a program needs
 * before a library preloaded ahead of them, so an IFUNC resolver here
 * could run before this object is relocated (glibc then warns "Relink
 * ... for IFUNC symbol" under LD_BIND_NOW), and so can another library's
 * IFUNC resolver that calls memcpy.  Each function, past the direct path
 * below, ends in one indirect jump through its route, which until the
 * constructor runs is empty: the call then takes plain loops while this
 * object is unrelocated, and the entry points of the width CPUID gives
 * once it is.  The entry points need no constructor either: before the
 * library's has built the policy (dispatch/process.c) they use the
 * baseline variants (registry.h), and until the C library's are handed
 * down, ntm_libc holds ntmem's own portable loops.  Nothing on this path
 * takes a lock, allocates, or asks the dynamic linker anything, so calls
 * from other constructors, from malloc and from signal handlers are
 * served.
 *
 * Calls that never reach the shim: those the C library makes to itself
 * (calloc's clearing, stdio's copies, the wide-character functions),
 * those of the dynamic loader (it has its own copies), inlined copies of
 * constant size the compiler expanded, and every call of a statically
 * linked program.  ntmem(3) lists them.
 */
#undef _FORTIFY_SOURCE
#define _GNU_SOURCE
#include <dlfcn.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "dispatch/select.h"
#include "glibc_chk.h"
#include "variants/libc.h"
#include "ntmem.h"
#include "preload.h"


/* Prints "*** buffer overflow detected ***: terminated" and aborts.  Weak:
 * a C library without it (not glibc) still gets the abort. */
extern void __chk_fail(void) __attribute__((weak, noreturn));

/* The mark by which ntmem_preloaded() (entry/preloaded.c) knows the shim:
 * exported, beside the C library's names, and nothing else. */
#define STR_(x) #x
#define STR(x) STR_(x)
const char ntmem_preload_version[] = STR(NTMEM_VERSION_MAJOR) "." STR(
	NTMEM_VERSION_MINOR) "." STR(NTMEM_VERSION_PATCH);

/* The width of the entry points the shim's calls run in this process
 * ("avx512", "avx2", "sse2", "neon", "portable"): the widest the process
 * may use, whatever width's library was preloaded.  Exported for tests
 * and for a look from a debugger or a program's own dlsym. */
const char *ntmem_preload_width(void);
const char *ntmem_preload_width(void)
{
	enum ntm_width w = ntm_shim_width()->width;
	const char *name = ntm_width_name(w);
	return name ? name : w == NTM_WIDTH_NEON ? "neon" : "portable";
}

/* ------------------------------------------------------------------ */
/* Routes                                                              */
/* ------------------------------------------------------------------ */

/*
 * The direct path.  Each jump between the caller and its stores costs a
 * small call a measurable share of its time (two jumps put the shim
 * behind glibc's memcpy on every fleet mix: docs/results.md, "Size mixes
 * and peers").  On x86-64 the small paths
 * read no data but the selector's limits (ntm_limits, set by
 * ntm_select_set_shim()): memcpy, memmove, memset and their _chk forms
 * run the classes of the shim's width in preload_x86_64.S (in a width's
 * own build of the shim, with no limit at all), and the other names
 * below shim_sse2_below jump straight to the SSE2 entry points.  The
 * limits are 0 until the constructor has routed the calls, and while
 * counting: every call then takes its route.  Elsewhere they stay 0.
 */
#if defined(__x86_64__)
NTM_HIDDEN void *ntm_entry_set_sse2(void *dst, int c, size_t n);
NTM_HIDDEN void *ntm_entry_copy_sse2(void *dst, const void *src, size_t n);
#define direct_set ntm_entry_set_sse2
#define direct_copy ntm_entry_copy_sse2
#else
#define direct_set ntm_shim_early_set
#define direct_copy ntm_shim_early_copy
#endif

static inline int direct(size_t n)
{
	return n < __atomic_load_n(&ntm_limits.shim_sse2_below, __ATOMIC_RELAXED);
}

static inline set_fn *set_route(const union shim_route *routes, int f)
{
	set_fn *r = __atomic_load_n(&routes[f].set, __ATOMIC_RELAXED);
	return __builtin_expect(r != NULL, 1) ? r : ntm_shim_early_set;
}

static inline copy_fn *copy_route(const union shim_route *routes, int f)
{
	copy_fn *r = __atomic_load_n(&routes[f].copy, __ATOMIC_RELAXED);
	return __builtin_expect(r != NULL, 1) ? r : ntm_shim_early_copy;
}

/* Call f's route, or the direct path for a small call. */
#define SET_CALL(f, dst, c, n)                                              \
	(direct(n) ? direct_set((dst), (c), (n))                           \
		   : set_route(ntm_shim_routes, SHIM_##f)((dst), (c), (n)))
#define COPY_CALL(f, dst, src, n)                                           \
	(direct(n) ? direct_copy((dst), (src), (n))                        \
		   : copy_route(ntm_shim_routes, SHIM_##f)((dst), (src), (n)))

/* ------------------------------------------------------------------ */
/* The C library's names                                               */
/* ------------------------------------------------------------------ */

__attribute__((noreturn, cold)) static void overflow(void)
{
	if (__chk_fail)
		__chk_fail();
	abort();
}

/* memset, memcpy, memmove and their _chk forms: in preload_x86_64.S on
 * x86-64, which hands on to these, checked: to the route when no class
 * of the shim's served the call (ntm_shim_routed_NAME), and beyond them,
 * to the large-call path (ntm_shim_beyond_NAME). */
#if defined(__x86_64__)
#define ROUTED_SET(f)                                                        \
	NTM_HIDDEN void *ntm_shim_routed_##f(void *dst, int c, size_t n);    \
	NTM_HIDDEN void *ntm_shim_beyond_##f(void *dst, int c, size_t n);    \
	void *ntm_shim_routed_##f(void *dst, int c, size_t n)                \
	{                                                                    \
		return set_route(ntm_shim_routes, SHIM_##f)(dst, c, n);      \
	}                                                                    \
	void *ntm_shim_beyond_##f(void *dst, int c, size_t n)                \
	{                                                                    \
		return set_route(ntm_shim_beyond, SHIM_##f)(dst, c, n);      \
	}
#define ROUTED_COPY(f)                                                       \
	NTM_HIDDEN void *ntm_shim_routed_##f(void *dst, const void *src,     \
					     size_t n);                      \
	NTM_HIDDEN void *ntm_shim_beyond_##f(void *dst, const void *src,     \
					     size_t n);                      \
	void *ntm_shim_routed_##f(void *dst, const void *src, size_t n)      \
	{                                                                    \
		return copy_route(ntm_shim_routes, SHIM_##f)(dst, src, n);   \
	}                                                                    \
	void *ntm_shim_beyond_##f(void *dst, const void *src, size_t n)      \
	{                                                                    \
		return copy_route(ntm_shim_beyond, SHIM_##f)(dst, src, n);   \
	}
ROUTED_SET(memset)
ROUTED_SET(__memset_chk)
ROUTED_COPY(memcpy)
ROUTED_COPY(memmove)
ROUTED_COPY(__memcpy_chk)
ROUTED_COPY(__memmove_chk)

/* The _chk forms' failure, for preload_x86_64.S. */
NTM_HIDDEN __attribute__((noreturn)) void ntm_shim_overflow(void);
void ntm_shim_overflow(void)
{
	overflow();
}
#else
void *memset(void *dst, int c, size_t n)
{
	return SET_CALL(memset, dst, c, n);
}

void *memcpy(void *restrict dst, const void *restrict src, size_t n)
{
	return COPY_CALL(memcpy, dst, src, n);
}

void *memmove(void *dst, const void *src, size_t n)
{
	return COPY_CALL(memmove, dst, src, n);
}

void *__memset_chk(void *dst, int c, size_t n, size_t dstlen)
{
	if (__builtin_expect(dstlen < n, 0))
		overflow();
	return SET_CALL(__memset_chk, dst, c, n);
}

void *__memcpy_chk(void *dst, const void *src, size_t n, size_t dstlen)
{
	if (__builtin_expect(dstlen < n, 0))
		overflow();
	return COPY_CALL(__memcpy_chk, dst, src, n);
}

void *__memmove_chk(void *dst, const void *src, size_t n, size_t dstlen)
{
	if (__builtin_expect(dstlen < n, 0))
		overflow();
	return COPY_CALL(__memmove_chk, dst, src, n);
}

#endif


void *mempcpy(void *restrict dst, const void *restrict src, size_t n)
{
	return (char *)COPY_CALL(mempcpy, dst, src, n) + n;
}

void *__mempcpy(void *dst, const void *src, size_t n)
{
	return (char *)COPY_CALL(__mempcpy, dst, src, n) + n;
}

void bzero(void *dst, size_t n)
{
	SET_CALL(bzero, dst, 0, n);
}

void __bzero(void *dst, size_t n)
{
	SET_CALL(__bzero, dst, 0, n);
}

/* The stores happen in another function, reached through a pointer, so
 * no compiler can drop them; the barrier says so to this one as well. */
void explicit_bzero(void *dst, size_t n)
{
	SET_CALL(explicit_bzero, dst, 0, n);
	__asm__ __volatile__("" : : "r"(dst) : "memory");
}

void __explicit_bzero_chk(void *dst, size_t n, size_t dstlen)
{
	if (__builtin_expect(dstlen < n, 0))
		overflow();
	SET_CALL(__explicit_bzero_chk, dst, 0, n);
	__asm__ __volatile__("" : : "r"(dst) : "memory");
}

void *__mempcpy_chk(void *dst, const void *src, size_t n, size_t dstlen)
{
	if (__builtin_expect(dstlen < n, 0))
		overflow();
	return (char *)COPY_CALL(__mempcpy_chk, dst, src, n) + n;
}

/* ------------------------------------------------------------------ */
/* The C library's own definitions, and start-up                       */
/* ------------------------------------------------------------------ */

/* This object's own image, from the linker: its ELF header to the end of
 * its .bss.  A definition inside it is this object's own, which tells
 * with no dladdr (which searches every symbol of an object). */
extern const char __ehdr_start[] NTM_HIDDEN, _end[] NTM_HIDDEN;

/* The definition of name that the dynamic linker finds after this
 * object, unless that is this object again; NULL when there is none. */
static void *next_definition(const char *name)
{
	void *f = dlsym(RTLD_NEXT, name);
	const char *at = f;
	if (!f || (at >= __ehdr_start && at < _end))
		return NULL;
	return f;
}

/*
 * The C library's definitions, handed down to the library (libc.h) by
 * the constructor below, before the library's own builds the policy.
 *
 * Why it cannot recurse: dlsym takes the loader's lock and may allocate,
 * but it is called only here, from a constructor, never from inside a
 * memset or memcpy.  Whatever copies dlsym makes inside the C library or
 * the loader use their own internal functions; if one did come here, it
 * would find no policy yet and use the baseline variants and the
 * portable loops, none of which calls dlsym, locks or allocates.  If a
 * name cannot be found, ntm_libc keeps the portable loops: slower for the
 * "libc" rungs and overlapping copies, never wrong.
 */
static void hand_down_libc(void)
{
	void *set = next_definition("memset");
	void *copy = next_definition("memcpy");
	void *move = next_definition("memmove");
	struct libc_fns fns = {(set_fn *)set, (copy_fn *)copy, (copy_fn *)move};
	ntm_libc_use(set && copy && move ? &fns : NULL);
}

/* After the library's constructor (priority 102) has built the policy:
 * the width of the entry points, the widest this process may use; then
 * route the calls to them, or, when ntmem run asked this process for a
 * report, through the counters.  errno is kept, as loading a library
 * must not change it. */
__attribute__((constructor(103))) static void shim_start(void)
{
	int saved = errno;
	ntm_shim_set_width(ntm_entry_width_for(ntm_policy_width()));
	ntm_shim_route_all(ntm_shim_report_setup() ? ntm_shim_counted : NULL);
	errno = saved;
}

/* Before the library's constructor (102): the C library's functions, and
 * that the policy serves the shim's entry points (NTMEM_TUNABLES
 * shim_width=). */
__attribute__((constructor(101))) static void shim_first(void)
{
	int saved = errno;
	hand_down_libc();
	ntm_policy_serve_shim();
	errno = saved;
}
