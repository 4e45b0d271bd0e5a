/* Reports of a finished run: human-readable text and JSON (jansson). */
#ifndef NUMASIM_REPORT_H
#define NUMASIM_REPORT_H

#include <stddef.h>
#include <stdio.h>

#include <jansson.h>

#include "lib/outfile.h"
#include "scenario/scenario.h"
#include "kernel/sim.h"

#define NUMASIM_VERSION "0.1"

/* Print a human-readable report of a finished run to @out. */
void report_text(const struct sim *s, const struct scenario *sc, FILE *out);
/* Build the JSON object of a finished run (jansson).  Deterministic: no
 * wall-clock time, keys in a fixed order. */
json_t *report_json(const struct sim *s, const struct scenario *sc);
/* The resolved scenario: its name and source, every key's value by
 * section (the kernel with its switches when @k is given), and the
 * command-line assignments that changed it ("overrides"). */
json_t *report_scenario_json(const struct scenario *sc, const struct kernel_config *k);
/* Write @j to @path atomically (lib/outfile.h); @what names the option in
 * messages.  0, or -1 with a message, leaving no file. */
int report_write_json(json_t *j, const char *what, const char *path, char *err, size_t errlen);
/* The same, up to the commit: @o holds the finished temporary, for the
 * caller to commit with other files (outfile_commit_group) or discard. */
int report_open_json(json_t *j, const char *what, const char *path, struct outfile *o, char *err,
		     size_t errlen);
/* Write @j into @o, a temporary outfile_open() made before the run (so an
 * output that cannot be created fails before it, not after).  0, or -1
 * with a message and the temporary removed. */
/* @j on @f, as --json writes it (--json -: standard output).  0 or -1. */
int report_print_json(json_t *j, FILE *f);
int report_put_json(json_t *j, struct outfile *o, char *err, size_t errlen);

#endif
