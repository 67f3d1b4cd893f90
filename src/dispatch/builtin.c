/* builtin.c - the built-in ladders (builtin.h): one table of the CPUs
 * recorded in data/machines/, and the rule for every other CPU.
 *
 * Each entry is read off its machine's tables (the full "ntmem bench -f
 * all" grid, 64 B to 1 GiB, and "ntmem calibrate" for the edges), and
 * tests/test_replay.c checks it against them, size by size: the function
 * it picks must be within 5% of the best recorded there (10% below 1 KiB)
 * and within 3% of the C library's.  Where two methods swap places from
 * run to run, the entry takes the C library's function or the one that
 * ties with it, rather than a winner of one run.  Sizes are absolute:
 * the parts of a family share their L3 per core complex (32 MiB on the
 * Zen 3, 4 and 5 server parts), and the VMs these CPUs are rented in
 * report topology that cannot be trusted.  Model ranges follow AMD's
 * and Intel's published family/model tables.
 */
#include "builtin.h"

#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include "registry.h"
#include "util/size.h"
#include "width.h"

#define END SIZE_MAX

struct recorded {
	const char *vendor;
	unsigned family, model_lo, model_hi;   /* models model_lo..model_hi */
	struct builtin ladders;
};

/* The three classes in order: memset of zeros, of other values, memcpy
 * (enum ntmem_class).  Zen 3's and Zen 4's model ranges are split in
 * AMD's numbering; each range is a row of its own. */
#define ZEN3                                                                 \
	{"AMD Zen 3", "data/machines/AuthenticAMD-25-1, recorded 2026-12-02, copies again", \
	 {{{PICK_VECTOR, 12 * MiB}, {PICK_STREAMING, 512 * MiB}, {PICK_LIBC, END}}, \
	  {{PICK_VECTOR, 12 * MiB}, {PICK_STREAMING_ANY, END}},               \
	  {{PICK_VECTOR, 512 * KiB}, {PICK_LIBC, 8 * MiB}, {PICK_STREAMING, END}}}, \
	 0, 1}
#define ZEN4                                                                 \
	{"AMD Zen 4", "data/machines/zen4-vm, recorded 2026-11-30 (partial)",  \
	 {{{PICK_VECTOR, 32 * KiB}, {PICK_LIBC, 1 * MiB}, {PICK_VECTOR, 12 * MiB}, \
	   {PICK_STREAMING_ANY, 64 * MiB}, {PICK_STREAMING, END}},             \
	  {{PICK_VECTOR, 32 * MiB}, {PICK_STREAMING_ANY, END}},               \
	  {{PICK_VECTOR, 8 * MiB}, {PICK_STREAMING_ANY, 64 * MiB},             \
	   {PICK_STRING, END}}}, 0, 0}
#define ZEN5                                                                 \
	{"AMD Zen 5", "data/machines/zen5-vm, recorded 2026-12-02",            \
	 {{{PICK_VECTOR, 768 * KiB}, {PICK_STRING, 32 * MiB},                  \
	   {PICK_STREAMING, END}},                                            \
	  {{PICK_VECTOR, 768 * KiB}, {PICK_STRING, 3 * MiB + 512 * KiB},       \
	   {PICK_VECTOR, 48 * MiB}, {PICK_STRING, END}},                      \
	  {{PICK_VECTOR, 24 * KiB}, {PICK_STRING, 2 * MiB}, {PICK_LIBC, 8 * MiB}, \
	   {PICK_STRING, END}}}, 0, 0}
#define XEON_VM                                                              \
	{"Intel Xeon (KVM, model 167)",                                       \
	 "data/machines/xeon-vm, recorded 2026-12-01 (partial)",               \
	 {{{PICK_VECTOR, 32 * KiB}, {PICK_LIBC, 32 * MiB}, {PICK_STREAMING, END}}, \
	  {{PICK_VECTOR, 32 * KiB}, {PICK_LIBC, 32 * MiB}, {PICK_STREAMING, END}}, \
	  {{PICK_VECTOR, 512 * KiB}, {PICK_LIBC, 32 * MiB},                    \
	   {PICK_STREAMING, END}}}, 1, 0}

static const struct recorded recorded[] = {
	/* Zen 3: Milan (EPYC 7xx3, model 0x01), Vermeer, Cezanne.  Cached
	 * vector stores beat rep stosb and glibc up to about half the CCD's
	 * L3; above it streaming stores are 1.5-3x glibc's memset (CLZERO
	 * for zeros: the others trade places with it from run to run).
	 * Streaming copies, line by line, lead from 16 MiB (1.2-1.5x rep
	 * movsb; with four pages interleaved they ran at half glibc's).  Up
	 * to half the L3 they read their source a page ahead: at 16 MiB
	 * 0.95-1.00x libpmem's streaming copy with it, 0.77-0.92x without.
	 * From 1 GiB glibc's own memset (rep stosb) holds its own in every
	 * run, and the rest do not. */
	{"AuthenticAMD", 0x19, 0x00, 0x0f, ZEN3},
	{"AuthenticAMD", 0x19, 0x20, 0x5f, ZEN3},
	/* Zen 4: Genoa (model 0x11), Raphael, Phoenix, Bergamo.  Streaming
	 * zeros 1.8x glibc from 16 MiB; streaming data only above 64 MiB;
	 * rep movsb leads copies from 128 MiB. */
	{"AuthenticAMD", 0x19, 0x10, 0x1f, ZEN4},
	{"AuthenticAMD", 0x19, 0x60, 0x7f, ZEN4},
	{"AuthenticAMD", 0x19, 0xa0, 0xaf, ZEN4},
	/* Zen 5: Turin (model 0x02).  Vector stores lead up to 768 KiB,
	 * rep stosb from there; above 3.5 MiB rep stosb of other values
	 * than zero falls from 104 to 40 GB/s while vector stores hold 84
	 * to 16 MiB.  For zeros rep stosb and vector stores swap places
	 * between runs at 4-16 MiB (97 against 80 GB/s in one, 60 against
	 * 81 in the next): rep stosb is glibc's own choice there.  Above
	 * the L3 rep stosb and rep movsb no longer allocate: for zeros
	 * CLZERO is 1.2-1.4x them, for data they tie with streaming stores,
	 * and rep movsb beats every streaming copy, but for a dip at 4 MiB
	 * where glibc's memcpy holds. */
	{"AuthenticAMD", 0x1a, 0x00, 0xff, ZEN5},
	/* The Xeon this project was measured on (a 480 MiB L3 in sysfs):
	 * rep stosb allocates, and streaming stores are 1.6-4x glibc from
	 * 64 MiB. */
	{"GenuineIntel", 0x06, 167, 167, XEON_VM},
};

/* For a CPU not in the table: the entry points' own loop to 32 KiB (it
 * beats the C library's function there on every machine recorded), then
 * the C library's, then streaming stores above the L3 share a CPU has
 * (copies: half of it; they touch twice their size).  On AMD's Zen parts
 * rep stosb and rep movsb stop allocating above the L3: there they tie
 * with or beat streaming stores of data (Zen 4 0.6x glibc at 16 MiB,
 * Zen 5 0.94x at 64 MiB) and copies (Zen 3 0.4x, Zen 5 0.8x), so an
 * unknown AMD CPU streams zeros alone, with a store that writes any value
 * (CLZERO fell to 0.87x glibc at 1 GiB on Zen 3), and only up to 512 MiB. */
/* The built-in threshold is one thread's share of the last-level cache:
 * above it a clear or copy would evict more than its own share.  The
 * floor: below 8 MiB streaming always lost in the seeds' tables (2-16 MB).
 * With no size that can be trusted, 64 MiB: at least the L3 of one socket
 * of most servers sold before 2025, so streaming starts late rather than
 * early (early costs bandwidth, late only cache).  No cap is needed: more
 * than NTM_MAX_CREDIBLE_L3_SHARE a CPU is not trusted.  A copy touches
 * twice its size (source and destination), so it streams from half the
 * share. */
#define THRESHOLD_FLOOR (8 * MiB)

#define SHARE_UNKNOWN (64 * MiB)

size_t ntm_default_threshold(const struct cpu *cpu, enum ntmem_op op,
			     char *how, size_t len)
{
	struct cache_plan plan;
	ntm_cpu_plan(cpu, &plan);
	size_t share = plan.caches.l3 ? plan.caches.l3 / plan.caches.l3_shared_by
				      : SHARE_UNKNOWN;
	size_t t = share;
	const char *bound = "";
	if (t < THRESHOLD_FLOOR) {
		t = THRESHOLD_FLOOR;
		bound = ", raised to the floor";
	}
	char s[32];
	if (plan.caches.l3)
		snprintf(how, len, "%s, shared by %u: %s per thread%s", plan.how,
			 plan.caches.l3_shared_by,
			 ntm_format_size(share, s, sizeof s), bound);
	else
		snprintf(how, len, "%s: a fixed %s per thread", plan.how,
			 ntm_format_size(share, s, sizeof s));
	if (op == NTMEM_OP_COPY) {
		t = t / 2 < THRESHOLD_FLOOR ? THRESHOLD_FLOOR : t / 2;
		size_t used = strlen(how);
		if (used < len)
			snprintf(how + used, len - used,
				 "; a copy touches twice its size: half");
	}
	return t;
}

#define ENTRY_LOOP_MAX (32 * KiB)
/* From here on AMD's rep stosb holds its own against every streaming
 * store in every run recorded (Zen 3 at 1 GiB: 0.89-1.0x). */
#define AMD_GLIBC_HOLDS (512 * MiB)

/* Do the entry points of this CPU run a vector loop of their own (the
 * x86-64 widths)?  The rule starts with it where they do; elsewhere
 * nothing measured says a loop beats the C library's function. */
static int entry_has_loop(void)
{
	enum ntm_width w = ntm_width_choose();
	for (int id = 0; id < ntm_variant_count(); id++)
		if (ntm_variant(id)->inline_width == w && w != NTM_WIDTH_NONE)
			return 1;
	return 0;
}

static void unknown_rule(const struct cpu *cpu, struct builtin *b, char *how,
			 size_t len)
{
	char why[2][200];
	size_t t[2];
	for (int op = 0; op < 2; op++)
		t[op] = ntm_default_threshold(cpu, op, why[op], sizeof why[op]);
	int amd = !strcmp(cpu->vendor, "AuthenticAMD") && cpu->family >= 0x17;
	int loop = entry_has_loop();
	memset(b, 0, sizeof *b);
	b->name = "the rule for CPUs not recorded";
	/* As measured: Intel's streaming copies gain by moving four pages
	 * at once, AMD's lose by it (shape.h). */
	b->interleave_pages = !strcmp(cpu->vendor, "GenuineIntel");
	for (int cls = 0; cls < NTM_BUILTIN_CLASSES; cls++) {
		int copy = cls == NTMEM_CLASS_COPY;
		struct builtin_rung *r = b->rung[cls];
		/* The C library's own where there is no loop: it merges with
		 * the libc rung that follows. */
		r[0] = (struct builtin_rung){loop ? PICK_VECTOR : PICK_LIBC, ENTRY_LOOP_MAX};
		if (amd && cls != NTMEM_CLASS_SET_ZERO) {
			r[1] = (struct builtin_rung){PICK_LIBC, END};
			continue;
		}
		r[1] = (struct builtin_rung){PICK_LIBC, t[copy]};
		if (amd && t[copy] < AMD_GLIBC_HOLDS) {
			r[2] = (struct builtin_rung){PICK_STREAMING_ANY, AMD_GLIBC_HOLDS};
			r[3] = (struct builtin_rung){PICK_LIBC, END};
		} else {
			r[2] = (struct builtin_rung){amd ? PICK_LIBC : PICK_STREAMING, END};
		}
	}
	snprintf(how, len, "%s (%s family %u model %u): %s%s%s", b->name,
		 cpu->vendor[0] ? cpu->vendor : "unknown", cpu->family, cpu->model,
		 amd ? "memset of zeros streams from 512 MiB down to " :
		       "memset streams above ",
		 why[0], amd ? "; other memsets and memcpy never (AMD Zen: rep "
			       "stosb and movsb stop allocating above the L3)"
			     : "");
	if (!amd) {
		size_t used = strlen(how);
		if (used < len)
			snprintf(how + used, len - used, "; memcpy above %s", why[1]);
	}
}

const struct builtin *ntm_builtin_for(const struct cpu *cpu,
				      struct builtin *scratch, char *how,
				      size_t len)
{
	for (size_t i = 0; i < sizeof recorded / sizeof recorded[0]; i++) {
		const struct recorded *e = &recorded[i];
		if (!strcmp(cpu->vendor, e->vendor) && cpu->family == e->family &&
		    cpu->model >= e->model_lo && cpu->model <= e->model_hi) {
			snprintf(how, len, "%s, from %s", e->ladders.name,
				 e->ladders.source);
			return &e->ladders;
		}
	}
	unknown_rule(cpu, scratch, how, len);
	return scratch;
}

/* The best-ranked variant of op and role that runs on usable. */
static const struct variant *ranked(enum ntmem_op op, enum ntmem_role role,
				    int zero_ok, unsigned usable)
{
	const struct variant *best = NULL;
	for (int id = 0; id < ntm_variant_count(); id++) {
		const struct variant *v = ntm_variant(id);
		if (v->op != op || v->role != role || (v->zero_only && !zero_ok) ||
		    (v->requires & ~usable))
			continue;
		if (!best || v->rank > best->rank)
			best = v;
	}
	return best;
}

const struct variant *ntm_builtin_variant(int cls, enum builtin_pick pick,
					  unsigned usable)
{
	enum ntmem_op op = cls == NTMEM_CLASS_COPY ? NTMEM_OP_COPY : NTMEM_OP_SET;
	int zeros = cls == NTMEM_CLASS_SET_ZERO;
	switch (pick) {
	case PICK_VECTOR:
		return ranked(op, NTMEM_ROLE_VECTOR, 0, usable);
	case PICK_STRING:
		/* rep stosb/movsb, where the CPU has ERMS (without it they are
		 * slow, and rep stosq is not what a table measured). */
		return usable & CPU_ERMS ? ranked(op, NTMEM_ROLE_STRING, 0, usable)
					 : NULL;
	case PICK_STREAMING:
		return ranked(op, NTMEM_ROLE_STREAMING, zeros, usable);
	case PICK_STREAMING_ANY:
		return ranked(op, NTMEM_ROLE_STREAMING, 0, usable);
	case PICK_LIBC:
	default:
		return ranked(op, NTMEM_ROLE_LIBC, 0, usable);
	}
}
