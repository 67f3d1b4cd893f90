/* builtin.c - the built-in ladders (builtin.h): one table of the CPUs
 * recorded in data/machines/, and one of the rules for every other CPU,
 * by vendor and family.
 *
 * Each recorded entry is read off its machine's tables (the full "ntmem
 * bench -f all" grid, 64 B to 1 GiB, and "ntmem calibrate" for the
 * edges), and tests/test_replay.c checks it against them, size by size:
 * the function it picks must be within 5% of the best recorded there
 * (10% below 1 KiB) and within 3% of the C library's.  Where two methods
 * swap places from run to run, the entry takes the C library's function
 * or the one that ties with it, rather than a winner of one run.  Sizes
 * are absolute: the parts of a family share their L3 per core complex
 * (32 MiB on the Zen 3, 4 and 5 server parts), and the VMs these CPUs are
 * rented in report topology that cannot be trusted.  Model ranges follow
 * AMD's and Intel's published family/model tables.
 *
 * The family rules are what those tables have in common, with the edge
 * between cached and streaming stores at the CPU's share of its L3; the
 * replay checks each against every recorded machine of its family with
 * the machine's own entry hidden.  What the ladder gets wrong on a given
 * host, the selector's learning (learn.h) corrects from 1 MiB up.
 */
#include "builtin.h"

#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include "registry.h"
#include "util/size.h"
#include "width.h"

#define END SIZE_MAX

/* Reasons the rungs give in "ntmem info" (the figures: docs/results.md,
 * "Figures the code's comments quoted", and each machine's README in
 * data/machines/). */
#define WHY_VECTOR_L2 "cached vector stores beat the C library's while the data fits the caches"
#define WHY_STREAM_ABOVE_L3 "above the L3 a cached store reads each line before writing it; streaming stores do not"
#define WHY_PAGES "above the L3 streaming stores skip the read of each line; moving four pages at once keeps four streams going, faster on Intel"
#define WHY_ZEN_STRING "rep movsb/stosb does not allocate above the L3 on AMD Zen, so it streams in effect"
#define WHY_LIBC_HOLDS "the C library's own (rep stosb or its streaming stores) holds its own here in every run recorded"
#define WHY_LIBC_TIES "the C library's own: the methods here trade places from run to run"

/* ------------------------------------------------------------------ */
/* The CPUs recorded                                                  */
/* ------------------------------------------------------------------ */

/* Zen 3: Milan (EPYC 7xx3, model 0x01), Vermeer, Cezanne.  Cached vector
 * stores beat rep stosb and glibc up to about half the CCD's L3; above
 * it streaming stores beat glibc's memset by far (CLZERO for zeros: the
 * others trade places with it from run to run).  Streaming copies, line
 * by line, lead rep movsb from 16 MiB; up to half the L3 they read their
 * source a page ahead, and never four pages at once (far slower here:
 * docs/results.md, "Streaming copies, line by line").  From 1 GiB
 * glibc's own memset (rep stosb) holds its own in every run, and the
 * rest do not.  The figures: docs/results.md, "Figures the code's
 * comments quoted". */
static const struct builtin zen3 = {
	.name = "AMD Zen 3",
	.source = "data/machines/AuthenticAMD-25-1, recorded 2026-12-02, copies again",
	.rung = {
		[NTMEM_CLASS_SET_ZERO] = {
			{RUN_VECTOR, 12 * MiB, WHY_VECTOR_L2},
			{RUN_STREAMING, 512 * MiB, WHY_STREAM_ABOVE_L3},
			{RUN_LIBC, END, WHY_LIBC_HOLDS}},
		[NTMEM_CLASS_SET_NONZERO] = {
			{RUN_VECTOR, 12 * MiB, WHY_VECTOR_L2},
			{RUN_STREAMING_ANY, END, WHY_STREAM_ABOVE_L3}},
		[NTMEM_CLASS_COPY] = {
			{RUN_VECTOR, 512 * KiB, WHY_VECTOR_L2},
			{RUN_LIBC, 8 * MiB, WHY_LIBC_TIES},
			/* To half the L3 (32 MiB a CCD) inclusive. */
			{RUN_STREAMING_AHEAD, 16 * MiB + 1, "a source this small may still be in the L3: reading it a page ahead brings it sooner"},
			{RUN_STREAMING, END, WHY_STREAM_ABOVE_L3}},
	},
};

/* Zen 4: Genoa (model 0x11), Raphael, Phoenix, Bergamo.  Cached vector
 * stores hold zeros to 12 MiB (glibc's ties at 64 KiB-1 MiB), CLZERO
 * leads glibc's by far from 16 MiB and glibc's own holds at 1 GiB.
 * Rep stosb and movsb lead the AVX-512 loop at 1-4 MiB (vec_avx2 would
 * too, but the AVX-512 loop is the entry's); data streams from 64 MiB,
 * copies at 16-64 MiB, and above that rep movsb, which stops allocating
 * above the L3, leads copies, well ahead of glibc's (docs/results.md,
 * "Figures the code's comments quoted"). */
static const struct builtin zen4 = {
	.name = "AMD Zen 4",
	.source = "data/machines/zen4-vm, recorded 2026-11-30 and 2026-12-03",
	.rung = {
		[NTMEM_CLASS_SET_ZERO] = {
			{RUN_VECTOR, 48 * KiB, WHY_VECTOR_L2},
			{RUN_LIBC, 2 * MiB, WHY_LIBC_TIES},
			{RUN_VECTOR, 12 * MiB, WHY_VECTOR_L2},
			{RUN_STREAMING, 512 * MiB, "CLZERO leads zeros above the L3"},
			{RUN_LIBC, END, WHY_LIBC_HOLDS}},
		[NTMEM_CLASS_SET_NONZERO] = {
			{RUN_VECTOR, 1 * MiB, WHY_VECTOR_L2},
			{RUN_STRING, 2 * MiB, "rep stosb leads the AVX-512 loop at 1 MiB"},
			{RUN_LIBC, 32 * MiB, WHY_LIBC_TIES},
			{RUN_STREAMING_ANY, END, WHY_STREAM_ABOVE_L3}},
		[NTMEM_CLASS_COPY] = {
			{RUN_VECTOR, 512 * KiB, WHY_VECTOR_L2},
			{RUN_STRING, 8 * MiB, "rep movsb leads the AVX-512 loop at 1-4 MiB"},
			{RUN_STREAMING_ANY, 64 * MiB, WHY_STREAM_ABOVE_L3},
			{RUN_STRING_AROUND, END, WHY_ZEN_STRING}},
	},
};

/* Zen 5: Turin (model 0x02), from five grids of one guest, on three
 * occasions (2026-12-02, and twice each in two states of the host on
 * 2026-12-06).  Where the grids disagree, the C library's function, so
 * that a program that never learns loses nothing, unless one method led
 * within a few percent in every grid.  Vector stores lead up to 768 KiB,
 * rep stosb (glibc's own) to 32 MiB for zeros and 3.5 MiB for data;
 * between 3.5 and 512 MiB data swings between vector stores and rep
 * stosb with the host's state; from 1 GiB cached 32-byte stores lead in
 * every grid.  CLZERO for zeros from 32 MiB.  Copies: rep movsb in the
 * L2, glibc's memcpy at 4 MiB, streaming stores at 16 MiB (every
 * streaming copy but the interleaved pages within 5% of the best, but in
 * the first grid), rep movsb from 64 MiB, where it no longer allocates
 * (docs/results.md, "The Zen 5 entry, read again"). */
static const struct builtin zen5 = {
	.name = "AMD Zen 5",
	.source = "data/machines/zen5-vm, recorded 2026-12-02 and 2026-12-06",
	.rung = {
		[NTMEM_CLASS_SET_ZERO] = {
			{RUN_VECTOR, 768 * KiB, WHY_VECTOR_L2},
			{RUN_STRING, 32 * MiB, "rep stosb is the C library's choice here and ties with it"},
			{RUN_STREAMING, END, "CLZERO leads zeros above the L3"}},
		[NTMEM_CLASS_SET_NONZERO] = {
			{RUN_VECTOR, 768 * KiB, WHY_VECTOR_L2},
			{RUN_STRING, 3 * MiB + 512 * KiB, "rep stosb leads up to 3.5 MiB"},
			{RUN_LIBC, 512 * MiB, "vector stores and rep stosb trade places here with the host's state"},
			{RUN_VECTOR_NARROW, END, "32-byte vector stores lead data from 1 GiB in every grid recorded"}},
		[NTMEM_CLASS_COPY] = {
			{RUN_VECTOR, 24 * KiB, WHY_VECTOR_L2},
			{RUN_STRING, 2 * MiB, "rep movsb leads in the L2"},
			{RUN_LIBC, 8 * MiB, "glibc's memcpy holds at 4 MiB, where rep movsb dips in one grid"},
			{RUN_STREAMING, 32 * MiB, "streaming copies lead at 16 MiB in four grids of five"},
			{RUN_STRING_AROUND, END, WHY_ZEN_STRING}},
	},
};

/* The Xeon this project was measured on (a 480 MiB L3 in sysfs): rep
 * stosb allocates, and streaming stores beat glibc's by far from 64 MiB
 * (docs/results.md, "Figures the code's comments quoted"), copies four
 * pages at once;
 * from 4 to 16 MiB every cached method runs at memory speed and the C
 * library's is as good as any. */
static const struct builtin xeon_vm = {
	.name = "Intel Xeon (KVM, model 167)",
	.source = "data/machines/xeon-vm, recorded 2026-12-01 and 2026-12-03",
	.rung = {
		[NTMEM_CLASS_SET_ZERO] = {
			{RUN_VECTOR, 32 * KiB, WHY_VECTOR_L2},
			{RUN_LIBC, 32 * MiB, WHY_LIBC_TIES},
			{RUN_STREAMING, END, WHY_STREAM_ABOVE_L3}},
		[NTMEM_CLASS_SET_NONZERO] = {
			{RUN_VECTOR, 32 * KiB, WHY_VECTOR_L2},
			{RUN_LIBC, 32 * MiB, WHY_LIBC_TIES},
			{RUN_STREAMING, END, WHY_STREAM_ABOVE_L3}},
		[NTMEM_CLASS_COPY] = {
			{RUN_VECTOR, 512 * KiB, WHY_VECTOR_L2},
			{RUN_LIBC, 32 * MiB, WHY_LIBC_TIES},
			{RUN_STREAMING_PAGES, END, WHY_PAGES}},
	},
};

struct recorded {
	const char *vendor;
	unsigned family, model_lo, model_hi;   /* models model_lo..model_hi */
	int guest_only;      /* 1: a virtual machine's CPU only: its model
				number is the hypervisor's choice, and the
				same number on bare metal is another part */
	const struct builtin *ladders;
};

/* Zen 3's and Zen 4's model ranges are split in AMD's numbering; each
 * range is a row of its own. */
static const struct recorded recorded[] = {
	{.vendor = "AuthenticAMD", .family = 0x19, .model_lo = 0x00, .model_hi = 0x0f, .ladders = &zen3},
	{.vendor = "AuthenticAMD", .family = 0x19, .model_lo = 0x20, .model_hi = 0x5f, .ladders = &zen3},
	{.vendor = "AuthenticAMD", .family = 0x19, .model_lo = 0x10, .model_hi = 0x1f, .ladders = &zen4},
	{.vendor = "AuthenticAMD", .family = 0x19, .model_lo = 0x60, .model_hi = 0x7f, .ladders = &zen4},
	{.vendor = "AuthenticAMD", .family = 0x19, .model_lo = 0xa0, .model_hi = 0xaf, .ladders = &zen4},
	{.vendor = "AuthenticAMD", .family = 0x1a, .model_lo = 0x00, .model_hi = 0xff, .ladders = &zen5},
	/* Model 167 is Rocket Lake on bare metal; in this KVM guest it
	 * stands for a server part with a 480 MiB L3. */
	{.vendor = "GenuineIntel", .family = 0x06, .model_lo = 167, .model_hi = 167,
	 .guest_only = 1, .ladders = &xeon_vm},
};

/* ------------------------------------------------------------------ */
/* The rules for CPUs not recorded                                    */
/* ------------------------------------------------------------------ */

/* Every rule starts with the entry points' own loop to 32 KiB: it beats
 * the C library's function there on every machine recorded. */
#define LOOP_MAX (32 * KiB)
/* From here on AMD's rep stosb holds its own against every streaming
 * store in every run recorded (Zen 3 at 1 GiB: docs/results.md,
 * "Figures the code's comments quoted"). */
#define AMD_GLIBC_HOLDS (512 * MiB)

/* Zen 1 to 4 (families 0x17 to 0x19, Hygon's 0x18), where the recorded
 * Zen 3 and Zen 4 agree: zeros stream above the L3 share up to 512 MiB;
 * memset of other values keeps the C library's (streaming it at 16 MiB
 * lost to glibc's by far on both, in one session of two); copies stream
 * from half the share (ahead of glibc's from 16 MiB on both; the
 * figures: docs/results.md, "Figures the code's comments quoted").  The
 * share's floor (8 MiB) and cap (64 MiB, cpu.h) keep every edge between
 * the loop's 32 KiB and 512 MiB. */
static const struct builtin zen_rule = {
	.name = "the rule for AMD Zen 1-4 not recorded",
	.rung = {
		[NTMEM_CLASS_SET_ZERO] = {
			{RUN_VECTOR, LOOP_MAX, WHY_VECTOR_L2},
			{RUN_LIBC, UPTO_SHARE, NULL},
			{RUN_STREAMING, AMD_GLIBC_HOLDS, WHY_STREAM_ABOVE_L3},
			{RUN_LIBC, END, WHY_LIBC_HOLDS}},
		[NTMEM_CLASS_SET_NONZERO] = {
			{RUN_VECTOR, LOOP_MAX, WHY_VECTOR_L2},
			{RUN_LIBC, END, "rep stosb, the C library's, does not allocate above the L3 on Zen; streaming data lost at 16 MiB in half the runs recorded"}},
		[NTMEM_CLASS_COPY] = {
			{RUN_VECTOR, LOOP_MAX, WHY_VECTOR_L2},
			{RUN_LIBC, UPTO_SHARE, NULL},
			{RUN_STREAMING_ANY, END, WHY_STREAM_ABOVE_L3}},
	},
};

/* Zen 5 and later (family 0x1a on): CLZERO for zeros above the share;
 * rep movsb for copies in the L2, where it led glibc's memcpy in every
 * run recorded, and above the share, ahead of every streaming copy
 * (docs/results.md, "The Zen 5 entry, read again"). */
static const struct builtin zen5_rule = {
	.name = "the rule for AMD Zen 5 and later not recorded",
	.rung = {
		[NTMEM_CLASS_SET_ZERO] = {
			{RUN_VECTOR, LOOP_MAX, WHY_VECTOR_L2},
			{RUN_LIBC, UPTO_SHARE, NULL},
			{RUN_STREAMING, END, WHY_STREAM_ABOVE_L3}},
		[NTMEM_CLASS_SET_NONZERO] = {
			{RUN_VECTOR, LOOP_MAX, WHY_VECTOR_L2},
			{RUN_LIBC, END, "rep stosb, the C library's, does not allocate above the L3 on Zen and ties with streaming stores there"}},
		[NTMEM_CLASS_COPY] = {
			{RUN_VECTOR, LOOP_MAX, WHY_VECTOR_L2},
			{RUN_STRING, 2 * MiB, "rep movsb leads in the L2"},
			{RUN_LIBC, UPTO_SHARE, NULL},
			{RUN_STRING_AROUND, END, WHY_ZEN_STRING}},
	},
};

/* Intel, and any CPU no family rule knows: the C library's own up to the
 * L3 share, streaming stores above it (rep stosb allocates on Intel, so
 * nothing else avoids the cache). */
static const struct builtin share_rule = {
	.name = "the rule for CPUs not recorded",
	.rung = {
		[NTMEM_CLASS_SET_ZERO] = {
			{RUN_VECTOR, LOOP_MAX, WHY_VECTOR_L2},
			{RUN_LIBC, UPTO_SHARE, NULL},
			{RUN_STREAMING, END, WHY_STREAM_ABOVE_L3}},
		[NTMEM_CLASS_SET_NONZERO] = {
			{RUN_VECTOR, LOOP_MAX, WHY_VECTOR_L2},
			{RUN_LIBC, UPTO_SHARE, NULL},
			{RUN_STREAMING, END, WHY_STREAM_ABOVE_L3}},
		[NTMEM_CLASS_COPY] = {
			{RUN_VECTOR, LOOP_MAX, WHY_VECTOR_L2},
			{RUN_LIBC, UPTO_SHARE, NULL},
			{RUN_STREAMING, END, WHY_STREAM_ABOVE_L3}},
	},
};

struct family {
	const char *vendor;
	unsigned family_lo, family_hi;
	const struct builtin *rule;
	int copy_pages;  /* the rule's streaming copies move four pages at
			    once (RUN_STREAMING_PAGES), as measured on
			    Intel; on Zen it loses */
};

static const struct family families[] = {
	{.vendor = "AuthenticAMD", .family_lo = 0x17, .family_hi = 0x19, .rule = &zen_rule},
	{.vendor = "HygonGenuine", .family_lo = 0x18, .family_hi = 0x18, .rule = &zen_rule},
	{.vendor = "AuthenticAMD", .family_lo = 0x1a, .family_hi = 0xff, .rule = &zen5_rule},
	{.vendor = "GenuineIntel", .family_lo = 0, .family_hi = 0xff, .rule = &share_rule,
	 .copy_pages = 1},
};

/* ------------------------------------------------------------------ */
/* Sizes from the topology                                            */
/* ------------------------------------------------------------------ */

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
	ntm_cpu_plan(cpu, &plan, how != NULL);
	size_t share = plan.caches.l3 ? plan.caches.l3 / plan.caches.l3_shared_by
				      : SHARE_UNKNOWN;
	size_t t = share < THRESHOLD_FLOOR ? THRESHOLD_FLOOR : share;
	if (op == NTMEM_OP_COPY)
		t = t / 2 < THRESHOLD_FLOOR ? THRESHOLD_FLOOR : t / 2;
	if (!how)
		return t;
	char s[32];
	if (plan.caches.l3)
		snprintf(how, len, "%s, shared by %u: %s per thread%s", plan.how,
			 plan.caches.l3_shared_by, ntm_format_size(share, s, sizeof s),
			 share < THRESHOLD_FLOOR ? ", raised to the floor" : "");
	else
		snprintf(how, len, "%s: a fixed %s per thread", plan.how,
			 ntm_format_size(share, s, sizeof s));
	size_t used = strlen(how);
	if (op == NTMEM_OP_COPY && used < len)
		snprintf(how + used, len - used, "; a copy touches twice its size: half");
	return t;
}

/* cpu's family, NULL where no rule names it (share_rule serves). */
static const struct family *family_of(const struct cpu *cpu)
{
	for (size_t i = 0; i < sizeof families / sizeof families[0]; i++)
		if (!strcmp(cpu->vendor, families[i].vendor) &&
		    cpu->family >= families[i].family_lo &&
		    cpu->family <= families[i].family_hi)
			return &families[i];
	return NULL;
}

/* cpu's own recorded entry, NULL where there is none. */
static const struct recorded *recorded_entry(const struct cpu *cpu)
{
	for (size_t i = 0; i < sizeof recorded / sizeof recorded[0]; i++) {
		const struct recorded *e = &recorded[i];
		if (!strcmp(cpu->vendor, e->vendor) && cpu->family == e->family &&
		    cpu->model >= e->model_lo && cpu->model <= e->model_hi &&
		    (!e->guest_only || cpu->guest))
			return e;
	}
	return NULL;
}

/* The family rule for cpu, its sizes made bytes, into *b; how it came
 * about into how[len] unless how is NULL. */
static void family_rule(const struct cpu *cpu, struct builtin *b, char *how,
			size_t len)
{
	const struct family *f = family_of(cpu);
	*b = f ? *f->rule : share_rule;
	char why[2][400];
	size_t share[2];
	for (int op = 0; op < 2; op++)
		share[op] = ntm_default_threshold(cpu, op, how ? why[op] : NULL,
						  sizeof why[op]);
	/* Without a loop of its own at this width (off x86-64), nothing
	 * measured says a loop beats the C library's function. */
	int loop = ntm_width_loop_requires(ntm_width_for(cpu->usable)) != 0;
	for (int cls = 0; cls < NTMEM_CLASSES; cls++) {
		size_t t = share[cls == NTMEM_CLASS_COPY];
		for (int i = 0; i < BUILTIN_RUNGS; i++) {
			struct builtin_rung *r = &b->rung[cls][i];
			if (r->upto == UPTO_SHARE)
				r->upto = t;
			if (r->run == RUN_VECTOR && !loop)
				r->run = RUN_LIBC;
			if (r->run == RUN_STREAMING && cls == NTMEM_CLASS_COPY &&
			    f && f->copy_pages)
				r->run = RUN_STREAMING_PAGES;
			if (r->upto == END)
				break;
		}
	}
	if (!how)
		return;
	/* The cache plan's sentence once (info prints it as the caches'
	 * "used" line), then the two shares. */
	char set_at[32], copy_at[32];
	snprintf(how, len, "%s (%s family %u model %u): %s; memset streams above "
		 "%s, memcpy above %s", b->name, cpu->vendor[0] ? cpu->vendor : "unknown",
		 cpu->family, cpu->model, why[0], ntm_format_size(share[0], set_at,
		 sizeof set_at), ntm_format_size(share[1], copy_at, sizeof copy_at));
}

const struct builtin *ntm_builtin_for(const struct cpu *cpu, int family_only,
				      struct builtin *scratch, char *how,
				      size_t len)
{
	const struct recorded *e = family_only ? NULL : recorded_entry(cpu);
	if (e) {
		if (how)
			snprintf(how, len, "%s, from %s", e->ladders->name,
				 e->ladders->source);
		return e->ladders;
	}
	family_rule(cpu, scratch, how, len);
	return scratch;
}

/* How far b's ladders of op all start with the vector loop. */
static size_t loop_reach(const struct builtin *b, enum ntmem_op op)
{
	size_t reach = SIZE_MAX;
	for (int cls = 0; cls < NTMEM_CLASSES; cls++) {
		const struct builtin_rung *r = &b->rung[cls][0];
		if ((cls == NTMEM_CLASS_COPY) != (op == NTMEM_OP_COPY))
			continue;
		size_t upto = r->run == RUN_VECTOR ? r->upto : 0;
		/* An edge at the L3's share is at least the floor (above). */
		if (upto == UPTO_SHARE)
			upto = THRESHOLD_FLOOR;
		reach = upto < reach ? upto : reach;
	}
	return reach;
}

size_t ntm_builtin_loop_reach(enum ntmem_op op)
{
	size_t reach = loop_reach(&share_rule, op);
	for (size_t i = 0; i < sizeof recorded / sizeof recorded[0]; i++) {
		size_t r = loop_reach(recorded[i].ladders, op);
		reach = r < reach ? r : reach;
	}
	for (size_t i = 0; i < sizeof families / sizeof families[0]; i++) {
		size_t r = loop_reach(families[i].rule, op);
		reach = r < reach ? r : reach;
	}
	return reach;
}

const struct variant *ntm_builtin_variant(int cls, enum builtin_method run,
					  unsigned usable)
{
	enum ntmem_op op = cls == NTMEM_CLASS_COPY ? NTMEM_OP_COPY : NTMEM_OP_SET;
	int zeros = cls == NTMEM_CLASS_SET_ZERO;
	switch (run) {
	case RUN_VECTOR:
		return ntm_ranked(op, NTMEM_ROLE_VECTOR, 0, usable);
	case RUN_VECTOR_NARROW:
		return ntm_ranked(op, NTMEM_ROLE_VECTOR, 0,
				  ntm_width_usable(NTM_WIDTH_AVX2, usable));
	case RUN_STRING:
	case RUN_STRING_AROUND:
		/* rep stosb/movsb, where the CPU has ERMS (without it they are
		 * slow, and rep stosq is not what a table measured). */
		return usable & CPU_ERMS ? ntm_ranked(op, NTMEM_ROLE_STRING, 0, usable)
					 : NULL;
	case RUN_STREAMING:
		return ntm_ranked(op, NTMEM_ROLE_STREAMING, zeros, usable);
	case RUN_STREAMING_PAGES:
	case RUN_STREAMING_AHEAD: {
		const struct variant *v = op == NTMEM_OP_COPY
			? ntm_ranked_copy(run == RUN_STREAMING_PAGES ? NTM_SHAPE_PAGES
								      : NTM_SHAPE_AHEAD, usable)
			: NULL;
		return v ? v : ntm_ranked(op, NTMEM_ROLE_STREAMING, 0, usable);
	}
	case RUN_STREAMING_ANY:
		return ntm_ranked(op, NTMEM_ROLE_STREAMING, 0, usable);
	case RUN_LIBC:
	default:
		return ntm_ranked(op, NTMEM_ROLE_LIBC, 0, usable);
	}
}
