/* report_dir.h - the directory "ntmem run --report" keeps its records in
 * (report_dir.c): only where no other user can swap it, and reached by
 * ntmem run through descriptors alone, never again by its name. */
#ifndef NTM_RUN_REPORT_DIR_H
#define NTM_RUN_REPORT_DIR_H

#include <limits.h>

#include "output/cli.h"

struct report_dir {
	int parent;             /* the directory it is in, open; -1: none */
	int fd;                 /* itself, open (O_NOFOLLOW); -1: none */
	char name[32];          /* its name in parent: ntmem-run.XXXXXX */
	char path[PATH_MAX];    /* the path NTMEM_PRELOAD_REPORT names */
};

/*
 * Can a directory be made in dir (label: how to name it in a message,
 * "TMPDIR" say) that no other user can rename or replace while the
 * command runs?  Every directory on dir's resolved path must be owned by
 * this user or root, and one writable by group or others must be sticky
 * with the next directory down this user's or root's (a sticky
 * directory's entries are renamed by their owners only).  Returns 0, or
 * -1 with a CLI_USAGE error naming label, the directory and who could.
 */
int report_dir_trusted(const char *dir, const char *label, struct cli_error *e);

/* Make the directory, mode 0700, in $TMPDIR (else /tmp), once
 * report_dir_trusted() takes it, and open it.  Returns 0, or -1 with an
 * error: CLI_USAGE for a TMPDIR others could swap it in. */
int report_dir_make(struct report_dir *d, struct cli_error *e);

/* Does d->path still lead to the directory d->fd holds, as the shim
 * opens it (no symbolic link at the end)?  0 once moved or replaced. */
int report_dir_intact(const struct report_dir *d);

/* Remove what is in the directory, through d->fd, then the directory
 * itself where its name in d->parent is still it; close both. */
void report_dir_remove(struct report_dir *d);

#endif
