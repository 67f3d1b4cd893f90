/* test_api.c - the public entry points: results equal libc's for every
 * flag combination, EINVAL writes nothing, overlap gives memmove's result,
 * n == 0 accepts NULL, the direct variant calls check their arguments, and
 * a fenced streaming call publishes its data to another thread. */
#include <errno.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "harness.h"
#include "ntmem.h"
#include "util/size.h"

#define CANARY 64

static struct guarded buf, ref;

/* Sizes below and above the 1 MiB threshold main() sets, so both paths
 * run whatever this machine's default would be. */
static size_t sizes_full[] = {1, 63, 64, 100, 4099, 65536 + 17, 1 * MiB + 5,
			      40 * MiB + 3};
static size_t sizes_quick[] = {1, 63, 64, 100, 4099, 65536 + 17, 1 * MiB + 5};

static size_t *sizes(size_t *count)
{
	if (t_quick()) {
		*count = sizeof sizes_quick / sizeof sizes_quick[0];
		return sizes_quick;
	}
	*count = sizeof sizes_full / sizeof sizes_full[0];
	return sizes_full;
}

static int region_equals(const unsigned char *a, const unsigned char *b, size_t n)
{
	return memcmp(a, b, n) == 0;
}

static const char *flag_names(unsigned flags)
{
	static char buf[64];
	snprintf(buf, sizeof buf, "%s%s%s", flags & NTMEM_F_TEMPORAL ? "T" : "",
		 flags & NTMEM_F_NONTEMPORAL ? (flags & NTMEM_F_TEMPORAL ? "+NT" : "NT") : "",
		 flags & NTMEM_F_NOFENCE ? "+NOFENCE" : "");
	return flags ? buf : "0";
}

static void test_flag_combinations(void)
{
	size_t nsizes, *sz = sizes(&nsizes);
	for (unsigned flags = 0; flags < 8; flags++) {
		int invalid = (flags & NTMEM_F_TEMPORAL) && (flags & NTMEM_F_NONTEMPORAL);
		char name[96];
		int ok = 1;
		char why[160] = "";
		for (size_t i = 0; ok && i < nsizes; i++) {
			size_t n = sz[i], off = (i * 13) % 64;
			unsigned char *d = buf.data + CANARY + off;
			unsigned char *r = ref.data + CANARY + off;
			/* set */
			t_fill_pattern(buf.data, n + 2 * CANARY + 64, 1);
			memcpy(ref.data, buf.data, n + 2 * CANARY + 64);
			errno = 0;
			void *ret = ntmem_set_flags(d, 0xa7, n, flags);
			if (!invalid)
				memset(r, 0xa7, n);
			if (invalid ? (ret || errno != EINVAL) : ret != d) {
				ok = 0;
				snprintf(why, sizeof why, "set n=%zu returned %p errno %d", n, ret, errno);
			} else if (!region_equals(buf.data, ref.data, n + 2 * CANARY + 64)) {
				ok = 0;
				snprintf(why, sizeof why, "set n=%zu: result differs from memset", n);
			}
			/* copy, from the reference area into buf */
			unsigned char *s = ref.data + 2 * CANARY + 64 + n + (i % 64);
			t_fill_pattern(s, n, 9);
			t_fill_pattern(buf.data, n + 2 * CANARY + 64, 3);
			unsigned char *expect = malloc(n + 2 * CANARY + 64);
			memcpy(expect, buf.data, n + 2 * CANARY + 64);
			if (!invalid)
				memcpy(expect + CANARY + off, s, n);
			errno = 0;
			ret = ntmem_copy_flags(d, s, n, flags);
			if (ok && (invalid ? (ret || errno != EINVAL) : ret != d)) {
				ok = 0;
				snprintf(why, sizeof why, "copy n=%zu returned %p errno %d", n, ret, errno);
			} else if (ok && !region_equals(buf.data, expect, n + 2 * CANARY + 64)) {
				ok = 0;
				snprintf(why, sizeof why, "copy n=%zu: result differs from memcpy", n);
			}
			free(expect);
		}
		snprintf(name, sizeof name, "flags %s: %s", flag_names(flags),
			 invalid ? "EINVAL, nothing written" : "memset/memcpy results");
		if (flags & NTMEM_F_NOFENCE)
			ntmem_fence();
		t_check(ok, name, "%s", why);
	}
}

static void test_unknown_flags(void)
{
	static const unsigned bad[] = {0x8, 0x10, 0x80000000u, 0xffffffffu};
	int ok = 1;
	for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
		memset(buf.data, 0x11, 4096);
		errno = 0;
		void *a = ntmem_set_flags(buf.data, 0, 4096, bad[i]);
		int e1 = errno;
		errno = 0;
		void *b = ntmem_copy_flags(buf.data, ref.data, 4096, bad[i]);
		int e2 = errno;
		for (size_t k = 0; k < 4096; k++)
			ok &= buf.data[k] == 0x11;
		ok &= !a && !b && e1 == EINVAL && e2 == EINVAL;
	}
	t_check(ok, "unknown flag bits: EINVAL, nothing written", "a flag was accepted or wrote");
}

static void test_zero_length(void)
{
	int ok = 1;
	errno = 0;
	ok &= ntmem_set(NULL, 0, 0) == NULL;
	ok &= ntmem_copy(NULL, NULL, 0) == NULL;
	ok &= ntmem_set_flags(NULL, 0xff, 0, NTMEM_F_NONTEMPORAL) == NULL;
	ok &= ntmem_copy_flags(NULL, NULL, 0, NTMEM_F_TEMPORAL | NTMEM_F_NOFENCE) == NULL;
	ok &= ntmem_copy(buf.data, NULL, 0) == buf.data;
	ok &= errno == 0;
	for (int id = 0; id < ntmem_variant_count(); id++) {
		struct ntmem_variant_info v;
		ntmem_variant_info(id, &v);
		if (!v.supported)
			continue;
		errno = 0;
		void *r = v.op == NTMEM_OP_SET ? ntmem_variant_set(id, NULL, 0, 0, 0)
					       : ntmem_variant_copy(id, NULL, NULL, 0, 0);
		ok &= r == NULL && errno == 0;
	}
	t_check(ok, "n == 0 with NULL pointers: returns dst, touches nothing", "failed");
}

static void test_overlap(void)
{
	static const size_t shifts[] = {1, 7, 63, 64, 4096};
	size_t nsizes, *sz = sizes(&nsizes);
	static const unsigned flag_sets[] = {0, NTMEM_F_TEMPORAL, NTMEM_F_NONTEMPORAL};
	int ok = 1;
	char why[160] = "";
	for (size_t f = 0; f < 3; f++)
		for (size_t s = 0; s < sizeof shifts / sizeof shifts[0]; s++)
			for (size_t i = 0; ok && i < nsizes; i++)
				for (int dir = 0; ok && dir < 2; dir++) {
					size_t n = sz[i], k = shifts[s];
					size_t span = n + k + 64;
					t_fill_pattern(buf.data, span, (unsigned)(s + i));
					memcpy(ref.data, buf.data, span);
					unsigned char *d = buf.data + (dir ? 0 : k);
					unsigned char *src = buf.data + (dir ? k : 0);
					memmove(ref.data + (dir ? 0 : k), ref.data + (dir ? k : 0), n);
					void *r = ntmem_copy_flags(d, src, n, flag_sets[f]);
					if (r != d || memcmp(buf.data, ref.data, span)) {
						ok = 0;
						snprintf(why, sizeof why,
							 "n=%zu shift=%zu %s flags %u", n, k,
							 dir ? "backward" : "forward", flag_sets[f]);
					}
				}
	t_check(ok, "overlapping copies give memmove's result, both directions", "%s", why);

	/* A variant called directly refuses overlap rather than corrupt. */
	int id = ntmem_variant_find(NTMEM_OP_COPY, "portable");
	memset(buf.data, 0x22, 8192);
	errno = 0;
	void *r = ntmem_variant_copy(id, buf.data + 8, buf.data, 4096, 0);
	int untouched = 1;
	for (size_t k = 0; k < 8192; k++)
		untouched &= buf.data[k] == 0x22;
	t_check(!r && errno == EINVAL && untouched,
		"ntmem_variant_copy on overlapping buffers: EINVAL, nothing written",
		"returned %p errno %d", r, errno);
}

static void test_variant_calls(void)
{
	int n = ntmem_variant_count(), ok = 1;
	char why[160] = "";
	struct ntmem_variant_info v, w;
	for (int a = 0; a < n; a++) {
		ntmem_variant_info(a, &v);
		if (!v.name[0] || !v.description[0] || (v.supported != !v.why_unsupported)) {
			ok = 0;
			snprintf(why, sizeof why, "variant %d is incomplete", a);
		}
		if (ntmem_variant_find(v.op, v.name) != a) {
			ok = 0;
			snprintf(why, sizeof why, "find(%s) is not %d", v.name, a);
		}
		for (int b = a + 1; b < n; b++) {
			ntmem_variant_info(b, &w);
			if (w.op == v.op && !strcmp(w.name, v.name)) {
				ok = 0;
				snprintf(why, sizeof why, "name %s repeats", v.name);
			}
		}
	}
	t_check(ok && n > 0, "registry: complete entries, unique names per operation", "%s", why);

	errno = 0;
	int bad_find = ntmem_variant_find(NTMEM_OP_SET, "nosuch") == -1 && errno == ENOENT;
	errno = 0;
	int bad_info = ntmem_variant_info(n, &v) == -1 && errno == EINVAL &&
		       ntmem_variant_info(-1, &v) == -1;
	t_check(bad_find && bad_info, "registry: unknown name ENOENT, bad id EINVAL", "failed");

	int set_id = ntmem_variant_find(NTMEM_OP_SET, "portable");
	int copy_id = ntmem_variant_find(NTMEM_OP_COPY, "portable");
	memset(buf.data, 0x44, 256);
	errno = 0;
	int wrong_op = !ntmem_variant_set(copy_id, buf.data, 0, 256, 0) && errno == EINVAL;
	errno = 0;
	wrong_op &= !ntmem_variant_copy(set_id, buf.data, ref.data, 256, 0) && errno == EINVAL;
	errno = 0;
	wrong_op &= !ntmem_variant_set(set_id, buf.data, 0, 256, NTMEM_F_TEMPORAL) &&
		    errno == EINVAL;
	errno = 0;
	wrong_op &= !ntmem_variant_set(n + 5, buf.data, 0, 256, 0) && errno == EINVAL;
	int untouched = 1;
	for (int k = 0; k < 256; k++)
		untouched &= buf.data[k] == 0x44;
	t_check(wrong_op && untouched,
		"direct calls: wrong operation, bad flags or bad id give EINVAL",
		"wrong_op %d untouched %d", wrong_op, untouched);

	ntmem_variant_set(set_id, buf.data, 0x55, 256, NTMEM_F_NOFENCE);
	ntmem_fence();
	int all = 1;
	for (int k = 0; k < 256; k++)
		all &= buf.data[k] == 0x55;
	t_check(all, "direct calls: NTMEM_F_NOFENCE accepted", "bytes differ");

	char version[32];
	snprintf(version, sizeof version, "%d.%d.%d", NTMEM_VERSION_MAJOR,
		 NTMEM_VERSION_MINOR, NTMEM_VERSION_PATCH);
	t_check(!strcmp(version, ntmem_version()), "ntmem_version matches the header",
		"%s vs %s", ntmem_version(), version);
}

/* The fence contract: a streaming fill, then a release store of a flag;
 * a reader that acquires the flag must see every byte. */
#define PUBLISH_BYTES (256 * 1024)
static atomic_int round_published, round_seen;
static unsigned char *shared;
static int rounds;
static int reader_failures;

static void *reader(void *arg)
{
	(void)arg;
	for (int r = 1; r <= rounds; r++) {
		while (atomic_load_explicit(&round_published, memory_order_acquire) < r)
			;
		unsigned char want = (unsigned char)r;
		for (size_t i = 0; i < PUBLISH_BYTES; i += 64)
			if (shared[i] != want || shared[i + 63] != want) {
				reader_failures++;
				break;
			}
		atomic_store_explicit(&round_seen, r, memory_order_release);
	}
	return NULL;
}

static void test_publication(void)
{
	rounds = t_quick() ? 20 : 200;
	shared = buf.data;
	atomic_store(&round_published, 0);
	atomic_store(&round_seen, 0);
	pthread_t t;
	pthread_create(&t, NULL, reader, NULL);
	for (int r = 1; r <= rounds; r++) {
		while (atomic_load_explicit(&round_seen, memory_order_acquire) < r - 1)
			;
		ntmem_set_flags(shared, r, PUBLISH_BYTES, NTMEM_F_NONTEMPORAL);
		atomic_store_explicit(&round_published, r, memory_order_release);
	}
	pthread_join(t, NULL);
	t_check(reader_failures == 0,
		"fence contract: a release store after a streaming call publishes it",
		"%d rounds saw stale bytes", reader_failures);
}

int main(void)
{
	/* The policy under test, not the user's: set before the first call. */
	setenv("NTMEM_PROFILE", "none", 1);
	setenv("NTMEM_TUNABLES", "set_threshold=1MiB,copy_threshold=1MiB", 1);
	size_t cap = (t_quick() ? 4 : 96) * MiB + 8192;
	if (t_guarded_alloc(&buf, cap) || t_guarded_alloc(&ref, cap)) {
		t_fail("allocate", "mmap failed");
		return t_finish();
	}
	test_flag_combinations();
	test_unknown_flags();
	test_zero_length();
	test_overlap();
	test_variant_calls();
	test_publication();
	return t_finish();
}
