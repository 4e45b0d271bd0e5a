/* The engine's set-up and the accounting that is not inlined (engine.h). */
#include "sim/engine.h"

#include <stdlib.h>
#include <string.h>

const char *const cost_cause_names[NR_COST_CAUSES] = {
	[COST_SCAN] = "scan",
	[COST_HINT_FAULT] = "hint_fault",
	[COST_MIGRATE] = "migrate",
	[COST_MIGRATE_COPY] = "migrate_copy",
	[COST_FLUSH_LOCAL] = "flush_local",
	[COST_FLUSH_WAIT] = "flush_initiate_wait",
	[COST_IPI_HANDLE] = "ipi_handle",
	[COST_TLB_REFILL] = "tlb_refill",
	[COST_LOCK_WAIT] = "lock_wait",
	[COST_SCHED] = "sched",
};

int engine_init(struct engine *e, int nr_cpus, uint32_t nr_timers, uint64_t duration_ns)
{
	e->nr_cpus = nr_cpus;
	e->duration_ns = duration_ns;
	/* 64-byte aligned: see struct cpu_acct (the size is a multiple) */
	e->acct = aligned_alloc(64, (size_t)(nr_cpus > 0 ? nr_cpus : 1) * sizeof(*e->acct));
	if (!e->acct)
		return -1;
	memset(e->acct, 0, (size_t)(nr_cpus > 0 ? nr_cpus : 1) * sizeof(*e->acct));
	for (int c = 0; c < nr_cpus; c++)
		e->acct[c].work_timer = TIMER_IDLE;
	return timerq_init(&e->q, nr_timers);
}

void engine_free(struct engine *e)
{
	free(e->acct);
	e->acct = NULL;
	timerq_free(&e->q);
	trace_free(e->trace);
	e->trace = NULL;
}

void engine_steal(struct engine *e, int cpu, bool running, enum cost_cause c, double ns)
{
	struct cpu_acct *a = &e->acct[cpu];
	a->cost[c] += ns;
	a->busy_ns += ns;
	if (c == COST_TLB_REFILL)
		return;
	a->stolen_ns += ns;
	if (running && cpu != e->cpu)
		engine_delay(e, cpu, ns, engine_now(e));
}

__attribute__((noinline, cold)) double engine_fx_ns_wide(engine_fx_t fx)
{
	double hi = (double)(int64_t)(fx >> 64), lo = (double)(int64_t)((uint64_t)fx >> 1);
	return (hi * 18446744073709551616.0 + lo * 2 + (double)(fx & 1)) * (1.0 / ENGINE_FX_ONE);
}
