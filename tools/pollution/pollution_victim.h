/* pollution_victim.h - "ntmem pollution --victim -- COMMAND": the user's
 * own program as the victim (pollution_victim.c). */
#ifndef NTM_POLLUTION_VICTIM_H
#define NTM_POLLUTION_VICTIM_H

#include "pollution_opts.h"

/* Run o->command alone and beside each aggressor, o->runs times in turns,
 * and print (or, with --json, write) its slowdowns.  o is planned.
 * Returns 0, or -1 with an error (a command that fails is one). */
int pol_victim_command(struct popts *o, struct cli_error *e);

#endif
