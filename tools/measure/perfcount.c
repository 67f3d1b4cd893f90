/* perfcount.c - perf_event_open(2) cache counters with an honest
 * fallback. */
#define _GNU_SOURCE
#include "perfcount.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#ifdef __linux__
#include <linux/perf_event.h>
#include <sys/syscall.h>
#endif

/* kernel.perf_event_paranoid, as text, or "unreadable". */
static void paranoid_level(char *buf, size_t len)
{
	snprintf(buf, len, "unreadable");
	FILE *f = fopen("/proc/sys/kernel/perf_event_paranoid", "re");
	if (!f)
		return;
	char line[32];
	if (fgets(line, sizeof line, f)) {
		line[strcspn(line, "\n")] = '\0';
		snprintf(buf, len, "%s", line);
	}
	fclose(f);
}

static void unavailable(struct perfcount *pc, int err, const char *what)
{
	const char *hint = "";
	switch (err) {
	case ENOENT:
	case EOPNOTSUPP:
	case ENODEV:
		hint = " (the kernel offers no hardware cache events here: "
		       "no PMU exposed, as in many virtual machines)";
		break;
	case EACCES:
	case EPERM:
		hint = " (not permitted: lower kernel.perf_event_paranoid or "
		       "grant CAP_PERFMON)";
		break;
	case ENOSYS:
		hint = " (this kernel has no perf events)";
		break;
	}
	char level[32];
	paranoid_level(level, sizeof level);
	snprintf(pc->reason, sizeof pc->reason,
		 "perf_event_open(%s): %s%s; kernel.perf_event_paranoid=%s",
		 what, strerror(err), hint, level);
}

#ifdef __linux__
static int open_event(uint64_t config, int group)
{
	struct perf_event_attr a;
	memset(&a, 0, sizeof a);
	a.size = sizeof a;
	a.type = PERF_TYPE_HARDWARE;
	a.config = config;
	a.exclude_kernel = 1;
	a.exclude_hv = 1;
	if (group < 0) {
		a.pinned = 1;  /* counts whole or not at all: never scaled */
		a.read_format = PERF_FORMAT_GROUP;
	}
	return (int)syscall(SYS_perf_event_open, &a, 0, -1, group, 0);
}
#endif

int perfcount_open(struct perfcount *pc)
{
	memset(pc, 0, sizeof *pc);
	pc->fd = pc->fd_refs = -1;
	const char *off = getenv("NTMEM_NO_PERF");
	if (off && *off && strcmp(off, "0")) {
		snprintf(pc->reason, sizeof pc->reason,
			 "disabled by NTMEM_NO_PERF");
		return -1;
	}
#ifdef __linux__
	pc->fd = open_event(PERF_COUNT_HW_CACHE_MISSES, -1);
	if (pc->fd < 0) {
		unavailable(pc, errno, "cache-misses");
		return -1;
	}
	pc->fd_refs = open_event(PERF_COUNT_HW_CACHE_REFERENCES, pc->fd);
	if (pc->fd_refs < 0) {
		int err = errno;
		close(pc->fd);
		pc->fd = -1;
		unavailable(pc, err, "cache-references");
		return -1;
	}
	struct perf_values v;
	pc->available = 1;
	if (perfcount_read(pc, &v)) {
		perfcount_close(pc);
		snprintf(pc->reason, sizeof pc->reason,
			 "perf_event_open: the counters opened but could not "
			 "be read (the PMU is busy with other events)");
		return -1;
	}
	return 0;
#else
	snprintf(pc->reason, sizeof pc->reason,
		 "perf_event_open: not a Linux system");
	return -1;
#endif
}

int perfcount_read(const struct perfcount *pc, struct perf_values *v)
{
	memset(v, 0, sizeof *v);
	if (!pc->available)
		return -1;
	/* PERF_FORMAT_GROUP: nr, then one value per event in group order.
	 * A pinned group that lost the PMU reads as end of file. */
	uint64_t buf[3];
	ssize_t got = read(pc->fd, buf, sizeof buf);
	if (got != (ssize_t)sizeof buf || buf[0] != 2)
		return -1;
	v->misses = buf[1];
	v->refs = buf[2];
	return 0;
}

void perfcount_close(struct perfcount *pc)
{
	if (pc->fd_refs >= 0)
		close(pc->fd_refs);
	if (pc->fd >= 0)
		close(pc->fd);
	pc->fd = pc->fd_refs = -1;
	if (pc->available) {
		pc->available = 0;
		snprintf(pc->reason, sizeof pc->reason, "counters closed");
	}
}
