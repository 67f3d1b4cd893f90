/* test_loops.c - every loop of the assembly lies in as few 64-byte lines
 * of code as its length allows (LOOP_LINE, src/variants/classes_x86_64.h).
 *
 * Where a loop starts decides how many lines the front end fetches for
 * each pass: on the Xeon a loop across two lines cost some mixes of
 * sizes 3% more time, and up to 40% on sequences the branch predictor
 * had learnt (docs/results.md).
 * This reads the assembled objects of the build under test (objdump);
 * their .text is 64-byte aligned, so each offset in a line is the same in
 * every library linked from them.  A loop is a jump back to an earlier
 * place in the same function: from its target to the end of the jump.
 * Loops of streaming stores run at memory speed and are left out. */
#define _GNU_SOURCE
#include <libgen.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "harness.h"

#if defined(__x86_64__)

#define LINE 64

/* The objects built from *_x86_64.S, relative to the build. */
static const char *const objects[] = {
	"src/variants/cached_x86_64.o", "src/entry/entry_x86_64.o",
	"src/safe/guarded_x86_64.o", "src/preload/preload_x86_64.o",
	"src/preload/width-sse2.o", "src/preload/width-avx2.o",
	"src/preload/width-avx512.o",
};

/* A streaming store: a loop of them runs at memory speed, whatever its
 * place in the code, and is not checked. */
static int streams(const char *op)
{
	return !strncmp(op, "movnt", 5) || !strncmp(op, "vmovnt", 6) ||
	       !strcmp(op, "movdir64b") || !strcmp(op, "clzero");
}

#define MAX_INSNS 8192

struct insn {
	unsigned long at, target;  /* target: of a jump back, else 0 */
	char op[32];
};
static struct insn insns[MAX_INSNS];

/* The loops of one function, insns[0, n): each in the fewest lines its
 * length allows, ceil(len / LINE). */
static void check_function(const char *obj, const char *fn, int n, int *loops)
{
	for (int i = 0; i + 1 < n; i++) {
		if (!insns[i].target)
			continue;
		unsigned long from = insns[i].target, end = insns[i + 1].at;
		int nt = 0;
		for (int k = 0; k <= i; k++)
			if (insns[k].at >= from && streams(insns[k].op))
				nt = 1;
		if (nt)
			continue;
		unsigned long len = end - from;
		unsigned long lines = (end - 1) / LINE - from / LINE + 1;
		unsigned long least = (len + LINE - 1) / LINE;
		(*loops)++;
		t_check(lines == least, "loops: lines of a loop", "%s: %s's loop at "
			"%#lx (+%#lx in its line), %lu bytes, spans %lu lines where "
			"%lu would do", obj, fn, from, from % LINE, len, lines, least);
	}
}

/* The loops of one object; -1 when objdump cannot read it. */
static int read_object(const char *build, const char *obj, int *loops)
{
	char cmd[4700];
	snprintf(cmd, sizeof cmd, "objdump -d --no-show-raw-insn '%.4000s/%.500s' "
		 "2>/dev/null", build, obj);
	FILE *p = popen(cmd, "r");
	if (!p)
		return -1;
	char line[1024], fn[256] = "";
	unsigned long fn_start = 0;
	int n = 0, seen = 0;
	while (fgets(line, sizeof line, p)) {
		unsigned long a, t;
		char name[256], op[32];
		if (sscanf(line, "%lx <%255[^>]>:", &a, name) == 2) {
			check_function(obj, fn, n, loops);
			snprintf(fn, sizeof fn, "%s", name);
			fn_start = a;
			n = 0;
			seen = 1;
			continue;
		}
		if (sscanf(line, " %lx: %31s", &a, op) != 2 || n == MAX_INSNS)
			continue;
		insns[n].at = a;
		insns[n].target = 0;
		snprintf(insns[n].op, sizeof insns[n].op, "%s", op);
		if (op[0] == 'j' && sscanf(line, " %*x: %*s %lx <", &t) == 1 &&
		    t >= fn_start && t < a)
			insns[n].target = t;
		n++;
	}
	/* The last function: its last instruction ends no loop we can
	 * measure, and the assembly ends every function with a return. */
	check_function(obj, fn, n, loops);
	return pclose(p) == 0 && seen ? 0 : -1;
}

int main(void)
{
	const char *wrapper = getenv("TEST_WRAPPER");
	if (wrapper && *wrapper) {
		t_skip("loops", "under an emulator the native builds check the "
		       "objects, which are the same code");
		return t_finish();
	}
	char tool[4096], build[4096];
	snprintf(tool, sizeof tool, "%s", t_ntmem());
	snprintf(build, sizeof build, "%s", dirname(tool));
	int loops = 0;
	for (size_t i = 0; i < sizeof objects / sizeof objects[0]; i++) {
		char path[8700];
		snprintf(path, sizeof path, "%s/%s", build, objects[i]);
		if (access(path, R_OK)) {
			t_skip("loops", "an assembled object was not found beside ntmem");
			return t_finish();
		}
		if (read_object(build, objects[i], &loops)) {
			t_skip("loops", "objdump cannot read the objects (install binutils)");
			return t_finish();
		}
	}
	t_check(loops >= 20, "loops: the loops were found", "%d loops in the objects",
		loops);
	return t_finish();
}

#else

int main(void)
{
	t_skip("loops", "the loops checked are the x86-64 assembly's");
	return t_finish();
}

#endif
