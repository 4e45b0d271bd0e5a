/* Scenarios: a machine, tunables, a workload, a kernel and run settings,
 * read from an INI file or from a built-in INI text with the same parser
 * (so `numasim show NAME > f.ini; numasim run f.ini` is the same run).
 *
 * Every key remembers where its value came from (file line, command-line
 * option or default) so that errors found later, in the cross-field
 * validation, still point at FILE:LINE: KEY. */
#ifndef NUMASIM_SCENARIO_H
#define NUMASIM_SCENARIO_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "machine/machine.h"
#include "kernel/sim.h"
#include "workload/workload.h"

/* Upper bound on the number of INI keys (checked in scenario.c). */
#define SCENARIO_MAX_KEYS 128
/* Command-line assignments a scenario records. */
#define SCENARIO_MAX_OVERRIDES 64

/* Where a key's current value came from. */
struct scenario_origin {
	int line;            /* > 0: line in sc->source; 0: not from the file */
	const char *option;  /* static string ("--set", "--kernel", ...) or NULL */
	unsigned seq;        /* order of assignment; 0: still the default */
};

struct scenario {
	char name[64];          /* "seed", or the file's basename without .ini */
	char source[512];       /* file path, or "builtin:NAME" */
	struct machine m;       /* from machine_defaults() then the file */
	struct tunables t;
	struct workload_params w; /* from workload_defaults() then the file */
	char kernel[96];        /* default "v7.3" */
	uint64_t seed;          /* default 1 */
	double duration_s;      /* default 180 */
	double compact_every_s; /* run.compact_memory_every_s, default 0 (never) */
	bool exact;             /* run.exact, default false: aggregated private faults */

	/* [machine] values that struct machine does not keep */
	int cpus;                  /* machine.cpus, checked against the topology */
	int distance_same_socket;  /* SLIT distance between nodes of one socket */
	int distance_remote;       /* SLIT distance between sockets */

	struct scenario_origin origin[SCENARIO_MAX_KEYS];
	unsigned seq;              /* last assignment's sequence number */

	/* The command-line assignments, in order, as given: results record
	 * them next to the resolved values (report_json). */
	struct scenario_override {
		char option[16];   /* "--set", "--kernel", ... */
		char key[160];     /* as displayed: workload.threads, kernel.numa_balancing */
		char value[128];
	} overrides[SCENARIO_MAX_OVERRIDES];
	int nr_overrides;
};

/* One resolved key, for recording the scenario (scenario_get). */
struct scenario_value {
	const char *section;   /* "machine", "costs", "tunables", ... */
	const char *name;      /* the key within its section */
	enum { SV_INT, SV_DOUBLE, SV_BOOL, SV_STRING } type;
	long long i;
	double d;
	bool b;
	const char *s;         /* a name, or buf */
	char buf[256];         /* a policy written out: "bind:0,1", "weighted:0=3,1=1" */
};
int scenario_nr_keys(void);
/* Key @k (0 .. scenario_nr_keys() - 1) of the validated @sc. */
void scenario_get(const struct scenario *sc, int k, struct scenario_value *v);

int scenario_load_builtin(const char *name, struct scenario *sc, char *err, size_t errlen);
int scenario_load_file(const char *path, struct scenario *sc, char *err, size_t errlen);
/* The same for a file's @len bytes already in memory (@text[len] must be a
 * NUL); @path names it in messages. */
int scenario_load_text(const char *path, const char *text, size_t len, struct scenario *sc,
		       char *err, size_t errlen);
/* "--set KEY=VALUE": KEY is a tunable's kernel name (kernel.numa_balancing,
 * numa_balancing.scan_delay_ms, numa_balancing.scan_period_min_ms,
 * numa_balancing.scan_period_max_ms, numa_balancing.scan_size_mb,
 * x86.tlb_single_page_flush_ceiling) or SECTION.KEY (machine.sockets, workload.threads,
 * costs.ipi_handler_ns, run.duration_s, kernel.name ...). */
int scenario_set(struct scenario *sc, const char *assignment, char *err, size_t errlen);
/* Like scenario_set, for a dedicated option (e.g. "--kernel" setting
 * "kernel.name"): errors are prefixed with @option instead of "--set". */
int scenario_set_option(struct scenario *sc, const char *option, const char *key,
			const char *value, char *err, size_t errlen);
/* "--costs FILE": FILE's [machine] and [costs] keys, each applied as
 * --set would (recorded as overrides of option "--costs"); any other
 * section, a key given twice or a bad value is an error at FILE:LINE: key.
 * For the fragment `numaload profile --ini` writes. */
int scenario_apply_fragment(struct scenario *sc, const char *path, char *err, size_t errlen);
/* Cross-field validation (impossible machine, memory, threads vs CPUs); err names FILE:LINE: key.
 * Also derives sc->m.nr_nodes, nr_cpus and the distance table. */
int scenario_validate(struct scenario *sc, char *err, size_t errlen);
/* An upper bound on the host memory a run of the validated scenario takes
 * at its peak: per PTE table up front, per table the run can come to hold
 * page by page, per task, CPU and second (scenario.c shows the figures). */
uint64_t scenario_model_bytes(const struct scenario *sc);
/* Of it, what the process takes whatever it models (binary, libraries, the
 * report's buffers), measured at 4-5 MiB, with room. */
#define SCENARIO_BASE_BYTES (16ull << 20)
/* The PTE tables, over all processes, that a run of the validated scenario
 * can come to hold page by page (stats.tables_materialised is at most this). */
uint64_t scenario_model_tables(const struct scenario *sc);
/* Refuse a scenario whose model would not fit in 80% of @host_bytes: it
 * would fail (or swap) only after its set-up.  0, or -1 with err naming
 * the key changed last among the workload's size keys. */
int scenario_check_host(const struct scenario *sc, uint64_t host_bytes, char *err, size_t errlen);
/* Zero @s, then copy the validated scenario into it (s->m, s->t, s->w.p,
 * s->seed, s->duration_ns, s->k via kernel_config_parse(sc->kernel)). */
int scenario_to_sim(const struct scenario *sc, struct sim *s, char *err, size_t errlen);

/* Keys by index, for a program that reads scenarios but honours only some
 * keys (tools/numaload): how many keys there are, a key's index from the
 * name a user writes (a tunable's name or SECTION.KEY; -1 if unknown), that
 * name, its section, whether @sc assigned it (file or option), and an error
 * at it: "FILE:LINE: key: message" wherever its value came from.  The
 * error function always returns -1. */
int scenario_key_count(void);
int scenario_key_index(const char *key);
const char *scenario_key_name(int k, char *buf, size_t len);
const char *scenario_key_section(int k);
int scenario_key_assigned(const struct scenario *sc, int k);
int scenario_key_error(const struct scenario *sc, int k, char *err, size_t errlen,
		       const char *fmt, ...) __attribute__((format(printf, 5, 6)));

const char *scenario_builtin_text(const char *name);   /* NULL if unknown */
const char *const *scenario_builtin_names(void);       /* NULL-terminated */
const char *scenario_builtin_summary(const char *name);/* one line */

#endif
