/* numa.c - nodes, their CPUs, where pages live, and which thread writes
 * which part. */
#define _GNU_SOURCE
#include "numa.h"

#include <errno.h>
#include <fcntl.h>
#include <sched.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "dispatch/cpu.h"

int ntm_node_of_cpu(const struct topology *t, int cpu)
{
	for (unsigned node = 0; node < t->nnodes; node++)
		for (unsigned i = t->first[node]; i < t->first[node + 1]; i++)
			if (t->cpu[i] == cpu)
				return (int)node;
	return -1;
}

/* The first CPU of node not yet taken, now taken; -1 if none. */
static int take_on(const struct topology *t, int node, unsigned char *taken)
{
	if (node < 0 || (unsigned)node >= t->nnodes)
		return -1;
	for (unsigned i = t->first[node]; i < t->first[node + 1]; i++)
		if (!taken[i]) {
			taken[i] = 1;
			return t->cpu[i];
		}
	return -1;
}

/* The part the caller runs: the first on its node, else the first of
 * unknown node, else the first. */
static unsigned callers_part(const int *part_node, unsigned nparts,
			     int caller_node)
{
	for (unsigned p = 0; caller_node >= 0 && p < nparts; p++)
		if (part_node[p] == caller_node)
			return p;
	for (unsigned p = 0; p < nparts; p++)
		if (part_node[p] < 0)
			return p;
	return 0;
}

void ntm_place(const struct topology *t, const int *part_node,
	       unsigned nparts, int caller_cpu, unsigned *order, int *cpu)
{
	unsigned char taken[NTM_MAX_CPUS] = {0};
	unsigned ncpus = t->first[t->nnodes];
	for (unsigned i = 0; i < ncpus; i++)
		if (t->cpu[i] == caller_cpu)
			taken[i] = 1;
	int caller_node = ntm_node_of_cpu(t, caller_cpu);

	unsigned callers = callers_part(part_node, nparts, caller_node);
	order[0] = callers;
	cpu[0] = -1;
	for (unsigned p = 0, k = 1; p < nparts; p++)
		if (p != callers)
			order[k++] = p;

	/* Local CPUs first, for every part whose node is known, so that a
	 * part placed later cannot take a CPU another part needed. */
	for (unsigned k = 1; k < nparts; k++)
		cpu[k] = take_on(t, part_node[order[k]], taken);
	for (unsigned k = 1; k < nparts; k++) {
		if (cpu[k] >= 0)
			continue;
		cpu[k] = take_on(t, caller_node, taken);
		for (unsigned node = 0; cpu[k] < 0 && node < t->nnodes; node++)
			cpu[k] = take_on(t, (int)node, taken);
	}
}

/* Read a small sysfs file into buf (NUL-terminated).  Returns 0 or -1. */
static int read_text(const char *path, char *buf, size_t len)
{
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return -1;
	ssize_t got = read(fd, buf, len - 1);
	close(fd);
	if (got <= 0)
		return -1;
	buf[got] = '\0';
	return 0;
}

/* One node holding every allowed CPU. */
static void single_node(struct topology *t, const cpu_set_t *allowed)
{
	unsigned n = 0;
	for (int c = 0; c < NTM_MAX_CPUS; c++)
		if (CPU_ISSET(c, allowed))
			t->cpu[n++] = c;
	t->nnodes = 1;
	t->first[0] = 0;
	t->first[1] = n;
}

void ntm_topology_discover(struct topology *t, const void *allowed_set)
{
	const cpu_set_t *allowed = allowed_set;
	int saved = errno;
	static char text[8192];  /* a CPU list of a large machine; pool start
				    is serialised, so one buffer serves */
	unsigned char nodes[NTM_MAX_CPUS], cpus[NTM_MAX_CPUS];
	char path[96];
	unsigned count = 0, ncpus = 0;
	if (!read_text("/sys/devices/system/node/online", text, sizeof text) &&
	    !ntm_parse_cpu_list(text, nodes, NTM_MAX_CPUS)) {
		for (unsigned id = 0; id < NTM_MAX_CPUS && count < NTM_MAX_NODES; id++) {
			if (!nodes[id])
				continue;
			snprintf(path, sizeof path,
				 "/sys/devices/system/node/node%u/cpulist", id);
			if (read_text(path, text, sizeof text) ||
			    ntm_parse_cpu_list(text, cpus, NTM_MAX_CPUS))
				continue;
			t->first[count] = ncpus;
			for (int c = 0; c < NTM_MAX_CPUS; c++)
				if (cpus[c] && CPU_ISSET(c, allowed))
					t->cpu[ncpus++] = c;
			t->id[count] = (int)id;
			if (ncpus > t->first[count])  /* memory-only nodes: no */
				count++;
		}
	}
	t->nnodes = count;
	t->first[count] = ncpus;
	if (count == 0) {
		single_node(t, allowed);
		t->id[0] = 0;
	}
	errno = saved;
}

/* The topology index of kernel node id, or -1 (a node without CPUs). */
static int node_index(const struct topology *t, int id)
{
	for (unsigned i = 0; i < t->nnodes; i++)
		if (t->id[i] == id)
			return (int)i;
	return -1;
}

#define SAMPLES 4  /* pages asked per part */

/* The address at byte position pos of the concatenated pieces of part. */
static const unsigned char *position(const unsigned char *base,
				     const struct piece *pieces, size_t npieces,
				     unsigned part, size_t pos)
{
	for (size_t i = 0; i < npieces; i++) {
		if (pieces[i].part != part)
			continue;
		if (pos < pieces[i].len)
			return base + pieces[i].off + pos;
		pos -= pieces[i].len;
	}
	return NULL;
}

/* The most frequent value >= 0 of v[0..n), or -1. */
static int majority(const int *v, unsigned n)
{
	int best = -1;
	unsigned best_count = 0;
	for (unsigned i = 0; i < n; i++) {
		unsigned count = 0;
		for (unsigned j = 0; j < n; j++)
			count += v[j] == v[i];
		if (v[i] >= 0 && count > best_count) {
			best = v[i];
			best_count = count;
		}
	}
	return best;
}

void ntm_memory_nodes(const struct topology *t, const void *base,
		      const struct piece *pieces, size_t npieces,
		      unsigned nparts, int *part_node)
{
	for (unsigned p = 0; p < nparts; p++)
		part_node[p] = -1;
	if (t->nnodes < 2)
		return;
	void *pages[NTM_MAX_PARTS * SAMPLES];
	int status[NTM_MAX_PARTS * SAMPLES];
	size_t bytes[NTM_MAX_PARTS] = {0};
	for (size_t i = 0; i < npieces; i++)
		bytes[pieces[i].part] += pieces[i].len;
	uintptr_t page = (uintptr_t)sysconf(_SC_PAGESIZE);
	for (unsigned p = 0; p < nparts; p++)
		for (unsigned s = 0; s < SAMPLES; s++) {
			size_t pos = (size_t)((unsigned __int128)bytes[p] *
					      (2 * s + 1) / (2 * SAMPLES));
			uintptr_t a = (uintptr_t)position(base, pieces, npieces, p, pos);
			pages[p * SAMPLES + s] = (void *)(a & ~(page - 1));
		}
	int saved = errno;
	long r = syscall(SYS_move_pages, 0, (unsigned long)nparts * SAMPLES,
			 pages, NULL, status, 0);
	errno = saved;
	if (r != 0)
		return;
	for (unsigned p = 0; p < nparts; p++) {
		int idx[SAMPLES];
		for (unsigned s = 0; s < SAMPLES; s++) {
			int st = status[p * SAMPLES + s];
			idx[s] = st >= 0 ? node_index(t, st) : -1;
		}
		part_node[p] = majority(idx, SAMPLES);
	}
}
