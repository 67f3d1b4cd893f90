/* test_numa.c - NUMA placement on fake topologies (this machine has one
 * node): each part goes to a CPU of the node its pages live on, the
 * caller takes a part of its own node, no CPU twice, remote before
 * shared; the page->node query against the real kernel; the topology
 * this machine reports; and workers really run where a job places them
 * (a fake two-node topology over two real CPUs). */
#define _GNU_SOURCE
#include <errno.h>
#include <sched.h>
#include <stdio.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "harness.h"
#include "parallel/numa.h"
#include "parallel/pool.h"

/* A topology from a list of CPU counts per node, CPUs numbered on. */
static void fake(struct topology *t, const unsigned *cpus_per_node, unsigned nodes)
{
	memset(t, 0, sizeof *t);
	unsigned c = 0;
	for (unsigned n = 0; n < nodes; n++) {
		t->id[n] = (int)n;
		t->first[n] = c;
		for (unsigned i = 0; i < cpus_per_node[n]; i++, c++)
			t->cpu[c] = (int)c;
	}
	t->first[nodes] = c;
	t->nnodes = nodes;
}

static int same(const unsigned *order, const int *cpu, const unsigned *want_order,
		const int *want_cpu, unsigned n)
{
	for (unsigned k = 0; k < n; k++)
		if (order[k] != want_order[k] || cpu[k] != want_cpu[k])
			return 0;
	return 1;
}

static void test_worked_cases(void)
{
	struct topology t;
	static const unsigned two_by_two[] = {2, 2};  /* node 0: 0 1, node 1: 2 3 */
	fake(&t, two_by_two, 2);
	unsigned order[8];
	int cpu[8];

	static const int local[] = {0, 0, 1, 1};
	ntm_place(&t, local, 4, 0, order, cpu);
	t_check(same(order, cpu, (unsigned[]){0, 1, 2, 3}, (int[]){-1, 1, 2, 3}, 4),
		"numa: parts in node order go to their nodes' CPUs",
		"order %u %u %u %u cpu %d %d %d %d", order[0], order[1], order[2],
		order[3], cpu[0], cpu[1], cpu[2], cpu[3]);

	static const int swapped[] = {1, 1, 0, 0};
	ntm_place(&t, swapped, 4, 0, order, cpu);
	t_check(same(order, cpu, (unsigned[]){2, 0, 1, 3}, (int[]){-1, 2, 3, 1}, 4),
		"numa: the caller takes the first part on its own node",
		"order %u %u %u %u cpu %d %d %d %d", order[0], order[1], order[2],
		order[3], cpu[0], cpu[1], cpu[2], cpu[3]);

	static const int all_far[] = {1, 1, 1, 1};
	ntm_place(&t, all_far, 4, 0, order, cpu);
	t_check(same(order, cpu, (unsigned[]){0, 1, 2, 3}, (int[]){-1, 2, 3, 1}, 4),
		"numa: a full node's leftover part goes to a free remote CPU",
		"cpu %d %d %d %d", cpu[0], cpu[1], cpu[2], cpu[3]);

	static const int unknown[] = {-1, -1, -1, -1, -1, -1};
	ntm_place(&t, unknown, 6, 2, order, cpu);
	t_check(same(order, cpu, (unsigned[]){0, 1, 2, 3, 4, 5},
		     (int[]){-1, 3, 0, 1, -1, -1}, 6),
		"numa: unknown nodes: the caller's node first; beyond the CPUs, anywhere",
		"cpu %d %d %d %d %d %d", cpu[0], cpu[1], cpu[2], cpu[3], cpu[4], cpu[5]);

	static const int mixed[] = {0, -1, 1};
	ntm_place(&t, mixed, 3, 7, order, cpu);  /* caller outside the topology */
	t_check(same(order, cpu, (unsigned[]){1, 0, 2}, (int[]){-1, 0, 2}, 3),
		"numa: a caller off the topology takes the part of unknown node",
		"order %u %u %u cpu %d %d %d", order[0], order[1], order[2], cpu[0],
		cpu[1], cpu[2]);
}

/* Random topologies: CPUs distinct and never the caller's, -1 only when
 * none is free, and as many parts local to their node as its free CPUs
 * allow. */
static void test_random(void)
{
	int ok = 1;
	char why[160] = "";
	for (int run = 0; ok && run < (t_quick() ? 500 : 5000); run++) {
		struct topology t;
		unsigned per[8], nodes = 1 + (unsigned)(t_rand() % 8), ncpus = 0;
		for (unsigned n = 0; n < nodes; n++)
			ncpus += per[n] = 1 + (unsigned)(t_rand() % 6);
		fake(&t, per, nodes);
		unsigned nparts = 1 + (unsigned)(t_rand() % NTM_MAX_PARTS);
		int node[NTM_MAX_PARTS], cpu[NTM_MAX_PARTS];
		unsigned order[NTM_MAX_PARTS];
		for (unsigned p = 0; p < nparts; p++)
			node[p] = (int)(t_rand() % (nodes + 1)) - 1;
		int caller = (int)(t_rand() % ncpus);
		ntm_place(&t, node, nparts, caller, order, cpu);

		unsigned seen_part[NTM_MAX_PARTS] = {0}, used[64] = {0}, minus = 0;
		unsigned local[8] = {0}, want_local[8] = {0}, free_on[8];
		for (unsigned k = 0; k < nparts; k++)
			seen_part[order[k]]++;
		for (unsigned k = 1; k < nparts; k++) {
			if (cpu[k] < 0) {
				minus++;
				continue;
			}
			used[cpu[k]]++;
			int n = ntm_node_of_cpu(&t, cpu[k]);
			local[n] += node[order[k]] == n;
		}
		int caller_node = ntm_node_of_cpu(&t, caller);
		for (unsigned n = 0; n < nodes; n++) {
			free_on[n] = per[n] - ((int)n == caller_node);
			unsigned on_n = 0;
			for (unsigned k = 1; k < nparts; k++)
				on_n += node[order[k]] == (int)n;
			want_local[n] = on_n < free_on[n] ? on_n : free_on[n];
		}
		for (unsigned p = 0; ok && p < nparts; p++)
			if (seen_part[p] != 1)
				ok = 0, snprintf(why, sizeof why, "part %u placed %u times", p, seen_part[p]);
		for (unsigned c = 0; ok && c < ncpus; c++)
			if (used[c] > 1 || (used[c] && (int)c == caller))
				ok = 0, snprintf(why, sizeof why, "CPU %u given %u times", c, used[c]);
		if (ok && minus && nparts - 1 - minus != ncpus - 1)
			ok = 0, snprintf(why, sizeof why, "-1 while CPUs were free");
		for (unsigned n = 0; ok && n < nodes; n++)
			if (local[n] != want_local[n])
				ok = 0, snprintf(why, sizeof why, "node %u: %u local parts, %u possible",
						n, local[n], want_local[n]);
		if (ok && caller_node >= 0 && node[order[0]] != caller_node)
			for (unsigned p = 0; p < nparts; p++)
				if (node[p] == caller_node)
					ok = 0, snprintf(why, sizeof why, "caller took a remote part");
	}
	t_check(ok, "numa: random topologies: distinct CPUs, locality as possible", "%s", why);
}

static void test_this_machine(void)
{
	cpu_set_t allowed;
	if (sched_getaffinity(0, sizeof allowed, &allowed)) {
		t_fail("numa: this machine's topology", "sched_getaffinity: %s", strerror(errno));
		return;
	}
	struct topology t;
	errno = 1234;
	ntm_topology_discover(&t, &allowed);
	unsigned total = t.first[t.nnodes], in_set = 0;
	for (unsigned i = 0; i < total; i++)
		in_set += CPU_ISSET(t.cpu[i], &allowed) != 0;
	t_check(errno == 1234 && t.nnodes >= 1 && total == in_set &&
			total == (unsigned)CPU_COUNT(&allowed),
		"numa: this machine: every allowed CPU on exactly one node",
		"%u nodes, %u CPUs listed, %u allowed", t.nnodes, total,
		(unsigned)CPU_COUNT(&allowed));
}

/* move_pages on real pages: all on this machine's node 0 once present,
 * unknown while not.  A fake two-node topology makes the query run. */
static void test_memory_nodes(void)
{
	static const unsigned one_each[] = {1, 1};
	struct topology t;
	fake(&t, one_each, 2);
	size_t len = 8 * 4096;
	unsigned char *p = mmap(NULL, len, PROT_READ | PROT_WRITE,
				MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	struct piece pc[2] = {{0, len / 2, 0}, {len / 2, len / 2, 1}};
	int node[2] = {7, 7};
	errno = 4321;
	ntm_memory_nodes(&t, p, pc, 2, 2, node);
	int fresh_ok = node[0] == -1 && node[1] == -1 && errno == 4321;
	memset(p, 1, len);
	ntm_memory_nodes(&t, p, pc, 2, 2, node);
	t_check(fresh_ok, "numa: pages not yet present are of unknown node",
		"nodes %d %d", node[0], node[1]);
	if (node[0] == -1 && node[1] == -1)
		t_skip("numa: present pages report their node",
		       "move_pages answers nothing here (kernel without NUMA?)");
	else
		t_check(node[0] == 0 && node[1] == 0,
			"numa: present pages report their node (0, the only one)",
			"nodes %d %d", node[0], node[1]);
	munmap(p, len);
}

static int where_part_ran[NTM_MAX_PARTS];

static int record_cpu(struct pool_job *job, unsigned k)
{
	(void)job;
	where_part_ran[k] = sched_getcpu();
	return 0;
}

/* Two real CPUs as two fake nodes: the pool pins a worker where the job
 * says, even when the caller (and so the new thread) was pinned
 * elsewhere, as "ntmem bench" pins itself. */
static void test_workers_pinned(void)
{
	cpu_set_t allowed, one;
	sched_getaffinity(0, sizeof allowed, &allowed);
	int a = -1, b = -1;
	for (int c = 0; c < CPU_SETSIZE && b < 0; c++)
		if (CPU_ISSET(c, &allowed)) {
			if (a < 0)
				a = c;
			else
				b = c;
		}
	if (b < 0) {
		t_skip("numa: workers run on the CPU placed", "only one CPU allowed");
		return;
	}
	struct topology t = {.nnodes = 2, .id = {0, 1}, .first = {0, 1, 2}, .cpu = {a, b}};
	ntm_pool_fake_topology(&t);
	ntm_pool_restart();
	CPU_ZERO(&one);
	CPU_SET(a, &one);
	sched_setaffinity(0, sizeof one, &one);
	int ok = 0;
	unsigned got = ntm_pool_acquire(1);
	if (got == 1) {
		const struct topology *seen = ntm_pool_topology();
		struct pool_job job = {.run = record_cpu, .nparts = 2, .cpu = {-1, b}};
		ok = seen->nnodes == 2;
		ntm_pool_run(&job);
		ok = ok && where_part_ran[0] == a && where_part_ran[1] == b;
	}
	sched_setaffinity(0, sizeof allowed, &allowed);
	t_check(ok, "numa: a worker runs on the CPU its part was placed on",
		"workers %u, ran on %d and %d, wanted %d and %d", got, where_part_ran[0],
		where_part_ran[1], a, b);
	ntm_pool_fake_topology(NULL);
	ntm_pool_restart();
}

int main(void)
{
	test_worked_cases();
	test_random();
	test_this_machine();
	test_memory_nodes();
	test_workers_pinned();
	return t_finish();
}
