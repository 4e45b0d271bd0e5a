/* numaload profile: the arithmetic every measurement shares (the clock,
 * pinning, medians and spreads, the line fit), apart from the measurements
 * so the unit tests can check it on synthetic data. */
#define _GNU_SOURCE /* sched_setaffinity */
#include "profile.h"

#include <math.h>
#include <sched.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

uint64_t nl_now_ns(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

int nl_pin(int cpu)
{
	cpu_set_t set;
	CPU_ZERO(&set);
	CPU_SET(cpu, &set);
	return sched_setaffinity(0, sizeof(set), &set);
}

static int cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;
	return x < y ? -1 : x > y;
}

/* Percentile @q of sorted @v, interpolated between neighbours. */
static double percentile(const double *v, int n, double q)
{
	double pos = q * (n - 1);
	int i = (int)pos;
	if (i >= n - 1)
		return v[n - 1];
	return v[i] + (pos - i) * (v[i + 1] - v[i]);
}

static double milli_round(double x)
{
	return round(x * 1000) / 1000;
}

void nl_stat_of(double *v, int n, struct nl_stat *st)
{
	memset(st, 0, sizeof(*st));
	if (n <= 0)
		return;
	qsort(v, (size_t)n, sizeof(*v), cmp_double);
	st->trials = n;
	st->median = milli_round(percentile(v, n, 0.5));
	st->p10 = milli_round(percentile(v, n, 0.1));
	st->p90 = milli_round(percentile(v, n, 0.9));
	st->min = milli_round(v[0]);
	st->max = milli_round(v[n - 1]);
}

int nl_fit_line(const double *x, const double *y, int n, double *a, double *b)
{
	double sx = 0, sy = 0, sxx = 0, sxy = 0;
	for (int i = 0; i < n; i++) {
		sx += x[i];
		sy += y[i];
		sxx += x[i] * x[i];
		sxy += x[i] * y[i];
	}
	double den = n * sxx - sx * sx;
	if (n < 2 || den <= 1e-12 * (sxx > 1 ? sxx : 1))
		return -1;
	*b = (n * sxy - sx * sy) / den;
	*a = (sy - *b * sx) / n;
	return 0;
}

void nl_fig_set(struct nl_figure *f, double *samples, int n, const char *how)
{
	f->measured = n > 0;
	f->clean = n > 0;
	nl_stat_of(samples, n, &f->st);
	snprintf(f->why, sizeof(f->why), "%s", how);
}

void nl_fig_skip(struct nl_figure *f, const char *fmt, ...)
{
	va_list ap;
	f->measured = false;
	f->clean = false;
	va_start(ap, fmt);
	vsnprintf(f->why, sizeof(f->why), fmt, ap);
	va_end(ap);
}
