/*
 * record.h - the record one process of "ntmem run --report" keeps of its
 * calls: a file in the report directory, mapped shared, so that the
 * counts are in the file the moment they are made and outlive the
 * process however it ends (exit, _exit, exec, a signal).  The shim
 * writes records (preload_count.c); ntmem run reads and merges them
 * (tools/run/records.c).  Both are built from this one header.
 *
 * A record is plain data of fixed size: a header saying which process
 * and which policy, then counters per function, per call class, per
 * power-of-two size bucket and per path the calls took.
 */
#ifndef NTM_RECORD_H
#define NTM_RECORD_H

#include <stdint.h>

#include "dispatch/learn.h"
#include "ntmem.h"

/*
 * Every C library name the shim defines, by the operation it performs.
 * The set names hand (dst, c, n) to the entry point, the copy names
 * (dst, src, n); each adapts its own arguments and return value around
 * that call.
 */
#define NTM_SHIM_SET_FUNCTIONS(X) \
	X(memset) X(bzero) X(__bzero) X(explicit_bzero) X(__memset_chk) \
	X(__explicit_bzero_chk)
#define NTM_SHIM_COPY_FUNCTIONS(X) \
	X(memcpy) X(memmove) X(mempcpy) X(__mempcpy) X(__memcpy_chk) \
	X(__memmove_chk) X(__mempcpy_chk)

#define NTM_SHIM_ENUM(f) SHIM_##f,
#define NTM_SHIM_ONE(f) +1
enum shim_fn {
	NTM_SHIM_SET_FUNCTIONS(NTM_SHIM_ENUM)
	NTM_SHIM_COPY_FUNCTIONS(NTM_SHIM_ENUM)
	SHIM_FUNCTIONS
};
/* Set functions come first. */
enum { SHIM_SET_FUNCTIONS = 0 NTM_SHIM_SET_FUNCTIONS(NTM_SHIM_ONE) };

/* The environment variable by which ntmem run names the report
 * directory: a directory of the caller's own, closed to everyone else.
 * The shim opens it without following a link at its end, takes it only
 * so (else the process keeps no record: a marker, or its parent's count
 * of lost children, says so), and makes its files through the
 * descriptor. */
#define NTM_REPORT_ENV "NTMEM_PRELOAD_REPORT"

#define NTM_RECORD_MAGIC "ntmrec4"  /* changes with the layout */
#define NTM_RECORD_SUFFIX ".rec"    /* files are PID-SEQ.rec */

/* A process whose record could not be made (no space, no descriptor, no
 * memory) leaves instead a symbolic link PID-SEQ.lost whose target is
 * "errno=N": it needs no descriptor and, being short, no data block (it
 * lives in its inode on tmpfs and ext4).  SEQ numbers records and
 * markers of one pid together, in the order its programs ran. */
#define NTM_LOST_SUFFIX ".lost"
#define NTM_LOST_PREFIX "errno="

/* Size buckets: 0 holds calls of 0 bytes; k (1..40) those of
 * [2^(k-1), 2^k) bytes; the last, 41, every call of 1 TiB and more. */
#define NTM_RECORD_BUCKETS 42

/* Calls of this many bytes and more are timed (two clock reads each),
 * smaller ones only counted: a clock read costs as much as a small call. */
#define NTM_RECORD_TIMED_MIN 4096

/* The routes a call can take (dispatch/select.h): the entry's small
 * path; beyond it, before the policy was built; an overlapping copy (the
 * C library's memmove); or a variant, the record's variant[i] for path
 * NTM_PATH_VARIANT + i: the entry's inline loop, a rung's, or the side
 * the learning ran, as it ran. */
#define NTM_RECORD_VARIANTS 16
enum {
	NTM_PATH_SMALL,
	NTM_PATH_BASELINE,
	NTM_PATH_OVERLAP,
	NTM_PATH_VARIANT,
	NTM_PATHS = NTM_PATH_VARIANT + NTM_RECORD_VARIANTS
};

/* A record's lines: one per function, then one more per set function
 * for its calls with values other than zero (memset of 0x5a). */
#define NTM_RECORD_LINES (SHIM_FUNCTIONS + SHIM_SET_FUNCTIONS)

static inline unsigned ntm_record_line(enum shim_fn f, int nonzero)
{
	return nonzero ? SHIM_FUNCTIONS + (unsigned)f : (unsigned)f;
}

struct ntm_record_cell {
	uint64_t calls, bytes;
};

struct ntm_record_time {
	uint64_t calls, ns;  /* the timed calls, and their time */
};

/* One call class's ladder, as registry ids (ntm_variant()). */
struct ntm_record_ladder {
	uint32_t count;
	int32_t variant[NTMEM_LADDER_MAX];
	uint64_t to[NTMEM_LADDER_MAX];  /* as struct ladder's to[] */
	uint8_t around[NTMEM_LADDER_MAX]; /* 1: the rung writes around the
					     cache, streaming or not
					     (ntm_select_around_cache) */
};

/* What the learning cost the process, per class, as it ended (a process
 * that ends by _exit, exec or a signal leaves 0): per band (learn.h) the
 * calls that ran a candidate its trial did not keep; and the calls timed
 * and the nanoseconds of their clock reads. */
struct ntm_record_learning {
	uint64_t losing[NTM_LEARN_BANDS];
	uint64_t timed, clock_ns;
};

struct ntm_record {
	char magic[8];            /* NTM_RECORD_MAGIC */
	uint32_t size;            /* sizeof (struct ntm_record) */
	uint32_t exited;          /* 1 once exit() ran the shim's destructor */
	/* Fork children of this process that could make neither a record
	 * nor a marker, counted here through the mapping they inherit (it
	 * needs neither space nor a descriptor), and the last one's errno. */
	uint32_t lost_children;
	int32_t lost_errno;
	int64_t pid, ppid;
	uint64_t small_max;       /* the entry points' small path: up to this */
	char program[64];         /* program_invocation_short_name */
	char small_name[48];      /* "AVX2 stores" */
	char policy[1024];        /* where the ladders came from, one line */
	struct ntm_record_ladder ladder[NTMEM_CLASSES];
	uint64_t learn_from[NTMEM_CLASSES]; /* per class, the least size that learns;
				     UINT64_MAX: none */
	struct ntm_record_learning learning[NTMEM_CLASSES];
	int32_t variant[NTM_RECORD_VARIANTS]; /* path NTM_PATH_VARIANT + i:
						 a registry id; -1 unused */
	struct ntm_record_cell cell[NTM_RECORD_LINES][NTM_RECORD_BUCKETS]
				   [NTM_PATHS];
	struct ntm_record_time time[NTM_RECORD_LINES][NTM_RECORD_BUCKETS];
};

static inline unsigned ntm_record_bucket(uint64_t n)
{
	unsigned k = n ? 64u - (unsigned)__builtin_clzll(n) : 0u;
	return k < NTM_RECORD_BUCKETS ? k : NTM_RECORD_BUCKETS - 1;
}

/* The first size of bucket k, and the first size past it (0 for the
 * last bucket, which has no end). */
static inline uint64_t ntm_record_bucket_from(unsigned k)
{
	return k ? (uint64_t)1 << (k - 1) : 0;
}

static inline uint64_t ntm_record_bucket_to(unsigned k)
{
	return k + 1 < NTM_RECORD_BUCKETS ? (uint64_t)1 << k : 0;
}

#endif
