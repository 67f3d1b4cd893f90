/* width.c - which width the shim's calls run in this process: memcpy and
 * memset of every size class, then the name ntmem_preload_width() gives
 * ("none" without the shim).  Under valgrind, which runs no AVX-512
 * instruction, a call that ran one would end the program with SIGILL. */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int main(void)
{
	static unsigned char a[1 << 20], b[1 << 20];
	for (size_t n = 0; n <= sizeof a; n = n < 1024 ? n + 1 : n * 2) {
		memset(a, (int)n, n);
		memcpy(b, a, n);
		memmove(b + 1, b, n ? n - 1 : 0);
		if (n && b[n - 1] != (unsigned char)n && n > 1)
			return 1;
	}
	const char *(*width)(void) =
		(const char *(*)(void))dlsym(RTLD_DEFAULT, "ntmem_preload_width");
	printf("%s\n", width ? width() : "none");
	return 0;
}
