/*
 * records.c - merging the report directory's records into one tree.
 *
 * A record is final once its process has ended (no process has its pid)
 * or has exec'd (a record with the same pid and a later sequence number
 * exists).  ntmem run folds final records while the command runs, so a
 * long build holds files only for the processes still alive, and folds
 * the rest once the command has ended.
 */
#define _GNU_SOURCE
#include "records.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "introspect.h"

void tree_init(struct tree *t)
{
	t->proc = NULL;
	t->nproc = t->cap = 0;
	t->dir_replaced = 0;
	t->minor_faults = -1;
}

void tree_free(struct tree *t)
{
	free(t->proc);
	t->proc = NULL;
	t->nproc = t->cap = 0;
	tree_lost_free(t);
}

enum shim_fn tree_line_function(unsigned line)
{
	return (enum shim_fn)(line < SHIM_FUNCTIONS ? line : line - SHIM_FUNCTIONS);
}

int tree_line_class(unsigned line)
{
	if (line >= SHIM_FUNCTIONS)
		return NTMEM_CLASS_SET_NONZERO;
	return ntm_shim_op((int)line) == NTMEM_OP_COPY ? NTMEM_CLASS_COPY
						       : NTMEM_CLASS_SET_ZERO;
}

const char *tree_path_name(unsigned key)
{
	if (key == NTM_PATH_SMALL)
		return "small path";
	if (key == NTM_PATH_BASELINE)
		return "before the policy";
	if (key == NTM_PATH_OVERLAP)
		return "overlap: libc memmove";
	const struct variant *v = ntm_variant((int)(key - NTM_PATH_VARIANT));
	return v ? v->name : "?";
}

int tree_path_streams(unsigned key)
{
	const struct variant *v =
		key >= NTM_PATH_VARIANT ? ntm_variant((int)(key - NTM_PATH_VARIANT)) : NULL;
	return v && ntm_streams(v);
}

/* A record file's name, PID-SEQ.rec, or a marker's, PID-SEQ.lost. */
struct entry {
	long pid;
	unsigned seq;
	int lost;
	char name[64];
};

static int parse_name(const char *name, struct entry *en)
{
	int end = 0;
	if (sscanf(name, "%ld-%u%n", &en->pid, &en->seq, &end) != 2 ||
	    strlen(name) >= sizeof en->name)
		return -1;
	en->lost = !strcmp(name + end, NTM_LOST_SUFFIX);
	if (!en->lost && strcmp(name + end, NTM_RECORD_SUFFIX))
		return -1;
	strcpy(en->name, name);
	return 0;
}

/* The record files in the directory dirfd holds, into *out (malloc'd). */
static int list_records(int dirfd, struct entry **out, size_t *n,
			struct cli_error *e)
{
	int fd = openat(dirfd, ".", O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	DIR *d = fd >= 0 ? fdopendir(fd) : NULL;
	if (!d) {
		int err = errno;
		if (fd >= 0)
			close(fd);
		return cli_error(e, CLI_FAILED, "the report directory: %s",
				 strerror(err));
	}
	size_t cap = 0;
	*out = NULL;
	*n = 0;
	struct dirent *de;
	while ((de = readdir(d))) {
		struct entry en;
		if (parse_name(de->d_name, &en))
			continue;
		if (*n == cap) {
			cap = cap ? 2 * cap : 64;
			struct entry *grown = realloc(*out, cap * sizeof **out);
			if (!grown) {
				closedir(d);
				return cli_error(e, CLI_FAILED, "out of memory");
			}
			*out = grown;
		}
		(*out)[(*n)++] = en;
	}
	closedir(d);
	return 0;
}

static int superseded(const struct entry *all, size_t n, const struct entry *en)
{
	for (size_t i = 0; i < n; i++)
		if (all[i].pid == en->pid && all[i].seq > en->seq)
			return 1;
	return 0;
}

static int alive(long pid)
{
	return kill((pid_t)pid, 0) == 0 || errno == EPERM;
}

/* Read a whole record; NULL if the file is not one. */
static struct ntm_record *read_record(int dirfd, const char *name)
{
	int fd = openat(dirfd, name, O_RDONLY | O_CLOEXEC | O_NOFOLLOW);
	struct stat st;
	struct ntm_record *r = NULL;
	if (fd < 0)
		return NULL;
	if (fstat(fd, &st) == 0 && st.st_size == (off_t)sizeof *r &&
	    (r = malloc(sizeof *r)) &&
	    pread(fd, r, sizeof *r, 0) != (ssize_t)sizeof *r) {
		free(r);
		r = NULL;
	}
	close(fd);
	if (r && (memcmp(r->magic, NTM_RECORD_MAGIC, sizeof NTM_RECORD_MAGIC) ||
		  r->size != sizeof *r)) {
		free(r);
		r = NULL;
	}
	return r;
}

static int add_process(struct tree *t, const struct tree_process *p)
{
	if (t->nproc == t->cap) {
		size_t cap = t->cap ? 2 * t->cap : 64;
		struct tree_process *grown = realloc(t->proc, cap * sizeof *grown);
		if (!grown)
			return -1;
		t->proc = grown;
		t->cap = cap;
	}
	t->proc[t->nproc++] = *p;
	return 0;
}

/* The key of path slot in r: the variant its slot names, or the slot
 * itself; -1 for a variant past the record's slots. */
static int path_key(const struct ntm_record *r, unsigned slot)
{
	if (slot < NTM_PATH_VARIANT)
		return (int)slot;
	int id = r->variant[slot - NTM_PATH_VARIANT];
	if (id < 0 || id >= TREE_VARIANTS_MAX)
		return -1;
	return NTM_PATH_VARIANT + id;
}

static void keep_header(struct tree *t, const struct ntm_record *r,
			int is_command)
{
	if (t->have_header && strcmp(t->header.policy, r->policy))
		t->policies_differ = 1;
	if (t->have_header && (t->header_is_command || !is_command))
		return;
	memcpy(&t->header, r, offsetof(struct ntm_record, cell));
	t->have_header = 1;
	t->header_is_command = is_command;
}

static int fold_record(struct tree *t, const struct ntm_record *r,
		       const struct entry *en, long command_pid, int is_superseded)
{
	struct tree_process p = {.pid = en->pid, .ppid = (long)r->ppid,
				 .seq = en->seq, .superseded = is_superseded};
	snprintf(p.program, sizeof p.program, "%s", r->program);
	p.exited = __atomic_load_n(&r->exited, __ATOMIC_ACQUIRE) != 0;
	p.running = !p.exited && !is_superseded && alive(en->pid);
	p.without_shim = !is_superseded && tree_seen_without_shim(t, en->pid, en->seq);
	tree_note_lost_children(t, r);
	for (unsigned line = 0; line < NTM_RECORD_LINES; line++)
		for (unsigned k = 0; k < NTM_RECORD_BUCKETS; k++) {
			for (unsigned s = 0; s < NTM_PATHS; s++) {
				const struct ntm_record_cell *c = &r->cell[line][k][s];
				int key = path_key(r, s);
				if (!c->calls || key < 0)
					continue;
				t->line[line].cell[k][key].calls += c->calls;
				t->line[line].cell[k][key].bytes += c->bytes;
				p.calls += c->calls;
				p.bytes += c->bytes;
			}
			t->line[line].time[k].calls += r->time[line][k].calls;
			t->line[line].time[k].ns += r->time[line][k].ns;
		}
	for (int cls = 0; cls < NTMEM_CLASSES; cls++) {
		const struct ntm_record_learning *from = &r->learning[cls];
		struct ntm_record_learning *to = &t->learning[cls];
		for (unsigned k = 0; k < NTM_LEARN_BANDS; k++)
			to->losing[k] += from->losing[k];
		to->timed += from->timed;
		to->clock_ns += from->clock_ns;
	}
	keep_header(t, r, en->pid == command_pid && en->seq == 0);
	return add_process(t, &p);
}

int tree_fold(struct tree *t, int dirfd, long command_pid, int final,
	      struct cli_error *e)
{
	struct entry *all = NULL;
	size_t n = 0;
	if (list_records(dirfd, &all, &n, e))
		return -1;
	int rc = 0;
	for (size_t i = 0; !rc && i < n; i++) {
		int gone = superseded(all, n, &all[i]);
		if (all[i].lost) {  /* kept to the end: it orders the pid's records */
			if (final && tree_note_marker(t, dirfd, all[i].name, all[i].pid))
				rc = cli_error(e, CLI_FAILED, "out of memory");
			if (final)
				unlinkat(dirfd, all[i].name, 0);
			continue;
		}
		if (!gone && alive(all[i].pid)) {
			tree_check_shim(t, all[i].pid, all[i].seq);
			if (!final)
				continue;
		}
		struct ntm_record *r = read_record(dirfd, all[i].name);
		if (!r)
			t->unreadable++;
		else if (fold_record(t, r, &all[i], command_pid, gone))
			rc = cli_error(e, CLI_FAILED, "out of memory");
		free(r);
		unlinkat(dirfd, all[i].name, 0);
	}
	free(all);
	return rc;
}

size_t tree_programs(const struct tree *t, struct tree_program *out,
		     size_t max)
{
	size_t n = 0;
	for (size_t i = 0; i < t->nproc; i++) {
		const struct tree_process *p = &t->proc[i];
		if (p->superseded && !p->calls)
			continue;  /* a fork on its way to exec */
		size_t j = 0;
		while (j < n && strcmp(out[j].name, p->program))
			j++;
		if (j == n) {
			if (n == max)
				continue;
			memset(&out[n], 0, sizeof out[n]);
			snprintf(out[n].name, sizeof out[n].name, "%s", p->program);
			n++;
		}
		int seen = 0;  /* one process, this program twice (exec) */
		for (size_t k = 0; k < i && !seen; k++) {
			const struct tree_process *q = &t->proc[k];
			seen = q->pid == p->pid && (q->calls || !q->superseded) &&
			       !strcmp(q->program, p->program);
		}
		out[j].processes += !seen;
		out[j].calls += p->calls;
		out[j].bytes += p->bytes;
	}
	return n;
}
