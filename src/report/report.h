/* Reports of a finished run: human-readable text and JSON (jansson). */
#ifndef NUMASIM_REPORT_H
#define NUMASIM_REPORT_H

#include <stddef.h>
#include <stdio.h>

#include <jansson.h>

#include "scenario/scenario.h"
#include "kernel/sim.h"

#define NUMASIM_VERSION "0.1"

/* Print a human-readable report of a finished run to @out. */
void report_text(const struct sim *s, const struct scenario *sc, FILE *out);
/* Build the JSON object of a finished run (jansson).  Deterministic: no
 * wall-clock time, keys in a fixed order. */
json_t *report_json(const struct sim *s, const struct scenario *sc);
/* Write JSON atomically: FILE.tmp then rename; on error return -1 with message, leaving no file. */
int report_write_json(json_t *j, const char *path, char *err, size_t errlen);

#endif
