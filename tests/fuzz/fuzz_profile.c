/* fuzz_profile.c - the profile reader, ntm_profile_read_fd(), on a file
 * holding the input.
 *
 * Most inputs are wrapped into what a real profile is around its body,
 * so the reader gets past its gates: the header and this CPU's signature
 * (as ntm_profile_write() writes them, for an empty profile) before, and
 * a correct "end CHECKSUM" line (FNV-1a, 32-bit, of every byte before
 * it) after.  A profile that reads must write back and read again into
 * the same ladders. */
#define _GNU_SOURCE
#include <fcntl.h>
#include <unistd.h>

#include "dispatch/cpu.h"
#include "fuzz.h"
#include "dispatch/profile.h"

static char fp_dir[64], fp_path[96], fp_back[96];
static char fp_head[4096];   /* an empty profile up to its end line */

static uint32_t fp_fnv1a(const char *s, size_t n)
{
	uint32_t h = 0x811c9dc5u;
	for (size_t i = 0; i < n; i++)
		h = (h ^ (unsigned char)s[i]) * 0x01000193u;
	return h;
}

static void fp_cleanup(void)
{
	unlink(fp_path);
	unlink(fp_back);
	rmdir(fp_dir);
}

static void fp_setup(void)
{
	if (fp_dir[0])
		return;
	snprintf(fp_dir, sizeof fp_dir, "/tmp/ntmem-fuzz-profile-XXXXXX");
	if (!mkdtemp(fp_dir))
		abort();
	snprintf(fp_path, sizeof fp_path, "%s/profile", fp_dir);
	snprintf(fp_back, sizeof fp_back, "%s/back", fp_dir);
	atexit(fp_cleanup);
	struct profile p;
	ntm_profile_init(&p, ntm_cpu());
	if (ntm_profile_write(fp_path, &p, NULL, 0))
		abort();
	FILE *f = fopen(fp_path, "r");
	size_t n = f ? fread(fp_head, 1, sizeof fp_head - 1, f) : 0;
	if (f)
		fclose(f);
	fp_head[n] = '\0';
	char *end = strstr(fp_head, "\nend ");
	if (!end)
		abort();
	end[1] = '\0';
}

/* The file the reader gets: raw input, or the input as a body. */
static void fp_make(const uint8_t *data, size_t size, int wrap)
{
	FILE *f = fopen(fp_path, "w");
	if (!f)
		abort();
	if (!wrap) {
		fwrite(data, 1, size, f);
	} else {
		size_t head = strlen(fp_head);
		char *text = malloc(head + size + 1);
		if (!text)
			abort();
		memcpy(text, fp_head, head);
		memcpy(text + head, data, size);
		size_t n = head + size;
		if (n && text[n - 1] != '\n')
			text[n++] = '\n';
		fwrite(text, 1, n, f);
		fprintf(f, "end %08x\n", fp_fnv1a(text, n));
		free(text);
	}
	fclose(f);
}

static void fp_same(const struct profile *a, const struct profile *b)
{
	for (int c = 0; c < 3; c++)
		if (strcmp(a->ladder[c].rungs, b->ladder[c].rungs) ||
		    strcmp(a->ladder[c].streaming, b->ladder[c].streaming))
			FUZZ_FAIL("profile: class %d reads back as '%s'/'%s', was "
				  "'%s'/'%s'", c, b->ladder[c].rungs, b->ladder[c].streaming,
				  a->ladder[c].rungs, a->ladder[c].streaming);
	if (strcmp(a->effort, b->effort) || a->made != b->made)
		FUZZ_FAIL("profile: made reads back as '%s' %lld, was '%s' %lld",
			  b->effort, b->made, a->effort, a->made);
}

FUZZ_TARGET(profile)
{
	fp_setup();
	int wrap = size && data[0] % 8 != 0;
	fp_make(data + !!size, size ? size - 1 : 0, wrap);
	struct profile p, back;
	char why[200];
	memset(why, 'x', sizeof why);
	/* The reader itself: the trust of fp_path's directories (under
	 * /tmp, which nobody trusts) is test_profile_trust's. */
	if (ntm_profile_read_fd(open(fp_path, O_RDONLY | O_CLOEXEC), ntm_cpu(), &p,
				why, sizeof why)) {
		if (strnlen(why, sizeof why) == sizeof why || !why[0])
			FUZZ_FAIL("profile: failed without a terminated reason");
		return 0;
	}
	for (int c = 0; c < 3; c++)
		if (strnlen(p.ladder[c].rungs, sizeof p.ladder[c].rungs) ==
			    sizeof p.ladder[c].rungs ||
		    strnlen(p.ladder[c].streaming, sizeof p.ladder[c].streaming) ==
			    sizeof p.ladder[c].streaming)
			FUZZ_FAIL("profile: class %d's text is not terminated", c);
	if (ntm_profile_write(fp_back, &p, NULL, 0))
		FUZZ_FAIL("profile: what was read cannot be written back");
	if (ntm_profile_read_fd(open(fp_back, O_RDONLY | O_CLOEXEC), ntm_cpu(),
				&back, why, sizeof why))
		FUZZ_FAIL("profile: written back, it fails to read: %s", why);
	fp_same(&p, &back);
	return 0;
}
