/* stack.c - a plain program's memcpy and memset on small and painted
 * stacks (tests/stackcheck.h), run by test_stack with the shim and
 * without: the C library's own figures are the reference. */
#define _GNU_SOURCE
#include <string.h>

#define STACK_COPY(d, s, n) memcpy((d), (s), (n))
#define STACK_SET(d, c, n) memset((d), (c), (n))
#include "../stackcheck.h"

int main(int argc, char **argv)
{
	return stackcheck_main(argc, argv);
}
