/* The /proc/vmstat event counters the model keeps, per CPU as the kernel does
 * (count_vm_event is a this_cpu increment), summed for reports. */
#ifndef NUMASIM_VM_EVENT_H
#define NUMASIM_VM_EVENT_H

enum vm_event_item {
	NUMA_PTE_UPDATES,
	NUMA_HUGE_PTE_UPDATES,
	NUMA_HINT_FAULTS,
	NUMA_HINT_FAULTS_LOCAL,
	NUMA_PAGE_MIGRATE,
	PGMIGRATE_SUCCESS,
	PGMIGRATE_FAIL,
	THP_MIGRATION_SUCCESS,
	THP_MIGRATION_FAIL,
	THP_MIGRATION_SPLIT,
	COMPACTMIGRATE_SCANNED,
	COMPACTFREE_SCANNED,
	COMPACTISOLATED,
	COMPACTSTALL,
	COMPACTFAIL,
	COMPACTSUCCESS,
	KCOMPACTD_WAKE,
	KCOMPACTD_MIGRATE_SCANNED,
	KCOMPACTD_FREE_SCANNED,
	THP_FAULT_ALLOC,
	THP_FAULT_FALLBACK,
	THP_SPLIT_PAGE,
	THP_SPLIT_PAGE_FAILED,
	THP_DEFERRED_SPLIT_PAGE,
	THP_SPLIT_PMD,
	NR_TLB_REMOTE_FLUSH,
	NR_TLB_REMOTE_FLUSH_RECEIVED,
	NR_TLB_LOCAL_FLUSH_ALL,
	NR_TLB_LOCAL_FLUSH_ONE,
	NR_VM_EVENT_ITEMS
};

extern const char *const vm_event_names[NR_VM_EVENT_ITEMS];

struct sim;
void count_vm_events(struct sim *s, enum vm_event_item item, unsigned long delta);
/* count_vm_events on @cpu's counters, for events counted outside a step
 * (first touch at set-up). */
void count_vm_events_cpu(struct sim *s, int cpu, enum vm_event_item item, unsigned long delta);
static inline void count_vm_event(struct sim *s, enum vm_event_item item)
{
	count_vm_events(s, item, 1);
}
unsigned long long vm_event_sum(const struct sim *s, enum vm_event_item item);
/* One CPU's count of @item. */
unsigned long long vm_event_cpu(const struct sim *s, int cpu, enum vm_event_item item);

#endif
