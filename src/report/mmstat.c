#include "report/mmstat.h"

#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>

double mmstat_mean(const double *v, size_t n)
{
	if (!n)
		return NAN;
	double sum = 0;
	for (size_t i = 0; i < n; i++)
		sum += v[i];
	return sum / (double)n;
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

int mmstat_load_result(const char *path, json_t **out, char *err, size_t errlen)
{
	struct stat st;
	*out = NULL;
	if (stat(path, &st) != 0) {
		snprintf(err, errlen, "%s: %s", path, strerror(errno));
		return 0;
	}
	if (S_ISDIR(st.st_mode)) {
		snprintf(err, errlen, "%s: is a directory", path);
		return 0;
	}
	json_error_t je;
	json_t *o = json_load_file(path, 0, &je);
	if (!o) {
		snprintf(err, errlen, "%s: not JSON (line %d: %s)", path, je.line, je.text);
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
