/* profile.h - the calibration profile "ntmem calibrate" writes and the
 * policy reads: measured choices, tied to the CPU they were measured on.
 *
 * The file is text, one "key value" per line, starting with
 * "ntmem-profile FORMAT" and ending with "end CHECKSUM" (FNV-1a of every
 * byte before that line), so truncation and corruption are detected.
 * Lines starting with '#' are comments.
 */
#ifndef NTM_PROFILE_H
#define NTM_PROFILE_H

#include <stddef.h>

#include "cpu.h"

#define NTM_PROFILE_FORMAT 1
#define NTM_NAME_MAX 32

struct profile_op {
	char cached[NTM_NAME_MAX];     /* "" when absent */
	char streaming[NTM_NAME_MAX];  /* "" when absent */
	int has_threshold;
	size_t threshold;              /* SIZE_MAX: never stream */
	int has_nonzero_threshold;     /* set only: values other than 0 */
	size_t nonzero_threshold;
};

struct profile {
	/* The CPU signature: a profile only applies where all of it matches. */
	char vendor[13];
	unsigned family, model, stepping;
	unsigned features;             /* struct cpu's usable bits */
	size_t l1d, l2, l3;            /* as CPUID reports them */
	struct profile_op op[2];       /* indexed by enum ntmem_op */
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

/* The profile path in effect: NTMEM_PROFILE if set, else
 * $XDG_CACHE_HOME/ntmem/profile, else $HOME/.cache/ntmem/profile.
 * Returns 0, or -1 when profiles are disabled (NTMEM_PROFILE "" or "none")
 * or no path can be formed; why then says which. */
int ntm_profile_path(char *buf, size_t len, const char **why);

#endif
