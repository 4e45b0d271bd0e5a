/* The published measurements numasim is held to, as data, and the rule
 * that gives a model figure its verdict against one.
 *
 * Today every row comes from one source, the patch series of the seed
 * table (docs/calibration.md): per kernel and figure, the published value
 * as a range in the JSON's units (a fraction for a share; "~11600" is
 * lo = hi = 11600), how the series wrote it, and the tolerance the issue
 * set for it.
 *
 * The verdict rule: the published range is widened by a share of its own
 * ends -- 10% for the headline figures (the series' table), 25% for the
 * instrumentation figures (its bpftrace counts) -- and a model min-max over
 * pairs is "in" when it overlaps the widened range, "miss" otherwise. */
#ifndef NUMASIM_PUBLISHED_H
#define NUMASIM_PUBLISHED_H

#include <stdbool.h>
#include <stddef.h>

#include "report/figures.h"

enum published_tolerance {
	PUB_HEADLINE,   /* the range widened by 10% of its ends */
	PUB_INSTRUMENT, /* within 25% of the value, or of the range's ends */
};

struct published {
	const char *kernel;        /* by name; matched by its switches */
	enum ab_figure fig;
	double lo, hi;             /* in the JSON's units; lo == hi for one value */
	const char *text;          /* as the series wrote it; NULL: the range, printed as the figure */
	enum published_tolerance tol;
	const char *source;        /* the thread or series that published it */
};

extern const struct published published_rows[];
extern const size_t nr_published_rows;

/* The published kernels, in the order of ab's "published v7.3 | +v2" column. */
#define NR_PUBLISHED_KERNELS 2
extern const char *const published_kernels[NR_PUBLISHED_KERNELS];

/* The row for figure @f on kernel @kernel (any spelling of the same
 * switches), or NULL when nothing was published for that pair. */
const struct published *published_find(enum ab_figure f, const char *kernel);

/* The tolerated range of @p: its published range widened by its rule. */
void published_tolerated(const struct published *p, double *lo, double *hi);

/* "in": the model's min-max [@lo, @hi] overlaps @p's tolerated range. */
bool published_in(const struct published *p, double lo, double hi);

/* "10%" or "25%": @p's tolerance, for tables. */
const char *published_tolerance_name(const struct published *p);

/* @p's published value as the table prints it: the series' text, or the
 * range formatted as the figure. */
void published_format(const struct published *p, char *buf, size_t len);

#endif
