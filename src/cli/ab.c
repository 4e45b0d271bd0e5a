/* numasim ab: the A/B methodology of the published measurement.  For each
 * kernel, N pairs of runs; the two runs of a pair share the scenario and the
 * seed (placement, first touch: the same "boot") and differ only in
 * kernel.numa_balancing.  Kernels are also compared with each other, run by
 * run on the same seeds, as a patch is judged.  A balancing-off run is made
 * once per seed for kernels that only differ where balancing goes
 * (kernel_config_same_unbalanced) and shared between them; a kernel that
 * also differs in switches that act only inside a migration's unmap
 * (kernel_config_same_unmigrated) reuses another's balancing-off run when
 * that run never reached those switches -- then its own would be the same
 * run -- and makes its own otherwise (its off runs go last, after the runs
 * they may reuse).  Runs go to a
 * pool of threads; every run is deterministic and lands in its own slot, so
 * the output does not depend on the number of threads. */
#include <getopt.h>
#include <math.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "cli/cli.h"
#include "kernel/variants.h"
#include "lib/strnum.h"
#include "report/figures.h"
#include "report/report.h"

#define MAX_KERNELS 8
#define MAX_PAIRS 64

const char ab_usage[] =
	"usage: numasim ab SCENARIO|FILE --kernels A,B[,...] [OPTIONS]\n"
	"\n"
	"For each kernel, run N pairs (balancing on vs off, the same seed within a\n"
	"pair, seeds SEED..SEED+N-1 across pairs) and print the seed table's\n"
	"figures as min-max over the pairs, the instrumentation figures and where\n"
	"the balancing cycles went; then each kernel against the first, seed by\n"
	"seed.  Kernels that differ only where balancing goes share their\n"
	"balancing-off runs.  A fixed-work scenario (workload.work_mops) reports\n"
	"elapsed time, a timed one throughput.\n"
	"\n"
	"options:\n"
	"  --kernels A,B       kernels to compare (at most 8)\n"
	"  --pairs N           pairs per kernel (default 3)\n"
	"  --balancing MODE    both (default): pairs on vs off; on or off: only\n"
	"                      runs with balancing on (off), kernels against\n"
	"                      each other (e.g. migration calls, balancing off)\n"
	"  --duration S        simulated seconds per run (the most, for fixed work)\n"
	"  --seed N            seed of the first pair\n"
	"  --exact             every hint fault one by one (see 'numasim run --help')\n"
	"  --set KEY=VALUE     any scenario key (see 'numasim run --help')\n"
	"  --jobs N            runs at a time (default: online CPUs); results do not\n"
	"                      depend on it\n"
	"  --json FILE         per-pair values as JSON\n"
	"  -q, --quiet         no progress line, no wall time\n"
	"  -h, --help          this text\n";

enum ab_mode { AB_BOTH, AB_ON, AB_OFF };
static const char *const ab_mode_names[] = { "both", "on", "off" };

struct ab_job {
	int kernel, pair;
	bool on;
	bool shared;            /* an off run another kernel's slot holds */
	int reuse_from;         /* -1, or the job whose run this one is if that
				 * run read no migration-only switch */
	bool reused;            /* ... and it was: not run */
	bool finished;          /* under ab.lock */
	struct run_result res;
	int rc;
	char err[256];
};

struct ab {
	struct scenario base;
	char kernels[MAX_KERNELS][96];
	int off_of[MAX_KERNELS];  /* whose balancing-off runs a kernel uses */
	int reuse_of[MAX_KERNELS];/* whose off runs it may reuse (-1: none) */
	int nr_kernels, pairs, jobs;
	enum ab_mode mode;
	uint64_t seed0;
	struct ab_job *job;
	int nr_jobs;
	int *todo, nr_todo;       /* the jobs to run */
	atomic_int next;
	const char *json;
	bool quiet, progress;     /* progress: a line on stderr, a terminal's */
	atomic_int done;
	pthread_mutex_t progress_lock;
	pthread_mutex_t lock;     /* job.finished, and done_cond */
	pthread_cond_t done_cond;
	struct timespec t0;
};

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
			cli_error("numasim ab: ", ab->job[ab->todo[i]].err);
			return 1;
		}
	return 0;
}

static int job_index(const struct ab *ab, int k, int p, bool on)
{
	return (k * ab->pairs + p) * 2 + (on ? 0 : 1);
}

/* The run of (kernel k, pair p, on/off); an off run may be another
 * kernel's, shared. */
static struct ab_job *job_of(struct ab *ab, int k, int p, bool on)
{
	return &ab->job[job_index(ab, on ? k : ab->off_of[k], p, on)];
}

/* The run the single-run figures and the kernel comparison read. */
static const struct run_result *main_run(struct ab *ab, int k, int p)
{
	return &job_of(ab, k, p, ab->mode != AB_OFF)->res;
}

static double pair_value(struct ab *ab, enum ab_figure f, int k, int p)
{
	const struct run_result *off = ab->mode == AB_BOTH ? &job_of(ab, k, p, false)->res : NULL;
	return ab_figure_value(f, main_run(ab, k, p), off);
}

static bool any_fixed_work(const struct ab *ab)
{
	return ab->base.w.work_mops > 0;
}

static bool any_calls(const struct ab *ab)
{
	return ab->base.w.migrate_call != MCALL_NONE;
}

/* Whether the table prints figure f. */
static bool figure_shown(const struct ab *ab, enum ab_figure f)
{
	if (ab_figures[f].pair && ab->mode != AB_BOTH)
		return false;
	if (f == FIG_ELAPSED || f == FIG_ELAPSED_OFF)
		return any_fixed_work(ab);
	if (f == FIG_CALL_RATE)
		return any_calls(ab);
	if (f >= FIG_CONVERGED && f <= FIG_NUMA_SWAPS) /* balancing's own outcome */
		return ab->mode != AB_OFF;
	return true;
}

/* Choose who shares balancing-off runs and list the jobs to run. */
static int plan_jobs(struct ab *ab, char *err, size_t errlen)
{
	struct kernel_config cfg[MAX_KERNELS];
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
					int i = job_index(ab, k, p, on);
					bool shared = !on && ab->off_of[k] != k;
					int from = !on && ab->reuse_of[k] >= 0 ? job_index(ab, ab->reuse_of[k], p, false) : -1;
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

/* ---- the table -------------------------------------------------------- */

/* Published with the patch series "mm/migrate: don't batch the TLB flush
 * when there is nothing to batch" (2026): v7.3 and v7.3 + the v2 patch.
 * The headline figures as numbers (the unit of the JSON: a fraction for the
 * loss), min-max over its three pairs: the table's published column prints
 * them and the ab JSON's "published" block carries them for `numasim plot`
 * to draw on the bars. */
#define PUBLISHED_SOURCE                                                                    \
	"the linux-mm patch series \"mm/migrate: don't batch the TLB flush when there is " \
	"nothing to batch\" (2026, v1/v2): v7.3 and v7.3 + the v2 patch, 2-socket 384-CPU "  \
	"x86, three A/B pairs of 180 s"
#define PUBLISHED_KERNEL_A "v7.3"
#define PUBLISHED_KERNEL_B "v7.3+single-folio-v2"
static const struct {
	const char *kernel;
	enum ab_figure fig;
	double lo, hi;
} published_ranges[] = {
	{ PUBLISHED_KERNEL_A, FIG_LOSS, 0.130, 0.165 },
	{ PUBLISHED_KERNEL_A, FIG_KCYCLES, 1.18e6, 1.22e6 },
	{ PUBLISHED_KERNEL_A, FIG_IRQ_PER_MIGRATED, 202, 210 },
	{ PUBLISHED_KERNEL_B, FIG_LOSS, 0.005, 0.063 },
	{ PUBLISHED_KERNEL_B, FIG_KCYCLES, 0.28e6, 0.31e6 },
	{ PUBLISHED_KERNEL_B, FIG_IRQ_PER_MIGRATED, 12.7, 13.6 },
};

/* The rest of the series' figures, approximate or for one kernel only, as
 * the published column prints them ("v7.3 | +v2"). */
static const char *const published_text[NR_AB_FIGURES] = {
	[FIG_SCANNER_FLUSHES_55S] = "~11600 | -",
	[FIG_CPR_SHARE] = "99.9% | -",
	[FIG_GATHER_MS] = "~90 ms | 6.7 ms",
	[FIG_PENDING_SHARE] = "42% | 3.5%",
	[FIG_PASS_WALL_SHARE] = "9-12% | -",
	[FIG_OVERLAP_SHARE] = "33-42% | -",
	[FIG_IN_CHUNK_SHARE] = "60% | -",
	[FIG_PROTNONE_SHARE] = "- | ~96%",
	[FIG_MIGRATIONS_PER_S] = "~1800 | -",
	[FIG_PTE_UPDATES_PER_S] = "~108k | -",
};

/* The published figures apply: the seed, both runs of each pair (as the
 * table's published column). */
static bool seed_published(const struct ab *ab)
{
	return !strcmp(ab->base.name, "seed") && ab->mode == AB_BOTH;
}

static void format_range(char *buf, size_t len, const struct ab_figure_def *d, double lo, double hi)
{
	int dec = d->decimals;
	if (d->decimals == 1 && hi * d->scale >= 100)
		dec = 0;
	/* "lo-hi", or "lo..hi" when a minus sign would make the dash ambiguous */
	snprintf(buf, len, "%.*f%s%.*f%s", dec, lo * d->scale, lo < 0 ? ".." : "-", dec, hi * d->scale, d->unit);
}

/* The published column's cell for @f: the numeric ranges where the series
 * gave them, or its text; NULL when it gave nothing for @f. */
static const char *published_cell(enum ab_figure f, char *buf, size_t len)
{
	char r[2][48] = { "", "" };
	for (size_t i = 0; i < sizeof(published_ranges) / sizeof(published_ranges[0]); i++)
		if (published_ranges[i].fig == f)
			format_range(r[strcmp(published_ranges[i].kernel, PUBLISHED_KERNEL_A) != 0],
				     sizeof(r[0]), &ab_figures[f], published_ranges[i].lo,
				     published_ranges[i].hi);
	if (!r[0][0] && !r[1][0])
		return published_text[f];
	snprintf(buf, len, "%s | %s", r[0][0] ? r[0] : "-", r[1][0] ? r[1] : "-");
	return buf;
}

static void print_row(struct ab *ab, enum ab_figure f, bool show_published)
{
	const struct ab_figure_def *d = &ab_figures[f];
	printf("%-42s", d->label);
	for (int k = 0; k < ab->nr_kernels; k++) {
		double lo = 0, hi = 0;
		int seen = 0;
		for (int p = 0; p < ab->pairs; p++) {
			double v = pair_value(ab, f, k, p);
			if (isnan(v)) /* no figure: a run that never converged */
				continue;
			lo = !seen || v < lo ? v : lo;
			hi = !seen || v > hi ? v : hi;
			seen++;
		}
		char buf[64];
		if (!seen)
			snprintf(buf, sizeof(buf), "%s", f == FIG_CONVERGED ? "never" : "-");
		else
			format_range(buf, sizeof(buf), d, lo, hi);
		if (seen && seen < ab->pairs) {
			size_t len = strlen(buf);
			snprintf(buf + len, sizeof(buf) - len, " (%d %s)", ab->pairs - seen,
				 f == FIG_CONVERGED ? "never" : "none");
		}
		printf(" %-22s", buf);
	}
	char cell[112];
	const char *pub = show_published ? published_cell(f, cell, sizeof(cell)) : NULL;
	if (pub)
		printf(" %s", pub);
	printf("\n");
}

static void print_breakdown(struct ab *ab)
{
	printf("\nwhere the balancing time went (on - off, %% of all CPU time, mean of pairs)\n");
	printf("%-42s", "");
	for (int k = 0; k < ab->nr_kernels; k++)
		printf(" %-22s", ab->kernels[k]);
	printf("\n");
	for (int c = 0; c <= NR_COST_CAUSES; c++) {
		printf("%-42s", c < NR_COST_CAUSES ? cost_cause_names[c] : "remote_access (user)");
		for (int k = 0; k < ab->nr_kernels; k++) {
			double sum = 0;
			for (int p = 0; p < ab->pairs; p++) {
				const struct run_result *on = &job_of(ab, k, p, true)->res;
				const struct run_result *off = &job_of(ab, k, p, false)->res;
				double d = c < NR_COST_CAUSES ? on->cost_ns[c] - off->cost_ns[c]
							      : on->remote_ns - off->remote_ns;
				sum += d / ((double)on->nr_cpus * on->sim_s * 1e9);
			}
			printf(" %-22.3f", 100 * sum / ab->pairs);
		}
		printf("\n");
	}
}

/* ---- kernel against kernel -------------------------------------------- */

enum versus { VS_THROUGHPUT, VS_ELAPSED, VS_TLB_IRQS, VS_CALL_RATE, NR_VERSUS };

static const struct {
	const char *key, *label;
	bool percent;         /* a change in %, else a ratio */
} versus_defs[NR_VERSUS] = {
	[VS_THROUGHPUT] = { "throughput_change", "throughput", true },
	[VS_ELAPSED] = { "elapsed_change", "elapsed time", true },
	[VS_TLB_IRQS] = { "tlb_irqs_ratio", "TLB interrupts (ratio)", false },
	[VS_CALL_RATE] = { "call_rate_ratio", "migration calls' pages per s (ratio)", false },
};

static bool versus_shown(const struct ab *ab, enum versus v)
{
	if (v == VS_ELAPSED)
		return any_fixed_work(ab);
	if (v == VS_CALL_RATE)
		return any_calls(ab);
	return true;
}

/* Kernel k against the first kernel on the seed of pair p; NAN where the
 * first kernel's figure is 0 (no ratio). */
static double versus_value(struct ab *ab, enum versus v, int k, int p)
{
	const struct run_result *a = main_run(ab, 0, p), *b = main_run(ab, k, p);
	double ta = a->sim_s > 0 ? a->ops / a->sim_s : 0, tb = b->sim_s > 0 ? b->ops / b->sim_s : 0;
	switch (v) {
	case VS_THROUGHPUT:
		return ta > 0 ? tb / ta - 1 : NAN;
	case VS_ELAPSED:
		return a->sim_s > 0 ? b->sim_s / a->sim_s - 1 : NAN;
	case VS_TLB_IRQS:
		return a->tlb_irqs ? (double)b->tlb_irqs / (double)a->tlb_irqs : NAN;
	case VS_CALL_RATE:
		return a->call_pages > 0 && b->call_s > 0 ? (b->call_pages / b->call_s) / (a->call_pages / a->call_s)
							  : NAN;
	default:
		return NAN;
	}
}

static void print_versus(struct ab *ab)
{
	printf("\neach kernel against %s, balancing %s, seed by seed (min-max)\n", ab->kernels[0],
	       ab->mode == AB_OFF ? "off" : "on");
	for (int v = 0; v < NR_VERSUS; v++) {
		if (!versus_shown(ab, (enum versus)v))
			continue;
		printf("%-42s %-22s", versus_defs[v].label, "-");
		for (int k = 1; k < ab->nr_kernels; k++) {
			double lo = 0, hi = 0;
			bool none = false;
			for (int p = 0; p < ab->pairs; p++) {
				double x = versus_value(ab, (enum versus)v, k, p);
				none |= isnan(x);
				lo = !p || x < lo ? x : lo;
				hi = !p || x > hi ? x : hi;
			}
			char buf[64];
			if (none)
				snprintf(buf, sizeof(buf), "- (no figure to compare)");
			else if (versus_defs[v].percent)
				snprintf(buf, sizeof(buf), "%+.1f%%..%+.1f%%", 100 * lo, 100 * hi);
			else
				snprintf(buf, sizeof(buf), "%.2f-%.2fx", lo, hi);
			printf(" %-22s", buf);
		}
		printf("\n");
	}
}

/* Runs whose work did not finish: their elapsed time is the run's limit. */
static int unfinished_runs(struct ab *ab)
{
	int n = 0;
	for (int i = 0; i < ab->nr_todo; i++) {
		const struct run_result *r = &ab->job[ab->todo[i]].res;
		n += r->fixed_work && !r->finished;
	}
	return n;
}

static void print_table(struct ab *ab)
{
	bool seed = seed_published(ab);
	unsigned long long s0 = (unsigned long long)ab->seed0, s1 = s0 + (unsigned long long)ab->pairs - 1;
	if (ab->mode == AB_BOTH)
		printf("numasim ab: %s, %d pair%s of %g s per kernel (balancing on vs off, seed %llu..%llu)\n",
		       ab->base.name, ab->pairs, ab->pairs > 1 ? "s" : "", ab->base.duration_s, s0, s1);
	else
		printf("numasim ab: %s, %d run%s of %g s per kernel (balancing %s, seed %llu..%llu)\n",
		       ab->base.name, ab->pairs, ab->pairs > 1 ? "s" : "", ab->base.duration_s,
		       ab->mode == AB_ON ? "on" : "off", s0, s1);
	for (int k = 0; k < ab->nr_kernels; k++)
		if (ab->mode == AB_BOTH && ab->off_of[k] != k)
			printf("%s shares the balancing-off runs of %s\n", ab->kernels[k], ab->kernels[ab->off_of[k]]);
	for (int k = 0; k < ab->nr_kernels; k++) {
		int n = 0;
		for (int p = 0; ab->mode != AB_ON && ab->reuse_of[k] >= 0 && p < ab->pairs; p++)
			n += ab->job[job_index(ab, k, p, false)].reused;
		if (n)
			printf("%s reuses %d of %d balancing-off runs of %s (they never reached the "
			       "switches the kernels differ in)\n", ab->kernels[k], n, ab->pairs,
			       ab->kernels[ab->reuse_of[k]]);
	}
	int n = unfinished_runs(ab);
	if (n)
		printf("%d run%s did not finish the work in %g s: elapsed times are lower bounds\n", n,
		       n > 1 ? "s" : "", ab->base.duration_s);
	printf("\n%-42s", ab->mode == AB_BOTH ? "figure (min-max over pairs)" : "figure (min-max over runs)");
	for (int k = 0; k < ab->nr_kernels; k++)
		printf(" %-22s", ab->kernels[k]);
	if (seed)
		printf(" published v7.3 | +v2");
	printf("\n");
	for (int f = 0; f < NR_AB_FIGURES; f++) {
		if (f == FIG_REFILL_CYCLES)
			printf("\ninstrumentation\n");
		if (figure_shown(ab, (enum ab_figure)f))
			print_row(ab, (enum ab_figure)f, seed);
	}
	if (ab->mode == AB_BOTH)
		print_breakdown(ab);
	if (ab->nr_kernels > 1)
		print_versus(ab);
	if (seed)
		printf("\nPublished figures: the patch series \"mm/migrate: don't batch the TLB flush\n"
		       "when there is nothing to batch\" (2026, v1/v2), v7.3 and v7.3 + the v2 patch,\n"
		       "2-socket 384-CPU x86, three A/B pairs of 180 s.  See docs/calibration.md.\n");
}

/* ---- JSON ------------------------------------------------------------- */

static json_t *per_pair(struct ab *ab, int k, double (*value)(struct ab *, int, int, int), int what)
{
	json_t *arr = json_array();
	for (int p = 0; p < ab->pairs; p++) {
		double x = value(ab, what, k, p);
		json_array_append_new(arr, isfinite(x) ? json_real(x) : json_null());
	}
	return arr;
}

static double figure_at(struct ab *ab, int f, int k, int p)
{
	return pair_value(ab, (enum ab_figure)f, k, p);
}

static double versus_at(struct ab *ab, int v, int k, int p)
{
	return versus_value(ab, (enum versus)v, k, p);
}

static double extra_cost_at(struct ab *ab, int c, int k, int p)
{
	return job_of(ab, k, p, true)->res.cost_ns[c] - job_of(ab, k, p, false)->res.cost_ns[c];
}

/* "published": {"source": ..., "kernels": {KERNEL: {FIGURE: [min, max]}}},
 * for the run's kernels that are the published ones (whatever their
 * spelling: by their switches). */
static json_t *published_json(const struct ab *ab)
{
	json_t *o = json_object(), *ks = json_object();
	json_object_set_new(o, "source", json_string(PUBLISHED_SOURCE));
	for (int k = 0; k < ab->nr_kernels; k++) {
		struct kernel_config run, pub;
		char err[256];
		json_t *figs = json_object();
		if (kernel_config_parse(ab->kernels[k], &run, err, sizeof(err)))
			continue;
		for (size_t i = 0; i < sizeof(published_ranges) / sizeof(published_ranges[0]); i++) {
			if (kernel_config_parse(published_ranges[i].kernel, &pub, err, sizeof(err)) ||
			    !kernel_config_same(&run, &pub))
				continue;
			json_t *r = json_array();
			json_array_append_new(r, json_real(published_ranges[i].lo));
			json_array_append_new(r, json_real(published_ranges[i].hi));
			json_object_set_new(figs, ab_figures[published_ranges[i].fig].key, r);
		}
		if (json_object_size(figs))
			json_object_set_new(ks, ab->kernels[k], figs);
		else
			json_decref(figs);
	}
	json_object_set_new(o, "kernels", ks);
	return o;
}

static json_t *ab_json(struct ab *ab)
{
	json_t *root = json_object(), *res = json_object();
	json_object_set_new(root, "numasim_version", json_string(NUMASIM_VERSION));
	json_t *scen = report_scenario_json(&ab->base, NULL), *names = json_array();
	for (int k = 0; k < ab->nr_kernels; k++)
		json_array_append_new(names, json_string(ab->kernels[k]));
	json_object_set_new(json_object_get(scen, "kernel"), "name", names);
	json_object_set_new(root, "scenario", scen);
	json_object_set_new(root, "balancing", json_string(ab_mode_names[ab->mode]));
	json_object_set_new(root, "pairs", json_integer(ab->pairs));
	json_object_set_new(root, "simulated_seconds", json_real(ab->base.duration_s));
	json_object_set_new(root, "first_seed", json_integer((json_int_t)ab->seed0));
	json_object_set_new(root, "unfinished_runs", json_integer(unfinished_runs(ab)));
	for (int k = 0; k < ab->nr_kernels; k++) {
		json_t *kj = json_object();
		for (int f = 0; f < NR_AB_FIGURES; f++)
			if (figure_shown(ab, (enum ab_figure)f))
				json_object_set_new(kj, ab_figures[f].key, per_pair(ab, k, figure_at, f));
		if (ab->mode == AB_BOTH) {
			json_t *costs = json_object();
			for (int c = 0; c < NR_COST_CAUSES; c++)
				json_object_set_new(costs, cost_cause_names[c], per_pair(ab, k, extra_cost_at, c));
			json_object_set_new(kj, "extra_cost_ns", costs);
			json_object_set_new(kj, "balancing_off_runs_of", json_string(ab->kernels[ab->off_of[k]]));
		}
		if (ab->mode != AB_ON && ab->reuse_of[k] >= 0) {
			int n = 0;
			for (int p = 0; p < ab->pairs; p++)
				n += ab->job[job_index(ab, k, p, false)].reused;
			json_object_set_new(kj, "balancing_off_runs_reused_of", json_string(ab->kernels[ab->reuse_of[k]]));
			json_object_set_new(kj, "balancing_off_runs_reused", json_integer(n));
		}
		if (k) {
			json_t *vs = json_object();
			for (int v = 0; v < NR_VERSUS; v++)
				if (versus_shown(ab, (enum versus)v))
					json_object_set_new(vs, versus_defs[v].key, per_pair(ab, k, versus_at, v));
			json_object_set_new(kj, "versus_first", vs);
		}
		json_object_set_new(res, ab->kernels[k], kj);
	}
	json_object_set_new(root, "kernels", res);
	if (seed_published(ab))
		json_object_set_new(root, "published", published_json(ab));
	return root;
}

/* ---- arguments -------------------------------------------------------- */

enum { OPT_KERNELS = 256, OPT_PAIRS, OPT_BALANCING, OPT_DURATION, OPT_SEED, OPT_SET, OPT_JOBS, OPT_JSON, OPT_EXACT };

/* "A,B,...": every element non-empty. */
static int split_kernels(struct ab *ab, const char *list)
{
	char buf[1024];
	if (strlen(list) >= sizeof(buf))
		return -1;
	snprintf(buf, sizeof(buf), "%s", list);
	for (char *t = buf;; t++) {
		char *comma = strchr(t, ',');
		if (comma)
			*comma = '\0';
		if (!*t || ab->nr_kernels == MAX_KERNELS || strlen(t) >= sizeof(ab->kernels[0]))
			return -1;
		strcpy(ab->kernels[ab->nr_kernels++], t);
		if (!comma)
			break;
		t = comma;
	}
	return 0;
}

/* The same kernel twice (by its switches, whatever the spelling) would be
 * one key of the JSON but two columns of the table. */
static int distinct_kernels(const struct ab *ab, char *err, size_t errlen)
{
	struct kernel_config k[MAX_KERNELS];
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

static int parse_count(const char *what, const char *v, int lo, int hi, int *out)
{
	long long x;
	if (strnum_ll(v, &x) || x < lo || x > hi) {
		fprintf(stderr, "numasim ab: %s: '%s' is not a number in %d..%d\n", what, v, lo, hi);
		return -1;
	}
	*out = (int)x;
	return 0;
}

/* Options to the scenario, in order; returns 0 or an exit status. */
static int parse_ab(int argc, char **argv, struct ab *ab)
{
	static const struct option opts[] = {
		{ "kernels", required_argument, NULL, OPT_KERNELS },
		{ "pairs", required_argument, NULL, OPT_PAIRS },
		{ "balancing", required_argument, NULL, OPT_BALANCING },
		{ "duration", required_argument, NULL, OPT_DURATION },
		{ "seed", required_argument, NULL, OPT_SEED },
		{ "exact", no_argument, NULL, OPT_EXACT },
		{ "set", required_argument, NULL, OPT_SET },
		{ "jobs", required_argument, NULL, OPT_JOBS },
		{ "json", required_argument, NULL, OPT_JSON },
		{ "quiet", no_argument, NULL, 'q' },
		{ "help", no_argument, NULL, 'h' },
		{ 0, 0, 0, 0 },
	};
	char err[2048];
	const char *kernels = NULL;
	const char **sets = calloc((size_t)argc + 1, sizeof(*sets));
	const char *duration = NULL, *seed = NULL;
	bool exact = false;
	int nsets = 0, c, rc = 0;

	opterr = 0;
	while (!rc && (c = getopt_long(argc, argv, ":hq", opts, NULL)) != -1) {
		switch (c) {
		case 'h': fputs(ab_usage, stdout); free(sets); exit(0);
		case 'q': ab->quiet = true; break;
		case OPT_KERNELS: kernels = optarg; break;
		case OPT_PAIRS: rc = parse_count("--pairs", optarg, 1, MAX_PAIRS, &ab->pairs) ? EXIT_INPUT : 0; break;
		case OPT_BALANCING:
			rc = EXIT_INPUT;
			for (int m = 0; m < 3; m++)
				if (!strcmp(optarg, ab_mode_names[m])) {
					ab->mode = (enum ab_mode)m;
					rc = 0;
				}
			if (rc)
				fprintf(stderr, "numasim ab: --balancing: '%s' is not both, on or off\n", optarg);
			break;
		case OPT_JOBS: rc = parse_count("--jobs", optarg, 1, 64, &ab->jobs) ? EXIT_INPUT : 0; break;
		case OPT_DURATION: duration = optarg; break;
		case OPT_SEED: seed = optarg; break;
		case OPT_EXACT: exact = true; break;
		case OPT_SET: sets[nsets++] = optarg; break;
		case OPT_JSON: ab->json = optarg; break;
		default:
			fprintf(stderr, "numasim ab: bad option '%s'\nTry 'numasim ab --help'.\n", argv[optind - 1]);
			rc = EXIT_INPUT;
		}
	}
	if (!rc && (optind != argc - 1 || !kernels)) {
		fprintf(stderr, "numasim ab: expected one SCENARIO and --kernels A,B\nTry 'numasim ab --help'.\n");
		rc = EXIT_INPUT;
	}
	if (!rc && split_kernels(ab, kernels)) {
		fprintf(stderr, "numasim ab: --kernels: '%s' is not a comma-separated list of 1-%d kernels\n",
			kernels, MAX_KERNELS);
		rc = EXIT_INPUT;
	}
	if (!rc) {
		struct scenario *sc = &ab->base;
		int bad = load_scenario(argv[optind], sc, err, sizeof(err));
		if (!bad && duration)
			bad = scenario_set_option(sc, "--duration", "run.duration_s", duration, err, sizeof(err));
		if (!bad && seed)
			bad = scenario_set_option(sc, "--seed", "run.seed", seed, err, sizeof(err));
		if (!bad && exact)
			bad = scenario_set_option(sc, "--exact", "run.exact", "true", err, sizeof(err));
		for (int i = 0; !bad && i < nsets; i++)
			bad = scenario_set(sc, sets[i], err, sizeof(err));
		for (int k = 0; !bad && k < ab->nr_kernels; k++)
			bad = scenario_set_option(sc, "--kernels", "kernel.name", ab->kernels[k], err, sizeof(err));
		if (!bad)
			bad = distinct_kernels(ab, err, sizeof(err));
		if (!bad)
			bad = scenario_check_host(sc, host_memory_bytes(), err, sizeof(err));
		if (!bad) {
			/* runs at a time: as many as the memory holds */
			uint64_t fit = host_memory_bytes() / 10 * 8 / (scenario_model_bytes(sc) + 1);
			if ((uint64_t)ab->jobs > fit)
				ab->jobs = fit ? (int)fit : 1;
		}
		if (!bad)
			bad = scenario_validate(sc, err, sizeof(err));
		if (!bad && ab->json)
			bad = outfile_check("--json", ab->json, err, sizeof(err));
		if (bad) {
			cli_error("", err);
			rc = EXIT_INPUT;
		}
	}
	free(sets);
	return rc;
}

/* The --json temporary, created before the runs: an output that cannot be
 * created (--json /proc/x.json) fails in a moment, not after them all. */
static int open_json(const struct ab *ab, struct outfile *out)
{
	char err[9000];
	if (outfile_open(out, "--json", ab->json, err, sizeof(err))) {
		cli_error("numasim ab: ", err);
		return -1;
	}
	return 0;
}

/* The per-pair values into the temporary, committed.  0, or 1 after a
 * message naming the file and the reason. */
static int write_json(struct ab *ab, struct outfile *out)
{
	char err[9000];
	json_t *j = ab_json(ab);
	int bad = !j || report_put_json(j, out, err, sizeof(err)) || outfile_commit(out, err, sizeof(err));
	json_decref(j);
	if (bad)
		cli_error("numasim ab: ", j ? err : "cannot build the JSON report");
	return bad ? 1 : 0;
}

int cmd_ab(int argc, char **argv)
{
	struct ab *ab = calloc(1, sizeof(*ab));
	if (!ab)
		return 1;
	ab->pairs = 3;
	long cpus = sysconf(_SC_NPROCESSORS_ONLN);
	ab->jobs = cpus > 0 ? (int)(cpus < 64 ? cpus : 64) : 1;
	int rc = parse_ab(argc, argv, ab);
	if (!rc) {
		clock_gettime(CLOCK_MONOTONIC, &ab->t0);
		ab->progress = !ab->quiet && isatty(STDERR_FILENO);
		pthread_mutex_init(&ab->progress_lock, NULL);
		pthread_mutex_init(&ab->lock, NULL);
		pthread_cond_init(&ab->done_cond, NULL);
		char err[256];
		struct outfile out = { .slot = -1 };
		ab->seed0 = ab->base.seed;
		rc = plan_jobs(ab, err, sizeof(err));
		if (rc)
			fprintf(stderr, "numasim ab: %s\n", err);
		else if (ab->json && open_json(ab, &out))
			rc = EXIT_INPUT;
		else
			rc = run_all(ab);
		if (!rc) {
			print_table(ab);
			if (ab->json)
				rc = write_json(ab, &out);
		}
		if (ab->json)
			outfile_discard(&out); /* the temporary of a failed run; nothing once committed */
		if (!ab->quiet && rc != EXIT_INPUT) /* none ran when the output could not be made */
			fprintf(stderr, "wall time: %.2f s (%d runs, %d at a time)\n", since(&ab->t0),
				runs_made(ab), ab->jobs);
		pthread_mutex_destroy(&ab->progress_lock);
		pthread_mutex_destroy(&ab->lock);
		pthread_cond_destroy(&ab->done_cond);
	}
	free(ab->job);
	free(ab->todo);
	free(ab);
	return rc;
}
