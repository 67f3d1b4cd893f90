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
	uint64_t calls, bytes;
};

struct tree {
	struct tree_line line[NTM_RECORD_LINES];
	struct tree_process *proc;
	size_t nproc, cap;
	/* The header of the command's own record (else the first read): the
	 * policy the report names. */
	int have_header, header_is_command;
	struct ntm_record header;   /* header fields only; counts are zero */
	int policies_differ;        /* some process ran another policy */
	unsigned unreadable;        /* files that were not whole records */
};

/* An empty tree (the caller provides the zeroed memory: it is large). */
void tree_init(struct tree *t);
void tree_free(struct tree *t);

/*
 * Merge the records in dir into t and remove their files.  Unless final,
 * only records whose counts can no longer change: their process has
 * ended or exec'd another program.  With final, every record (the
 * command has ended; processes it left running are marked so).
 * command_pid is the process ntmem run started.  Returns 0, or -1 with a
 * CLI_FAILED error when dir cannot be read.
 */
int tree_fold(struct tree *t, const char *dir, long command_pid, int final,
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

#endif
