/* measure.h - the measuring method all subcommands share: buffers from
 * mmap, prefaulted, on the pages asked for; a pinned thread; a monotonic
 * clock; statistics over runs; the facts of the machine. */
#ifndef NTM_MEASURE_H
#define NTM_MEASURE_H

#include <stddef.h>

#include "ntmem.h"
#include <stdint.h>
#include <time.h>

#include "util/clock.h"  /* ntm_now_ns: the clock timed runs are bracketed with */

enum page_request { PAGES_4K, PAGES_2M, PAGES_1G };

struct buffer {
	unsigned char *p;
	size_t len;
	size_t map_len;
	int hugetlb;
	char obtained[64];  /* what the kernel gave: "4 KiB pages",
			       "2 MiB THP (100%)", "1 GiB hugetlb" */
};

/* Map and advise len bytes: hugetlb pages where reserved, else whole
 * 2 MiB pages, aligned, advised for THP (or against it, for 4 KiB), and
 * with prefault one write a page.  Returns 0, or -1 with a reason. */
int buffer_map(struct buffer *b, size_t len, enum page_request pages,
	       int prefault, char *why, size_t why_len);
/* Fill in b->obtained from what backs the mapping now. */
void buffer_describe(struct buffer *b, enum page_request pages);
/* buffer_map, prefaulted, then described. */
int buffer_alloc(struct buffer *b, size_t len, enum page_request pages,
		 char *why, size_t why_len);
void buffer_free(struct buffer *b);

/* A call's buffers: dst, and for a copy src, filled with value (0-255)
 * or, for a negative value, random bytes. */
struct buffers {
	struct buffer dst, src;
	int copy;
};
/* Returns 0, or -1 with a reason and nothing held. */
int buffers_alloc(struct buffers *b, int copy, size_t len,
		  enum page_request pages, int value, char *why, size_t why_len);
void buffers_free(struct buffers *b);

/* n rounded up to whole 2 MiB pages, or 0 when that overflows. */
size_t round_up_2mib(size_t n);

/* Memory a run may use: MemAvailable less a fixed headroom for everything
 * else; SIZE_MAX when unknown (then mmap decides). */
size_t memory_budget(void);

/* Fill p with pseudo-random bytes, the same every time. */
void fill_random(void *p, size_t len);

/* Parse "4KB", "2MB", "1GB" (also 4K, 2M, 1G, KiB...).  -1 if none. */
int page_request_parse(const char *s, enum page_request *out);
const char *page_request_name(enum page_request p);
/* The same for people, spelled as what the kernel gave is ("4 KiB
 * requested, 4 KiB pages"); page_request_name() stays the JSON's. */
const char *page_request_text(enum page_request p);

/* Pin the calling thread to cpu.  Returns 0, or -1 with errno. */
int pin_to_cpu(int cpu);
/* The CPUs this process may use, as they were before the first
 * pin_to_cpu(): at most max of them, ascending, into cpus[].  Returns
 * how many (0 if the mask cannot be read). */
unsigned allowed_cpus(int *cpus, unsigned max);
/* The same as people read it, for a --cpu error: "CPUs 0-3,8" or
 * "CPU 2" ("no CPU known" if the mask cannot be read).  Returns buf. */
const char *allowed_cpus_text(char *buf, size_t len);
/* The CPU the calling thread runs on now, or -1. */
int current_cpu(void);

/* Pin to *cpu, or to the CPU this thread runs on when *cpu is negative
 * (which is then stored there; it stays negative if that is unknown).
 * 0, or -1 when *cpu cannot be run on. */
int pin_here(int *cpu);


struct stats {
	double mean, stdev, median, min, max;
};
/* Statistics of v[0..n); sorts v.  The stdev is the sample's, NAN for
 * fewer than two values (one run has no spread to show: reports print
 * "n/a", JSON null). */
struct stats stats_of(double *v, size_t n);

/* The median of v[0..n); sorts v. */
double median_of(double *v, size_t n);

/* Noisy: the runs' sample stdev is over NOISE_LIMIT of their median, so a
 * difference of that order between two rows may be chance.  bench marks
 * such rows "~" and says "noisy" in its JSON. */
#define NOISE_LIMIT 0.05
int stats_noisy(const struct stats *s);

/* a and b differ by no more than their stdevs together: which is faster
 * is not known from these runs. */
int stats_level(const struct stats *a, const struct stats *b);

struct machine {
	char cpu[64];        /* brand string */
	char kernel[160];    /* uname -sr */
	char thp[32];        /* transparent_hugepage/enabled, the [mode] */
	size_t mem_available;  /* MemAvailable, bytes; 0 when unknown */
	unsigned online_cpus;
};
void machine_facts(struct machine *m);

/* The facts as members of the JSON object being written (cpu, kernel,
 * thp, online_cpus, mem_available, and the CPU's identity), for every
 * command's --json. */
struct json;
void machine_json_members(struct json *j, const struct machine *m);

/* The CPU's identity as members of the object being written: arch,
 * vendor, brand, family, model, stepping, features (an array); and its
 * caches as an object "caches": as CPUID and sysfs report them, and as
 * the library plans with them (and how).  For "ntmem info --json" and
 * the machine object of every other command, so that a recorded table
 * says which CPU it came from. */
void cpu_identity_members(struct json *j, const struct ntmem_cpu_info *cpu);

/* One line for a user who has never calibrated on a CPU nobody here has
 * recorded (no profile, no built-in entry), suggesting "ntmem
 * calibrate"; NULL otherwise.  "ntmem info" and "ntmem run" print it. */
const char *machine_first_use(void);
void cpu_caches_object(struct json *j, const struct ntmem_cpu_info *cpu);

#endif
