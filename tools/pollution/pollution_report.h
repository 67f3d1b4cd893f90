/* pollution_report.h - "ntmem pollution" reports, from the rows the modes
 * measured (pollution_modes.h). */
#ifndef NTM_POLLUTION_REPORT_H
#define NTM_POLLUTION_REPORT_H

#include <stddef.h>
#include <stdio.h>

#include "pollution_modes.h"

/* The idle control (after: no call, as long) should leave the victim
 * about 1x slower; outside [LO, HI] the machine disturbed the victim by
 * as much as a function might, and the after verdict is withheld. */
#define POL_CONTROL_LO 0.5
#define POL_CONTROL_HI 2.0
int pol_control_broken(double slowdown);

/* One line for op: what streaming spared, and what it cost. */
void pol_verdict(const struct ctx *c, int op, char *buf, size_t len);

void pol_print_table(const struct ctx *c, FILE *f);
void pol_write_json(const struct ctx *c, FILE *f);
/* Slowdown against victim size for the first mode that ran; 0, or -1
 * when there is nothing to draw. */
int pol_write_plot(const struct ctx *c, FILE *f);

#endif
