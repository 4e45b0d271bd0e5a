/* libFuzzer: the sweep file parser (cli/sweep_spec.c), the scenario it
 * names (cli/sweep_scenario.c: a built-in, or a file beside it, which the
 * harness provides: mine.ini, a scenario, and token.txt, a file that is
 * not one), the expansion of a small sweep's points (cli/sweep_expand.c)
 * and its manifest (cli/sweep_manifest.c).  Finds crashes, undefined
 * behaviour, error messages that are empty or span lines, and a message
 * that quotes token.txt's text. */
#define _GNU_SOURCE /* memmem */
#include <jansson.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "cli/sweep.h"
#include "fuzz_common.h"

#define MAX_EXPANDED 256 /* points: expanding costs about 50 us each */

static char dir[256], spec[300];

static void put(const char *name, const char *text)
{
	char path[320];
	snprintf(path, sizeof(path), "%s/%s", dir, name);
	FILE *f = fopen(path, "w");
	if (!f || fputs(text, f) < 0 || fclose(f))
		abort();
}

static void setup(void)
{
	const char *t = getenv("TMPDIR");
	snprintf(dir, sizeof(dir), "%s/numasim-fuzz-sweep.%d", t && *t ? t : "/tmp", (int)getpid());
	mkdir(dir, 0777);
	snprintf(spec, sizeof(spec), "%s/fuzz.ini", dir);
	put("mine.ini", "[machine]\nsockets = 2\nnodes_per_socket = 1\ncores_per_node = 2\n"
	    "threads_per_core = 1\ncpus = 4\nmem_per_node_gib = 1\n[workload]\nthreads = 4\n"
	    "memory_gib = 0.25\n[run]\nduration_s = 1\n");
	put("token.txt", "SECRETTOKEN = 1\n[machine]\nsockets = SECRETTOKEN\n");
}

static bool input_has_token; /* the sweep file itself says SECRETTOKEN */

static void check(const char *err)
{
	fuzz_check_message(err);
	if (!input_has_token && strstr(err, "SECRETTOKEN")) {
		fprintf(stderr, "a non-scenario file's text in a message: '%s'\n", err);
		abort();
	}
}

static void expand(const struct sweep_spec *sp)
{
	char err[4096];
	int biggest;
	char (*ids)[SWEEP_ID_LEN + 1] = malloc((size_t)sp->nr_points * sizeof(*ids));
	if (!ids)
		abort();
	if (sweep_expand(sp, ids, &biggest, err, sizeof(err))) {
		check(err);
	} else {
		for (int k = 0; k < sp->nr_points; k++)
			if (!sweep_is_id(ids[k]))
				abort();
		json_t *m = sweep_manifest_json(sp, ids, "0123456789abcdef:gnu:00");
		char *text = json_dumps(m, JSON_COMPACT);
		if (!text)
			abort(); /* every value must be representable */
		free(text);
		json_decref(m);
	}
	free(ids);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static struct sweep_spec sp;
	char err[4096];
	if (!dir[0])
		setup();
	char *text = malloc(size + 1);
	if (!text)
		return 0;
	memcpy(text, data, size);
	text[size] = '\0';
	input_has_token = memmem(data, size, "SECRETTOKEN", 11) != NULL;
	int rc = sweep_spec_parse(spec, text, size, &sp, err, sizeof(err));
	free(text);
	if (rc) {
		check(err);
		return 0;
	}
	if (sp.nr_points < 1 || sp.nr_points > SWEEP_MAX_POINTS)
		abort();
	if (sp.nr_points <= MAX_EXPANDED)
		expand(&sp);
	return 0;
}
