/* Sweeps: a sweep file names a scenario, kernels, grids of scenario keys,
 * seeds and whether each point also runs with balancing off; it expands to
 * points, each a resolved scenario with a stable id (see docs/sweeps.md).
 *
 *   [sweep]
 *   scenario = small                  # built-in, or a file beside the sweep file
 *   kernels = v7.3, v7.3+single-folio-v2
 *   seeds = 1..3                      # or 1, 2, 5
 *   balancing = both                  # on (default), off, or both
 *   [set]
 *   run.duration_s = 5                # every point
 *   [grid]
 *   numa_balancing.scan_size_mb = 64, 256, 1024
 *
 * The file is read as strictly as a scenario: an unknown section or key, a
 * key given twice, a bad value, or a point whose scenario does not validate
 * is "FILE:LINE: key: what is wrong", found before anything runs.
 *
 * Points are numbered 0..N-1: kernels outermost, then the grid keys in the
 * file's order, then seeds, then balancing on before off.  A point's id is
 * a 64-bit FNV-1a hash of its resolved scenario (report_scenario_json
 * without "source" and "overrides"), so it names what is simulated, not
 * where it sits in the sweep. */
#ifndef NUMASIM_SWEEP_H
#define NUMASIM_SWEEP_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "scenario/scenario.h"

#define SWEEP_MAX_KERNELS 16
#define SWEEP_MAX_SEEDS 1000
#define SWEEP_MAX_GRID 8       /* grid keys */
#define SWEEP_MAX_VALUES 64    /* values of one grid key */
#define SWEEP_MAX_SETS 32
#define SWEEP_MAX_POINTS 100000
#define SWEEP_VALUE_MAX 128
#define SWEEP_ID_LEN 16        /* hex digits */

enum sweep_balancing { SWEEP_BAL_ON, SWEEP_BAL_OFF, SWEEP_BAL_BOTH };

struct sweep_assign {
	char key[64];
	char value[SWEEP_VALUE_MAX];
	int line;
};

struct sweep_grid {
	char key[64];
	int line;
	int nr;
	char value[SWEEP_MAX_VALUES][SWEEP_VALUE_MAX];
};

struct sweep_spec {
	char path[512];
	char scenario[512];
	int scenario_line;
	char kernels[SWEEP_MAX_KERNELS][96];
	int nr_kernels, kernels_line;      /* 0 kernels: the scenario's */
	uint64_t seeds[SWEEP_MAX_SEEDS];
	int nr_seeds, seeds_line;          /* 0 seeds: the scenario's */
	enum sweep_balancing balancing;
	int balancing_line;
	struct sweep_assign set[SWEEP_MAX_SETS];
	int nr_set;
	struct sweep_grid grid[SWEEP_MAX_GRID];
	int nr_grid;
	struct scenario base;              /* the scenario with [set] applied */
	int nr_points;
	uint64_t hash;                     /* FNV-1a of the sweep file's bytes, and of
					      its scenario file's (the cache's key) */
};

struct sweep_point {
	int index;
	int kernel;                 /* into spec->kernels, or -1: the scenario's */
	int value[SWEEP_MAX_GRID];  /* per grid key, into its values */
	int seed;                   /* into spec->seeds, or -1: the scenario's */
	bool off;                   /* balancing off */
};

/* Parse the sweep file @path (@text: its bytes, NUL-terminated), load its
 * scenario (a file path relative to the sweep file's directory) and check
 * every key and every grid value on its own; the points, each a
 * combination, are checked by sweep_expand.  0, or -1 with "FILE:LINE:
 * key: ..." in @err. */
int sweep_spec_parse(const char *path, const char *text, size_t len, struct sweep_spec *sp,
		     char *err, size_t errlen);
/* The same, reading @path. */
int sweep_spec_load(const char *path, struct sweep_spec *sp, char *err, size_t errlen);

/* The scenario the sweep file names, into sp->base (cli/sweep_scenario.c):
 * a built-in, or a file shaped like a scenario file whose bytes go into
 * sp->hash.  0, or -1 with "FILE:LINE: scenario: ..." in @err. */
int sweep_load_scenario(struct sweep_spec *sp, char *err, size_t errlen);

/* Every point resolved and validated, its id into @ids[k] (nr_points
 * entries), no two the same scenario; *@biggest: the point whose model
 * takes the most memory.  O(n log n).  0, or -1 with @err. */
int sweep_expand(const struct sweep_spec *sp, char (*ids)[SWEEP_ID_LEN + 1], int *biggest, char *err,
		 size_t errlen);

/* Point @k (0 .. sp->nr_points - 1). */
void sweep_point(const struct sweep_spec *sp, int k, struct sweep_point *pt);
/* Point @pt's resolved, validated scenario.  0, or -1 with @err. */
int sweep_point_scenario(const struct sweep_spec *sp, const struct sweep_point *pt,
			 struct scenario *sc, char *err, size_t errlen);
/* The id of a validated scenario: SWEEP_ID_LEN hex digits and a NUL. */
int sweep_scenario_id(const struct scenario *sc, char id[SWEEP_ID_LEN + 1]);
/* Is @s an id (SWEEP_ID_LEN lower-case hex digits)? */
bool sweep_is_id(const char *s);

/* ---- --emit (cli/sweep_emit.c) ------------------------------------------------ */

#include <limits.h>
#include <stdio.h>

struct sweep_emit_paths {
	char exe[PATH_MAX], spec[PATH_MAX], dir[PATH_MAX]; /* absolute, plain */
};

/* numasim's, the sweep file's and the output directory's absolute paths,
 * checked for what a job script can carry; @dir need not exist yet (its
 * parent must).  Creates nothing.  0, or -1 with @err. */
int sweep_emit_paths(const char *spec_path, const char *dir, struct sweep_emit_paths *ep, char *err,
		     size_t errlen);
/* What the Slurm scripts ask of the cluster: #SBATCH lines passed through
 * (--slurm-opt: --time, --mem, --partition, --account, ...), at most
 * array_limit tasks at once (0: no limit), points_per_task points a task. */
#define SWEEP_MAX_SLURM_OPTS 16
struct sweep_slurm {
	const char *opt[SWEEP_MAX_SLURM_OPTS];
	int nr_opt;
	int array_limit;
	int points_per_task;
};

/* Whether @opt may go into an #SBATCH line: --NAME or --NAME=VALUE, of
 * letters, digits and _.,:/%+@=- only (no space, quote or newline). */
bool sweep_slurm_opt_ok(const char *opt);
/* The sbatch array script (task T runs points T*K .. T*K+K-1), the
 * collect job, the submit script (the array, then collect after it) / the
 * job list. */
void sweep_emit_slurm(FILE *f, const struct sweep_emit_paths *ep, int nr_points,
		      const struct sweep_slurm *sl);
void sweep_emit_collect(FILE *f, const struct sweep_emit_paths *ep, const struct sweep_slurm *sl);
void sweep_emit_submit(FILE *f, const struct sweep_emit_paths *ep);
void sweep_emit_parallel(FILE *f, const struct sweep_emit_paths *ep, int nr_points);

/* ---- a sweep's directory, read back (collect, compare) ---------------------- */

#include <jansson.h>

struct sweep_manifest {
	json_t *doc;                         /* DIR/manifest.json (json_decref it) */
	const json_t *points;                /* its "points" array */
	int grid_key[SWEEP_MAX_GRID];        /* scenario key indexes */
	const char *grid_name[SWEEP_MAX_GRID];
	int nr_grid;
};

/* The key of @sp's cached expansion: its hash and this binary's build id.
 * 0, or -1 when the build cannot be named (then nothing is cached). */
int sweep_cache_key(const struct sweep_spec *sp, char *key, size_t len);
/* DIR/manifest.json's JSON: the axes and every point (@ids from
 * sweep_expand), and with a @key (else NULL) the expansion's cache. */
json_t *sweep_manifest_json(const struct sweep_spec *sp, char (*ids)[SWEEP_ID_LEN + 1], const char *key);
/* Point @k's id from the cache of DIR/manifest.json, in O(1): 0 when the
 * manifest holds the expansion of @key's sweep (@nr_points points), else
 * -1 (a miss, whatever the reason: the caller expands). */
int sweep_manifest_cached_id(const char *dir, const char *key, int nr_points, int k,
			     char id[SWEEP_ID_LEN + 1]);
/* DIR/manifest.json, checked as data: every point's id is an id, every
 * grid key a scenario key.  0, or -1 with @err (m->doc may need freeing). */
int sweep_manifest_load(const char *dir, struct sweep_manifest *m, char *err, size_t errlen);
/* Point @k's result, DIR/points/@id.json: 0 none, 1 loaded into *doc (a
 * run result recording @id), -1 anything else (@err). */
int sweep_result_load(const char *dir, const char *id, size_t k, json_t **doc, char *err, size_t errlen);

#endif
