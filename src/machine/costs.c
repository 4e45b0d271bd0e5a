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
	/* costs 1.6: Intel MLC on 2-socket Skylake-SP, local 81-90 ns idle,
	 * 92-166 ns loaded: 100 ns. Remote = local * SLIT/10. */
	c->dram_local_ns = 100;
	/* costs 1.1: a dTLB miss costs 17 ns when the walk hits the caches.
	 * A 120 GiB 4 KiB-page working set has 240 MB of leaf page tables, far
	 * beyond the LLC, so a refill walk's leaf load goes to DRAM (~100 ns,
	 * dram_local_ns); refill walks after a flush are on the critical path
	 * of the instructions that need them, so they overlap little (Ingo
	 * Molnar's cache-cold flush+access: 150-300 cycles a 4 KiB page).  A
	 * flush costs a thread only the entries it would have used again
	 * (workload/tlb_reuse.h), at most the whole TLB: 2048 x 100 ns. */
	c->page_walk_ns = 100;
	/* costs 1.1: CR3 reload 96 cycles, INVLPG ~100 ns ("each single
	 * flush is about 100 ns"). */
	c->cr3_flush_ns = 100;
	c->invlpg_ns = 100;
	/* The IPI round (kernel/smp.h, smp_call_round_ns), from costs 1.2.
	 * Nadav Amit's single-page MADV_DONTNEED loop on bare-metal Haswell
	 * takes the initiator 661 ns alone, 1436 ns with one remote target
	 * and 1571 ns with three: a round to one target ~0.8 us, each further
	 * target on the socket ~70 ns ((1571 - 1436) / 2); his 2022 mprotect
	 * figures give the same round (+2150 cycles, ~0.9 us).  One target:
	 * base + per target + delivery + handler + the CR3 write = 0.92 us. */
	c->ipi_send_base_ns = 200;
	c->ipi_send_per_cpu_ns = 70;
	c->ipi_latency_ns = 250;
	c->ipi_handler_ns = 300;
	/* Across sockets: no published shootdown figure (costs 1.2 gap).  The
	 * per-target term is cache-line transfers, so it scales as MLC's
	 * modified-line transfer does (50 ns within a socket, 114 ns across,
	 * costs 1.6): 160 ns; delivery adds the crossing twice (the IPI and
	 * the csd-lock line the initiator reads back): 250 + 2 x 64 ns. */
	c->ipi_send_remote_ns = 160;
	c->ipi_latency_remote_ns = 380;
	/* Rounds at once (costs 1.2, contention): will-it-scale tlb_flush2
	 * on a 72-CPU Milan saturates at 0.6-0.76 M shootdowns a second, each
	 * reaching every other CPU, from 4 to 72 threads; each thread's loop
	 * goes from 3.2 us alone to 118 us with 72: ~1.6 us for each other
	 * initiator, as the 1.3-1.7 us a receiver spends per round at the
	 * ceiling.  A callback queued behind another round's, its reads of the
	 * mm's contended lines included: 1.5 us. */
	c->ipi_callback_ns = 1500;
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
	/* costs 1.5: mmtests pft on a 2 x E5-2690 v4 makes 471k anonymous
	 * faults a second on one CPU, ~2.1 us each with the page's allocation
	 * and zeroing (~0.6 us of it, a 4 KiB clear at ~7 GB/s); a hint
	 * fault allocates nothing but adds do_numa_page's policy and cpupid
	 * work: 1.5 us (HeMem's simulator uses 2 us). */
	c->hint_fault_ns = 1500;
	/* costs 1.4: Zi Yan's migrate_pages() of 512 4 KiB pages across the
	 * sockets of a 2 x E5-2650 v3: 0.854 GB/s, ~4.8 us a page, of which
	 * migrate_page_copy 1.983 GB/s, ~2.1 us; the rest, ~2.7 us, is
	 * isolation, allocation, locking, rmap, unmap and remap.  The copy is
	 * scaled by the SLIT distance (21 across sockets): ~1 us local. */
	c->migrate_setup_ns = 2200;
	c->copy_page_ns = 1000; /* local 4 KiB copy; scaled by SLIT distance */
	c->remap_ns = 500;
	/* kswapd's look at one folio (isolate_lru_folios, folio_referenced):
	 * the LRU lock amortised over a batch of 32, the rmap walk to the
	 * one mapping of a private anonymous page (anon_vma lock,
	 * page_vma_mapped_walk, ptep_clear_young): two or three cache misses
	 * to lines other CPUs write, as sched_rq_scan_ns's one is 100 ns. */
	c->lru_scan_ns = 250;
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
	/* costs 1.1: the second-level TLB of Golden Cove (Sapphire Rapids'
	 * core) holds 2,048 entries for 4 KiB pages, as Zen 2's; Zen 5's 4,096. */
	m->tlb_entries = 2048;
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
	/* CPU-less memory nodes (none by default): a CXL type-3 expander on
	 * PCIe 5.0 x16 behind the socket.  The latency and bandwidth are
	 * docs/calibration.md's costs 1.7; memory_node_mib 0 takes
	 * mem_per_node_mib (machine_finish). */
	m->memory_node_latency_ns = 250;
	m->memory_node_bw_gbs = 50;
	cost_defaults(&m->cost);
}

/* SLIT distances of the memory nodes (machine.h): by latency from their
 * own socket, plus the socket crossing's share of DRAM's remote distance;
 * between two memory nodes, as from the first one's socket. */
void machine_memory_node_distances(struct machine *m)
{
	if (!m->nr_memory_nodes)
		return;
	/* (a scenario refuses memory nodes without a DRAM latency to scale by) */
	double ratio = m->cost.dram_local_ns > 0 ? m->memory_node_latency_ns / m->cost.dram_local_ns : 25.4;
	int local = ratio < 25.4 ? (int)(10 * ratio + 0.5) : 254;
	int remote_dram = m->nr_sockets > 1 ? m->distance[0][m->nodes_per_socket] : 21;
	int cross = remote_dram - 10;
	if (local < 11)
		local = 11; /* ACPI: only a node to itself is 10 */
	for (int i = 0; i < m->nr_nodes; i++)
		for (int j = m->nr_cpu_nodes; j < m->nr_nodes; j++) {
			int d = i == j ? 10
				: local + (machine_node_socket(m, i) == machine_node_socket(m, j) ? 0 : cross);
			if (d > 254)
				d = 254;
			m->distance[i][j] = m->distance[j][i] = d;
		}
}

const char *machine_finish(struct machine *m)
{
	static char msg[128];
	if (m->nr_sockets <= 0 || m->nodes_per_socket <= 0 || m->cores_per_node <= 0 ||
	    m->threads_per_core <= 0)
		return "the topology has no CPUs";
	m->nr_cpu_nodes = m->nr_sockets * m->nodes_per_socket;
	m->nr_nodes = m->nr_cpu_nodes + m->nr_memory_nodes;
	if (!m->memory_node_mib)
		m->memory_node_mib = m->mem_per_node_mib;
	if (m->nr_nodes > MAX_NUMNODES) {
		snprintf(msg, sizeof(msg), "%d nodes, at most %d supported", m->nr_nodes, MAX_NUMNODES);
		return msg;
	}
	for (int i = 0; i < m->nr_memory_nodes; i++)
		if (m->memory_node_socket[i] < 0 || m->memory_node_socket[i] >= m->nr_sockets) {
			snprintf(msg, sizeof(msg), "a CPU-less node on socket %d, but the machine has "
				 "sockets 0 to %d", m->memory_node_socket[i], m->nr_sockets - 1);
			return msg;
		}
	long cpus = (long)m->nr_cpu_nodes * m->cores_per_node * m->threads_per_core;
	if (cpus > NR_CPUS_MAX) {
		snprintf(msg, sizeof(msg), "%ld CPUs, at most %d supported", cpus, NR_CPUS_MAX);
		return msg;
	}
	m->nr_cpus = (int)cpus;
	if (m->hz <= 0 || 1000000000 % m->hz)
		return "hz must divide 1e9";
	if (m->tlb_entries <= 0)
		return "tlb_entries must be positive";
	for (int i = 0; i < m->nr_cpu_nodes; i++)
		for (int j = 0; j < m->nr_cpu_nodes; j++)
			if (!m->distance[i][j])
				m->distance[i][j] = i == j ? 10
					: (i / m->nodes_per_socket == j / m->nodes_per_socket ? 12 : 21);
	machine_memory_node_distances(m);
	return NULL;
}
