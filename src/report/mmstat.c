#include "report/mmstat.h"

#include <ctype.h>
#include <errno.h>
#include <math.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <stdlib.h>
#include <sys/stat.h>

#include "kernel/variants.h"
#include "lib/escape.h"
#include "lib/readfile.h"

double mmstat_mean(const double *v, size_t n)
{
	if (!n)
		return NAN;
	double sum = 0;
	for (size_t i = 0; i < n; i++)
		sum += v[i];
	return sum / (double)n;
}

double mmstat_gmean(const double *v, size_t n)
{
	if (!n)
		return NAN;
	double logs = 0;
	bool zero = false;
	for (size_t i = 0; i < n; i++) {
		if (v[i] < 0 || !isfinite(v[i]))
			return NAN;
		zero |= v[i] == 0;
		if (v[i] > 0)
			logs += log(v[i]);
	}
	/* through logarithms: the product of many large samples overflows */
	return zero ? 0 : exp(logs / (double)n);
}

double mmstat_hmean(const double *v, size_t n)
{
	if (!n)
		return NAN;
	double sum = 0;
	for (size_t i = 0; i < n; i++) {
		if (!(v[i] > 0))
			return NAN;
		sum += 1 / v[i];
	}
	return (double)n / sum;
}

double mmstat_min(const double *v, size_t n)
{
	if (!n)
		return NAN;
	double m = v[0];
	for (size_t i = 1; i < n; i++)
		if (v[i] < m)
			m = v[i];
	return m;
}

double mmstat_max(const double *v, size_t n)
{
	if (!n)
		return NAN;
	double m = v[0];
	for (size_t i = 1; i < n; i++)
		if (v[i] > m)
			m = v[i];
	return m;
}

double mmstat_stddev(const double *v, size_t n)
{
	if (n < 2)
		return NAN;
	double mean = mmstat_mean(v, n), ss = 0;
	for (size_t i = 0; i < n; i++)
		ss += (v[i] - mean) * (v[i] - mean);
	return sqrt(ss / (double)(n - 1));
}

double mmstat_coeffvar(const double *v, size_t n)
{
	double sd = mmstat_stddev(v, n), mean = mmstat_mean(v, n);
	if (isnan(sd) || isnan(mean) || mean == 0)
		return 0;
	return sd * 100 / mean;
}

double mmstat_ci_halfwidth(const double *v, size_t n)
{
	return MMSTAT_QNORM_975 * mmstat_stddev(v, n);
}

double mmstat_cidiff(double new_mean, double new_ci, double base_mean, double base_ci)
{
	double diff = new_mean - base_mean, sum = new_ci + base_ci;
	return sum == 0 ? diff : diff / sum;
}

/* The regularized incomplete beta function I_x(a, b), from its continued
 * fraction (the even and odd terms of the classical expansion, evaluated
 * from the front by the modified Lentz method), on the side of the
 * symmetry I_x(a, b) = 1 - I_(1-x)(b, a) where the fraction converges in a
 * few dozen terms: x < (a + 1) / (a + b + 2). */
static double beta_fraction(double a, double b, double x)
{
	const double tiny = 1e-300, eps = 1e-16;
	double c = 1, d = 1 - (a + b) * x / (a + 1);
	d = 1 / (fabs(d) < tiny ? tiny : d);
	double f = d;
	for (int m = 1; m <= 400; m++) {
		double am = a + 2 * m;
		/* even term m (b - m) x / ((a + 2m - 1)(a + 2m)), then odd term
		 * -(a + m)(a + b + m) x / ((a + 2m)(a + 2m + 1)) */
		double terms[2] = { m * (b - m) * x / ((am - 1) * am),
				    -(a + m) * (a + b + m) * x / (am * (am + 1)) };
		for (int k = 0; k < 2; k++) {
			d = 1 + terms[k] * d;
			c = 1 + terms[k] / c;
			d = 1 / (fabs(d) < tiny ? tiny : d);
			c = fabs(c) < tiny ? tiny : c;
			f *= c * d;
			if (k == 1 && fabs(c * d - 1) < eps)
				return f;
		}
	}
	return f;
}

static double incomplete_beta(double a, double b, double x)
{
	if (x <= 0)
		return 0;
	if (x >= 1)
		return 1;
	/* x^a (1 - x)^b / B(a, b), in logs */
	double front = exp(lgamma(a + b) - lgamma(a) - lgamma(b) + a * log(x) + b * log1p(-x));
	if (x < (a + 1) / (a + b + 2))
		return front * beta_fraction(a, b, x) / a;
	return 1 - front * beta_fraction(b, a, 1 - x) / b;
}

/* P(T > t) for Student's t with @df degrees of freedom and t >= 0. */
static double t_upper_tail(double t, double df)
{
	return 0.5 * incomplete_beta(df / 2, 0.5, df / (df + t * t));
}

double mmstat_t975(double df)
{
	if (!(df >= 1))
		return NAN;
	if (df >= 1000) {
		/* the expansion in 1/df about the normal quantile z (Abramowitz
		 * and Stegun 26.7.5): its next term is below 1e-16 here, where the
		 * continued fraction would need thousands of terms */
		const double z = MMSTAT_QNORM_975, z2 = z * z;
		double g1 = z * (z2 + 1) / 4;
		double g2 = z * ((5 * z2 + 16) * z2 + 3) / 96;
		double g3 = z * (((3 * z2 + 19) * z2 + 17) * z2 - 15) / 384;
		double g4 = z * ((((79 * z2 + 776) * z2 + 1482) * z2 - 1920) * z2 - 945) / 92160;
		return z + (g1 + (g2 + (g3 + g4 / df) / df) / df) / df;
	}
	/* the tail falls with t: bisect [0, 13] (t(0.975, 1) = 12.706) down
	 * to the last bit */
	double lo = 0, hi = 13;
	for (int i = 0; i < 200 && lo < hi; i++) {
		double mid = lo + (hi - lo) / 2;
		if (mid <= lo || mid >= hi)
			break;
		if (t_upper_tail(mid, df) > 0.025)
			lo = mid;
		else
			hi = mid;
	}
	return hi;
}

int mmstat_welch(double mean_a, double sd_a, size_t n_a, double mean_b, double sd_b, size_t n_b, double *t,
		 double *df)
{
	*t = *df = NAN;
	if (n_a < 2 || n_b < 2 || isnan(sd_a) || isnan(sd_b))
		return -1;
	double va = sd_a * sd_a / (double)n_a, vb = sd_b * sd_b / (double)n_b;
	double diff = mean_b - mean_a;
	if (va + vb == 0) {
		/* no spread on either side: any difference is beyond chance */
		*t = diff == 0 ? 0 : diff > 0 ? INFINITY : -INFINITY;
		*df = (double)(n_a + n_b - 2);
		return diff != 0;
	}
	*t = diff / sqrt(va + vb);
	/* Welch-Satterthwaite; a side without spread adds nothing */
	*df = (va + vb) * (va + vb) / (va * va / (double)(n_a - 1) + vb * vb / (double)(n_b - 1));
	return fabs(*t) > mmstat_t975(*df);
}

double mmstat_pdiff(double new_value, double base_value)
{
	if (new_value == base_value || new_value == 0)
		return 0;
	if (base_value == 0)
		return 100;
	return new_value * 100 / base_value - 100;
}

double mmstat_pndiff(double new_value, double base_value)
{
	if (new_value == base_value)
		return 0;
	if (new_value == 0)
		return 100;
	if (base_value == 0)
		return -99;
	return 100 - new_value * 100 / base_value;
}

/* ---- numasim result files ---------------------------------------------- */

static bool is_run(const json_t *o)
{
	return json_is_string(json_object_get(o, "kernel")) &&
	       json_is_object(json_object_get(o, "timeseries")) &&
	       json_is_object(json_object_get(o, "vmstat"));
}

static bool is_ab(const json_t *o)
{
	const json_t *k = json_object_get(o, "kernels");
	if (!json_is_object(k) || !json_object_size(k) || !json_is_integer(json_object_get(o, "pairs")))
		return false;
	const char *name;
	const json_t *v;
	json_object_foreach((json_t *)k, name, v)
		if (!json_is_object(v))
			return false;
	return true;
}

/* Result files are small (a day-long run's series are a few MB). */
#define MAX_RESULT_BYTES (64u << 20)

const char *mmstat_scenario_name(const json_t *doc)
{
	const json_t *sc = json_object_get(doc, "scenario");
	const char *name = json_string_value(json_is_object(sc) ? json_object_get(sc, "name") : sc);
	return name ? name : "?";
}

/* A real kernel's name as numaload records it: "linux-" and a release
 * (uname -r: letters, digits, '.', '-', '+', '_'). */
static bool real_kernel_name(const char *name)
{
	size_t n = name ? strlen(name) : 0;
	if (n <= 6 || n >= 96 || strncmp(name, "linux-", 6))
		return false;
	for (size_t i = 6; i < n; i++)
		if (!isalnum((unsigned char)name[i]) && !strchr(".-+_", name[i]))
			return false;
	return true;
}

/* What numasim writes, and nothing that could reach gnuplot or a terminal
 * as anything but a name: kernel names must parse (a real kernel's, in
 * numaload's results, must be plain), names must be plain. */
static int check_names(const char *path, const json_t *o, int kind, char *err, size_t errlen)
{
	char why[256], shown[160];
	const json_t *sc = json_object_get(o, "scenario");
	if (sc && !json_is_string(sc) && !json_is_object(sc)) {
		snprintf(err, errlen, "%s: not a numasim result: \"scenario\" is neither a name nor an object",
			 path);
		return -1;
	}
	if (!is_printable_ascii(mmstat_scenario_name(o))) {
		term_escape(mmstat_scenario_name(o), shown, sizeof(shown));
		snprintf(err, errlen, "%s: not a numasim result: the scenario name '%s' has "
			 "characters numasim never writes", path, shown);
		return -1;
	}
	const char *name;
	const json_t *v;
	struct kernel_config cfg;
	if (kind == MMSTAT_RESULT_RUN) {
		name = json_string_value(json_object_get(o, "kernel"));
		if (json_is_object(json_object_get(o, "real")) && real_kernel_name(name))
			return 0;
		if (kernel_config_parse(name, &cfg, why, sizeof(why)) || strcmp(cfg.name, name)) {
			term_escape(name, shown, sizeof(shown));
			snprintf(err, errlen, "%s: not a numasim result: kernel '%s' is not a kernel name",
				 path, shown);
			return -1;
		}
		return 0;
	}
	json_object_foreach((json_t *)json_object_get(o, "kernels"), name, v) {
		if (strlen(name) >= sizeof(cfg.name) || kernel_config_parse(name, &cfg, why, sizeof(why))) {
			term_escape(name, shown, sizeof(shown));
			snprintf(err, errlen, "%s: not a numasim result: kernel '%s' is not a kernel name",
				 path, shown);
			return -1;
		}
	}
	return 0;
}

/* ---- the result schema ------------------------------------------------------
 *
 * Every field compare, plot, sweep and numaload's table read is checked
 * here, in one place, before any of them sees the document: its type, its
 * range and, for the per-second series and the per-pair figures, its
 * length.  A field may be missing (older results lack the newer ones)
 * unless said otherwise, and null where numasim writes null for "no
 * value"; anything else is refused, naming the file and the field.
 * Fields no reader uses are not checked. */

/* No counter or figure numasim writes comes near this (a day-long run on
 * 4096 CPUs has 3.5e17 ns of CPU time); gnuplot's range arithmetic
 * overflows on values near DBL_MAX (1e308 made the plot fail inside
 * gnuplot), and compare's sums and squares would too. */
#define MAX_VALUE 1e18
/* Histograms: a log2 bucket per bit of a 64-bit value at most. */
#define MAX_BUCKETS 64
/* node_vmstat: at most MAX_NUMNODES nodes. */
#define MAX_NODES 64
/* numasim ab --pairs is at most 64; room for other writers. */
#define MAX_PAIRS 100000

struct vctx {
	const char *file;
	char *err;
	size_t errlen;
	char why[160];
};

/* "FILE: FIELD: WHY", the field's path printf-style, escaped (keys come
 * from the file).  Returns -1. */
static int refuse(struct vctx *v, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static int refuse(struct vctx *v, const char *fmt, ...)
{
	char where[256], shown[300];
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(where, sizeof(where), fmt, ap);
	va_end(ap);
	term_escape(where, shown, sizeof(shown));
	snprintf(v->err, v->errlen, "%s: %s: %s", v->file, shown, v->why);
	return -1;
}

static const char *type_name(const json_t *x)
{
	switch (json_typeof(x)) {
	case JSON_OBJECT: return "an object";
	case JSON_ARRAY: return "an array";
	case JSON_STRING: return "a string";
	case JSON_TRUE:
	case JSON_FALSE: return "a boolean";
	case JSON_NULL: return "null";
	default: return "a number";
	}
}

/* Value ranges: counts and durations can't be negative; differences can. */
enum range { NONNEG, SIGNED };

/* Is @x a number in @r (or null, if @null_ok)?  Else false, v->why says
 * what it is.  No path is built for the values that pass: a series may
 * have a million. */
static bool number_ok(struct vctx *v, const json_t *x, enum range r, bool null_ok)
{
	if (json_is_null(x) && null_ok)
		return true;
	if (!json_is_number(x)) {
		snprintf(v->why, sizeof(v->why), "expected a number%s, got %s", null_ok ? " or null" : "",
			 type_name(x));
		return false;
	}
	double d = json_number_value(x), lo = r == NONNEG ? 0 : -MAX_VALUE;
	if (d >= lo && d <= MAX_VALUE)
		return true;
	snprintf(v->why, sizeof(v->why), "%g is out of range (%g to %g)", d, lo, MAX_VALUE);
	return false;
}

/* @x (non-NULL) of type @want?  Else v->why says what it is. */
static bool type_ok(struct vctx *v, const json_t *x, json_type want)
{
	if (json_typeof(x) == want || (want == JSON_TRUE && json_is_boolean(x)))
		return true;
	static const char *const names[] = { [JSON_OBJECT] = "an object", [JSON_ARRAY] = "an array",
					     [JSON_STRING] = "a string", [JSON_INTEGER] = "an integer",
					     [JSON_REAL] = "a number", [JSON_TRUE] = "a boolean",
					     [JSON_FALSE] = "a boolean", [JSON_NULL] = "null" };
	snprintf(v->why, sizeof(v->why), "expected %s, got %s", names[want], type_name(x));
	return false;
}

/* An optional object of numbers in @r (or null): vmstat, cost_ns, ... */
static int check_numbers_object(struct vctx *v, const json_t *o, const char *key, enum range r)
{
	const char *name;
	const json_t *x;
	if (o && !type_ok(v, o, JSON_OBJECT))
		return refuse(v, "%s", key);
	json_object_foreach((json_t *)o, name, x)
		if (!number_ok(v, x, r, true))
			return refuse(v, "%s.%s", key, name);
	return 0;
}

/* An array of numbers in @r (or null, if @null_ok) of @len values
 * (any length if @len is SIZE_MAX); @what says what the length counts. */
static int check_numbers_array(struct vctx *v, const json_t *a, const char *key, size_t len, const char *what,
			       enum range r, bool null_ok)
{
	size_t i;
	const json_t *x;
	if (!type_ok(v, a, JSON_ARRAY))
		return refuse(v, "%s", key);
	if (len != SIZE_MAX && json_array_size(a) != len) {
		snprintf(v->why, sizeof(v->why), "%zu values, expected %zu (%s)", json_array_size(a), len, what);
		return refuse(v, "%s", key);
	}
	json_array_foreach(a, i, x)
		if (!number_ok(v, x, r, null_ok))
			return refuse(v, "%s[%zu]", key, i);
	return 0;
}

/* An optional non-negative integer (@lo at least), at most @hi. */
static int check_count(struct vctx *v, const json_t *o, const char *key, json_int_t lo, json_int_t hi)
{
	const json_t *x = json_object_get(o, key);
	if (!x)
		return 0;
	if (!type_ok(v, x, JSON_INTEGER))
		return refuse(v, "%s", key);
	if (json_integer_value(x) < lo || json_integer_value(x) > hi) {
		snprintf(v->why, sizeof(v->why), "%lld is out of range (%lld to %lld)",
			 (long long)json_integer_value(x), (long long)lo, (long long)hi);
		return refuse(v, "%s", key);
	}
	return 0;
}

/* An optional number of seconds (> 0). */
static int check_seconds(struct vctx *v, const json_t *o, const char *key)
{
	const json_t *x = json_object_get(o, key);
	if (x && (!number_ok(v, x, NONNEG, false) || json_number_value(x) <= 0)) {
		if (json_is_number(x) && json_number_value(x) <= 0)
			snprintf(v->why, sizeof(v->why), "%g is not a duration (must be above 0)",
				 json_number_value(x));
		return refuse(v, "%s", key);
	}
	return 0;
}

/* timeseries: "t_s" (required) rising seconds; every other member a
 * series of as many values, one per second, each >= 0 or null. */
static int check_timeseries(struct vctx *v, const json_t *ts)
{
	const json_t *t = json_object_get(ts, "t_s"), *x;
	const char *name;
	size_t i;
	if (!t) {
		snprintf(v->why, sizeof(v->why), "missing (the seconds of the series)");
		return refuse(v, "timeseries.t_s");
	}
	if (check_numbers_array(v, t, "timeseries.t_s", SIZE_MAX, NULL, NONNEG, false))
		return -1;
	json_array_foreach(t, i, x)
		if (i && !(json_number_value(x) > json_number_value(json_array_get(t, i - 1)))) {
			snprintf(v->why, sizeof(v->why), "%g after %g: the seconds must rise", json_number_value(x),
				 json_number_value(json_array_get(t, i - 1)));
			return refuse(v, "timeseries.t_s[%zu]", i);
		}
	json_object_foreach((json_t *)ts, name, x) {
		char key[160];
		snprintf(key, sizeof(key), "timeseries.%s", name);
		if (strcmp(name, "t_s") && check_numbers_array(v, x, key, json_array_size(t),
							       "one per second of timeseries.t_s", NONNEG, true))
			return -1;
	}
	return 0;
}

/* histograms: objects of "count" (at most MAX_BUCKETS, >= 0) and bucket
 * bounds of the same length. */
static int check_histograms(struct vctx *v, const json_t *h)
{
	const char *name, *field;
	const json_t *x, *y;
	if (!h)
		return 0;
	if (!type_ok(v, h, JSON_OBJECT))
		return refuse(v, "histograms");
	json_object_foreach((json_t *)h, name, x) {
		char key[200];
		const json_t *count = json_object_get(x, "count");
		if (!type_ok(v, x, JSON_OBJECT))
			return refuse(v, "histograms.%s", name);
		snprintf(key, sizeof(key), "histograms.%s.count", name);
		if (!count)
			continue;
		if (json_is_array(count) && json_array_size(count) > MAX_BUCKETS) {
			snprintf(v->why, sizeof(v->why), "%zu buckets, at most %d", json_array_size(count),
				 MAX_BUCKETS);
			return refuse(v, "%s", key);
		}
		if (check_numbers_array(v, count, key, SIZE_MAX, NULL, NONNEG, false))
			return -1;
		json_object_foreach((json_t *)x, field, y) {
			snprintf(key, sizeof(key), "histograms.%s.%s", name, field);
			if (strcmp(field, "count") && check_numbers_array(v, y, key, json_array_size(count),
									  "one per bucket of count", NONNEG, false))
				return -1;
		}
	}
	return 0;
}

/* convergence.processes (optional): objects whose per-second series have
 * one value per second of timeseries.t_s, shares in [0, 1] or null. */
static int check_convergence(struct vctx *v, const json_t *c, size_t seconds)
{
	static const char *const series[] = { "hint_faults_per_s", "local_fault_share", "ended_local_fault_share",
					      "memory_local_share" };
	const json_t *procs = json_object_get(c, "processes"), *x;
	size_t i;
	if (c && !type_ok(v, c, JSON_OBJECT))
		return refuse(v, "convergence");
	if (!procs)
		return 0;
	if (!type_ok(v, procs, JSON_ARRAY))
		return refuse(v, "convergence.processes");
	json_array_foreach(procs, i, x) {
		if (!type_ok(v, x, JSON_OBJECT))
			return refuse(v, "convergence.processes[%zu]", i);
		for (size_t k = 0; k < sizeof(series) / sizeof(series[0]); k++) {
			char key[96];
			const json_t *a = json_object_get(x, series[k]), *y;
			size_t j;
			snprintf(key, sizeof(key), "convergence.processes[%zu].%s", i, series[k]);
			if (!a)
				continue;
			if (check_numbers_array(v, a, key, seconds, "one per second of timeseries.t_s", NONNEG, true))
				return -1;
			json_array_foreach(a, j, y)
				if (k && json_is_number(y) && json_number_value(y) > 1) {
					snprintf(v->why, sizeof(v->why), "%g is not a share (0 to 1)", json_number_value(y));
					return refuse(v, "%s[%zu]", key, j);
				}
		}
		const json_t *t = json_object_get(x, "converged_s");
		if (t && !number_ok(v, t, NONNEG, true))
			return refuse(v, "convergence.processes[%zu].converged_s", i);
	}
	return 0;
}

static int check_node_vmstat(struct vctx *v, const json_t *a)
{
	size_t i;
	const json_t *x;
	if (!a)
		return 0;
	if (!type_ok(v, a, JSON_ARRAY))
		return refuse(v, "node_vmstat");
	if (json_array_size(a) > MAX_NODES) {
		snprintf(v->why, sizeof(v->why), "%zu nodes, at most %d", json_array_size(a), MAX_NODES);
		return refuse(v, "node_vmstat");
	}
	json_array_foreach(a, i, x) {
		char key[48];
		snprintf(key, sizeof(key), "node_vmstat[%zu]", i);
		if (!x || check_numbers_object(v, x, key, NONNEG))
			return -1;
	}
	return 0;
}

static int check_run(struct vctx *v, const json_t *o)
{
	const json_t *tun = json_object_get(o, "tunables"), *x;
	if (check_count(v, o, "seed", 0, INT64_MAX) || check_seconds(v, o, "simulated_seconds") ||
	    check_seconds(v, o, "elapsed_seconds"))
		return -1;
	if ((x = json_object_get(o, "throughput_ops_per_s")) && !number_ok(v, x, NONNEG, true))
		return refuse(v, "throughput_ops_per_s");
	if (check_numbers_object(v, json_object_get(o, "vmstat"), "vmstat", NONNEG) ||
	    check_numbers_object(v, json_object_get(o, "interrupts"), "interrupts", NONNEG) ||
	    check_numbers_object(v, json_object_get(o, "cost_ns"), "cost_ns", NONNEG))
		return -1;
	if ((x = json_object_get(o, "cpu_seconds_per_node")) &&
	    check_numbers_array(v, x, "cpu_seconds_per_node", SIZE_MAX, NULL, NONNEG, false))
		return -1;
	if (tun && !type_ok(v, tun, JSON_OBJECT))
		return refuse(v, "tunables");
	if ((x = json_object_get(tun, "kernel.numa_balancing")) && !json_is_null(x) &&
	    !type_ok(v, x, JSON_INTEGER))
		return refuse(v, "tunables.kernel.numa_balancing");
	size_t seconds = json_array_size(json_object_get(json_object_get(o, "timeseries"), "t_s"));
	return check_timeseries(v, json_object_get(o, "timeseries")) ||
	       check_convergence(v, json_object_get(o, "convergence"), seconds) ||
	       check_histograms(v, json_object_get(o, "histograms")) ||
	       check_node_vmstat(v, json_object_get(o, "node_vmstat")) ? -1 : 0;
}

/* An ab kernel's members that are not per-pair figures (ab.c ab_json). */
static bool ab_group(const char *name)
{
	return !strcmp(name, "extra_cost_ns") || !strcmp(name, "versus_first");
}

static bool ab_name(const char *name)
{
	return !strcmp(name, "balancing_off_runs_of") || !strcmp(name, "balancing_off_runs_reused_of");
}

/* A kernel of an ab result: per-pair figures (one value per pair, or
 * null), the two groups of them, the kernels whose balancing-off runs it
 * used, and how many it reused. */
static int check_ab_kernel(struct vctx *v, const char *kernel, const json_t *k, size_t pairs)
{
	const char *name, *sub;
	const json_t *x, *y;
	json_object_foreach((json_t *)k, name, x) {
		char key[400];
		snprintf(key, sizeof(key), "kernels.%s.%s", kernel, name);
		if (ab_name(name)) {
			if (!type_ok(v, x, JSON_STRING))
				return refuse(v, "%s", key);
		} else if (!strcmp(name, "balancing_off_runs_reused")) {
			if (!type_ok(v, x, JSON_INTEGER) || json_integer_value(x) < 0 ||
			    json_integer_value(x) > (json_int_t)pairs) {
				if (json_is_integer(x))
					snprintf(v->why, sizeof(v->why), "%lld is out of range (0 to %zu)",
						 (long long)json_integer_value(x), pairs);
				return refuse(v, "%s", key);
			}
		} else if (ab_group(name)) {
			if (!type_ok(v, x, JSON_OBJECT))
				return refuse(v, "%s", key);
			json_object_foreach((json_t *)x, sub, y) {
				char key2[600];
				snprintf(key2, sizeof(key2), "%s.%s", key, sub);
				if (check_numbers_array(v, y, key2, pairs, "one per pair", SIGNED, true))
					return -1;
			}
		} else if (check_numbers_array(v, x, key, pairs, "one per pair", SIGNED, true)) {
			return -1;
		}
	}
	return 0;
}

/* published: "source" (plain text: it reaches gnuplot and the terminal)
 * and per kernel, per figure, a [lo, hi] range. */
static int check_published(struct vctx *v, const json_t *p)
{
	const json_t *src = json_object_get(p, "source"), *ks = json_object_get(p, "kernels"), *k, *r;
	const char *kname, *fig;
	if (!p)
		return 0;
	if (!type_ok(v, p, JSON_OBJECT))
		return refuse(v, "published");
	if (src && !type_ok(v, src, JSON_STRING))
		return refuse(v, "published.source");
	if (src && !is_printable_ascii(json_string_value(src))) {
		snprintf(v->why, sizeof(v->why), "characters numasim never writes");
		return refuse(v, "published.source");
	}
	if (ks && !type_ok(v, ks, JSON_OBJECT))
		return refuse(v, "published.kernels");
	json_object_foreach((json_t *)ks, kname, k) {
		if (!type_ok(v, k, JSON_OBJECT))
			return refuse(v, "published.kernels.%s", kname);
		json_object_foreach((json_t *)k, fig, r) {
			char key[400];
			snprintf(key, sizeof(key), "published.kernels.%s.%s", kname, fig);
			if (check_numbers_array(v, r, key, 2, "a range: low, high", SIGNED, false))
				return -1;
			if (json_number_value(json_array_get(r, 0)) > json_number_value(json_array_get(r, 1))) {
				snprintf(v->why, sizeof(v->why), "the range's low end is above its high end");
				return refuse(v, "%s", key);
			}
		}
	}
	return 0;
}

static int check_ab(struct vctx *v, const json_t *o)
{
	const char *name;
	const json_t *k;
	if (check_count(v, o, "pairs", 1, MAX_PAIRS) || check_count(v, o, "first_seed", 0, INT64_MAX) ||
	    check_count(v, o, "unfinished_runs", 0, INT64_MAX) || check_seconds(v, o, "simulated_seconds"))
		return -1;
	size_t pairs = (size_t)json_integer_value(json_object_get(o, "pairs"));
	json_object_foreach((json_t *)json_object_get(o, "kernels"), name, k)
		if (check_ab_kernel(v, name, k, pairs))
			return -1;
	return check_published(v, json_object_get(o, "published"));
}

/* The schema check of a run or ab result (see above): 0, or -1 with
 * "PATH: FIELD: what is wrong" in @err. */
static int check_schema(const char *path, const json_t *o, int kind, char *err, size_t errlen)
{
	struct vctx v = { .file = path, .err = err, .errlen = errlen };
	return kind == MMSTAT_RESULT_RUN ? check_run(&v, o) : check_ab(&v, o);
}

int mmstat_load_result(const char *path, json_t **out, char *err, size_t errlen)
{
	char *text;
	size_t len;
	*out = NULL;
	if (read_input_file(path, MAX_RESULT_BYTES, &text, &len, err, errlen))
		return 0;
	json_error_t je;
	json_t *o = json_loadb(text, len, JSON_REJECT_DUPLICATES, &je);
	free(text);
	if (!o) {
		char shown[200];
		term_escape(je.text, shown, sizeof(shown));
		snprintf(err, errlen, "%s: not JSON (line %d: %s)", path, je.line, shown);
		return 0;
	}
	int kind = 0;
	if (json_is_object(o) && is_run(o))
		kind = MMSTAT_RESULT_RUN;
	else if (json_is_object(o) && is_ab(o))
		kind = MMSTAT_RESULT_AB;
	if (!kind) {
		snprintf(err, errlen,
			 "%s: not a numasim result (expected the JSON written by "
			 "'numasim run --json' or 'numasim ab --json')",
			 path);
		json_decref(o);
		return 0;
	}
	if (check_names(path, o, kind, err, errlen) || check_schema(path, o, kind, err, errlen)) {
		json_decref(o);
		return 0;
	}
	*out = o;
	return kind;
}

size_t mmstat_json_samples(const json_t *array, double *v, size_t max, bool skip_zero)
{
	size_t n = 0, i;
	const json_t *x;
	if (!json_is_array(array))
		return 0;
	json_array_foreach(array, i, x) {
		if (n >= max)
			break;
		if (!json_is_number(x))
			continue;
		double d = json_number_value(x);
		if (!isfinite(d) || (skip_zero && d == 0))
			continue;
		v[n++] = d;
	}
	return n;
}

void mmstat_file_stem(const char *path, char *buf, size_t len)
{
	const char *base = strrchr(path, '/');
	base = base ? base + 1 : path;
	size_t n = strlen(base);
	if (n > 5 && !strcmp(base + n - 5, ".json"))
		n -= 5;
	snprintf(buf, len, "%.*s", (int)n, base);
}

/* What a comparison of results varies on purpose: not a difference. */
static bool diff_skipped(const char *section, const char *key)
{
	return !strcmp(section, "kernel") || (!strcmp(section, "run") && !strcmp(key, "seed"));
}

static void diff_append(char *out, size_t len, size_t *o, const char *section, const char *key,
			const json_t *va, const json_t *vb, bool keys_only)
{
	char sec[80], k[80];
	term_escape(section, sec, sizeof(sec));
	term_escape(key, k, sizeof(k));
	if (*o >= len)
		return;
	if (keys_only) {
		*o += (size_t)snprintf(out + *o, len - *o, "%s%s.%s", *o ? ", " : "", sec, k);
		return;
	}
	char *a = va ? json_dumps(va, JSON_ENCODE_ANY | JSON_ENSURE_ASCII) : NULL;
	char *b = vb ? json_dumps(vb, JSON_ENCODE_ANY | JSON_ENSURE_ASCII) : NULL;
	char sa[64], sb[64];
	term_escape(a ? a : "(none)", sa, sizeof(sa));
	term_escape(b ? b : "(none)", sb, sizeof(sb));
	free(a);
	free(b);
	*o += (size_t)snprintf(out + *o, len - *o, "%s%s.%s %s vs %s", *o ? ", " : "", sec, k, sa, sb);
}

int mmstat_scenario_diff(const json_t *a, const json_t *b, char *out, size_t len, bool keys_only)
{
	const json_t *sa = json_object_get(a, "scenario"), *sb = json_object_get(b, "scenario");
	size_t o = 0;
	int n = 0;
	out[0] = '\0';
	if (!json_is_object(sa) || !json_is_object(sb))
		return -1;
	const char *section, *key;
	const json_t *xa, *xb, *va;
	json_object_foreach((json_t *)sa, section, xa) {
		if (!json_is_object(xa))
			continue; /* name, source, overrides */
		xb = json_object_get(sb, section);
		json_object_foreach((json_t *)xa, key, va) {
			const json_t *vb = json_is_object(xb) ? json_object_get(xb, key) : NULL;
			if (diff_skipped(section, key) || (vb && json_equal(va, vb)))
				continue;
			diff_append(out, len, &o, section, key, va, vb, keys_only);
			n++;
		}
	}
	json_object_foreach((json_t *)sb, section, xb) {
		if (!json_is_object(xb))
			continue;
		xa = json_object_get(sa, section);
		json_object_foreach((json_t *)xb, key, va) {
			if (diff_skipped(section, key) || (json_is_object(xa) && json_object_get(xa, key)))
				continue;
			diff_append(out, len, &o, section, key, NULL, va, keys_only);
			n++;
		}
	}
	return n;
}
