/* The seed machine and the cost model's defaults.  Each value names its
 * source ("costs 1.x" below: the published figures listed in
 * docs/calibration.md, "Sources") or the reasoning behind it.  docs/model.md and docs/calibration.md discuss
 * them further; the calibration issue may revise them, for every scenario
 * and kernel at once. */
#include <stdio.h>
#include <string.h>

#include "linux/cpumask.h"
#include "machine/machine.h"

const char *const flush_engine_names[NR_FLUSH_ENGINES] = {
	[FLUSH_X86_IPI] = "x86-ipi",
	[FLUSH_X86_INVLPGB] = "x86-invlpgb",
	[FLUSH_ARM64] = "arm64",
	[FLUSH_RISCV] = "riscv",
};

static void cost_defaults(struct cost_model *c)
{
	/* costs 1.6: 2-socket local DRAM 106-130 ns idle; loaded random
	 * access with some overlap: 100 ns. Remote = local * SLIT/10. */
	c->dram_local_ns = 100;
	/* costs 1.1: a dTLB miss costs 17 ns when the walk hits the caches.
	 * A 120 GiB 4 KiB-page working set has 240 MB of leaf page tables, far
	 * beyond the LLC, so a refill walk's leaf load goes to DRAM (~100 ns,
	 * dram_local_ns); refill walks after a flush are on the critical path
	 * of the instructions that need them, so they overlap little.  With
	 * 1536 entries a full refill is ~154 us (the brief: "on the order of
	 * 100 us"). */
	c->page_walk_ns = 100;
	/* costs 1.1: CR3 reload 96 cycles, INVLPG ~100 ns ("each single
	 * flush is about 100 ns"). */
	c->cr3_flush_ns = 100;
	c->invlpg_ns = 100;
	/* costs 1.2: ~1 us base per shootdown (sanity band). */
	c->ipi_send_base_ns = 1000;
	/* Per target, the initiator evaluates should_flush_tlb (reads the
	 * target's cpu_tlbstate: a cache-line transfer, 47 ns same socket /
	 * 134 ns cross socket, costs 1.2), queues the csd on the target's
	 * call_single_queue (an atomic on a line other initiators hit too),
	 * writes the x2APIC ICR (a serialising WRMSR), and later spins on the
	 * target's csd lock: ~0.5 us uncontended.  In the storm the patch series
	 * "mm/migrate: don't batch the TLB flush when there is nothing to batch"
	 * measured,
	 * several initiators work the same targets at once; the published
	 * scan, 0.7 ms per PTE table with one flush_tlb_mm to 383 CPUs each,
	 * puts the per-target cost at ~1.7-2 us (the rule-of-thumb band of
	 * costs 1.2 says ~1.5 us per CPU in mm_cpumask).  One value for every
	 * scenario: 2 us.  docs/calibration.md discusses it. */
	c->ipi_send_per_cpu_ns = 2000;
	/* costs 1.2: ~1 us delivery, ThunderX2 normal IPI 81-110 ns delivery
	 * on top of interrupt entry; x86 interrupt entry/exit with mitigations
	 * ~1 us. */
	c->ipi_latency_ns = 1000;
	/* Receiver: interrupt entry/exit (~1 us with mitigations) plus
	 * flush_tlb_func's reads of its per-CPU and the mm's lines. */
	c->ipi_handler_ns = 1200;
	/* No per-instruction INVLPGB/TLBSYNC figure exists (costs 1.3 gap):
	 * a broadcast round trip over the fabric ~ two cross-socket line
	 * transfers plus the slowest core's invalidation: ~1 us. */
	c->invlpgb_ns = 1000;
	/* arm64: a TLBI is posted (~tens of ns); the DSB waits for every
	 * core's invalidation, a fabric round trip: ~1 us (costs 1.3 shows
	 * ptep_clear_flush at 5-17% of paging-out CPU). */
	c->tlbi_ns = 30;
	c->dsb_ns = 1000;
	/* The patch series: the patched scanner changes 256 MB (65536 PTEs, 128
	 * tables) in ~6.7 ms: ~100 ns per PTE (PTE xchg plus a struct folio
	 * cache miss) and a little per table. */
	c->pte_update_ns = 95;
	c->pte_skip_ns = 10;
	c->pte_table_ns = 500;
	c->gather_ns = 200;
	/* costs 1.5: HeMem uses 2000 ns per fault; a minor anon fault's median
	 * is ~1 us; do_numa_page adds the policy and cpupid work. */
	c->hint_fault_ns = 1500;
	/* costs 1.4: move_pages() of 512 pages costs ~3.9 us/page cross-socket
	 * with copy; the copy of 4 KiB at ~6 GB/s single-threaded is ~0.7 us,
	 * leaving ~3 us of isolation, allocation, locking, rmap and unmap. */
	c->migrate_setup_ns = 2500;
	c->copy_page_ns = 500; /* local 4 KiB copy; scaled by SLIT distance */
	c->remap_ns = 500;
	/* The direct cost of a context switch: Li, Ding and Shen, "Quantifying
	 * the Cost of Context Switch" (ExpCS 2007) measured 3.8 us on a 2 GHz
	 * Xeon; lmbench lat_ctx between two threads of one process gives
	 * 1-3 us on current x86 with the speculation mitigations.  The TLB and
	 * cache refill that follows is charged apart (a switch between two
	 * working sets refills the TLB: sched/core.c). */
	c->context_switch_ns = 2000;
	/* The balancer and the NUMA placement search read each candidate
	 * runqueue's statistics: a few cache lines that their owner writes,
	 * so about one remote cache-line transfer per runqueue (as DRAM). */
	c->sched_rq_scan_ns = 100;
	/* Moving a running task (active balance, migrate_task_to,
	 * migrate_swap) goes through the stopper: queue a work item, wake the
	 * stopper thread with an IPI (~1 us), two context switches (2 x 2 us)
	 * and the move itself. */
	c->stopper_move_ns = 5000;
}

void machine_defaults(struct machine *m)
{
	memset(m, 0, sizeof(*m));
	m->nr_sockets = 2;
	m->nodes_per_socket = 1;
	m->cores_per_node = 96;
	m->threads_per_core = 2;
	m->mem_per_node_mib = 512 * 1024;
	m->engine = FLUSH_X86_IPI;
	/* Second-level TLB of recent Intel/AMD server cores: 1.5-2k entries. */
	m->tlb_entries = 1536;
	m->tlb_single_page_flush_ceiling = 33; /* x86 default (costs 1.1) */
	m->hz = 250;                           /* Debian/Ubuntu CONFIG_HZ */
	/* A 2-socket, 384-CPU x86 part without INVLPGB is a 96-core Intel
	 * Xeon 6 (Granite Rapids): 2.4-2.7 GHz base; all-core under memory-bound
	 * load runs near base.  Only converts ns to the cycles reports print. */
	m->cpu_ghz = 2.5;
	/* Granite Rapids: 12 channels of DDR5-6400 per socket, 614 GB/s peak,
	 * of which loaded streams sustain about two thirds; 6 UPI 2.0 links
	 * at 24 GT/s, about 290 GB/s each way, 580 GB/s both ways.  The
	 * seed's workload asks about 60 GB/s of each node: far below. */
	m->mem_bw_gbs = 400;
	m->link_bw_gbs = 580;
	cost_defaults(&m->cost);
}

const char *machine_finish(struct machine *m)
{
	static char msg[128];
	if (m->nr_sockets <= 0 || m->nodes_per_socket <= 0 || m->cores_per_node <= 0 ||
	    m->threads_per_core <= 0)
		return "the topology has no CPUs";
	m->nr_nodes = m->nr_sockets * m->nodes_per_socket;
	if (m->nr_nodes > MAX_NUMNODES) {
		snprintf(msg, sizeof(msg), "%d nodes, at most %d supported", m->nr_nodes, MAX_NUMNODES);
		return msg;
	}
	long cpus = (long)m->nr_nodes * m->cores_per_node * m->threads_per_core;
	if (cpus > NR_CPUS_MAX) {
		snprintf(msg, sizeof(msg), "%ld CPUs, at most %d supported", cpus, NR_CPUS_MAX);
		return msg;
	}
	m->nr_cpus = (int)cpus;
	if (m->hz <= 0 || 1000000000 % m->hz)
		return "hz must divide 1e9";
	if (m->tlb_entries <= 0)
		return "tlb_entries must be positive";
	for (int i = 0; i < m->nr_nodes; i++)
		for (int j = 0; j < m->nr_nodes; j++)
			if (!m->distance[i][j])
				m->distance[i][j] = i == j ? 10
					: (i / m->nodes_per_socket == j / m->nodes_per_socket ? 12 : 21);
	return NULL;
}
