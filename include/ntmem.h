/*
 * ntmem.h - clear and copy large memory without trashing the caches.
 *
 * An ordinary store to a line that is not cached first reads that line
 * (read-for-ownership), so clearing or copying an extent much larger than
 * the last-level cache moves twice the bytes it needs to and evicts
 * everyone else's working set.  Streaming (non-temporal) stores write
 * whole lines around the cache.  They win above the cache size and lose
 * below it; libntmem chooses per call, and lets the caller force either.
 *
 * Thread safety: every function may be called from any thread at any
 * time.  The policy is built once (see "Policy" below), by the
 * constructor or by the first call that needs it; calls only read it.
 * ntmem_set, ntmem_copy, their _flags forms and ntmem_fence take no lock,
 * never allocate and never wait, building included, so they are also
 * async-signal-safe (except calls with NTMEM_F_PARALLEL, which may start
 * threads).
 *
 * The library never prints, never exits, and never fails because of a bad
 * environment variable or calibration profile: it ignores the setting and
 * records why (see ntmem_policy_ignored()).
 *
 * C++: include this header as it is (its names are extern "C").  Six
 * structs share their names with the functions that fill them
 * (ntmem_variant_info, ntmem_ladder_info, ntmem_policy_status,
 * ntmem_adapt_info, ntmem_cpu_info, ntmem_parallel_info).  In C++ the
 * function's name hides the struct's, so declare them with "struct", as
 * C does: "struct ntmem_ladder_info li{};" (not "ntmem_ladder_info li{};",
 * which names the function and does not compile).
 */
#ifndef NTMEM_H
#define NTMEM_H

#include <stddef.h>

#ifdef __cplusplus
extern "C" {
#endif

#define NTMEM_VERSION_MAJOR 0
#define NTMEM_VERSION_MINOR 3
#define NTMEM_VERSION_PATCH 1

/* "0.2.0": the version of the library actually loaded. */
const char *ntmem_version(void);

/* ------------------------------------------------------------------ */
/* Clearing and copying                                                */
/* ------------------------------------------------------------------ */

/*
 * ntmem_set - fill n bytes at dst with the byte (unsigned char)c.
 * ntmem_copy - copy n bytes from src to dst.
 *
 * The result is exactly memset's and memcpy's; when the buffers overlap,
 * ntmem_copy gives memmove's result.  Both return dst.  n == 0 touches
 * nothing, and dst and src may then be NULL.
 *
 * Each call chooses its method from the policy in effect for this process
 * (see "Policy" below): the ladder of its class (memset of zeros, memset
 * of other values, memcpy) names the variant for its size.  A call that
 * streams returns fenced: its streaming stores are ordered before any
 * later store of this thread, so a release store after it publishes the
 * data to other threads.
 */
void *ntmem_set(void *dst, int c, size_t n);
void *ntmem_copy(void *dst, const void *src, size_t n);

/*
 * Flags for ntmem_set_flags() and ntmem_copy_flags().
 *
 * NTMEM_F_TEMPORAL     Use cached stores at every size.
 * NTMEM_F_NONTEMPORAL  Stream every whole, 64-byte aligned line, whatever
 *                      n is.  The partial lines at either end are always
 *                      written with cached stores.
 * NTMEM_F_NOFENCE      Skip the trailing fence.  The caller must then call
 *                      ntmem_fence() before publishing the data; useful
 *                      when clearing many small pieces in a row.
 *
 * TEMPORAL together with NONTEMPORAL, or any unknown bit, makes the call
 * fail with errno EINVAL, return NULL and write nothing.
 *
 * Overlapping copies are always done with cached stores (memmove's
 * algorithm): the streaming loops run forwards only.
 */
#define NTMEM_F_TEMPORAL    0x1u
#define NTMEM_F_NONTEMPORAL 0x2u
#define NTMEM_F_NOFENCE     0x4u

void *ntmem_set_flags(void *dst, int c, size_t n, unsigned flags);
void *ntmem_copy_flags(void *dst, const void *src, size_t n, unsigned flags);

/*
 * ntmem_fence - order every earlier streaming store of this thread before
 * its later stores: SFENCE on x86-64, DMB ISHST on AArch64 (where every
 * store, streaming or not, is weakly ordered).  Needed only after
 * NTMEM_F_NOFENCE or after calling a streaming variant with NTMEM_F_NOFENCE.
 */
void ntmem_fence(void);

/* ------------------------------------------------------------------ */
/* Variants                                                            */
/* ------------------------------------------------------------------ */

/*
 * Every implementation the library has, whether or not this CPU can run
 * it, is a variant with a stable id (0 .. ntmem_variant_count() - 1) and a
 * short name that is unique within its operation ("stosb", "nt_avx512").
 * Tests, benchmarks and users who know better call them directly.
 */
enum ntmem_op {
	NTMEM_OP_SET,  /* memset */
	NTMEM_OP_COPY  /* memcpy; the buffers must not overlap */
};

/* What kind of method a variant is.  Defaults are chosen by role and
 * rank, never by name. */
enum ntmem_role {
	NTMEM_ROLE_LIBC,      /* the C library's own memset or memcpy */
	NTMEM_ROLE_PLAIN,     /* a plain C loop, any architecture */
	NTMEM_ROLE_VECTOR,    /* a loop of cached vector stores */
	NTMEM_ROLE_STRING,    /* a string instruction: rep stosb, rep movsb */
	NTMEM_ROLE_STREAMING  /* whole lines written around the cache */
};

/* "libc", "plain", "vector", "string" or "streaming". */
const char *ntmem_role_name(enum ntmem_role role);

struct ntmem_variant_info {
	const char *name;        /* e.g. "nt_avx512" */
	const char *description; /* one line, e.g. "AVX-512 VMOVNTDQ ..." */
	enum ntmem_op op;
	int streaming;           /* 1: whole lines go around the cache */
	int zero_only;           /* 1: can only write zeros (CLZERO) */
	const char *requires;    /* CPU features it needs, e.g. "AVX-512F" */
	int supported;           /* 1: this CPU and OS can run it */
	const char *why_unsupported; /* NULL when supported */
	enum ntmem_role role;
	int rank;                /* preference within the role where nothing
				    was measured; higher first */
};

int ntmem_variant_count(void);

/* Fill *info for variant id.  Returns 0, or -1 with errno EINVAL. */
int ntmem_variant_info(int id, struct ntmem_variant_info *info);

/* The id of the variant of op called name, or -1 with errno ENOENT. */
int ntmem_variant_find(enum ntmem_op op, const char *name);

/*
 * Run one variant.  Same results, return value and flags as
 * ntmem_set_flags()/ntmem_copy_flags(), except that only NTMEM_F_NOFENCE
 * is accepted.  Fails, writing nothing and returning NULL, with errno:
 *   EINVAL   bad id, wrong operation, other flags, overlapping buffers,
 *            or c != 0 for a zero-only variant;
 *   ENOTSUP  this CPU or OS cannot run the variant.
 */
void *ntmem_variant_set(int id, void *dst, int c, size_t n, unsigned flags);
void *ntmem_variant_copy(int id, void *dst, const void *src, size_t n,
			 unsigned flags);

/* ------------------------------------------------------------------ */
/* Policy                                                              */
/* ------------------------------------------------------------------ */

/*
 * Calls are sorted into three classes, each with its own ladder: an
 * ordered list of size bands ("rungs"), each naming the variant that
 * serves it, e.g. for memset of zeros
 *
 *     [512 B, 8 MiB) vec_avx512, [8 MiB, 64 MiB) stosb, [64 MiB, ...) nt_avx512
 *
 * Below the first rung, calls take the small path: overlapping vector
 * stores inline in the entry point, at what libc's own memset and memcpy
 * cost, with no lookup before them.
 *
 * NTMEM_F_TEMPORAL uses, at a size that a streaming rung serves, the
 * cached variant of the nearest cached rung below it; NTMEM_F_NONTEMPORAL
 * uses the ladder's streaming variant at every size.
 *
 * Each rung comes from the first of these that is present and valid:
 *
 *   1. NTMEM_TUNABLES, comma-separated key=value pairs, read once when
 *      the library is loaded:
 *        set=LADDER            both memset ladders (a zero-only variant
 *                              serves zeros; values other than zero then
 *                              use the best other streaming variant)
 *        set_nonzero=LADDER    memset of values other than zero
 *        copy=LADDER           memcpy
 *      A LADDER is NAME:SIZE,NAME:SIZE,...,NAME with sizes rising: each
 *      NAME serves sizes below its SIZE, the last one every size above,
 *      e.g. set=vec_avx512:8MiB,stosb:64MiB,nt_avx512.  An item without
 *      '=' continues the ladder of the key before it.  At most
 *      NTMEM_LADDER_MAX rungs; the small path is not one of them.
 *      Single settings edit the ladder in effect:
 *        set_threshold=SIZE      copy_threshold=SIZE
 *        set_nonzero_threshold=SIZE
 *                              stream from SIZE up ("max": never);
 *                              below it each size keeps its cached
 *                              variant (a streaming rung's band goes to
 *                              the cached rung below it), the last
 *                              cached rung ends at SIZE.  set_threshold
 *                              sets the non-zero ladder too, unless
 *                              set_nonzero_threshold is given.
 *        set_cached=NAME         copy_cached=NAME
 *                              NAME serves every cached rung; no edge
 *                              moves (cached rungs above a streaming
 *                              one stay cached)
 *        set_streaming=NAME      copy_streaming=NAME
 *                              NAME serves every streaming rung and
 *                              NTMEM_F_NONTEMPORAL; no edge moves
 *      For calls with NTMEM_F_PARALLEL (see "Huge extents"):
 *        threads=N|all           threads per call (default: all the
 *                                caller's CPUs)
 *        parallel_min_chunk=SIZE the least bytes a thread is given
 *      Learning on real calls (below), and the built-in ladders:
 *        adapt=0|1               0 turns learning off, for reproducible
 *                                runs; 1 (the default) keeps it
 *        learn_after=N           calls of a size the ladder serves
 *                                before its first trial (default 1024)
 *        builtin=generic         the rule for CPUs not recorded, even
 *                                on a CPU that has an entry: see what
 *                                an unrecorded CPU gets
 *      SIZE is a byte count with an optional unit (B, K/KB/KiB, M/MB/MiB,
 *      G/GB/GiB, T/TB/TiB: all powers of 1024); with a unit above B it
 *      may have a fraction ("1.5GiB"), rounded to the nearest byte.
 *   2. a calibration profile written by "ntmem calibrate", read from
 *      NTMEM_PROFILE if set ("" or "none" disables it), else from
 *      $XDG_CACHE_HOME/ntmem/profile, else ~/.cache/ntmem/profile.  A
 *      profile made on another CPU, corrupt, truncated, or of an older or
 *      newer format is ignored.
 *   3. the built-in ladders: for a CPU this project has recorded
 *      (data/machines/ in the source), the ladders its tables show best;
 *      for any other, what the recorded machines teach for its vendor
 *      and family: the entry points' own vector loop up to 32 KiB, the C
 *      library's own function up to the CPU's share of the L3 (half of
 *      it for copies, which touch twice their size), and above it
 *      streaming stores, or on AMD Zen rep movsb and rep stosb, which
 *      stop allocating above the L3.  Topology that cannot be true (over
 *      64 MiB of L3 for each CPU sharing it, "shared by 0", CPUID and
 *      sysfs disagreeing) is not trusted, and a fixed 64 MiB is used
 *      instead; ntmem_cpu_info() says what was used.
 *
 * The policy is built once.  With NTMEM_TUNABLES set, NTMEM_PROFILE
 * naming a file, or a profile file present, the library's constructor
 * builds it as the program loads.  Otherwise the first call that needs it does: a call
 * with a flag, of 1 MiB or more, a safe or parallel call, the 65th call
 * past the entry points' own loop (on x86-64 from 32 KiB for memset and
 * 24 KiB for memcpy, below which every built-in ladder runs that loop;
 * elsewhere past the small path), or a question such as
 * ntmem_ladder_info().  The calls before that run the loop, or past it
 * the C library's own function, so a short-lived program reads no cache
 * topology at all.  A call made before the constructor (from another
 * constructor) uses the baseline: correct results with plain cached
 * vector stores.  One made while another builds the policy, from a
 * signal handler that interrupted its build or the CPU's detection, or
 * on an alternate signal stack (which may be too small for the build)
 * uses the C library's function (the baseline when it streams) and never
 * waits.  In a fork child, a build another thread had under way is
 * started again by the next call that needs it.
 *
 * Learning on real calls.  Which method wins near and above the
 * last-level cache moves with the host's other work, so the ladder is a
 * prior, and from 1 MiB up the calls themselves decide.  Per class and
 * power-of-two size (a band), the candidates are the ladder's variants
 * there and the best of each other kind (cached vector stores, rep
 * string, streaming stores).  The first 1024 calls of a band (learn_after)
 * run the ladder's choice, so a short-lived program never explores; then
 * a trial runs each candidate for a warm-up call or a few (untimed) and
 * 3 timed calls, the one in use last, and keeps the one with the least
 * time per byte (a change needs 2% or more).  The next trial comes 1024
 * calls later, and twice as late each time the decision holds, up to
 * 65536.  So at most the calls of one trial's losing candidates (under
 * 2%) of a band's calls run a slower method; results and the fence
 * contract are the same whichever runs.  The state is per L3 domain:
 * threads that share an L3 learn together.  Calls with TEMPORAL or
 * NONTEMPORAL, and bands with a rung NTMEM_TUNABLES set, do not learn.
 * ntmem_adapt_info() shows what was learned; ntmem_policy_choice() gives
 * the side in use.
 */
enum ntmem_origin {
	NTMEM_ORIGIN_DEFAULT,     /* built-in ranking or topology */
	NTMEM_ORIGIN_PROFILE,     /* calibration profile */
	NTMEM_ORIGIN_ENVIRONMENT  /* NTMEM_TUNABLES */
};

/* "default", "profile" or "environment". */
const char *ntmem_origin_name(enum ntmem_origin origin);

enum ntmem_class {
	NTMEM_CLASS_SET_ZERO,     /* ntmem_set with c == 0 */
	NTMEM_CLASS_SET_NONZERO,  /* ntmem_set with any other value */
	NTMEM_CLASS_COPY          /* ntmem_copy */
};
#define NTMEM_CLASSES 3           /* how many there are */

#define NTMEM_LADDER_MAX 8

struct ntmem_rung {
	size_t from;               /* the first size this rung serves */
	size_t to;                 /* one past its last; SIZE_MAX: no end */
	int variant;               /* variant id */
	enum ntmem_origin origin;
};

struct ntmem_ladder_info {
	size_t small_max;          /* calls of up to this many bytes take the
				      small path */
	const char *small_path;    /* what it is, e.g. "AVX-512 stores" */
	int nrungs;                /* 1 .. NTMEM_LADDER_MAX */
	struct ntmem_rung rung[NTMEM_LADDER_MAX];
	int streaming;             /* the variant NTMEM_F_NONTEMPORAL uses */
	enum ntmem_origin streaming_origin;
	const char *default_how;   /* how the built-in ladder's streaming
				      size was derived, in words */
};

/* Fill *info with the ladder of cls.  Returns 0, or -1 with errno EINVAL. */
int ntmem_ladder_info(enum ntmem_class cls, struct ntmem_ladder_info *info);

/*
 * The variant a call of op with these arguments uses now: a variant id,
 * or NTMEM_SMALL_PATH.  Where the size learns, the side its trials chose
 * (for the calling thread's L3 domain), else the ladder's; a trial's own
 * calls may run another for a moment.  c is ignored for copies.  Returns
 * -1 with errno EINVAL for bad op or flags.
 */
#define NTMEM_SMALL_PATH (-2)
int ntmem_policy_choice(enum ntmem_op op, int c, size_t n, unsigned flags);

struct ntmem_policy_status {
	int ready;                 /* 1: built; 0: calls use the baseline */
	const char *profile_path;  /* the profile looked for, or NULL */
	const char *profile_status;/* "loaded", "not present", "ignored:
				      WHY", "none: WHY" */
	int profile_loaded;
	const char *tunables;      /* NTMEM_TUNABLES as read, or NULL */
};

/* Fill *status.  Returns 0, or -1 with errno EINVAL. */
int ntmem_policy_status(struct ntmem_policy_status *status);

/* One band of a class's learning (see "Learning on real calls" above):
 * the calls of from to to - 1 bytes. */
#define NTMEM_ADAPT_SIDES 4
#define NTMEM_ADAPT_BANDS 24      /* room; nbands says how many are used */
struct ntmem_adapt_band {
	size_t from, to;           /* to: SIZE_MAX for the last band */
	int nsides;                /* 0: the band does not learn */
	int side[NTMEM_ADAPT_SIDES]; /* the candidates: variant ids */
	int decided;               /* the side trials chose: a variant id,
				      -1 before the first trial decides
				      (calls then run the ladder's) */
	unsigned long long calls;  /* calls so far (this L3 domain) */
	unsigned long long trials; /* trials decided */
	unsigned long long switches; /* of which changed the side in use */
	unsigned long long next_trial_in; /* calls until the next trial;
					     0: one is running */
	unsigned period;           /* calls between trials now */
};

struct ntmem_adapt_info {
	int on;                    /* 0: off (NTMEM_TUNABLES adapt=0) */
	enum ntmem_origin origin;  /* of on and after */
	size_t from;               /* the least size that learns; SIZE_MAX:
				      none in this class */
	unsigned after;            /* calls before a band's first trial */
	unsigned samples;          /* timed calls a candidate per trial */
	unsigned period_min, period_max;
	unsigned domains;          /* L3 domains that learn apart */
	unsigned trial_calls;      /* calls of the longest trial */
	unsigned bound;            /* of which at most this many run a
				      candidate that loses */
	int nbands;
	struct ntmem_adapt_band band[NTMEM_ADAPT_BANDS]; /* as the calling
				      thread's L3 domain sees them */
};

/* Fill *info for cls.  Returns 0, or -1 with errno EINVAL. */
int ntmem_adapt_info(enum ntmem_class cls, struct ntmem_adapt_info *info);

/* What the learning has cost a class so far, per band (as in struct
 * ntmem_adapt_info), summed over every domain: the calls that ran a
 * candidate the trial did not keep, the calls timed, and the nanoseconds
 * their clock reads took (two a timed call, measured by a third).  A
 * band's first learn_after calls cost one atomic add each, and nothing
 * here.  Since 0.3.1. */
struct ntmem_adapt_costs {
	int nbands;
	unsigned long long losing[NTMEM_ADAPT_BANDS];
	unsigned long long timed[NTMEM_ADAPT_BANDS];
	unsigned long long clock_ns[NTMEM_ADAPT_BANDS];
};

/* Fill *costs for cls.  Returns 0, or -1 with errno EINVAL. */
int ntmem_adapt_costs(enum ntmem_class cls, struct ntmem_adapt_costs *costs);

/*
 * The i-th setting that was ignored, with the reason, e.g.
 * "NTMEM_TUNABLES: set_threshold=12Q: unknown unit (use B, KB, ...)".
 * NULL past the end.  The strings live as long as the process.
 */
const char *ntmem_policy_ignored(int i);

/* ------------------------------------------------------------------ */
/* The machine                                                         */
/* ------------------------------------------------------------------ */

struct ntmem_cache_sizes {
	size_t l1d, l2, l3;        /* bytes; 0 when unknown */
	unsigned l3_shared_by;     /* logical CPUs sharing the L3; 0: unknown */
};

struct ntmem_cpu_info {
	const char *arch;          /* "x86_64", "aarch64", ... */
	const char *vendor;        /* "GenuineIntel", ...; "" when unknown;
				      on AArch64 MIDR_EL1's implementer
				      ("ARM", ...; in hex if not known) */
	const char *brand;         /* the model name; "" when unknown */
	unsigned family, model, stepping; /* on AArch64 MIDR_EL1's variant,
					     part number and revision */
	const char *features;      /* usable features, space-separated:
				      those the CPU has, the OS enables
				      and, with glibc 2.33 and later in a
				      dynamically linked program, glibc
				      has not turned off (GLIBC_TUNABLES
				      glibc.cpu.hwcaps) */
	const char *missing;       /* "FEATURE: why" lines, '\n'-separated */
	struct ntmem_cache_sizes cpuid;   /* as the CPU reports them (CPUID;
					     none on AArch64, whose cache
					     registers user space cannot
					     read) */
	struct ntmem_cache_sizes sysfs;   /* as Linux reports them */
	struct ntmem_cache_sizes planned; /* what the default policy uses */
	const char *planned_how;   /* where that came from, and anything
				      that was not trusted, in words */
	unsigned online_cpus;
	const char *hypervisor;    /* a virtual machine's hypervisor as the
				      CPU names it ("KVMKVMKVM"); "" on bare
				      metal or where no CPUID says */
};

/* Fill *info.  Returns 0, or -1 with errno EINVAL.  The strings live as
 * long as the process. */
int ntmem_cpu_info(struct ntmem_cpu_info *info);

/* ------------------------------------------------------------------ */
/* The LD_PRELOAD shim                                                 */
/* ------------------------------------------------------------------ */

/*
 * libntmem-preload.so ("ntmem run", see ntmem(1)) gives programs that
 * were never built against libntmem ntmem's memset, memcpy, memmove,
 * mempcpy, bzero, explicit_bzero and their _FORTIFY_SOURCE forms.
 *
 * ntmem_preloaded - 1 when this process runs under the shim: the memset
 * and memcpy the dynamic linker hands out are the shim's.  0 otherwise:
 * no shim, a shim loaded with dlopen() or after another library that
 * defines them, or a statically linked program.  It asks the dynamic
 * linker, so it is neither cheap nor async-signal-safe; errno is kept.
 */
int ntmem_preloaded(void);

/* ------------------------------------------------------------------ */
/* Huge extents: parallel calls, a hot region, prefaulting             */
/* ------------------------------------------------------------------ */

/*
 * NTMEM_F_PARALLEL, for ntmem_set_flags(), ntmem_copy_flags(), the _opts
 * calls below and ntmem_populate(): split the extent over worker threads
 * and return when every part is done.
 *
 *   - The result is the same as without the flag: memset's, memcpy's
 *     (memmove's, when the buffers overlap: those are never split).
 *   - Threads: opts->threads if given, else the CPUs in the calling
 *     thread's affinity mask, at most 64, the caller included; fewer
 *     when each would get less than the minimum chunk (opts->min_chunk,
 *     else 4 MiB).  A call too small for two threads runs as without
 *     the flag, at the same cost.
 *   - Parts have about equal bytes and end on 64-byte lines, so no two
 *     threads write one line; on 4 KiB or 2 MiB boundaries where the
 *     extent allows, so that a page (and its NUMA node) is one thread's.
 *   - Every part uses the variant the policy picks for the size of the
 *     whole extent, not of the part: the parts are written at once and
 *     all pass through the same last-level cache, so it is the whole
 *     extent that fits there or not.  ntmem_policy_choice() for n says
 *     which.
 *   - Each thread fences its own streaming stores before the call
 *     returns; NTMEM_F_NOFENCE skips only the calling thread's fence,
 *     so ntmem_fence() before publishing still suffices.
 *   - NUMA: each part goes to a thread pinned to a CPU of the node its
 *     pages live on (asked of the kernel with move_pages, without moving
 *     them); pages not yet present go anywhere, and the first thread
 *     to touch them places them.  Workers are pinned to one CPU each,
 *     never the caller's.
 *
 * The workers are a pool, started by the first call that needs them and
 * reused: at most one call uses it at a time, and a call that finds it
 * in use runs on the calling thread alone (never waits, never
 * deadlocks).  A call whose threads cannot be created completes on the
 * threads it has.  The child of fork() starts a fresh pool on its first
 * parallel call.  The pool is stopped and joined at exit and at
 * dlclose().  Workers block asynchronous signals.
 *
 * Calls with NTMEM_F_PARALLEL are not async-signal-safe (they may create
 * threads); every other call keeps its safety.
 */
#define NTMEM_F_PARALLEL 0x20u

/*
 * Options for the calls below.  Zero-initialise it and set what you need:
 * every zero field means "as by default".
 */
struct ntmem_opts {
	unsigned flags;       /* NTMEM_F_*, as for ntmem_set_flags() */
	unsigned threads;     /* with NTMEM_F_PARALLEL: at most this many
				 threads, the caller included; 0: the
				 policy's.  More than the CPUs is allowed
				 (then they share CPUs). */
	size_t min_chunk;     /* with NTMEM_F_PARALLEL: the fewest bytes
				 worth a thread; 0: the policy's */
	size_t hot_off;       /* the hot region: bytes [hot_off, hot_off +
				 hot_len) of the extent, which the caller
				 reads right away; */
	size_t hot_len;       /* 0: none */
};

/*
 * ntmem_set_opts, ntmem_copy_opts - ntmem_set_flags() and
 * ntmem_copy_flags() with options.  opts NULL means all zero.
 *
 * With a hot region, the rest of the extent is written first, with
 * streaming stores (NTMEM_F_TEMPORAL: cached ones), in parallel with
 * NTMEM_F_PARALLEL; then the hot region, last, with cached stores, by
 * the calling thread, so that it is in that thread's cache when the call
 * returns.  This is how Linux clears a huge page: the sub-page that
 * faulted last, through the cache.
 *
 * Returns dst, or NULL with errno EINVAL, having written nothing, for
 * bad flags (as the _flags calls) or a hot region that does not lie
 * inside the extent (hot_off + hot_len > n).
 */
void *ntmem_set_opts(void *dst, int c, size_t n, const struct ntmem_opts *opts);
void *ntmem_copy_opts(void *dst, const void *src, size_t n,
		      const struct ntmem_opts *opts);

/*
 * ntmem_populate - fault in, for writing, every page that holds a byte of
 * [addr, addr + len), as a first write would, without changing a byte:
 * the kernel clears fresh pages, and with NTMEM_F_PARALLEL it does so on
 * several threads at once (threads, minimum chunk and NUMA placement as
 * above; parts end on 1 GiB, 2 MiB or 4 KiB boundaries as the range
 * allows, so a huge page is one thread's).
 *
 * Uses madvise(MADV_POPULATE_WRITE) where the kernel has it (Linux 5.14
 * and later), else writes each page (a byte swapped with itself), a
 * fault there caught and turned into the error madvise would give.
 * Either way a page that cannot be had is an error, never a SIGBUS.
 *
 * Returns 0, or -1 with errno (pages before the failing one may have been
 * faulted in):
 *   EINVAL  flags other than NTMEM_F_PARALLEL, a hot region in opts,
 *           addr + len wraps; a page
 *           that may not be written (PROT_READ, PROT_NONE), or that
 *           cannot be populated (VM_IO, VM_PFNMAP);
 *   ENOMEM  a page is not mapped, or memory ran out;
 *   EFAULT  a page could not be faulted in where a write would have
 *           raised SIGBUS: hugetlb pages ran out (MAP_NORESERVE), a
 *           file mapping beyond the end of its file;
 *   EINTR, EHWPOISON and others as madvise(2) gives them.
 * len == 0 returns 0.  Not async-signal-safe.
 */
int ntmem_populate(void *addr, size_t len, unsigned flags);
int ntmem_populate_opts(void *addr, size_t len, const struct ntmem_opts *opts);

/* What parallel calls of the calling thread would use now, and how the
 * pool has fared; for "ntmem info" and the benchmarks. */
struct ntmem_parallel_info {
	unsigned threads;          /* threads with opts->threads == 0 */
	const char *threads_how;   /* where that came from, in words */
	size_t min_chunk;          /* with opts->min_chunk == 0 */
	unsigned max_threads;      /* the most one call uses (64) */
	unsigned cpus_allowed;     /* CPUs the workers may use: the
				      process's affinity mask as the library
				      was loaded (within its cpuset),
				      whatever threads were pinned to since */
	unsigned nodes;            /* NUMA nodes with those CPUs; 0: not
				      known yet */
	unsigned workers;          /* pool threads alive now */
	unsigned long long calls;  /* calls that ran on two threads or more */
	unsigned long long busy;   /* parallel calls that found the pool in
				      use and ran alone */
	unsigned long long create_failed; /* threads that could not be
					     created */
	int populate_write;        /* 1: ntmem_populate uses
				      MADV_POPULATE_WRITE; 0: it writes */
};

/* Fill *info.  Returns 0, or -1 with errno EINVAL.  Starts no thread. */
int ntmem_parallel_info(struct ntmem_parallel_info *info);

/* ------------------------------------------------------------------ */
/* Fault-tolerant calls                                                */
/* ------------------------------------------------------------------ */

/*
 * ntmem_copy_safe - copy n bytes from src to dst, surviving a fault.
 * ntmem_set_safe - fill n bytes at dst with (unsigned char)c, the same.
 *
 * A page that cannot be read or written (PROT_NONE, unmapped, a shared
 * file mapping past the end of a file another process truncated, a page
 * with a memory error) ends the call early instead of raising SIGSEGV or
 * SIGBUS.  Each returns the number of bytes NOT copied or written, r:
 * 0 when all n were done, and then exactly:
 *
 *   - dst[0, n - r) holds memcpy's (memset's) result;
 *   - the byte at src + n - r (a read fault) or at dst + n - r (a write
 *     fault) is the first one that could not be accessed;
 *   - after a read fault, dst[n - r, n) is filled with zeros, as far as
 *     dst can be written, unless NTMEM_F_NOZEROFILL is given: then it is
 *     left as it was (on x86-64; elsewhere it may also hold source bytes
 *     from past the fault).  After a write fault, the bytes of
 *     dst[n - r, n) that can be written hold their old or new values.
 *
 * flags are those of ntmem_copy_flags() (TEMPORAL, NONTEMPORAL, NOFENCE,
 * with the same meaning: the call uses the method the policy chooses for
 * this size and flags, see ntmem_variant_guarded_by()), NTMEM_F_NOZEROFILL
 * and NTMEM_F_UNBLOCKED (below).  A call that streams returns fenced, fault or
 * not, unless NTMEM_F_NOFENCE is given.  Overlapping buffers give
 * memmove's result, with cached stores.  Bad flags (unknown bits, or
 * TEMPORAL with NONTEMPORAL) return (size_t)-1 with errno EINVAL and
 * touch nothing; so does a handler that cannot be installed (errno from
 * sigaction(2), or ENOTSUP when something refuses it, e.g. a sanitizer
 * run with allow_user_segv_handler=0).  NULL and wild pointers are
 * faults like any other.  errno is left alone otherwise.
 *
 * How (x86-64): the loops that may fault are listed in an exception
 * table, as the kernel's copy_from_user() is.  One SIGSEGV/SIGBUS
 * handler, installed on the first safe call (or by ntmem_safe_init()),
 * finds the faulting instruction there and continues at that loop's
 * fixup, which finishes byte by byte up to the exact byte.  A call that
 * does not fault costs what ntmem_copy() and ntmem_set() cost, with
 * NTMEM_F_UNBLOCKED (without it, one system call more: see below).  A fault
 * costs a few microseconds (two signal deliveries).
 *
 * Elsewhere each safe call runs under a sigsetjmp(3) guard of its own
 * (some nanoseconds a call) and finds the exact byte the same way.
 *
 * Every other fault (outside a safe call, or sent by kill(2)) goes where
 * it would have gone without ntmem: to the handler installed before
 * ntmem's, with its sa_mask, SA_SIGINFO, SA_NODEFER and SA_RESETHAND
 * honoured (on the alternate signal stack if one is set up), or to the
 * default action (the process dies of the signal), or, for a signal
 * sent by another process to a SIG_IGN disposition, nowhere.
 *
 * Safe calls are thread-safe and, once the handler is installed,
 * async-signal-safe.  A fault in one thread never disturbs another.
 *
 * Blocked signals: the kernel kills a process whose thread faults with
 * SIGSEGV or SIGBUS blocked (a thread that blocks every signal to wait
 * for them with sigwait(3), a handler whose sa_mask blocks them, a
 * SIGSEGV handler itself), whatever handler is installed.  So each safe
 * call unblocks both for its duration, and blocks again afterwards those
 * that were blocked: one system call a call (about 0.1-0.3 us, which
 * small calls feel), two when they were blocked.  A caller that knows
 * neither is blocked in the calling thread passes NTMEM_F_UNBLOCKED to
 * skip this; a fault with either blocked then kills the process.
 */
#define NTMEM_F_NOZEROFILL 0x100u  /* safe calls only: no zero fill */
#define NTMEM_F_UNBLOCKED  0x200u  /* safe calls only: the caller vouches
				      that SIGSEGV and SIGBUS are not
				      blocked in this thread */

size_t ntmem_copy_safe(void *dst, const void *src, size_t n, unsigned flags);
size_t ntmem_set_safe(void *dst, int c, size_t n, unsigned flags);

/*
 * ntmem_safe_init - install the handler of the safe calls now, or put it
 * back in front after the program replaced it.  Returns 0, or -1 with
 * errno (see above).
 *
 * Installing it is process-wide: sigaction(2) for SIGSEGV and SIGBUS,
 * with SA_SIGINFO | SA_ONSTACK | SA_NODEFER.  A program that installs
 * its own handler for either signal afterwards replaces ntmem's, and a
 * fault in a safe call then reaches that handler instead.  Either chain
 * from it to the handler sigaction(2) returned as the old one (a fault
 * that is not the program's own goes to ntmem's, which sends faults
 * outside safe calls back to the handler before it), or call
 * ntmem_safe_init() after installing it: ntmem's handler then runs first
 * and hands the program's handler every fault that is not a safe call's
 * (do not do both: the two would hand each other the fault forever).
 *
 * Sanitizers and debuggers: AddressSanitizer installs its SIGSEGV
 * handler as the program starts, so ntmem's comes later, runs first, and
 * passes every other fault on to ASan's report.  The guarded loops are
 * assembly, which ASan does not instrument.  gdb stops at every SIGSEGV
 * before any handler runs; "handle SIGSEGV nostop noprint pass" (and
 * SIGBUS) lets the safe calls work under it.
 */
int ntmem_safe_init(void);

/*
 * The name of the variant whose guarded form a safe call runs when the
 * policy chooses variant id: id's own name when its family has a
 * guarded form (the vector loops, streaming loops, rep movsb/stosb,
 * MOVNTI, MOVDIR64B), else that of the stand-in of the same kind
 * (cached or streaming) this CPU runs, e.g. "movsb" for "libc" on a CPU
 * with ERMS.  Off x86-64, every variant runs under the per-call guard
 * and is its own.  NULL with errno EINVAL for a bad id, ENOTSUP when this
 * CPU cannot run the variant.  The string lives as long as the process.
 */
const char *ntmem_variant_guarded_by(int id);

#ifdef __cplusplus
}
#endif

#endif /* NTMEM_H */
