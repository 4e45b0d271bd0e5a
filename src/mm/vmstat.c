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
	[NR_TLB_REMOTE_FLUSH] = "nr_tlb_remote_flush",
	[NR_TLB_REMOTE_FLUSH_RECEIVED] = "nr_tlb_remote_flush_received",
	[NR_TLB_LOCAL_FLUSH_ALL] = "nr_tlb_local_flush_all",
	[NR_TLB_LOCAL_FLUSH_ONE] = "nr_tlb_local_flush_one",
};

void count_vm_events(struct sim *s, enum vm_event_item item, unsigned long delta)
{
	s->cpus[s->e.cpu].vm_events[item] += delta;
}

unsigned long long vm_event_sum(const struct sim *s, enum vm_event_item item)
{
	unsigned long long sum = 0;
	for (int c = 0; c < s->m.nr_cpus; c++)
		sum += s->cpus[c].vm_events[item];
	return sum;
}
