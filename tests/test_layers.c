/* test_layers.c - the map in docs/architecture.md stays true.
 *
 * Reads the #include "..." lines of every source file under src/ and
 * tools/ (run from the repository root, as tests/run.sh does) and checks
 * two things:
 *   - each edge runs the way the map allows: a folder includes its own
 *     files and those of the folders below it, nothing else;
 *   - no two files include each other, directly or round a longer loop
 *     (x.c and x.h count as one file).
 * A new edge that breaks either fails here, naming the file and line. */
#define _GNU_SOURCE
#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "harness.h"

/*
 * The layers, each with the folders (or single files) it may include
 * besides its own.  In src/ each layer may include those below it:
 *   util < variants < dispatch < safe < parallel < entry < preload,
 * and "src" (src/introspect.h, the tools' one view of the library's
 * internals, and src/asm_constants.c) any of them.  The tools: output,
 * then measure, then one folder per command (COMMAND_MAY), then "tools",
 * the command table.  Every command may include tools/commands.h, the
 * table's prototypes.
 */
#define SRC_BELOW_SAFE "src/dispatch src/variants src/util"
static const struct {
	const char *layer, *may;
} allowed[] = {
	{"src/util", ""},
	{"src/variants", "src/util"},
	{"src/dispatch", "src/variants src/util"},
	{"src/safe", SRC_BELOW_SAFE},
	{"src/parallel", "src/safe " SRC_BELOW_SAFE},
	{"src/entry", "src/parallel src/safe " SRC_BELOW_SAFE},
	{"src/preload", "src/entry src/parallel src/safe " SRC_BELOW_SAFE},
	{"src", "src/*"},
	{"tools/output", "src/util"},
	{"tools/measure", "tools/output src src/util"},
	{"tools", "tools/*"},
};
#define COMMAND_MAY "tools/measure tools/output tools/commands.h src src/util"

#define MAX_FILES 512
#define MAX_EDGES 4096

struct file {
	char path[256];     /* e.g. src/entry/ntmem.c */
	char module[256];   /* the path without its extension */
	char layer[64];
};
static struct file files[MAX_FILES];
static int nfiles;

struct edge {
	int from, to, line;
};
static struct edge edges[MAX_EDGES];
static int nedges;

static void layer_of(const char *path, char *layer, size_t len)
{
	const char *slash = strchr(path, '/');
	const char *second = slash ? strchr(slash + 1, '/') : NULL;
	if (second)
		snprintf(layer, len, "%.*s", (int)(second - path), path);
	else
		snprintf(layer, len, "%.*s", (int)(slash ? slash - path : 0), path);
}

static int is_source(const char *name)
{
	const char *dot = strrchr(name, '.');
	return dot && (!strcmp(dot, ".c") || !strcmp(dot, ".h") || !strcmp(dot, ".S"));
}

static void walk(const char *dir)
{
	DIR *d = opendir(dir);
	struct dirent *e;
	while (d && (e = readdir(d))) {
		if (e->d_name[0] == '.')
			continue;
		char path[512];
		if ((size_t)snprintf(path, sizeof path, "%s/%s", dir, e->d_name) >=
		    sizeof files[0].path)
			continue;
		struct stat st;
		if (stat(path, &st))
			continue;
		if (S_ISDIR(st.st_mode)) {
			walk(path);
		} else if (is_source(e->d_name) && nfiles < MAX_FILES) {
			struct file *f = &files[nfiles++];
			memcpy(f->path, path, strlen(path) + 1);  /* fits: checked */
			snprintf(f->module, sizeof f->module, "%.*s",
				 (int)(strrchr(path, '.') - path), path);
			layer_of(path, f->layer, sizeof f->layer);
		}
	}
	if (d)
		closedir(d);
}

static int file_index(const char *path)
{
	for (int i = 0; i < nfiles; i++)
		if (!strcmp(files[i].path, path))
			return i;
	return -1;
}

/* Where "name", included from file f, is found: beside f, then in src/
 * (-Isrc), then, for the tools, in tools/ (-Itools).  -1: a public or
 * system header, outside the map. */
static int resolve(const struct file *f, const char *name)
{
	char path[512], dir[256];
	snprintf(dir, sizeof dir, "%.*s", (int)(strrchr(f->path, '/') - f->path), f->path);
	const char *roots[3] = {dir, "src", strncmp(f->path, "tools/", 6) ? NULL : "tools"};
	for (int r = 0; r < 3; r++) {
		if (!roots[r])
			continue;
		snprintf(path, sizeof path, "%s/%s", roots[r], name);
		int i = file_index(path);
		if (i >= 0)
			return i;
	}
	return -1;
}

/* Whether layer from may include the file to_file, of layer to. */
static int may_include(const char *from, const char *to, const char *to_file)
{
	if (!strcmp(from, to))
		return 1;
	const char *may = NULL;
	for (size_t i = 0; i < sizeof allowed / sizeof allowed[0]; i++)
		if (!strcmp(allowed[i].layer, from))
			may = allowed[i].may;
	if (!may && !strncmp(from, "tools/", 6))
		may = COMMAND_MAY;
	if (!may)
		return 0;
	char list[256];
	snprintf(list, sizeof list, "%s", may);
	for (char *save, *w = strtok_r(list, " ", &save); w; w = strtok_r(NULL, " ", &save)) {
		size_t n = strlen(w);
		if (!strcmp(w, to) || !strcmp(w, to_file) ||
		    (w[n - 1] == '*' && !strncmp(w, to, n - 1) && to[n - 1]))
			return 1;
	}
	return 0;
}

static void read_edges(void)
{
	for (int i = 0; i < nfiles; i++) {
		FILE *in = fopen(files[i].path, "r");
		char text[512];
		for (int line = 1; in && fgets(text, sizeof text, in); line++) {
			char name[256];
			const char *p = text + strspn(text, " \t");
			if (sscanf(p, "#include \"%255[^\"]\"", name) != 1 &&
			    sscanf(p, "# include \"%255[^\"]\"", name) != 1)
				continue;
			int to = resolve(&files[i], name);
			if (to >= 0 && nedges < MAX_EDGES)
				edges[nedges++] = (struct edge){i, to, line};
		}
		if (in)
			fclose(in);
	}
}

static void check_directions(void)
{
	int bad = 0;
	for (int k = 0; k < nedges; k++) {
		const struct file *a = &files[edges[k].from], *b = &files[edges[k].to];
		if (may_include(a->layer, b->layer, b->path))
			continue;
		bad++;
		t_fail("layers: includes run one way",
		       "%s:%d includes %s: %s may not include %s (docs/architecture.md)",
		       a->path, edges[k].line, b->path, a->layer, b->layer);
	}
	if (!bad)
		t_pass("layers: includes run one way");
}

/* Modules: one per distinct path without its extension. */
static int module_of[MAX_FILES], nmodules;
static const char *module_name[MAX_FILES];
static int state[MAX_FILES], parent[MAX_FILES];

static int dfs(int m, char *cycle, size_t len)
{
	state[m] = 1;
	for (int k = 0; k < nedges; k++) {
		int a = module_of[edges[k].from], b = module_of[edges[k].to];
		if (a != m || a == b)
			continue;
		if (state[b] == 1) {
			size_t at = (size_t)snprintf(cycle, len, "%s", module_name[b]);
			for (int x = m; x != b && at < len; x = parent[x])
				at += (size_t)snprintf(cycle + at, len - at, " <- %s", module_name[x]);
			if (at < len)
				snprintf(cycle + at, len - at, " <- %s", module_name[b]);
			return 1;
		}
		if (state[b] == 0) {
			parent[b] = m;
			if (dfs(b, cycle, len))
				return 1;
		}
	}
	state[m] = 2;
	return 0;
}

static void check_cycles(void)
{
	for (int i = 0; i < nfiles; i++) {
		int m = -1;
		for (int j = 0; j < nmodules; j++)
			if (!strcmp(module_name[j], files[i].module))
				m = j;
		if (m < 0) {
			m = nmodules++;
			module_name[m] = files[i].module;
		}
		module_of[i] = m;
	}
	char cycle[2048] = "";
	int found = 0;
	for (int m = 0; m < nmodules && !found; m++)
		if (state[m] == 0)
			found = dfs(m, cycle, sizeof cycle);
	t_check(!found, "layers: no files include each other", "a loop: %s", cycle);
}

int main(void)
{
	walk("src");
	walk("tools");
	if (file_index("src/entry/ntmem.c") < 0) {
		t_skip("layers", "not run from the repository root (no src/entry/ntmem.c)");
		return t_finish();
	}
	t_check(nfiles < MAX_FILES, "layers: every file read", "more than %d files", MAX_FILES);
	read_edges();
	check_directions();
	check_cycles();
	return t_finish();
}
