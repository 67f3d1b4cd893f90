/* records.h - the records the shim keeps for "ntmem run --report"
 * (src/preload/record.h), read from the report directory and merged into
 * one account of the whole process tree. */
#ifndef NTM_RUN_RECORDS_H
#define NTM_RUN_RECORDS_H

#include <stddef.h>
#include <stdint.h>

#include "output/cli.h"
#include "introspect.h"

/* Paths, merged over processes whose slots may differ: a record's slot
 * becomes the variant it names.  Keys below NTM_PATH_VARIANT are the
 * record's own; NTM_PATH_VARIANT + id is the registry's variant id. */
#define TREE_VARIANTS_MAX 64
#define TREE_PATH_KEYS (NTM_PATH_VARIANT + TREE_VARIANTS_MAX)

struct tree_line {
	struct ntm_record_cell cell[NTM_RECORD_BUCKETS][TREE_PATH_KEYS];
	struct ntm_record_time time[NTM_RECORD_BUCKETS];
};

struct tree_process {
	long pid, ppid;
	unsigned seq;          /* the pid's nth program (exec) */
	char program[64];
	int exited;            /* by exit(): its destructors ran */
	int superseded;        /* the process exec'd another program */
	int running;           /* still alive when the report was made */
	int without_shim;      /* seen running a program without the shim
				  after this record's (records_lost.c) */
	uint64_t calls, bytes;
};

/* A process that left a marker instead of a record (record.h). */
struct tree_lost {
	long pid;
	int err;               /* why its record could not be made */
};

/* A record's process seen alive, running a program without the shim. */
struct tree_seen {
	long pid;
	unsigned seq;
};

struct tree {
	struct tree_line line[NTM_RECORD_LINES];
	struct tree_process *proc;
	size_t nproc, cap;
	/* The header of the command's own record (else the first read): the
	 * policy the report names. */
	int have_header, header_is_command;
	struct ntm_record header;   /* header fields only; counts are zero */
	/* What the learning cost, summed over the processes that exited. */
	struct ntm_record_learning learning[NTMEM_CLASSES];
	int policies_differ;        /* some process ran another policy */
	unsigned unreadable;        /* files that were not whole records */
	/* What the records cannot show (records_lost.c): the markers of
	 * processes that made no record, fork children counted in their
	 * parents' records instead (they have no pid here), and records
	 * whose process was seen running a program without the shim. */
	struct tree_lost *lost;
	size_t nlost, lost_cap;
	unsigned lost_in_parents;
	int lost_in_parents_errno;
	struct tree_seen *seen;
	size_t nseen, seen_cap;
	/* What ntmem run saw besides the records: the record directory's
	 * path led elsewhere at some check (report_dir_intact()), so that
	 * processes started then could keep no record, and no count says
	 * how many; the minor page faults of the processes waited for
	 * (getrusage), -1 where not known. */
	int dir_replaced;
	long minor_faults;
};

/* An empty tree (the caller provides the zeroed memory: it is large);
 * minor_faults unknown. */
void tree_init(struct tree *t);
void tree_free(struct tree *t);

/*
 * Merge the records in the directory dirfd holds into t and remove their
 * files (through dirfd: never by a path, which another could redirect).  Unless final,
 * only records whose counts can no longer change: their process has
 * ended or exec'd another program.  With final, every record (the
 * command has ended; processes it left running are marked so).
 * command_pid is the process ntmem run started.  Returns 0, or -1 with a
 * CLI_FAILED error when the directory cannot be read.
 */
int tree_fold(struct tree *t, int dirfd, long command_pid, int final,
	      struct cli_error *e);

/* The path key's name: "small path", "overlap: memmove", a variant's name. */
const char *tree_path_name(unsigned key);

/* Whether the path key is a rung that streams. */
int tree_path_streams(unsigned key);

/* The call class of line (enum ntmem_class) and its function. */
int tree_line_class(unsigned line);
enum shim_fn tree_line_function(unsigned line);

/* Per program: processes grouped by name, each pid once (a program may
 * exec itself); a process that exec'd with no calls of its own is only
 * the start of its next program. */
struct tree_program {
	char name[64];
	unsigned processes;
	uint64_t calls, bytes;
};

/* Fill out[max] by first appearance; returns how many. */
size_t tree_programs(const struct tree *t, struct tree_program *out,
		     size_t max);

/* records_lost.c: what tree_fold() notes of processes without records. */

/* The marker name in dirfd, of process pid: its reason into t.  0, or
 * -1 when out of memory. */
int tree_note_marker(struct tree *t, int dirfd, const char *name, long pid);

/* The fork children r counted as having neither record nor marker. */
void tree_note_lost_children(struct tree *t, const struct ntm_record *r);

/* pid, whose record seq is its latest and is alive: is it running a
 * program without the shim (exec'd with LD_PRELOAD cleared, or a static
 * or setuid one)?  Noted in t if so. */
void tree_check_shim(struct tree *t, long pid, unsigned seq);

/* Was the record seq of pid's seen so? */
int tree_seen_without_shim(const struct tree *t, long pid, unsigned seq);

void tree_lost_free(struct tree *t);

/* The processes that left no record: each pid with a marker and no
 * record at all, and the children counted in parents' records.  Their
 * reasons, each errno with its count, into why[max] (how many, up to
 * max, into *nwhy). */
struct tree_lost_why {
	int err;
	unsigned processes;
};
unsigned tree_lost_processes(const struct tree *t, struct tree_lost_why *why,
			     size_t max, size_t *nwhy);

/* Processes seen running a program without the shim. */
unsigned tree_without_shim(const struct tree *t);

#endif
