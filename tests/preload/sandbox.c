/* sandbox.c - a plain program that locks itself into a seccomp filter and
 * then makes large memcpy and memset calls (tests/sandbox.h): under the
 * shim, none of them may make a system call the filter refuses. */
#define _GNU_SOURCE
#include <stdlib.h>
#include <string.h>

#define SANDBOX_COPY(d, s, n) memcpy((d), (s), (n))
#define SANDBOX_SET(d, c, n) memset((d), (c), (n))
#include "../sandbox.h"

int main(int argc, char **argv)
{
	return sandbox_main(argc > 1 ? (unsigned)atoi(argv[1]) : SANDBOX_CALLS);
}
