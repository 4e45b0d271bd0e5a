/* numasim sweep: run a sweep file's points (cli/sweep.h, docs/sweeps.md)
 * into a directory, one JSON per point, resuming where a killed sweep
 * stopped; or hand the points to Slurm or GNU parallel; and collect the
 * results into one table.
 *
 *   DIR/manifest.json       the points: index, id, kernel, seed, balancing,
 *                           grid values, result file
 *   DIR/points/ID.json      a point's 'numasim run --json' result, with
 *                           "sweep_id": ID
 *   DIR/sweep.sbatch        --emit slurm
 *   DIR/sweep.jobs          --emit parallel
 *   DIR/results.csv         collect
 *
 * Every point is deterministic and written atomically by itself, so the
 * results do not depend on --jobs, nor on which machine ran which point. */
#define _DEFAULT_SOURCE /* realpath */
#include <errno.h>
#include <getopt.h>
#include <limits.h>
#include <math.h>
#include <pthread.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "cli/cli.h"
#include "cli/sweep.h"
#include "kernel/variants.h"
#include "lib/escape.h"
#include "lib/outfile.h"
#include "lib/version.h"
#include "lib/readfile.h"
#include "lib/strnum.h"
#include "report/mmstat.h"
#include "report/report.h"

const char sweep_usage[] =
	"usage: numasim sweep SPEC [OPTIONS]\n"
	"       numasim sweep collect DIR [OPTIONS]\n"
	"\n"
	"Run the points of a sweep file (a scenario x kernels x grids of keys x\n"
	"seeds, balancing on, off or both; see docs/sweeps.md) into DIR, one JSON\n"
	"result per point (DIR/points/ID.json, ID a hash of the point's resolved\n"
	"scenario) and DIR/manifest.json.  A point whose result exists with its id\n"
	"is not run again: a killed sweep resumes where it stopped.  A result made\n"
	"by another build of numasim (its numasim_build) is stale: the sweep\n"
	"refuses to mix it with this build's unless told to run it again.\n"
	"\n"
	"options:\n"
	"  -o, --out DIR       the output directory (default: SPEC without .ini, plus\n"
	"                      '.sweep'); its parent must exist\n"
	"  --jobs N            points at a time (default: online CPUs); results do\n"
	"                      not depend on it\n"
	"  --point K           run only point K (0 .. points - 1), as an array task\n"
	"  --emit slurm        write DIR/sweep.sbatch, an sbatch array script whose\n"
	"                      task T runs points T*K .. T*K+K-1 ('numasim sweep SPEC\n"
	"                      --point P'), DIR/collect.sbatch (sweep collect DIR)\n"
	"                      and DIR/submit.sh, which submits the array and the\n"
	"                      collect job after it; runs nothing ('sh DIR/submit.sh')\n"
	"  --slurm-opt OPT     an #SBATCH line for both jobs, e.g. --time=00:10:00,\n"
	"                      --mem=2G, --partition=short, --account=proj (repeat it)\n"
	"  --array-limit N     at most N array tasks at once (--array=0-M%N)\n"
	"  --points-per-task K K points per array task (default 1): fewer, longer tasks\n"
	"  --emit parallel     write DIR/sweep.jobs, one command per point for GNU\n"
	"                      parallel ('parallel --jobs N < DIR/sweep.jobs')\n"
	"  --rerun-stale       run again the points whose results another build made\n"
	"  --list              print the points and whether each has its result\n"
	"                      (done, to run, or stale: another build's)\n"
	"  -q, --quiet         no progress, no summary\n"
	"  -h, --help          this text\n"
	"\n"
	"collect DIR: the results of DIR's points into DIR/results.csv (a row per\n"
	"point: kernel, seed, balancing, the grid's keys, the vmstat counters and\n"
	"figures) and DIR/compare.txt ('numasim compare DIR': per grid value and\n"
	"balancing, kernels as columns, seeds as samples); points without a result\n"
	"are counted and left out.\n"
	"\n"
	"Exit status: 0 done, 2 bad input (the sweep file, options; nothing run or\n"
	"written), 1 a point failed or an output could not be written.\n";

enum emit { EMIT_NONE, EMIT_SLURM, EMIT_PARALLEL };

struct spoint {
	struct sweep_point pt;
	char id[SWEEP_ID_LEN + 1];
	char result[64];        /* "points/ID.json" */
	bool done;              /* had its result before this invocation */
	int rc;
	char err[512];
};

struct sweep_run {
	struct sweep_spec *sp;
	const char *spec_path;
	char dir[OUTFILE_PATH_MAX - 128];
	struct spoint *p;
	char (*ids)[SWEEP_ID_LEN + 1]; /* the full expansion's, for the manifest */
	bool cached;            /* --point K found its id in the manifest's cache */
	struct sweep_emit_paths emit_paths;
	int *todo, nr_todo;
	int jobs, point;        /* point: --point K, or -1 */
	enum emit emit;
	bool quiet, list, progress, rerun_stale;
	struct sweep_slurm slurm;   /* --slurm-opt, --array-limit, --points-per-task */
	atomic_int next, finished;
	pthread_mutex_t lock;   /* outfile's signal slots; progress */
	struct timespec t0;
};

static double since(const struct timespec *t0)
{
	struct timespec t1;
	clock_gettime(CLOCK_MONOTONIC, &t1);
	return (double)(t1.tv_sec - t0->tv_sec) + (double)(t1.tv_nsec - t0->tv_nsec) / 1e9;
}

/* ---- the points' files ------------------------------------------------------ */

static void path_in(const char *dir, const char *name, char *out, size_t len)
{
	snprintf(out, len, "%s/%s", dir, name);
}

enum result_state { RESULT_NONE, RESULT_DONE, RESULT_STALE };
static const char *const result_state_names[] = { "to run", "done", "stale" };

/* Has point @p its result, with its id, and by this build (else stale:
 * @other, if given, gets the build that made it)? */
static enum result_state result_state(const struct sweep_run *r, const struct spoint *p,
				      char *other, size_t len)
{
	char path[OUTFILE_PATH_MAX], err[1024];
	struct stat st;
	json_t *doc;
	path_in(r->dir, p->result, path, sizeof(path));
	if (lstat(path, &st) || !S_ISREG(st.st_mode))
		return RESULT_NONE;
	if (mmstat_load_result(path, &doc, err, sizeof(err)) != MMSTAT_RESULT_RUN) {
		json_decref(doc);
		return RESULT_NONE;
	}
	const char *id = json_string_value(json_object_get(doc, "sweep_id"));
	const char *build = json_string_value(json_object_get(doc, "numasim_build"));
	enum result_state st_ = RESULT_NONE;
	if (id && !strcmp(id, p->id)) {
		st_ = build && !strcmp(build, numasim_build_id) ? RESULT_DONE : RESULT_STALE;
		if (st_ == RESULT_STALE && other)
			snprintf(other, len, "%s", build ? build : "an unrecorded build");
	}
	json_decref(doc);
	return st_;
}

static int write_json_locked(struct sweep_run *r, json_t *j, const char *what, const char *path,
			     char *err, size_t errlen)
{
	pthread_mutex_lock(&r->lock);
	int rc = report_write_json(j, what, path, err, errlen);
	pthread_mutex_unlock(&r->lock);
	return rc;
}

static void run_point(struct sweep_run *r, struct spoint *p)
{
	struct scenario *sc = malloc(sizeof(*sc));
	struct sim *s = calloc(1, sizeof(*s));
	char path[OUTFILE_PATH_MAX];
	if (!sc || !s) {
		p->rc = 1;
		snprintf(p->err, sizeof(p->err), "out of memory");
		goto out;
	}
	if (sweep_point_scenario(r->sp, &p->pt, sc, p->err, sizeof(p->err)) ||
	    scenario_to_sim(sc, s, p->err, sizeof(p->err)) || sim_init(s, p->err, sizeof(p->err))) {
		p->rc = 1;
		sim_free(s);
		goto out;
	}
	sim_run(s);
	json_t *j = report_json(s, sc);
	sim_free(s);
	if (!j) {
		p->rc = 1;
		snprintf(p->err, sizeof(p->err), "cannot build the JSON report");
		goto out;
	}
	json_object_set_new(j, "sweep_id", json_string(p->id));
	path_in(r->dir, p->result, path, sizeof(path));
	if (write_json_locked(r, j, "sweep", path, p->err, sizeof(p->err)))
		p->rc = 1;
	json_decref(j);
out:
	free(sc);
	free(s);
}

static void *worker(void *arg)
{
	struct sweep_run *r = arg;
	int i;
	while ((i = atomic_fetch_add(&r->next, 1)) < r->nr_todo) {
		run_point(r, &r->p[r->todo[i]]);
		int n = atomic_fetch_add(&r->finished, 1) + 1;
		if (r->progress) {
			pthread_mutex_lock(&r->lock);
			fprintf(stderr, "\r  sweep: %d / %d points run, %.1f s wall ", n, r->nr_todo,
				since(&r->t0));
			fflush(stderr);
			pthread_mutex_unlock(&r->lock);
		}
	}
	return NULL;
}

/* An interrupted sweep says what finished and how to resume (SIGINT,
 * SIGTERM): written from the handler with write() alone, then the signal
 * goes on to the handler before it (outfile's, which removes the
 * temporaries) and ends the process as before (exit status 130 for ^C). */
static struct {
	atomic_int *finished;
	int total;
	char resume[2 * OUTFILE_PATH_MAX + 64];
	struct sigaction old[2];
	bool set[2];
} intr;
static const int intr_signals[2] = { SIGINT, SIGTERM };

static void put_err(const char *s)
{
	ssize_t w = write(STDERR_FILENO, s, strlen(s));
	(void)w;
}

static void put_err_int(int v)
{
	char b[16];
	int n = 15;
	b[15] = 0;
	if (v < 0)
		v = 0;
	do
		b[--n] = (char)('0' + v % 10);
	while ((v /= 10) && n);
	put_err(b + n);
}

static void on_interrupt(int sig)
{
	put_err("\nnumasim sweep: interrupted: ");
	put_err_int(atomic_load(intr.finished));
	put_err(" of ");
	put_err_int(intr.total);
	put_err(" points to run finished, their results kept; resume with: ");
	put_err(intr.resume);
	put_err("\n");
	for (int i = 0; i < 2; i++)
		if (intr_signals[i] == sig) {
			sigaction(sig, &intr.old[i], NULL);
			raise(sig); /* delivered once this handler returns */
		}
}

static void interrupt_message(struct sweep_run *r, bool on)
{
	for (int i = 0; i < 2; i++) {
		if (!on) {
			if (intr.set[i])
				sigaction(intr_signals[i], &intr.old[i], NULL);
			intr.set[i] = false;
			continue;
		}
		struct sigaction sa;
		memset(&sa, 0, sizeof(sa));
		sa.sa_handler = on_interrupt;
		sigemptyset(&sa.sa_mask);
		if (sigaction(intr_signals[i], NULL, &intr.old[i]) || intr.old[i].sa_handler == SIG_IGN)
			continue; /* ignored (nohup): stays ignored */
		intr.set[i] = !sigaction(intr_signals[i], &sa, NULL);
	}
	if (on) {
		char spec[OUTFILE_PATH_MAX], dir[OUTFILE_PATH_MAX];
		term_escape(r->spec_path, spec, sizeof(spec));
		term_escape(r->dir, dir, sizeof(dir));
		intr.finished = &r->finished;
		intr.total = r->nr_todo;
		snprintf(intr.resume, sizeof(intr.resume), "numasim sweep %s -o %s", spec, dir);
	}
}

static int run_todo(struct sweep_run *r)
{
	pthread_t tid[64];
	int n = r->jobs < r->nr_todo ? r->jobs : r->nr_todo, started = 0;
	for (; started < n && started < 64; started++)
		if (pthread_create(&tid[started], NULL, worker, r))
			break;
	if (!started)
		worker(r);
	for (int i = 0; i < started; i++)
		pthread_join(tid[i], NULL);
	if (r->progress)
		fprintf(stderr, "\r%70s\r", "");
	int rc = 0;
	for (int i = 0; i < r->nr_todo; i++) {
		const struct spoint *p = &r->p[r->todo[i]];
		if (p->rc) {
			char msg[700];
			snprintf(msg, sizeof(msg), "point %d (%s): %s", p->pt.index, p->id, p->err);
			cli_error("numasim sweep: ", msg);
			rc = 1;
		}
	}
	return rc;
}

/* ---- emitting jobs for Slurm and GNU parallel --------------------------------- */

/* DIR/sweep.sbatch or DIR/sweep.jobs, from the paths checked before DIR
 * was created (r->emit_paths). */
static int emit_jobs(struct sweep_run *r)
{
	static const char *const slurm_files[] = { "sweep.sbatch", "collect.sbatch", "submit.sh" };
	char path[OUTFILE_PATH_MAX], err[OUTFILE_PATH_MAX + 256];
	const struct sweep_emit_paths *ep = &r->emit_paths;
	struct outfile o[3];
	int n = r->emit == EMIT_SLURM ? 3 : 1, opened = 0, rc = 0;
	pthread_mutex_lock(&r->lock);
	for (; opened < n && !rc; opened++) {
		path_in(r->dir, r->emit == EMIT_SLURM ? slurm_files[opened] : "sweep.jobs", path, sizeof(path));
		rc = outfile_open(&o[opened], "--emit", path, err, sizeof(err));
	}
	pthread_mutex_unlock(&r->lock);
	if (rc) {
		for (int i = 0; i < opened - 1; i++)
			outfile_discard(&o[i]);
		cli_error("numasim sweep: ", err);
		return 1;
	}
	if (r->emit == EMIT_SLURM) {
		sweep_emit_slurm(o[0].f, ep, r->sp->nr_points, &r->slurm);
		sweep_emit_collect(o[1].f, ep, &r->slurm);
		sweep_emit_submit(o[2].f, ep);
	} else {
		sweep_emit_parallel(o[0].f, ep, r->sp->nr_points);
	}
	pthread_mutex_lock(&r->lock);
	rc = outfile_commit_group(o, n, err, sizeof(err));
	pthread_mutex_unlock(&r->lock);
	if (rc) {
		cli_error("numasim sweep: ", err);
		return 1;
	}
	if (!r->quiet) {
		char msg[2 * OUTFILE_PATH_MAX + 128];
		if (r->emit == EMIT_SLURM)
			snprintf(msg, sizeof(msg), "%d array tasks of %d points; submit the array and its "
				 "collect job with 'sh %s/submit.sh'",
				 (r->sp->nr_points + (r->slurm.points_per_task > 0 ? r->slurm.points_per_task : 1) - 1) /
					 (r->slurm.points_per_task > 0 ? r->slurm.points_per_task : 1),
				 r->slurm.points_per_task > 0 ? r->slurm.points_per_task : 1, ep->dir);
		else
			snprintf(msg, sizeof(msg), "%d jobs; run with 'parallel --jobs N < %s/sweep.jobs'",
				 r->sp->nr_points, ep->dir);
		cli_error("numasim sweep: ", msg);
	}
	return 0;
}

/* ---- collect ------------------------------------------------------------------ */

static const char *const csv_vmstat[] = {
	"numa_pte_updates", "numa_huge_pte_updates", "numa_hint_faults", "numa_hint_faults_local",
	"numa_pages_migrated", "pgmigrate_success", "pgmigrate_fail", "nr_tlb_remote_flush",
	"nr_tlb_remote_flush_received", "nr_tlb_local_flush_all", "nr_tlb_local_flush_one",
};
static const char *const csv_stats[] = {
	"passes", "scanner_flushes", "numa_gathers", "migrations", "migr_saw_pending",
};

static void csv_number(FILE *f, const json_t *v)
{
	fputc(',', f);
	if (json_is_integer(v))
		fprintf(f, "%lld", (long long)json_integer_value(v));
	else if (json_is_real(v) && isfinite(json_real_value(v)))
		fprintf(f, "%.10g", json_real_value(v));
}

/* A string field: quoted when it holds a comma or a quote (RFC 4180);
 * the caller checked it is printable ASCII. */
static void csv_string(FILE *f, const char *s, bool first)
{
	if (!first)
		fputc(',', f);
	if (!strpbrk(s, ",\"")) {
		fputs(s, f);
		return;
	}
	fputc('"', f);
	for (; *s; s++) {
		if (*s == '"')
			fputc('"', f);
		fputc(*s, f);
	}
	fputc('"', f);
}

/* The JSON name of scenario key @k inside its section of a recorded
 * scenario: a tunable by its kernel name, any other key without its
 * section ("workload.threads" -> "threads"). */
static const char *key_json_name(int k, char *buf, size_t len)
{
	const char *shown = scenario_key_name(k, buf, len), *sec = scenario_key_section(k);
	size_t n = strlen(sec);
	return !strncmp(shown, sec, n) && shown[n] == '.' ? shown + n + 1 : shown;
}

static int write_csv_row(FILE *f, const struct sweep_manifest *m, size_t k, const char *id, const json_t *doc,
			 char *err, size_t errlen)
{
	const json_t *sc = json_object_get(doc, "scenario");
	const json_t *nb = json_object_get(json_object_get(doc, "tunables"), "kernel.numa_balancing");
	fprintf(f, "%zu,%s", k, id);
	csv_string(f, json_string_value(json_object_get(doc, "kernel")), false);
	csv_number(f, json_object_get(doc, "seed"));
	csv_string(f, json_is_integer(nb) && !json_integer_value(nb) ? "off" : "on", false);
	for (int g = 0; g < m->nr_grid; g++) {
		char buf[160];
		const json_t *v = json_object_get(json_object_get(sc, scenario_key_section(m->grid_key[g])),
						  key_json_name(m->grid_key[g], buf, sizeof(buf)));
		if (json_is_string(v)) {
			if (!is_printable_ascii(json_string_value(v))) {
				snprintf(err, errlen, "point %zu: the value of %s has characters numasim never "
					 "writes", k, m->grid_name[g]);
				return -1;
			}
			csv_string(f, json_string_value(v), false);
		} else if (json_is_boolean(v)) {
			csv_string(f, json_is_true(v) ? "true" : "false", false);
		} else {
			csv_number(f, v);
		}
	}
	csv_number(f, json_object_get(doc, "simulated_seconds"));
	csv_number(f, json_object_get(doc, "elapsed_seconds"));
	csv_number(f, json_object_get(doc, "throughput_ops_per_s"));
	csv_number(f, json_object_get(json_object_get(doc, "interrupts"), "tlb_shootdowns"));
	for (size_t i = 0; i < sizeof(csv_vmstat) / sizeof(csv_vmstat[0]); i++)
		csv_number(f, json_object_get(json_object_get(doc, "vmstat"), csv_vmstat[i]));
	const json_t *st = json_object_get(doc, "stats");
	for (size_t i = 0; i < sizeof(csv_stats) / sizeof(csv_stats[0]); i++)
		csv_number(f, json_object_get(st, csv_stats[i]));
	const json_t *gns = json_object_get(st, "numa_gather_ns"), *gn = json_object_get(st, "numa_gathers");
	json_t *mean = NULL;
	if (json_is_number(gns) && json_is_integer(gn) && json_integer_value(gn) > 0)
		mean = json_real(json_number_value(gns) / (double)json_integer_value(gn) / 1e6);
	csv_number(f, mean);
	json_decref(mean);
	fputc('\n', f);
	return 0;
}

static const char collect_usage[] =
	"usage: numasim sweep collect DIR [-q]\n"
	"\n"
	"Gather the results of a sweep's points (DIR/manifest.json, DIR/points/)\n"
	"into DIR/results.csv and DIR/compare.txt ('numasim compare DIR').  See\n"
	"'numasim sweep --help' and docs/sweeps.md.\n";

static int cmd_collect(int argc, char **argv)
{
	static const struct option opts[] = {
		{ "quiet", no_argument, NULL, 'q' },
		{ "help", no_argument, NULL, 'h' },
		{ 0, 0, 0, 0 },
	};
	bool quiet = false;
	int c, rc = 0, have = 0, missing = 0;
	char err[OUTFILE_PATH_MAX + 1024], path[OUTFILE_PATH_MAX];
	opterr = 0;
	optind = 1;
	while ((c = getopt_long(argc, argv, ":qh", opts, NULL)) != -1) {
		if (c == 'h') {
			fputs(collect_usage, stdout);
			return 0;
		}
		if (c == 'q') {
			quiet = true;
			continue;
		}
		fprintf(stderr, "numasim sweep collect: unknown option '%s'\nTry 'numasim sweep --help'.\n",
			argv[optind - 1]);
		return EXIT_INPUT;
	}
	if (optind != argc - 1) {
		fprintf(stderr, "numasim sweep collect: expected one DIR\n");
		return EXIT_INPUT;
	}
	const char *dir = argv[optind];
	if (strlen(dir) + 64 >= OUTFILE_PATH_MAX) {
		fprintf(stderr, "numasim sweep collect: the path is too long\n");
		return EXIT_INPUT;
	}
	struct sweep_manifest m = { 0 };
	struct outfile o = { .slot = -1 };
	if (sweep_manifest_load(dir, &m, err, sizeof(err))) {
		cli_error("numasim sweep collect: ", err);
		json_decref(m.doc);
		return EXIT_INPUT;
	}
	path_in(dir, "results.csv", path, sizeof(path));
	if (outfile_open(&o, "collect", path, err, sizeof(err))) {
		cli_error("numasim sweep collect: ", err);
		json_decref(m.doc);
		return 1;
	}
	fputs("index,id,kernel,seed,balancing", o.f);
	for (int g = 0; g < m.nr_grid; g++)
		csv_string(o.f, m.grid_name[g], false);
	fputs(",simulated_seconds,elapsed_seconds,throughput_ops_per_s,tlb_shootdowns", o.f);
	for (size_t i = 0; i < sizeof(csv_vmstat) / sizeof(csv_vmstat[0]); i++)
		fprintf(o.f, ",%s", csv_vmstat[i]);
	for (size_t i = 0; i < sizeof(csv_stats) / sizeof(csv_stats[0]); i++)
		fprintf(o.f, ",%s", csv_stats[i]);
	fputs(",mean_gather_ms\n", o.f);
	size_t k;
	const json_t *x;
	json_array_foreach(m.points, k, x) {
		const char *id = json_string_value(json_object_get(x, "id"));
		json_t *doc;
		int got = sweep_result_load(dir, id, k, &doc, err, sizeof(err));
		if (got < 0 || (got && write_csv_row(o.f, &m, k, id, doc, err, sizeof(err)))) {
			cli_error("numasim sweep collect: ", err);
			json_decref(doc);
			rc = EXIT_INPUT;
			break;
		}
		json_decref(doc);
		have += got;
		missing += !got;
	}
	/* the mmtests layout of 'numasim compare DIR' beside it */
	struct outfile t = { .slot = -1 };
	char tpath[OUTFILE_PATH_MAX];
	path_in(dir, "compare.txt", tpath, sizeof(tpath));
	if (!rc && have && outfile_open(&t, "collect", tpath, err, sizeof(err))) {
		cli_error("numasim sweep collect: ", err);
		rc = 1;
	}
	if (!rc && have && (rc = compare_sweep_dir(dir, t.f)) != 0)
		outfile_discard(&t);
	if (rc) {
		outfile_discard(&o);
	} else {
		struct outfile both[2] = { o, t };
		if (outfile_commit_group(both, have ? 2 : 1, err, sizeof(err))) {
			cli_error("numasim sweep collect: ", err);
			rc = 1;
		}
	}
	if (!rc && !quiet) {
		fprintf(stderr, "collected %d point%s into ", have, have == 1 ? "" : "s");
		fputs_escaped(path, stderr);
		if (have) {
			fputs(" and ", stderr);
			fputs_escaped(tpath, stderr);
		}
		if (missing)
			fprintf(stderr, " (%d point%s without a result: not run yet)", missing,
				missing == 1 ? "" : "s");
		fputc('\n', stderr);
	}
	json_decref(m.doc);
	return rc;
}

/* ---- arguments ------------------------------------------------------------------ */

enum { OPT_JOBS = 256, OPT_POINT, OPT_EMIT, OPT_LIST, OPT_RERUN_STALE, OPT_SLURM_OPT, OPT_ARRAY_LIMIT,
       OPT_PER_TASK };

static int parse_int(const char *what, const char *v, long long lo, long long hi, int *out)
{
	long long x;
	if (strnum_ll(v, &x) || x < lo || x > hi) {
		fprintf(stderr, "numasim sweep: %s: '%s' is not a number in %lld..%lld\n", what, v, lo, hi);
		return -1;
	}
	*out = (int)x;
	return 0;
}

/* DIR, creating it and DIR/points. */
static int make_dirs(const char *dir, char *err, size_t errlen)
{
	char pts[OUTFILE_PATH_MAX];
	struct stat st;
	path_in(dir, "points", pts, sizeof(pts));
	const char *d[2] = { dir, pts };
	for (int i = 0; i < 2; i++) {
		if (mkdir(d[i], 0777) && errno != EEXIST) {
			snprintf(err, errlen, "--out: cannot create %s: %s", d[i], strerror(errno));
			return -1;
		}
		if (lstat(d[i], &st) || !S_ISDIR(st.st_mode)) {
			snprintf(err, errlen, "--out: %s is not a directory", d[i]);
			return -1;
		}
	}
	return 0;
}

static int alloc_points(struct sweep_run *r)
{
	/* large, zeroed: mapped on first touch, so --point K pays for its own */
	r->p = calloc((size_t)r->sp->nr_points, sizeof(*r->p));
	r->todo = calloc((size_t)r->sp->nr_points, sizeof(*r->todo));
	if (!r->p || !r->todo) {
		fprintf(stderr, "numasim sweep: out of memory\n");
		return 1;
	}
	return 0;
}

static void set_point(struct spoint *p, const struct sweep_spec *sp, int k, const char *id)
{
	sweep_point(sp, k, &p->pt);
	snprintf(p->id, sizeof(p->id), "%s", id);
	snprintf(p->result, sizeof(p->result), "points/%s.json", id);
}

/* Every point: validated, its id, no two alike (cli/sweep_expand.c); the
 * biggest must fit this computer, and sets how many run at a time. */
static int expand(struct sweep_run *r)
{
	const struct sweep_spec *sp = r->sp;
	char err[2048];
	int biggest;
	struct scenario *sc = malloc(sizeof(*sc));
	r->ids = malloc((size_t)sp->nr_points * sizeof(*r->ids));
	if (!sc || !r->ids) {
		free(sc);
		fprintf(stderr, "numasim sweep: out of memory\n");
		return 1;
	}
	if (sweep_expand(sp, r->ids, &biggest, err, sizeof(err))) {
		cli_error("numasim sweep: ", err);
		free(sc);
		return EXIT_INPUT;
	}
	struct sweep_point pt;
	sweep_point(sp, biggest, &pt);
	if (sweep_point_scenario(sp, &pt, sc, err, sizeof(err)) ||
	    scenario_check_host(sc, host_memory_bytes(), err, sizeof(err))) {
		cli_error("numasim sweep: ", err);
		free(sc);
		return EXIT_INPUT;
	}
	uint64_t most = scenario_model_bytes(sc);
	free(sc);
	for (int k = 0; k < sp->nr_points; k++)
		set_point(&r->p[k], sp, k, r->ids[k]);
	/* points at a time: as many as the memory holds */
	uint64_t fit = host_memory_bytes() / 10 * 8 / (most + 1);
	if ((uint64_t)r->jobs > fit)
		r->jobs = fit ? (int)fit : 1;
	return 0;
}

/* --point K: its id from the manifest's cache when the manifest holds
 * this sweep's expansion by this binary (O(1): no other point resolved, the
 * manifest not rewritten); else the whole expansion, as a first run. */
static int prepare_point(struct sweep_run *r)
{
	const struct sweep_spec *sp = r->sp;
	char key[256], id[SWEEP_ID_LEN + 1], mine[SWEEP_ID_LEN + 1], err[2048];
	struct spoint *p = &r->p[r->point];
	if (sweep_cache_key(sp, key, sizeof(key)) ||
	    sweep_manifest_cached_id(r->dir, key, sp->nr_points, r->point, id))
		return expand(r);
	struct scenario *sc = malloc(sizeof(*sc));
	if (!sc) {
		fprintf(stderr, "numasim sweep: out of memory\n");
		return 1;
	}
	sweep_point(sp, r->point, &p->pt);
	int rc = sweep_point_scenario(sp, &p->pt, sc, err, sizeof(err)) || sweep_scenario_id(sc, mine) ||
		 strcmp(mine, id);
	/* a cache that disagrees with the point itself is not trusted */
	if (!rc && scenario_check_host(sc, host_memory_bytes(), err, sizeof(err))) {
		cli_error("numasim sweep: ", err);
		free(sc);
		return EXIT_INPUT;
	}
	free(sc);
	if (rc)
		return expand(r);
	set_point(p, sp, r->point, id);
	r->jobs = 1;
	r->cached = true;
	return 0;
}

static int write_manifest(struct sweep_run *r)
{
	char path[OUTFILE_PATH_MAX], key[256], err[OUTFILE_PATH_MAX + 256];
	path_in(r->dir, "manifest.json", path, sizeof(path));
	json_t *m = sweep_manifest_json(r->sp, r->ids, sweep_cache_key(r->sp, key, sizeof(key)) ? NULL : key);
	int rc = 0;
	if (!m || write_json_locked(r, m, "manifest", path, err, sizeof(err))) {
		cli_error("numasim sweep: ", m ? err : "out of memory");
		rc = 1;
	}
	json_decref(m);
	return rc;
}

static int parse_sweep(int argc, char **argv, struct sweep_run *r, const char **out)
{
	static const struct option opts[] = {
		{ "out", required_argument, NULL, 'o' },
		{ "jobs", required_argument, NULL, OPT_JOBS },
		{ "point", required_argument, NULL, OPT_POINT },
		{ "emit", required_argument, NULL, OPT_EMIT },
		{ "list", no_argument, NULL, OPT_LIST },
		{ "rerun-stale", no_argument, NULL, OPT_RERUN_STALE },
		{ "slurm-opt", required_argument, NULL, OPT_SLURM_OPT },
		{ "array-limit", required_argument, NULL, OPT_ARRAY_LIMIT },
		{ "points-per-task", required_argument, NULL, OPT_PER_TASK },
		{ "quiet", no_argument, NULL, 'q' },
		{ "help", no_argument, NULL, 'h' },
		{ 0, 0, 0, 0 },
	};
	int c;
	opterr = 0;
	while ((c = getopt_long(argc, argv, ":o:qh", opts, NULL)) != -1) {
		switch (c) {
		case 'h': fputs(sweep_usage, stdout); exit(0);
		case 'q': r->quiet = true; break;
		case 'o': *out = optarg; break;
		case OPT_LIST: r->list = true; break;
		case OPT_RERUN_STALE: r->rerun_stale = true; break;
		case OPT_SLURM_OPT:
			if (!sweep_slurm_opt_ok(optarg)) {
				fprintf(stderr, "numasim sweep: --slurm-opt: '");
				fputs_escaped(optarg, stderr);
				fprintf(stderr, "' is not --NAME or --NAME=VALUE of letters, digits and "
					"_.,:/%%+@=- (e.g. --time=00:10:00, --partition=short)\n");
				return EXIT_INPUT;
			}
			if (r->slurm.nr_opt == SWEEP_MAX_SLURM_OPTS) {
				fprintf(stderr, "numasim sweep: at most %d --slurm-opt\n", SWEEP_MAX_SLURM_OPTS);
				return EXIT_INPUT;
			}
			r->slurm.opt[r->slurm.nr_opt++] = optarg;
			break;
		case OPT_ARRAY_LIMIT:
			if (parse_int("--array-limit", optarg, 1, 100000, &r->slurm.array_limit))
				return EXIT_INPUT;
			break;
		case OPT_PER_TASK:
			if (parse_int("--points-per-task", optarg, 1, SWEEP_MAX_POINTS, &r->slurm.points_per_task))
				return EXIT_INPUT;
			break;
		case OPT_JOBS:
			if (parse_int("--jobs", optarg, 1, 64, &r->jobs))
				return EXIT_INPUT;
			break;
		case OPT_POINT:
			if (parse_int("--point", optarg, 0, SWEEP_MAX_POINTS - 1, &r->point))
				return EXIT_INPUT;
			break;
		case OPT_EMIT:
			if (!strcmp(optarg, "slurm"))
				r->emit = EMIT_SLURM;
			else if (!strcmp(optarg, "parallel"))
				r->emit = EMIT_PARALLEL;
			else {
				fprintf(stderr, "numasim sweep: --emit: '%s' is not slurm or parallel\n", optarg);
				return EXIT_INPUT;
			}
			break;
		case ':':
			fprintf(stderr, "numasim sweep: option '%s' needs a value\nTry 'numasim sweep --help'.\n",
				argv[optind - 1]);
			return EXIT_INPUT;
		default:
			fprintf(stderr, "numasim sweep: unknown option '%s'\nTry 'numasim sweep --help'.\n",
				argv[optind - 1]);
			return EXIT_INPUT;
		}
	}
	if (optind != argc - 1) {
		fprintf(stderr, "numasim sweep: expected one SPEC\nTry 'numasim sweep --help'.\n");
		return EXIT_INPUT;
	}
	if (r->emit && r->point >= 0) {
		fprintf(stderr, "numasim sweep: --emit and --point do not go together\n");
		return EXIT_INPUT;
	}
	if (r->emit != EMIT_SLURM && (r->slurm.nr_opt || r->slurm.array_limit || r->slurm.points_per_task)) {
		fprintf(stderr, "numasim sweep: --slurm-opt, --array-limit and --points-per-task go with "
			"--emit slurm\n");
		return EXIT_INPUT;
	}
	r->spec_path = argv[optind];
	return 0;
}

int cmd_sweep(int argc, char **argv)
{
	if (argc > 1 && !strcmp(argv[1], "collect"))
		return cmd_collect(argc - 1, argv + 1);
	char err[2048];
	const char *out = NULL;
	struct sweep_run *r = calloc(1, sizeof(*r));
	struct sweep_spec *sp = malloc(sizeof(*sp));
	int rc = 0;
	if (!r || !sp) {
		free(r);
		free(sp);
		fprintf(stderr, "numasim sweep: out of memory\n");
		return 1;
	}
	long cpus = sysconf(_SC_NPROCESSORS_ONLN);
	r->jobs = cpus > 0 ? (int)(cpus < 64 ? cpus : 64) : 1;
	r->point = -1;
	r->sp = sp;
	pthread_mutex_init(&r->lock, NULL);
	clock_gettime(CLOCK_MONOTONIC, &r->t0);
	rc = parse_sweep(argc, argv, r, &out);
	if (!rc && sweep_spec_load(r->spec_path, sp, err, sizeof(err))) {
		cli_error("numasim sweep: ", err);
		rc = EXIT_INPUT;
	}
	if (!rc && r->point >= sp->nr_points) {
		fprintf(stderr, "numasim sweep: --point %d: the sweep has points 0..%d\n", r->point,
			sp->nr_points - 1);
		rc = EXIT_INPUT;
	}
	if (!rc) {
		if (out) {
			snprintf(r->dir, sizeof(r->dir), "%s", out);
		} else {
			size_t n = strlen(r->spec_path);
			if (n > 4 && !strcmp(r->spec_path + n - 4, ".ini"))
				n -= 4;
			snprintf(r->dir, sizeof(r->dir), "%.*s.sweep", (int)n, r->spec_path);
		}
		size_t n = strlen(r->dir);
		while (n > 1 && r->dir[n - 1] == '/')
			r->dir[--n] = '\0';
		if (strlen(r->dir) + 64 >= sizeof(r->dir)) {
			fprintf(stderr, "numasim sweep: --out: the path is too long\n");
			rc = EXIT_INPUT;
		}
	}
	/* everything checked before anything is created */
	if (!rc && r->emit && sweep_emit_paths(r->spec_path, r->dir, &r->emit_paths, err, sizeof(err))) {
		cli_error("numasim sweep: ", err);
		rc = EXIT_INPUT;
	}
	if (!rc)
		rc = alloc_points(r);
	if (!rc)
		rc = r->point >= 0 && !r->list ? prepare_point(r) : expand(r);
	if (!rc && r->list) {
		for (int k = 0; k < sp->nr_points; k++) {
			char d[1024];
			const struct spoint *p = &r->p[k];
			int o = snprintf(d, sizeof(d), "%5d %s %-6s %s", k, p->id,
					 result_state_names[result_state(r, p, NULL, 0)],
					 p->pt.kernel >= 0 ? sp->kernels[p->pt.kernel] : sp->base.kernel);
			for (int g = 0; g < sp->nr_grid && o < (int)sizeof(d); g++)
				o += snprintf(d + o, sizeof(d) - (size_t)o, " %s=%s", sp->grid[g].key,
					      sp->grid[g].value[p->pt.value[g]]);
			if (o < (int)sizeof(d))
				snprintf(d + o, sizeof(d) - (size_t)o, " seed=%llu balancing=%s",
					 (unsigned long long)(p->pt.seed >= 0 ? sp->seeds[p->pt.seed] : sp->base.seed),
					 p->pt.off ? "off" : "on");
			fputs_escaped(d, stdout); /* grid values are the file's text */
			fputc('\n', stdout);
		}
		goto out;
	}
	if (!rc && make_dirs(r->dir, err, sizeof(err))) {
		cli_error("numasim sweep: ", err);
		rc = EXIT_INPUT;
	}
	if (!rc && !r->cached)
		rc = write_manifest(r);
	if (!rc && r->emit) {
		rc = emit_jobs(r);
		goto out;
	}
	if (!rc) {
		int done = 0, stale = 0;
		char other[128] = "";
		for (int k = 0; k < sp->nr_points; k++) {
			if (r->point >= 0 && k != r->point)
				continue;
			enum result_state st = result_state(r, &r->p[k], stale ? NULL : other, sizeof(other));
			stale += st == RESULT_STALE;
			r->p[k].done = st == RESULT_DONE;
			if (r->p[k].done)
				done++;
			else
				r->todo[r->nr_todo++] = k;
		}
		if (stale && !r->rerun_stale) {
			/* nothing run: one directory, one build's results */
			char msg[OUTFILE_PATH_MAX + 512];
			snprintf(msg, sizeof(msg), "%s: %d point%s made by another build of numasim (%s; this "
				 "is %s): run them again with --rerun-stale, or resume with the build that "
				 "made them", r->dir, stale, stale == 1 ? " was" : "s were", other,
				 numasim_build_id);
			cli_error("numasim sweep: ", msg);
			r->nr_todo = 0;
			rc = EXIT_INPUT;
			goto out;
		}
		r->progress = !r->quiet && isatty(STDERR_FILENO);
		if (r->nr_todo && r->point < 0)
			interrupt_message(r, true);
		rc = r->nr_todo ? run_todo(r) : 0;
		interrupt_message(r, false);
		if (!r->quiet)
			fprintf(stderr, "sweep %s: %d point%s run, %d already done, %.2f s wall, %d at a time\n",
				r->dir, r->nr_todo, r->nr_todo == 1 ? "" : "s", done, since(&r->t0),
				r->jobs < r->nr_todo ? r->jobs : (r->nr_todo ? r->nr_todo : 1));
	}
out:
	pthread_mutex_destroy(&r->lock);
	free(r->p);
	free(r->ids);
	free(r->todo);
	free(r);
	free(sp);
	return rc;
}
