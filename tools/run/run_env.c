/* run_env.c - the environment "ntmem run" gives its command: LD_PRELOAD
 * with the shim added, NTMEM_TUNABLES with the policy options added.
 * Shared by every way of running it (run.c, compare.c, reported.c). */
#define _GNU_SOURCE
#include "run_env.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "introspect.h"

int run_join_tunables(const char *had, const char *ours, char *buf,
		      size_t len, struct cli_error *e)
{
	int n = snprintf(buf, len, "%s%s%s", had ? had : "",
			 had && *had && *ours ? "," : "", ours);
	if (n < 0 || (size_t)n >= len || (size_t)n >= RUN_TUNABLES_MAX)
		return cli_error(e, CLI_USAGE, "NTMEM_TUNABLES and the policy "
				 "options together are longer than %d bytes",
				 RUN_TUNABLES_MAX - 1);
	return 0;
}

/* Is path one of the entries of list (separated by ':' or blanks, as
 * the dynamic linker reads LD_PRELOAD)? */
static int listed(const char *list, const char *path)
{
	size_t len = strlen(path);
	for (const char *s = list; *s;) {
		size_t n = strcspn(s, ": \t");
		if (n == len && !strncmp(s, path, len))
			return 1;
		s += n;
		s += strspn(s, ": \t");
	}
	return 0;
}

int run_join_preload(const char *had, const char *shim, char *buf,
		     size_t len, struct cli_error *e)
{
	if (strpbrk(shim, ": \t"))
		return cli_error(e, CLI_FAILED, "%s: LD_PRELOAD cannot name a path "
				 "with a colon or a blank", shim);
	int n;
	if (had && listed(had, shim))
		n = snprintf(buf, len, "%s", had);
	else
		n = snprintf(buf, len, "%s%s%s", had ? had : "",
			     had && *had ? ":" : "", shim);
	if (n < 0 || (size_t)n >= len)
		return cli_error(e, CLI_FAILED, "LD_PRELOAD is too long");
	return 0;
}

void run_env_save(struct run_env *had)
{
	const char *p = getenv("LD_PRELOAD"), *t = getenv("NTMEM_TUNABLES");
	had->preload = p ? strdup(p) : NULL;
	had->tunables = t ? strdup(t) : NULL;
}

void run_env_free(struct run_env *had)
{
	free(had->preload);
	free(had->tunables);
}

/* name=value, or name unset when value is NULL. */
static int put_env(const char *name, const char *value, struct cli_error *e)
{
	if (value ? setenv(name, value, 1) : unsetenv(name))
		return cli_error(e, CLI_FAILED, "%s: %s", name, strerror(errno));
	return 0;
}

int run_set_environment(const struct run_env *had, const char *shim,
			const char *tunables, struct cli_error *e)
{
	char preload[8192], joined[RUN_TUNABLES_MAX + 1];
	if (shim && run_join_preload(had->preload, shim, preload, sizeof preload, e))
		return -1;
	if (*tunables && run_join_tunables(had->tunables, tunables, joined,
					   sizeof joined, e))
		return -1;
	unsetenv(NTM_REPORT_ENV);  /* a report is asked for here or not at all */
	return put_env("LD_PRELOAD", shim ? preload : had->preload, e) ||
		       put_env("NTMEM_TUNABLES", *tunables ? joined : had->tunables, e)
		       ? -1 : 0;
}
