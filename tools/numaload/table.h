/* The realcheck table: a real kernel's result (numaload's JSON) beside
 * numasim's for the same scenario, figure by figure, with the ratio
 * numasim / real and whether it is within a factor of 1.5.  Only counts and
 * ratios of counts are compared; throughput is shown and marked "not
 * compared" (emulated time is not real time: docs/realcheck.md). */
#ifndef NUMALOAD_TABLE_H
#define NUMALOAD_TABLE_H

#include <stdio.h>

#include <jansson.h>

/* One block per pair.  Returns the number of compared figures outside the
 * factor (0: all agree). */
int nl_table_print(FILE *out, const char *label, const json_t *real, const json_t *sim);

/* "numaload --table LABEL REAL.json SIM.json [LABEL REAL SIM]...": 0, or 2
 * on bad input. */
int nl_table_main(int argc, char **argv);

#endif
