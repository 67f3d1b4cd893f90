/* info.c - "ntmem info": every setting in effect and where it came from. */
#define _GNU_SOURCE
#include <getopt.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"
#include "commands.h"
#include "cpu.h"
#include "json.h"
#include "ntmem.h"
#include "policy.h"
#include "size.h"

static const char *const op_names[2] = {"memset", "memcpy"};

static void usage(FILE *f)
{
	fprintf(f,
		"Usage: ntmem info [--json]\n"
		"Show the CPU and its caches, every variant and whether this CPU\n"
		"can run it, and the policy in effect: per operation the cached\n"
		"and streaming variant and the threshold, each with its source.\n"
		"\n"
		"Options:\n"
		"  -j, --json   one JSON object on stdout\n"
		"  -h, --help   show this help\n"
		"\n"
		"Environment: NTMEM_TUNABLES, NTMEM_PROFILE (see ntmem(3)).\n");
}

/* Where a policy value came from, in words.  threshold: the value, for a
 * threshold; NULL for a variant. */
static const char *origin_text(enum ntmem_origin o, const struct policy *p,
			       const size_t *threshold, char *buf, size_t len)
{
	switch (o) {
	case NTMEM_ORIGIN_ENVIRONMENT:
		return "NTMEM_TUNABLES";
	case NTMEM_ORIGIN_PROFILE:
		snprintf(buf, len, "profile %s", p->profile_path);
		return buf;
	case NTMEM_ORIGIN_DEFAULT:
		break;
	}
	if (!threshold)
		return "built-in ranking";
	if (*threshold == SIZE_MAX)
		return "no streaming variant runs on this CPU";
	char how[160];
	ntm_topology_threshold(ntm_cpu(), how, sizeof how);
	snprintf(buf, len, "topology: %s", how);
	return buf;
}

static char *threshold_text(size_t t, char *buf, size_t len)
{
	if (t == SIZE_MAX)
		snprintf(buf, len, "never");
	else
		ntm_format_size(t, buf, len);
	return buf;
}

static void print_text(void)
{
	const struct cpu *cpu = ntm_cpu();
	const struct policy *pol = ntm_policy();
	char a[64], b[64], buf[1100];

	printf("ntmem %s\n\nCPU\n", ntmem_version());
	printf("  vendor       %s\n", cpu->vendor[0] ? cpu->vendor : "(not x86)");
	printf("  model        %s (family %u, model %u, stepping %u)\n",
	       cpu->brand[0] ? cpu->brand : "unknown", cpu->family, cpu->model,
	       cpu->stepping);
	printf("  features    ");
	for (unsigned bit = 1; bit < CPU_FEATURE_END; bit <<= 1)
		if (cpu->usable & bit)
			printf(" %s", ntm_cpu_feature_name(bit));
	printf("\n");
	for (unsigned bit = 1; bit < CPU_FEATURE_END; bit <<= 1)
		if (!(cpu->usable & bit))
			printf("  missing      %s: %s\n", ntm_cpu_feature_name(bit),
			       ntm_cpu_missing(cpu, bit));
	if (cpu->has_xcr0)
		printf("  XCR0         %#llx\n", (unsigned long long)cpu->xcr0);
	printf("  online CPUs  %u\n", cpu->online_cpus);

	const struct cache_info *c[2] = {&cpu->cpuid_caches, &cpu->sysfs_caches};
	printf("\nCaches         %-12s %s\n", "CPUID", "sysfs");
	const char *level[3] = {"L1d", "L2", "L3"};
	for (int l = 0; l < 3; l++) {
		size_t x = l == 0 ? c[0]->l1d : l == 1 ? c[0]->l2 : c[0]->l3;
		size_t y = l == 0 ? c[1]->l1d : l == 1 ? c[1]->l2 : c[1]->l3;
		printf("  %-12s %-12s %s\n", level[l],
		       x ? ntm_format_size(x, a, sizeof a) : "unknown",
		       y ? ntm_format_size(y, b, sizeof b) : "unknown");
	}
	printf("  %-12s %-12u %u\n", "L3 shared by", c[0]->l3_shared_by,
	       c[1]->l3_shared_by);

	for (int op = 0; op < 2; op++) {
		printf("\nVariants: %s\n", op_names[op]);
		for (int id = 0; id < ntmem_variant_count(); id++) {
			struct ntmem_variant_info v;
			ntmem_variant_info(id, &v);
			if ((int)v.op != op)
				continue;
			printf("  %-11s %-9s %-4s %s", v.name,
			       v.streaming ? "streaming" : "cached",
			       v.supported ? "yes" : "no", v.description);
			if (!v.supported)
				printf(" [%s]", v.why_unsupported);
			printf("\n");
		}
	}

	printf("\nPolicy\n");
	for (int op = 0; op < 2; op++) {
		const struct op_policy *o = &pol->op[op];
		if (op == NTMEM_OP_SET)
			printf("  %s: streams from %s up writing zeros, from %s up "
			       "writing other values\n", op_names[op],
			       threshold_text(o->threshold, a, sizeof a),
			       threshold_text(o->threshold_nonzero, b, sizeof b));
		else
			printf("  %s: streams from %s up\n", op_names[op],
			       threshold_text(o->threshold, a, sizeof a));
		printf("    cached     %-11s %s\n", o->cached->name,
		       origin_text(o->cached_origin, pol, NULL, buf, sizeof buf));
		printf("    streaming  %-11s %s\n", o->streaming->name,
		       origin_text(o->streaming_origin, pol, NULL, buf, sizeof buf));
		if (o->streaming_any_value != o->streaming)
			printf("    other values %-9s built-in ranking (%s writes "
			       "zeros only)\n", o->streaming_any_value->name,
			       o->streaming->name);
		printf("    threshold  %-11s %s\n", a,
		       origin_text(o->threshold_origin, pol, &o->threshold, buf,
				   sizeof buf));
		if (op == NTMEM_OP_SET)
			printf("    non-zero   %-11s %s\n", b,
			       origin_text(o->threshold_nonzero_origin, pol,
					   &o->threshold_nonzero, buf, sizeof buf));
	}
	const char *tun = getenv("NTMEM_TUNABLES");
	printf("  profile      %s%s%s\n", pol->profile_path,
	       pol->profile_path[0] ? ": " : "", pol->profile_status);
	printf("  tunables     %s\n", tun ? tun : "(NTMEM_TUNABLES not set)");

	printf("\nIgnored settings\n");
	if (!ntmem_policy_ignored(0))
		printf("  none\n");
	for (int i = 0; ntmem_policy_ignored(i); i++)
		printf("  %s\n", ntmem_policy_ignored(i));
}

static void json_caches(struct json *j, const char *key,
			const struct cache_info *c)
{
	json_object(j, key);
	json_uint(j, "l1d", c->l1d);
	json_uint(j, "l2", c->l2);
	json_uint(j, "l3", c->l3);
	json_uint(j, "l3_shared_by", c->l3_shared_by);
	json_end(j);
}

static void json_choice(struct json *j, const char *key,
			const struct variant *v, enum ntmem_origin o,
			const struct policy *pol)
{
	char buf[1100];
	json_object(j, key);
	json_string(j, "name", v->name);
	json_string(j, "origin", ntmem_origin_name(o));
	json_string(j, "detail", origin_text(o, pol, NULL, buf, sizeof buf));
	json_end(j);
}

static void json_threshold(struct json *j, const char *key, size_t t,
			   enum ntmem_origin o, const struct policy *pol)
{
	char buf[1100];
	json_object(j, key);
	if (t == SIZE_MAX)
		json_null(j, "bytes");
	else
		json_uint(j, "bytes", t);
	json_string(j, "origin", ntmem_origin_name(o));
	json_string(j, "detail", origin_text(o, pol, &t, buf, sizeof buf));
	json_end(j);
}

static void print_json(void)
{
	const struct cpu *cpu = ntm_cpu();
	const struct policy *pol = ntm_policy();
	struct json j;
	json_start(&j, stdout);
	json_string(&j, "version", ntmem_version());

	json_object(&j, "cpu");
	json_string(&j, "vendor", cpu->vendor);
	json_string(&j, "brand", cpu->brand);
	json_uint(&j, "family", cpu->family);
	json_uint(&j, "model", cpu->model);
	json_uint(&j, "stepping", cpu->stepping);
	json_array(&j, "features");
	for (unsigned bit = 1; bit < CPU_FEATURE_END; bit <<= 1)
		if (cpu->usable & bit)
			json_string(&j, NULL, ntm_cpu_feature_name(bit));
	json_end(&j);
	json_object(&j, "missing");
	for (unsigned bit = 1; bit < CPU_FEATURE_END; bit <<= 1)
		if (!(cpu->usable & bit))
			json_string(&j, ntm_cpu_feature_name(bit),
				    ntm_cpu_missing(cpu, bit));
	json_end(&j);
	if (cpu->has_xcr0)
		json_uint(&j, "xcr0", cpu->xcr0);
	else
		json_null(&j, "xcr0");
	json_uint(&j, "online_cpus", cpu->online_cpus);
	json_end(&j);

	json_object(&j, "caches");
	json_caches(&j, "cpuid", &cpu->cpuid_caches);
	json_caches(&j, "sysfs", &cpu->sysfs_caches);
	json_end(&j);

	json_array(&j, "variants");
	for (int id = 0; id < ntmem_variant_count(); id++) {
		struct ntmem_variant_info v;
		ntmem_variant_info(id, &v);
		json_object(&j, NULL);
		json_uint(&j, "id", (unsigned)id);
		json_string(&j, "name", v.name);
		json_string(&j, "op", op_names[v.op]);
		json_bool(&j, "streaming", v.streaming);
		json_bool(&j, "zero_only", v.zero_only);
		json_string(&j, "requires", v.requires);
		json_bool(&j, "supported", v.supported);
		json_string(&j, "why_unsupported", v.why_unsupported);
		json_string(&j, "description", v.description);
		json_end(&j);
	}
	json_end(&j);

	json_object(&j, "policy");
	for (int op = 0; op < 2; op++) {
		const struct op_policy *o = &pol->op[op];
		json_object(&j, op_names[op]);
		json_choice(&j, "cached", o->cached, o->cached_origin, pol);
		json_choice(&j, "streaming", o->streaming, o->streaming_origin, pol);
		json_string(&j, "streaming_any_value", o->streaming_any_value->name);
		json_threshold(&j, "threshold", o->threshold, o->threshold_origin, pol);
		if (op == NTMEM_OP_SET)
			json_threshold(&j, "threshold_nonzero", o->threshold_nonzero,
				       o->threshold_nonzero_origin, pol);
		json_end(&j);
	}
	json_end(&j);

	json_object(&j, "profile");
	json_string(&j, "path", pol->profile_path[0] ? pol->profile_path : NULL);
	json_string(&j, "status", pol->profile_status);
	json_bool(&j, "loaded", pol->profile_loaded);
	json_end(&j);
	json_string(&j, "tunables", getenv("NTMEM_TUNABLES"));
	json_array(&j, "ignored");
	for (int i = 0; ntmem_policy_ignored(i); i++)
		json_string(&j, NULL, ntmem_policy_ignored(i));
	json_end(&j);
	json_finish(&j);
}

int cmd_info(int argc, char **argv)
{
	static const struct option longopts[] = {
		{"json", no_argument, NULL, 'j'},
		{"help", no_argument, NULL, 'h'},
		{NULL, 0, NULL, 0},
	};
	int json = 0, c;
	opterr = 0;
	while ((c = getopt_long(argc, argv, ":jh", longopts, NULL)) != -1) {
		switch (c) {
		case 'j':
			json = 1;
			break;
		case 'h':
			usage(stdout);
			return 0;
		default:
			cli_option_error(c, argv);
		}
	}
	cli_no_operands(argc, argv);
	if (json)
		print_json();
	else
		print_text();
	return 0;
}
