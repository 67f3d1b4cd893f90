/* machines.h - the CPUs recorded in data/machines/, each as the library
 * would have detected it (the identity its tables hold), for tests that
 * take every recorded machine's ladders (test_replay, test_ladder_edits,
 * test_verdict).  Header-only, as tests/safe_common.h. */
#ifndef NTM_TEST_MACHINES_H
#define NTM_TEST_MACHINES_H

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "dispatch/cpu.h"
#include "harness.h"

#define MACHINES_DIR "data/machines"

/* The JSON of a file of any length, or NULL. */
static inline struct t_json *machine_json(const char *path)
{
	char err[200];
	FILE *f = fopen(path, "r");
	if (!f)
		return NULL;
	size_t cap = 1 << 20, len = 0, got;
	char *buf = malloc(cap + 1);
	while (buf && (got = fread(buf + len, 1, cap - len, f)) > 0) {
		len += got;
		if (len == cap) {
			char *more = realloc(buf, (cap *= 2) + 1);
			if (!more)
				free(buf);
			buf = more;
		}
	}
	fclose(f);
	if (!buf)
		return NULL;
	buf[len] = '\0';
	struct t_json *j = t_json_parse(buf, err, sizeof err);
	free(buf);
	return j;
}

static inline const char *machine_text(const struct t_json *j, const char *key)
{
	const struct t_json *v = t_json_get(j, key);
	return v && v->type == TJ_STRING ? v->string : "";
}

static inline double machine_number(const struct t_json *j, const char *key)
{
	const struct t_json *v = t_json_get(j, key);
	return v && v->type == TJ_NUMBER ? v->number : 0;
}

/* identity: machine.identity of a bench --json file; machine: machine.
 * The CPU as the library would have detected it. */
static inline void machine_cpu_from(const struct t_json *id,
				    const struct t_json *machine, struct cpu *cpu)
{
	memset(cpu, 0, sizeof *cpu);
	snprintf(cpu->vendor, sizeof cpu->vendor, "%s", machine_text(id, "vendor"));
	snprintf(cpu->brand, sizeof cpu->brand, "%s", machine_text(id, "brand"));
	snprintf(cpu->hypervisor, sizeof cpu->hypervisor, "%s",
		 machine_text(id, "hypervisor"));
	cpu->guest = cpu->hypervisor[0] != '\0';
	cpu->family = (unsigned)machine_number(id, "family");
	cpu->model = (unsigned)machine_number(id, "model");
	cpu->stepping = (unsigned)machine_number(id, "stepping");
	const struct t_json *features = t_json_get(id, "features");
	for (size_t i = 0; features && i < features->count; i++)
		for (unsigned bit = 1; bit < CPU_FEATURE_END; bit <<= 1)
			if (features->items[i].type == TJ_STRING &&
			    !strcmp(features->items[i].string, ntm_cpu_feature_name(bit)))
				cpu->usable |= bit;
	cpu->reported = cpu->usable;
	const struct t_json *caches = t_json_get(id, "caches");
	struct cache_info *into[2] = {&cpu->cpuid_caches, &cpu->sysfs_caches};
	const char *from[2] = {"cpuid", "sysfs"};
	for (int i = 0; i < 2; i++) {
		const struct t_json *c = t_json_get(caches, from[i]);
		into[i]->l1d = (size_t)machine_number(c, "l1d");
		into[i]->l2 = (size_t)machine_number(c, "l2");
		into[i]->l3 = (size_t)machine_number(c, "l3");
		into[i]->l3_shared_by = (unsigned)machine_number(c, "l3_shared_by");
	}
	cpu->online_cpus = (unsigned)machine_number(machine, "online_cpus");
}

/* The CPU of a bench table (its machine.identity) into *cpu; the
 * identity's arch ("x86_64") into arch.  Returns 0, or -1 when the
 * table has no identity. */
static inline int machine_cpu(const struct t_json *table, struct cpu *cpu,
			      char *arch, size_t arch_len)
{
	const struct t_json *machine = t_json_get(table, "machine");
	const struct t_json *id = t_json_get(machine, "identity");
	if (!id)
		return -1;
	snprintf(arch, arch_len, "%s", machine_text(id, "arch"));
	machine_cpu_from(id, machine, cpu);
	return 0;
}

#endif
