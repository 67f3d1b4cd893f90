/*
 * resolver_lib.c - libresolver.so: a library whose IFUNC resolver copies
 * a table with memcpy, as a library that picks its code from a feature
 * table might.
 *
 * The resolver serves a reference from inside this library (an
 * IRELATIVE relocation), so the dynamic linker runs it while it relocates
 * this library: before it relocates a library preloaded ahead of it.
 * Built with -fno-plt, the call goes through a GOT entry bound by then to
 * the preloaded memcpy, which therefore runs before its own library is
 * relocated.  The answer says whether the copy came out right.
 */
#include <string.h>

static unsigned char table[1024], copied[1024];

static int copy_was_right(void)
{
	return 1;
}

static int copy_was_wrong(void)
{
	return 2;
}

__attribute__((used)) static int (*resolve_answer(void))(void)
{
	for (int i = 0; i < (int)sizeof table; i++)
		table[i] = (unsigned char)(i * 7 + 3);
	memcpy(copied, table, sizeof copied);
	for (int i = 0; i < (int)sizeof table; i++)
		if (copied[i] != table[i])
			return copy_was_wrong;
	return copy_was_right;
}

static int answer(void) __attribute__((ifunc("resolve_answer")));

int resolver_answer(void)
{
	return answer();
}
