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
#include "ntmem.h"

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
	struct profile_ladder ladder[NTMEM_CLASSES];
	size_t min_chunk;              /* parallel calls: bytes per thread;
					  0: absent */
	char effort[NTM_NAME_MAX];     /* "quick", "default", "thorough";
					  "": not recorded */
	long long made;                /* seconds since 1970 UTC; 0: not
					  recorded */
};

/* A profile for cpu with no measured values yet. */
void ntm_profile_init(struct profile *p, const struct cpu *cpu);

/*
 * Open path for reading as a profile, if it can be trusted: the file and
 * every directory above it owned by root or by this process's effective
 * uid, and none of them writable by group or others (a sticky
 * world-writable directory such as /tmp is refused too).  A symbolic
 * link on the way counts when it is owned so, and its target passes the
 * same test.  Only a regular file is opened (O_NONBLOCK, O_NOFOLLOW: what
 * was checked is what is read).  Returns the descriptor, or -1 with
 * errno (ENOENT or ENOTDIR: there is no such file; EPERM: not trusted)
 * and the reason in why ("not trusted: /tmp is writable by others
 * (mode 1777)").  profile_trust.c.
 */
int ntm_profile_open(const char *path, char *why, size_t why_len);

/* Read a profile from fd (closed here, whatever happens) into *p.
 * Returns 0, or -1 with the reason in why (e.g. "truncated: no end
 * line", "made on another CPU: ..."). */
int ntm_profile_read_fd(int fd, const struct cpu *cpu, struct profile *p,
			char *why, size_t why_len);

/* ntm_profile_open(), then ntm_profile_read_fd().  Returns 0;
 * NTM_PROFILE_ABSENT when there is no such file; -1 with the reason in
 * why otherwise. */
#define NTM_PROFILE_ABSENT (-2)
int ntm_profile_read(const char *path, const struct cpu *cpu,
		     struct profile *p, char *why, size_t why_len);

/* Write *p to path atomically (a temporary file in the same directory,
 * then rename), creating the directory if needed.  comment, if not NULL,
 * is written as '#' lines.  The file is mode 0644 less the umask, and
 * directories made for it 0700, so that the writer alone can change
 * them; with NTM_PROFILE_SHARED (the system-wide profile) the file is
 * 0644 and its new directories 0755 whatever the umask, so that every
 * user can read it and only its owner write it.  Returns 0, or -1 with
 * errno set. */
#define NTM_PROFILE_SHARED 0x1u
int ntm_profile_write(const char *path, const struct profile *p,
		      const char *comment, unsigned flags);

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
 * exists, else the user's (to report as not present).  A file exists
 * here unless looking it up says there is none (ENOENT, ENOTDIR): one
 * that cannot be read is taken, so that the reader says why.  Returns 0;
 * 1 with the user's path where neither file exists (NTMEM_PROFILE unset);
 * or -1 as ntm_profile_path() does. */
int ntm_profile_in_effect(char *buf, size_t len, const char **why);

#endif
