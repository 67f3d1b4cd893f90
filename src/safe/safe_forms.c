/* safe_forms.c - which guarded loop of guarded_x86_64.S runs for which
 * variant, and the exception table's lookup for the handler (x86-64).
 *
 * A family's guarded form is found by the data of the variant it
 * guards: the family table it is in, its operation, role and required
 * features; never by name.  A variant whose family has none (libc,
 * portable, stosq, CLZERO) runs a stand-in of its kind that this CPU
 * runs:
 *   cached     rep movsb / rep stosb where the CPU has ERMS (what glibc
 *              itself runs at the sizes the built-in ladder gives libc),
 *              else the best-ranked vector loop;
 *   streaming  the best-ranked streaming variant with a form that writes
 *              any value.
 * The answer per variant is worked out once, into a table the calls
 * read by the variant's address without a lock.
 */
#define _GNU_SOURCE
#include "safe.h"

#if NTM_SAFE_EXTABLE
#include <sched.h>
#include <signal.h>
#include <stdint.h>
#include <ucontext.h>

#include "dispatch/cpu.h"
#include "dispatch/registry.h"
#include "dispatch/width.h"

struct guarded_form {
	const struct variant_family *family;  /* of the variant it guards */
	enum ntmem_op op;
	enum ntmem_role role;
	unsigned requires;      /* that variant's requires */
	unsigned needs;         /* what the loop itself runs on */
	guarded_set_fn *set;
	guarded_copy_fn *copy;
};

extern const struct variant_family ntm_family_sse2, ntm_family_avx,
	ntm_family_avx512, ntm_family_rep, ntm_family_movnti,
	ntm_family_movdir64b;

#define DECLARE_FORMS(stem)                                  \
	NTM_HIDDEN guarded_set_fn ntm_guarded_set_##stem; \
	NTM_HIDDEN guarded_copy_fn ntm_guarded_copy_##stem
DECLARE_FORMS(vec_sse2);
DECLARE_FORMS(nt_sse2);
DECLARE_FORMS(vec_avx2);
DECLARE_FORMS(nt_avx2);
DECLARE_FORMS(vec_avx512);
DECLARE_FORMS(nt_avx512);
DECLARE_FORMS(movnti);
DECLARE_FORMS(movdir64b);
NTM_HIDDEN guarded_set_fn ntm_guarded_set_stosb;
NTM_HIDDEN guarded_copy_fn ntm_guarded_copy_movsb;

#define FORMS(fam, role, req, need, stem)                                  \
	{&ntm_family_##fam, NTMEM_OP_SET, NTMEM_ROLE_##role, req, need,    \
	 ntm_guarded_set_##stem, NULL},                                    \
	{&ntm_family_##fam, NTMEM_OP_COPY, NTMEM_ROLE_##role, req, need,   \
	 NULL, ntm_guarded_copy_##stem}

/* ZMM16-23, YMM16 and XMM16 (VL), VPBROADCASTB from a general register
 * and byte-masked stores below one vector (BW); the 32-byte width
 * broadcasts with AVX2. */
#define EVEX (CPU_AVX512F | CPU_AVX512BW | CPU_AVX512VL)

static const struct guarded_form forms[] = {
	FORMS(sse2, VECTOR, CPU_SSE2, CPU_SSE2, vec_sse2),
	FORMS(sse2, STREAMING, CPU_SSE2, CPU_SSE2, nt_sse2),
	FORMS(avx, VECTOR, CPU_AVX2, CPU_AVX2, vec_avx2),
	FORMS(avx, STREAMING, CPU_AVX, CPU_AVX2, nt_avx2),
	FORMS(avx512, VECTOR, CPU_AVX512F | CPU_AVX512BW | CPU_AVX512VL, EVEX,
	      vec_avx512),
	FORMS(avx512, STREAMING, CPU_AVX512F, EVEX, nt_avx512),
	{&ntm_family_rep, NTMEM_OP_SET, NTMEM_ROLE_STRING, CPU_ERMS, 0,
	 ntm_guarded_set_stosb, NULL},
	{&ntm_family_rep, NTMEM_OP_COPY, NTMEM_ROLE_STRING, CPU_ERMS, 0, NULL,
	 ntm_guarded_copy_movsb},
	FORMS(movnti, STREAMING, CPU_SSE2, CPU_SSE2, movnti),
	FORMS(movdir64b, STREAMING, CPU_MOVDIR64B, CPU_MOVDIR64B, movdir64b),
};

#define NFORMS (sizeof forms / sizeof forms[0])

/* The form of v's own family that this CPU runs, or NULL. */
static const struct guarded_form *guarded_form_of(const struct variant *v)
{
	for (size_t i = 0; i < NFORMS; i++) {
		const struct guarded_form *f = &forms[i];
		const struct variant *first = f->family->variants;
		if (v >= first && v < first + f->family->count && v->op == f->op &&
		    v->role == f->role && v->requires == f->requires &&
		    !ntm_cpu_missing(ntm_cpu_features(), f->needs) &&
		    !ntm_variant_unsupported(v))
			return f;
	}
	return NULL;
}

/* Whether a, with a form, serves better than b as a stand-in. */
static int better_standin(const struct variant *a, const struct variant *b,
			  int streaming)
{
	if (!b)
		return 1;
	if (!streaming && a->role != b->role)
		return a->role == NTMEM_ROLE_STRING;
	return a->rank > b->rank;
}

/* The stand-in of op: the registry variant whose form serves variants
 * without one. */
static const struct variant *standin(enum ntmem_op op, int streaming)
{
	const struct variant *best = NULL;
	for (int id = 0; id < ntm_variant_count(); id++) {
		const struct variant *v = ntm_variant(id);
		if (v->op == op && ntm_streams(v) == streaming && !v->zero_only &&
		    guarded_form_of(v) && better_standin(v, best, streaming))
			best = v;
	}
	return best;
}

/* Open addressing on the variant's address: the calls look it up. */
#define SLOTS 128
struct slot {
	const struct variant *v;
	const struct variant *by;      /* whose form runs */
	const struct guarded_form *form;
};
static struct slot slots[SLOTS];
static const struct slot *fallback[2][2]; /* [op][streaming] */

static inline size_t slot_of(const struct variant *v)
{
	return (size_t)(((uintptr_t)v >> 4) * 0x9E3779B97F4A7C15ull >> 57);
}

static void add_slot(const struct variant *v, const struct variant *by)
{
	size_t i = slot_of(v);
	while (slots[i].v)
		i = (i + 1) % SLOTS;
	slots[i] = (struct slot){v, by, guarded_form_of(by)};
}

/* v comes from the registry or the ladder, so it is in the table; an
 * unknown one gets the stand-in of its kind rather than a crash. */
static const struct slot *slot_for(const struct variant *v)
{
	for (size_t i = slot_of(v);; i = (i + 1) % SLOTS) {
		if (slots[i].v == v)
			return &slots[i];
		if (!slots[i].v)
			return fallback[v->op][ntm_streams(v)];
	}
}

static void build_forms(void)
{
	const struct variant *stand[2][2];
	for (int op = 0; op < 2; op++)
		for (int streaming = 0; streaming < 2; streaming++) {
			stand[op][streaming] = standin(op, streaming);
			if (!stand[op][streaming])  /* no streaming form runs here */
				stand[op][streaming] = stand[op][0];
		}
	for (int id = 0; id < ntm_variant_count(); id++) {
		const struct variant *v = ntm_variant(id);
		if (ntm_variant_unsupported(v))
			continue;
		add_slot(v, guarded_form_of(v) ? v : stand[v->op][ntm_streams(v)]);
	}
	for (int op = 0; op < 2; op++)
		for (int streaming = 0; streaming < 2; streaming++) {
			fallback[op][streaming] = slot_for(stand[op][streaming]);
		}
}

void ntm_guarded_forms_init(void)
{
	static int state;  /* 0: not built, 1: building, 2: built */
	for (;;) {
		int expect = 0;
		if (__atomic_load_n(&state, __ATOMIC_ACQUIRE) == 2)
			return;
		if (__atomic_compare_exchange_n(&state, &expect, 1, 0,
						__ATOMIC_ACQUIRE,
						__ATOMIC_RELAXED)) {
			build_forms();
			__atomic_store_n(&state, 2, __ATOMIC_RELEASE);
			return;
		}
		sched_yield();
	}
}


struct ntm_guarded_result ntm_guarded_copy(const struct variant *v, void *dst,
					   const void *src, size_t n)
{
	return slot_for(v)->form->copy(dst, src, n);
}

struct ntm_guarded_result ntm_guarded_set(const struct variant *v, void *dst,
					  int c, size_t n)
{
	return slot_for(v)->form->set(dst, c, n);
}

int ntm_guarded_streams(const struct variant *v)
{
	return slot_for(v)->form->role == NTMEM_ROLE_STREAMING;
}

const struct variant *ntm_guarded_by(const struct variant *v)
{
	ntm_guarded_forms_init();
	return ntm_variant_unsupported(v) ? NULL : slot_for(v)->by;
}

/* Per entry width (enum ntm_width): 0 until the handler is installed,
 * then the width's vector size + 1 (guarded_x86_64.S says why). */
NTM_HIDDEN size_t ntm_safe_gate[NTM_WIDTHS];

void ntm_guarded_entries_open(void)
{
	static const size_t vector_bytes[NTM_WIDTHS] = {
		[NTM_WIDTH_SSE2] = 16, [NTM_WIDTH_AVX2] = 32, [NTM_WIDTH_AVX512] = 64};
	for (int w = 0; w < NTM_WIDTHS; w++)
		if (vector_bytes[w])
			__atomic_store_n(&ntm_safe_gate[w], vector_bytes[w] + 1,
					 __ATOMIC_RELEASE);
}

/* Counted here, where a fault is sent on to its fixup. */
unsigned long ntm_safe_recovered;

int ntm_safe_fixup(const void *info, void *context)
{
	ucontext_t *uc = context;
	(void)info;
	uintptr_t ip = (uintptr_t)uc->uc_mcontext.gregs[REG_RIP];
	for (const struct extable_entry *e = __start_ntm_extable;
	     e < __stop_ntm_extable; e++)
		if (ip >= ntm_extable_target(&e->from) && ip < ntm_extable_target(&e->to)) {
			uc->uc_mcontext.gregs[REG_RIP] = (greg_t)ntm_extable_target(&e->fixup);
			__atomic_fetch_add(&ntm_safe_recovered, 1, __ATOMIC_RELAXED);
			return 1;
		}
	return 0;
}
#endif
