/* resolver.c - runs libresolver.so's IFUNC (see resolver_lib.c): by the
 * time main runs, the resolver has copied its table during relocation. */
#include "helper.h"

int resolver_answer(void);

int main(void)
{
	int a = resolver_answer();
	if (a == 1)
		helper_pass("a memcpy in an IFUNC resolver relocated first");
	else
		helper_fail("a memcpy in an IFUNC resolver relocated first",
			    "the resolver's copy came out wrong (%d)", a);
	return helper_exit();
}
