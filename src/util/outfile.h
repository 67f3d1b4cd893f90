/* outfile.h - the one way ntmem writes an output file: the tool's --plot
 * and --output files and the calibration profile alike.
 *
 * What is at the path when the file is written decides how:
 *
 *   nothing, or a regular file
 *       Replaced atomically: the data goes to a temporary file in the same
 *       directory, which is renamed over the path once complete, so a
 *       reader sees the old file or the new one, never a part.  A new file
 *       gets mode 0666 less the umask, as the shell's '>' gives it; a
 *       replaced file keeps its permission bits (ntm_outfile_write_modes()
 *       gives both the modes it is asked for instead).
 *   a symbolic link
 *       Followed (through at most NTM_OUTFILE_MAX_LINKS links); the file it
 *       points to is written or created as above, and the link stays.
 *   a character device or a FIFO (/dev/null, a named pipe)
 *       Written through, in place: there is nothing to replace.  Opening a
 *       FIFO waits for a reader, as the shell's '>' does.
 *   a path through /proc/PID/fd or /dev/fd (/dev/stdout, /dev/fd/3)
 *       An open file: written through, appended to what it holds, whatever
 *       it is (a terminal, a pipe, the regular file standard output was
 *       redirected to).
 *   a directory, block device, socket, or anything else
 *       Refused: writing a plot over a disk is never what was meant.
 *
 * No signal leaves a temporary file behind: every signal that can be
 * blocked is blocked from the temporary file's creation to its rename, and
 * where the file system has O_TMPFILE the temporary has no name until just
 * before the rename, so not even SIGKILL leaves one.
 *
 * Part of the library (the profile writer uses it) but not exported.  On
 * success errno is unchanged; on failure it says why, and o->why, when
 * not NULL, says it in words ("a block device: refused").
 */
#ifndef NTM_OUTFILE_H
#define NTM_OUTFILE_H

#include <errno.h>
#include <stddef.h>
#include <string.h>
#include <sys/types.h>

#define NTM_OUTFILE_MAX_LINKS 40
#define NTM_OUTFILE_PATH_MAX 4096

/* Flags. */
#define NTM_OUTFILE_MKDIR 0x1u  /* create missing parent directories, 0700
				   (or as ntm_outfile_modes says) */

/* The modes of what ntm_outfile_write_modes() creates: the file (new or
 * replacing one, whose bits are then not kept) and the directories
 * NTM_OUTFILE_MKDIR makes; less the umask, or exactly these with exact. */
struct ntm_outfile_modes {
	mode_t file, dir;
	int exact;
};

enum ntm_outfile_how {
	NTM_OUTFILE_REPLACE,    /* regular or missing: temporary, then rename */
	NTM_OUTFILE_THROUGH     /* a device, FIFO or open file: written in
				   place */
};

struct ntm_outfile {
	char asked[NTM_OUTFILE_PATH_MAX];  /* the path as given */
	char path[NTM_OUTFILE_PATH_MAX];   /* the file written: links followed */
	enum ntm_outfile_how how;
	int append;             /* THROUGH: an open file, written at its end */
	int exists;             /* REPLACE: a regular file is there now */
	mode_t keep_mode;       /* its permission bits, when it exists */
	unsigned flags;
	const struct ntm_outfile_modes *modes;  /* NULL: as described above */
	const char *why;        /* after a failure: the reason in words, or
				   NULL when strerror(errno) says it */
};

/* Right after a failure: why, in words either way. */
static inline const char *ntm_outfile_reason(const struct ntm_outfile *o)
{
	return o->why ? o->why : strerror(errno);
}

/*
 * Check that path can be written, before any work is done for it: follow
 * its links, classify what is there, and check the directory (with
 * NTM_OUTFILE_MKDIR: the nearest existing ancestor) lets this process
 * create a file.  Creates nothing.  Returns 0, or -1 with errno (EISDIR,
 * ENOENT, EACCES, ELOOP, ENAMETOOLONG, EINVAL for a refused kind) and
 * o->why.
 */
int ntm_outfile_prepare(struct ntm_outfile *o, const char *path,
			unsigned flags);

/*
 * Write len bytes of data to the path o was prepared for (a successful
 * ntm_outfile_prepare() first).  What is there is looked at again, as it
 * may have changed while the data was made.  Returns 0, or -1 with errno
 * and o->why; on failure nothing at the path has changed (REPLACE), or
 * part of the data may have gone through (THROUGH).
 */
int ntm_outfile_commit(struct ntm_outfile *o, const void *data, size_t len);

/* Prepare and commit in one call. */
int ntm_outfile_write(const char *path, const void *data, size_t len,
		      unsigned flags);

/* The same, with the modes of what is created given (not NULL). */
int ntm_outfile_write_modes(const char *path, const void *data, size_t len,
			    unsigned flags, const struct ntm_outfile_modes *modes);

#endif
