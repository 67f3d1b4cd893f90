/* report.h - what "ntmem run --report" says of a merged tree: the
 * programs, each function's calls by size with the path that served
 * them, the time of the larger calls, and a verdict per call class. */
#ifndef NTM_RUN_REPORT_H
#define NTM_RUN_REPORT_H

#include <stdint.h>
#include <stdio.h>

#include "measure/supervise.h"
#include "records.h"

/* Does streaming apply to this program, for one call class? */
struct verdict {
	int cls;                            /* enum ntmem_class */
	uint64_t calls, bytes;
	uint64_t streamed_calls, streamed_bytes;   /* by streaming rungs */
	/* Where the command's ladder streams: [from, to), to 0 for no end;
	 * from 0 when it never does. */
	uint64_t streams_from, streams_to;
	const char *stream_variant;
	/* The fewest adjacent buckets holding 90% of the bytes (of the
	 * calls, if no call wrote a byte), and that share. */
	unsigned lo, hi;
	double window_share;
	char text[512];
};

/* Fill *v for cls; returns 0 when the tree has no call of the class. */
int report_verdict(const struct tree *t, int cls, struct verdict *v);

/* The report as text (to ntmem run's standard error) and as JSON.
 * command is the command line, NULL-terminated. */
void report_text(FILE *f, const struct tree *t, const struct run_outcome *o,
		 char *const *command);
void report_json(FILE *f, const struct tree *t, const struct run_outcome *o,
		 char *const *command);

#endif
