/* The figures a real kernel's run (numaload's JSON, "real") and numasim's
 * run of the same scenario are compared on: counts and ratios of counts,
 * the things the kernel's algorithms decide (docs/realcheck.md).  One
 * table for numaload's --table and numasim validate --realcheck. */
#ifndef NUMASIM_REALFIG_H
#define NUMASIM_REALFIG_H

#include <stdbool.h>

#include <jansson.h>

/* numasim / real within [1 / REALFIG_AGREE, REALFIG_AGREE]: "in". */
#define REALFIG_AGREE 1.5

enum realfig {
	RF_PTE, RF_FAULTS, RF_FAULTS_PER_PTE, RF_LOCAL_PCT, RF_MIGRATED, RF_MIGR_PER_FAULT, RF_FAIL,
	RF_TLB, RF_TLB_PER_MIGR, RF_PENDING_FLUSHES, RF_BATCH_FLUSHES, RF_IPI_ROUNDS,
	RF_NUMA_MOVES, RF_NUMA_SWAPS, RF_PTEP_CLEAR, RF_GATHER, RF_THROUGHPUT, NR_REALFIGS
};

struct realfig_def {
	const char *name;     /* as the table prints it (indented: a ratio of the row above) */
	const char *key;      /* JSON */
	bool compared;        /* false: shown only (throughput, real-only paths) */
};
extern const struct realfig_def realfigs[NR_REALFIGS];

/* Figure @f of result @d: @real reads the tracepoint-only figures from
 * numaload's trace, else from numasim's instrumentation.  NAN when the
 * result lacks it. */
double realfig_value(const json_t *d, bool real, enum realfig f);

/* The result's machine.@key (sockets, nodes, cpus), NAN when absent. */
double realfig_machine(const json_t *d, const char *key);

enum realfig_verdict { RFV_IN, RFV_MISS, RFV_BOTH_ZERO, RFV_NA, RFV_SHOWN };

/* The verdict of @f with @real and @sim (its values); *@ratio is sim/real
 * or NAN. */
enum realfig_verdict realfig_judge(enum realfig f, double real, double sim, double *ratio);

#endif
