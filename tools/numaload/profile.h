/* `numaload profile`: microbenchmarks of the costs numasim's model needs,
 * measured on the machine numaload runs on, written as JSON (every figure
 * with its spread and raw curve, and what could not be measured and why)
 * and as an INI fragment of [machine] and [costs] keys for `numasim run
 * SCENARIO --costs FILE`.  See docs/realcheck.md, "numaload profile".
 *
 * Nothing here needs root: every measurement is made with ordinary system
 * calls (mprotect, madvise, move_pages) on the tool's own memory.  A
 * measurement the machine cannot make (remote memory on one NUMA node) is
 * reported as not measurable, and fails the run only if --require names it.
 *
 * Files: profile.c (the command), profile_stat.c (medians, spreads, the
 * line fit), profile_ipi.c, profile_pte.c, profile_mem.c, profile_tlb.c
 * (one group of measurements each), profile_out.c (JSON and INI). */
#ifndef NUMALOAD_PROFILE_H
#define NUMALOAD_PROFILE_H

#include <jansson.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#define NL_PROF_MAX_CPUS 1024
#define NL_PROF_MAX_POINTS 64
#define NL_PROF_MAX_TRIALS 64

/* Every figure the profile reports, in output order. */
enum nl_fig {
	NLF_CPU_GHZ,
	NLF_TLB_ENTRIES,
	NLF_IPI_BASE,
	NLF_IPI_PER_CPU,
	NLF_IPI_REMOTE,
	NLF_IPI_CONTENDED,
	NLF_PTE_UPDATE,
	NLF_PTE_SKIP,
	NLF_DRAM_LOCAL,
	NLF_DRAM_REMOTE,
	NLF_MIGRATE_PAGE,
	NLF_PAGE_WALK,
	NR_NLF
};

/* Median and spread of a figure's trials. */
struct nl_stat {
	double median, p10, p90, min, max;
	int trials;
};

/* A raw curve: y against x, the median and p10-p90 of the trials at each x. */
struct nl_curve {
	const char *x_name;      /* "targets", "pages" */
	int n;
	double x[NL_PROF_MAX_POINTS];
	struct nl_stat y[NL_PROF_MAX_POINTS];
};

struct nl_figure {
	bool measured;
	char why[256];           /* not measured: why; measured: how (method) */
	struct nl_stat st;
	bool has_curve;
	struct nl_curve curve;
	bool clean;              /* fit for the INI (a curve-derived figure may not be) */
};

/* What each figure is: its JSON name, its scenario key (section "costs" or
 * "machine"; NULL: reported only, numasim has no key for it), its unit and
 * the --require group that asks for it. */
struct nl_fig_def {
	const char *name;
	const char *section;
	const char *key;
	const char *unit;
	const char *group;
};
extern const struct nl_fig_def nl_fig_defs[NR_NLF];

struct nl_profile {
	char release[128];       /* uname -r */
	char arch[72];           /* uname -m */
	bool quick;
	int ncpus;               /* the CPUs measured on (--cpus, else all allowed) */
	int cpus[NL_PROF_MAX_CPUS];
	int nodes;               /* NUMA nodes with memory */
	struct nl_figure fig[NR_NLF];
};

/* How hard each measurement tries: --quick keeps every figure to a few
 * trials so the whole profile takes a few seconds, even under ASan. */
struct nl_prof_opts {
	bool quick;
	int trials;
};

/* ---- profile_stat.c ---- */
uint64_t nl_now_ns(void);
/* Pin the calling thread to @cpu.  0 or -1 (errno). */
int nl_pin(int cpu);
/* Median, p10, p90, min and max of @n samples (sorted in place); values
 * rounded to 1/1000 of their unit, finer than any of them is noise, so
 * that the INI's text reads back as the same double. */
void nl_stat_of(double *v, int n, struct nl_stat *st);
/* Least-squares line y = a + b x through @n points.  -1 if fewer than two
 * distinct x. */
int nl_fit_line(const double *x, const double *y, int n, double *a, double *b);
void nl_fig_set(struct nl_figure *f, double *samples, int n, const char *how);
void nl_fig_skip(struct nl_figure *f, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

/* ---- measurements, each filling its figures ---- */
void nl_prof_ipi(struct nl_profile *p, const struct nl_prof_opts *o);
void nl_prof_pte(struct nl_profile *p, const struct nl_prof_opts *o);
void nl_prof_mem(struct nl_profile *p, const struct nl_prof_opts *o);
void nl_prof_tlb(struct nl_profile *p, const struct nl_prof_opts *o);
void nl_prof_cpu(struct nl_profile *p);

/* ---- profile.c ---- */
/* Refuse a --cpus list naming a CPU this process may not run on (offline,
 * or outside its affinity): 0, or -1 with a message naming it. */
int nl_prof_check_cpus(const int *cpus, int n, const int *allowed, int nallowed, char *err,
		       size_t errlen);
/* --require LIST: every group named must have all its figures measured.
 * -1 with a message naming the first that was not, and why; -2 if LIST
 * names no known group. */
int nl_prof_require(const struct nl_profile *p, const char *list, char *err, size_t errlen);
int nl_profile_main(int argc, char **argv);

/* ---- profile_out.c ---- */
json_t *nl_profile_json(const struct nl_profile *p);
/* The INI fragment: [machine] and [costs] keys of the measured, clean
 * figures, each after a comment with its spread. */
int nl_profile_ini(const struct nl_profile *p, FILE *f);
/* Both through numasim's atomic output (lib/outfile.h). */
int nl_profile_write(const struct nl_profile *p, const char *json_path, const char *ini_path,
		     char *err, size_t errlen);

#endif
