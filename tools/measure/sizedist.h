/* sizedist.h - a distribution of call sizes, and one fixed sequence of
 * calls drawn from it, for "ntmem bench --mix".
 *
 * A distribution is a list of weighted ranges of sizes: a probability per
 * size from a CSV file (the Google fleet's, bundled, or a user's), or a
 * count of calls per power-of-two bucket from the report that
 * "ntmem run --report-json" writes.  Within a range every size is equally
 * likely.
 *
 * The sequence (sizedist_draw) is what every function of a run executes,
 * call for call: MIX_CALLS (size, offset) pairs, the same for every
 * function and every run on every machine, since it depends only on the
 * distribution and MIX_SEED. */
#ifndef NTM_SIZEDIST_H
#define NTM_SIZEDIST_H

#include <stddef.h>
#include <stdint.h>

#include "ntmem.h"
#include "output/cli.h"

struct size_range {
	size_t lo, hi;            /* sizes lo..hi, both included */
	double weight;            /* > 0; relative to the others */
};

struct sizedist {
	char name[128];           /* "GoogleA", or the file as given */
	char source[64];          /* "bundled (MemcpyGoogleA.csv)",
				     "CSV file", "ntmem run report" */
	const char *workload;     /* bundled: "service 4"; else NULL */
	enum ntmem_op op;
	struct size_range *ranges;/* ascending, disjoint; malloc'd */
	size_t nranges;
	double total;             /* the sum of the weights */
	size_t max_size;          /* the largest size it can draw */
};

void sizedist_free(struct sizedist *d);

/* The largest size a call may draw: offsets are 32-bit, and the buffers
 * hold twice the largest call. */
#define SIZEDIST_MAX_SIZE ((size_t)1 << 30)

/*
 * A CSV distribution: one line of comma-separated probabilities, the
 * value at field N (from 1) that of size N - 1, as the Google fleet's
 * files are.  Weights need not sum to 1.  name (the file, for messages)
 * and d->name get the same text.  Returns 0, or -1 with a CLI_USAGE
 * error of the form "--mix: NAME:LINE: field F (size S): why".
 */
int sizedist_parse_csv(const char *name, const char *text, size_t len,
		       enum ntmem_op op, struct sizedist *d, struct cli_error *e);

/*
 * The report "ntmem run --report-json" writes: the buckets of every
 * function of op's family (memcpy's: memcpy, memmove, mempcpy and their
 * _chk forms; memset's: memset, bzero, explicit_bzero and theirs),
 * weighted by their calls, a bucket [from, to) being the sizes from..to-1.
 * Returns 0, or -1 with a CLI_USAGE error naming the line and the field.
 */
int sizedist_parse_report(const char *name, const char *text, size_t len,
			  enum ntmem_op op, struct sizedist *d,
			  struct cli_error *e);

/* The bundled distributions (data/distributions, built into the tool). */
struct sizedist_bundled {
	const char *name;         /* "GoogleA" */
	enum ntmem_op op;
	const char *description;  /* "service 4" */
	const char *csv;
};
/* The bundled ones of op, in order, into out[max]; returns the count. */
size_t sizedist_bundled_list(enum ntmem_op op,
			     const struct sizedist_bundled **out, size_t max);

/*
 * --mix ARG for op: a bundled name ("GoogleA", or the file's "MemcpyGoogleA"),
 * else a file: JSON when its first character other than white space is
 * '{', else CSV.  Returns 0, or -1 with a CLI_USAGE error.
 */
int sizedist_load(const char *arg, enum ntmem_op op, struct sizedist *d,
		  struct cli_error *e);

/* ------------------------------------------------------------------ */
/* The sequence of calls                                               */
/* ------------------------------------------------------------------ */

/*
 * 65536 calls, so that the branch predictor cannot learn the sequence,
 * as it cannot learn a program's.  The automemcpy harness (llvm-project
 * libc/benchmarks) cycles over 1024 calls, and this one did over 4096:
 * some 10,000 size-dependent branch outcomes a period, more than any
 * documented branch history covers, yet on the Xeon glibc's SSE2 memcpy
 * of sizes uniform in 0-64 bytes took 1.8 ns a call over 4096 calls, 4.7
 * over 16384 and 5.1-5.3 over 65536 and more: the predictor had learnt
 * much of the shorter sequence, and a function's time depended on how
 * well its branches could be learnt, and on where they lay in the code
 * (docs/results.md).  The draw below puts every size within one call of
 * its share of 65536.
 */
#define MIX_CALLS 65536
#define MIX_SEED 0x6e746d656d6d6978ull   /* "ntmemmix" */

/* The buffers a sequence cycles over, each (memcpy's source and
 * destination alike) of at least this many bytes: 16 KiB, so that
 * memcpy's two stay in L1, as in the automemcpy harness, whose buffers
 * fit L1.  The sequence itself (512 KiB) is read in order, which the
 * hardware prefetches. */
#define MIX_MIN_BUFFER ((size_t)16 << 10)

struct mix_call {
	uint32_t size, offset;    /* dst + offset (and src + offset) */
};

struct mix_seq {
	struct mix_call calls[MIX_CALLS];
	size_t buffer;            /* bytes each buffer must have */
	uint64_t bytes;           /* the sum of the sizes */
};

/*
 * Draw the sequence: the i-th size is where (i + 1/2) / MIX_CALLS falls in
 * the distribution's cumulative weights (within a range, at the same
 * fraction of its sizes: uniform), so that for every size s the calls of
 * size <= s number within one of MIX_CALLS * P(size <= s).  The order is
 * then shuffled, and each call's offset drawn uniformly from those that
 * keep it within the buffer, from a generator seeded with MIX_SEED.
 */
void sizedist_draw(const struct sizedist *d, struct mix_seq *s);

#endif
