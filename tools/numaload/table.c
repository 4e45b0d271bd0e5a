/* The realcheck table (see table.h). */
#include "table.h"

#include <math.h>
#include <stdbool.h>
#include <string.h>

#include "report/mmstat.h"
#include "report/realfig.h"

static double num(const json_t *v)
{
	return json_is_number(v) ? json_number_value(v) : NAN;
}

static void cell(FILE *out, double x)
{
	if (isnan(x))
		fprintf(out, " %13s", "n/a");
	else if (x == floor(x) && fabs(x) < 1e15)
		fprintf(out, " %13.0f", x);
	else
		fprintf(out, " %13.3f", x);
}

static const char *str(const json_t *d, const char *k)
{
	const char *s = json_string_value(json_object_get(d, k));
	return s ? s : "?";
}

/* The machines' shapes, which must agree for the counts to compare: a
 * scenario without [machine] makes numaload measure the box it runs on. */
static void warn_shape(FILE *out, const char *label, const json_t *real, const json_t *sim)
{
	static const char *const keys[] = { "sockets", "nodes", "cpus" };
	const json_t *a = json_object_get(real, "machine"), *b = json_object_get(sim, "machine");
	bool same = true;
	for (size_t i = 0; i < sizeof(keys) / sizeof(keys[0]); i++)
		same &= num(json_object_get(a, keys[i])) == num(json_object_get(b, keys[i]));
	if (!same)
		fprintf(out, "%s: WARNING: the machines differ: real %.0f sockets, %.0f nodes, %.0f CPUs; "
			"numasim %.0f sockets, %.0f nodes, %.0f CPUs: the counts below do not compare "
			"(give the scenario this machine's [machine])\n", label,
			num(json_object_get(a, "sockets")), num(json_object_get(a, "nodes")),
			num(json_object_get(a, "cpus")), num(json_object_get(b, "sockets")),
			num(json_object_get(b, "nodes")), num(json_object_get(b, "cpus")));
}

int nl_table_print(FILE *out, const char *label, const json_t *real, const json_t *sim)
{
	int off = 0;
	warn_shape(out, label, real, sim);
	fprintf(out, "%s: %s on %s (%.1f s measured) vs numasim %s (%.1f s simulated)\n", label,
		str(real, "scenario"), str(real, "kernel"), num(json_object_get(real, "simulated_seconds")),
		str(sim, "kernel"), num(json_object_get(sim, "simulated_seconds")));
	fprintf(out, "  %-44s %13s %13s %13s  %s\n", "figure", "real", "numasim", "numasim/real",
		"within 1.5x");
	for (int f = 0; f < NR_REALFIGS; f++) {
		double a = realfig_value(real, true, (enum realfig)f);
		double b = realfig_value(sim, false, (enum realfig)f), q;
		const char *verdict = "";
		switch (realfig_judge((enum realfig)f, a, b, &q)) {
		case RFV_IN: verdict = "yes"; break;
		case RFV_MISS: verdict = "NO"; off++; break;
		case RFV_BOTH_ZERO: verdict = "yes (both 0)"; break;
		case RFV_NA: verdict = "n/a"; break;
		case RFV_SHOWN: verdict = f == RF_THROUGHPUT ? "not compared" : "real only"; break;
		}
		if (!realfigs[f].compared && f != RF_THROUGHPUT)
			q = NAN;
		fprintf(out, "  %-44s", realfigs[f].name);
		cell(out, a);
		cell(out, b);
		if (isnan(q))
			fprintf(out, " %13s", "");
		else
			fprintf(out, " %13.2f", q);
		fprintf(out, "  %s\n", verdict);
	}
	return off;
}

int nl_table_main(int argc, char **argv)
{
	if (argc < 3 || argc % 3) {
		fprintf(stderr, "numaload --table: expected LABEL REAL.json SIM.json [LABEL REAL SIM]...\n");
		return 2;
	}
	json_t *docs[2 * 16];
	int n = argc / 3, rc = 0, outside = 0, loaded = 0;
	if (n > 16) {
		fprintf(stderr, "numaload --table: at most 16 pairs\n");
		return 2;
	}
	for (int i = 0; i < 2 * n && !rc; i++) {
		char err[1024];
		const char *path = argv[(i / 2) * 3 + 1 + i % 2];
		if (mmstat_load_result(path, &docs[i], err, sizeof(err)) != MMSTAT_RESULT_RUN) {
			fprintf(stderr, "numaload --table: %s\n", docs[i] ? "expected a run result" : err);
			json_decref(docs[i]);
			rc = 2;
			break;
		}
		loaded++;
	}
	for (int p = 0; p < n && !rc; p++) {
		outside += nl_table_print(stdout, argv[p * 3], docs[2 * p], docs[2 * p + 1]);
		printf("\n");
	}
	if (!rc)
		printf("%d compared figure%s outside a factor of %.1f\n", outside, outside == 1 ? "" : "s",
		       REALFIG_AGREE);
	for (int i = 0; i < loaded; i++)
		json_decref(docs[i]);
	return rc;
}
