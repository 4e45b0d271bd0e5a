/* Automatic NUMA balancing, after kernel/sched/fair.c (v6.17; the NUMA
 * section is unchanged in 6.18/6.19 copies): the scanner (task_tick_numa,
 * task_numa_work), scan-period adaptation, the migration filter
 * (should_numa_migrate_memory), fault statistics, placement and NUMA groups.
 *
 * task_numa_work is stepped one PMD (PTE table) at a time so that the
 * scanner's simulated time interleaves with faults on other CPUs.
 * Left out: task moves between nodes (threads are pinned, so
 * numa_migrate_preferred finds no CPU: the sched_stick_numa case),
 * memory tiering, cpusets, preferred_group_nid on non-direct topologies
 * (the model's machines are direct), exiting tasks. */
#include <stdlib.h>

#include "linux/mm.h"
#include "linux/sched/numa_balancing.h"
#include "kernel/sim.h"

#define MAX_SCAN_WINDOW 2560
#define NUMA_PERIOD_SLOTS 10
#define NUMA_PERIOD_THRESHOLD 7
#define ACTIVE_NODE_FRACTION 3
#define LOAD_AVG_MAX 47742
#define GOLDEN_RATIO_32 0x61C88647u

static inline unsigned hash_32(uint32_t val, unsigned bits)
{
	return (val * GOLDEN_RATIO_32) >> (32 - bits);
}

static inline int task_faults_idx(const struct sim *s, enum numa_faults_stats r, int nid, int priv)
{
	return 2 * ((int)r * s->m.nr_nodes + nid) + priv;
}

static unsigned long group_faults_cpu(const struct sim *s, const struct numa_group *g, int nid)
{
	return g->faults[task_faults_idx(s, NUMA_CPU, nid, 0)] +
	       g->faults[task_faults_idx(s, NUMA_CPU, nid, 1)];
}

static unsigned long group_faults(const struct sim *s, const struct task_struct *p, int nid)
{
	const struct numa_group *g = p->numa_group;
	return g->faults[task_faults_idx(s, NUMA_MEM, nid, 0)] +
	       g->faults[task_faults_idx(s, NUMA_MEM, nid, 1)];
}

static unsigned long group_faults_priv(const struct sim *s, const struct numa_group *g, int priv)
{
	unsigned long sum = 0;
	for (int nid = 0; nid < s->m.nr_nodes; nid++)
		sum += g->faults[task_faults_idx(s, NUMA_MEM, nid, priv)];
	return sum;
}

/* ---- scan period ------------------------------------------------------- */

static unsigned int task_nr_scan_windows(struct sim *s, struct task_struct *p)
{
	uint64_t nr_scan_pages = (uint64_t)s->t.scan_size_mb << (20 - PAGE_SHIFT);
	uint64_t rss = p->mm->rss_pages;
	if (!rss)
		rss = nr_scan_pages;
	rss = (rss + nr_scan_pages - 1) / nr_scan_pages * nr_scan_pages;
	return (unsigned int)(rss / nr_scan_pages);
}

unsigned int task_scan_min(struct sim *s, struct task_struct *p)
{
	unsigned int scan_size = s->t.scan_size_mb, windows = 1;
	if (scan_size < MAX_SCAN_WINDOW)
		windows = MAX_SCAN_WINDOW / scan_size;
	unsigned int floor = 1000 / windows;
	unsigned int scan = s->t.scan_period_min_ms / task_nr_scan_windows(s, p);
	return scan > floor ? scan : floor;
}

/* A NUMA group scans more slowly the more tasks share it and the more of
 * its faults are shared. */
static unsigned long group_scaled_period(struct sim *s, struct task_struct *p, unsigned long period)
{
	struct numa_group *ng = p->numa_group;
	if (!ng)
		return period;
	unsigned long shared = group_faults_priv(s, ng, 0), private = group_faults_priv(s, ng, 1);
	period *= (unsigned long)ng->refcount;
	period *= shared + 1;
	period /= private + shared + 1;
	return period;
}

unsigned int task_scan_start(struct sim *s, struct task_struct *p)
{
	unsigned long smin = task_scan_min(s, p);
	unsigned long period = group_scaled_period(s, p, smin);
	return (unsigned int)(period > smin ? period : smin);
}

unsigned int task_scan_max(struct sim *s, struct task_struct *p)
{
	unsigned long smin = task_scan_min(s, p);
	unsigned long smax = s->t.scan_period_max_ms / task_nr_scan_windows(s, p);
	if (smax < smin)
		smax = smin;
	unsigned long period = group_scaled_period(s, p, smax);
	return (unsigned int)(period > smax ? period : smax);
}

/* update_task_scan_period: slow down when faults are mostly private or
 * local, speed up when they are shared and remote; double on failed
 * migrations or no faults.  The code tests private/shared first. */
void update_task_scan_period(struct sim *s, struct task_struct *p,
			     unsigned long shared, unsigned long private)
{
	unsigned long remote = p->numa_faults_locality[0];
	unsigned long local = p->numa_faults_locality[1];
	long diff;

	if (local + shared == 0 || p->numa_faults_locality[2]) {
		unsigned int doubled = p->numa_scan_period << 1;
		p->numa_scan_period = doubled < p->numa_scan_period_max ? doubled
									: p->numa_scan_period_max;
		p->mm->numa_next_scan = jiffies(s) + msecs_to_jiffies(s, p->numa_scan_period);
		return;
	}
	long period_slot = (p->numa_scan_period + NUMA_PERIOD_SLOTS - 1) / NUMA_PERIOD_SLOTS;
	long lr_ratio = (long)((local * NUMA_PERIOD_SLOTS) / (local + remote));
	long ps_ratio = (long)((private * NUMA_PERIOD_SLOTS) / (private + shared));
	if (ps_ratio >= NUMA_PERIOD_THRESHOLD) {
		long slot = ps_ratio - NUMA_PERIOD_THRESHOLD;
		diff = (slot ? slot : 1) * period_slot;
	} else if (lr_ratio >= NUMA_PERIOD_THRESHOLD) {
		long slot = lr_ratio - NUMA_PERIOD_THRESHOLD;
		diff = (slot ? slot : 1) * period_slot;
	} else {
		long ratio = lr_ratio > ps_ratio ? lr_ratio : ps_ratio;
		diff = -(NUMA_PERIOD_THRESHOLD - ratio) * period_slot;
	}
	long period = (long)p->numa_scan_period + diff;
	long lo = task_scan_min(s, p), hi = task_scan_max(s, p);
	p->numa_scan_period = (unsigned int)(period < lo ? lo : period > hi ? hi : period);
	p->numa_faults_locality[0] = p->numa_faults_locality[1] = p->numa_faults_locality[2] = 0;
}

/* ---- initialisation and the tick --------------------------------------- */

void init_numa_balancing_mm(struct sim *s, struct mm_struct *mm)
{
	mm->numa_next_scan = jiffies(s) + msecs_to_jiffies(s, s->t.scan_delay_ms);
	mm->numa_scan_seq = 0;
}

void init_numa_balancing(struct sim *s, struct task_struct *p, bool new_mm)
{
	struct mm_struct *mm = p->mm;

	if (new_mm)
		init_numa_balancing_mm(s, mm);
	p->node_stamp = 0;
	p->numa_scan_seq = mm->numa_scan_seq;
	p->numa_scan_period = s->t.scan_delay_ms;
	p->numa_migrate_retry = 0;
	p->numa_work_queued = false;
	p->total_numa_faults = 0;
	p->numa_group = NULL;
	p->last_task_numa_placement = 0;
	p->last_sum_exec_runtime = 0;
	if (new_mm) {
		p->numa_preferred_nid = NUMA_NO_NODE;
		return;
	}
	/* A new thread: stagger its first scan.  The kernel's min() compares
	 * task_scan_max() in ms with a period in ns, so in practice the
	 * stagger is task_scan_max "ns" plus two ticks.  The parent is the
	 * main thread as it was when it created the threads (at start). */
	struct task_struct parent = { .mm = mm, .numa_scan_period = s->t.scan_delay_ms };
	uint64_t delay = task_scan_max(s, &parent);
	uint64_t other = (uint64_t)parent.numa_scan_period * (uint64_t)mm->mm_users * NSEC_PER_MSEC;
	if (other < delay)
		delay = other;
	p->node_stamp = delay + 2 * tick_ns(s);
}

/* task_tick_numa: every numa_scan_period of CPU time, queue task_numa_work
 * if the mm's next scan is due. */
void task_tick_numa(struct sim *s, struct task_struct *curr)
{
	if (!curr->mm || curr->numa_work_queued)
		return;
	uint64_t now = task_sum_exec_runtime(curr, sim_now(s));
	uint64_t period = (uint64_t)curr->numa_scan_period * NSEC_PER_MSEC;
	if (now > curr->node_stamp + period) {
		if (!curr->node_stamp)
			curr->numa_scan_period = task_scan_start(s, curr);
		curr->node_stamp += period;
		if (jiffies(s) >= curr->mm->numa_next_scan)
			curr->numa_work_queued = true;
	}
}

/* ---- the scanner ------------------------------------------------------- */

void vma_set_access_pid_bit(struct sim *s, struct vm_area_struct *vma)
{
	if (!s->k.vma_scan_filter || !vma->numab.valid)
		return;
	vma->numab.pids_active[1] |= 1ull << hash_32((uint32_t)s->current->pid, 6);
}

/* enum numa_vmaskip_reason, as sched_skip_vma_numa prints it */
enum numa_vmaskip_reason {
	NUMAB_SKIP_UNSUITABLE,
	NUMAB_SKIP_SHARED_RO,
	NUMAB_SKIP_INACCESSIBLE,
	NUMAB_SKIP_SCAN_DELAY,
	NUMAB_SKIP_PID_INACTIVE,
	NUMAB_SKIP_IGNORE_PID,
	NUMAB_SKIP_SEQ_COMPLETED,
};

static bool skip_vma(struct sim *s, struct task_struct *p, struct vm_area_struct *vma,
		     enum numa_vmaskip_reason why)
{
	trace(s, TR_SKIP_VMA, s->e.cpu, p->pid, sim_now(s), 0, (int64_t)p->mm->numa_scan_offset,
	      (int64_t)vma->vm_start, (int64_t)vma->vm_end, why);
	return false;
}

static bool vma_is_accessed(struct sim *s, struct mm_struct *mm, struct vm_area_struct *vma)
{
	struct vma_numab_state *ns = &vma->numab;
	if (mm->numa_scan_seq - ns->start_scan_seq < 2)
		return true;
	uint64_t pids = ns->pids_active[0] | ns->pids_active[1];
	if (pids & (1ull << hash_32((uint32_t)s->current->pid, 6)))
		return true;
	if (mm->numa_scan_offset > vma->vm_start) {
		skip_vma(s, s->current, vma, NUMAB_SKIP_IGNORE_PID); /* traced, not skipped */
		return true;
	}
	if ((uint64_t)mm->numa_scan_seq > (uint64_t)ns->prev_scan_seq + mm->nr_threads)
		return true;
	return false;
}

static void reset_ptenuma_scan(struct mm_struct *mm)
{
	mm->numa_scan_seq++;
	mm->numa_scan_offset = 0;
}

/* The VMA checks of task_numa_work's loop: true if @vma is to be scanned. */
static bool numa_scan_vma_ok(struct sim *s, struct task_struct *p, struct vm_area_struct *vma)
{
	struct mm_struct *mm = p->mm;
	struct numa_scan_walk *w = &p->walk;

	if ((vma->vm_flags & (VM_HUGETLB | VM_MIXEDMAP | VM_PFNMAP)) || !vma->mof)
		return skip_vma(s, p, vma, NUMAB_SKIP_UNSUITABLE);
	if (!vma->store->anon && (vma->vm_flags & (VM_READ | VM_WRITE)) == VM_READ)
		return skip_vma(s, p, vma, NUMAB_SKIP_SHARED_RO);
	if (!(vma->vm_flags & (VM_READ | VM_WRITE | VM_EXEC)))
		return skip_vma(s, p, vma, NUMAB_SKIP_INACCESSIBLE);
	if (!s->k.vma_scan_filter)
		return true;
	struct vma_numab_state *ns = &vma->numab;
	uint64_t now = jiffies(s);
	if (!ns->valid) {
		ns->valid = true;
		ns->start_scan_seq = mm->numa_scan_seq;
		ns->next_scan = now + msecs_to_jiffies(s, s->t.scan_delay_ms);
		ns->pids_active_reset = ns->next_scan + msecs_to_jiffies(s, 4ull * s->t.scan_delay_ms);
		ns->prev_scan_seq = mm->numa_scan_seq - 1;
	}
	if (mm->numa_scan_seq && now < ns->next_scan)
		return skip_vma(s, p, vma, NUMAB_SKIP_SCAN_DELAY);
	if (mm->numa_scan_seq && now > ns->pids_active_reset) {
		ns->pids_active_reset += msecs_to_jiffies(s, 4ull * s->t.scan_delay_ms);
		ns->pids_active[0] = ns->pids_active[1];
		ns->pids_active[1] = 0;
	}
	if (ns->prev_scan_seq == mm->numa_scan_seq) {
		mm->numa_scan_offset = vma->vm_end;
		return skip_vma(s, p, vma, NUMAB_SKIP_SEQ_COMPLETED);
	}
	if (!w->forced && !vma_is_accessed(s, mm, vma)) {
		w->retry_pid_inactive = true;
		return skip_vma(s, p, vma, NUMAB_SKIP_PID_INACTIVE);
	}
	return true;
}

/* Advance the walk to the next VMA to scan at or after w->vma; false if none. */
static bool numa_scan_next_vma(struct sim *s, struct task_struct *p)
{
	struct mm_struct *mm = p->mm;
	struct numa_scan_walk *w = &p->walk;

	for (; w->vma < mm->nr_vmas; w->vma++) {
		struct vm_area_struct *vma = &mm->vmas[w->vma];
		if (vma->vm_end <= w->addr)
			continue;
		if (numa_scan_vma_ok(s, p, vma)) {
			if (w->addr < vma->vm_start)
				w->addr = vma->vm_start;
			return true;
		}
	}
	/* retry once, forced, if VMAs were skipped for PID inactivity */
	if (!w->forced && w->retry_pid_inactive) {
		w->forced = true;
		w->vma = 0;
		w->addr = w->pass_start;
		return numa_scan_next_vma(s, p);
	}
	return false;
}

static void numa_scan_end(struct sim *s, struct task_struct *p, bool reached_end)
{
	struct mm_struct *mm = p->mm;
	if (!reached_end)
		mm->numa_scan_offset = p->walk.addr;
	else
		reset_ptenuma_scan(mm);
	uint64_t now = sim_now(s);
	/* node_stamp += 32 * the CPU time this work took: scanning stays
	 * under about 3% of the task's time */
	p->node_stamp += 32 * (now - p->walk.work_started);
	mm->scan_pass_running = false;
	s->st.pass_ns += (double)(now - mm->scan_pass_start);
	s->st.passes++;
	trace(s, TR_SCAN_PASS, s->e.cpu, p->pid, mm->scan_pass_start, now - mm->scan_pass_start,
	      p->walk.pass_updates, (int64_t)(s->st.scanner_flushes - p->walk.pass_flushes0), 0, 0);
	sim_pass_done(s, (double)(now - mm->scan_pass_start), p->numa_scan_period);
}

/* task_numa_work, the pass's start: time gate, claim the period, budget,
 * first VMA.  Returns true if a pass started (steps follow). */
bool task_numa_work(struct sim *s, struct task_struct *p)
{
	struct mm_struct *mm = p->mm;
	uint64_t now = jiffies(s);

	p->numa_work_queued = false;
	if (now < mm->numa_next_scan)
		return false;
	if (p->numa_scan_period == 0) {
		p->numa_scan_period_max = task_scan_max(s, p);
		p->numa_scan_period = task_scan_start(s, p);
	}
	/* the cmpxchg on numa_next_scan: this thread scans this period */
	mm->numa_next_scan = now + msecs_to_jiffies(s, p->numa_scan_period);
	p->node_stamp += 2 * tick_ns(s);

	struct numa_scan_walk *w = &p->walk;
	*w = (struct numa_scan_walk){ 0 };
	w->pages = (long)s->t.scan_size_mb << (20 - PAGE_SHIFT);
	w->pass_flushes0 = s->st.scanner_flushes;
	w->virtpages = w->pages * 8;
	w->work_started = sim_now(s);
	w->addr = mm->numa_scan_offset;
	mm->scan_pass_running = true;
	mm->scan_pass_start = sim_now(s);

	/* resume at numa_scan_offset; wrap if nothing lies after it */
	bool any = false;
	for (int i = 0; i < mm->nr_vmas; i++)
		if (mm->vmas[i].vm_end > w->addr)
			any = true;
	if (!any) {
		reset_ptenuma_scan(mm);
		w->addr = 0;
	}
	w->pass_start = w->addr;
	if (!numa_scan_next_vma(s, p)) {
		numa_scan_end(s, p, true);
		return false;
	}
	return true;
}

static void numa_chunk_open(struct sim *s, struct task_struct *p, struct vm_area_struct *vma)
{
	struct numa_scan_walk *w = &p->walk;
	uint64_t end = w->addr + ((uint64_t)w->pages << PAGE_SHIFT);
	end = (end + PMD_SIZE - 1) & ~(PMD_SIZE - 1);
	if (end > vma->vm_end)
		end = vma->vm_end;
	w->start = w->addr;
	w->end = end;
	w->chunk_updated = 0;
	w->huge_updated = 0;
	tlb_gather_mmu(&w->tlb, p->mm);
	charge(s, COST_SCAN, s->m.cost.gather_ns);
	w->in_gather = true;
	p->mm->scan_vma = vma;
	p->mm->scan_chunk_start = w->start;
	p->mm->scan_chunk_end = end;
}

/* The end of change_prot_numa for the chunk, first half: the counters and
 * tlb_finish_mmu's flush. */
static void numa_chunk_flush(struct sim *s, struct task_struct *p)
{
	struct numa_scan_walk *w = &p->walk;
	struct mmu_gather *tlb = &w->tlb;

	if (w->huge_updated)
		count_vm_events(s, NUMA_HUGE_PTE_UPDATES, (unsigned long)w->huge_updated);
	if (w->chunk_updated > 0)
		count_vm_events(s, NUMA_PTE_UPDATES, (unsigned long)w->chunk_updated);
	w->pass_updates += w->chunk_updated;
	bool full = mm_tlb_flush_nested(tlb->mm) ||
		    (tlb->cleared_ptes &&
		     ((tlb->end - tlb->start) >> PAGE_SHIFT) > (uint64_t)s->m.tlb_single_page_flush_ceiling);
	if (full)
		s->st.scanner_flushes++;
	tlb_finish_mmu_flush(tlb);
}

/* Second half, once the flush is done: tlb_flush_pending drops, and
 * task_numa_work's budget.  False when the pass is over. */
static bool numa_chunk_close(struct sim *s, struct task_struct *p, struct vm_area_struct *vma)
{
	struct numa_scan_walk *w = &p->walk;
	struct mmu_gather *tlb = &w->tlb;

	tlb_finish_mmu_done(tlb);
	w->in_gather = false;
	p->mm->scan_vma = NULL;
	s->st.numa_gathers++;
	s->st.numa_gather_ns += (double)(sim_now(s) - tlb->opened_at);
	trace(s, TR_GATHER, s->e.cpu, p->pid, tlb->opened_at, sim_now(s) - tlb->opened_at,
	      (int64_t)w->start, (int64_t)w->end, 0, 0);

	long len = (long)((w->end - w->start) >> PAGE_SHIFT);
	if (w->chunk_updated)
		w->pages -= len;
	w->virtpages -= len;
	if (w->pages <= 0 || w->virtpages <= 0)
		return false; /* goto out: the VMA is not marked scanned */
	if (w->end >= vma->vm_end && s->k.vma_scan_filter)
		vma->numab.prev_scan_seq = p->mm->numa_scan_seq;
	return true;
}

/* One step: one PMD of the current chunk (opening the chunk's gather
 * first), then the chunk's close in two steps of its own -- tlb_finish_mmu's
 * flush, then the drop of tlb_flush_pending and the budget -- so the count
 * stays raised until the last PTE table and the flush are done.  Returns
 * false when the pass is over. */
bool task_numa_work_step(struct sim *s, struct task_struct *p)
{
	struct mm_struct *mm = p->mm;
	struct numa_scan_walk *w = &p->walk;
	struct vm_area_struct *vma = &mm->vmas[w->vma];

	if (!w->in_gather)
		numa_chunk_open(s, p, vma);
	if (w->addr < w->end) {
		w->chunk_updated += change_pmd_step(&w->tlb, vma, w->addr, w->end, MM_CP_PROT_NUMA,
						    &w->huge_updated);
		w->addr = (w->addr & ~(PMD_SIZE - 1)) + PMD_SIZE;
		if (w->addr > w->end)
			w->addr = w->end;
		return true; /* the next step changes the next table or closes the chunk */
	}
	if (!w->finishing) {
		numa_chunk_flush(s, p);
		w->finishing = true;
		return true;
	}
	w->finishing = false;
	if (!numa_chunk_close(s, p, vma)) {
		numa_scan_end(s, p, false);
		return false;
	}
	if (w->addr < vma->vm_end)
		return true; /* next chunk of the same VMA */
	if (w->forced) {
		numa_scan_end(s, p, false); /* a forced pass scans one VMA */
		return false;
	}
	w->vma++;
	if (!numa_scan_next_vma(s, p)) {
		numa_scan_end(s, p, true);
		return false;
	}
	return true;
}

/* ---- the migration filter ---------------------------------------------- */

bool should_numa_migrate_memory(struct sim *s, struct task_struct *p, struct folio folio,
				int src_nid, int dst_cpu)
{
	int dst_nid = s->cpus[dst_cpu].node;
	int this_cpupid = cpu_pid_to_cpupid(dst_cpu, p->pid);
	int last_cpupid = (int)folio.fs->pg[folio.idx].last_cpupid;
	struct numa_group *ng = p->numa_group;

	folio.fs->pg[folio.idx].last_cpupid = (uint32_t)this_cpupid; /* folio_xchg_last_cpupid */

	/* early in the task's life, first or private faults migrate at once */
	if ((p->numa_preferred_nid == NUMA_NO_NODE || p->numa_scan_seq <= 4) &&
	    (cpupid_pid_unset(last_cpupid) || cpupid_match_pid(p, last_cpupid)))
		return true;
	/* two-stage filter: the previous fault must come from this node too */
	if (!cpupid_pid_unset(last_cpupid) &&
	    s->cpus[cpupid_to_cpu(last_cpupid) % s->m.nr_cpus].node != dst_nid)
		return false;
	if (cpupid_match_pid(p, last_cpupid))
		return true;
	if (!ng)
		return true;
	if (group_faults_cpu(s, ng, dst_nid) > group_faults_cpu(s, ng, src_nid) * ACTIVE_NODE_FRACTION)
		return true;
	return group_faults_cpu(s, ng, dst_nid) * group_faults(s, p, src_nid) * 3 >
	       group_faults_cpu(s, ng, src_nid) * group_faults(s, p, dst_nid) * 4;
}

/* ---- fault statistics, groups, placement ------------------------------- */

static void numa_group_count_active_nodes(struct sim *s, struct numa_group *g)
{
	unsigned long max_faults = 0;
	int active = 0;
	for (int nid = 0; nid < s->m.nr_nodes; nid++)
		if (group_faults_cpu(s, g, nid) > max_faults)
			max_faults = group_faults_cpu(s, g, nid);
	for (int nid = 0; nid < s->m.nr_nodes; nid++)
		if (group_faults_cpu(s, g, nid) * ACTIVE_NODE_FRACTION > max_faults)
			active++;
	g->max_faults_cpu = max_faults;
	g->active_nodes = active;
}

static bool numa_is_active_node(const struct sim *s, int nid, const struct numa_group *g)
{
	return group_faults_cpu(s, g, nid) * ACTIVE_NODE_FRACTION > g->max_faults_cpu;
}

void task_numa_group(struct sim *s, struct task_struct *p, int cpupid, int flags, int *priv)
{
	int nstats = 4 * s->m.nr_nodes;
	if (!p->numa_group) {
		struct numa_group *g = calloc(1, sizeof(*g));
		if (!g)
			return;
		g->refcount = 1;
		g->active_nodes = 1;
		g->gid = p->pid;
		for (int i = 0; i < nstats; i++)
			g->faults[i] = p->numa_faults[i];
		g->total_faults = p->total_numa_faults;
		g->nr_tasks = 1;
		p->numa_group = g;
	}
	int cpu = cpupid_to_cpu(cpupid);
	if (cpu >= s->m.nr_cpus)
		return;
	struct task_struct *tsk = s->cpus[cpu].curr;
	if (!tsk || !cpupid_match_pid(tsk, cpupid))
		return;
	struct numa_group *grp = tsk->numa_group, *my = p->numa_group;
	if (!grp || grp == my)
		return;
	if (my->nr_tasks > grp->nr_tasks)
		return;
	/* the kernel breaks ties by address; the model by gid, deterministically */
	if (my->nr_tasks == grp->nr_tasks && my->gid > grp->gid)
		return;
	bool join = tsk->mm == p->mm || (flags & TNF_SHARED);
	*priv = !join;
	if (!join)
		return;
	for (int i = 0; i < nstats; i++) {
		my->faults[i] -= p->numa_faults[i];
		grp->faults[i] += p->numa_faults[i];
	}
	my->total_faults -= p->total_numa_faults;
	grp->total_faults += p->total_numa_faults;
	my->nr_tasks--;
	grp->nr_tasks++;
	grp->refcount++;
	p->numa_group = grp;
	if (--my->refcount == 0)
		free(my);
}

void task_numa_placement(struct sim *s, struct task_struct *p)
{
	struct numa_group *ng = p->numa_group;
	unsigned long fault_types[2] = { 0, 0 }, max_faults = 0;
	int max_nid = NUMA_NO_NODE;
	int seq = p->mm->numa_scan_seq;

	if (p->numa_scan_seq == seq)
		return;
	p->numa_scan_seq = seq;
	p->numa_scan_period_max = task_scan_max(s, p);

	unsigned long total_faults = p->numa_faults_locality[0] + p->numa_faults_locality[1];
	uint64_t now = sim_now(s), runtime, period;
	if (p->last_task_numa_placement) {
		period = now - p->last_task_numa_placement;
		runtime = task_sum_exec_runtime(p, now) - p->last_sum_exec_runtime;
	} else {
		runtime = period = LOAD_AVG_MAX; /* a task that always runs */
	}
	p->last_sum_exec_runtime = task_sum_exec_runtime(p, now);
	p->last_task_numa_placement = now;

	for (int nid = 0; nid < s->m.nr_nodes; nid++) {
		unsigned long faults = 0, gfaults = 0;
		for (int priv = 0; priv < 2; priv++) {
			int mem = task_faults_idx(s, NUMA_MEM, nid, priv);
			int membuf = task_faults_idx(s, NUMA_MEMBUF, nid, priv);
			int cpu = task_faults_idx(s, NUMA_CPU, nid, priv);
			int cpubuf = task_faults_idx(s, NUMA_CPUBUF, nid, priv);
			long diff = (long)p->numa_faults[membuf] - (long)(p->numa_faults[mem] / 2);
			fault_types[priv] += p->numa_faults[membuf];
			p->numa_faults[membuf] = 0;
			uint64_t f_weight = (runtime << 16) / (period + 1);
			f_weight = f_weight * p->numa_faults[cpubuf] / (total_faults + 1);
			long f_diff = (long)f_weight - (long)(p->numa_faults[cpu] / 2);
			p->numa_faults[cpubuf] = 0;
			p->numa_faults[mem] += (unsigned long)diff;
			p->numa_faults[cpu] += (unsigned long)f_diff;
			faults += p->numa_faults[mem];
			p->total_numa_faults += (unsigned long)diff;
			if (ng) {
				ng->faults[mem] += (unsigned long)diff;
				ng->faults[cpu] += (unsigned long)f_diff;
				ng->total_faults += (unsigned long)diff;
				gfaults += ng->faults[mem];
			}
		}
		unsigned long f = ng ? gfaults : faults;
		if (f > max_faults) {
			max_faults = f;
			max_nid = nid;
		}
	}
	if (ng)
		numa_group_count_active_nodes(s, ng);
	if (max_faults && max_nid != p->numa_preferred_nid)
		p->numa_preferred_nid = max_nid; /* sched_setnuma */
	update_task_scan_period(s, p, fault_types[0], fault_types[1]);
}

/* numa_migrate_preferred: threads are pinned, so the search for a CPU on
 * the preferred node finds none (sched_stick_numa): the retry time is set
 * and a grouped task's preferred node becomes its current one, as
 * task_numa_migrate does when it finds nothing. */
static void numa_migrate_preferred(struct sim *s, struct task_struct *p)
{
	if (p->numa_preferred_nid == NUMA_NO_NODE || !p->numa_faults)
		return;
	uint64_t interval = msecs_to_jiffies(s, 1000);
	uint64_t alt = msecs_to_jiffies(s, p->numa_scan_period) / 16;
	if (alt < interval)
		interval = alt;
	p->numa_migrate_retry = jiffies(s) + interval;
	if (s->cpus[p->cpu].node == p->numa_preferred_nid)
		return;
	/* task_numa_migrate found no CPU (pinned): a grouped task settles for
	 * its current node; then sched_stick_numa, -EAGAIN */
	if (p->numa_group)
		p->numa_preferred_nid = s->cpus[p->cpu].node;
}

void task_numa_fault(struct sim *s, int last_cpupid, int mem_node, int pages, int flags)
{
	struct task_struct *p = s->current;
	int cpu_node = s->cpus[p->cpu].node;
	int local = !!(flags & TNF_FAULT_LOCAL);
	int priv;

	if (!(s->t.numa_balancing & NUMA_BALANCING_NORMAL) || !p->mm)
		return;
	if (!p->numa_faults) {
		p->numa_faults = calloc((size_t)(8 * s->m.nr_nodes), sizeof(unsigned long));
		if (!p->numa_faults)
			return;
		p->total_numa_faults = 0;
		p->numa_faults_locality[0] = p->numa_faults_locality[1] = p->numa_faults_locality[2] = 0;
	}
	if ((uint32_t)last_cpupid == LAST_CPUPID_UNSET) {
		priv = 1;
	} else {
		priv = cpupid_match_pid(p, last_cpupid);
		if (!priv && !(flags & TNF_NO_GROUP))
			task_numa_group(s, p, last_cpupid, flags, &priv);
	}
	struct numa_group *ng = p->numa_group;
	if (!priv && !local && ng && ng->active_nodes > 1 && numa_is_active_node(s, cpu_node, ng) &&
	    numa_is_active_node(s, mem_node, ng))
		local = 1;
	if (jiffies(s) > p->numa_migrate_retry) {
		task_numa_placement(s, p);
		numa_migrate_preferred(s, p);
	}
	if (flags & TNF_MIGRATED)
		p->numa_pages_migrated += (unsigned long)pages;
	if (flags & TNF_MIGRATE_FAIL)
		p->numa_faults_locality[2] += (unsigned long)pages;
	p->numa_faults[task_faults_idx(s, NUMA_MEMBUF, mem_node, priv)] += (unsigned long)pages;
	p->numa_faults[task_faults_idx(s, NUMA_CPUBUF, cpu_node, priv)] += (unsigned long)pages;
	p->numa_faults_locality[local] += (unsigned long)pages;
}
