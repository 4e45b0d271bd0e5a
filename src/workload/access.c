/* Access distributions (access.h). */
#include "workload/access.h"

#include <math.h>

#include "workload/workload.h"

const char *const access_pattern_names[NR_ACCESS_PATTERNS] = {
	[ACCESS_UNIFORM] = "uniform",
	[ACCESS_NORMAL] = "normal",
	[ACCESS_PARETO] = "pareto",
};

#define TABLE_PAGES 512ull

/* The probability mass of pages [a, b) of a set of @set pages. */
static double mass(const struct workload_params *p, double a, double b, double set)
{
	if (p->access == ACCESS_NORMAL) {
		/* pmbench normal: mean set/2, stdev access_shape pages */
		double mu = set / 2, sigma = p->access_shape;
		return 0.5 * (erf((b - mu) / (sigma * 1.4142135623730951)) - erf((a - mu) / (sigma * 1.4142135623730951)));
	}
	/* pmbench pareto: x in [1, set], P(X <= x) ~ 1 - x^-alpha; page x - 1.
	 * A one-page set holds all the mass. The differences are taken with
	 * expm1 so that a small alpha keeps its digits: (1 - set^-alpha) is 0
	 * in doubles once alpha * ln(set) < 2^-53. Where even the exponent
	 * underflows, the distribution's alpha -> 0 limit (log-uniform over
	 * [1, set]) is what is meant. */
	if (set <= 1)
		return a < 1 && b > a ? 1 : 0;
	double alpha = p->access_shape;
	double la = log(a + 1), lb = log(b + 1), ls = log(set);
	double den = -expm1(-alpha * ls);
	if (!(den > 0))
		return (lb - la) / ls;
	return exp(-alpha * la) * -expm1(-alpha * (lb - la)) / den;
}

uint32_t access_table_weight(const struct workload_params *p, uint64_t j, uint64_t region_pages)
{
	double set = ceil((double)region_pages * p->access_set);
	double a = (double)(j * TABLE_PAGES), b = a + TABLE_PAGES;
	if (b > (double)region_pages)
		b = (double)region_pages;
	if (set < 1)
		set = 1;
	if (a >= set || b <= a)
		return 0;
	if (p->access == ACCESS_UNIFORM)
		return 1;
	if (b > set)
		b = set;
	/* the densest table: the one around the mean, or the first */
	double peak_a = 0;
	if (p->access == ACCESS_NORMAL)
		peak_a = floor(set / 2 / TABLE_PAGES) * TABLE_PAGES;
	double peak_b = peak_a + TABLE_PAGES < set ? peak_a + TABLE_PAGES : set;
	double peak = mass(p, peak_a, peak_b, set) / (peak_b - peak_a);
	double d = mass(p, a, b, set) / (b - a);
	if (!(d > 0) || !(peak > 0))
		return d > 0 ? 1 : 0;
	double w = round((double)ACCESS_WEIGHT_MAX * d / peak);
	if (w < 1)
		w = 1;
	return w > ACCESS_WEIGHT_MAX ? ACCESS_WEIGHT_MAX : (uint32_t)w;
}
