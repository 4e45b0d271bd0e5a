/* The engine: simulated time, the timer queue, per-CPU cost accounting and
 * the trace hook.  It knows nothing of kernels or workloads: the layers
 * above own timer ids and decide what an expiry means.
 *
 * Time is a count of nanoseconds.  A piece of work runs as a step: one
 * event, executed at once at its start time t0 "on" a CPU.  What the step
 * charges (engine_charge) advances engine_now() within it and is added to
 * that CPU's account; time a step takes from another CPU (an interrupt, a
 * TLB refill) goes through engine_steal().
 *
 * Each CPU also says what work it has in flight, so that an interrupt can
 * delay it without the engine knowing what the work is: a CPU in kernel
 * mode has its next step on a timer (work_timer); a CPU in user mode may
 * still be finishing a step that needed no timer (busy_until). */
#ifndef NUMASIM_ENGINE_H
#define NUMASIM_ENGINE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "sim/timerq.h"
#include "trace/trace.h"

#define NSEC_PER_MSEC 1000000ull
#define NSEC_PER_SEC 1000000000ull

/* A time a scenario key gives in units of @unit_ns nanoseconds (a period,
 * an instant, a duration), in whole nanoseconds, rounded to the nearest.
 * The one conversion of every such key: the scenario's check (0, or at
 * least 1 ns: scenario.c check_resolution) then holds for the value the
 * model uses, so no periodic timer re-arms at the instant it fired. */
static inline uint64_t time_ns(double value, double unit_ns)
{
	return (uint64_t)(value * unit_ns + 0.5);
}

/* Where CPU time went, beyond the workload's own user-mode work. */
enum cost_cause {
	COST_SCAN,          /* task_numa_work: walking and changing PTEs */
	COST_HINT_FAULT,    /* do_numa_page and fault entry/exit */
	COST_MIGRATE,       /* migration setup, unmap, remap (not the copy) */
	COST_MIGRATE_COPY,  /* copying the folio */
	COST_FLUSH_LOCAL,   /* the initiator's own invalidation */
	COST_FLUSH_WAIT,    /* sending IPIs / broadcasts and waiting for them */
	COST_IPI_HANDLE,    /* a receiver's interrupt and flush_tlb_func */
	COST_TLB_REFILL,    /* user-mode page walks refilling a flushed TLB */
	COST_LOCK_WAIT,     /* waiting for a PTE table lock */
	COST_SCHED,         /* context switches, load balancing, NUMA task placement */
	NR_COST_CAUSES
};
extern const char *const cost_cause_names[NR_COST_CAUSES];

/* Fixed point for the receivers' sums: units of 2^-16 ns, 128 bits wide, so
 * that no cost the input accepts can overflow one (a receiver's round costs
 * at most about 2^86 units -- a 2^30-page range at 1e12 ns a page -- and a
 * run would need 2^41 such rounds).  A cost rounds to the nearest unit
 * (under 8e-6 ns off), the same for every receiver of a round. */
__extension__ typedef __int128 engine_fx_t;
#define ENGINE_FX_ONE 65536.0
static inline engine_fx_t engine_fx(double ns)
{
	return (engine_fx_t)(ns * ENGINE_FX_ONE + 0.5);
}
/* In ns; through int64_t (one instruction) where the value fits, as the
 * accounting's differences do unless the costs are absurd; else from its
 * two halves, out of line (engine.c), so that the callers' loops keep
 * their registers. */
double engine_fx_ns_wide(engine_fx_t fx);
static inline double engine_fx_ns(engine_fx_t fx)
{
	int64_t low = (int64_t)fx; /* the value, if it fits */
	if (__builtin_expect(low != fx, 0))
		return engine_fx_ns_wide(fx);
	return (double)low * (1.0 / ENGINE_FX_ONE);
}

/* One CPU's account and the work it has in flight.
 *
 * An IPI round's receivers add the same few costs to every receiver's
 * account: those go to two integer sums in fixed point (1/65536 ns; see
 * engine_fx_t), so that sums of any grouping are the same number -- the
 * kernel's flush_tlb_func charges can then be settled later in one
 * addition per CPU (arch/x86/mm/tlb.c, the round ledger) with the same
 * result as one by one.  busy_ns, stolen_ns and cost[] hold the rest;
 * read the totals with engine_busy_ns, engine_stolen_ns, engine_cost.
 * What a receiver reads and writes is one cache line (the array is
 * 64-byte aligned); the snapshots for accounting and the running step's
 * causes are in the others. */
struct cpu_acct {
	_Alignas(64) double busy_at_account; /* engine_busy_ns at the last throughput update... */
	double stolen_at_account;     /* ... and engine_stolen_ns, as their parts: */
	engine_fx_t rx_busy_at_account; /* the receivers' part of each */
	engine_fx_t rx_stolen_at_account;
	double busy_ns;               /* all non-user time so far, less the receivers' */
	double stolen_ns;             /* of busy_ns: interrupt handling */
	double cost[NR_COST_CAUSES];  /* ns, less the receivers' (rx_ipi, rx_refill) */
	/* the line a flush receiver reads and writes: */
	engine_fx_t rx_ipi;           /* receivers' interrupt and flush time */
	engine_fx_t rx_refill;        /* refill walks after a receiver's full flush */
	uint64_t busy_until;          /* user mode: a timerless step ends here */
	uint32_t work_timer;          /* timer of that path's next step */
	bool in_kernel;               /* its task is in a kernel path */
};
_Static_assert(sizeof(struct cpu_acct) == 192 && offsetof(struct cpu_acct, busy_ns) < 64 &&
		       offsetof(struct cpu_acct, rx_ipi) / 64 == 2 &&
		       offsetof(struct cpu_acct, in_kernel) / 64 == 2,
	       "the accounting's snapshots and sums in one cache line, a flush receiver's in another");

/* The account's totals: the doubles plus the receivers' fixed-point part. */
static inline double engine_busy_ns(const struct cpu_acct *a)
{
	return a->busy_ns + engine_fx_ns(a->rx_ipi + a->rx_refill);
}
static inline double engine_stolen_ns(const struct cpu_acct *a)
{
	return a->stolen_ns + engine_fx_ns(a->rx_ipi);
}
static inline double engine_cost(const struct cpu_acct *a, int cause)
{
	if (cause == COST_IPI_HANDLE)
		return a->cost[cause] + engine_fx_ns(a->rx_ipi);
	if (cause == COST_TLB_REFILL)
		return a->cost[cause] + engine_fx_ns(a->rx_refill);
	return a->cost[cause];
}
/* Busy and stolen time since the last engine_account_mark, which it
 * takes: the parts apart, so that the fixed-point part is exact. */
static inline void engine_account_delta(struct cpu_acct *a, double *busy, double *stolen)
{
	engine_fx_t rx_busy = a->rx_ipi + a->rx_refill;
	*busy = (a->busy_ns - a->busy_at_account) + engine_fx_ns(rx_busy - a->rx_busy_at_account);
	*stolen = (a->stolen_ns - a->stolen_at_account) +
		  engine_fx_ns(a->rx_ipi - a->rx_stolen_at_account);
	a->busy_at_account = a->busy_ns;
	a->stolen_at_account = a->stolen_ns;
	a->rx_busy_at_account = rx_busy;
	a->rx_stolen_at_account = a->rx_ipi;
}
static inline void engine_account_mark(struct cpu_acct *a)
{
	double busy, stolen;
	engine_account_delta(a, &busy, &stolen);
}

struct engine {
	struct timerq q;
	struct cpu_acct *acct;        /* per CPU */
	int nr_cpus;
	uint64_t duration_ns;
	/* the step being run */
	uint64_t t0;                  /* its start (the event's time) */
	double elapsed;               /* ns charged in it so far */
	int cpu;                      /* the CPU it runs on (smp_processor_id) */
	bool stepping;                /* a task's step: its CPU is not delayed by itself */
	uint64_t events;              /* timer pops */
	struct trace_buf *trace;      /* NULL: not tracing */
};

int engine_init(struct engine *e, int nr_cpus, uint32_t nr_timers, uint64_t duration_ns);
void engine_free(struct engine *e);

/* Conversions between nanosecond counts and doubles for values in
 * [0, 2^63), which every time and duration of a run is: through int64_t
 * they are one instruction each on x86-64, where the unsigned conversions
 * take a branch and several; the results are the same. */
static inline uint64_t ns_from_double(double ns)
{
	return (uint64_t)(int64_t)ns;
}
static inline double ns_to_double(uint64_t ns)
{
	return (double)(int64_t)ns;
}

static inline uint64_t engine_now(const struct engine *e)
{
	return e->t0 + ns_from_double(e->elapsed);
}

/* Start a step at @t0 on @cpu; @task_step: it is a task's own work. */
static inline void engine_enter(struct engine *e, int cpu, bool task_step, uint64_t t0)
{
	e->cpu = cpu;
	e->stepping = task_step;
	e->t0 = t0;
	e->elapsed = 0;
}

/* Time spent by the running step on its own CPU. */
static inline void engine_charge(struct engine *e, enum cost_cause c, double ns)
{
	struct cpu_acct *a = &e->acct[e->cpu];
	e->elapsed += ns;
	a->cost[c] += ns;
	a->busy_ns += ns;
}

/* An interrupt of @ns landed on @cpu at @now: push back the work it has in
 * flight (a kernel path's next step, or a timerless step's end).  The
 * running step's own CPU is not delayed: its time is charged, not stolen.
 * engine_delay_acct: the same for a CPU known not to be the step's, by its
 * account @a. */
static inline void engine_delay_acct(struct engine *e, struct cpu_acct *a, double ns, uint64_t now)
{
	if (!a->in_kernel) {
		if (a->busy_until > now)
			a->busy_until += ns_from_double(ns);
		return;
	}
	if (a->work_timer != TIMER_IDLE && timerq_armed(&e->q, a->work_timer))
		timerq_set(&e->q, a->work_timer, e->q.when[a->work_timer] + ns_from_double(ns));
}

static inline void engine_delay(struct engine *e, int cpu, double ns, uint64_t now)
{
	if (e->stepping && cpu == e->cpu)
		return;
	engine_delay_acct(e, &e->acct[cpu], ns, now);
}

/* Interrupt handling of @ns (@fx in fixed point) taken at @now from a CPU
 * that is not the running step's (an IPI round's receiver; @running: a
 * task runs there), by its account @a.  The delay is converted to whole ns
 * only where there is work to delay, which few receivers have. */
static inline void engine_steal_irq_other(struct engine *e, struct cpu_acct *a, bool running,
					  double ns, engine_fx_t fx, uint64_t now)
{
	a->rx_ipi += fx;
	if (running)
		engine_delay_acct(e, a, ns, now);
}

/* Time taken from another CPU's work.  Refill walks are the thread's own
 * memory touches, just slower: they cost throughput but delay nothing.
 * Everything else is interrupt time and delays the work in flight. */
void engine_steal(struct engine *e, int cpu, bool running, enum cost_cause c, double ns);

/* Until when @cpu's task is in a kernel path, as seen at @now: the running
 * step's end, its next step's time, or a timerless step's end; 0 if it runs
 * user code. */
static inline uint64_t engine_busy_end(const struct engine *e, int cpu, uint64_t now)
{
	const struct cpu_acct *a = &e->acct[cpu];
	if (a->in_kernel) {
		if (e->stepping && cpu == e->cpu)
			return engine_now(e) > now ? engine_now(e) : now;
		return a->work_timer != TIMER_IDLE && timerq_armed(&e->q, a->work_timer)
			       ? e->q.when[a->work_timer] : now;
	}
	return a->busy_until > now ? a->busy_until : 0;
}

static inline bool engine_trace_on(const struct engine *e, enum trace_type t)
{
	return e->trace && (e->trace->mask & (1u << t));
}

#endif
