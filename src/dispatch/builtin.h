/* builtin.h - the built-in ladders: per CPU this project has recorded
 * (data/machines/), the ladder of each call class that its tables show
 * best, and for any other CPU what the recorded machines teach for its
 * vendor and family, sized by its cache topology.  Pure data and pure
 * functions of a struct cpu, so that tests/test_replay.c can replay every
 * recorded machine anywhere, with its entry and with the family rule. */
#ifndef NTM_BUILTIN_H
#define NTM_BUILTIN_H

#include <stddef.h>

#include "cpu.h"
#include "variants/variant.h"

/* What a built-in rung runs, by the variant's data (role, rank), never
 * by name.  A method this CPU cannot run falls back to the C library's. */
enum builtin_method {
	RUN_LIBC,           /* the C library's own function */
	RUN_VECTOR,         /* cached vector stores: the best-ranked vector
			       variant (the entry width's own loop) */
	RUN_STRING,         /* rep stosb / rep movsb, where the CPU has ERMS */
	RUN_STRING_AROUND,  /* the same where, at the rung's sizes, the CPU
			       allocates no lines for it: it writes around
			       the cache without streaming stores (above the
			       L3 on AMD Zen) */
	RUN_STREAMING,      /* the best-ranked streaming variant the class can
			       use (zero-only ones, CLZERO, for zeros) */
	RUN_STREAMING_ANY,  /* the best-ranked one that writes any value */
	RUN_STREAMING_PAGES, /* copies: the best-ranked streaming copy that
				moves four pages at once (enum
				ntm_copy_shape); line by line where none */
	RUN_VECTOR_NARROW,  /* cached vector stores of 32 bytes at most: the
			       best-ranked vector variant a CPU without
			       AVX-512 runs (the C library's where none) */
	RUN_STREAMING_AHEAD  /* copies: the one that reads its source a page
				ahead; line by line where none */
};

/* A rung's upper edge: bytes, or this, sized from the topology
 * (ntm_default_threshold): the op's share of the L3. */
#define UPTO_SHARE ((size_t)-2)

struct builtin_rung {
	enum builtin_method run;
	size_t upto;         /* one past the last size; SIZE_MAX: no end */
	const char *why;     /* why this method here, for "ntmem info"; NULL
				when it says nothing the rung does not */
};

#define BUILTIN_RUNGS 6

struct builtin {
	const char *name;    /* "AMD Zen 3" */
	const char *source;  /* where its numbers come from, e.g.
				"data/machines/AuthenticAMD-25-1, recorded
				2026-12-02"; NULL for a family rule */
	struct builtin_rung rung[NTMEM_CLASSES][BUILTIN_RUNGS];
};

/* The built-in ladders for cpu: its recorded entry, else (or with
 * family_only) the rule for its vendor and family, made into *scratch
 * with its sizes from the cache topology.  How it came about goes into
 * how[len], unless how is NULL (no words: the build as the library
 * loads).  Returns the entry used; its rungs' upto are all bytes. */
const struct builtin *ntm_builtin_for(const struct cpu *cpu, int family_only,
				      struct builtin *scratch, char *how,
				      size_t len);

/* How far every built-in ladder of op, of every CPU, starts with the
 * vector loop: one past the largest size that runs it, or 0.  Where an
 * edge is sized from the L3, the least it can be.  Known without a
 * look at the CPU (its name takes a CPUID, a hypervisor exit in a
 * guest: cpu.c): any policy built from the built-in ladders runs the
 * loop at least as far. */
size_t ntm_builtin_loop_reach(enum ntmem_op op);

/* The built-in streaming threshold for op: one CPU's share of the L3
 * (half of it for copies), at least 8 MiB; and, unless how is NULL, a
 * line saying how it was derived from the planned caches. */
size_t ntm_default_threshold(const struct cpu *cpu, enum ntmem_op op,
			     char *how, size_t len);

/* The variant a rung's method names for class cls on a CPU that runs the
 * features in usable (enum cpu_feature bits), or NULL when none runs. */
const struct variant *ntm_builtin_variant(int cls, enum builtin_method run,
					  unsigned usable);

#endif
