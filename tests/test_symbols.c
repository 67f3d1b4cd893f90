/* test_symbols.c - the layers hold by symbols as well as by includes.
 *
 * test_layers reads the #include lines; this reads the object files of
 * the build under test (nm): which definitions each object uses, weak
 * hooks, callbacks named by address and the assembly's references among
 * them.  Each object lies in its folder's layer, as docs/architecture.md
 * maps them:
 *   src/util < src/variants < src/dispatch < src/safe < src/parallel
 *   < src/entry < src/preload;
 *   the library < tools/output < tools/measure < tools/COMMAND < tools.
 * An object may use definitions of its own layer and of those below it
 * (a command none of another command's), and no objects may use each
 * other round a circle, within a layer too.  The C library's names that
 * the shim defines (memset, memcpy, ...) are the C library's to every
 * other object, and are not counted. */
#define _GNU_SOURCE
#include <dirent.h>
#include <libgen.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "harness.h"

#define MAX_OBJECTS 256
#define MAX_SYMBOLS 8192

static const char *const src_order[] = {
	"src/util", "src/variants", "src/dispatch", "src/safe", "src/parallel",
	"src/entry", "src/preload",
};
#define NSRC (sizeof src_order / sizeof src_order[0])

struct object {
	char path[512];      /* relative to the build: src/entry/ntmem.o */
	char layer[64];
};
static struct object objects[MAX_OBJECTS];
static int nobjects;

struct symbol {
	char name[96];
	int object;
	int defined;         /* 2 strong, 1 weak, 0 used */
};
static struct symbol symbols[MAX_SYMBOLS];
static int nsymbols;

static char build[4096];

/* The layer's rank: src's in order, then the tools' (output, measure,
 * every command, the command table); -1 for none. */
static int rank_of(const char *layer)
{
	for (size_t i = 0; i < NSRC; i++)
		if (!strcmp(layer, src_order[i]))
			return (int)i;
	if (!strcmp(layer, "tools/output"))
		return 10;
	if (!strcmp(layer, "tools/measure"))
		return 11;
	if (!strcmp(layer, "tools"))
		return 13;
	return strncmp(layer, "tools/", 6) ? -1 : 12;
}

/* May an object of layer `from` use a definition of layer `to`? */
static int may_use(const char *from, const char *to)
{
	int a = rank_of(from), b = rank_of(to);
	if (!strcmp(from, to))
		return 1;
	if (a == 12 && b == 12)
		return 0;  /* one command, another command's parts */
	return a >= 0 && b >= 0 && b < a;
}

static void add_object(const char *rel)
{
	if (nobjects == MAX_OBJECTS)
		return;
	struct object *o = &objects[nobjects++];
	snprintf(o->path, sizeof o->path, "%s", rel);
	const char *slash = strchr(rel, '/');
	const char *second = slash ? strchr(slash + 1, '/') : NULL;
	snprintf(o->layer, sizeof o->layer, "%.*s",
		 (int)(second ? second - rel : slash - rel), rel);
}

/* Does the object rel (src/a/b.o) still have its source (src/a/b.c or
 * .S, from the source tree the tests run in)?  One whose source is gone
 * is left over from an older build, and not part of this one. */
static int has_source(const char *rel)
{
	char path[600];
	size_t n = strlen(rel) - 1;  /* up to the 'o' of ".o" */
	snprintf(path, sizeof path, "%.*sc", (int)n, rel);
	if (!access(path, F_OK))
		return 1;
	snprintf(path, sizeof path, "%.*sS", (int)n, rel);
	return !access(path, F_OK);
}

static void walk(const char *rel)
{
	char dir[4400];
	snprintf(dir, sizeof dir, "%s/%s", build, rel);
	DIR *d = opendir(dir);
	struct dirent *e;
	while (d && (e = readdir(d))) {
		char sub[512];
		struct stat st;
		char full[4700];
		if (e->d_name[0] == '.')
			continue;
		snprintf(sub, sizeof sub, "%s/%s", rel, e->d_name);
		snprintf(full, sizeof full, "%s/%s", build, sub);
		if (stat(full, &st))
			continue;
		size_t n = strlen(e->d_name);
		if (S_ISDIR(st.st_mode))
			walk(sub);
		else if (n > 2 && !strcmp(e->d_name + n - 2, ".o") && has_source(sub))
			add_object(sub);
	}
	if (d)
		closedir(d);
}

/* The shim defines the C library's names; everyone else means libc's. */
static int libc_name(int object, const char *name)
{
	return !strncmp(objects[object].path, "src/preload/", 12) &&
	       strncmp(name, "ntm", 3);
}

static int read_symbols(int object)
{
	char cmd[4600];
	snprintf(cmd, sizeof cmd, "nm -P '%.4000s/%.500s' 2>/dev/null", build,
		 objects[object].path);
	FILE *p = popen(cmd, "r");
	char line[512];
	while (p && fgets(line, sizeof line, p) && nsymbols < MAX_SYMBOLS) {
		char name[256], type[8];
		if (sscanf(line, "%255s %7s", name, type) != 2 || strlen(name) >= 96)
			continue;
		int defined;
		if (!strcmp(type, "U") || !strcmp(type, "w") || !strcmp(type, "v"))
			defined = 0;
		else if (!strcmp(type, "W") || !strcmp(type, "V"))
			defined = 1;
		else if (strchr("TDBRCGSi", type[0]))
			defined = 2;
		else
			continue;  /* local symbols, absolute ones */
		if (defined && libc_name(object, name))
			continue;
		struct symbol *s = &symbols[nsymbols++];
		snprintf(s->name, sizeof s->name, "%.95s", name);
		s->object = object;
		s->defined = defined;
	}
	return p ? pclose(p) : -1;
}

/* The object whose definition of name the linker takes: a strong one
 * before a weak one; -1 for none of ours. */
static int definer(const char *name)
{
	int weak = -1;
	for (int i = 0; i < nsymbols; i++) {
		if (!symbols[i].defined || strcmp(symbols[i].name, name))
			continue;
		if (symbols[i].defined == 2)
			return symbols[i].object;
		weak = symbols[i].object;
	}
	return weak;
}

/* uses[a][b]: the first symbol of b that a uses, or NULL. */
static const char *uses[MAX_OBJECTS][MAX_OBJECTS];

static void read_uses(void)
{
	for (int i = 0; i < nsymbols; i++) {
		if (symbols[i].defined)
			continue;
		int a = symbols[i].object, b = definer(symbols[i].name);
		if (b >= 0 && b != a && !uses[a][b])
			uses[a][b] = symbols[i].name;
	}
}

static void check_directions(void)
{
	int bad = 0;
	for (int a = 0; a < nobjects; a++)
		for (int b = 0; b < nobjects; b++) {
			if (!uses[a][b] || may_use(objects[a].layer, objects[b].layer))
				continue;
			if (bad++ < 20)
				printf("  %s uses %s of %s: %s may not use %s\n", objects[a].path,
				       uses[a][b], objects[b].path, objects[a].layer,
				       objects[b].layer);
		}
	t_check(!bad, "symbols: every object uses its own layer and those below",
		"%d uses run the wrong way (the first 20 above)", bad);
}

/* Tarjan's strongly connected components: a component of more than one
 * object is a circle. */
static int order[MAX_OBJECTS], low[MAX_OBJECTS], on_stack[MAX_OBJECTS];
static int stack[MAX_OBJECTS], depth, counter, circles;

static void component(int v)
{
	order[v] = low[v] = ++counter;
	stack[depth++] = v;
	on_stack[v] = 1;
	for (int w = 0; w < nobjects; w++) {
		if (!uses[v][w])
			continue;
		if (!order[w]) {
			component(w);
			low[v] = low[w] < low[v] ? low[w] : low[v];
		} else if (on_stack[w] && order[w] < low[v]) {
			low[v] = order[w];
		}
	}
	if (low[v] != order[v])
		return;
	int members = 0;
	char list[2048] = "";
	size_t at = 0;
	for (int w = -1; w != v;) {
		w = stack[--depth];
		on_stack[w] = 0;
		members++;
		if (at < sizeof list)
			at += (size_t)snprintf(list + at, sizeof list - at, " %s",
					       objects[w].path);
	}
	if (members > 1) {
		circles++;
		printf("  a circle of %d objects:%s\n", members, list);
	}
}

static void check_circles(void)
{
	for (int v = 0; v < nobjects; v++)
		if (!order[v])
			component(v);
	t_check(!circles, "symbols: no objects use each other round a circle",
		"%d circles (above)", circles);
}

int main(void)
{
	const char *why = getenv("TEST_WRAPPER");
	if (why && *why) {
		t_skip("symbols", "under an emulator the native builds check the "
		       "objects, which are the same code");
		return t_finish();
	}
	char tool[4096];
	snprintf(tool, sizeof tool, "%s", t_ntmem());
	snprintf(build, sizeof build, "%s", dirname(tool));
	walk("src");
	walk("tools");
	if (nobjects < 10) {
		t_skip("symbols", "the build's objects were not found beside its ntmem");
		return t_finish();
	}
	for (int i = 0; i < nobjects; i++)
		if (read_symbols(i)) {
			t_skip("symbols", "nm cannot read the objects (install binutils)");
			return t_finish();
		}
	read_uses();
	check_directions();
	check_circles();
	return t_finish();
}
