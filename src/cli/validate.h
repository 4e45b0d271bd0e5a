/* numasim validate's realcheck rows (cli/validate_realcheck.c). */
#ifndef NUMASIM_CLI_VALIDATE_H
#define NUMASIM_CLI_VALIDATE_H

#include <stdbool.h>

#include <jansson.h>

#define REALCHECK_MAX_ROWS 64

struct realcheck_row {
	char label[64], key[48], series[8];
	double real, model, ratio;   /* ratio: model / real, NAN when real is 0 */
	bool in;
};

struct realcheck_rows {
	int n, miss;
	struct realcheck_row rows[REALCHECK_MAX_ROWS];
};

/* The rows of result directory @dir: 0, or -1 with @err. */
int realcheck_rows_load(const char *dir, struct realcheck_rows *r, char *err, size_t errlen);
void realcheck_rows_print(const struct realcheck_rows *r, const char *dir);
json_t *realcheck_rows_json(const struct realcheck_rows *r);

#endif
