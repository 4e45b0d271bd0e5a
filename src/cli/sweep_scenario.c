/* The scenario a sweep file names: a built-in, or a file beside the sweep
 * file, whose bytes go into the sweep's hash (the ids depend on them).
 * See cli/sweep.h. */
#include "cli/sweep.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "lib/fnv.h"
#include "lib/readfile.h"

#define MAX_SCENARIO_BYTES (1u << 20) /* as scenario.c's */

/* Read, check and parse the scenario file @path into @sc. */
static int load_file(struct sweep_spec *sp, const char *path, struct scenario *sc, char *err,
		     size_t errlen)
{
	char *text;
	size_t len;
	if (read_input_file(path, MAX_SCENARIO_BYTES, &text, &len, err, errlen))
		return -1;
	/* the ids depend on the file: the manifest's cache must know it */
	sp->hash = fnv1a64(sp->hash, "\0scenario file\0", 15);
	sp->hash = fnv1a64(sp->hash, text, len);
	int rc = scenario_load_text(path, text, len, sc, err, errlen);
	free(text);
	return rc;
}

int sweep_load_scenario(struct sweep_spec *sp, char *err, size_t errlen)
{
	struct scenario *sc = &sp->base;
	const char *v = sp->scenario;
	bool file = strchr(v, '/') || strstr(v, ".ini") || !scenario_builtin_text(v);
	int rc;
	if (!file) {
		rc = scenario_load_builtin(v, sc, err, errlen);
	} else {
		char path[1100];
		const char *slash = strrchr(sp->path, '/');
		if (v[0] == '/' || !slash)
			snprintf(path, sizeof(path), "%s", v);
		else
			snprintf(path, sizeof(path), "%.*s/%s", (int)(slash - sp->path), sp->path, v);
		rc = load_file(sp, path, sc, err, errlen);
		/* results record the scenario as the sweep names it, wherever
		 * the sweep was started from */
		if (!rc)
			snprintf(sc->source, sizeof(sc->source), "%s", v);
	}
	if (rc) {
		char inner[1024];
		snprintf(inner, sizeof(inner), "%s", err);
		snprintf(err, errlen, "%s:%d: scenario: %s", sp->path, sp->scenario_line, inner);
		return -1;
	}
	return 0;
}
