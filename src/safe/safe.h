/* safe.h - the fault-tolerant calls inside the library: guarded forms of
 * the variants, the handler that lets them survive a fault, and what the
 * tests may look at.
 *
 * A guarded form copies or fills like the variant it guards, but a fault
 * on either buffer ends it early instead of killing the process: it
 * returns how many bytes it did not do and which side faulted, exactly
 * (see struct ntm_guarded_result).  On x86-64 the forms are the loops of
 * src/safe/guarded_x86_64.S, found through an exception table (no
 * per-call cost); elsewhere one portable form runs the variant itself
 * under a per-call sigsetjmp (safe_portable.c). */
#ifndef NTM_SAFE_H
#define NTM_SAFE_H

#include <signal.h>
#include <stddef.h>
#include <stdint.h>

#include "variants/features.h"
#include "variants/variant.h"

/* 1: the guarded loops of guarded_x86_64.S and their exception table;
 * 0: the per-call sigsetjmp guard of safe_portable.c (any architecture;
 * define NTM_SAFE_PORTABLE to build it on x86-64 too, for testing). */
#if defined(__x86_64__) && !defined(NTM_SAFE_PORTABLE)
#define NTM_SAFE_EXTABLE 1
#else
#define NTM_SAFE_EXTABLE 0
#endif

#if NTM_SAFE_EXTABLE
/* The exception table of guarded_x86_64.S and safe_entry_x86_64.S:
 * faults in [from, to) go to fixup; each field an offset from itself.
 * The linker names the bounds of the section both files add to. */
struct extable_entry {
	int32_t from, to, fixup;
};
extern const struct extable_entry __start_ntm_extable[] NTM_HIDDEN,
	__stop_ntm_extable[] NTM_HIDDEN;

static inline uintptr_t ntm_extable_target(const int32_t *field)
{
	return (uintptr_t)field + (uintptr_t)(intptr_t)*field;
}
#endif

/* Which side a guarded form stopped at. */
enum ntm_fault {
	NTM_FAULT_NONE = 0,
	NTM_FAULT_READ = 1,    /* src + n - left could not be read */
	NTM_FAULT_WRITE = 2    /* dst + n - left could not be written */
};

/* What a guarded form did: dst[0, n - left) holds the result.  Returned
 * in two registers (rax, rdx on x86-64), so assembly can return it. */
struct ntm_guarded_result {
	size_t left;
	size_t fault;           /* enum ntm_fault */
};

typedef struct ntm_guarded_result guarded_copy_fn(void *dst, const void *src,
						  size_t n);
typedef struct ntm_guarded_result guarded_set_fn(void *dst, int c, size_t n);

/* Run v's guarded form (or the form standing in for it).  Copies: the
 * buffers must not overlap.  Does not fence. */
NTM_HIDDEN struct ntm_guarded_result
ntm_guarded_copy(const struct variant *v, void *dst, const void *src, size_t n);
NTM_HIDDEN struct ntm_guarded_result
ntm_guarded_set(const struct variant *v, void *dst, int c, size_t n);

/* Whether the form that runs for v writes with streaming stores (then
 * the caller fences). */
NTM_HIDDEN int ntm_guarded_streams(const struct variant *v);

/* The registry variant whose guarded form runs for v: v itself when its
 * family has one, else the stand-in (safe_forms.c says which).  NULL
 * when v cannot run here. */
NTM_HIDDEN const struct variant *ntm_guarded_by(const struct variant *v);

/* Build the table of forms (idempotent; ntm_safe_install() calls it
 * before the handler is published). */
NTM_HIDDEN void ntm_guarded_forms_init(void);

/* For the handler: a synchronous fault (info: its siginfo_t)
 * interrupted context.  If it is a safe call's, send it on (the
 * exception table: edit the context to resume at the fixup and return
 * 1; portable: jump back to the call's guard, never returning); else
 * return 0. */
NTM_HIDDEN int ntm_safe_fixup(const void *info, void *context);

/* For the handler, before ntm_safe_fixup: a synchronous fault (info:
 * its siginfo_t) inside the calling thread's ntmem_populate() touch loop
 * jumps back to that loop; anything else returns. */
NTM_HIDDEN void ntm_touch_fixup(int sig, const void *info);

/* Write each page of [p, p + len) once, changing no byte, and return 0;
 * or, at the first page that faults, the errno madvise's
 * MADV_POPULATE_WRITE would give (EFAULT, ENOMEM, EINVAL).  The signal
 * mask is as it was either way (safe_touch.c). */
NTM_HIDDEN int ntm_safe_touch_pages(unsigned char *p, size_t len);

/* Install the handler once (lock-free; async-signal-safe once done).
 * Returns 0, or -1 with errno. */
NTM_HIDDEN int ntm_safe_install(void);

/* Install the handler again, in front of whatever the program installed
 * since (ntmem_safe_init()).  Returns 0, or -1 with errno. */
NTM_HIDDEN int ntm_safe_reinstall(void);

/*
 * A synchronous fault whose signal the thread blocks kills the process:
 * the kernel forces the default action, and no handler runs.  The thread's
 * mask lives only in the kernel, so a call that cannot vouch for it
 * unblocks SIGSEGV and SIGBUS while it runs (one system call) and blocks
 * again afterwards those that were blocked (a second one, only then).
 * With NTMEM_F_UNBLOCKED in flags, both do nothing.  Async-signal-safe.
 */
struct ntm_fault_mask {
	sigset_t reblock;      /* what to block again */
	int changed;
};
/* safe_mask.c */
NTM_HIDDEN void ntm_faults_unblock(unsigned flags, struct ntm_fault_mask *m);
NTM_HIDDEN void ntm_faults_restore(const struct ntm_fault_mask *m);

/* Let the assembly entry points run their commonest size class (they
 * read ntm_safe_gate, see safe_entry_x86_64.S); once the handler is in. */
NTM_HIDDEN void ntm_guarded_entries_open(void);

/* Faults the handler has sent to a fixup (or, off x86-64, to a guard),
 * for the tests: a call that faults nowhere must not add to it. */
extern unsigned long ntm_safe_recovered NTM_HIDDEN;

/* The whole safe call, for what the entry points do not do themselves
 * (the public functions off x86-64). */
typedef size_t safe_copy_fn(void *dst, const void *src, size_t n, unsigned flags);
typedef size_t safe_set_fn(void *dst, int c, size_t n, unsigned flags);
NTM_HIDDEN safe_copy_fn ntm_copy_safe_slow;
NTM_HIDDEN safe_set_fn ntm_set_safe_slow;

#if NTM_SAFE_EXTABLE
/* The safe calls' entry points of each x86-64 width (guarded_x86_64.S):
 * the small path and the inline loop guarded, the rest in C. */
NTM_HIDDEN safe_copy_fn ntm_safe_copy_sse2, ntm_safe_copy_avx2,
	ntm_safe_copy_avx512;
NTM_HIDDEN safe_set_fn ntm_safe_set_sse2, ntm_safe_set_avx2,
	ntm_safe_set_avx512;
#endif

#ifdef __x86_64__
/* Where the entry points of guarded_x86_64.S go after a fault: the small
 * path's, or the inline loop's with dst[0, done) complete. */
NTM_HIDDEN size_t ntm_copy_safe_small_fault(void *dst, const void *src,
						 size_t n, unsigned flags);
NTM_HIDDEN size_t ntm_set_safe_small_fault(void *dst, int c, size_t n,
						unsigned flags);
NTM_HIDDEN size_t ntm_copy_safe_resume(void *dst, const void *src,
					    size_t n, unsigned flags, size_t done);
NTM_HIDDEN size_t ntm_set_safe_resume(void *dst, int c, size_t n,
					   unsigned flags, size_t done);

/* The guarded byte-at-a-time loops: exact, slow, for short spans. */
NTM_HIDDEN struct ntm_guarded_result
ntm_guarded_bytes_copy(void *dst, const void *src, size_t n);
NTM_HIDDEN struct ntm_guarded_result
ntm_guarded_bytes_set(void *dst, int c, size_t n);
#endif

#endif
