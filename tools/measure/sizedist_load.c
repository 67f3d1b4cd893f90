/* sizedist_load.c - where --mix finds its distribution: the bundled ones
 * (data/distributions, built into the tool), or a file. */
#include "sizedist.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

/* { "MemcpyGoogleA", "0.00594645,..." }, one per file of
 * data/distributions: made by the Makefile from the files themselves, so
 * the tool carries them wherever it is installed. */
static const struct {
	const char *file, *csv;
} files[] = {
#include "distributions.h"
};
#define NFILES (sizeof files / sizeof files[0])

/* The workloads as the automemcpy paper names them (data/distributions/
 * README.llvm.md). */
static const char *workload(char letter)
{
	switch (letter) {
	case 'A': return "service 4";
	case 'B': return "database 1";
	case 'D': return "storage";
	case 'L': return "logging";
	case 'M': return "service 2";
	case 'Q': return "database 2";
	case 'S': return "database 3";
	case 'U': return "service 3";
	case 'W': return "service 1";
	default: return "";
	}
}

static struct sizedist_bundled bundled[NFILES];

/* The table, from the file names: "MemcpyGoogleA" is memcpy's "GoogleA". */
static void fill_bundled(void)
{
	if (bundled[0].name)
		return;
	for (size_t i = 0; i < NFILES; i++) {
		const char *f = files[i].file;
		int copy = !strncmp(f, "Memcpy", 6);
		bundled[i] = (struct sizedist_bundled){
			f + 6, copy ? NTMEM_OP_COPY : NTMEM_OP_SET,
			workload(f[strlen(f) - 1]), files[i].csv};
	}
}

size_t sizedist_bundled_list(enum ntmem_op op,
			     const struct sizedist_bundled **out, size_t max)
{
	fill_bundled();
	size_t n = 0;
	for (size_t i = 0; i < NFILES && n < max; i++)
		if (bundled[i].op == op)
			out[n++] = &bundled[i];
	return n;
}

static const char *op_prefix(enum ntmem_op op)
{
	return op == NTMEM_OP_COPY ? "Memcpy" : "Memset";
}

/* The bundled distribution arg names: of op if there is one ("GoogleA"
 * is memcpy's and memset's), else of the other operation, else NULL. */
static const struct sizedist_bundled *find_bundled(const char *arg,
						   enum ntmem_op op)
{
	const struct sizedist_bundled *other = NULL;
	fill_bundled();
	for (size_t i = 0; i < NFILES; i++) {
		const struct sizedist_bundled *b = &bundled[i];
		char full[64];
		snprintf(full, sizeof full, "%s%s", op_prefix(b->op), b->name);
		if (strcasecmp(arg, b->name) && strcasecmp(arg, full))
			continue;
		if (b->op == op)
			return b;
		other = b;
	}
	return other;
}

/* The whole of path, NUL-terminated, malloc'd; at most 64 MiB. */
static char *read_file(const char *path, size_t *len, struct cli_error *e)
{
	enum { LIMIT = 64 << 20 };
	FILE *f = fopen(path, "re");
	if (!f) {
		int err = errno;
		cli_error(e, CLI_USAGE, "--mix: '%s': %s%s", path, strerror(err),
			  strchr(path, '/') || strchr(path, '.') ? ""
			  : " (nor is it a bundled distribution: see --mix help)");
		return NULL;
	}
	char *text = malloc(LIMIT + 1);
	size_t n = text ? fread(text, 1, LIMIT + 1, f) : 0;
	int failed = !text || ferror(f);
	fclose(f);
	if (failed || n > LIMIT) {
		free(text);
		cli_error(e, CLI_USAGE, "--mix: %s: %s", path,
			  failed ? "cannot be read" : "larger than 64 MiB");
		return NULL;
	}
	text[n] = '\0';
	*len = n;
	return text;
}

int sizedist_load(const char *arg, enum ntmem_op op, struct sizedist *d,
		  struct cli_error *e)
{
	const struct sizedist_bundled *b = find_bundled(arg, op);
	if (b && b->op != op)
		return cli_error(e, CLI_USAGE, "--mix: %s is a distribution of %s "
				 "calls, not of %s (see --mix help)", arg,
				 b->op == NTMEM_OP_COPY ? "memcpy" : "memset",
				 op == NTMEM_OP_COPY ? "memcpy" : "memset");
	if (b) {
		if (sizedist_parse_csv(b->name, b->csv, strlen(b->csv), op, d, e))
			return -1;
		snprintf(d->source, sizeof d->source, "bundled (%s%s.csv)",
			 op_prefix(op), b->name);
		d->workload = b->description;
		return 0;
	}
	size_t len;
	char *text = read_file(arg, &len, e);
	if (!text)
		return -1;
	size_t lead = strspn(text, " \t\r\n");
	int r = text[lead] == '{' ? sizedist_parse_report(arg, text, len, op, d, e)
				  : sizedist_parse_csv(arg, text, len, op, d, e);
	free(text);
	return r;
}
