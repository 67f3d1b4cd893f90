/* outfile.c - write an output file without damaging what is at its path
 * and without leaving a temporary file behind (see outfile.h). */
#define _GNU_SOURCE
#include "outfile.h"

#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

/* Room for ".tmp" and a six-character suffix after a path. */
#define TMP_PATH_MAX (NTM_OUTFILE_PATH_MAX + 16)

static int fail(struct ntm_outfile *o, int err, const char *why)
{
	o->why = why;
	errno = err;
	return -1;
}

/* Copy s into buf[len]; -1 with ENAMETOOLONG if it does not fit. */
static int copy_path(char *buf, size_t len, const char *s)
{
	if ((size_t)snprintf(buf, len, "%s", s) >= len) {
		errno = ENAMETOOLONG;
		return -1;
	}
	return 0;
}

/* The directory part of path ("." when it has none). */
static void dir_of(const char *path, char *dir, size_t len)
{
	const char *slash = strrchr(path, '/');
	if (!slash)
		snprintf(dir, len, ".");
	else if (slash == path)
		snprintf(dir, len, "/");
	else
		snprintf(dir, len, "%.*s", (int)(slash - path), path);
}

/* A link's target, taken relative to the directory holding the link. */
static int follow_link(char *path, size_t len)
{
	char target[NTM_OUTFILE_PATH_MAX], dir[NTM_OUTFILE_PATH_MAX];
	ssize_t n = readlink(path, target, sizeof target - 1);
	if (n < 0)
		return -1;
	target[n] = '\0';
	if (target[0] == '/')
		return copy_path(path, len, target);
	dir_of(path, dir, sizeof dir);
	if ((size_t)snprintf(path, len, "%s/%s", dir, target) >= len) {
		errno = ENAMETOOLONG;
		return -1;
	}
	return 0;
}

/* Whether a file can be created in dir: the permission bits do not tell
 * it all (root passes faccessat everywhere, and /proc or a read-only mount
 * still refuse).  The file made to find out is taken away at once: an
 * unnamed one where the file system has them, else a named one.  0, or
 * -1 with errno. */
static int try_create(const char *dir)
{
	int fd = -1;
#ifdef O_TMPFILE
	fd = open(dir, O_TMPFILE | O_WRONLY | O_CLOEXEC, 0600);
#endif
	if (fd < 0) {
		char probe[NTM_OUTFILE_PATH_MAX + 32];
		snprintf(probe, sizeof probe, "%s/.ntmem-probe.tmpXXXXXX", dir);
		fd = mkstemp(probe);
		if (fd < 0)
			return -1;
		unlink(probe);
	}
	close(fd);
	return 0;
}

/* dir, or with mkdir its nearest existing ancestor, must be a directory
 * this process may create files in. */
static int check_dir(struct ntm_outfile *o, const char *path)
{
	char dir[NTM_OUTFILE_PATH_MAX];
	dir_of(path, dir, sizeof dir);
	struct stat st;
	while (stat(dir, &st)) {
		if (errno != ENOENT || !(o->flags & NTM_OUTFILE_MKDIR) ||
		    !strcmp(dir, ".") || !strcmp(dir, "/"))
			return fail(o, errno, errno == ENOENT
				    ? "its directory does not exist" : NULL);
		char up[NTM_OUTFILE_PATH_MAX];
		dir_of(dir, up, sizeof up);
		memcpy(dir, up, sizeof dir);
	}
	if (!S_ISDIR(st.st_mode))
		return fail(o, ENOTDIR, NULL);
	if (faccessat(AT_FDCWD, dir, W_OK | X_OK, AT_EACCESS) || try_create(dir))
		return fail(o, errno, NULL);
	return 0;
}

/* A link in /proc/PID/fd (where /dev/stdout and /dev/fd/N lead) names an
 * open file, not a place in a directory: the file is written through,
 * after what it holds, whatever kind it is (the shell's redirection of
 * standard output may have made it a regular file). */
static int open_file(struct ntm_outfile *o)
{
	struct stat st;
	memcpy(o->path, o->asked, sizeof o->path);
	if (stat(o->path, &st))
		return fail(o, errno, NULL);
	if (!S_ISREG(st.st_mode) && !S_ISCHR(st.st_mode) && !S_ISFIFO(st.st_mode))
		return fail(o, EINVAL, "an open socket or other special file: refused");
	o->how = NTM_OUTFILE_THROUGH;
	o->append = 1;
	if (faccessat(AT_FDCWD, o->path, W_OK, AT_EACCESS))
		return fail(o, errno, NULL);
	return 0;
}

static int in_fd_dir(const char *path)
{
	return !strncmp(path, "/proc/", 6) || !strncmp(path, "/dev/fd/", 8);
}

/* Follow o->asked's links and classify what is at the end of them. */
static int resolve(struct ntm_outfile *o)
{
	o->why = NULL;
	o->exists = 0;
	o->append = 0;
	size_t n = strlen(o->asked);
	if (n == 0)
		return fail(o, ENOENT, "empty path");
	if (o->asked[n - 1] == '/')
		return fail(o, EISDIR, NULL);
	memcpy(o->path, o->asked, sizeof o->path);
	for (int links = 0;; links++) {
		struct stat st;
		if (lstat(o->path, &st)) {
			if (errno != ENOENT)
				return fail(o, errno, NULL);
			o->how = NTM_OUTFILE_REPLACE;
			return check_dir(o, o->path);
		}
		if (S_ISLNK(st.st_mode)) {
			if (in_fd_dir(o->path))
				return open_file(o);
			if (links == NTM_OUTFILE_MAX_LINKS)
				return fail(o, ELOOP, NULL);
			if (follow_link(o->path, sizeof o->path))
				return fail(o, errno, NULL);
			continue;
		}
		if (S_ISREG(st.st_mode)) {
			o->how = NTM_OUTFILE_REPLACE;
			o->exists = 1;
			o->keep_mode = st.st_mode & 0777;
			return check_dir(o, o->path);
		}
		if (S_ISCHR(st.st_mode) || S_ISFIFO(st.st_mode)) {
			o->how = NTM_OUTFILE_THROUGH;
			if (faccessat(AT_FDCWD, o->path, W_OK, AT_EACCESS))
				return fail(o, errno, NULL);
			return 0;
		}
		if (S_ISDIR(st.st_mode))
			return fail(o, EISDIR, NULL);
		return fail(o, EINVAL, S_ISBLK(st.st_mode)
			    ? "a block device: refused, it would be overwritten"
			    : "a socket or other special file: refused");
	}
}

int ntm_outfile_prepare(struct ntm_outfile *o, const char *path,
			unsigned flags)
{
	int saved = errno;
	memset(o, 0, sizeof *o);
	o->flags = flags;
	if (copy_path(o->asked, sizeof o->asked, path))
		return fail(o, ENAMETOOLONG, NULL);
	if (resolve(o))
		return -1;
	errno = saved;
	return 0;
}

/* Create the missing directories above path: 0700 (a profile's
 * directory is the user's own), or as modes say.  A directory made gets
 * exact modes by chmod: mkdir takes the umask away. */
static int make_parents(const char *path, const struct ntm_outfile_modes *modes)
{
	char dir[NTM_OUTFILE_PATH_MAX];
	mode_t mode = modes ? modes->dir : 0700;
	dir_of(path, dir, sizeof dir);
	for (char *s = dir + 1;; s++) {
		if (*s != '/' && *s)
			continue;
		char end = *s;
		*s = '\0';
		if (!mkdir(dir, mode)) {
			if (modes && modes->exact && chmod(dir, mode))
				return -1;
		} else if (errno != EEXIST) {
			return -1;
		}
		if (!end)
			return 0;
		*s = '/';
	}
}

static int write_all(int fd, const void *data, size_t len)
{
	const unsigned char *p = data;
	while (len) {
		ssize_t w = write(fd, p, len);
		if (w < 0 && errno == EINTR)
			continue;
		if (w <= 0)
			return -1;
		p += w;
		len -= (size_t)w;
	}
	return 0;
}

/* A fresh name for a temporary file beside path. */
static void temp_name(const char *path, char *tmp, size_t len)
{
	static const char digits[] = "abcdefghijklmnopqrstuvwxyz0123456789";
	static _Atomic uint64_t counter;
	struct timespec ts;
	clock_gettime(CLOCK_REALTIME, &ts);
	uint64_t x = (uint64_t)ts.tv_nsec ^ ((uint64_t)getpid() << 32) ^
		     (counter++ * 0x9e3779b97f4a7c15ull);
	char suffix[7];
	for (int i = 0; i < 6; i++, x /= 36)
		suffix[i] = digits[x % 36];
	suffix[6] = '\0';
	snprintf(tmp, len, "%s.tmp%s", path, suffix);
}

/* A new file's mode (less the umask, as for open()). */
static mode_t create_mode(const struct ntm_outfile *o)
{
	return o->modes ? o->modes->file : 0666;
}

/* An unnamed file in path's directory (O_TMPFILE), or -1 where the file
 * system has none. */
static int open_unnamed(const struct ntm_outfile *o)
{
#ifdef O_TMPFILE
	char dir[NTM_OUTFILE_PATH_MAX];
	dir_of(o->path, dir, sizeof dir);
	return open(dir, O_TMPFILE | O_WRONLY | O_CLOEXEC, create_mode(o));
#else
	(void)o;
	errno = EOPNOTSUPP;
	return -1;
#endif
}

/* Give the unnamed file fd the name tmp; -1 if that cannot be done
 * (then the caller starts again with a named temporary file). */
static int name_unnamed(int fd, const char *path, char *tmp, size_t len)
{
	char self[64];
	snprintf(self, sizeof self, "/proc/self/fd/%d", fd);
	for (int tries = 0; tries < 100; tries++) {
		temp_name(path, tmp, len);
		if (!linkat(AT_FDCWD, self, AT_FDCWD, tmp, AT_SYMLINK_FOLLOW))
			return 0;
		if (errno != EEXIST)
			return -1;
	}
	return -1;
}

static int open_named(const struct ntm_outfile *o, char *tmp, size_t len)
{
	for (int tries = 0; tries < 100; tries++) {
		temp_name(o->path, tmp, len);
		int fd = open(tmp, O_CREAT | O_EXCL | O_WRONLY | O_CLOEXEC,
			      create_mode(o));
		if (fd >= 0 || errno != EEXIST)
			return fd;
	}
	return -1;
}

/* Fill fd with the data, give it its mode (the replaced file's, or the
 * exact one asked for), flush it. */
static int fill(const struct ntm_outfile *o, int fd, const void *data,
		size_t len)
{
	if (write_all(fd, data, len))
		return -1;
	if (o->modes ? o->modes->exact && fchmod(fd, o->modes->file)
		     : o->exists && fchmod(fd, o->keep_mode))
		return -1;
	return fsync(fd);
}

/* The temporary file, complete, under the name tmp; -1 with errno. */
static int make_temporary(const struct ntm_outfile *o, const void *data,
			  size_t len, char *tmp, size_t tmp_len)
{
	int fd = open_unnamed(o);
	if (fd >= 0) {
		if (fill(o, fd, data, len)) {
			int e = errno;
			close(fd);
			errno = e;
			return -1;
		}
		int named = !name_unnamed(fd, o->path, tmp, tmp_len);
		close(fd);
		if (named)
			return 0;
	}
	fd = open_named(o, tmp, tmp_len);
	if (fd < 0)
		return -1;
	int bad = fill(o, fd, data, len);
	int e = errno;
	if (close(fd))
		bad = 1;
	else
		errno = e;
	if (bad) {
		e = errno;
		unlink(tmp);
		errno = e;
		return -1;
	}
	return 0;
}

static int replace(struct ntm_outfile *o, const void *data, size_t len)
{
	sigset_t all, old;
	sigfillset(&all);
	pthread_sigmask(SIG_BLOCK, &all, &old);
	char tmp[TMP_PATH_MAX];
	int r = -1;
	if ((o->flags & NTM_OUTFILE_MKDIR) && make_parents(o->path, o->modes))
		goto out;
	if (make_temporary(o, data, len, tmp, sizeof tmp))
		goto out;
	r = rename(tmp, o->path);
	if (r) {
		int e = errno;
		unlink(tmp);
		errno = e;
	}
out:;
	int e = errno;
	pthread_sigmask(SIG_SETMASK, &old, NULL);
	errno = e;
	return r;
}

/* A device, a FIFO or an open file: open what is there (never create),
 * check it is still what resolve() saw, write. */
static int through(struct ntm_outfile *o, const void *data, size_t len)
{
	int flags = O_WRONLY | O_NOCTTY | O_CLOEXEC |
		    (o->append ? O_APPEND : O_NOFOLLOW);
	int fd = open(o->path, flags);
	if (fd < 0)
		return fail(o, errno, NULL);
	struct stat st;
	int kind_ok = !fstat(fd, &st) &&
		      (S_ISCHR(st.st_mode) || S_ISFIFO(st.st_mode) ||
		       (o->append && S_ISREG(st.st_mode)));
	int bad = !kind_ok ? 1 : write_all(fd, data, len);
	int e = bad > 0 ? EINVAL : errno;
	if (close(fd) && !bad) {
		bad = -1;
		e = errno;
	}
	if (bad)
		return fail(o, e, bad > 0 ? "no longer a device or FIFO" : NULL);
	return 0;
}

int ntm_outfile_commit(struct ntm_outfile *o, const void *data, size_t len)
{
	int saved = errno;
	if (resolve(o))
		return -1;
	int r = o->how == NTM_OUTFILE_THROUGH ? through(o, data, len)
					       : replace(o, data, len);
	if (r)
		return fail(o, errno, o->why);
	errno = saved;
	return 0;
}

int ntm_outfile_write(const char *path, const void *data, size_t len,
		      unsigned flags)
{
	struct ntm_outfile o;
	if (ntm_outfile_prepare(&o, path, flags))
		return -1;
	return ntm_outfile_commit(&o, data, len);
}

int ntm_outfile_write_modes(const char *path, const void *data, size_t len,
			    unsigned flags, const struct ntm_outfile_modes *modes)
{
	struct ntm_outfile o;
	if (ntm_outfile_prepare(&o, path, flags))
		return -1;
	o.modes = modes;
	return ntm_outfile_commit(&o, data, len);
}
