/* The A/B runner (cli/ab.h): for each kernel, N pairs of runs; the two
 * runs of a pair share the scenario and the seed (placement, first touch:
 * the same "boot") and differ only in kernel.numa_balancing.  A
 * balancing-off run is made once per seed for kernels that only differ
 * where balancing goes (kernel_config_same_unbalanced) and shared between
 * them; a kernel that also differs in switches that act only inside a
 * migration's unmap (kernel_config_same_unmigrated) reuses another's
 * balancing-off run when that run never reached those switches -- then its
 * own would be the same run -- and makes its own otherwise (its off runs go
 * last, after the runs they may reuse).  Runs go to a pool of threads;
 * every run is deterministic and lands in its own slot, so the output does
 * not depend on the number of threads. */
#include "cli/ab.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cli/cli.h"
#include "kernel/variants.h"
#include "lib/strnum.h"
#include "report/report.h"

static void run_job(const struct ab *ab, struct ab_job *j)
{
	struct scenario sc = ab->base;
	struct sim *s = calloc(1, sizeof(*s));
	if (!s) {
		j->rc = 1;
		snprintf(j->err, sizeof(j->err), "out of memory");
		return;
	}
	snprintf(sc.kernel, sizeof(sc.kernel), "%s", ab->kernels[j->kernel]);
	sc.seed = ab->seed0 + (uint64_t)j->pair;
	sc.t.numa_balancing = j->on ? (ab->base.t.numa_balancing ? ab->base.t.numa_balancing : 1) : 0;
	if (scenario_to_sim(&sc, s, j->err, sizeof(j->err)) || sim_init(s, j->err, sizeof(j->err))) {
		j->rc = 1;
	} else {
		sim_run(s);
		run_result_from_sim(s, &j->res);
	}
	sim_free(s);
	free(s);
}

static double since(const struct timespec *t0)
{
	struct timespec t1;
	clock_gettime(CLOCK_MONOTONIC, &t1);
	return (double)(t1.tv_sec - t0->tv_sec) + (double)(t1.tv_nsec - t0->tv_nsec) / 1e9;
}

/* "  ab: 5 / 12 runs done, 3.2 s wall" after each run, on a terminal. */
static void job_done(struct ab *ab)
{
	int n = atomic_fetch_add(&ab->done, 1) + 1;
	if (!ab->progress)
		return;
	pthread_mutex_lock(&ab->progress_lock);
	fprintf(stderr, "\r  ab: %d / %d runs done, %.1f s wall ", n, ab->nr_todo, since(&ab->t0));
	fflush(stderr);
	pthread_mutex_unlock(&ab->progress_lock);
}

/* A job that may reuse another's run: wait for that run (it was taken
 * from the queue before this one), and take its result if it never read
 * a switch the two kernels differ in. */
static bool try_reuse(struct ab *ab, struct ab_job *j)
{
	if (j->reuse_from < 0)
		return false;
	struct ab_job *r = &ab->job[j->reuse_from];
	pthread_mutex_lock(&ab->lock);
	while (!r->finished)
		pthread_cond_wait(&ab->done_cond, &ab->lock);
	pthread_mutex_unlock(&ab->lock);
	if (r->rc || r->res.migration_switch_reads)
		return false;
	j->res = r->res;
	j->reused = true;
	return true;
}

static void *worker(void *arg)
{
	struct ab *ab = arg;
	int i;
	while ((i = atomic_fetch_add(&ab->next, 1)) < ab->nr_todo) {
		struct ab_job *j = &ab->job[ab->todo[i]];
		if (!try_reuse(ab, j))
			run_job(ab, j);
		pthread_mutex_lock(&ab->lock);
		j->finished = true;
		pthread_cond_broadcast(&ab->done_cond);
		pthread_mutex_unlock(&ab->lock);
		job_done(ab);
	}
	return NULL;
}

/* Runs actually made (a reused run is not). */
static int runs_made(const struct ab *ab)
{
	int n = 0;
	for (int i = 0; i < ab->nr_todo; i++)
		n += !ab->job[ab->todo[i]].reused;
	return n;
}

static int run_all(struct ab *ab)
{
	pthread_t tid[64];
	int n = ab->jobs < 64 ? ab->jobs : 64;
	atomic_store(&ab->next, 0);
	int started = 0;
	for (; started < n; started++)
		if (pthread_create(&tid[started], NULL, worker, ab))
			break;
	if (!started)
		worker(ab);
	for (int i = 0; i < started; i++)
		pthread_join(tid[i], NULL);
	if (ab->progress)
		fprintf(stderr, "\r%60s\r", "");
	for (int i = 0; i < ab->nr_todo; i++)
		if (ab->job[ab->todo[i]].rc) {
			char prefix[64];
			snprintf(prefix, sizeof(prefix), "%s: ", ab->prog);
			cli_error(prefix, ab->job[ab->todo[i]].err);
			return 1;
		}
	return 0;
}

int ab_job_index(const struct ab *ab, int k, int p, bool on)
{
	return (k * ab->pairs + p) * 2 + (on ? 0 : 1);
}

struct ab_job *ab_job_of(struct ab *ab, int k, int p, bool on)
{
	return &ab->job[ab_job_index(ab, on ? k : ab->off_of[k], p, on)];
}

const struct run_result *ab_main_run(struct ab *ab, int k, int p)
{
	return &ab_job_of(ab, k, p, ab->mode != AB_OFF)->res;
}

double ab_pair_value(struct ab *ab, enum ab_figure f, int k, int p)
{
	const struct run_result *off = ab->mode == AB_BOTH ? &ab_job_of(ab, k, p, false)->res : NULL;
	return ab_figure_value(f, ab_main_run(ab, k, p), off);
}
/* Choose who shares balancing-off runs and list the jobs to run. */
static int plan_jobs(struct ab *ab, char *err, size_t errlen)
{
	struct kernel_config cfg[AB_MAX_KERNELS];
	for (int k = 0; k < ab->nr_kernels; k++) {
		if (kernel_config_parse(ab->kernels[k], &cfg[k], err, errlen))
			return -1;
		ab->off_of[k] = k;
		ab->reuse_of[k] = -1;
		for (int j = 0; j < k; j++)
			if (ab->off_of[j] == j && kernel_config_same_unbalanced(&cfg[j], &cfg[k])) {
				ab->off_of[k] = j;
				break;
			}
		for (int j = 0; j < k && ab->off_of[k] == k; j++)
			if (ab->off_of[j] == j && ab->reuse_of[j] < 0 &&
			    kernel_config_same_unmigrated(&cfg[j], &cfg[k])) {
				ab->reuse_of[k] = j;
				break;
			}
	}
	ab->nr_jobs = ab->nr_kernels * ab->pairs * 2;
	ab->job = calloc((size_t)ab->nr_jobs, sizeof(*ab->job));
	ab->todo = calloc((size_t)ab->nr_jobs, sizeof(*ab->todo));
	if (!ab->job || !ab->todo) {
		snprintf(err, errlen, "out of memory");
		return -1;
	}
	/* the runs that may reuse another's go last, after every run they may reuse */
	for (int last = 0; last < 2; last++)
		for (int k = 0; k < ab->nr_kernels; k++)
			for (int p = 0; p < ab->pairs; p++)
				for (int on = 1; on >= 0; on--) {
					int i = ab_job_index(ab, k, p, on);
					bool shared = !on && ab->off_of[k] != k;
					int from = !on && ab->reuse_of[k] >= 0 ? ab_job_index(ab, ab->reuse_of[k], p, false) : -1;
					if ((from >= 0) != (bool)last)
						continue;
					ab->job[i] = (struct ab_job){ .kernel = k, .pair = p, .on = on, .shared = shared,
								      .reuse_from = from };
					bool wanted = ab->mode == AB_BOTH || (ab->mode == AB_ON) == (bool)on;
					if (wanted && !shared)
						ab->todo[ab->nr_todo++] = i;
				}
	return 0;
}


int ab_figure_range(struct ab *ab, enum ab_figure f, int k, double *lo, double *hi)
{
	int seen = 0;
	*lo = *hi = 0;
	for (int p = 0; p < ab->pairs; p++) {
		double v = ab_pair_value(ab, f, k, p);
		if (isnan(v)) /* no figure: a run that never converged */
			continue;
		*lo = !seen || v < *lo ? v : *lo;
		*hi = !seen || v > *hi ? v : *hi;
		seen++;
	}
	return seen;
}

/* ---- a command's life around the runs --------------------------------- */

struct ab *ab_new(const char *prog)
{
	struct ab *ab = calloc(1, sizeof(*ab));
	if (!ab)
		return NULL;
	ab->prog = prog;
	ab->pairs = 3;
	long cpus = sysconf(_SC_NPROCESSORS_ONLN);
	ab->jobs = cpus > 0 ? (int)(cpus < 64 ? cpus : 64) : 1;
	return ab;
}

void ab_free(struct ab *ab)
{
	if (!ab)
		return;
	free(ab->job);
	free(ab->todo);
	free(ab);
}

int ab_parse_count(const struct ab *ab, const char *what, const char *v, int lo, int hi, int *out)
{
	long long x;
	if (strnum_ll(v, &x) || x < lo || x > hi) {
		fprintf(stderr, "%s: %s: '%s' is not a number in %d..%d\n", ab->prog, what, v, lo, hi);
		return -1;
	}
	*out = (int)x;
	return 0;
}

/* The same kernel twice (by its switches, whatever the spelling) would be
 * one key of the JSON but two columns of the table. */
static int distinct_kernels(const struct ab *ab, char *err, size_t errlen)
{
	struct kernel_config k[AB_MAX_KERNELS];
	for (int i = 0; i < ab->nr_kernels; i++) {
		if (kernel_config_parse(ab->kernels[i], &k[i], err, errlen))
			return -1;
		for (int j = 0; j < i; j++)
			if (kernel_config_same(&k[i], &k[j])) {
				snprintf(err, errlen, "--kernels: '%s' and '%s' are the same kernel: give "
					 "each once", ab->kernels[j], ab->kernels[i]);
				return -1;
			}
	}
	return 0;
}

/* Runs at a time: as many as the memory holds. */
static void fit_jobs(struct ab *ab)
{
	uint64_t fit = host_memory_bytes() / 10 * 8 / (scenario_model_bytes(&ab->base) + 1);
	if ((uint64_t)ab->jobs > fit)
		ab->jobs = fit ? (int)fit : 1;
}

int ab_load(struct ab *ab, const char *scenario, const struct ab_options *o, char *err, size_t errlen)
{
	struct scenario *sc = &ab->base;
	int bad = load_scenario(scenario, sc, err, errlen);
	if (!bad && o->duration)
		bad = scenario_set_option(sc, "--duration", "run.duration_s", o->duration, err, errlen);
	if (!bad && o->seed)
		bad = scenario_set_option(sc, "--seed", "run.seed", o->seed, err, errlen);
	if (!bad && o->exact)
		bad = scenario_set_option(sc, "--exact", "run.exact", "true", err, errlen);
	for (int i = 0; !bad && i < o->nr_sets; i++)
		bad = scenario_set(sc, o->sets[i], err, errlen);
	for (int k = 0; !bad && k < ab->nr_kernels; k++)
		bad = scenario_set_option(sc, "--kernels", "kernel.name", ab->kernels[k], err, errlen);
	if (!bad)
		bad = distinct_kernels(ab, err, errlen);
	if (!bad)
		bad = scenario_check_host(sc, host_memory_bytes(), err, errlen);
	if (!bad)
		fit_jobs(ab);
	if (!bad)
		bad = scenario_validate(sc, err, errlen);
	if (!bad && ab->json && strcmp(ab->json, "-"))
		bad = outfile_check("--json", ab->json, err, errlen);
	return bad ? -1 : 0;
}

/* Plan and make every run: 0, or 1 after a message. */
static int ab_run(struct ab *ab)
{
	char err[256];
	clock_gettime(CLOCK_MONOTONIC, &ab->t0);
	ab->progress = !ab->quiet && isatty(STDERR_FILENO);
	ab->seed0 = ab->base.seed;
	if (plan_jobs(ab, err, sizeof(err))) {
		fprintf(stderr, "%s: %s\n", ab->prog, err);
		return 1;
	}
	pthread_mutex_init(&ab->progress_lock, NULL);
	pthread_mutex_init(&ab->lock, NULL);
	pthread_cond_init(&ab->done_cond, NULL);
	int rc = run_all(ab);
	pthread_mutex_destroy(&ab->progress_lock);
	pthread_mutex_destroy(&ab->lock);
	pthread_cond_destroy(&ab->done_cond);
	return rc;
}

static void ab_wall(const struct ab *ab)
{
	if (!ab->quiet)
		fprintf(stderr, "wall time: %.2f s (%d runs, %d at a time)\n", since(&ab->t0), runs_made(ab),
			ab->jobs);
}

/* The --json temporary, created before the runs: an output that cannot be
 * created (--json /proc/x.json) fails in a moment, not after them all. */
static int ab_output_open(const struct ab *ab, struct outfile *out)
{
	char err[9000], prefix[64];
	if (outfile_open(out, "--json", ab->json, err, sizeof(err))) {
		snprintf(prefix, sizeof(prefix), "%s: ", ab->prog);
		cli_error(prefix, err);
		return -1;
	}
	return 0;
}

/* @j (taken) into the temporary, committed.  0, or 1 after a message
 * naming the file and the reason. */
static int ab_output_write(const struct ab *ab, json_t *j, struct outfile *out)
{
	char err[9000], prefix[64];
	int bad = !j || report_put_json(j, out, err, sizeof(err)) || outfile_commit(out, err, sizeof(err));
	json_decref(j);
	if (bad) {
		snprintf(prefix, sizeof(prefix), "%s: ", ab->prog);
		cli_error(prefix, j ? err : "cannot build the JSON report");
	}
	return bad ? 1 : 0;
}

/* --json -: the JSON on standard output, instead of the table. */
static int ab_output_stdout(const struct ab *ab, json_t *j)
{
	int bad = !j || report_print_json(j, stdout);
	json_decref(j);
	if (bad)
		fprintf(stderr, "%s: cannot write the JSON to standard output\n", ab->prog);
	return bad ? 1 : 0;
}

int ab_execute(struct ab *ab, void (*print)(struct ab *), json_t *(*to_json)(struct ab *))
{
	struct outfile out = { .slot = -1 };
	bool to_stdout = ab->json && !strcmp(ab->json, "-");
	if (ab->json && !to_stdout && ab_output_open(ab, &out))
		return EXIT_INPUT; /* nothing ran: no wall time either */
	int rc = ab_run(ab);
	if (!rc && to_stdout) {
		rc = ab_output_stdout(ab, to_json(ab));
	} else if (!rc) {
		print(ab);
		if (ab->json)
			rc = ab_output_write(ab, to_json(ab), &out);
	}
	if (ab->json && !to_stdout)
		outfile_discard(&out); /* the temporary of a failed run; nothing once committed */
	ab_wall(ab);
	return rc;
}
