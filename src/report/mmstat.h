/* Statistics for `numasim compare` and `numasim plot`, with the conventions
 * of mmtests (gormanm/mmtests, VMR/Stat.pm), so that a numasim comparison
 * reads like the compare-kernels tables kernel developers post:
 *
 * - mean, harmonic mean, min, max of n samples;
 * - the sample standard deviation (divides by n - 1);
 * - the coefficient of variation, stddev * 100 / mean;
 * - percentage differences against a baseline where positive always means
 *   better: pdiff for higher-is-better figures, pndiff for lower-is-better
 *   figures (and for Stddev and CoeffVar);
 * - cidiff, the difference of two means in units of the sum of their
 *   confidence-interval half-widths, qnorm(0.975) * sample stddev (not the
 *   standard error: mmtests' convention).  |cidiff| > 1 marks a difference
 *   as significant.
 *
 * Empty input gives NaN.  The second half of this header loads the JSON
 * files that numasim writes (run and ab results), for both commands. */
#ifndef NUMASIM_MMSTAT_H
#define NUMASIM_MMSTAT_H

#include <stdbool.h>
#include <stddef.h>

#include <jansson.h>

/* qnorm(0.975): the two-sided 95% normal quantile. */
#define MMSTAT_QNORM_975 1.959963984540054

double mmstat_mean(const double *v, size_t n);
/* Geometric mean, (x1 x2 ... xn)^(1/n) as mmtests' calc_geomean: 0 if a
 * sample is 0, NaN if n == 0 or a sample is negative. */
double mmstat_gmean(const double *v, size_t n);
/* NaN if n == 0 or any sample is <= 0 (the harmonic mean is undefined). */
double mmstat_hmean(const double *v, size_t n);
double mmstat_min(const double *v, size_t n);
double mmstat_max(const double *v, size_t n);
/* Sample standard deviation; NaN if n < 2. */
double mmstat_stddev(const double *v, size_t n);
/* stddev * 100 / mean, in percent; 0 if n < 2 or the mean is 0 (mmtests). */
double mmstat_coeffvar(const double *v, size_t n);
/* Half-width of the 95% interval, qnorm(0.975) * stddev; NaN if n < 2. */
double mmstat_ci_halfwidth(const double *v, size_t n);
/* (new - base) / (new_ci + base_ci); new - base if the half-widths sum to 0. */
double mmstat_cidiff(double new_mean, double new_ci, double base_mean, double base_ci);
/* Student's t quantile t(0.975, df): the two-sided 95% critical value, for
 * any real @df >= 1 (Welch's df is fractional), from the t distribution's
 * tail as an incomplete beta function (from df 1000 on, the expansion in
 * 1/df about the normal quantile), to about 1e-12 relative.  NaN for
 * df < 1. */
double mmstat_t975(double df);
/* Welch's two-sample t-test at 95%, two-sided, of samples a and b given by
 * their means, sample stddevs and sizes: 1 significant, 0 not, -1 when a
 * side has fewer than 2 samples (no stddev: no test).  *t = (mean_b -
 * mean_a) / sqrt(sd_a^2/n_a + sd_b^2/n_b), *df the Welch-Satterthwaite
 * degrees of freedom.  With no spread on either side any difference is
 * significant (t infinite) and equal means are not. */
int mmstat_welch(double mean_a, double sd_a, size_t n_a, double mean_b, double sd_b, size_t n_b, double *t,
		 double *df);
/* Higher is better: new / base * 100 - 100 (0 if equal or new is 0, 100 if
 * base is 0). */
double mmstat_pdiff(double new_value, double base_value);
/* Lower is better: 100 - new / base * 100 (0 if equal, 100 if new is 0, -99
 * if base is 0). */
double mmstat_pndiff(double new_value, double base_value);

/* ---- numasim result files ---------------------------------------------- */

enum mmstat_result_kind {
	MMSTAT_RESULT_RUN = 1, /* numasim run --json: one kernel, per-second series */
	MMSTAT_RESULT_AB,      /* numasim ab --json: per-pair figures per kernel */
};

/* Read PATH and tell which kind of numasim result it holds.  Returns the
 * kind and the parsed document in *out (the caller json_decref()s it), or
 * 0 with a message in err if the file is missing, not a regular file, too
 * large, not JSON (or with a key twice), or not a numasim run/ab result
 * (kernel names must be kernel names, names plain text). */
int mmstat_load_result(const char *path, json_t **out, char *err, size_t errlen);

/* A result's scenario name: "scenario" is the name (before the resolved
 * scenario was recorded) or an object with a "name".  "?" if neither. */
const char *mmstat_scenario_name(const json_t *doc);

/* How the recorded scenarios of two results differ, apart from the kernel
 * and the seed (what comparisons vary): "workload.threads 16 vs 8, ..."
 * (or only the keys, @keys_only) into @out, escaped for a terminal.
 * Returns how many keys differ, or -1 if a result has no record (written
 * before numasim recorded its scenario). */
int mmstat_scenario_diff(const json_t *a, const json_t *b, char *out, size_t len, bool keys_only);

/* The finite numbers of a JSON array, in order (nulls and non-numbers are
 * skipped, as are zeros if skip_zero).  Returns how many were stored, at
 * most max. */
size_t mmstat_json_samples(const json_t *array, double *v, size_t max, bool skip_zero);

/* "dir/name.json" -> "name" (into buf). */
void mmstat_file_stem(const char *path, char *buf, size_t len);

#endif
