/* test_variants.c - every variant this CPU supports gives libc's result.
 *
 * Each case fills the destination with bytes that differ from the
 * expected result, surrounds it with canary bytes, calls the variant
 * through the public API and compares against memset/memcpy semantics:
 * every byte written, nothing outside [dst, dst + n) touched.  Buffers sit
 * between PROT_NONE guard pages, and cases alternate between starting
 * just after the lower guard and ending just before the upper one. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "harness.h"
#include "ntmem.h"
#include "util/size.h"
#include "variants/variant.h"

#define CANARY 64
#define LARGE_MAX (64 * MiB)

static const int values[] = {0, 0xff, 0x5a, 0x01, 0x80, 0x7f, -1, 0x1234};

static struct guarded dst_buf, src_buf;
static unsigned char *src_pristine;

static unsigned char canary_byte(size_t i)
{
	return (unsigned char)(i * 131 + 7);
}

/* Where the destination of a case lies: offset off from a 64-byte
 * boundary, either near the lower guard or ending near the upper one. */
static unsigned char *place(struct guarded *g, size_t n, size_t off, int at_end)
{
	if (!at_end)
		return g->data + CANARY + off;
	size_t start = (g->cap - CANARY - n - off) & ~(size_t)63;
	return g->data + start + off;
}

static void fill_canaries(unsigned char *dst, size_t n)
{
	for (size_t i = 0; i < CANARY; i++) {
		dst[-(ptrdiff_t)CANARY + (ptrdiff_t)i] = canary_byte(i);
		dst[n + i] = canary_byte(i + CANARY);
	}
}

/* Returns NULL when the canaries are intact, else which side broke. */
static const char *broken_canary(const unsigned char *dst, size_t n)
{
	for (size_t i = 0; i < CANARY; i++) {
		if (dst[-(ptrdiff_t)CANARY + (ptrdiff_t)i] != canary_byte(i))
			return "wrote before dst";
		if (dst[n + i] != canary_byte(i + CANARY))
			return "wrote past dst + n";
	}
	return NULL;
}

/* One set case.  Returns 0, or -1 after describing the failure in err. */
static int set_case(int id, size_t n, size_t off, int c, int at_end,
		    char *err, size_t len)
{
	unsigned char *dst = place(&dst_buf, n, off, at_end);
	unsigned char want = (unsigned char)c;
	memset(dst, (unsigned char)~want, n);
	fill_canaries(dst, n);
	void *ret = ntmem_variant_set(id, dst, c, n, 0);
	const char *canary = broken_canary(dst, n);
	if (ret != dst) {
		snprintf(err, len, "n=%zu off=%zu c=%#x: returned %p, not dst (%s)",
			 n, off, c, ret, strerror(errno));
		return -1;
	}
	for (size_t i = 0; i < n; i++)
		if (dst[i] != want) {
			snprintf(err, len, "n=%zu off=%zu c=%#x: byte %zu is %#x",
				 n, off, c, i, dst[i]);
			return -1;
		}
	if (canary) {
		snprintf(err, len, "n=%zu off=%zu c=%#x: %s", n, off, c, canary);
		return -1;
	}
	return 0;
}

static int copy_case(int id, size_t n, size_t doff, size_t soff, int at_end,
		     char *err, size_t len)
{
	unsigned char *dst = place(&dst_buf, n, doff, at_end);
	const unsigned char *src = place(&src_buf, n, soff, !at_end);
	for (size_t i = 0; i < n; i++)
		dst[i] = (unsigned char)~src[i];
	fill_canaries(dst, n);
	void *ret = ntmem_variant_copy(id, dst, src, n, 0);
	const char *canary = broken_canary(dst, n);
	if (ret != dst) {
		snprintf(err, len, "n=%zu doff=%zu soff=%zu: returned %p (%s)",
			 n, doff, soff, ret, strerror(errno));
		return -1;
	}
	if (memcmp(dst, src, n)) {
		size_t i = 0;
		while (dst[i] == src[i])
			i++;
		snprintf(err, len, "n=%zu doff=%zu soff=%zu: byte %zu is %#x, want %#x",
			 n, doff, soff, i, dst[i], src[i]);
		return -1;
	}
	if (canary) {
		snprintf(err, len, "n=%zu doff=%zu soff=%zu: %s", n, doff, soff,
			 canary);
		return -1;
	}
	return 0;
}

struct group {
	char name[96];
	int failed;
	char err[256];
};

static void group_start(struct group *g, const struct ntmem_variant_info *v,
			const char *what)
{
	snprintf(g->name, sizeof g->name, "%s %s: %s",
		 v->op == NTMEM_OP_SET ? "set" : "copy", v->name, what);
	g->failed = 0;
}

static void group_end(struct group *g)
{
	if (g->failed)
		t_fail(g->name, "%s", g->err);
	else
		t_pass(g->name);
}

/* Run one case unless the group already failed (report the first only). */
#define CASE(g, call)                                                  \
	do {                                                           \
		if (!(g)->failed && (call))                            \
			(g)->failed = 1;                               \
	} while (0)

static int value_for(const struct ntmem_variant_info *v, size_t k)
{
	return v->zero_only ? 0 : values[k % (sizeof values / sizeof values[0])];
}

static void test_set(int id, const struct ntmem_variant_info *v)
{
	struct group g;
	size_t max_small = t_quick() ? 300 : 1024;
	size_t off_step = t_quick() ? 5 : 1;

	group_start(&g, v, "every size 0-1024 at every offset 0-63");
	for (size_t n = 0; n <= max_small; n++)
		for (size_t off = 0; off < 64; off += off_step)
			CASE(&g, set_case(id, n, off, value_for(v, n + off),
					  (int)((n + off) & 1), g.err, sizeof g.err));
	group_end(&g);

	group_start(&g, v, "every value at every offset");
	for (size_t k = 0; k < sizeof values / sizeof values[0]; k++)
		for (size_t off = 0; off < 64; off++)
			for (size_t n = 60; n <= 260; n += 50)
				CASE(&g, set_case(id, n, off, value_for(v, k),
						  (int)(off & 1), g.err, sizeof g.err));
	group_end(&g);

	static const size_t around[] = {4096, 2 * MiB};
	static const int deltas[] = {-129, -65, -64, -63, -1, 0, 1, 63, 64, 65, 129};
	static const size_t offs[] = {0, 1, 8, 31, 32, 63};
	group_start(&g, v, "sizes around 4 KiB and 2 MiB");
	for (size_t a = 0; a < 2; a++)
		for (size_t d = 0; d < sizeof deltas / sizeof deltas[0]; d++)
			for (size_t o = 0; o < sizeof offs / sizeof offs[0]; o++) {
				size_t n = around[a] + (size_t)(ptrdiff_t)deltas[d];
				CASE(&g, set_case(id, n, offs[o], value_for(v, d + o),
						  (int)(o & 1), g.err, sizeof g.err));
			}
	group_end(&g);

	group_start(&g, v, "random sizes up to 64 MiB");
	int rounds = t_quick() ? 2 : 6;
	size_t max = t_quick() ? 4 * MiB : LARGE_MAX;
	for (int r = 0; r < rounds; r++) {
		size_t n = t_rand() % max + 1;
		size_t off = t_rand() % 64;
		CASE(&g, set_case(id, n, off, value_for(v, t_rand()), r & 1,
				  g.err, sizeof g.err));
	}
	group_end(&g);

	if (v->zero_only) {
		/* Refuses other values with EINVAL and writes nothing. */
		unsigned char *dst = place(&dst_buf, 256, 3, 0);
		memset(dst, 0x33, 256);
		errno = 0;
		void *ret = ntmem_variant_set(id, dst, 0x11, 256, 0);
		int untouched = 1;
		for (size_t i = 0; i < 256; i++)
			untouched &= dst[i] == 0x33;
		snprintf(g.name, sizeof g.name, "set %s: refuses c != 0", v->name);
		t_check(!ret && errno == EINVAL && untouched, g.name,
			"returned %p, errno %d, untouched %d", ret, errno, untouched);
	}
}

static void test_copy(int id, const struct ntmem_variant_info *v)
{
	struct group g;
	size_t max_small = t_quick() ? 300 : 1024;
	size_t off_step = t_quick() ? 5 : 1;

	group_start(&g, v, "every size 0-1024 at every dst offset 0-63");
	for (size_t n = 0; n <= max_small; n++)
		for (size_t doff = 0; doff < 64; doff += off_step) {
			size_t soff = (doff * 37 + n) & 63;
			CASE(&g, copy_case(id, n, doff, soff, (int)((n + doff) & 1),
					   g.err, sizeof g.err));
		}
	group_end(&g);

	group_start(&g, v, "every dst and src offset pair");
	static const size_t sizes[] = {1, 63, 64, 65, 127, 128, 129, 255, 256, 300};
	size_t nsizes = t_quick() ? 4 : sizeof sizes / sizeof sizes[0];
	for (size_t s = 0; s < nsizes; s++)
		for (size_t doff = 0; doff < 64; doff++)
			for (size_t soff = 0; soff < 64; soff++)
				CASE(&g, copy_case(id, sizes[s] + (s ? 0 : 199), doff,
						   soff, (int)(soff & 1), g.err,
						   sizeof g.err));
	group_end(&g);

	static const size_t around[] = {4096, 16 * KiB, 2 * MiB};
	static const int deltas[] = {-129, -65, -64, -63, -1, 0, 1, 63, 64, 65, 129};
	static const size_t offs[] = {0, 1, 8, 31, 32, 63};
	/* Where a loop changes step: a page, four pages (a copy that moves
	 * four at once), a huge page. */
	group_start(&g, v, "sizes around 4 KiB, 16 KiB and 2 MiB");
	for (size_t a = 0; a < 3; a++)
		for (size_t d = 0; d < sizeof deltas / sizeof deltas[0]; d++)
			for (size_t o = 0; o < sizeof offs / sizeof offs[0]; o++) {
				size_t n = around[a] + (size_t)(ptrdiff_t)deltas[d];
				size_t soff = offs[(o + d) % 6];
				CASE(&g, copy_case(id, n, offs[o], soff, (int)(d & 1),
						   g.err, sizeof g.err));
			}
	group_end(&g);

	group_start(&g, v, "random sizes up to 64 MiB");
	int rounds = t_quick() ? 2 : 6;
	size_t max = t_quick() ? 4 * MiB : LARGE_MAX;
	for (int r = 0; r < rounds; r++) {
		size_t n = t_rand() % max + 1;
		CASE(&g, copy_case(id, n, t_rand() % 64, t_rand() % 64, r & 1,
				   g.err, sizeof g.err));
	}
	group_end(&g);

	snprintf(g.name, sizeof g.name, "copy %s: source left unchanged", v->name);
	t_check(!memcmp(src_buf.data, src_pristine, src_buf.cap), g.name,
		"the source buffer changed");
}

/* An unsupported variant must refuse, write nothing and say ENOTSUP. */
static void test_unsupported(int id, const struct ntmem_variant_info *v)
{
	char name[96];
	snprintf(name, sizeof name, "%s %s", v->op == NTMEM_OP_SET ? "set" : "copy",
		 v->name);
	t_skip(name, v->why_unsupported);

	unsigned char *dst = place(&dst_buf, 4096, 0, 0);
	memset(dst, 0x33, 4096);
	errno = 0;
	void *ret = v->op == NTMEM_OP_SET
			    ? ntmem_variant_set(id, dst, 0, 4096, 0)
			    : ntmem_variant_copy(id, dst, src_buf.data, 4096, 0);
	int untouched = 1;
	for (size_t i = 0; i < 4096; i++)
		untouched &= dst[i] == 0x33;
	snprintf(name, sizeof name, "%s %s: refuses with ENOTSUP",
		 v->op == NTMEM_OP_SET ? "set" : "copy", v->name);
	t_check(!ret && errno == ENOTSUP && untouched, name,
		"returned %p, errno %d, untouched %d", ret, errno, untouched);
}

int main(void)
{
	size_t cap = (t_quick() ? 4 * MiB : LARGE_MAX) + 4 * CANARY + 4096;
	if (t_guarded_alloc(&dst_buf, cap) || t_guarded_alloc(&src_buf, cap)) {
		t_fail("allocate buffers", "mmap failed");
		return t_finish();
	}
	for (size_t i = 0; i < src_buf.cap; i += 8) {
		uint64_t r = t_rand();
		memcpy(src_buf.data + i, &r, 8);
	}
	src_pristine = malloc(src_buf.cap);
	memcpy(src_pristine, src_buf.data, src_buf.cap);

	for (int id = 0; id < ntmem_variant_count(); id++) {
		struct ntmem_variant_info v;
		ntmem_variant_info(id, &v);
		if (!v.supported)
			test_unsupported(id, &v);
		else if (v.op == NTMEM_OP_SET)
			test_set(id, &v);
		else
			test_copy(id, &v);
		fflush(stdout);
	}
	free(src_pristine);
	t_guarded_free(&dst_buf);
	t_guarded_free(&src_buf);
	return t_finish();
}
