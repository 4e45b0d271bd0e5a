/* Shared by the libFuzzer harnesses (tests/fuzz/README.md).
 *
 * An input is a scenario file, optionally followed by command-line
 * assignments: the bytes up to the first "\n%%\n" are the file, each line
 * after it one option ("--kernel K", "--seed N", "--duration S" or an
 * assignment as --set takes it). */
#ifndef FUZZ_COMMON_H
#define FUZZ_COMMON_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "scenario/scenario.h"

/* A message numasim prints must say something, on one line. */
static inline void fuzz_check_message(const char *err)
{
	if (!err[0] || strchr(err, '\n')) {
		fprintf(stderr, "bad error message: '%s'\n", err);
		abort();
	}
}

/* Parse @data into @sc as numasim run would (file, then options, then the
 * validation).  0 if the scenario is valid. */
static inline int fuzz_scenario(const uint8_t *data, size_t size, struct scenario *sc)
{
	char err[4096];
	const char *sep = NULL;
	for (size_t i = 0; i + 4 <= size; i++)
		if (!memcmp(data + i, "\n%%\n", 4)) {
			sep = (const char *)data + i;
			break;
		}
	size_t flen = sep ? (size_t)(sep - (const char *)data) : size;
	char *text = malloc(flen + 1), *opts = NULL;
	if (!text)
		return -1;
	memcpy(text, data, flen);
	text[flen] = '\0';
	int rc = scenario_load_text("fuzz.ini", text, flen, sc, err, sizeof(err));
	free(text);
	if (rc) {
		fuzz_check_message(err);
		return -1;
	}
	if (sep) {
		size_t olen = size - flen - 4;
		opts = malloc(olen + 1);
		if (!opts)
			return -1;
		memcpy(opts, sep + 4, olen);
		opts[olen] = '\0';
		for (char *line = opts; line && !rc;) {
			char *nl = memchr(line, '\n', strlen(line));
			if (nl)
				*nl = '\0';
			if (!strncmp(line, "--kernel ", 9))
				rc = scenario_set_option(sc, "--kernel", "kernel.name", line + 9, err, sizeof(err));
			else if (!strncmp(line, "--seed ", 7))
				rc = scenario_set_option(sc, "--seed", "run.seed", line + 7, err, sizeof(err));
			else if (!strncmp(line, "--duration ", 11))
				rc = scenario_set_option(sc, "--duration", "run.duration_s", line + 11, err,
							 sizeof(err));
			else if (*line)
				rc = scenario_set(sc, line, err, sizeof(err));
			line = nl ? nl + 1 : NULL;
		}
		free(opts);
		if (rc) {
			fuzz_check_message(err);
			return -1;
		}
	}
	if (scenario_validate(sc, err, sizeof(err))) {
		fuzz_check_message(err);
		return -1;
	}
	return 0;
}

#endif
