/* pollution.h - the pollution subcommand's entry points for the tests. */
#ifndef NTM_POLLUTION_H
#define NTM_POLLUTION_H

#include <stddef.h>
#include <stdio.h>

/* Parse argv (argv[0] is "pollution") and describe the options it gives
 * as "key=value" words in desc.  Returns 0, 1 for --help or -f help, or
 * -1 with the message in err. */
int pollution_parse_describe(int argc, char **argv, char *desc, size_t desc_len,
			     char *err, size_t err_len);

/* Parse argv, measure, and write the JSON report to out.  Returns 0, or
 * -1 with the message in err. */
int pollution_json(int argc, char **argv, FILE *out, char *err, size_t err_len);

#endif
