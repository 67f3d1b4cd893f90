/* run_env.h - the environment "ntmem run" gives its command (run_env.c),
 * apart from run.h so that every way of running it shares it without
 * calling back into cmd_run's file. */
#ifndef NTM_RUN_ENV_H
#define NTM_RUN_ENV_H

#include <stddef.h>

#include "output/cli.h"

#define RUN_TUNABLES_MAX 1024 /* the library reads no more than this */

/* What the caller's environment had: NULL where a variable is unset. */
struct run_env {
	char *preload, *tunables;
};
void run_env_save(struct run_env *had);
void run_env_free(struct run_env *had);

/* Set the environment the command gets: LD_PRELOAD as had it plus shim
 * (NULL: exactly as had it), NTMEM_TUNABLES as had it plus tunables.
 * Returns 0, or -1 with an error. */
int run_set_environment(const struct run_env *had, const char *shim,
			const char *tunables, struct cli_error *e);

/* NTMEM_TUNABLES for the command: what the environment had (may be
 * NULL), then ours, which win.  -1 if it would be too long. */
int run_join_tunables(const char *had, const char *ours, char *buf,
		      size_t len, struct cli_error *e);

/* LD_PRELOAD for the command: what the environment had (may be NULL),
 * then the shim, unless it is there already. */
int run_join_preload(const char *had, const char *shim, char *buf,
		     size_t len, struct cli_error *e);

#endif
