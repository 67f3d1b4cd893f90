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

/* The report as text (to ntmem run's standard error) and as JSON.
 * command is the command line, NULL-terminated. */
void report_text(FILE *f, const struct tree *t, const struct run_outcome *o,
		 char *const *command);
void report_json(FILE *f, const struct tree *t, const struct run_outcome *o,
		 char *const *command);

#endif
