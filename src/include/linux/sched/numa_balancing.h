/* kernel/sched/fair.c NUMA balancing entry points and TNF flags. */
#ifndef NUMASIM_NUMA_BALANCING_H
#define NUMASIM_NUMA_BALANCING_H

#include <stdbool.h>

#include "linux/mm_types.h"
#include "linux/sched.h"

#define TNF_MIGRATED 0x01
#define TNF_NO_GROUP 0x02
#define TNF_SHARED 0x04
#define TNF_FAULT_LOCAL 0x08
#define TNF_MIGRATE_FAIL 0x10

#define NUMA_BALANCING_NORMAL 0x1
#define NUMA_BALANCING_MEMORY_TIERING 0x2

struct sim;

static inline int cpu_pid_to_cpupid(int cpu, int pid) { return (cpu << 8) | (pid & 0xff); }
static inline int cpupid_to_pid(int cpupid) { return cpupid & 0xff; }
static inline int cpupid_to_cpu(int cpupid) { return (int)((unsigned)cpupid >> 8); }
static inline bool cpupid_pid_unset(int cpupid) { return cpupid_to_pid(cpupid) == 0xff; }
static inline bool cpupid_match_pid(const struct task_struct *p, int cpupid)
{
	return (p->pid & 0xff) == cpupid_to_pid(cpupid);
}

/* task_numa_group_id: the numa_group's id, its first task's pid (0: none). */
static inline int task_numa_group_id(const struct task_struct *p)
{
	return p->numa_group ? p->numa_group->gid : 0;
}

void task_tick_numa(struct sim *s, struct task_struct *curr);
/* task_numa_work: start a pass (returns false if this task does not scan);
 * task_numa_work_step: one PTE table; returns false when the pass is over. */
bool task_numa_work(struct sim *s, struct task_struct *p);
bool task_numa_work_step(struct sim *s, struct task_struct *p);
unsigned int task_scan_min(struct sim *s, struct task_struct *p);
unsigned int task_scan_max(struct sim *s, struct task_struct *p);
unsigned int task_scan_start(struct sim *s, struct task_struct *p);
void update_task_scan_period(struct sim *s, struct task_struct *p,
			     unsigned long shared, unsigned long private);
void task_numa_fault(struct sim *s, int last_cpupid, int mem_node, int pages, int flags);
/* task_numa_fault for private local faults drawn in bulk (fair.c). */
void task_numa_fault_retry_at(struct sim *s, struct task_struct *p, uint64_t j);
void task_numa_fault_bulk(struct sim *s, struct task_struct *p, int nid, unsigned long pages);
void task_numa_placement(struct sim *s, struct task_struct *p);
void task_numa_group(struct sim *s, struct task_struct *p, int cpupid, int flags, int *priv);
bool should_numa_migrate_memory(struct sim *s, struct task_struct *p, struct folio folio,
				int src_nid, int dst_cpu);
void init_numa_balancing(struct sim *s, struct task_struct *p, bool new_mm);
/* The first user of an mm (init_numa_balancing's mm_users == 1 part). */
void init_numa_balancing_mm(struct sim *s, struct mm_struct *mm);
void vma_set_access_pid_bit(struct sim *s, struct vm_area_struct *vma);
/* vma_set_access_pid_bit for task @p's fault (a fault drawn in bulk, outside
 * @p's own step). */
void vma_set_access_pid_bit_of(struct sim *s, struct vm_area_struct *vma, const struct task_struct *p);

#endif
