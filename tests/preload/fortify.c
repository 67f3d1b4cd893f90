/*
 * fortify.c - a program built with -O2 -D_FORTIFY_SOURCE=2, as Debian
 * builds its packages: its copies into objects of known size become calls
 * of __memcpy_chk and the other checking forms.
 *
 *   fortify ok N             each checking form once with N bytes (N <= 64)
 *                            into a 64-byte member, checked; the counts are
 *                            for test_preload to compare with the report
 *   fortify overflow F N     F (memcpy, memmove, memset, explicit_bzero)
 *                            of N bytes into 8 bytes: the checking form
 *                            must abort the program, as the C library's
 *                            does
 *   fortify chk NAME N       the checking form NAME called by name with N
 *                            bytes for an 8-byte destination: the same
 */
#include "helper.h"
#include "preload/glibc_chk.h"

#include <string.h>

struct record {
	char head[8];
	char body[64];
	char tail[8];
};

static const char *checking_form(const char *f)
{
	if (!strcmp(f, "memcpy"))
		return "__memcpy_chk";
	if (!strcmp(f, "memmove"))
		return "__memmove_chk";
	if (!strcmp(f, "memset"))
		return "__memset_chk";
	if (!strcmp(f, "explicit_bzero"))
		return "__explicit_bzero_chk";
	return NULL;
}

static void check(const char *name, const struct record *r, const char *want,
		  size_t n)
{
	if (ref_differ(r->body, want, n) >= 0 || r->head[7] != 'h' ||
	    r->tail[0] != 't')
		helper_fail(name, "wrong bytes for n=%zu", n);
	else
		helper_pass(name);
}

/* One call of each checking form; returns how many calls it made. */
static int run_ok(size_t n)
{
	static const char *const forms[] = {"__memcpy_chk", "__memmove_chk",
		"__mempcpy_chk", "__memset_chk", "__explicit_bzero_chk"};
	struct record r;
	char src[64], want[64];
	ref_pattern(src, sizeof src, 9);
	ref_set(&r, 0, sizeof r);
	ref_set(r.head, 'h', sizeof r.head);
	ref_set(r.tail, 't', sizeof r.tail);
	for (size_t i = 0; i < sizeof forms / sizeof forms[0]; i++)
		printf("INFO %s is defined by %s\n", forms[i],
		       helper_definer(forms[i]));

	memcpy(r.body, src, n);
	check("fortified memcpy", &r, src, n);
	memmove(r.body + 1, r.body, n - 1);
	ref_move(want + 1, src, n - 1);
	want[0] = src[0];
	check("fortified memmove", &r, want, n);
	if (mempcpy(r.body, src, n) != r.body + n)
		helper_fail("fortified mempcpy", "wrong return value");
	check("fortified mempcpy", &r, src, n);
	memset(r.body, 0x77, n);
	ref_set(want, 0x77, n);
	check("fortified memset", &r, want, n);
	explicit_bzero(r.body, n);
	ref_set(want, 0, n);
	check("fortified explicit_bzero", &r, want, n);
	return 5;
}

static int run_overflow(const char *f, size_t n)
{
	const char *form = checking_form(f);
	if (!form) {
		fprintf(stderr, "fortify: unknown function '%s'\n", f);
		return 2;
	}
	/* An object of its own: the fortified calls check against the size
	 * of the whole object (glibc's __builtin_object_size(p, 0)).  glibc's
	 * malloc(8) has room for 24, so a check that failed to stop the call
	 * would still not corrupt anything. */
	char *small = malloc(8);
	char src[64];
	if (!small)
		return 1;
	ref_pattern(src, sizeof src, 3);
	printf("INFO %s is defined by %s\n", form, helper_definer(form));
	fflush(stdout);
	if (!strcmp(f, "memcpy"))
		memcpy(small, src, n);
	else if (!strcmp(f, "memmove"))
		memmove(small, src, n);
	else if (!strcmp(f, "memset"))
		memset(small, 1, n);
	else
		explicit_bzero(small, n);
	printf("INFO the first byte is now %d\n", small[0]);  /* keeps the call */
	free(small);
	helper_fail("overflow", "%s of %zu bytes into 8 was not stopped", form, n);
	return helper_exit();
}

/* The checking forms called by name, as a fortified program built by
 * another compiler may call them, with a destination 8 bytes long. */
static int run_chk(const char *name, size_t n)
{
	char dst[64], src[64];  /* room for what a failed check lets through */
	ref_pattern(src, sizeof src, 4);
	printf("INFO %s is defined by %s\n", name, helper_definer(name));
	fflush(stdout);
	if (!strcmp(name, "__memcpy_chk"))
		__memcpy_chk(dst, src, n, 8);
	else if (!strcmp(name, "__memmove_chk"))
		__memmove_chk(dst, src, n, 8);
	else if (!strcmp(name, "__mempcpy_chk"))
		__mempcpy_chk(dst, src, n, 8);
	else if (!strcmp(name, "__memset_chk"))
		__memset_chk(dst, 0, n, 8);
	else if (!strcmp(name, "__explicit_bzero_chk"))
		__explicit_bzero_chk(dst, n, 8);
	else
		return 2;
	helper_fail("overflow", "%s of %zu bytes into 8 was not stopped", name, n);
	return helper_exit();
}

int main(int argc, char **argv)
{
	if (argc == 3 && !strcmp(argv[1], "ok")) {
		/* Through a volatile: a size the compiler can bound is one it
		 * proves safe, and then it calls plain memcpy. */
		volatile size_t n = strtoul(argv[2], NULL, 10);
		if (n < 1 || n > 64)
			return 2;
		printf("INFO %d calls of %zu bytes\n", run_ok(n), (size_t)n);
		return helper_exit();
	}
	if (argc == 4 && !strcmp(argv[1], "overflow"))
		return run_overflow(argv[2], strtoul(argv[3], NULL, 10));
	if (argc == 4 && !strcmp(argv[1], "chk"))
		return run_chk(argv[2], strtoul(argv[3], NULL, 10));
	fprintf(stderr, "usage: fortify ok N | fortify overflow FUNCTION N | "
		"fortify chk NAME N\n");
	return 2;
}
