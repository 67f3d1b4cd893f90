/* machine_cpu.h - a recorded machine's CPU (data/machines/NAME/, the
 * machine.identity of its bench tables) as the library would have
 * detected it: for the tests that replay the built-in ladders of every
 * recorded machine anywhere (test_replay, test_ladder_edits). */
#ifndef NTM_TEST_MACHINE_CPU_H
#define NTM_TEST_MACHINE_CPU_H

#include <stdio.h>
#include <string.h>

#include "dispatch/cpu.h"
#include "harness.h"

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

/* identity: machine.identity of a bench --json file; machine: machine. */
static inline void machine_cpu_from(const struct t_json *id,
				    const struct t_json *machine, struct cpu *cpu)
{
	memset(cpu, 0, sizeof *cpu);
	snprintf(cpu->vendor, sizeof cpu->vendor, "%s", machine_text(id, "vendor"));
	snprintf(cpu->brand, sizeof cpu->brand, "%s", machine_text(id, "brand"));
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

#endif
