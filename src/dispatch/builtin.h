/* builtin.h - the built-in ladders: per CPU this project has recorded
 * (data/machines/), the ladder of each call class that its tables show
 * best, and for any other CPU a rule that loses to the C library on no
 * recorded machine.  Pure data and pure functions of a struct cpu, so
 * that tests/test_replay.c can replay every recorded machine anywhere. */
#ifndef NTM_BUILTIN_H
#define NTM_BUILTIN_H

#include <stddef.h>

#include "cpu.h"
#include "variants/variant.h"

/* What a built-in rung runs, by the variant's data (role, rank), never
 * by name.  A pick this CPU cannot run falls back to the C library's. */
enum builtin_pick {
	PICK_LIBC,           /* the C library's own function */
	PICK_VECTOR,         /* the entry width's cached vector loop: the
				best-ranked vector variant */
	PICK_STRING,         /* rep stosb / rep movsb (ERMS) */
	PICK_STREAMING,      /* the best-ranked streaming variant the class
				can use (zero-only ones for zeros) */
	PICK_STREAMING_ANY   /* the best-ranked one that writes any value */
};

struct builtin_rung {
	enum builtin_pick pick;
	size_t upto;         /* one past the last size; SIZE_MAX: no end */
};

#define BUILTIN_RUNGS 6
#define NTM_BUILTIN_CLASSES 3     /* enum ntmem_class */

struct builtin {
	const char *name;    /* "AMD Zen 3" */
	const char *source;  /* where its numbers come from, e.g.
				"data/machines/AuthenticAMD-25-1, recorded
				2026-12-02"; NULL for the unknown-CPU rule */
	struct builtin_rung rung[NTM_BUILTIN_CLASSES][BUILTIN_RUNGS];
	int interleave_pages; /* streaming copies move four pages at once
				 (ntm_stream_copy_pages) */
	int prefetch_source;  /* streaming copies below half the L3 read
				 their source a page ahead
				 (ntm_stream_prefetch_below) */
};

/* The built-in ladders for cpu: its recorded entry, else the rule for
 * CPUs nobody here has measured, made into *scratch from the cache
 * topology (how it came about into how[len]).  Returns the entry used. */
const struct builtin *ntm_builtin_for(const struct cpu *cpu,
				      struct builtin *scratch, char *how,
				      size_t len);

/* The built-in streaming threshold for op, and a line saying how it was
 * derived from the planned caches. */
size_t ntm_default_threshold(const struct cpu *cpu, enum ntmem_op op,
			     char *how, size_t len);

/* The variant a rung's pick names for class cls on a CPU that runs the
 * features in usable (enum cpu_feature bits), or NULL when none runs. */
const struct variant *ntm_builtin_variant(int cls, enum builtin_pick pick,
					  unsigned usable);

#endif
