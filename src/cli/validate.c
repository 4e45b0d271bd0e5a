/* numasim validate: every published measurement numasim is held to
 * (report/published.h), run in one command: the seed's A/B pairs on the
 * published kernels through ab's runner, then one row per published figure
 * with the model's min-max, the published value, the tolerated range and
 * the verdict. */
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "lib/version.h"
#include "cli/ab.h"
#include "cli/cli.h"
#include "cli/validate.h"
#include "report/published.h"
#include "report/report.h"

#define EXIT_MISS 4 /* --strict, and a row missed */

const char validate_usage[] =
	"usage: numasim validate [--short] [--strict] [--realcheck DIR] [--json FILE]\n"
	"                        [--jobs N] [-q]\n"
	"\n"
	"Run the seed's A/B pairs on the kernels the published measurements were\n"
	"made on (v7.3 and v7.3+single-folio-v2: 3 pairs of 180 s, as published)\n"
	"and print one row per published figure: the model's min-max over the\n"
	"pairs, the published value, the range it tolerates and the verdict.  A\n"
	"row is \"in\" when the model's range overlaps the published range widened\n"
	"by 10% of its ends (the headline figures) or 25% (the instrumentation\n"
	"figures), \"miss\" otherwise; docs/calibration.md explains every miss.\n"
	"\n"
	"options:\n"
	"  --short             1 pair of 60 s per kernel (a few seconds: for CI)\n"
	"  --strict            exit 4 when any row misses\n"
	"  --realcheck DIR     also the rows of a make realcheck result directory\n"
	"                      (scripts/realcheck.sh --out DIR): each guest against\n"
	"                      numasim at the guest's measured costs, \"in\" within\n"
	"                      a factor of 1.5\n"
	"  --json FILE         the rows as JSON, one object per row ('-': on standard\n"
	"                      output, instead of the table)\n"
	"  --jobs N            runs at a time (default: online CPUs); results do not\n"
	"                      depend on it\n"
	"  -q, --quiet         no progress line, no wall time\n"
	"  -h, --help          this text\n"
	"\n"
	"exit status: 0 when the runs completed (a miss is the model's documented\n"
	"state, printed, not an error), 1 failure, 2 bad usage, 4 with --strict\n"
	"when a row misses.\n";

/* The run's kernel a row is about (the runs are of published_kernels). */
static int kernel_of(const struct ab *ab, const struct published *p)
{
	for (int k = 0; k < ab->nr_kernels; k++)
		if (!strcmp(ab->kernels[k], p->kernel))
			return k;
	return -1;
}

/* Row @p's model min-max over the pairs (false: no value) and verdict. */
static bool row_verdict(struct ab *ab, const struct published *p, double *lo, double *hi, bool *has)
{
	int k = kernel_of(ab, p);
	*has = k >= 0 && ab_figure_range(ab, p->fig, k, lo, hi) > 0;
	return *has && published_in(p, *lo, *hi);
}

/* The realcheck rows, when --realcheck was given (one validate a process). */
static struct realcheck_rows *rc_rows;
static const char *rc_dir;

static int misses(struct ab *ab)
{
	int n = rc_rows ? rc_rows->miss : 0;
	for (size_t i = 0; i < nr_published_rows; i++) {
		double lo, hi;
		bool has;
		n += !row_verdict(ab, &published_rows[i], &lo, &hi, &has);
	}
	return n;
}

#define MAX_SOURCES 16 /* one today: the seed's patch series */

/* The sources, numbered in the order rows first cite them: the index of
 * @s, added if new (a source beyond MAX_SOURCES shares the last number). */
static int source_index(const char **src, int *n, const char *s)
{
	for (int i = 0; i < *n; i++)
		if (!strcmp(src[i], s))
			return i;
	if (*n == MAX_SOURCES)
		return MAX_SOURCES - 1;
	src[*n] = s;
	return (*n)++;
}

static void print_rows(struct ab *ab)
{
	const char *src[MAX_SOURCES];
	int nsrc = 0;
	printf("%-42s %-22s %-14s %-12s %-19s %-7s %s\n", "figure", "kernel", "model", "published",
	       "tolerated (rule)", "verdict", "source");
	for (size_t i = 0; i < nr_published_rows; i++) {
		const struct published *p = &published_rows[i];
		double lo, hi, tlo, thi;
		bool has, in = row_verdict(ab, p, &lo, &hi, &has);
		char model[64] = "-", pub[64], tol[64], rule[80];
		if (has)
			ab_figure_format(model, sizeof(model), p->fig, lo, hi);
		published_format(p, pub, sizeof(pub));
		published_tolerated(p, &tlo, &thi);
		ab_figure_format(tol, sizeof(tol), p->fig, tlo, thi);
		snprintf(rule, sizeof(rule), "%s (%s)", tol, published_tolerance_name(p));
		int s = source_index(src, &nsrc, p->source);
		printf("%-42s %-22s %-14s %-12s %-19s %-7s [%d]\n", ab_figures[p->fig].label, p->kernel, model, pub,
		       rule, in ? "in" : "miss", s + 1);
	}
	int miss = misses(ab) - (rc_rows ? rc_rows->miss : 0);
	printf("\n%zu rows: %zu in, %d miss (docs/calibration.md says why each misses)\n", nr_published_rows,
	       nr_published_rows - (size_t)miss, miss);
	for (int s = 0; s < nsrc; s++)
		printf("[%d] %s\n", s + 1, src[s]);
}

static void print_validate(struct ab *ab)
{
	unsigned long long s0 = (unsigned long long)ab->seed0, s1 = s0 + (unsigned long long)ab->pairs - 1;
	printf("numasim validate: %s, %d pair%s of %g s per kernel (balancing on vs off, seed %llu..%llu)\n\n",
	       ab->base.name, ab->pairs, ab->pairs > 1 ? "s" : "", ab->base.duration_s, s0, s1);
	print_rows(ab);
	if (rc_rows)
		realcheck_rows_print(rc_rows, rc_dir);
}

static json_t *range_json(double lo, double hi)
{
	json_t *r = json_array();
	json_array_append_new(r, json_real(lo));
	json_array_append_new(r, json_real(hi));
	return r;
}

static json_t *row_json(struct ab *ab, const struct published *p)
{
	double lo, hi, tlo, thi;
	bool has, in = row_verdict(ab, p, &lo, &hi, &has);
	char text[64];
	json_t *o = json_object();
	published_format(p, text, sizeof(text));
	published_tolerated(p, &tlo, &thi);
	json_object_set_new(o, "figure", json_string(ab_figures[p->fig].key));
	json_object_set_new(o, "label", json_string(ab_figures[p->fig].label));
	json_object_set_new(o, "kernel", json_string(p->kernel));
	json_object_set_new(o, "model", has ? range_json(lo, hi) : json_null());
	json_object_set_new(o, "published", range_json(p->lo, p->hi));
	json_object_set_new(o, "published_text", json_string(text));
	json_object_set_new(o, "tolerance", json_string(p->tol == PUB_HEADLINE ? "headline" : "instrumentation"));
	json_object_set_new(o, "tolerated", range_json(tlo, thi));
	json_object_set_new(o, "verdict", json_string(in ? "in" : "miss"));
	json_object_set_new(o, "source", json_string(p->source));
	return o;
}

static json_t *validate_json(struct ab *ab)
{
	json_t *root = json_object(), *rows = json_array(), *kernels = json_array();
	int miss = misses(ab) - (rc_rows ? rc_rows->miss : 0);
	json_object_set_new(root, "numasim_version", json_string(NUMASIM_VERSION));
	json_object_set_new(root, "numasim_build", json_string(numasim_build_id));
	json_object_set_new(root, "scenario", json_string(ab->base.name));
	for (int k = 0; k < ab->nr_kernels; k++)
		json_array_append_new(kernels, json_string(ab->kernels[k]));
	json_object_set_new(root, "kernels", kernels);
	json_object_set_new(root, "pairs", json_integer(ab->pairs));
	json_object_set_new(root, "simulated_seconds", json_real(ab->base.duration_s));
	json_object_set_new(root, "first_seed", json_integer((json_int_t)ab->seed0));
	for (size_t i = 0; i < nr_published_rows; i++)
		json_array_append_new(rows, row_json(ab, &published_rows[i]));
	json_object_set_new(root, "rows", rows);
	json_object_set_new(root, "in", json_integer((json_int_t)nr_published_rows - miss));
	json_object_set_new(root, "miss", json_integer(miss));
	if (rc_rows) {
		json_t *rc = json_object();
		json_object_set_new(rc, "dir", json_string(rc_dir));
		json_object_set_new(rc, "rows", realcheck_rows_json(rc_rows));
		json_object_set_new(rc, "in", json_integer(rc_rows->n - rc_rows->miss));
		json_object_set_new(rc, "miss", json_integer(rc_rows->miss));
		json_object_set_new(root, "realcheck", rc);
	}
	return root;
}

enum { OPT_SHORT = 256, OPT_STRICT, OPT_JOBS, OPT_JSON, OPT_REALCHECK };

/* 0, or an exit status; *strict and *short_mode from the options. */
static int parse_validate(int argc, char **argv, struct ab *ab, bool *strict, bool *short_mode)
{
	static const struct option opts[] = {
		{ "short", no_argument, NULL, OPT_SHORT },
		{ "strict", no_argument, NULL, OPT_STRICT },
		{ "jobs", required_argument, NULL, OPT_JOBS },
		{ "json", required_argument, NULL, OPT_JSON },
		{ "realcheck", required_argument, NULL, OPT_REALCHECK },
		{ "quiet", no_argument, NULL, 'q' },
		{ "help", no_argument, NULL, 'h' },
		{ 0, 0, 0, 0 },
	};
	int c;
	opterr = 0;
	while ((c = getopt_long(argc, argv, ":hq", opts, NULL)) != -1) {
		switch (c) {
		case 'h': fputs(validate_usage, stdout); return -1;
		case 'q': ab->quiet = true; break;
		case OPT_SHORT: *short_mode = true; break;
		case OPT_STRICT: *strict = true; break;
		case OPT_JSON: ab->json = optarg; break;
		case OPT_REALCHECK: rc_dir = optarg; break;
		case OPT_JOBS:
			if (ab_parse_count(ab, "--jobs", optarg, 1, 64, &ab->jobs))
				return EXIT_INPUT;
			break;
		default:
			fprintf(stderr, "numasim validate: bad option '%s'\nTry 'numasim validate --help'.\n",
				argv[optind - 1]);
			return EXIT_INPUT;
		}
	}
	if (optind != argc) {
		fprintf(stderr, "numasim validate: unexpected '%s'\nTry 'numasim validate --help'.\n", argv[optind]);
		return EXIT_INPUT;
	}
	return 0;
}

/* The published kernels on the seed, as published or short. */
static int load_validate(struct ab *ab, bool short_mode)
{
	char err[2048];
	const struct ab_options o = { .duration = short_mode ? "60" : "180" };
	ab->pairs = short_mode ? 1 : 3;
	for (int k = 0; k < NR_PUBLISHED_KERNELS; k++)
		snprintf(ab->kernels[ab->nr_kernels++], sizeof(ab->kernels[0]), "%s", published_kernels[k]);
	if (ab_load(ab, "seed", &o, err, sizeof(err))) {
		cli_error("numasim validate: ", err);
		return EXIT_INPUT;
	}
	return 0;
}

int cmd_validate(int argc, char **argv)
{
	struct ab *ab = ab_new("numasim validate");
	bool strict = false, short_mode = false;
	if (!ab)
		return 1;
	int rc = parse_validate(argc, argv, ab, &strict, &short_mode);
	if (!rc && rc_dir) { /* read before the runs: a bad directory costs nothing */
		char err[4096];
		rc_rows = malloc(sizeof(*rc_rows));
		if (!rc_rows || realcheck_rows_load(rc_dir, rc_rows, err, sizeof(err))) {
			cli_error("numasim validate: --realcheck: ", rc_rows ? err : "out of memory");
			rc = EXIT_INPUT;
		}
	}
	if (!rc)
		rc = load_validate(ab, short_mode);
	if (!rc)
		rc = ab_execute(ab, print_validate, validate_json);
	if (!rc && strict && misses(ab))
		rc = EXIT_MISS;
	if (rc < 0) /* --help */
		rc = 0;
	ab_free(ab);
	free(rc_rows);
	rc_rows = NULL;
	rc_dir = NULL;
	return rc;
}
