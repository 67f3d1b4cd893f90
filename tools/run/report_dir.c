/*
 * report_dir.c - the directory of "ntmem run --report"'s records.
 *
 * The shim's processes find it by the path in NTMEM_PRELOAD_REPORT, so
 * that path must stay the directory's for the whole run: in a directory
 * another user can rename entries in (one of theirs; one writable by
 * others without the sticky bit), they could swap it for a link to a
 * directory of the caller's, whose files ntmem run then read and
 * removed.  So ntmem run makes it only where no other user can change
 * what its path leads to, and once made reaches it through a descriptor
 * alone: reading, removing, and checking that the path still leads to
 * it, which the report states when it does not.  The shim checks on its
 * side that what the path leads to is a directory of the user's, closed
 * to others (preload_count.c).
 */
#define _GNU_SOURCE
#include "report_dir.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#define DIR_OPEN (O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC)

static int ours(uid_t uid)
{
	return uid == geteuid() || uid == 0;
}

/* Why another user could rename an entry owned by owner, named entry,
 * in the directory dir (whose status is st); 0 when none can. */
static int renamable(const char *dir, const struct stat *st, const char *entry,
		     uid_t owner, char *why, size_t len)
{
	if (!ours(st->st_uid))
		snprintf(why, len, "%s belongs to user %u", dir,
			 (unsigned)st->st_uid);
	else if ((st->st_mode & (S_IWGRP | S_IWOTH)) && !(st->st_mode & S_ISVTX))
		snprintf(why, len, "%s is writable by %s and not sticky (mode "
			 "%04o)", dir, st->st_mode & S_IWOTH ? "every user" : "its group",
			 (unsigned)(st->st_mode & 07777));
	else if ((st->st_mode & (S_IWGRP | S_IWOTH)) && !ours(owner))
		snprintf(why, len, "%s belongs to user %u, in the sticky %s", entry,
			 (unsigned)owner, dir);
	else
		return 0;
	return 1;
}

/* The check of report_dir_trusted() on real, dir resolved: each
 * directory from / down, against the next one's owner; the last against
 * the record directory's, this user.  named: how messages name dir. */
static int trusted_path(const char *real, const char *named, const char *label,
			struct cli_error *e)
{
	char dir[PATH_MAX] = "/", entry[PATH_MAX], why[2 * PATH_MAX + 128];
	struct stat up, st;
	int refused = 0;
	if (lstat(dir, &up))
		return cli_error(e, CLI_FAILED, "/: %s", strerror(errno));
	for (size_t end = 1; strcmp(real, "/") && !refused && end < sizeof entry; end++) {
		if (real[end] != '/' && real[end])
			continue;
		snprintf(entry, sizeof entry, "%.*s", (int)end, real);
		if (lstat(entry, &st) || !S_ISDIR(st.st_mode))
			return cli_error(e, CLI_USAGE, "%s: %s changed while it was "
					 "checked", named, entry);
		refused = renamable(dir, &up, entry, st.st_uid, why, sizeof why);
		snprintf(dir, sizeof dir, "%s", entry);
		up = st;
		if (!real[end])
			break;
	}
	if (!refused && !renamable(dir, &up, "", geteuid(), why, sizeof why))
		return 0;
	return cli_error(e, CLI_USAGE, "%s: %s: another user could swap the "
			 "record directory of ntmem run --report, or a directory "
			 "above it, for a link elsewhere; give %s a directory that "
			 "only you and root can change", named, why,
			 label ? label : "TMPDIR");
}

int report_dir_trusted(const char *dir, const char *label, struct cli_error *e)
{
	char real[PATH_MAX], named[PATH_MAX + 64];
	snprintf(named, sizeof named, "%s%s%s", label ? label : "",
		 label ? "=" : "", dir);
	if (!realpath(dir, real))
		return cli_error(e, CLI_USAGE, "%s: %s", named, strerror(errno));
	return trusted_path(real, named, label, e);
}

/* The directory just made, by its name in d->parent: this user's, closed
 * to others, and not a link. */
static int open_made(struct report_dir *d)
{
	struct stat st;
	snprintf(d->name, sizeof d->name, "%s", strrchr(d->path, '/') + 1);
	d->fd = openat(d->parent, d->name, DIR_OPEN);
	if (d->fd >= 0 && !fstat(d->fd, &st) && st.st_uid == geteuid() &&
	    !(st.st_mode & 077))
		return 0;
	if (d->fd >= 0)
		close(d->fd);
	d->fd = -1;
	errno = EPERM;
	return -1;
}

int report_dir_make(struct report_dir *d, struct cli_error *e)
{
	const char *tmp = getenv("TMPDIR"), *label = "TMPDIR";
	char real[PATH_MAX];
	d->parent = d->fd = -1;
	d->name[0] = '\0';
	if (!tmp || tmp[0] != '/' || access(tmp, W_OK | X_OK)) {
		tmp = "/tmp";
		label = NULL;
	}
	if (report_dir_trusted(tmp, label, e))
		return -1;
	if (!realpath(tmp, real) ||
	    (size_t)snprintf(d->path, sizeof d->path, "%s/ntmem-run.XXXXXX",
			     strcmp(real, "/") ? real : "") >= sizeof d->path ||
	    (d->parent = open(real, DIR_OPEN)) < 0 || !mkdtemp(d->path) ||
	    open_made(d)) {
		int err = errno;
		if (d->name[0] && d->fd < 0)  /* made, but not as it should be */
			unlinkat(d->parent, d->name, AT_REMOVEDIR);
		report_dir_remove(d);
		return cli_error(e, CLI_FAILED, "--report: cannot make a directory "
				 "for the records in %s: %s", tmp, strerror(err));
	}
	return 0;
}

int report_dir_intact(const struct report_dir *d)
{
	struct stat named, held;
	return !lstat(d->path, &named) && !fstat(d->fd, &held) &&
	       named.st_dev == held.st_dev && named.st_ino == held.st_ino;
}

void report_dir_remove(struct report_dir *d)
{
	int fd = d->fd >= 0 ? openat(d->fd, ".", DIR_OPEN) : -1;
	DIR *dir = fd >= 0 ? fdopendir(fd) : NULL;
	struct dirent *de;
	while (dir && (de = readdir(dir)))
		if (strcmp(de->d_name, ".") && strcmp(de->d_name, ".."))
			unlinkat(d->fd, de->d_name, 0);
	if (dir)
		closedir(dir);
	else if (fd >= 0)
		close(fd);
	/* Its name, where that is still it: a directory put in its place
	 * stays. */
	struct stat named, held;
	if (d->parent >= 0 && d->fd >= 0 && !fstat(d->fd, &held) &&
	    !fstatat(d->parent, d->name, &named, AT_SYMLINK_NOFOLLOW) &&
	    named.st_dev == held.st_dev && named.st_ino == held.st_ino)
		unlinkat(d->parent, d->name, AT_REMOVEDIR);
	if (d->fd >= 0)
		close(d->fd);
	if (d->parent >= 0)
		close(d->parent);
	d->fd = d->parent = -1;
}
