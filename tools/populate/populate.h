/* populate.h - "ntmem populate": its options, apart so the tests can
 * parse them and check the default size. */
#ifndef NTM_POPULATE_H
#define NTM_POPULATE_H

#include <stddef.h>

#include "measure/measure.h"
#include "output/cli.h"

#define MAX_RUNS 100

enum method { TOUCH, MADVISE, NTMEM, NMETHODS };

struct populate_opts {
	size_t size;
	int size_default;   /* no --size: populate_default_size() */
	enum page_request pages;
	long threads;       /* for ntmem; the others run on one */
	long asked;         /* threads asked for, when more than it can use */
	size_t least;       /* the least a thread of one call gets */
	long runs;
	int json, help;
	int progress;       /* a line on stderr, a terminal, per run */
	const char *skipped[NMETHODS];  /* why a method cannot run, or NULL */
	double gbps[NMETHODS][MAX_RUNS];
	char obtained[NMETHODS][64];    /* the pages each method got */
};

/* The size without --size: 1 GiB, or where less than twice that is
 * available, the largest power of two up to half of budget (one mapping
 * is held at a time; the other half is left to everything else), and
 * never under 2 MiB. */
size_t populate_default_size(size_t budget);

/* Parse argv (argv[0] is "populate") into *o and check it against the
 * memory available.  Returns 0, or -1 with a usage error naming the
 * argument. */
int populate_parse(int argc, char **argv, struct populate_opts *o,
		   struct cli_error *e);

#endif
