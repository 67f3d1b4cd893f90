/* test_peers.c - bench's peers give memset's and memcpy's results: the
 * preloaded shim's own functions (opened from this build) and PMDK
 * libpmem's, streaming forced and by default, where it is installed
 * (Debian package libpmem1; skipped with dlopen's reason elsewhere).
 * And bench finds the shim next to its binary, or says why not. */
#include <libgen.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "harness.h"
#include "measure/functions.h"
#include "measure/peers.h"
#include "measure/shim_path.h"

/* Sizes across the small path, the ladder and streaming, and offsets that
 * misalign the destination and the source differently. */
static const size_t sizes[] = {0, 1, 7, 31, 64, 255, 256, 257, 1000, 4096,
			       65536 + 3, (1u << 20) + 17};
static const size_t offsets[] = {0, 1, 13, 64};
#define GUARD 64

/* f over every size and offset against memset and memcpy on the same
 * bytes; the bytes around the extent must be untouched.  NULL: all
 * agreed; else what did not. */
static const char *check_results(const struct fn *f, char *why, size_t len)
{
	size_t cap = (1u << 20) + 17 + 64 + 2 * GUARD;
	unsigned char *dst = malloc(cap), *want = malloc(cap), *src = malloc(cap);
	const char *bad = NULL;
	for (size_t i = 0; !bad && dst && want && src &&
			   i < sizeof sizes / sizeof sizes[0]; i++)
		for (size_t k = 0; !bad && k < sizeof offsets / sizeof offsets[0]; k++) {
			size_t n = sizes[i], d = GUARD + offsets[k];
			size_t s = GUARD + offsets[(k + 1) % 4];
			t_fill_pattern(dst, cap, 1);
			t_fill_pattern(want, cap, 1);
			t_fill_pattern(src, cap, 7);
			void *r;
			if (f->op == NTMEM_OP_SET) {
				memset(want + d, 0x5a, n);
				r = peer_set(f->peer, dst + d, 0x5a, n);
			} else {
				memcpy(want + d, src + s, n);
				r = peer_copy(f->peer, dst + d, src + s, n);
			}
			if (memcmp(dst, want, cap) || r != dst + d) {
				snprintf(why, len, "%zu bytes at offset %zu: %s", n,
					 offsets[k], r != dst + d ? "returned another "
					 "pointer" : "bytes differ from the C library's");
				bad = why;
			}
		}
	if (!dst || !want || !src)
		bad = "out of memory";
	free(dst);
	free(want);
	free(src);
	return bad;
}

static void check_peer(const struct peer *p, enum ntmem_op op)
{
	char name[160], why[256];
	snprintf(name, sizeof name, "peer %s: %s's results", p->def->name,
		 op == NTMEM_OP_SET ? "memset" : "memcpy");
	if (!p->supported) {
		t_skip(name, p->why);
		return;
	}
	struct fn f = {.name = p->def->name, .op = op, .kind = FN_PEER,
		       .supported = 1, .peer = p};
	const char *bad = check_results(&f, why, sizeof why);
	t_check(!bad, name, "%s", bad ? bad : "");
	/* Through bench's own call too. */
	unsigned char buf[300], ref[300];
	memset(buf, 1, sizeof buf);
	memset(ref, 1, sizeof ref);
	memset(ref + 10, 0, 200);
	snprintf(name, sizeof name, "peer %s: fn_run", p->def->name);
	if (op == NTMEM_OP_SET)
		t_check(fn_run(&f, buf + 10, NULL, 200, 0) == 0 &&
				!memcmp(buf, ref, sizeof buf),
			name, "the bytes differ");
}

/* The shim of the build under test: beside its ntmem binary. */
static void test_shim(void)
{
	char bin[PATH_MAX], path[PATH_MAX + 32];
	snprintf(bin, sizeof bin, "%s", t_ntmem());
	snprintf(path, sizeof path, "%s/libntmem-preload.so", dirname(bin));
	static struct peer p;
	peer_open(&p, peer_def_find("shim"), path);
	if (!p.supported) {
		t_fail("peer shim: opened", "%s", p.why);
		return;
	}
	check_peer(&p, NTMEM_OP_SET);
	check_peer(&p, NTMEM_OP_COPY);
	/* It must not have become this process's memcpy (RTLD_LOCAL). */
	t_check((void *)p.copy.plain != (void *)memcpy,
		"peer shim: opened without interposing", "%s",
		"its memcpy is this process's");
}

/* libpmem by its soname, as bench opens it. */
static void test_pmem(void)
{
	static const char *const names[] = {"pmem", "pmem_default"};
	for (size_t i = 0; i < 2; i++) {
		static struct peer p[2];
		peer_open(&p[i], peer_def_find(names[i]), NULL);
		check_peer(&p[i], NTMEM_OP_SET);
		check_peer(&p[i], NTMEM_OP_COPY);
		if (!p[i].supported)
			t_check(strstr(p[i].why, "libpmem.so.1") &&
					strstr(p[i].why, "libpmem1"),
				"peer pmem: missing, the reason names the library "
				"and its package", "%s", p[i].why);
	}
}

/* Listed for bench, the shim is looked for beside the program: this
 * test is not beside it, so the shim is unsupported, with where bench
 * looked, never left out silently. */
static void test_listed(void)
{
	struct fn fns[FN_MAX];
	size_t n = fn_list_peers(NTMEM_OP_COPY, fns, 0, FN_MAX);
	const struct fn *shim = fn_find(fns, n, "shim");
	const struct fn *pmem = fn_find(fns, n, "pmem");
	t_check(n == peer_count() && shim && pmem && pmem->streaming &&
			shim->kind == FN_PEER,
		"peers: listed for bench", "%zu listed", n);
	t_check(shim && (shim->supported ||
			 strstr(shim->why_unsupported, "cannot find libntmem-preload.so")),
		"peers: a shim not found is unsupported, saying where bench looked",
		"%s", shim ? shim->why_unsupported : "");
}

/* The tool finds the shim beside itself; a copy of the tool alone does
 * not, and says so among what it skipped. */
static void test_tool(void)
{
	char cmd[1024], *out = NULL;
	snprintf(cmd, sizeof cmd, "%s bench memcpy -f shim,glibc -s 64KB -r 1 -l 1 "
		 "--json", t_ntmem());
	int status = t_run(cmd, &out, NULL);
	t_check(status == 0 && out && strstr(out, "\"function\": \"shim\"") &&
			!strstr(out, "\"what\": \"shim\""),
		"peers: ntmem bench runs the shim beside its binary", "status %d: %s",
		status, out ? out : "");
	free(out);
	char installed[PATH_MAX];
	snprintf(installed, sizeof installed, "%s/%s", shim_libdir(), SHIM_NAME);
	if (t_under_qemu() || access(installed, F_OK) == 0) {
		t_skip("peers: a tool without its shim skips it, saying why",
		       t_under_qemu() ? "a copied binary under qemu-user runs "
		       "without the wrapper" : "a shim is installed in LIBDIR, "
		       "where a copied tool finds it");
		return;
	}
	if (t_scratch_make("peers"))
		return;
	snprintf(cmd, sizeof cmd, "cp '%s' '%s' && '%s' bench memcpy -f shim,glibc "
		 "-s 64KB -r 1 -l 1 --json", t_ntmem(), t_scratch_path("ntmem"),
		 t_scratch_path("ntmem"));
	status = t_run(cmd, &out, NULL);
	t_check(status == 0 && out && strstr(out, "\"what\": \"shim\"") &&
			strstr(out, "cannot find libntmem-preload.so"),
		"peers: a tool without its shim skips it, saying why", "status %d: %s",
		status, out ? out : "");
	free(out);
	t_scratch_remove();
}

int main(void)
{
	test_shim();
	test_pmem();
	test_listed();
	test_tool();
	return t_finish();
}
