/* profile_trust.c - open a profile only if nobody but root and this user
 * could have written it (profile.h, ntm_profile_open).
 *
 * The rule is sudo's and sshd's: the file and every directory above it
 * owned by root or by the effective uid, and none of them writable by
 * group or others (a sticky world-writable directory such as /tmp
 * included: its other users cannot replace a file there, but they can
 * choose the name first).  A symbolic link on the way is followed when
 * it is owned the same way; its target passes the same test, directory
 * by directory.
 *
 * The path is walked one component at a time from a descriptor of the
 * directory before it (O_PATH, never following a link), each descriptor
 * checked with fstat, and the file opened with O_NOFOLLOW and checked
 * the same way: what is checked is what is read, with no window in
 * which a name could be swapped.
 */
#define _GNU_SOURCE
#include "profile.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#define TRUST_MAX_LINKS 40

struct walk {
	int dir;                  /* the directory resolved so far */
	char shown[PATH_MAX];     /* its path, for the reasons */
	char rest[PATH_MAX];      /* what is left to resolve */
	char where[PATH_MAX];     /* scratch: a name's path, a link's target */
	int links;
	uid_t uid;
	int depth;                /* of w->dir: "/" is 0 */
	char untrusted[200];      /* the first reason not to trust, or "" */
	int untrusted_at;         /* the depth of the directory it is about,
				     which ".." may leave behind; -1: for
				     good (a link, or a link in it) */
};

/* Owned by root or uid, writable by neither group nor others; else the
 * reason, into w->untrusted unless one is there, for a directory at
 * depth (-1: whatever follows). */
static void judge(struct walk *w, const struct stat *st, const char *what,
		  int depth)
{
	const char *bad = NULL;
	char owner[64];
	if (st->st_uid != 0 && st->st_uid != w->uid) {
		snprintf(owner, sizeof owner, "owned by uid %u, not root or uid %u",
			 (unsigned)st->st_uid, (unsigned)w->uid);
		bad = owner;
	} else if (!S_ISLNK(st->st_mode) && (st->st_mode & S_IWOTH)) {
		bad = "writable by others";
	} else if (!S_ISLNK(st->st_mode) && (st->st_mode & S_IWGRP)) {
		bad = "writable by its group";
	}
	if (!bad || w->untrusted[0])
		return;
	snprintf(w->untrusted, sizeof w->untrusted, "%.100s is %s (mode %04o)",
		 what[0] ? what : "/", bad, (unsigned)(st->st_mode & 07777));
	w->untrusted_at = depth;
}

/* Move to the directory fd (already opened from w->dir), named name. */
static int enter(struct walk *w, int fd, const char *name)
{
	struct stat st;
	if (fstat(fd, &st)) {
		close(fd);
		return -1;
	}
	size_t len = strlen(w->shown);
	if (!strcmp(name, "..")) {
		char *slash = strrchr(w->shown, '/');
		*(slash ? slash : w->shown) = '\0';
		w->depth -= w->depth > 0;
		/* A directory the path only passed through is behind it:
		 * nobody who can write it can change where ".." leads. */
		if (w->untrusted_at > w->depth)
			w->untrusted[0] = '\0';
	} else {
		if (len + 1 + strlen(name) < sizeof w->shown)
			snprintf(w->shown + len, sizeof w->shown - len, "/%s", name);
		w->depth++;
	}
	judge(w, &st, w->shown, w->depth);
	close(w->dir);
	w->dir = fd;
	return 0;
}

/* name's path in the directory resolved so far, into w->where (cut
 * short, for the reasons only, where it would not fit). */
static const char *name_in(struct walk *w, const char *name)
{
	snprintf(w->where, sizeof w->where, "%.3800s/%.255s", w->shown, name);
	return w->where;
}

/* Start (again) at "/": for the path, and for a link's absolute target.
 * The root is opened as /proc/self/root where /proc is there: qemu-user
 * with a sysroot (QEMU_LD_PREFIX) hands a program that opens "/" the
 * sysroot's directory instead, and every name below it would then be
 * missing. */
static int at_root(struct walk *w)
{
	int fd = open("/proc/self/root", O_PATH | O_DIRECTORY | O_CLOEXEC);
	if (fd < 0)
		fd = open("/", O_PATH | O_DIRECTORY | O_CLOEXEC);
	if (fd < 0)
		return -1;
	if (w->dir >= 0)
		close(w->dir);
	w->dir = -1;
	w->shown[0] = '\0';
	w->depth = 0;
	struct stat st;
	if (fstat(fd, &st)) {
		close(fd);
		return -1;
	}
	judge(w, &st, "/", 0);
	w->dir = fd;
	return 0;
}

/* The link name in w->dir, whose stat is st: its target goes before
 * what is left of the path (w->rest). */
static int follow(struct walk *w, const char *name, const struct stat *st)
{
	if (++w->links > TRUST_MAX_LINKS) {
		errno = ELOOP;
		return -1;
	}
	/* A link in an untrusted directory, or an untrusted link, may lead
	 * anywhere its owner likes: nothing after it is trusted. */
	if (w->untrusted[0])
		w->untrusted_at = -1;
	judge(w, st, name_in(w, name), -1);
	ssize_t n = readlinkat(w->dir, name, w->where, sizeof w->where - 1);
	if (n < 0)
		return -1;
	size_t rest = strlen(w->rest);
	if ((size_t)n + 1 + rest >= sizeof w->rest) {
		errno = ENAMETOOLONG;
		return -1;
	}
	memmove(w->rest + n + 1, w->rest, rest + 1);
	memcpy(w->rest, w->where, (size_t)n);
	w->rest[n] = '/';
	return w->where[0] == '/' ? at_root(w) : 0;
}

/* Take the next component of w->rest into name[NAME_MAX + 1]; returns
 * 0 at the end, -1 (ENAMETOOLONG) for a name too long to be one. */
static int next_component(struct walk *w, char *name, int *last)
{
	char *s = w->rest;
	while (*s == '/')
		s++;
	size_t n = strcspn(s, "/");
	if (!n)
		return 0;
	if (n > NAME_MAX) {
		errno = ENAMETOOLONG;
		return -1;
	}
	memcpy(name, s, n);
	name[n] = '\0';
	s += n;
	while (*s == '/')
		s++;
	*last = !*s;
	memmove(w->rest, s, strlen(s) + 1);
	return 1;
}

/* The last component: a regular file, opened without following a link,
 * and the same file the walk looked at. */
static int open_file(struct walk *w, const char *name, const struct stat *seen,
		     char *why, size_t len)
{
	if (!S_ISREG(seen->st_mode)) {
		snprintf(why, len, "not a regular file");
		errno = EINVAL;
		return -1;
	}
	name_in(w, name);
	if (w->untrusted[0])
		goto untrusted;
	int fd = openat(w->dir, name, O_RDONLY | O_NONBLOCK | O_NOFOLLOW | O_CLOEXEC);
	struct stat st;
	if (fd < 0 || fstat(fd, &st)) {
		snprintf(why, len, "cannot open: %s", strerror(errno));
		if (fd >= 0)
			close(fd);
		return -1;
	}
	judge(w, &st, w->where, -1);
	if (!S_ISREG(st.st_mode) || st.st_ino != seen->st_ino ||
	    st.st_dev != seen->st_dev) {
		close(fd);
		snprintf(why, len, "changed while it was opened");
		errno = EAGAIN;
		return -1;
	}
	if (!w->untrusted[0])
		return fd;
	close(fd);
untrusted:
	snprintf(why, len, "not trusted: %s", w->untrusted);
	errno = EPERM;
	return -1;
}

/* Resolve w->rest component by component; the file's descriptor, or -1
 * with errno and, where it says more than errno, why. */
static int walk(struct walk *w, char *why, size_t len)
{
	char name[NAME_MAX + 1];
	int last, more;
	while ((more = next_component(w, name, &last)) > 0) {
		struct stat st;
		if (!strcmp(name, "."))
			continue;
		if (strcmp(name, "..") &&
		    fstatat(w->dir, name, &st, AT_SYMLINK_NOFOLLOW))
			return -1;
		if (strcmp(name, "..") && S_ISLNK(st.st_mode)) {
			if (follow(w, name, &st))
				return -1;
			continue;
		}
		if (last && strcmp(name, ".."))
			return open_file(w, name, &st, why, len);
		int fd = openat(w->dir, name, O_PATH | O_DIRECTORY | O_NOFOLLOW |
					      O_CLOEXEC);
		if (fd < 0 || enter(w, fd, name))
			return -1;
		if (last)
			break;
	}
	if (more >= 0)
		errno = EISDIR;  /* the path names a directory */
	return -1;
}

/* w->rest: path, absolute; w->dir: "/".  A relative path is walked from
 * "/" too: the directories above the working directory are as much on
 * the way.  0, or -1 with errno. */
static int start(struct walk *w, const char *path)
{
	size_t cwd = 0;
	if (path[0] != '/') {
		if (!getcwd(w->rest, sizeof w->rest))
			return -1;
		cwd = strlen(w->rest);
	}
	if (cwd + 1 + strlen(path) >= sizeof w->rest) {
		errno = ENAMETOOLONG;
		return -1;
	}
	snprintf(w->rest + cwd, sizeof w->rest - cwd, "%s%s", cwd ? "/" : "", path);
	return at_root(w);
}

int ntm_profile_open(const char *path, char *why, size_t why_len)
{
	struct walk w;
	memset(&w, 0, sizeof w);
	w.dir = -1;
	w.uid = geteuid();
	why[0] = '\0';
	int fd = start(&w, path) ? -1 : walk(&w, why, why_len);
	int e = errno;
	if (w.dir >= 0)
		close(w.dir);
	if (fd < 0 && !why[0])
		snprintf(why, why_len, "cannot open: %s", strerror(e));
	errno = e;
	return fd;
}
