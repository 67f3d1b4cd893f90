// header.cc - include/ntmem.h as a C++ program uses it, for test_build:
// every struct that shares its name with a function, declared as the
// header's C++ note says ("struct NAME x{};"), filled by that function.
// Compiled only (-fsyntax-only): it says whether C++ takes the header.
#include <ntmem.h>

#include <cstdio>

int main()
{
	struct ntmem_variant_info v{};
	struct ntmem_ladder_info li{};
	struct ntmem_policy_status st{};
	struct ntmem_adapt_info ai{};
	struct ntmem_cpu_info ci{};
	struct ntmem_parallel_info pi{};
	int bad = ntmem_variant_info(0, &v) |
		  ntmem_ladder_info(NTMEM_CLASS_COPY, &li) |
		  ntmem_policy_status(&st) |
		  ntmem_adapt_info(NTMEM_CLASS_COPY, &ai) |
		  ntmem_cpu_info(&ci) | ntmem_parallel_info(&pi);
	char buf[64] = "";
	ntmem_copy(buf, "copied", 7);
	ntmem_set_flags(buf + 7, 0, 1, NTMEM_F_TEMPORAL);
	std::printf("%s %d rungs\n", buf, li.nrungs);
	return bad ? 1 : 0;
}
