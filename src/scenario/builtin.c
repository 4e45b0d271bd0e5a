/* Built-in scenarios, kept as INI text and loaded with the same parser as
 * files, so `numasim show NAME > f.ini; numasim run f.ini` is the same run.
 * Lines stay under inih's 200-character limit. */
#include <stddef.h>
#include <string.h>

#include "scenario/scenario.h"

/* The seed, without its title line: the BRIEF 4 variations below are this
 * text with the keys they change appended (a later key wins). */
#define SEED_BODY \
	"# Every key is optional: a missing key keeps its default.  Any field of the\n" \
	"# cost model (machine/costs.c) can be overridden in a [costs] section, e.g.\n" \
	"#   [costs]\n" \
	"#   ipi_handler_ns = 900\n" \
	"\n" \
	"[machine]\n" \
	"# Two sockets with one NUMA node each (no SNC/NPS split).\n" \
	"sockets = 2\n" \
	"nodes_per_socket = 1\n" \
	"# 96 cores per node with SMT-2: 2 x 1 x 96 x 2 = 384 CPUs.\n" \
	"cores_per_node = 96\n" \
	"threads_per_core = 2\n" \
	"# Optional cross-check: must equal the product above.\n" \
	"cpus = 384\n" \
	"# 512 GiB of DRAM per node, 1 TiB in all.\n" \
	"mem_per_node_gib = 512\n" \
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
	"kernel.numa_balancing = 1\n" \
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
	"transparent_hugepage.enabled = never\n" \
	"transparent_hugepage.defrag = madvise\n" \
	"\n" \
	"[workload]\n" \
	"# The published workload is described only as 120 GiB anonymous, 384 threads,\n" \
	"# memory-heavy, 4 KiB pages.  This pattern is chosen to be consistent with the\n" \
	"# published figures (docs/calibration.md gives the reasoning):\n" \
	"# - one process; its main thread waits while 384 workers run, one per CPU;\n" \
	"main_thread_works = false\n" \
	"processes = 1\n" \
	"threads = 384\n" \
	"memory_gib = 120\n" \
	"# - 94.4% of memory is thread-private slices, first touched by their owner\n" \
	"#   (local), taking 98.85% of each thread's touches;\n" \
	"private_fraction = 0.944\n" \
	"private_access_share = 0.9885\n" \
	"private_first_touch = local\n" \
	"# - the other 5.6% is shared by all threads, interleaved over the nodes, and\n" \
	"#   spread between the slices (2 MiB at a time) so that the scanner, which\n" \
	"#   needs ~8 minutes per sweep, meets it at a steady rate: ~1,800 migrations/s;\n" \
	"shared_first_touch = interleave\n" \
	"spread_shared = true\n" \
	"# - the shared pages are touched ~12 times a second each, so a page made\n" \
	"#   PROT_NONE is touched again within tens of ms: inside a 90 ms scan pass,\n" \
	"#   mostly after a 7 ms one (42% vs 3.5% of migrations see the pending flush);\n" \
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
	SEED_BODY
	"\n"
	"# ---- the variation: PMD-mapped 2 MiB THP -------------------------------------\n"
	"# Every 2 MiB of the workload is one THP mapped by one PMD: the scanner makes a\n"
	"# PMD PROT_NONE (change_huge_pmd), a hint fault migrates all 512 pages at once\n"
	"# through a PMD migration entry, whose flush is immediate and never batched.\n"
	"[tunables]\n"
	"transparent_hugepage.enabled = always\n";

static const char seed_thp_split_text[] =
	"# numasim scenario \"seed-thp-split\": the seed with partially mapped 2 MiB THPs.\n"
	SEED_BODY
	"\n"
	"# ---- the variation: partially mapped THPs, split during NUMA migration -------\n"
	"# Every 2 MiB is first touched as a THP, then the program unmaps\n"
	"# (MADV_DONTNEED) the last quarter of each: the PMD is split, the THP is\n"
	"# PTE-mapped, partially mapped and on the deferred split queue.  A hint fault\n"
	"# that migrates it splits it (migrate_pages_batch, v6.10+) and migrates its 384\n"
	"# mapped pieces as their own batch: one batched flush on the base and with\n"
	"# single-folio-v2, one flush per piece with single-folio-v1.\n"
	"[tunables]\n"
	"transparent_hugepage.enabled = always\n"
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
					     NULL };
	_Static_assert(sizeof(names) / sizeof(names[0]) == NR_BUILTINS + 1,
		       "every builtin needs its name in names[]");
	return names;
}
