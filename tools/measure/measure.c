/* measure.c - buffers, pinning, statistics and machine facts. */
#define _GNU_SOURCE
#include "measure.h"

#include <errno.h>
#include <math.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/mman.h>
#include <sys/utsname.h>
#include <unistd.h>

#include "introspect.h"
#include "output/json.h"
#include "util/size.h"

#ifndef MAP_HUGE_SHIFT
#define MAP_HUGE_SHIFT 26
#endif
#define MAP_HUGE_2MB_FLAG (21 << MAP_HUGE_SHIFT)
#define MAP_HUGE_1GB_FLAG (30 << MAP_HUGE_SHIFT)


/* Bytes of [p, p + len) backed by transparent huge pages, from smaps. */
static size_t thp_bytes(const void *p, size_t len)
{
	FILE *f = fopen("/proc/self/smaps", "re");
	if (!f)
		return 0;
	char line[256];
	uintptr_t lo = 0, hi = 0, start = (uintptr_t)p, end = start + len;
	size_t total = 0;
	while (fgets(line, sizeof line, f)) {
		unsigned long a, b;
		size_t kb;
		if (sscanf(line, "%lx-%lx ", &a, &b) == 2) {
			lo = a;
			hi = b;
		} else if (sscanf(line, "AnonHugePages: %zu kB", &kb) == 1 &&
			   lo < end && hi > start) {
			total += kb << 10;
		}
	}
	fclose(f);
	return total;
}

size_t round_up_2mib(size_t n)
{
	if (n > SIZE_MAX - 2 * MiB)
		return 0;
	return (n + 2 * MiB - 1) / (2 * MiB) * (2 * MiB);
}

#define MEMORY_HEADROOM (256 * MiB)

size_t memory_budget(void)
{
	struct machine m;
	machine_facts(&m);
	if (m.mem_available == 0)
		return SIZE_MAX;
	return m.mem_available > MEMORY_HEADROOM ? m.mem_available - MEMORY_HEADROOM
						 : 0;
}

void fill_random(void *p, size_t len)
{
	unsigned char *b = p;
	uint64_t x = 0x243f6a8885a308d3ull;  /* xorshift64 */
	for (size_t i = 0; i < len; i += 8) {
		x ^= x << 13;
		x ^= x >> 7;
		x ^= x << 17;
		memcpy(b + i, &x, len - i < 8 ? len - i : 8);
	}
}

int buffer_map(struct buffer *b, size_t len, enum page_request pages,
	       int prefault, char *why, size_t why_len)
{
	memset(b, 0, sizeof *b);
	b->len = len;
	size_t rounded = round_up_2mib(len);
	if (rounded == 0 || rounded > SIZE_MAX - 2 * MiB) {
		snprintf(why, why_len, "cannot map %zu bytes: too large", len);
		return -1;
	}
	int prot = PROT_READ | PROT_WRITE;
	int flags = MAP_PRIVATE | MAP_ANONYMOUS;

	if (pages == PAGES_1G || pages == PAGES_2M) {
		size_t huge = pages == PAGES_1G ? GiB : 2 * MiB;
		if (len > SIZE_MAX - huge) {
			snprintf(why, why_len, "cannot map %zu bytes: too large", len);
			return -1;
		}
		size_t map_len = (len + huge - 1) / huge * huge;
		int hflags = MAP_HUGETLB | (prefault ? MAP_POPULATE : 0) |
			     (pages == PAGES_1G ? MAP_HUGE_1GB_FLAG : MAP_HUGE_2MB_FLAG);
		void *p = mmap(NULL, map_len, prot, flags | hflags, -1, 0);
		if (p != MAP_FAILED) {
			b->p = p;
			b->map_len = map_len;
			b->hugetlb = 1;
			return 0;
		}
	}

	/* 4 KiB pages, or 2 MiB through THP: map whole 2 MiB pages plus room
	 * to align them, so every huge page the kernel can give fits. */
	size_t map_len = rounded + 2 * MiB;
	unsigned char *raw = mmap(NULL, map_len, prot, flags, -1, 0);
	if (raw == MAP_FAILED) {
		snprintf(why, why_len, "cannot map %zu bytes: %s", len,
			 strerror(errno));
		return -1;
	}
	unsigned char *p = (unsigned char *)(((uintptr_t)raw + 2 * MiB - 1) &
					     ~(uintptr_t)(2 * MiB - 1));
	size_t lead = (size_t)(p - raw);
	if (lead)
		munmap(raw, lead);
	size_t kept = rounded;  /* whole 2 MiB pages: the last one not split */
	size_t trail = map_len - lead - kept;
	if (trail)
		munmap(p + kept, trail);
	b->p = p;
	b->map_len = kept;

	/* No hugetlb pages: transparent huge pages are the next best. */
	madvise(p, kept, pages == PAGES_4K ? MADV_NOHUGEPAGE : MADV_HUGEPAGE);
	/* Prefault: one write a page, so no timed run takes a page fault. */
	long page = sysconf(_SC_PAGESIZE);
	for (size_t i = 0; prefault && i < kept; i += (size_t)page)
		((volatile unsigned char *)p)[i] = 0;
	return 0;
}

void buffer_describe(struct buffer *b, enum page_request pages)
{
	if (b->hugetlb) {
		snprintf(b->obtained, sizeof b->obtained, "%s hugetlb",
			 pages == PAGES_1G ? "1 GiB" : "2 MiB");
		return;
	}
	size_t huge = thp_bytes(b->p, b->map_len);
	const char *note = pages == PAGES_1G ? ", no 1 GiB pages reserved" : "";
	if (huge == 0)
		snprintf(b->obtained, sizeof b->obtained, "4 KiB pages%s%s",
			 pages == PAGES_2M ? " (THP refused)" : "", note);
	else
		snprintf(b->obtained, sizeof b->obtained, "2 MiB THP (%.0f%%)%s",
			 100.0 * (double)huge / (double)b->map_len, note);
}

int buffer_alloc(struct buffer *b, size_t len, enum page_request pages,
		 char *why, size_t why_len)
{
	if (buffer_map(b, len, pages, 1, why, why_len))
		return -1;
	buffer_describe(b, pages);
	return 0;
}

void buffer_free(struct buffer *b)
{
	if (b->p)
		munmap(b->p, b->map_len);
	b->p = NULL;
}

int buffers_alloc(struct buffers *b, int copy, size_t len,
		  enum page_request pages, int value, char *why, size_t why_len)
{
	b->copy = copy;
	if (buffer_alloc(&b->dst, len, pages, why, why_len))
		return -1;
	if (!copy)
		return 0;
	if (buffer_alloc(&b->src, len, pages, why, why_len)) {
		buffer_free(&b->dst);
		return -1;
	}
	if (value >= 0)
		memset(b->src.p, value, len);
	else
		fill_random(b->src.p, len);
	return 0;
}

void buffers_free(struct buffers *b)
{
	buffer_free(&b->dst);
	if (b->copy)
		buffer_free(&b->src);
}

int page_request_parse(const char *s, enum page_request *out)
{
	static const struct {
		const char *names[4];
		enum page_request p;
	} table[] = {
		{{"4KB", "4K", "4KiB", NULL}, PAGES_4K},
		{{"2MB", "2M", "2MiB", NULL}, PAGES_2M},
		{{"1GB", "1G", "1GiB", NULL}, PAGES_1G},
	};
	for (size_t i = 0; i < 3; i++)
		for (size_t k = 0; table[i].names[k]; k++)
			if (!strcasecmp(s, table[i].names[k])) {
				*out = table[i].p;
				return 0;
			}
	return -1;
}

const char *page_request_name(enum page_request p)
{
	return p == PAGES_1G ? "1GB" : p == PAGES_2M ? "2MB" : "4KB";
}

const char *page_request_text(enum page_request p)
{
	return p == PAGES_1G ? "1 GiB" : p == PAGES_2M ? "2 MiB" : "4 KiB";
}

int pin_to_cpu(int cpu)
{
	cpu_set_t set;
	CPU_ZERO(&set);
	CPU_SET(cpu, &set);
	return sched_setaffinity(0, sizeof set, &set);
}

/* Pinning the main thread narrows what sched_getaffinity() says, and
 * the threads it starts inherit the narrow mask: the library keeps the
 * mask from before. */
unsigned allowed_cpus(int *cpus, unsigned max)
{
	return ntm_process_cpus(cpus, max);
}

const char *allowed_cpus_text(char *buf, size_t len)
{
	static int cpus[CPU_SETSIZE];
	unsigned n = allowed_cpus(cpus, CPU_SETSIZE);
	size_t used = (size_t)snprintf(buf, len, n == 0 ? "no CPU known"
					       : n == 1 ? "CPU " : "CPUs ");
	for (unsigned i = 0; i < n && used < len;) {
		unsigned j = i;
		while (j + 1 < n && cpus[j + 1] == cpus[j] + 1)
			j++;
		used += (size_t)(j == i ? snprintf(buf + used, len - used, "%s%d",
						   i ? "," : "", cpus[i])
				 : snprintf(buf + used, len - used, "%s%d-%d",
					    i ? "," : "", cpus[i], cpus[j]));
		i = j + 1;
	}
	return buf;
}

int current_cpu(void)
{
	return sched_getcpu();
}

int pin_here(int *cpu)
{
	if (*cpu < 0)
		*cpu = current_cpu();
	return *cpu >= 0 && pin_to_cpu(*cpu) ? -1 : 0;
}

static int cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;
	return (x > y) - (x < y);
}

double median_of(double *v, size_t n)
{
	return stats_of(v, n).median;
}

struct stats stats_of(double *v, size_t n)
{
	struct stats s = {NAN, NAN, NAN, NAN, NAN};
	if (n == 0)
		return s;
	qsort(v, n, sizeof *v, cmp_double);
	double sum = 0;
	for (size_t i = 0; i < n; i++)
		sum += v[i];
	s.mean = sum / (double)n;
	double sq = 0;
	for (size_t i = 0; i < n; i++)
		sq += (v[i] - s.mean) * (v[i] - s.mean);
	/* Sample standard deviation, as perf bench reports it. */
	s.stdev = n > 1 ? sqrt(sq / (double)(n - 1)) : NAN;
	s.median = n % 2 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2;
	s.min = v[0];
	s.max = v[n - 1];
	return s;
}

int stats_noisy(const struct stats *s)
{
	return s->stdev > NOISE_LIMIT * s->median;
}

int stats_level(const struct stats *a, const struct stats *b)
{
	return fabs(a->mean - b->mean) <= a->stdev + b->stdev;
}

void machine_facts(struct machine *m)
{
	memset(m, 0, sizeof *m);
	const struct cpu *cpu = ntm_cpu_described();
	snprintf(m->cpu, sizeof m->cpu, "%s", cpu->brand[0] ? cpu->brand : "unknown");
	struct utsname u;
	if (!uname(&u))
		snprintf(m->kernel, sizeof m->kernel, "%.64s %.64s", u.sysname, u.release);
	snprintf(m->thp, sizeof m->thp, "unavailable");
	FILE *f = fopen("/sys/kernel/mm/transparent_hugepage/enabled", "re");
	if (f) {
		char line[128];
		if (fgets(line, sizeof line, f)) {
			char *a = strchr(line, '['), *b = a ? strchr(a, ']') : NULL;
			if (a && b)
				snprintf(m->thp, sizeof m->thp, "%.*s",
					 (int)(b - a - 1), a + 1);
		}
		fclose(f);
	}
	f = fopen("/proc/meminfo", "re");
	if (f) {
		char line[128];
		size_t kb;
		while (fgets(line, sizeof line, f))
			if (sscanf(line, "MemAvailable: %zu kB", &kb) == 1)
				m->mem_available = kb << 10;
		fclose(f);
	}
	m->online_cpus = cpu->online_cpus;
}

static void cache_sizes_object(struct json *j, const char *key,
			       const struct ntmem_cache_sizes *c)
{
	json_object(j, key);
	json_uint(j, "l1d", c->l1d);
	json_uint(j, "l2", c->l2);
	json_uint(j, "l3", c->l3);
	json_uint(j, "l3_shared_by", c->l3_shared_by);
	json_end(j);
}

void cpu_identity_members(struct json *j, const struct ntmem_cpu_info *cpu)
{
	json_string(j, "arch", cpu->arch);
	json_string(j, "vendor", cpu->vendor);
	json_string(j, "brand", cpu->brand);
	json_uint(j, "family", cpu->family);
	json_uint(j, "model", cpu->model);
	json_uint(j, "stepping", cpu->stepping);
	json_string(j, "hypervisor", cpu->hypervisor);
	char features[256];
	snprintf(features, sizeof features, "%s", cpu->features);
	json_array(j, "features");
	for (char *save = NULL, *f = strtok_r(features, " ", &save); f;
	     f = strtok_r(NULL, " ", &save))
		json_string(j, NULL, f);
	json_end(j);
}

void cpu_caches_object(struct json *j, const struct ntmem_cpu_info *cpu)
{
	json_object(j, "caches");
	cache_sizes_object(j, "cpuid", &cpu->cpuid);
	cache_sizes_object(j, "sysfs", &cpu->sysfs);
	cache_sizes_object(j, "planned", &cpu->planned);
	json_string(j, "planned_how", cpu->planned_how);
	json_end(j);
}

const char *machine_first_use(void)
{
	struct ntmem_policy_status st;
	const struct policy *p = ntm_policy_for_report();
	if (ntmem_policy_status(&st) || st.profile_loaded || !p ||
	    p->builtin_recorded)
		return NULL;
	return "no calibration profile, and no built-in entry recorded for this "
	       "CPU: the general rule may leave speed unused; 'ntmem calibrate' "
	       "measures this machine in about a minute";
}

void machine_json_members(struct json *j, const struct machine *m)
{
	json_string(j, "cpu", m->cpu);
	json_string(j, "kernel", m->kernel);
	json_string(j, "thp", m->thp);
	json_uint(j, "online_cpus", m->online_cpus);
	json_uint(j, "mem_available", m->mem_available);
	struct ntmem_cpu_info cpu;
	ntmem_cpu_info(&cpu);
	json_object(j, "identity");
	cpu_identity_members(j, &cpu);
	cpu_caches_object(j, &cpu);
	json_end(j);
}
