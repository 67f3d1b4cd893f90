/* report.h - what "ntmem run --report" says of a merged tree: the
 * programs, each function's calls by size with the path that served
 * them, the time of the larger calls, and a verdict per call class
 * (verdict.h). */
#ifndef NTM_RUN_REPORT_H
#define NTM_RUN_REPORT_H

#include <stdint.h>
#include <stdio.h>

#include "measure/supervise.h"
#include "records.h"
#include "verdict.h"

/* The processes the records cannot show (report_lost.c).  The verdict
 * is complete when every process that loaded the shim kept its record;
 * partial when some left none or went on to run a program without the
 * shim, fewer than those recorded: it is drawn from the recorded ones and
 * says so; withheld when they are as many as those recorded, or when the
 * record directory was replaced (how many are missing is not known). */
enum verdict_basis { VERDICT_COMPLETE, VERDICT_PARTIAL, VERDICT_WITHHELD };
enum verdict_basis report_verdict_basis(const struct tree *t);

/* "N processes left no record (why)", "N went on without the shim" and
 * that the record directory was replaced; returns 1 if it printed any. */
int report_lost_text(FILE *f, const struct tree *t);

/* The line no report can leave out: programs that never load the shim
 * are not seen. */
void report_unseen_text(FILE *f);

/* The verdict's heading, by its basis; 0 when withheld (the heading said
 * so, and no verdict follows). */
int report_verdict_heading(FILE *f, const struct tree *t);

/* processes_without_record, without_record (per reason),
 * processes_without_shim, record_directory_replaced and verdict_basis. */
struct json;
void report_lost_json(struct json *j, const struct tree *t);

/* What learning on real calls cost the command (report_learning.c): a
 * line per class that learned, and its JSON array "learning". */
void report_learning_text(FILE *f, const struct tree *t);
void report_learning_json(struct json *j, const struct tree *t);

/* The report as text (to ntmem run's standard error) and as JSON.
 * command is the command line, NULL-terminated. */
void report_text(FILE *f, const struct tree *t, const struct run_outcome *o,
		 char *const *command);
void report_json(FILE *f, const struct tree *t, const struct run_outcome *o,
		 char *const *command);

#endif
