/* numaload's result as the JSON of `numasim run --json` (report.c), so that
 * `numasim compare` and `numasim plot` read it, plus a "real" object with
 * what only a real machine has: the workload's pages per node from
 * numa_maps and the tracepoint counts. */
#ifndef NUMALOAD_OUT_H
#define NUMALOAD_OUT_H

#include <jansson.h>

#include "run.h"

json_t *nl_result_json(const struct scenario *sc, const struct nl_real *r, const struct nl_opts *o,
		       const struct nl_result *res);
/* Write @j to @path through a unique temporary file in its directory and
 * rename(2), never through a link.  -1 with @err. */
int nl_write_json(json_t *j, const char *path, char *err, size_t errlen);

#endif
