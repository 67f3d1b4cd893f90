/*
 * records_lost.c - the processes the records cannot show, for the report
 * to count instead of leaving out unsaid:
 *
 *   - a process that could make no record (no space left in TMPDIR, no
 *     descriptor left, no memory for the mapping) leaves a marker, a
 *     symbolic link PID-SEQ.lost to "errno=N" (record.h);
 *   - a fork child that could not leave even that is counted in its
 *     parent's record (lost_children, lost_errno);
 *   - a process still alive whose latest record's program is no longer
 *     the one running, with no shim mapped: it exec'd a program without
 *     the shim (LD_PRELOAD cleared, or a static or setuid program), whose
 *     calls nothing counts.
 */
#define _GNU_SOURCE
#include "records.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define SHIM_NAME "/libntmem-preload.so"

/* Make room for one more element of size in *array. */
static int grow(void **array, size_t n, size_t *cap, size_t size)
{
	if (n < *cap)
		return 0;
	size_t more = *cap ? 2 * *cap : 16;
	void *grown = realloc(*array, more * size);
	if (!grown)
		return -1;
	*array = grown;
	*cap = more;
	return 0;
}

int tree_note_marker(struct tree *t, int dirfd, const char *name, long pid)
{
	char target[64];
	ssize_t n = readlinkat(dirfd, name, target, sizeof target - 1);
	target[n > 0 ? n : 0] = '\0';
	int err = 0;
	if (!strncmp(target, NTM_LOST_PREFIX, strlen(NTM_LOST_PREFIX)))
		err = atoi(target + strlen(NTM_LOST_PREFIX));
	if (grow((void **)&t->lost, t->nlost, &t->lost_cap, sizeof *t->lost))
		return -1;
	t->lost[t->nlost++] = (struct tree_lost){.pid = pid, .err = err};
	return 0;
}

void tree_note_lost_children(struct tree *t, const struct ntm_record *r)
{
	unsigned n = __atomic_load_n(&r->lost_children, __ATOMIC_RELAXED);
	if (!n)
		return;
	t->lost_in_parents += n;
	t->lost_in_parents_errno = __atomic_load_n(&r->lost_errno, __ATOMIC_RELAXED);
}

/* pid is a zombie (its mappings are gone) or gone: nothing to look at. */
static int ended(long pid)
{
	char path[64], buf[512];
	snprintf(path, sizeof path, "/proc/%ld/stat", pid);
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return 1;
	ssize_t n = read(fd, buf, sizeof buf - 1);
	close(fd);
	buf[n > 0 ? n : 0] = '\0';
	const char *state = strrchr(buf, ')');
	return !state || state[1] != ' ' || state[2] == 'Z' || state[2] == 'X';
}

/* 1 when pid maps no shim; 0 when it does or cannot be looked at (a
 * process of another user, a setuid one). */
static int maps_no_shim(long pid)
{
	char path[64], line[PATH_MAX + 128];
	snprintf(path, sizeof path, "/proc/%ld/maps", pid);
	FILE *f = fopen(path, "re");
	if (!f)
		return 0;
	int shim = 0, lines = 0;
	while (!shim && fgets(line, sizeof line, f)) {
		lines++;
		shim = strstr(line, SHIM_NAME) != NULL;
	}
	fclose(f);
	return lines && !shim;
}

int tree_seen_without_shim(const struct tree *t, long pid, unsigned seq)
{
	for (size_t i = 0; i < t->nseen; i++)
		if (t->seen[i].pid == pid && t->seen[i].seq == seq)
			return 1;
	return 0;
}

void tree_check_shim(struct tree *t, long pid, unsigned seq)
{
	if (tree_seen_without_shim(t, pid, seq) || ended(pid) || !maps_no_shim(pid))
		return;
	if (grow((void **)&t->seen, t->nseen, &t->seen_cap, sizeof *t->seen))
		return;  /* out of memory: the standing note still says it */
	t->seen[t->nseen++] = (struct tree_seen){.pid = pid, .seq = seq};
}

void tree_lost_free(struct tree *t)
{
	free(t->lost);
	free(t->seen);
	t->lost = NULL;
	t->seen = NULL;
	t->nlost = t->lost_cap = t->nseen = t->seen_cap = 0;
}

static int recorded(const struct tree *t, long pid)
{
	for (size_t i = 0; i < t->nproc; i++)
		if (t->proc[i].pid == pid)
			return 1;
	return 0;
}

static void add_why(struct tree_lost_why *why, size_t max, size_t *nwhy,
		    int err, unsigned processes)
{
	size_t i = 0;
	while (i < *nwhy && why[i].err != err)
		i++;
	if (i == *nwhy) {
		if (i == max)
			return;
		why[(*nwhy)++] = (struct tree_lost_why){.err = err};
	}
	why[i].processes += processes;
}

unsigned tree_lost_processes(const struct tree *t, struct tree_lost_why *why,
			     size_t max, size_t *nwhy)
{
	unsigned n = 0;
	*nwhy = 0;
	for (size_t i = 0; i < t->nlost; i++) {
		int first = 1;  /* a pid's markers: a fork child, then its exec */
		for (size_t k = 0; k < i && first; k++)
			first = t->lost[k].pid != t->lost[i].pid;
		if (!first || recorded(t, t->lost[i].pid))
			continue;
		n++;
		add_why(why, max, nwhy, t->lost[i].err, 1);
	}
	if (t->lost_in_parents)
		add_why(why, max, nwhy, t->lost_in_parents_errno, t->lost_in_parents);
	return n + t->lost_in_parents;
}

unsigned tree_without_shim(const struct tree *t)
{
	unsigned n = 0;
	for (size_t i = 0; i < t->nproc; i++)
		n += t->proc[i].without_shim;
	return n;
}
