/*
 * early.c - calls that arrive before any library's constructor has run.
 *
 * A program's DT_PREINIT_ARRAY runs before the initializers of every
 * shared library, the shim's included: its memset, memcpy and memmove
 * calls reach the shim before its policy is built and before it has
 * asked the dynamic linker for the C library's functions.  They must
 * still give the right bytes (on the baseline variants and the portable
 * memmove), without a lock, an allocation or a crash.  The calls cover
 * the small path, the size beyond it, and overlapping copies both ways.
 */
#include "helper.h"

#include <string.h>

#define BIG ((1u << 20) + 37)

static unsigned char buf[2 * BIG + 8192], want[2 * BIG + 8192];
static char early_failure[256];
static int early_ran;

static void expect(const char *what, size_t n)
{
	long at = ref_differ(buf, want, sizeof buf);
	if (at >= 0 && !early_failure[0])
		snprintf(early_failure, sizeof early_failure,
			 "%s of %zu bytes: byte %ld differs", what, n, at);
}

static void before_everything(void)
{
	static const size_t ns[] = {0, 1, 33, 200, 513, 4100, BIG};
	early_ran = 1;
	for (size_t i = 0; i < sizeof ns / sizeof ns[0]; i++) {
		size_t n = ns[i];
		ref_pattern(buf, sizeof buf, (unsigned)i);
		ref_move(want, buf, sizeof buf);
		memset(buf + 3, 0x5a, n);
		ref_set(want + 3, 0x5a, n);
		expect("memset", n);
		memcpy(buf + BIG + 100, buf + 1, n);
		ref_move(want + BIG + 100, want + 1, n);
		expect("memcpy", n);
		memmove(buf + 64, buf + 1, n);   /* overlapping, forwards */
		ref_move(want + 64, want + 1, n);
		expect("memmove up", n);
		memmove(buf + 2, buf + 900, n);  /* overlapping, backwards */
		ref_move(want + 2, want + 900, n);
		expect("memmove down", n);
	}
}

__attribute__((section(".preinit_array"), used)) static void (*const
	run_first)(void) = before_everything;

int main(void)
{
	if (!early_ran)
		helper_fail("before the constructors", "the preinit function did not run");
	else if (early_failure[0])
		helper_fail("before the constructors", "%s", early_failure);
	else
		helper_pass("before the constructors");
	printf("INFO memset is defined by %s\n", helper_definer("memset"));
	return helper_exit();
}
