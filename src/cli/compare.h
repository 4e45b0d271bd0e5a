/* What `numasim compare`'s two halves share: the metrics of run results
 * and a run's value of one (cli/compare.c, file against file and one
 * sweep's kernels), used by the comparison of two directories
 * (cli/compare_dirs.c). */
#ifndef NUMASIM_CLI_COMPARE_H
#define NUMASIM_CLI_COMPARE_H

#include <stdbool.h>
#include <stdio.h>

#include <jansson.h>

enum compare_source { SRC_SERIES, SRC_SCALAR, SRC_PAIRS };

struct compare_metric {
	const char *name;   /* row label */
	const char *key;    /* JSON key */
	enum compare_source src;
	bool higher_better; /* Hmean and pdiff; else Amean and pndiff */
	double scale;       /* shown value = sample * scale */
	bool skip_zero;     /* a zero means "no sample" (no pass ended that second) */
};

/* The metrics of run results, in their printed order: @i from 0, NULL
 * past the last. */
const struct compare_metric *compare_run_metric(size_t i);
/* The run metric named @name (row name or JSON key), or NULL. */
const struct compare_metric *compare_find_run_metric(const char *name);
/* One run's value of @m: its scalar, or the mean of its per-second
 * samples after the first second (NaN if it has none). */
double compare_run_value(const struct compare_metric *m, const json_t *run);

/* `numasim compare A B` of two directories, each a sweep's or one of run
 * results (cli/compare_dirs.c); @metrics: --metric's values (NULL if
 * none), split at commas.  0, or an exit status after a message. */
int compare_dirs(const char *a, const char *b, char **metrics, int nr_metrics);

#endif
