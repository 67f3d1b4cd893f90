/* numa.h - which node each part's memory lives on, which CPUs each node
 * has, and the placement of parts on CPUs so that each thread writes
 * memory of its own node.
 *
 * The placement is a pure function of the topology, the parts' nodes
 * and the caller's CPU, so it is tested on fake topologies: the machines
 * this project runs on have one node.  No libnuma: sysfs for the
 * topology, the move_pages system call (query only) for the pages. */
#ifndef NTM_NUMA_H
#define NTM_NUMA_H

#include <stddef.h>

#include "split.h"

#define NTM_MAX_NODES 64
#define NTM_MAX_CPUS 1024    /* CPU_SETSIZE */

/* Node i (the kernel's node id[i]) has the CPUs cpu[first[i] ..
 * first[i + 1]), ascending.  Nodes are numbered 0 .. nnodes - 1 here,
 * whatever the kernel's ids. */
struct topology {
	unsigned nnodes;                   /* 1 .. NTM_MAX_NODES */
	int id[NTM_MAX_NODES];
	unsigned first[NTM_MAX_NODES + 1];
	int cpu[NTM_MAX_CPUS];
};

/* The node CPU cpu belongs to in t, or -1. */
int ntm_node_of_cpu(const struct topology *t, int cpu);

/*
 * Place nparts parts (1 .. NTM_MAX_PARTS), whose memory lives on
 * part_node[p] (-1: unknown, e.g. pages not faulted in yet, which the
 * first thread to touch them will place), for a caller running on
 * caller_cpu:
 *
 *   order[0]  the part the caller runs itself: the first on its node;
 *             else the first of unknown node; else part 0;
 *   order[k]  for k >= 1, the other parts in ascending order, each run
 *             by a worker pinned to cpu[k]:
 *               - a free CPU of the part's node, in ascending order;
 *               - else (node full or unknown) a free CPU of the caller's
 *                 node, then of any node: a remote CPU beats sharing one;
 *               - else -1: every CPU is taken, the worker may run
 *                 anywhere (more threads than CPUs were asked for).
 *             The caller's CPU is never given to a worker.  cpu[0] = -1.
 */
void ntm_place(const struct topology *t, const int *part_node,
	       unsigned nparts, int caller_cpu, unsigned *order, int *cpu);

/* Fill t with the nodes of this machine from sysfs, keeping only the CPUs
 * in allowed (a cpu_set_t).  A node left without CPUs is dropped; when
 * sysfs cannot be read, one node with every allowed CPU.  Not for the hot
 * path: it opens files.  Not reentrant (one buffer): the pool calls it
 * while it holds itself.  errno is left as it was. */
void ntm_topology_discover(struct topology *t, const void *allowed);

/*
 * The node (an index into t) each of nparts parts' memory lives on: a few
 * pages sampled across its pieces (pieces[0..npieces) of an extent at
 * base), asked of move_pages without moving them; the node most samples
 * lie on, or -1 when none could be told (one node, no NUMA in the kernel,
 * pages not yet present, or on a node without CPUs).  One system call
 * when t has two nodes or more, none otherwise.  errno is left as it was.
 */
void ntm_memory_nodes(const struct topology *t, const void *base,
		      const struct piece *pieces, size_t npieces,
		      unsigned nparts, int *part_node);

#endif
