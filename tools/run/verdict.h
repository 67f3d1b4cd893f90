/* verdict.h - the one sentence per call class that ends "ntmem run
 * --report": where the program's bytes were, where this machine's ladder
 * streams, and whether streaming applies to the program. */
#ifndef NTM_RUN_VERDICT_H
#define NTM_RUN_VERDICT_H

#include <stdint.h>

#include "records.h"

/* Does streaming apply to this program, for one call class? */
struct verdict {
	int cls;                            /* enum ntmem_class */
	uint64_t calls, bytes;
	uint64_t streamed_calls, streamed_bytes;   /* by streaming rungs */
	/* Where the command's ladder first streams: [from, to), to 0 when
	 * it streams on to the end; from 0 when it never streams.  A ladder
	 * may stream again above a cached rung: the text says so. */
	uint64_t streams_from, streams_to;
	const char *stream_variant;         /* the first streaming rung's */
	/* The fewest adjacent buckets holding 90% of the bytes (of the
	 * calls, if no call wrote a byte), and that share. */
	unsigned lo, hi;
	double window_share;
	char text[768];
};

/* "memset of zeros", "memset of other values", "copies": cls as the
 * report names it. */
const char *verdict_class_name(int cls);

/* Fill *v for cls, the sentence in v->text; returns 0 when the tree has
 * no call of the class.  It reads the ladder of the tree's header and
 * the counts per path: a path that streams is one whose variant does. */
int report_verdict(const struct tree *t, int cls, struct verdict *v);

#endif
