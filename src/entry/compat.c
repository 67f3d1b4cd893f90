/*
 * compat.c - the public functions whose structs changed in 0.3, as
 * programs built against 0.2 call them.  The soname stays libntmem.so.0:
 * those programs bind to the symbol version NTMEM_0 and get these, which
 * fill the struct they were built with; programs built now bind to
 * NTMEM_0.3 (src/ntmem.map), as glibc keeps old symbols for its old
 * callers.
 *
 *   ntmem_cpu_info    0.3 added the hypervisor at the end.
 *   ntmem_adapt_info  0.3 replaced the trials at contested edges with
 *                     learning on real calls, and the struct with it: a
 *                     0.2 caller is told the learning's period and that
 *                     no edge takes part in trials, which is true.
 */
#include <errno.h>
#include <string.h>

#include "dispatch/learn.h"
#include "ntmem.h"

/* ELF symbol versions are the GNU assembler's; elsewhere there is no
 * shared library to keep compatible. */
#if defined(__ELF__) && defined(__GNUC__)
#define COMPAT(local, public, version) \
	__asm__(".symver " #local ", " #public "@" #version)

/* 0.2's layouts, as its ntmem.h declared them. */
struct cpu_info_0_2 {
	const char *arch, *vendor, *brand;
	unsigned family, model, stepping;
	const char *features, *missing;
	struct ntmem_cache_sizes cpuid, sysfs, planned;
	const char *planned_how;
	unsigned online_cpus;
};

struct adapt_edge_0_2 {
	size_t at, from, to;
	int lower, upper;
	unsigned long long trials, switches;
};

struct adapt_info_0_2 {
	int on;
	enum ntmem_origin origin;
	unsigned period, streamed, cached, cached_warm;
	int nedges;
	struct adapt_edge_0_2 edge[NTMEM_LADDER_MAX - 1];
};

int ntm_cpu_info_0_2(struct cpu_info_0_2 *info);
COMPAT(ntm_cpu_info_0_2, ntmem_cpu_info, NTMEM_0);
int ntm_cpu_info_0_2(struct cpu_info_0_2 *info)
{
	struct ntmem_cpu_info now;
	if (!info) {
		errno = EINVAL;
		return -1;
	}
	ntmem_cpu_info(&now);
	*info = (struct cpu_info_0_2){
		now.arch, now.vendor, now.brand, now.family, now.model,
		now.stepping, now.features, now.missing, now.cpuid, now.sysfs,
		now.planned, now.planned_how, now.online_cpus};
	return 0;
}

int ntm_adapt_info_0_2(enum ntmem_class cls, struct adapt_info_0_2 *info);
COMPAT(ntm_adapt_info_0_2, ntmem_adapt_info, NTMEM_0);
int ntm_adapt_info_0_2(enum ntmem_class cls, struct adapt_info_0_2 *info)
{
	struct ntmem_adapt_info now;
	if (!info || ntmem_adapt_info(cls, &now)) {
		errno = EINVAL;
		return -1;
	}
	memset(info, 0, sizeof *info);
	info->on = now.on;
	info->origin = now.origin;
	info->period = now.period_min;
	return 0;
}
#else
/* ISO C wants a translation unit to declare something. */
typedef int ntm_compat_none;
#endif
