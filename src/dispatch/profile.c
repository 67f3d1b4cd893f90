/* profile.c - read and write calibration profiles. */
#define _GNU_SOURCE
#include "profile.h"

#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "ntmem.h"
#include "ladder.h"
#include "util/outfile.h"

#define PROFILE_MAX_BYTES 65536

static uint32_t fnv1a(const char *s, size_t n)
{
	uint32_t h = 2166136261u;
	for (size_t i = 0; i < n; i++) {
		h ^= (unsigned char)s[i];
		h *= 16777619u;
	}
	return h;
}

void ntm_profile_init(struct profile *p, const struct cpu *cpu)
{
	memset(p, 0, sizeof *p);
	memcpy(p->vendor, cpu->vendor, sizeof p->vendor);
	p->family = cpu->family;
	p->model = cpu->model;
	p->stepping = cpu->stepping;
	/* What glibc.cpu.hwcaps turns off is still this CPU's: a profile
	 * stays this CPU's under it, and its rungs that cannot run give way
	 * as any unusable rung does. */
	p->features = cpu->usable | cpu->libc_off;
	/* The caches the policy plans from (cpu.h): the C library's, which
	 * are CPUID's as it read them, else CPUID's own. */
	const struct cache_info *c =
		cpu->libc_caches.l3 ? &cpu->libc_caches : &cpu->cpuid_caches;
	p->l1d = c->l1d;
	p->l2 = c->l2;
	p->l3 = c->l3;
}

static int same_cpu(const struct profile *a, const struct profile *b)
{
	return !strcmp(a->vendor, b->vendor) && a->family == b->family &&
	       a->model == b->model && a->stepping == b->stepping &&
	       a->features == b->features && a->l1d == b->l1d &&
	       a->l2 == b->l2 && a->l3 == b->l3;
}

/* Parse one "key value" line into p.  Returns 0, or -1 for an unknown key
 * or a bad value. */
static int parse_line(struct profile *p, const char *key, const char *val)
{
	char *end;
	if (!strcmp(key, "cpu.vendor") || !strcmp(key, "made.effort")) {
		char *dst = key[0] == 'c' ? p->vendor : p->effort;
		size_t cap = key[0] == 'c' ? sizeof p->vendor : sizeof p->effort;
		if (strlen(val) >= cap)
			return -1;
		strcpy(dst, val);
		return 0;
	}
	if (!strcmp(key, "made.time")) {
		errno = 0;
		long long t = strtoll(val, &end, 10);
		if (errno || end == val || *end || t <= 0)
			return -1;
		p->made = t;
		return 0;
	}
	static const struct {
		const char *key;
		size_t offset;
		int is_size;
	} numbers[] = {
		{"cpu.family", offsetof(struct profile, family), 0},
		{"cpu.model", offsetof(struct profile, model), 0},
		{"cpu.stepping", offsetof(struct profile, stepping), 0},
		{"cpu.features", offsetof(struct profile, features), 0},
		{"cpu.l1d", offsetof(struct profile, l1d), 1},
		{"cpu.l2", offsetof(struct profile, l2), 1},
		{"cpu.l3", offsetof(struct profile, l3), 1},
		{"parallel.min_chunk", offsetof(struct profile, min_chunk), 1},
	};
	for (size_t i = 0; i < sizeof numbers / sizeof numbers[0]; i++) {
		if (strcmp(key, numbers[i].key))
			continue;
		errno = 0;
		unsigned long long v = strtoull(val, &end, 0);
		if (errno || end == val || *end || val[0] == '-')
			return -1;
		char *field = (char *)p + numbers[i].offset;
		if (numbers[i].is_size) {
			size_t s = (size_t)v;
			memcpy(field, &s, sizeof s);
		} else {
			if (v > UINT32_MAX)
				return -1;
			unsigned u = (unsigned)v;
			memcpy(field, &u, sizeof u);
		}
		return 0;
	}
	for (int cls = 0; cls < 3; cls++) {
		const char *name = ntm_class_key[cls];
		struct profile_ladder *l = &p->ladder[cls];
		char *dst;
		size_t cap;
		if (!strncmp(key, "ladder.", 7) && !strcmp(key + 7, name)) {
			dst = l->rungs;
			cap = sizeof l->rungs;
		} else if (!strncmp(key, "streaming.", 10) && !strcmp(key + 10, name)) {
			dst = l->streaming;
			cap = sizeof l->streaming;
		} else {
			continue;
		}
		if (!val[0] || strlen(val) >= cap)
			return -1;
		strcpy(dst, val);
		return 0;
	}
	return -1;
}

int ntm_profile_read(const char *path, const struct cpu *cpu,
		     struct profile *p, char *why, size_t why_len)
{
	/* Absent, as for most programs: one lstat, not the trust walk's
	 * (ntm_profile_open) open and stat of each directory on the way.
	 * A link, even a dangling one, still goes to the walk's verdict. */
	struct stat st;
	if (lstat(path, &st) && (errno == ENOENT || errno == ENOTDIR))
		return NTM_PROFILE_ABSENT;
	int fd = ntm_profile_open(path, why, why_len);
	if (fd < 0)
		return errno == ENOENT || errno == ENOTDIR ? NTM_PROFILE_ABSENT : -1;
	return ntm_profile_read_fd(fd, cpu, p, why, why_len);
}

int ntm_profile_read_fd(int fd, const struct cpu *cpu, struct profile *p,
			char *why, size_t why_len)
{
	/* Regular files only: a FIFO or device must not hang the first
	 * ntmem_set of a program (ntm_profile_open() refuses them too). */
	struct stat st;
	if (fstat(fd, &st)) {
		snprintf(why, why_len, "cannot open: %s", strerror(errno));
		close(fd);
		return -1;
	}
	if (!S_ISREG(st.st_mode)) {
		snprintf(why, why_len, "not a regular file");
		close(fd);
		return -1;
	}
	FILE *f = fdopen(fd, "r");
	if (!f) {
		snprintf(why, why_len, "cannot open: %s", strerror(errno));
		close(fd);
		return -1;
	}
	char *text = malloc(PROFILE_MAX_BYTES + 1);
	if (!text) {
		fclose(f);
		snprintf(why, why_len, "out of memory");
		return -1;
	}
	size_t len = fread(text, 1, PROFILE_MAX_BYTES + 1, f);
	fclose(f);
	int rc = -1;
	if (len > PROFILE_MAX_BYTES) {
		snprintf(why, why_len, "corrupt: larger than %d bytes",
			 PROFILE_MAX_BYTES);
		goto out;
	}
	text[len] = '\0';
	if (strlen(text) != len) {
		snprintf(why, why_len, "corrupt: contains a NUL byte");
		goto out;
	}

	unsigned format;
	int used = 0;
	if (sscanf(text, "ntmem-profile %u%n", &format, &used) != 1 ||
	    text[used] != '\n') {
		snprintf(why, why_len, "corrupt: not an ntmem profile");
		goto out;
	}
	if (format < NTM_PROFILE_FORMAT_OLDEST || format > NTM_PROFILE_FORMAT) {
		snprintf(why, why_len, "format %u is %s than this library's %d%s",
			 format, format > NTM_PROFILE_FORMAT ? "newer" : "older",
			 NTM_PROFILE_FORMAT,
			 format < NTM_PROFILE_FORMAT ? " (run ntmem calibrate again)"
						     : "");
		goto out;
	}

	/* The last line must be "end CHECKSUM" over everything before it. */
	char *end_line = NULL;
	for (char *s = text; (s = strstr(s, "\nend ")); s++)
		end_line = s + 1;
	unsigned checksum;
	if (!end_line || sscanf(end_line, "end %8x%n", &checksum, &used) != 1 ||
	    strcmp(end_line + used, "\n")) {
		snprintf(why, why_len, "truncated: no end line");
		goto out;
	}
	if (fnv1a(text, (size_t)(end_line - text)) != checksum) {
		snprintf(why, why_len, "corrupt: checksum mismatch");
		goto out;
	}

	struct profile got;
	memset(&got, 0, sizeof got);
	*end_line = '\0';
	int line_no = 1;
	char *save = NULL;
	for (char *line = strtok_r(strchr(text, '\n') + 1, "\n", &save); line;
	     line = strtok_r(NULL, "\n", &save)) {
		line_no++;
		if (line[0] == '#')
			continue;
		char *space = strchr(line, ' ');
		if (!space) {
			snprintf(why, why_len, "corrupt: line %d has no value",
				 line_no);
			goto out;
		}
		*space = '\0';
		if (parse_line(&got, line, space + 1)) {
			snprintf(why, why_len, "corrupt: bad line %d: %.40s",
				 line_no, line);
			goto out;
		}
	}

	struct profile here;
	ntm_profile_init(&here, cpu);
	if (!same_cpu(&got, &here)) {
		snprintf(why, why_len,
			 "made on another CPU (%s %u/%u/%u, features %#x, "
			 "L3 %zu; this one is %s %u/%u/%u, features %#x, L3 %zu)",
			 got.vendor, got.family, got.model, got.stepping,
			 got.features, got.l3, here.vendor, here.family,
			 here.model, here.stepping, here.features, here.l3);
		goto out;
	}
	*p = got;
	rc = 0;
out:
	free(text);
	return rc;
}

/* Append printf output to a growing buffer; stops silently at the end
 * (the caller checks *len against the size). */
__attribute__((format(printf, 4, 5)))
static void append(char *buf, size_t size, size_t *len, const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	if (*len < size) {
		int n = vsnprintf(buf + *len, size - *len, fmt, ap);
		*len += n > 0 ? (size_t)n : 0;
	}
	va_end(ap);
}

int ntm_profile_write(const char *path, const struct profile *p,
		      const char *comment, unsigned flags)
{
	char text[8192];
	size_t len = 0;
	append(text, sizeof text, &len, "ntmem-profile %d\n", NTM_PROFILE_FORMAT);
	/* What deleting it returns to (the CPU's recorded entry or the rule
	 * for CPUs not recorded) is the writer's to say, in comment. */
	append(text, sizeof text, &len,
	       "# Written by ntmem calibrate; read by libntmem.\n");
	for (const char *c = comment; c && *c;) {
		size_t n = strcspn(c, "\n");
		append(text, sizeof text, &len, "# %.*s\n", (int)n, c);
		c += n + (c[n] == '\n');
	}
	append(text, sizeof text, &len, "cpu.vendor %s\n", p->vendor);
	append(text, sizeof text, &len, "cpu.family %u\ncpu.model %u\n"
	       "cpu.stepping %u\ncpu.features %#x\n", p->family, p->model,
	       p->stepping, p->features);
	append(text, sizeof text, &len, "cpu.l1d %zu\ncpu.l2 %zu\ncpu.l3 %zu\n",
	       p->l1d, p->l2, p->l3);
	if (p->effort[0])
		append(text, sizeof text, &len, "made.effort %s\n", p->effort);
	if (p->made > 0)
		append(text, sizeof text, &len, "made.time %lld\n", p->made);
	if (p->min_chunk)
		append(text, sizeof text, &len, "parallel.min_chunk %zu\n",
		       p->min_chunk);
	for (int cls = 0; cls < 3; cls++) {
		const struct profile_ladder *l = &p->ladder[cls];
		if (l->rungs[0])
			append(text, sizeof text, &len, "ladder.%s %s\n",
			       ntm_class_key[cls], l->rungs);
		if (l->streaming[0])
			append(text, sizeof text, &len, "streaming.%s %s\n",
			       ntm_class_key[cls], l->streaming);
	}
	if (len >= sizeof text - 16) {  /* no room for the end line */
		errno = EOVERFLOW;
		return -1;
	}
	append(text, sizeof text, &len, "end %08x\n", fnv1a(text, len));

	/* The shared writer: a link followed, replaced atomically, with the
	 * modes the reader's trust needs (profile_trust.c): never writable
	 * by group or others, whatever the umask or the file replaced. */
	const struct ntm_outfile_modes private_modes = {.file = 0644, .dir = 0700};
	const struct ntm_outfile_modes shared = {.file = 0644, .dir = 0755,
						 .exact = 1};
	return ntm_outfile_write_modes(path, text, len, NTM_OUTFILE_MKDIR,
				       flags & NTM_PROFILE_SHARED ? &shared : &private_modes);
}

int ntm_profile_path(char *buf, size_t len, const char **why)
{
	const char *env = secure_getenv("NTMEM_PROFILE");
	if (env) {
		if (!env[0] || !strcmp(env, "none")) {
			*why = "disabled by NTMEM_PROFILE";
			return -1;
		}
		if ((size_t)snprintf(buf, len, "%s", env) >= len) {
			*why = "NTMEM_PROFILE is too long";
			return -1;
		}
		return 0;
	}
	const char *xdg = secure_getenv("XDG_CACHE_HOME");
	const char *home = secure_getenv("HOME");
	int n;
	if (xdg && xdg[0] == '/')
		n = snprintf(buf, len, "%s/ntmem/profile", xdg);
	else if (home && home[0] == '/')
		n = snprintf(buf, len, "%s/.cache/ntmem/profile", home);
	else {
		*why = "neither XDG_CACHE_HOME nor HOME is set";
		return -1;
	}
	if (n < 0 || (size_t)n >= len) {
		*why = "the profile path is too long";
		return -1;
	}
	return 0;
}

const char *ntm_profile_system_path(void)
{
	const char *env = secure_getenv("NTMEM_SYSTEM_PROFILE");
	return env && env[0] == '/' ? env : NTM_SYSTEM_PROFILE;
}

/* Is there a file at path, as far as this process can tell?  One behind
 * a directory it may not search is there: its reader says why. */
static int exists(const char *path)
{
	struct stat st;
	return !stat(path, &st) || (errno != ENOENT && errno != ENOTDIR);
}

int ntm_profile_in_effect(char *buf, size_t len, const char **why)
{
	int saved = errno;
	int user = ntm_profile_path(buf, len, why) == 0;
	if (secure_getenv("NTMEM_PROFILE"))
		return user ? 0 : -1;  /* named, or disabled: nothing else */
	if (user && exists(buf)) {
		errno = saved;
		return 0;
	}
	const char *sys = ntm_profile_system_path();
	if (exists(sys) && (size_t)snprintf(buf, len, "%s", sys) < len) {
		errno = saved;
		return 0;
	}
	errno = saved;
	return user ? 1 : -1;
}
