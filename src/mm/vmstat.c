/* /proc/vmstat event counters (mm/vmstat.c names), kept per CPU. */
#include "linux/vm_event.h"
#include "kernel/sim.h"

const char *const vm_event_names[NR_VM_EVENT_ITEMS] = {
	[NUMA_PTE_UPDATES] = "numa_pte_updates",
	[NUMA_HUGE_PTE_UPDATES] = "numa_huge_pte_updates",
	[NUMA_HINT_FAULTS] = "numa_hint_faults",
	[NUMA_HINT_FAULTS_LOCAL] = "numa_hint_faults_local",
	[NUMA_PAGE_MIGRATE] = "numa_pages_migrated",
	[PGMIGRATE_SUCCESS] = "pgmigrate_success",
	[PGMIGRATE_FAIL] = "pgmigrate_fail",
	[THP_MIGRATION_SUCCESS] = "thp_migration_success",
	[THP_MIGRATION_FAIL] = "thp_migration_fail",
	[THP_MIGRATION_SPLIT] = "thp_migration_split",
	[COMPACTMIGRATE_SCANNED] = "compact_migrate_scanned",
	[COMPACTFREE_SCANNED] = "compact_free_scanned",
	[COMPACTISOLATED] = "compact_isolated",
	[COMPACTSTALL] = "compact_stall",
	[COMPACTFAIL] = "compact_fail",
	[COMPACTSUCCESS] = "compact_success",
	[KCOMPACTD_WAKE] = "compact_daemon_wake",
	[KCOMPACTD_MIGRATE_SCANNED] = "compact_daemon_migrate_scanned",
	[KCOMPACTD_FREE_SCANNED] = "compact_daemon_free_scanned",
	[THP_FAULT_ALLOC] = "thp_fault_alloc",
	[THP_FAULT_FALLBACK] = "thp_fault_fallback",
	[THP_SPLIT_PAGE] = "thp_split_page",
	[THP_SPLIT_PAGE_FAILED] = "thp_split_page_failed",
	[THP_DEFERRED_SPLIT_PAGE] = "thp_deferred_split_page",
	[THP_SPLIT_PMD] = "thp_split_pmd",
	[NR_TLB_REMOTE_FLUSH] = "nr_tlb_remote_flush",
	[NR_TLB_REMOTE_FLUSH_RECEIVED] = "nr_tlb_remote_flush_received",
	[NR_TLB_LOCAL_FLUSH_ALL] = "nr_tlb_local_flush_all",
	[NR_TLB_LOCAL_FLUSH_ONE] = "nr_tlb_local_flush_one",
};

void count_vm_events(struct sim *s, enum vm_event_item item, unsigned long delta)
{
	s->cpus[s->e.cpu].vm_events[item] += delta;
}

void count_vm_events_cpu(struct sim *s, int cpu, enum vm_event_item item, unsigned long delta)
{
	s->cpus[cpu].vm_events[item] += delta;
}

/* NR_TLB_REMOTE_FLUSH_RECEIVED counts what irq_tlb_count counts: flush_tlb_func
 * bumps both for every remote flush it handles.  The model keeps it once,
 * in the line of cpu_state a flush round's receiver reads anyway: a round
 * visits every other CPU, and a second line for each was a fifth of a seed
 * run's L1 misses (callgrind's cache simulation). */
unsigned long long vm_event_cpu(const struct sim *s, int cpu, enum vm_event_item item)
{
	if (item == NR_TLB_REMOTE_FLUSH_RECEIVED)
		return s->cpus[cpu].irq_tlb_count;
	return s->cpus[cpu].vm_events[item];
}

unsigned long long vm_event_sum(const struct sim *s, enum vm_event_item item)
{
	unsigned long long sum = 0;
	for (int c = 0; c < s->m.nr_cpus; c++)
		sum += vm_event_cpu(s, c, item);
	return sum;
}
