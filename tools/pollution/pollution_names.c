/* pollution_names.c - "ntmem pollution": the modes' and the operations'
 * names, which the options, the plan, the modes and the reports all
 * read: a file of its own, below each of them. */
#include "pollution_opts.h"

const char *const pol_mode_names[MODE_COUNT] = {
	"after", "concurrent", "reread", "mixed",
};

const char *const pol_op_names[NOPS] = {"memset", "memcpy"};
