#include "report/mmstat.h"

#include <ctype.h>
#include <errno.h>
#include <math.h>
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
	if (check_names(path, o, kind, err, errlen)) {
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
