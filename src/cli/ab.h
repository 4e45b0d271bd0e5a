/* The A/B runner that `numasim ab` and `numasim validate` share: a
 * scenario run for each kernel in N pairs (balancing on vs off, the same
 * seed within a pair), on a pool of threads, and the figures of each pair.
 *
 * A command fills a struct ab (ab_new, then ab_load with its options) and
 * hands ab_execute its printer and its JSON, which read the runs through
 * ab_pair_value and ab_figure_range. */
#ifndef NUMASIM_CLI_AB_H
#define NUMASIM_CLI_AB_H

#include <pthread.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <time.h>

#include <jansson.h>

#include "lib/outfile.h"
#include "report/figures.h"
#include "scenario/scenario.h"

#define AB_MAX_KERNELS 8
#define AB_MAX_PAIRS 64

enum ab_mode { AB_BOTH, AB_ON, AB_OFF };

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
	const char *prog;         /* "numasim ab", for messages */
	struct scenario base;
	char kernels[AB_MAX_KERNELS][96];
	int off_of[AB_MAX_KERNELS];  /* whose balancing-off runs a kernel uses */
	int reuse_of[AB_MAX_KERNELS];/* whose off runs it may reuse (-1: none) */
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

/* The scenario options a command passes on, each NULL (or false) when not
 * given: applied in this order after the scenario is read. */
struct ab_options {
	const char *duration, *seed;
	bool exact;
	const char *const *sets;
	int nr_sets;
};

/* A struct ab with the defaults (3 pairs, a job per online CPU, both
 * modes), or NULL when out of memory.  @prog names the command. */
struct ab *ab_new(const char *prog);
void ab_free(struct ab *ab);

/* Read @scenario into ab->base, apply @o and the kernels (ab->kernels,
 * which must be distinct), check the host's memory (fewer jobs when it
 * holds fewer runs) and the --json target.  0, or -1 with @err. */
int ab_load(struct ab *ab, const char *scenario, const struct ab_options *o, char *err, size_t errlen);

/* "--jobs N" and the like: 0, or -1 after a message. */
int ab_parse_count(const struct ab *ab, const char *what, const char *v, int lo, int hi, int *out);

/* Open the --json target's temporary (ab->json: a file that cannot be
 * made fails before the runs), make every run, call @print, write
 * @to_json's document (taken) and report the wall time on stderr unless
 * quiet.  0; 1 after a message; EXIT_INPUT when the output cannot be made. */
int ab_execute(struct ab *ab, void (*print)(struct ab *), json_t *(*to_json)(struct ab *));

/* The run of (kernel k, pair p, on/off); an off run may be another
 * kernel's, shared. */
int ab_job_index(const struct ab *ab, int k, int p, bool on);
struct ab_job *ab_job_of(struct ab *ab, int k, int p, bool on);
/* The run the single-run figures and the kernel comparison read. */
const struct run_result *ab_main_run(struct ab *ab, int k, int p);

/* Figure @f of kernel @k's pair @p (NAN: none, e.g. never converged). */
double ab_pair_value(struct ab *ab, enum ab_figure f, int k, int p);

/* Min-max of figure @f over kernel @k's pairs: how many pairs had a value
 * (0: @lo and @hi are 0). */
int ab_figure_range(struct ab *ab, enum ab_figure f, int k, double *lo, double *hi);

#endif
