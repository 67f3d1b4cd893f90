/* profile.h - the calibration profile "ntmem calibrate" writes and the
 * policy reads: measured choices, tied to the CPU they were measured on.
 *
 * The file is text, one "key value" per line, starting with
 * "ntmem-profile FORMAT" and ending with "end CHECKSUM" (FNV-1a of every
 * byte before that line), so truncation and corruption are detected.
 * Lines starting with '#' are comments.  Format 2 holds a ladder per call
 * class ("ladder.set vec_avx512:8388608,stosb:67108864,nt_avx512", with
 * "streaming.set nt_avx512"); a class without one keeps the built-in
 * ladder.  Format 3 adds how and when it was made ("made.effort quick",
 * "made.time 1764786000", seconds since 1970 UTC), so that ntmem info can
 * say so; format 2 is still read (made unknown), format 1 (one threshold
 * per operation) is ignored.
 */
#ifndef NTM_PROFILE_H
#define NTM_PROFILE_H

#include <stddef.h>

#include "cpu.h"

#define NTM_PROFILE_FORMAT 3
#define NTM_PROFILE_FORMAT_OLDEST 2  /* still read */
#define NTM_NAME_MAX 32

/* One class's ladder as text, in ntm_ladder_parse()'s syntax; "" when
 * absent.  streaming: its variant for NTMEM_F_NONTEMPORAL, or "". */
struct profile_ladder {
	char rungs[512];
	char streaming[NTM_NAME_MAX];
};

struct profile {
	/* The CPU signature: a profile only applies where all of it matches. */
	char vendor[13];
	unsigned family, model, stepping;
	unsigned features;             /* struct cpu's usable bits */
	size_t l1d, l2, l3;            /* as CPUID reports them */
	struct profile_ladder ladder[3]; /* indexed by enum ntmem_class */
	size_t min_chunk;              /* parallel calls: bytes per thread;
					  0: absent */
	char effort[NTM_NAME_MAX];     /* "quick", "default", "thorough";
					  "": not recorded */
	long long made;                /* seconds since 1970 UTC; 0: not
					  recorded */
};

/* A profile for cpu with no measured values yet. */
void ntm_profile_init(struct profile *p, const struct cpu *cpu);

/* Read path into *p.  Returns 0, or -1 with the reason in why (e.g.
 * "truncated: no end line", "made on another CPU: ..."). */
int ntm_profile_read(const char *path, const struct cpu *cpu,
		     struct profile *p, char *why, size_t why_len);

/* Write *p to path atomically (a temporary file in the same directory,
 * then rename), creating the directory if needed.  comment, if not NULL,
 * is written as '#' lines.  Returns 0, or -1 with errno set. */
int ntm_profile_write(const char *path, const struct profile *p,
		      const char *comment);

/* The user's profile path: NTMEM_PROFILE if set, else
 * $XDG_CACHE_HOME/ntmem/profile, else $HOME/.cache/ntmem/profile.
 * Returns 0, or -1 when profiles are disabled (NTMEM_PROFILE "" or "none")
 * or no path can be formed; why then says which. */
int ntm_profile_path(char *buf, size_t len, const char **why);

/* The system-wide profile, for every user who has none of their own
 * ("ntmem calibrate --system" writes it): NTMEM_SYSTEM_PROFILE if set,
 * else NTM_SYSTEM_PROFILE, fixed when the library is built. */
#ifndef NTM_SYSTEM_PROFILE
#define NTM_SYSTEM_PROFILE "/var/lib/ntmem/profile"
#endif
const char *ntm_profile_system_path(void);

/* The profile that serves this process: the user's when NTMEM_PROFILE
 * names one or the user's file exists, else the system-wide one when it
 * exists, else the user's (to report as not present).  Returns 0, or -1
 * as ntm_profile_path() does. */
int ntm_profile_in_effect(char *buf, size_t len, const char **why);

#endif
