/* Built-in scenarios, kept as INI text and loaded with the same parser as
 * files, so `numasim show NAME > f.ini; numasim run f.ini` is the same run.
 * Lines stay under inih's 200-character limit. */
#include <stddef.h>
#include <string.h>

#include "scenario/scenario.h"

/* The seed, without its title line.  The BRIEF 4 variations are this text
 * with the keys they change: SMT (@smt threads a core, @cpus in all),
 * @threads workers, their slices' first touch @private_ft and
 * transparent_hugepage.enabled @thp given here (a scenario gives each key
 * once), anything else appended in a section of its own. */
#define SEED_BODY SEED_BODY_THP("never")
#define SEED_BODY_THP(thp) SEED_BODY_VARIANT("2", "384", "384", "local", thp)
#define SEED_BODY_VARIANT(smt, cpus, threads, private_ft, thp) \
	SEED_BODY_MACHINE(smt, cpus, threads, private_ft, thp, \
			  "# 512 GiB of DRAM per node, 1 TiB in all.\n" \
			  "mem_per_node_gib = 512\n", "1", "")
/* ... and the seed's machine and balancing mode: @mem the memory lines of
 * [machine], @mode kernel.numa_balancing, @tunables more [tunables] lines. */
#define SEED_BODY_MACHINE(smt, cpus, threads, private_ft, thp, mem, mode, tunables) \
	"# Every key is optional: a missing key keeps its default.  Any field of the\n" \
	"# cost model (machine/costs.c) can be overridden in a [costs] section, e.g.\n" \
	"#   [costs]\n" \
	"#   ipi_handler_ns = 900\n" \
	"\n" \
	"[machine]\n" \
	"# Two sockets with one NUMA node each (no SNC/NPS split).\n" \
	"sockets = 2\n" \
	"nodes_per_socket = 1\n" \
	"# 96 cores per node, SMT threads_per_core: 2 x 1 x 96 x SMT CPUs.\n" \
	"cores_per_node = 96\n" \
	"threads_per_core = " smt "\n" \
	"# Optional cross-check: must equal the product above.\n" \
	"cpus = " cpus "\n" \
	mem \
	"# TLB shootdowns by IPIs to mm_cpumask, no INVLPGB.\n" \
	"# One of: x86-ipi, x86-invlpgb, arm64, riscv.\n" \
	"flush_engine = x86-ipi\n" \
	"# Second-level TLB entries for 4 KiB pages (what a full flush throws away).\n" \
	"tlb_entries = 1536\n" \
	"# CONFIG_HZ: the scheduler tick drives task_numa_work.\n" \
	"hz = 250\n" \
	"# SLIT distances (10 = local): between nodes of one socket, and across sockets.\n" \
	"distance_same_socket = 12\n" \
	"distance_remote = 21\n" \
	"\n" \
	"[tunables]\n" \
	"# The kernel's defaults, written out.  /proc/sys/kernel/numa_balancing:\n" \
	"# 0 off, 1 NUMA balancing, 2 memory tiering, 3 both.\n" \
	"kernel.numa_balancing = " mode "\n" \
	tunables \
	"# /sys/kernel/debug/sched/numa_balancing/*\n" \
	"numa_balancing.scan_delay_ms = 1000\n" \
	"numa_balancing.scan_period_min_ms = 1000\n" \
	"numa_balancing.scan_period_max_ms = 60000\n" \
	"numa_balancing.scan_size_mb = 256\n" \
	"# /sys/kernel/debug/x86/tlb_single_page_flush_ceiling: above this many pages\n" \
	"# a range flush becomes a full flush.\n" \
	"x86.tlb_single_page_flush_ceiling = 33\n" \
	"# /sys/kernel/mm/transparent_hugepage/: the published workload ran on 4 KiB\n" \
	"# pages, so no THP.  Each mTHP size has its own file,\n" \
	"# transparent_hugepage.hugepages-<N>kB.enabled (16 .. 2048 kB: always,\n" \
	"# inherit, madvise, never); 2048 kB inherits 'enabled' by default.\n" \
	"transparent_hugepage.enabled = " thp "\n" \
	"transparent_hugepage.defrag = madvise\n" \
	"\n" \
	"[workload]\n" \
	"# The published workload is described only as 120 GiB anonymous, 384 threads,\n" \
	"# memory-heavy, 4 KiB pages.  This pattern is chosen to be consistent with the\n" \
	"# published figures (docs/calibration.md gives the reasoning, and the figures\n" \
	"# below hold for these values only: change a key and measure again):\n" \
	"# - one process; its main thread waits while its workers run, one per CPU;\n" \
	"main_thread_works = false\n" \
	"processes = 1\n" \
	"threads = " threads "\n" \
	"# Anonymous memory per process, GiB: its threads' slices and its shared region.\n" \
	"memory_gib = 120\n" \
	"# - 94.4% of memory is thread-private slices, first touched by their owner\n" \
	"#   (the seed: local), taking 98.85% of each thread's touches;\n" \
	"private_fraction = 0.944\n" \
	"private_access_share = 0.9885\n" \
	"private_first_touch = " private_ft "\n" \
	"# - the rest is shared by all threads, interleaved over the nodes, and spread\n" \
	"#   between the slices (2 MiB at a time) so that the scanner meets it at a\n" \
	"#   steady rate (here: ~8 minutes a sweep, ~1,800 migrations/s);\n" \
	"shared_first_touch = interleave\n" \
	"spread_shared = true\n" \
	"# - a shared page made PROT_NONE is touched again within tens of ms, inside a\n" \
	"#   long scan pass, mostly after a short one (here: ~12 touches a second;\n" \
	"#   42% vs 3.5% of migrations see the pending flush);\n" \
	"# - no separate hot set.\n" \
	"hot_fraction = 0\n" \
	"hot_access_share = 0\n" \
	"# Compute per operation besides its one memory access, ns.\n" \
	"cpu_ns_per_op = 100\n" \
	"# false: each process maps its own private anonymous memory.\n" \
	"map_shared = false\n" \
	"# 0: one VMA per region; N: split regions into N MiB VMAs.\n" \
	"vma_mib = 0\n" \
	"\n" \
	"[kernel]\n" \
	"# A base and optional patches, e.g. v7.3+single-folio-v2 (see 'numasim kernels').\n" \
	"name = v7.3\n" \
	"\n" \
	"[run]\n" \
	"# Simulated seconds.\n" \
	"duration_s = 180\n" \
	"# Seed of every random stream; the same seed gives the same run.\n" \
	"seed = 1\n"

static const char seed_text[] =
	"# numasim scenario \"seed\": the two-socket x86 server of the original report.\n"
	SEED_BODY;

/* The seed's variations of BRIEF 4: the seed, then what each changes.  Same
 * machine, same workload, same calibration: only the keys below differ. */
static const char seed_mthp64k_text[] =
	"# numasim scenario \"seed-mthp64k\": the seed with 64 KiB mTHP.\n"
	SEED_BODY
	"\n"
	"# ---- the variation: 64 KiB multi-size THP ------------------------------------\n"
	"# Every anonymous fault whose 64 KiB block lies in the VMA takes a 64 KiB folio\n"
	"# (order 4, mapped by 16 PTEs); the PMD size stays off.  The scanner hints all\n"
	"# 16 PTEs, one fault restores them all (numa_rebuild_large_mapping) or migrates\n"
	"# the whole folio, and a migration batches its 16 PTEs' flush.  Bases before\n"
	"# v6.10 (mthp-numa) leave such folios alone; before v6.8 the size does not exist.\n"
	"[tunables]\n"
	"transparent_hugepage.hugepages-64kB.enabled = always\n";

static const char seed_thp_text[] =
	"# numasim scenario \"seed-thp\": the seed with PMD-mapped 2 MiB THP.\n"
	"# The variation: transparent_hugepage.enabled = always.  Every 2 MiB of the\n"
	"# workload is one THP mapped by one PMD: the scanner makes a PMD PROT_NONE\n"
	"# (change_huge_pmd), a hint fault migrates all 512 pages at once through a\n"
	"# PMD migration entry, whose flush is immediate and never batched.\n"
	SEED_BODY_THP("always");

static const char seed_thp_split_text[] =
	"# numasim scenario \"seed-thp-split\": the seed with partially mapped 2 MiB THPs\n"
	"# (transparent_hugepage.enabled = always, and the keys at the end).\n"
	SEED_BODY_THP("always")
	"\n"
	"# ---- the variation: partially mapped THPs, split during NUMA migration -------\n"
	"# Every 2 MiB is first touched as a THP, then the program unmaps\n"
	"# (MADV_DONTNEED) the last quarter of each: the PMD is split, the THP is\n"
	"# PTE-mapped, partially mapped and on the deferred split queue.  A hint fault\n"
	"# that migrates it splits it (migrate_pages_batch, v6.10+) and migrates its 384\n"
	"# mapped pieces as their own batch: one batched flush on the base and with\n"
	"# single-folio-v2, one flush per piece with single-folio-v1.\n"
	"[workload]\n"
	"# share of each large folio's pages: unmapped, which ones (tail, head, stride)\n"
	"thp_partial = 0.25\n"
	"thp_partial_op = unmap\n"
	"thp_partial_pattern = tail\n";

static const char seed_compact_text[] =
	"# numasim scenario \"seed-compact\": the seed with compaction forced every 30 s.\n"
	SEED_BODY
	"\n"
	"# ---- the variation: echo 1 > /proc/sys/vm/compact_memory every 30 s ----------\n"
	"# compact_nodes() compacts each node in turn (MIGRATE_SYNC, MR_COMPACTION):\n"
	"# the workload's pages next to free holes are migrated within their node, in\n"
	"# clusters of 32 through migrate_pages, so their unmap flushes and the\n"
	"# tlb_flush_batched bumps meet the NUMA scanner's.  The holes are those the\n"
	"# NUMA migrations leave behind.\n"
	"[run]\n"
	"compact_memory_every_s = 30\n";

/* "small": the seed shrunk to 16 CPUs for tests; @title and @engine vary. */
#define SMALL_TEXT(title, what, engine)                                              \
	"# numasim scenario \"" title "\": " what "\n"                                 \
	"# The seed scenario shrunk to 2 sockets x 1 node x 4 cores x 2 threads,\n"    \
	"# 4 GiB per node and 1 GiB of workload, for tests.  See 'numasim show seed'\n" \
	"# for what every key means.\n"                                                \
	"\n"                                                                           \
	"[machine]\n"                                                                  \
	"sockets = 2\n"                                                                \
	"nodes_per_socket = 1\n"                                                       \
	"cores_per_node = 4\n"                                                         \
	"threads_per_core = 2\n"                                                       \
	"cpus = 16\n"                                                                  \
	"mem_per_node_gib = 4\n"                                                       \
	"flush_engine = " engine "\n"                                                  \
	"tlb_entries = 1536\n"                                                         \
	"hz = 250\n"                                                                   \
	"distance_same_socket = 12\n"                                                  \
	"distance_remote = 21\n"                                                       \
	"\n"                                                                           \
	"[tunables]\n"                                                                 \
	"kernel.numa_balancing = 1\n"                                                  \
	"numa_balancing.scan_delay_ms = 1000\n"                                        \
	"numa_balancing.scan_period_min_ms = 1000\n"                                   \
	"numa_balancing.scan_period_max_ms = 60000\n"                                  \
	"numa_balancing.scan_size_mb = 256\n"                                          \
	"x86.tlb_single_page_flush_ceiling = 33\n"                                     \
	"\n"                                                                           \
	"[workload]\n"                                                                 \
	"# A small stress workload for tests, not calibrated: half the memory shared \n" \
	"# by all threads and interleaved, so migrations and flushes are frequent.\n"  \
	"processes = 1\n"                                                              \
	"threads = 16\n"                                                               \
	"# GiB per process.\n"                                                         \
	"memory_gib = 1\n"                                                             \
	"private_fraction = 0.5\n"                                                     \
	"private_access_share = 0.5\n"                                                 \
	"hot_fraction = 0.1\n"                                                         \
	"hot_access_share = 0.8\n"                                                     \
	"cpu_ns_per_op = 100\n"                                                        \
	"shared_first_touch = interleave\n"                                            \
	"private_first_touch = local\n"                                                \
	"map_shared = false\n"                                                         \
	"vma_mib = 0\n"                                                                \
	"\n"                                                                           \
	"[kernel]\n"                                                                   \
	"name = v7.3\n"                                                                \
	"\n"                                                                           \
	"[run]\n"                                                                      \
	"duration_s = 20\n"                                                            \
	"seed = 1\n"


/* ---- benchmarks (docs/benchmarks.md maps each onto its source) ---------- */

/* A 2-node, 128-core x86 machine, the class autonuma-benchmark results are
 * published on: 2 sockets of 64 cores with SMT-2, 256 CPUs, flushing with
 * IPIs (no INVLPGB: an Intel Xeon such as the 64-core 8592+; an AMD EPYC of
 * Zen 3 or later flushes with INVLPGB from v6.15: set
 * machine.flush_engine = x86-invlpgb). */
#define MACHINE_2N128                                                                   \
	"[machine]\n"                                                                   \
	"# 2 sockets x 1 node x 64 cores x SMT-2 = 256 CPUs, 256 GiB per node.\n"       \
	"sockets = 2\n"                                                                 \
	"nodes_per_socket = 1\n"                                                        \
	"cores_per_node = 64\n"                                                         \
	"threads_per_core = 2\n"                                                        \
	"mem_per_node_gib = 256\n"                                                      \
	"# IPI shootdowns: no INVLPGB (x86-invlpgb for an AMD part on v6.15+).\n"      \
	"flush_engine = x86-ipi\n"                                                      \
	"# A Golden Cove core's second-level TLB: 2048 entries.\n"                     \
	"tlb_entries = 2048\n"                                                          \
	"hz = 250\n"                                                                    \
	"distance_remote = 21\n"                                                        \
	"# 8 channels of DDR5-5600 per socket (358 GB/s peak, ~250 sustained); 4 UPI\n" \
	"# links at 20 GT/s, ~150 GB/s each way.\n"                                     \
	"mem_bw_gbs = 250\n"                                                            \
	"link_bw_gbs = 300\n"                                                           \
	"\n"

#define KERNEL_RUN(kernel, secs)                                                        \
	"[kernel]\n"                                                                    \
	"name = " kernel "\n"                                                           \
	"\n"                                                                            \
	"[run]\n"                                                                       \
	"# The most simulated seconds; a fixed-work run ends when its work is done.\n" \
	"duration_s = " secs "\n"                                                       \
	"seed = 1\n"

/* autonuma-benchmark: every access is a bzero of a 4 KiB page: ~300 ns of
 * one core's streaming stores (~13 GB/s) and 4 KiB of memory traffic, so
 * that all threads at once ask far more than the machine's bandwidth and
 * the bandwidth model (machine.mem_bw_gbs, link_bw_gbs) sets their pace,
 * by where their pages are. */
#define AUTONUMA_COMMON                                                                 \
	"# A page written by bzero: 300 ns of stores, 4 KiB of traffic.\n"              \
	"cpu_ns_per_op = 300\n"                                                         \
	"bytes_per_op = 4096\n"                                                         \
	"hot_fraction = 0\n"                                                            \
	"hot_access_share = 0\n"                                                        \
	"access = uniform\n"                                                            \
	"# main() waits in pthread_join while the threads work.\n"                      \
	"main_thread_works = false\n"

static const char numa01_text[] =
	"# numasim scenario \"numa01\": autonuma-benchmark numa01 (Andrea Arcangeli).\n"
	"# Two processes (fork before malloc), each with NCPUS/2 threads writing the\n"
	"# whole of its own 3 GiB, 1 + 50 times; elapsed time is the result.\n"
	"\n" MACHINE_2N128
	"[workload]\n"
	"processes = 2\n"
	"threads = 128\n"
	"# GiB per process: each has its own 3 GiB buffer, shared by its threads.\n"
	"memory_gib = 3\n"
	"private_fraction = 0\n"
	"private_access_share = 0\n"
	"# Every thread zeroes the whole buffer first: a race, pages land where the\n"
	"# winning thread runs, both nodes alike (interleave stands for it).\n"
	"shared_first_touch = interleave\n"
	"# (1 + 50) x 3 GiB / 4 KiB = 40.1 M pages written per thread.\n"
	"work_mops = 40.1\n"
	AUTONUMA_COMMON "\n" KERNEL_RUN("v7.3", "600");

static const char numa01_thread_alloc_text[] =
	"# numasim scenario \"numa01_THREAD_ALLOC\": autonuma-benchmark numa01 built\n"
	"# with THREAD_ALLOC: after the shared first sweep each thread writes its own\n"
	"# 3 GiB / threads slice 1000 times.\n"
	"\n" MACHINE_2N128
	"[workload]\n"
	"processes = 2\n"
	"threads = 128\n"
	"# GiB per process, all of it in the threads' private slices (24 MiB each).\n"
	"memory_gib = 3\n"
	"private_fraction = 1\n"
	"private_access_share = 1\n"
	"# The first sweep is the same race over the whole buffer as numa01.\n"
	"private_first_touch = interleave\n"
	"# 3 GiB / 4 KiB (the first sweep) + 1000 x 6144 pages = 6.93 M per thread.\n"
	"work_mops = 6.93\n"
	AUTONUMA_COMMON "\n" KERNEL_RUN("v7.3", "300");

#define NUMA02_TEXT(title, what, threads, mops)                                         \
	"# numasim scenario \"" title "\": autonuma-benchmark " title ": " what "\n"     \
	"# One process, one 1 GiB buffer zeroed by main() on its node, then each\n"     \
	"# thread writes its private 1 GiB / threads slice 800 times.\n"                \
	"\n" MACHINE_2N128                                                              \
	"[workload]\n"                                                                  \
	"processes = 1\n"                                                               \
	"threads = " threads "\n"                                                       \
	"memory_gib = 1\n"                                                              \
	"private_fraction = 1\n"                                                        \
	"private_access_share = 1\n"                                                    \
	"# main() touched it all first, on node 0 (bind() is empty unless HARD_BIND).\n" \
	"private_first_touch = node0\n"                                                 \
	"# 800 x (1 GiB / threads) / 4 KiB pages per thread.\n"                          \
	"work_mops = " mops "\n"                                                        \
	AUTONUMA_COMMON "\n" KERNEL_RUN("v7.3", "120")

/* pmbench: one map shared by all threads, pages drawn from a distribution,
 * one 4-byte access each plus ~50 ns of rdtsc timing around it. */
#define PMBENCH_TEXT(title, pattern, shape)                                               \
	"# numasim scenario \"" title "\": pmbench -p " pattern ", NCPUS threads on one\n" \
	"# shared map, timed (LKP: 300 s; here 60 s).  Throughput is accesses/s.\n"     \
	"\n" MACHINE_2N128                                                              \
	"[workload]\n"                                                                  \
	"processes = 1\n"                                                               \
	"threads = 256\n"                                                               \
	"# GiB per process: the map (-m, -s alike); LKP maps 75% of RAM, scaled down.\n" \
	"memory_gib = 32\n"                                                             \
	"private_fraction = 0\n"                                                        \
	"private_access_share = 0\n"                                                    \
	"hot_fraction = 0\n"                                                            \
	"hot_access_share = 0\n"                                                        \
	"# --cold: each page is first touched by whichever thread draws it first.\n"    \
	"shared_first_touch = interleave\n"                                             \
	"access = " pattern "\n"                                                        \
	shape                                                                           \
	"cpu_ns_per_op = 50\n"                                                          \
	"main_thread_works = false\n"                                                   \
	"\n" KERNEL_RUN("v7.3", "60")

static const char anon_cow_rand_mt_text[] =
	"# numasim scenario \"anon-cow-rand-mt\": vm-scalability case-anon-cow-rand-mt\n"
	"# (usemem -t NCPUS --prealloc --prefault --random): the parent populates the\n"
	"# region, forks, and the child's threads write random words all over it,\n"
	"# timed.  Each page's first write in the child is a copy-on-write fault that\n"
	"# allocates the child's copy where the writing thread runs.\n"
	"\n" MACHINE_2N128
	"[workload]\n"
	"# The child: NCPUS threads on one region, no private part.\n"
	"processes = 1\n"
	"threads = 256\n"
	"# GiB per process: unit_size (MemTotal / 4 upstream), scaled down.\n"
	"memory_gib = 16\n"
	"private_fraction = 0\n"
	"private_access_share = 0\n"
	"hot_fraction = 0\n"
	"hot_access_share = 0\n"
	"# The child's copies: each page where a random writer runs, both nodes\n"
	"# alike (interleave stands for it); the copy faults are not timed.\n"
	"shared_first_touch = interleave\n"
	"# The parent's populated original stays on its node, untouched.\n"
	"eat_node = 0\n"
	"eat_gib = 16\n"
	"access = uniform\n"
	"# One 8-byte store per page drawn, and lrand48_r.\n"
	"cpu_ns_per_op = 30\n"
	"main_thread_works = false\n"
	"\n" KERNEL_RUN("v7.3", "60");

/* migratepages: a running pmbench whose pages migrate_pages(2) moves from
 * node 0 to node 1 and back every 10 s, balancing off (Huang Ying's test of
 * the batched migration flush, 7e12beb8ca2a). */
#define MIGRATEPAGES_TEXT(title, what, engine, kernel)                                    \
	"# numasim scenario \"" title "\": " what "\n"                                  \
	"# pmbench (uniform, 64 threads, 4 GiB) runs on node 0's memory while\n"        \
	"# 'migratepages PID 0 1' and 'migratepages PID 1 0' alternate every 10 s.\n"  \
	"\n"                                                                            \
	"[machine]\n"                                                                   \
	"sockets = 2\n"                                                                 \
	"nodes_per_socket = 1\n"                                                        \
	"cores_per_node = 32\n"                                                         \
	"threads_per_core = 1\n"                                                        \
	"mem_per_node_gib = 64\n"                                                       \
	"flush_engine = " engine "\n"                                                   \
	"\n"                                                                            \
	"[tunables]\n"                                                                  \
	"# The measurement is of the system call: NUMA balancing stays out.\n"          \
	"kernel.numa_balancing = 0\n"                                                   \
	"\n"                                                                            \
	"[workload]\n"                                                                  \
	"processes = 1\n"                                                               \
	"threads = 64\n"                                                                \
	"memory_gib = 4\n"                                                              \
	"private_fraction = 0\n"                                                        \
	"private_access_share = 0\n"                                                    \
	"hot_fraction = 0\n"                                                            \
	"hot_access_share = 0\n"                                                        \
	"shared_first_touch = node0\n"                                                  \
	"access = uniform\n"                                                            \
	"cpu_ns_per_op = 50\n"                                                          \
	"main_thread_works = false\n"                                                   \
	"migrate_call = migrate_pages\n"                                                \
	"migrate_process = 0\n"                                                         \
	"migrate_from = 0\n"                                                            \
	"migrate_to = 1\n"                                                              \
	"migrate_at_s = 2\n"                                                            \
	"migrate_every_s = 10\n"                                                        \
	"migrate_back_and_forth = true\n"                                               \
	"\n" KERNEL_RUN(kernel, "60")

static const char seed_remote_text[] =
	"# numasim scenario \"seed-remote\": the seed with every thread's slice first\n"
	"# touched on the other socket (threads local, memory remote): how long NUMA\n"
	"# balancing takes to bring it home, and the throughput after.\n"
	SEED_BODY_VARIANT("2", "384", "384", "remote", "never");

static const char seed_192_text[] =
	"# numasim scenario \"seed-192\": the seed's machine with SMT off (192 CPUs)\n"
	"# and 192 threads on the same 120 GiB.\n"
	SEED_BODY_VARIANT("1", "192", "192", "local", "never");

/* The seed on a tiered machine (issue 32): half of each socket's memory
 * DRAM, half a CXL expander, both NUMA balancing and tiering on. */
static const char seed_tiered_text[] =
	"# numasim scenario \"seed-tiered\": the seed on DRAM + CXL, balancing and tiering.\n"
	"# The seed's machine and workload with each socket's memory half DRAM, half a\n"
	"# CXL type-3 expander (a CPU-less node), 96 GiB of each in all: the 120 GiB\n"
	"# workload first touches its socket's DRAM down to the low watermark, then the\n"
	"# other socket's (nearer by SLIT than CXL), then CXL.  kernel.numa_balancing = 3:\n"
	"# NUMA balancing places the DRAM pages as on the seed, memory tiering promotes\n"
	"# the CXL pages its hint faults find hot (one folio per migrate_pages call:\n"
	"# the seed's flush question again) and kswapd demotes cold ones to make room\n"
	"# (lists of up to 32 folios, one batched flush each).\n"
	SEED_BODY_MACHINE("2", "384", "384", "local", "never",
			  "# 48 GiB of DRAM per node ...\n"
			  "mem_per_node_gib = 48\n"
			  "# ... and a 48 GiB CXL node on each socket (one memory type: docs/model.md).\n"
			  "memory_nodes = 0,1\n"
			  "memory_node_gib = 48\n",
			  "3",
			  "# /sys/kernel/mm/numa/demotion_enabled: kswapd may demote to CXL.\n"
			  "numa.demotion_enabled = true\n");

/* Memory tiering scenarios (issue 32): CXL-attached CPU-less nodes,
 * kernel.numa_balancing = 2 (tiering only) and demotion on. */
static const char tier_phases_text[] =
	"# numasim scenario \"tier-phases\": a hot set that moves, promoted and demoted.\n"
	"# 32 threads each work on their own 0.75 GiB slice for ~20 s, then sleep ~20 s\n"
	"# (exponential phases, each thread its own): the slices of the threads at work\n"
	"# are the hot set, and it moves as threads sleep and wake.  DRAM (2 x 8 GiB)\n"
	"# holds the working half of the 24 GiB, not all of it: a waking thread's slice,\n"
	"# demoted to CXL while it slept, is promoted back through hint faults, and\n"
	"# kswapd demotes the slices of the threads asleep to make room.\n"
	"\n"
	"[machine]\n"
	"sockets = 2\n"
	"nodes_per_socket = 1\n"
	"cores_per_node = 8\n"
	"threads_per_core = 2\n"
	"mem_per_node_gib = 8\n"
	"# One CXL expander per socket (nodes 2 and 3), 16 GiB each; latency and\n"
	"# bandwidth are the defaults (docs/calibration.md, costs 1.7).\n"
	"memory_nodes = 0,1\n"
	"memory_node_gib = 16\n"
	"\n"
	"[tunables]\n"
	"# 2: NUMA_BALANCING_MEMORY_TIERING only (DRAM pages are not hinted).\n"
	"kernel.numa_balancing = 2\n"
	"numa.demotion_enabled = true\n"
	"\n"
	"[workload]\n"
	"processes = 1\n"
	"threads = 32\n"
	"memory_gib = 24\n"
	"private_fraction = 1\n"
	"private_access_share = 1\n"
	"hot_fraction = 0\n"
	"hot_access_share = 0\n"
	"cpu_ns_per_op = 500\n"
	"private_first_touch = local\n"
	"# mean run and sleep phases, ms\n"
	"run_ms = 20000\n"
	"sleep_ms = 20000\n"
	"\n"
	"[run]\n"
	"duration_s = 120\n";

/* TPP's setting (Maruf et al., ASPLOS 2023; the LKML cover letter of
 * 2021-11-24): one socket whose DRAM is a fifth of its memory, the rest
 * CXL, under a cache-like workload; @hot its hot share of memory. */
#define TPP_TEXT(title, what, hot)                                                   \
	"# numasim scenario \"" title "\": " what "\n"                                 \
	"# TPP's setting: DRAM is a fifth of the machine's memory (16 GiB, the rest a\n" \
	"# 64 GiB CXL node), and a cache-like process of 64 threads keeps 64 GiB, of\n"  \
	"# which a scattered " hot " of the pages (its hot set) takes 99% of the touches.\n" \
	"# First touch fills DRAM down to its low watermark, the rest lands on CXL;\n"   \
	"# tiering promotes the hot pages its scanner finds on CXL (hint-fault latency\n" \
	"# under the hot threshold), kswapd demotes cold ones to make room.\n"          \
	"\n"                                                                             \
	"[machine]\n"                                                                    \
	"sockets = 1\n"                                                                  \
	"nodes_per_socket = 1\n"                                                         \
	"cores_per_node = 32\n"                                                          \
	"threads_per_core = 2\n"                                                         \
	"mem_per_node_gib = 16\n"                                                        \
	"memory_nodes = 0\n"                                                             \
	"memory_node_gib = 64\n"                                                         \
	"\n"                                                                             \
	"[tunables]\n"                                                                   \
	"kernel.numa_balancing = 2\n"                                                    \
	"numa.demotion_enabled = true\n"                                                 \
	"\n"                                                                             \
	"[workload]\n"                                                                   \
	"processes = 1\n"                                                                \
	"threads = 64\n"                                                                 \
	"memory_gib = 64\n"                                                              \
	"private_fraction = 0\n"                                                         \
	"private_access_share = 0\n"                                                     \
	"hot_fraction = " hot "\n"                                                       \
	"hot_access_share = 0.99\n"                                                      \
	"# a request: ~1 us of compute besides its one memory access\n"                  \
	"cpu_ns_per_op = 1000\n"                                                         \
	"shared_first_touch = local\n"                                                   \
	"\n"                                                                             \
	"[run]\n"                                                                        \
	"duration_s = 120\n"

struct builtin {
	const char *name;
	const char *summary;
	const char *text;
};

static const struct builtin builtins[] = {
	{ "seed", "2 sockets, 384 CPUs, x86 IPIs, 1 process x 384 threads on 120 GiB, 180 s",
	  seed_text },
	{ "seed-mthp64k", "the seed with 64 KiB mTHP (transparent_hugepage.hugepages-64kB)",
	  seed_mthp64k_text },
	{ "seed-thp", "the seed with PMD-mapped 2 MiB THP", seed_thp_text },
	{ "seed-thp-split", "the seed with 2 MiB THPs a quarter unmapped, split when migrated",
	  seed_thp_split_text },
	{ "seed-compact", "the seed with /proc/sys/vm/compact_memory written every 30 s",
	  seed_compact_text },
	{ "small", "the seed shrunk to 16 CPUs, 2 x 4 GiB, 16 threads on 1 GiB, 20 s (tests)",
	  SMALL_TEXT("small", "a 16-CPU x86 machine flushing with IPIs.", "x86-ipi") },
	{ "small-arm64", "small, with arm64 broadcast TLBI instead of IPIs",
	  SMALL_TEXT("small-arm64", "small, flushing with arm64 broadcast TLBI.", "arm64") },
	{ "small-invlpgb", "small, with x86 INVLPGB broadcast flushes",
	  SMALL_TEXT("small-invlpgb", "small, flushing with x86 INVLPGB.", "x86-invlpgb") },
	{ "seed-remote", "the seed, each slice first touched on the other socket", seed_remote_text },
	{ "seed-tiered", "the seed on 2 x (48 GiB DRAM + 48 GiB CXL), balancing and tiering (mode 3)",
	  seed_tiered_text },
	{ "tier-phases", "32 threads' slices hot and cold in turn: promotion and demotion, 120 s",
	  tier_phases_text },
	{ "tpp-cache", "TPP's 1:4 DRAM:CXL, a 64 GiB cache whose 15% hot set fits DRAM, 120 s",
	  TPP_TEXT("tpp-cache", "a cache whose hot set fits DRAM.", "0.15") },
	{ "tpp-cache-thrash", "tpp-cache with a 40% hot set, larger than DRAM: tiers thrash, 120 s",
	  TPP_TEXT("tpp-cache-thrash", "a cache whose hot set is larger than DRAM.", "0.4") },
	{ "seed-192", "the seed with SMT off: 192 CPUs, 192 threads", seed_192_text },
	{ "numa01", "autonuma-benchmark numa01: 2 x 128 threads sharing 3 GiB each, 256 CPUs",
	  numa01_text },
	{ "numa01_THREAD_ALLOC", "autonuma-benchmark numa01_THREAD_ALLOC: private 24 MiB slices",
	  numa01_thread_alloc_text },
	{ "numa02", "autonuma-benchmark numa02: 256 threads, private slices of 1 GiB on node 0",
	  NUMA02_TEXT("numa02", "NCPUS threads.", "256", "0.8192") },
	{ "numa02_SMT", "autonuma-benchmark numa02_SMT: 128 threads, slices of 1 GiB on node 0",
	  NUMA02_TEXT("numa02_SMT", "NCPUS/2 threads.", "128", "1.6384") },
	{ "pmbench-uniform", "pmbench uniform: 256 threads on one 32 GiB map, 60 s",
	  PMBENCH_TEXT("pmbench-uniform", "uniform", "") },
	{ "pmbench-normal", "pmbench normal (stdev 1/8 of the map), 256 threads, 60 s",
	  PMBENCH_TEXT("pmbench-normal", "normal",
		       "# -e: stdev in pages, an eighth of the 8 Mi-page map.\naccess_shape = 1048576\n") },
	{ "pmbench-pareto", "pmbench pareto (alpha 1.161, 80-20), 256 threads, 60 s",
	  PMBENCH_TEXT("pmbench-pareto", "pareto", "# -e 1.161: the 80-20 rule.\naccess_shape = 1.161\n") },
	{ "anon-cow-rand-mt", "vm-scalability anon-cow-rand-mt: 256 threads, random writes, 16 GiB",
	  anon_cow_rand_mt_text },
	{ "migratepages", "migrate_pages(2) back and forth under pmbench, x86, 64 CPUs",
	  MIGRATEPAGES_TEXT("migratepages", "a 64-CPU x86 machine flushing with IPIs.", "x86-ipi",
			    "v7.3") },
	{ "migratepages-arm64", "migratepages on arm64 before batched unmap flushes (v6.4)",
	  MIGRATEPAGES_TEXT("migratepages-arm64", "arm64 (TLBI broadcast), v6.4: no batched unmap.",
			    "arm64", "v6.4") },
};

#define NR_BUILTINS (sizeof(builtins) / sizeof(builtins[0]))

static const struct builtin *find(const char *name)
{
	for (size_t i = 0; i < NR_BUILTINS; i++)
		if (!strcmp(builtins[i].name, name))
			return &builtins[i];
	return NULL;
}

const char *scenario_builtin_text(const char *name)
{
	const struct builtin *b = find(name);
	return b ? b->text : NULL;
}

const char *scenario_builtin_summary(const char *name)
{
	const struct builtin *b = find(name);
	return b ? b->summary : NULL;
}

const char *const *scenario_builtin_names(void)
{
	static const char *const names[] = { "seed", "seed-mthp64k", "seed-thp", "seed-thp-split",
					     "seed-compact", "small", "small-arm64", "small-invlpgb",
					     "seed-remote", "seed-tiered", "tier-phases",
					     "tpp-cache", "tpp-cache-thrash", "seed-192", "numa01", "numa01_THREAD_ALLOC",
					     "numa02", "numa02_SMT", "pmbench-uniform", "pmbench-normal",
					     "pmbench-pareto", "anon-cow-rand-mt", "migratepages",
					     "migratepages-arm64", NULL };
	_Static_assert(sizeof(names) / sizeof(names[0]) == NR_BUILTINS + 1,
		       "every builtin needs its name in names[]");
	return names;
}
