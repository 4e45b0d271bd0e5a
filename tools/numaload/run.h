/* The workload on real hardware: processes, threads, anonymous memory laid
 * out as numasim lays it out (shape.h), first touch on numasim's nodes,
 * then every thread touching its slice and its process's shared region at
 * the scenario's proportions as fast as it can, while the parent samples
 * the kernel's counters once a second. */
#ifndef NUMALOAD_RUN_H
#define NUMALOAD_RUN_H

#include <stdbool.h>
#include <stdint.h>

#include "counters.h"
#include "shape.h"
#include "tracehist.h"
#include "tunables.h"

enum nl_threads { NL_PINNED, NL_NODE, NL_FREE };
extern const char *const nl_threads_names[3];

struct nl_opts {
	enum nl_threads threads;
	bool trace;              /* count tracepoints through tracefs */
	const char *tracefs;     /* default /sys/kernel/tracing */
	const char *save_hist;   /* keep the raw hist files there (or NULL) */
	bool quiet;
};

/* What a run measured. */
struct nl_result {
	double seconds;               /* measured interval */
	struct nl_counters delta;     /* over it */
	int nsec;                     /* per-second samples */
	double *tlb_s, *mig_s, *pte_s, *fault_s;
	double ops;                   /* operations by all threads */
	double spin_iters_per_op;     /* cpu_ns_per_op as calibrated */
	uint64_t node_pages_start[MAX_NUMNODES], node_pages_end[MAX_NUMNODES];
	bool have_node_pages;
	struct nl_trace trace;
	bool traced;
	struct nl_tunables tun;
};

/* Run @sc (resolved by nl_shape_resolve) on @r.  Returns 0, 1 on a failure
 * of the machine (message in @err), or 130 if interrupted; tunables and
 * triggers are put back in every case. */
int nl_run(const struct scenario *sc, const struct nl_real *r, const struct nl_opts *o,
	   struct nl_result *res, char *err, size_t errlen);
void nl_result_free(struct nl_result *res);

#endif
