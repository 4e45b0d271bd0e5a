/* The initiator's side of an IPI round, after kernel/smp.c's
 * smp_call_function_many_cond (v6.12): what a flush round costs the CPU
 * that sends it, as a function of how many CPUs it reaches, on which
 * sockets, and how many other rounds are in flight to the same CPUs.
 *
 * For each target the initiator runs the cond function (should_flush_tlb
 * reads the target's cpu_tlbstate line), queues its csd on the target's
 * call_single_queue (an atomic on a line of the target's) and sends the
 * IPI (one x2APIC ICR write); after its own callback it spins on each
 * target's csd lock until that target's handler has run.  So the round
 * costs a setup, a per-target term that is a few cache-line transfers
 * (more across sockets), and a wait for the last target: delivery to the
 * farthest socket plus its handler.  A target that already has csds of
 * other rounds queued gets no new IPI (llist_add found the queue
 * non-empty): it runs the queued callbacks first, in one interrupt, so
 * each round still in flight to a CPU this round also reaches adds one
 * callback to the wait.  Left out: the csd lines' contention between
 * initiators (a few line transfers per target each), x2APIC cluster mode's
 * one ICR write per cluster, and CSD_LOCK_WAIT_DEBUG. */
#ifndef NUMASIM_KERNEL_SMP_H
#define NUMASIM_KERNEL_SMP_H

#include <stdint.h>

#include "linux/cpumask.h"
#include "machine/machine.h"

struct sim;

/* The rounds in flight: one slot per initiating CPU (a CPU waits for its
 * round before it sends another), the mask each reached and its end. */
struct smp_inflight {
	int nr;                 /* active slots, in cpu[] */
	int *cpu;               /* the initiators with a round that may still be in flight */
	uint64_t *end;          /* [cpu]: when its last round ended */
	uint64_t *mask;         /* [cpu][nr_cpu_words]: the CPUs it reached */
	int words;
};

int smp_inflight_init(struct smp_inflight *f, int nr_cpus);
void smp_inflight_free(struct smp_inflight *f);

/* A round from @cpu to @mask starts at @now: how many rounds of other
 * initiators are still in flight (ending after @now) to a CPU of @mask. */
int smp_rounds_in_flight(struct smp_inflight *f, int cpu, const struct cpumask *mask,
			 uint64_t now);
/* ... and ends at @end: later rounds see it until then. */
void smp_round_done(struct smp_inflight *f, int cpu, const struct cpumask *mask, uint64_t end);

/* The initiator's time in a round of @near IPIs to CPUs of its own socket
 * and @far to other sockets, behind @queued rounds in flight, with @work
 * the flush each target does in its handler (the initiator waits for it). */
static inline double smp_call_round_ns(const struct cost_model *c, double near, double far,
				       int queued, double work)
{
	double send = c->ipi_send_base_ns + near * c->ipi_send_per_cpu_ns +
		      far * c->ipi_send_remote_ns;
	double deliver = far > 0 ? c->ipi_latency_remote_ns : c->ipi_latency_ns;
	return send + deliver + (double)queued * c->ipi_callback_ns + c->ipi_handler_ns + work;
}

/* Of @mask's CPUs other than @self, how many are on @self's socket
 * (@near) and how many elsewhere (@far): read from the sockets' masks. */
void smp_mask_sockets(const struct sim *s, const struct cpumask *mask, int self, int *near,
		      int *far);

#endif
