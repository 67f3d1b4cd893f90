/* perfcount.h - hardware cache-miss and cache-reference counts from
 * perf_event_open(2), where the kernel allows them.
 *
 * Where it does not (no PMU in a virtual machine, perf_event_paranoid,
 * seccomp), the counters are unavailable and say why; nothing is ever
 * estimated.  NTMEM_NO_PERF=1 in the environment forces that path. */
#ifndef NTM_PERFCOUNT_H
#define NTM_PERFCOUNT_H

#include <stdint.h>

struct perfcount {
	int available;
	int fd;              /* group leader: cache-misses; -1 if none */
	int fd_refs;         /* member: cache-references; -1 if none */
	char reason[256];    /* why not, when !available */
};

struct perf_values {
	uint64_t misses;     /* PERF_COUNT_HW_CACHE_MISSES */
	uint64_t refs;       /* PERF_COUNT_HW_CACHE_REFERENCES */
};

/*
 * Start counting user-space cache misses and references of the calling
 * thread, both in one pinned group.  Returns 0, or -1 with pc->available
 * 0 and pc->reason set, e.g. "perf_event_open: No such file or directory
 * (...); kernel.perf_event_paranoid=2".
 */
int perfcount_open(struct perfcount *pc);

/*
 * The counts since perfcount_open; any thread may read them.  Returns 0,
 * or -1 (values zero) when unavailable or when the group lost the PMU to
 * other users and its counts would be incomplete.
 */
int perfcount_read(const struct perfcount *pc, struct perf_values *v);

void perfcount_close(struct perfcount *pc);

#endif
