/* The simulated machine: topology, memory, flush engine and cost model.
 * Every default is in machine/costs.c with its source or reasoning. */
#ifndef NUMASIM_MACHINE_H
#define NUMASIM_MACHINE_H

#include <stdbool.h>
#include <stdint.h>

#include "linux/sched.h"

enum flush_engine {
	FLUSH_X86_IPI,      /* x86, IPIs to mm_cpumask (no INVLPGB) */
	FLUSH_X86_INVLPGB,  /* x86 with INVLPGB broadcast and global ASIDs */
	FLUSH_ARM64,        /* broadcast TLBI + DSB, no IPIs */
	FLUSH_RISCV,        /* IPIs/SBI, full flush, no ASID */
	NR_FLUSH_ENGINES
};

extern const char *const flush_engine_names[NR_FLUSH_ENGINES];

/* Costs in nanoseconds unless the name says otherwise. */
struct cost_model {
	/* memory */
	double dram_local_ns;        /* idle load-to-use latency, local node */
	/* TLB */
	double page_walk_ns;         /* one TLB-miss walk whose PTE load misses the caches */
	double cr3_flush_ns;         /* full flush (CR3 write) */
	double invlpg_ns;            /* one single-page invalidation */
	/* IPIs (x86, riscv) */
	/* the initiator's round: kernel/smp.h's smp_call_round_ns */
	double ipi_send_base_ns;     /* smp_call_function_many setup and return */
	double ipi_send_per_cpu_ns;  /* per target on its socket: cond check, csd, ICR write, ack */
	double ipi_send_remote_ns;   /* ... per target on another socket */
	double ipi_latency_ns;       /* delivery to the handler's first instruction, same socket */
	double ipi_latency_remote_ns;/* ... to another socket */
	double ipi_handler_ns;       /* receiver: interrupt entry/exit + flush_tlb_func */
	double ipi_callback_ns;      /* one more queued callback run in the same interrupt */
	/* broadcast invalidation */
	double invlpgb_ns;           /* INVLPGB + TLBSYNC, whole ASID or one range */
	double tlbi_ns;              /* arm64: one broadcast TLBI (no wait) */
	double dsb_ns;               /* arm64: DSB ISH waiting for broadcast TLBIs */
	/* mm paths */
	double pte_update_ns;        /* change_pte_range: one PTE made PROT_NONE */
	double pte_skip_ns;          /* change_pte_range: one PTE looked at, skipped */
	double pte_table_ns;         /* change_pte_range: PTL, pmd walk, lazy-MMU */
	double gather_ns;            /* tlb_gather_mmu + tlb_finish_mmu bookkeeping */
	double hint_fault_ns;        /* exception entry/exit + do_numa_page, no migration */
	double migrate_setup_ns;     /* isolate, allocate dst, lock, rmap walk, unmap */
	double copy_page_ns;         /* copy 4 KiB when source and destination are local */
	double remap_ns;             /* remove_migration_ptes, putback, per folio */
	double lru_scan_ns;          /* kswapd: one folio's isolation and folio_referenced rmap walk */
	/* scheduler */
	double context_switch_ns;    /* __schedule + switch_mm + switch_to, direct cost */
	double sched_rq_scan_ns;     /* load balancing / NUMA search: one runqueue examined */
	double stopper_move_ns;      /* moving a running task through the stopper */
};

struct machine {
	int nr_sockets;
	int nodes_per_socket;
	int nr_cpu_nodes;            /* nodes with CPUs: sockets x nodes_per_socket, numbered first */
	int nr_nodes;                /* ... and the CPU-less memory nodes after them */
	/* CPU-less memory nodes (CXL type-3 expanders, PMEM as kmem DAX):
	 * node nr_cpu_nodes + i hangs off socket memory_node_socket[i]; all
	 * are one memory type (one latency and bandwidth), as the kernel's
	 * kmem driver gives nodes of one performance one memory_dev_type */
	int nr_memory_nodes;
	int8_t memory_node_socket[MAX_NUMNODES];
	uint64_t memory_node_mib;    /* each */
	double memory_node_latency_ns; /* idle load-to-use latency from its socket's CPUs */
	double memory_node_bw_gbs;   /* each, bytes/s / 1e9; 0: unlimited */
	int cores_per_node;
	int threads_per_core;        /* SMT */
	int nr_cpus;
	uint64_t mem_per_node_mib;
	int distance[MAX_NUMNODES][MAX_NUMNODES];
	enum flush_engine engine;
	int tlb_entries;             /* second-level TLB entries for 4 KiB pages */
	int tlb_single_page_flush_ceiling;
	int hz;                      /* scheduler tick */
	bool arm64_repeat_tlbi;      /* ARM64_WORKAROUND_REPEAT_TLBI: no batched unmap flush */
	bool arm64_tlbi_range;       /* FEAT_TLBIRANGE: range TLBIs in __flush_tlb_range */
	double cpu_ghz;              /* core clock under load: ns -> cycles in reports */
	/* memory bandwidth, bytes/s / 1e9; 0: unlimited.  Above it a node's
	 * (or the sockets' link's) accesses queue: workload/workload.c */
	double mem_bw_gbs;           /* per node */
	double link_bw_gbs;          /* all traffic between sockets, both ways */
	struct cost_model cost;
};

/* Fill @m with the seed machine (2 sockets, 384 CPUs, x86 without INVLPGB). */
void machine_defaults(struct machine *m);
/* Derive nr_nodes, nr_cpus and default distances; returns NULL if valid, else
 * a message naming what is impossible.  A memory node's SLIT distance is
 * its latency over local DRAM's, x10, from its own socket; from another
 * socket the crossing adds what it adds to DRAM (distance_remote - 10). */
const char *machine_finish(struct machine *m);
/* (Re)compute the memory nodes' distances from the CPU nodes' (machine_finish
 * does; a caller that changes the CPU nodes' distances does again). */
void machine_memory_node_distances(struct machine *m);

/* Linux enumerates the first thread of every core, socket by socket, then
 * the SMT siblings: cpu -> core -> node. */
static inline int machine_cpu_node(const struct machine *m, int cpu)
{
	int cores = m->nr_cpu_nodes * m->cores_per_node;
	return (cpu % cores) / m->cores_per_node;
}

/* DRAM latency from a CPU on @from to memory on @to: the SLIT distance is a
 * relative latency (10 = local). */
static inline double machine_mem_latency(const struct machine *m, int from, int to)
{
	return m->cost.dram_local_ns * m->distance[from][to] / 10.0;
}

static inline bool machine_node_has_cpus(const struct machine *m, int node)
{
	return node < m->nr_cpu_nodes; /* node_state(node, N_CPU) */
}

static inline int machine_node_socket(const struct machine *m, int node)
{
	return machine_node_has_cpus(m, node) ? node / m->nodes_per_socket
					      : m->memory_node_socket[node - m->nr_cpu_nodes];
}

/* A node's memory, in pages, and its bandwidth (0: unlimited). */
static inline uint64_t machine_node_pages(const struct machine *m, int node)
{
	uint64_t mib = machine_node_has_cpus(m, node) ? m->mem_per_node_mib : m->memory_node_mib;
	return mib << (20 - 12);
}
static inline double machine_node_bw_gbs(const struct machine *m, int node)
{
	return machine_node_has_cpus(m, node) ? m->mem_bw_gbs : m->memory_node_bw_gbs;
}

/* Cost of refilling every entry of the TLB after a flush: the most a
 * flush can cost a thread (workload/tlb_reuse.h says what it costs the
 * workload's threads). */
static inline double machine_tlb_refill_ns(const struct machine *m)
{
	return m->tlb_entries * m->cost.page_walk_ns;
}

#endif
