/* Automatic NUMA balancing, after kernel/sched/fair.c (v6.17; the NUMA
 * section is unchanged in 6.18/6.19 copies): the scanner (task_tick_numa,
 * task_numa_work), scan-period adaptation, the migration filter
 * (should_numa_migrate_memory), fault statistics, placement and NUMA groups.
 *
 * task_numa_work is stepped one PMD (PTE table) at a time so that the
 * scanner's simulated time interleaves with faults on other CPUs.  NUMA
 * placement moves tasks (task_numa_migrate, below); the fair class's
 * wake-up placement and load balancing close the file.
 * Left out: memory tiering, cpusets, preferred_group_nid on non-direct
 * topologies (the model's machines are direct), exiting tasks. */
#include <stdlib.h>

#include "kernel/sched/sched.h"
#include "linux/mm.h"
#include "linux/tlb_oracle.h"
#include "linux/sched/numa_balancing.h"

#define NICE_0_LOAD 1024
#define SCHED_MIGRATION_COST_NS 500000ull /* sysctl_sched_migration_cost */
#define NODE_RECLAIM_DISTANCE 30
#define NUMA_IMBALANCE_MIN 2

static bool core_idle(const struct sim *s, int cpu);
static long adjust_numa_imbalance(long imbalance, int dst_running, unsigned imb_numa_nr);

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
 * migrations or no faults.  The code tests private/shared first.
 *
 * The slow-down path returned early, keeping the locality counts (and so
 * the failed-migration count: every later placement doubled again) until
 * e81ee0630837 "sched/fair: Reset NUMA fault locality after scan period
 * update" (tip sched/core September 2026, for v7.4; Cc stable, in
 * 6.12.117) sent it through the reset as well: numa_locality_reset, no
 * base of ours has it, the locality-reset patch adds it. */
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
		if (s->k.numa_locality_reset)
			p->numa_faults_locality[0] = p->numa_faults_locality[1] =
				p->numa_faults_locality[2] = 0;
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
	vma_set_access_pid_bit_of(s, vma, s->current);
}

void vma_set_access_pid_bit_of(struct sim *s, struct vm_area_struct *vma, const struct task_struct *p)
{
	if (!s->k.vma_scan_filter || !vma->numab.valid)
		return;
	vma->numab.pids_active[1] |= 1ull << hash_32((uint32_t)p->pid, 6);
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
	struct sim *s = mm->sim;
	/* a new sequence: each task's next fault runs task_numa_placement */
	user_touch_bulk_all(s, mm, s->e.t0, true);
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
	user_touch_bulk_all(s, mm, s->e.t0, false); /* the access PIDs so far */
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
	if (s->oracle)
		oracle_ctx_set(s, "task_numa_work");
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
	/* tlb_flush's stride: pages if a PTE was cleared, else PMDs */
	unsigned stride = tlb->cleared_ptes ? PAGE_SHIFT : PMD_SHIFT;
	bool full = mm_tlb_flush_nested(tlb->mm) ||
		    ((tlb->cleared_ptes || tlb->cleared_pmds) &&
		     ((tlb->end - tlb->start) >> stride) > (uint64_t)s->m.tlb_single_page_flush_ceiling);
	if (full)
		s->st.scanner_flushes++;
	if (s->oracle)
		oracle_ctx_set(s, "task_numa_work");
	tlb_finish_mmu_flush(tlb);
}

/* Second half, once the flush is done: tlb_flush_pending drops, and
 * task_numa_work's budget.  False when the pass is over. */
static bool numa_chunk_close(struct sim *s, struct task_struct *p, struct vm_area_struct *vma)
{
	struct numa_scan_walk *w = &p->walk;
	struct mmu_gather *tlb = &w->tlb;

	if (s->oracle)
		oracle_ctx_set(s, "task_numa_work");
	tlb_finish_mmu_done(tlb);
	w->in_gather = false;
	p->mm->scan_vma = NULL;
	s->st.numa_gathers++;
	s->st.numa_gather_ns += (double)(sim_now(s) - tlb->opened_at);
	uint64_t us = (sim_now(s) - tlb->opened_at) / 1000;
	int bucket = us ? 64 - __builtin_clzll(us) : 0;
	s->gather_hist[bucket < NR_GATHER_HIST ? bucket : NR_GATHER_HIST - 1]++;
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

/* ---- memory tiering: promotion (v6.12; c574bbe91703 v5.18, hot-page
 * selection 33024536bafd, rate limit c6833e10008f, threshold adjust
 * c959924b0dc5: v6.0) ----------------------------------------------------- */

#define NUMA_MIGRATION_ADJUST_STEPS 16
#define MSEC_PER_SEC 1000u
#define ENOUGH_WMARK_PAGES (1ull << (30 - PAGE_SHIFT)) /* 1 GiB */

/* pgdat_free_space_enough: the fast node has more free than its promo
 * watermark plus max(1 GiB, 1/16 of the node): promote every hinted page,
 * hot or not. */
static bool pgdat_free_space_enough(const struct sim *s, int nid)
{
	uint64_t enough = machine_node_pages(&s->m, nid) >> 4;
	if (enough < ENOUGH_WMARK_PAGES)
		enough = ENOUGH_WMARK_PAGES;
	return s->node_free_pages[nid] > promo_wmark_pages(&s->pgdat[nid]) + enough;
}

/* numa_hint_fault_latency: from the scan that made the folio PROT_NONE
 * (its recorded access time) to this fault, in ms; the fault records its
 * own time, so a second fault before the next scan measures from this one. */
static unsigned numa_hint_fault_latency(struct sim *s, struct folio folio)
{
	unsigned now = jiffies_to_msecs(s, jiffies(s));
	unsigned last = folio_xchg_access_time(folio, now);
	return (now - last) & PAGE_ACCESS_TIME_MASK;
}

/* numa_promotion_rate_limit: count the candidate; true (do not promote)
 * once this one-second window's candidates reach @rate_limit pages. */
static bool numa_promotion_rate_limit(struct sim *s, struct pglist_data *pg,
				      uint64_t rate_limit, unsigned long nr)
{
	unsigned now = jiffies_to_msecs(s, jiffies(s));
	pg->stat[PGPROMOTE_CANDIDATE] += nr;
	uint64_t nr_cand = pg->stat[PGPROMOTE_CANDIDATE];
	if (now - pg->nbp_rl_start > MSEC_PER_SEC) {
		pg->nbp_rl_start = now;
		pg->nbp_rl_nr_cand = nr_cand;
	}
	return nr_cand - pg->nbp_rl_nr_cand >= rate_limit;
}

/* numa_promotion_adjust_threshold: once a scan_period_max, compare the
 * period's candidates with what the rate limit allows in it: 10% more
 * lowers the threshold a step (1/16 of twice the default, not below one
 * step), 10% fewer raises it (up to twice the default). */
static void numa_promotion_adjust_threshold(struct sim *s, struct pglist_data *pg,
					    uint64_t rate_limit, unsigned ref_th)
{
	unsigned now = jiffies_to_msecs(s, jiffies(s)), th_period = s->t.scan_period_max_ms;
	if (now - pg->nbp_th_start <= th_period)
		return;
	pg->nbp_th_start = now;
	uint64_t ref_cand = rate_limit * th_period / MSEC_PER_SEC;
	uint64_t nr_cand = pg->stat[PGPROMOTE_CANDIDATE];
	uint64_t diff_cand = nr_cand - pg->nbp_th_nr_cand;
	unsigned unit_th = ref_th * 2 / NUMA_MIGRATION_ADJUST_STEPS;
	unsigned th = pg->nbp_threshold ? pg->nbp_threshold : ref_th;
	if (diff_cand > ref_cand * 11 / 10)
		th = th >= 2 * unit_th ? th - unit_th : unit_th; /* max(th - unit, unit) */
	else if (diff_cand < ref_cand * 9 / 10)
		th = th + unit_th < ref_th * 2 ? th + unit_th : ref_th * 2;
	pg->nbp_th_nr_cand = nr_cand;
	pg->nbp_threshold = th;
}

/* should_numa_migrate_memory's tiering path: a slow-tier folio moves by
 * how hot it is, not by who touched it. */
static bool should_promote(struct sim *s, struct folio folio, int dst_nid)
{
	struct pglist_data *pg = &s->pgdat[dst_nid];
	unsigned long nr = folio_nr_pages(folio);
	if (pgdat_free_space_enough(s, dst_nid)) {
		pg->nbp_threshold = 0; /* the workload changed: reset the threshold */
		if (s->k.promote_candidate_nrl)
			pg->stat[PGPROMOTE_CANDIDATE_NRL] += nr;
		return true;
	}
	unsigned def_th = s->t.hot_threshold_ms;
	uint64_t rate_limit = (uint64_t)s->t.promote_rate_limit_mbps << (20 - PAGE_SHIFT);
	numa_promotion_adjust_threshold(s, pg, rate_limit, def_th);
	unsigned th = pg->nbp_threshold ? pg->nbp_threshold : def_th;
	if (numa_hint_fault_latency(s, folio) >= th)
		return false;
	return !numa_promotion_rate_limit(s, pg, rate_limit, nr);
}

bool should_numa_migrate_memory(struct sim *s, struct task_struct *p, struct folio folio,
				int src_nid, int dst_cpu)
{
	/* a CPU's node always has memory here (no memoryless nodes) */
	if (folio_use_access_time(s, folio_nid(folio)))
		return should_promote(s, folio, s->cpus[dst_cpu].node);
	int dst_nid = s->cpus[dst_cpu].node;
	int this_cpupid = cpu_pid_to_cpupid(dst_cpu, p->pid);
	int last_cpupid = (int)folio.fs->pg[folio.idx].last_cpupid;
	struct numa_group *ng = p->numa_group;

	folio.fs->pg[folio.idx].last_cpupid = (uint32_t)this_cpupid; /* folio_xchg_last_cpupid */

	/* a slow-tier folio's field may hold a scan time from an earlier
	 * tiering mode (v5.18): not a cpupid of this machine, no migration */
	if (!numa_tiering_mode(s) && !node_is_toptier(s, src_nid) &&
	    cpupid_to_cpu(last_cpupid) >= s->m.nr_cpus)
		return false;

	/* early in the task's life, first or private faults migrate at once */
	if ((p->numa_preferred_nid == NUMA_NO_NODE || p->numa_scan_seq <= 4) &&
	    (cpupid_pid_unset(last_cpupid) || cpupid_match_pid(p, last_cpupid)))
		return true;
	/* two-stage filter: the previous fault must come from this node too
	 * (a set cpupid names a CPU of the machine: this function wrote it) */
	VM_BUG_ON(!cpupid_pid_unset(last_cpupid) && cpupid_to_cpu(last_cpupid) >= s->m.nr_cpus);
	if (!cpupid_pid_unset(last_cpupid) &&
	    s->cpus[cpupid_to_cpu(last_cpupid)].node != dst_nid)
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

/* numa_nearest_node(@nid, N_CPU): the node with CPUs nearest @nid, the
 * lowest-numbered of equals. */
static int nearest_cpu_node(const struct sim *s, int nid)
{
	int best = 0;
	for (int n = 1; n < s->m.nr_cpu_nodes; n++)
		if (s->m.distance[nid][n] < s->m.distance[nid][best])
			best = n;
	return best;
}

/* Over the nodes with CPUs (for_each_node_state(nid, N_CPU)): the CPU
 * faults of a CPU-less node are always 0. */
static void numa_group_count_active_nodes(struct sim *s, struct numa_group *g)
{
	unsigned long max_faults = 0;
	int active = 0;
	for (int nid = 0; nid < s->m.nr_cpu_nodes; nid++)
		if (group_faults_cpu(s, g, nid) > max_faults)
			max_faults = group_faults_cpu(s, g, nid);
	for (int nid = 0; nid < s->m.nr_cpu_nodes; nid++)
		if (group_faults_cpu(s, g, nid) * ACTIVE_NODE_FRACTION > max_faults)
			active++;
	g->max_faults_cpu = max_faults;
	g->active_nodes = active;
}

static bool numa_is_active_node(const struct sim *s, int nid, const struct numa_group *g)
{
	return group_faults_cpu(s, g, nid) * ACTIVE_NODE_FRACTION > g->max_faults_cpu;
}

/* Out of line, as numa_fault_retry below. */
__attribute__((noinline)) void task_numa_group(struct sim *s, struct task_struct *p, int cpupid,
					       int flags, int *priv)
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
	/* A task cannot run on a CPU-less node: the nearest node with CPUs
	 * (numa_nearest_node(max_nid, N_CPU), v6.7; an open-coded search
	 * since v5.18's 0fb3978b0aac, which the model applies to every base) */
	if (max_faults && !machine_node_has_cpus(&s->m, max_nid))
		max_nid = nearest_cpu_node(s, max_nid);
	if (ng)
		numa_group_count_active_nodes(s, ng);
	if (max_faults && max_nid != p->numa_preferred_nid)
		sched_setnuma(s, p, max_nid);
	update_task_scan_period(s, p, fault_types[0], fault_types[1]);
}

/* ---- NUMA task placement: task_numa_migrate ---------------------------- */

#define SMALLIMP 30

static unsigned long task_faults(const struct sim *s, const struct task_struct *p, int nid)
{
	if (!p->numa_faults)
		return 0;
	return p->numa_faults[task_faults_idx(s, NUMA_MEM, nid, 0)] +
	       p->numa_faults[task_faults_idx(s, NUMA_MEM, nid, 1)];
}

/* task_weight / group_weight: the share (per mille) of the task's (its
 * group's) memory faults on @nid.  The model's machines are DIRECT, so no
 * nearby-node scores. */
static long task_weight(const struct sim *s, const struct task_struct *p, int nid)
{
	if (!p->numa_faults || !p->total_numa_faults)
		return 0;
	return (long)(1000 * task_faults(s, p, nid) / p->total_numa_faults);
}

static long group_weight(const struct sim *s, const struct task_struct *p, int nid)
{
	const struct numa_group *ng = p->numa_group;
	if (!ng || !ng->total_faults)
		return 0;
	return (long)(1000 * group_faults(s, p, nid) / ng->total_faults);
}

enum numa_type { node_has_spare, node_fully_busy, node_overloaded };

struct numa_stats {
	long load, nr_running, util, compute_capacity, weight;
	enum numa_type type;
	int idle_cpu;
};

struct task_numa_env {
	struct task_struct *p;
	int src_cpu, src_nid, dst_cpu, dst_nid;
	unsigned imbalance_pct, imb_numa_nr;
	struct numa_stats src_stats, dst_stats;
	long best_imp;
	struct task_struct *best_task;
	int best_cpu;
	int scanned;
	unsigned refused;     /* enum numa_migrate_refused: what the search turned down */
};

/* update_numa_stats: the node's running tasks and, for the destination,
 * an idle CPU the task may use (an idle core first). */
static void update_numa_stats(struct sim *s, struct task_numa_env *env, struct numa_stats *ns,
			      int nid, bool find_idle)
{
	*ns = (struct numa_stats){ .idle_cpu = -1 };
	for (int cpu = 0; cpu < s->m.nr_cpus; cpu++) {
		if (cpu_to_node(s, cpu) != nid)
			continue;
		int nr = cpu_rq(s, cpu)->nr_running;
		ns->nr_running += nr;
		ns->load += (long)nr * NICE_0_LOAD;
		ns->util += nr ? NICE_0_LOAD : 0;
		ns->compute_capacity += NICE_0_LOAD;
		ns->weight++;
		env->scanned++;
		if (find_idle && !nr && !s->cpus[cpu].curr && !cpu_rq(s, cpu)->numa_migrate_on &&
		    task_allowed(env->p, cpu) &&
		    (ns->idle_cpu < 0 || (s->m.threads_per_core > 1 && core_idle(s, cpu) &&
					  !core_idle(s, ns->idle_cpu))))
			ns->idle_cpu = cpu;
	}
	/* numa_classify with the halved imbalance_pct */
	if (ns->nr_running > ns->weight &&
	    (ns->compute_capacity * 100 < ns->util * (long)env->imbalance_pct ||
	     ns->compute_capacity * (long)env->imbalance_pct < ns->load * 100))
		ns->type = node_overloaded;
	else if (ns->nr_running < ns->weight ||
		 (ns->compute_capacity * 100 > ns->util * (long)env->imbalance_pct))
		ns->type = node_has_spare;
	else
		ns->type = node_fully_busy;
}

static bool load_too_imbalanced(long src_load, long dst_load, const struct task_numa_env *env)
{
	long src_cap = env->src_stats.compute_capacity, dst_cap = env->dst_stats.compute_capacity;
	long imb = labs(dst_load * src_cap - src_load * dst_cap);
	long old = labs(env->dst_stats.load * src_cap - env->src_stats.load * dst_cap);
	return imb > old;
}

static void task_numa_assign(struct sim *s, struct task_numa_env *env, struct task_struct *cur,
			     long imp)
{
	int cpu = env->dst_cpu;
	if (!cur && env->dst_stats.idle_cpu >= 0)
		cpu = env->dst_stats.idle_cpu; /* a move: the idle CPU found */
	if (env->best_cpu >= 0)
		cpu_rq(s, env->best_cpu)->numa_migrate_on = false;
	cpu_rq(s, cpu)->numa_migrate_on = true;
	env->best_cpu = cpu;
	env->best_task = cur;
	env->best_imp = imp;
}

/* task_numa_compare's assignment and stop rule (a0f03b617c3b, v5.7): the
 * search ends once a move may go to an idle CPU, or, when only a swap may
 * do (!maymove), once the best partner heads to its own preferred node. */
static bool task_numa_compare_assign(struct sim *s, struct task_numa_env *env,
				     struct task_struct *cur, long imp, bool maymove)
{
	task_numa_assign(s, env, cur, imp);
	if (maymove && !cur && env->best_cpu >= 0 && available_idle_cpu(s, env->best_cpu))
		return true;
	return !maymove && env->best_task && env->best_task->numa_preferred_nid == env->src_nid;
}

/* task_numa_compare: is moving to, or swapping with the task on,
 * env->dst_cpu better than the best so far?  True: stop searching.
 * Follows v6.12 (identical in v6.1 and the 6.19 copies), whose swap rules
 * from 88cca72c9673 (v5.7) every base has: a partner that would not go to
 * its preferred node never displaces a best one that would, and one that
 * would displaces a best one that would not, whatever the scores.  Left
 * out: the kernel's re-check that the chosen CPU is still idle (nothing
 * runs between the search's steps here). */
static bool task_numa_compare(struct sim *s, struct task_numa_env *env, long taskimp,
			      long groupimp, bool maymove)
{
	struct task_struct *p = env->p, *cur;
	long imp = p->numa_group ? groupimp : taskimp, moveimp = imp;
	if (cpu_rq(s, env->dst_cpu)->numa_migrate_on) {
		env->refused |= NUMA_REFUSED_CPU_CLAIMED;
		return false;
	}
	cur = s->cpus[env->dst_cpu].curr;
	if (cur == p)
		return true;
	if (!cur) {
		if (!maymove || moveimp < env->best_imp)
			return false;
		return task_numa_compare_assign(s, env, NULL, moveimp, maymove);
	}
	if (!task_allowed(cur, env->src_cpu)) {
		env->refused |= NUMA_REFUSED_AFFINITY;
		return false;
	}
	bool cur_goes_home = cur->numa_preferred_nid == env->src_nid;
	bool best_goes_home = env->best_task && env->best_task->numa_preferred_nid == env->src_nid;
	if (best_goes_home && !cur_goes_home) {
		env->refused |= NUMA_REFUSED_SWAP_NOT_HOME;
		return false;
	}
	if (cur->numa_group == p->numa_group) {
		/* no swap inside a group while the destination has room
		 * (13ede3315087, v6.0) */
		if (env->dst_stats.type == node_has_spare) {
			env->refused |= NUMA_REFUSED_SWAP_SPARE;
			return false;
		}
		imp = taskimp + task_weight(s, cur, env->src_nid) - task_weight(s, cur, env->dst_nid);
		if (cur->numa_group)
			imp -= imp / 16;
	} else if (cur->numa_group && p->numa_group) {
		imp += group_weight(s, cur, env->src_nid) - group_weight(s, cur, env->dst_nid);
	} else {
		imp += task_weight(s, cur, env->src_nid) - task_weight(s, cur, env->dst_nid);
	}
	if (cur->numa_preferred_nid == env->dst_nid)
		imp -= imp / 16;
	else if (cur_goes_home)
		imp += imp / 8;
	if (maymove && moveimp > imp && moveimp > env->best_imp)
		return task_numa_compare_assign(s, env, NULL, moveimp, maymove);
	/* a partner going home beats a best one that is not, skipping the
	 * SMALLIMP test (and the kernel's load test) */
	if (!(env->best_task && cur_goes_home && !best_goes_home) &&
	    (imp < SMALLIMP || imp <= env->best_imp + SMALLIMP / 2)) {
		if (imp < SMALLIMP)
			env->refused |= NUMA_REFUSED_SWAP_SMALLIMP;
		return false; /* (or no better than the best so far) */
	}
	/* equal loads: a swap never unbalances the nodes */
	return task_numa_compare_assign(s, env, cur, imp, maymove);
}

/* task_numa_find_cpu: may the task move to the destination node, and to
 * which CPU or in exchange for which task. */
static void task_numa_find_cpu(struct sim *s, struct task_numa_env *env, long taskimp,
			       long groupimp)
{
	bool maymove = false;
	if (env->dst_stats.type == node_has_spare) {
		long imbalance = (env->dst_stats.nr_running + 1) - (env->src_stats.nr_running - 1);
		if (imbalance < 0)
			imbalance = 0;
		imbalance = adjust_numa_imbalance(imbalance, (int)env->dst_stats.nr_running + 1,
						  env->imb_numa_nr);
		if (!imbalance) {
			maymove = true;
			if (env->dst_stats.idle_cpu >= 0) {
				env->dst_cpu = env->dst_stats.idle_cpu;
				task_numa_assign(s, env, NULL, 0);
				return;
			}
		}
	} else {
		maymove = !load_too_imbalanced(env->src_stats.load - NICE_0_LOAD,
					       env->dst_stats.load + NICE_0_LOAD, env);
	}
	if (!maymove)
		env->refused |= NUMA_REFUSED_MOVE_IMBALANCE;
	for (int cpu = 0; cpu < s->m.nr_cpus; cpu++) {
		if (cpu_to_node(s, cpu) != env->dst_nid || !task_allowed(env->p, cpu))
			continue;
		env->dst_cpu = cpu;
		env->scanned++;
		if (task_numa_compare(s, env, taskimp, groupimp, maymove))
			break;
	}
}

/* numasim's numa_migrate_result: how the search for @pref_nid ended, and
 * what it turned down on the way. */
static void trace_numa_migrate_result(struct sim *s, const struct task_numa_env *env, int pref_nid,
				      enum numa_migrate_outcome outcome)
{
	trace(s, TR_NUMA_MIGRATE_RESULT, env->src_cpu, env->p->pid, sim_now(s), 0, outcome, pref_nid,
	      env->best_cpu, env->refused);
}

/* task_numa_migrate: look for a CPU on the preferred node (others if the
 * group spans several), then move or swap.  The search's cost is charged
 * to the faulting task from the runqueues it read. */
int task_numa_migrate(struct sim *s, struct task_struct *p)
{
	const struct sched_topology *t = &s->sched->topo;
	struct task_numa_env env = { .p = p, .src_cpu = p->cpu, .src_nid = cpu_to_node(s, p->cpu),
				     .best_cpu = -1 };
	const int pref_nid = p->numa_preferred_nid;
	int l = 0;
	while (l < t->nr_levels && t->level[l].kind != SD_NUMA)
		l++;
	if (l == t->nr_levels) { /* no sd_numa: a single node */
		sched_setnuma(s, p, env.src_nid);
		trace_numa_migrate_result(s, &env, pref_nid, NUMA_MIGRATE_NO_SD_NUMA);
		return -1;
	}
	env.imbalance_pct = 100 + (t->level[l].imbalance_pct - 100) / 2;
	env.imb_numa_nr = t->level[l].imb_numa_nr;
	env.dst_nid = p->numa_preferred_nid;
	long taskweight = task_weight(s, p, env.src_nid), groupweight = group_weight(s, p, env.src_nid);
	update_numa_stats(s, &env, &env.src_stats, env.src_nid, false);
	long taskimp = task_weight(s, p, env.dst_nid) - taskweight;
	long groupimp = group_weight(s, p, env.dst_nid) - groupweight;
	update_numa_stats(s, &env, &env.dst_stats, env.dst_nid, true);
	task_numa_find_cpu(s, &env, taskimp, groupimp);
	/* other nodes if nothing was found, or the group spans several */
	if (env.best_cpu < 0 || (p->numa_group && p->numa_group->active_nodes > 1)) {
		for (int nid = 0; nid < s->m.nr_cpu_nodes; nid++) { /* N_CPU */
			if (nid == env.src_nid || nid == p->numa_preferred_nid)
				continue;
			taskimp = task_weight(s, p, nid) - taskweight;
			groupimp = group_weight(s, p, nid) - groupweight;
			if (taskimp < 0 && groupimp < 0)
				continue;
			env.dst_nid = nid;
			update_numa_stats(s, &env, &env.dst_stats, nid, true);
			task_numa_find_cpu(s, &env, taskimp, groupimp);
		}
	}
	charge(s, COST_SCHED, env.scanned * s->m.cost.sched_rq_scan_ns);
	if (p->numa_group)
		sched_setnuma(s, p, env.best_cpu >= 0 ? cpu_to_node(s, env.best_cpu) : env.src_nid);
	/* no better CPU than the current one */
	if (env.best_cpu < 0) {
		trace_sched_stick_numa(s, p, env.src_cpu, NULL, -1);
		trace_numa_migrate_result(s, &env, pref_nid, NUMA_MIGRATE_NO_CPU);
		return -1;
	}
	cpu_rq(s, env.best_cpu)->numa_migrate_on = false;
	int ret;
	if (!env.best_task) {
		ret = migrate_task_to(s, p, env.best_cpu);
		s->st.numa_task_moves += !ret;
	} else {
		ret = migrate_swap(s, p, env.best_task);
		s->st.numa_task_swaps += !ret;
	}
	if (ret) {
		trace_sched_stick_numa(s, p, env.src_cpu, env.best_task, env.best_cpu);
		trace_numa_migrate_result(s, &env, pref_nid, NUMA_MIGRATE_FAILED);
		return -1;
	}
	trace_numa_migrate_result(s, &env, pref_nid, env.best_task ? NUMA_MIGRATE_SWAPPED : NUMA_MIGRATE_MOVED);
	return 0;
}

/* numa_migrate_preferred's retry interval: a second, or a sixteenth of the
 * scan period if shorter. */
static uint64_t numa_migrate_interval(const struct sim *s, const struct task_struct *p)
{
	uint64_t interval = msecs_to_jiffies(s, 1000);
	uint64_t alt = msecs_to_jiffies(s, p->numa_scan_period) / 16;
	return alt < interval ? alt : interval;
}

/* numa_migrate_preferred: retry later, and now if the task is off its
 * preferred node. */
static void numa_migrate_preferred(struct sim *s, struct task_struct *p)
{
	if (p->numa_preferred_nid == NUMA_NO_NODE || !p->numa_faults)
		return;
	p->numa_migrate_retry = jiffies(s) + numa_migrate_interval(s, p);
	if (s->cpus[p->cpu].node == p->numa_preferred_nid)
		return;
	task_numa_migrate(s, p);
}

/* task_numa_fault's counts: @pages faults on @mem_node from a CPU of
 * @cpu_node, private or not, local or not, into the buffers placement
 * reads next. */
static inline void numa_fault_count(const struct sim *s, struct task_struct *p, int mem_node,
				    int cpu_node, int priv, int local, unsigned long pages)
{
	p->numa_faults[task_faults_idx(s, NUMA_MEMBUF, mem_node, priv)] += pages;
	p->numa_faults[task_faults_idx(s, NUMA_CPUBUF, cpu_node, priv)] += pages;
	p->numa_faults_locality[local] += pages;
}

/* task_numa_fault's placement and migration, once a retry interval or
 * less: out of line, so that their frame is not every fault's. */
__attribute__((noinline)) static void numa_fault_retry(struct sim *s, struct task_struct *p)
{
	task_numa_placement(s, p);
	numa_migrate_preferred(s, p);
}

void task_numa_fault(struct sim *s, int last_cpupid, int mem_node, int pages, int flags)
{
	struct task_struct *p = s->current;
	int cpu_node = s->cpus[p->cpu].node;
	int local = !!(flags & TNF_FAULT_LOCAL);
	int priv;

	if (!p->mm)
		return;
	/* numasim's convergence series, in every balancing mode, as
	 * numa_hint_faults is */
	p->mm->hint_faults_ended++;
	p->mm->hint_faults_ended_local += mem_node == cpu_node;
	if (!sched_numa_balancing(s))
		return;
	/* no fault statistics for the slow tier in tiering mode, nor for a
	 * slow-tier fault whose cpupid is not one (v5.18) */
	if (!node_is_toptier(s, mem_node) &&
	    (numa_tiering_mode(s) || cpupid_to_cpu(last_cpupid) >= s->m.nr_cpus))
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
	/* (a task with no preferred node, its placement done for this scan
	 * sequence, gets here at every fault and does nothing) */
	if (jiffies_after(s, p->numa_migrate_retry) &&
	    (p->numa_scan_seq != p->mm->numa_scan_seq || p->numa_preferred_nid != NUMA_NO_NODE))
		numa_fault_retry(s, p);
	if (flags & TNF_MIGRATED)
		p->numa_pages_migrated += (unsigned long)pages;
	if (flags & TNF_MIGRATE_FAIL)
		p->numa_faults_locality[2] += (unsigned long)pages;
	numa_fault_count(s, p, mem_node, cpu_node, priv, local, (unsigned long)pages);
}

/* task_numa_fault for faults drawn in bulk (aggregated mode, docs/model.md
 * 3.3b): private, local faults of @p on @nid by a task whose placement is
 * done for this scan sequence and that runs on its preferred node (or has
 * none) -- what the kernel's task_numa_fault does for each of them, split
 * in two.  task_numa_fault_retry_at runs for each fault, at jiffies @j:
 * task_numa_placement returns at once (the sequence is the same) and
 * numa_migrate_preferred only sets the next retry.  task_numa_fault_bulk
 * adds the counts of @pages of them at once (sums, in any order). */
void task_numa_fault_retry_at(struct sim *s, struct task_struct *p, uint64_t j)
{
	if (j <= p->numa_migrate_retry)
		return;
	VM_BUG_ON(p->numa_scan_seq != p->mm->numa_scan_seq);
	if (p->numa_preferred_nid == NUMA_NO_NODE || !p->numa_faults)
		return;
	VM_BUG_ON(s->cpus[p->cpu].node != p->numa_preferred_nid);
	p->numa_migrate_retry = j + numa_migrate_interval(s, p);
}

void task_numa_fault_bulk(struct sim *s, struct task_struct *p, int nid, unsigned long pages)
{
	p->mm->hint_faults_ended += pages;
	p->mm->hint_faults_ended_local += pages; /* one fault per page, all local */
	numa_fault_count(s, p, nid, s->cpus[p->cpu].node, 1, 1, pages);
}

/* ==== the fair class: wake-up placement and load balancing ==========
 *
 * After kernel/sched/fair.c (v6.17): select_task_rq_fair, wake_affine,
 * select_idle_sibling, sched_balance_rq and its group statistics,
 * calculate_imbalance with adjust_numa_imbalance, detach_tasks'
 * can_migrate_task, active balance, newidle balance.  All tasks are nice 0
 * and CPU-bound while they run, so a CPU's load and utilisation are its
 * running count (x 1024) and a group's class follows from its running
 * count against its CPUs.  Left out: PELT's decay of a sleeping task's
 * load, capacity asymmetry, misfit and asym packing, cgroups, SIS_PROP's
 * scan limit (older bases scan the whole LLC). */

static inline int rq_cpu(const struct sim *s, const struct rq *rq)
{
	return (int)(rq - s->sched->rq);
}

void account_numa_enqueue(struct sim *s, struct rq *rq, struct task_struct *p)
{
	if (p->numa_preferred_nid == NUMA_NO_NODE)
		return;
	rq->nr_numa_running++;
	if (p->numa_preferred_nid == cpu_to_node(s, rq_cpu(s, rq)))
		rq->nr_preferred_running++;
}

void account_numa_dequeue(struct sim *s, struct rq *rq, struct task_struct *p)
{
	if (p->numa_preferred_nid == NUMA_NO_NODE)
		return;
	rq->nr_numa_running--;
	if (p->numa_preferred_nid == cpu_to_node(s, rq_cpu(s, rq)))
		rq->nr_preferred_running--;
}

/* update_scan_period (called by migrate_task_rq_fair, identical from
 * v4.20 to v6.17): a task moved across nodes scans again at its start
 * period, unless it has completed a sweep and either goes to its preferred
 * node or was not on it. */
void update_scan_period(struct sim *s, struct task_struct *p, int new_cpu)
{
	int src_nid = cpu_to_node(s, p->cpu), dst_nid = cpu_to_node(s, new_cpu);
	if (!sched_numa_balancing(s) || !p->mm || !p->numa_faults)
		return;
	if (src_nid == dst_nid)
		return;
	if (p->numa_scan_seq) {
		if (dst_nid == p->numa_preferred_nid ||
		    (p->numa_preferred_nid != NUMA_NO_NODE && src_nid != p->numa_preferred_nid))
			return;
	}
	p->numa_scan_period = task_scan_start(s, p);
	s->st.scan_period_resets++;
}

/* ---- wake-up placement -------------------------------------------------- */

static inline bool cpus_share_cache(const struct sim *s, int a, int b)
{
	return cpu_to_node(s, a) == cpu_to_node(s, b); /* one LLC per node */
}

/* The lowest domain level spanning both CPUs, or -1. */
static int common_level(const struct sim *s, int a, int b)
{
	const struct sched_topology *t = &s->sched->topo;
	for (int l = 0; l < t->nr_levels; l++)
		if (t->map[l].dom_id[a] == t->map[l].dom_id[b])
			return l;
	return -1;
}

/* sd_init drops SD_WAKE_AFFINE (and fork balancing) from NUMA levels
 * whose distance exceeds node_reclaim_distance. */
static bool level_wake_affine(const struct sim *s, int l, int a, int b)
{
	if (s->sched->topo.level[l].kind != SD_NUMA)
		return true;
	return s->m.distance[cpu_to_node(s, a)][cpu_to_node(s, b)] <= NODE_RECLAIM_DISTANCE;
}

/* wake_affine: the waker's CPU or the wakee's previous one (no WF_SYNC:
 * the model's wake-ups are timers and futexes).  wake_affine_idle, then
 * wake_affine_weight with loads as running counts. */
static int wake_affine(struct sim *s, struct task_struct *p, int this_cpu, int prev_cpu, int l)
{
	(void)p;
	if (available_idle_cpu(s, this_cpu) && cpus_share_cache(s, this_cpu, prev_cpu))
		return available_idle_cpu(s, prev_cpu) ? prev_cpu : this_cpu;
	if (available_idle_cpu(s, prev_cpu))
		return prev_cpu;
	unsigned pct = s->sched->topo.level[l].imbalance_pct;
	long this_eff = (long)(cpu_rq(s, this_cpu)->nr_running + 1) * NICE_0_LOAD * 100;
	long prev_eff = (long)cpu_rq(s, prev_cpu)->nr_running * NICE_0_LOAD *
			(100 + (long)(pct - 100) / 2);
	return this_eff < prev_eff ? this_cpu : prev_cpu;
}

/* SIS_UTIL (v6.0): how many CPUs select_idle_cpu may scan in @cpu's LLC,
 * from the LLC's utilisation (here its share of busy CPUs). */
static int sis_util_limit(const struct sim *s, int cpu)
{
	const struct sched_topology *t = &s->sched->topo;
	int l = 0;
	while (l < t->nr_levels && t->level[l].kind != SD_MC)
		l++;
	if (l == t->nr_levels)
		return 0;
	const struct sd_map *mp = &t->map[l];
	int w = t->level[l].span_weight, busy = 0;
	for (int i = 0; i < w; i++)
		busy += !available_idle_cpu(s, mp->cpus[mp->dom_start[cpu] + i]);
	if (!s->k.sis_util)
		return w;
	double x = (double)busy / w, pct = 117;
	double nr = w * (1 - x * x * pct * pct / 1e4);
	return nr > 0 ? (int)nr : 0;
}

static bool core_idle(const struct sim *s, int cpu)
{
	int cores = s->m.nr_cpu_nodes * s->m.cores_per_node;
	for (int k = 0; k < s->m.threads_per_core; k++)
		if (!available_idle_cpu(s, cpu_core_id(&s->m, cpu) + k * cores))
			return false;
	return true;
}

/* select_idle_sibling: the target if idle, the previous CPU if idle and
 * in the same LLC, else an idle core, then an idle CPU, of the target's
 * LLC within the scan limit; else the target. */
static int select_idle_sibling(struct sim *s, struct task_struct *p, int prev, int target)
{
	if (available_idle_cpu(s, target) && task_allowed(p, target))
		return target;
	if (prev != target && cpus_share_cache(s, prev, target) && available_idle_cpu(s, prev) &&
	    task_allowed(p, prev))
		return prev;
	int nr = sis_util_limit(s, target);
	if (!nr)
		return target;
	const struct sched_topology *t = &s->sched->topo;
	int l = 0;
	while (t->level[l].kind != SD_MC)
		l++;
	const struct sd_map *mp = &t->map[l];
	int w = t->level[l].span_weight, start = mp->dom_start[target];
	int pos = 0;
	while (mp->cpus[start + pos] != target)
		pos++;
	int idle_cpu = -1;
	for (int i = 1; i <= w && nr > 0; i++) {
		int cpu = mp->cpus[start + (pos + i) % w];
		if (!available_idle_cpu(s, cpu) || !task_allowed(p, cpu))
			continue;
		if (s->m.threads_per_core == 1 || core_idle(s, cpu))
			return cpu;
		if (idle_cpu < 0)
			idle_cpu = cpu;
		nr--;
	}
	return idle_cpu >= 0 ? idle_cpu : target;
}

int select_task_rq_fair(struct sim *s, struct task_struct *p, int prev_cpu, int waker_cpu)
{
	if (p->cpus_ptr && cpumask_weight(p->cpus_ptr) == 1)
		return prev_cpu; /* select_task_rq only runs for tasks that may move */
	int new_cpu = prev_cpu;
	if (waker_cpu != prev_cpu && task_allowed(p, waker_cpu)) {
		int l = common_level(s, waker_cpu, prev_cpu);
		if (l >= 0 && level_wake_affine(s, l, waker_cpu, prev_cpu))
			new_cpu = wake_affine(s, p, waker_cpu, prev_cpu, l);
	}
	new_cpu = select_idle_sibling(s, p, prev_cpu, new_cpu);
	return task_allowed(p, new_cpu) ? new_cpu : prev_cpu;
}

/* ---- load balancing -------------------------------------------------------- */

enum group_type { group_has_spare, group_fully_busy, group_overloaded };
enum migration_type { migrate_load, migrate_util, migrate_task };
/* fbq_type (0ec8aa00f2b4, v3.13; the same in v6.12): what a NUMA-level
 * balance may take from the busiest group's runqueues.  regular: it runs
 * tasks with no preferred node, take from runqueues that run such tasks;
 * remote: all have one but some are off it, take from runqueues with a
 * task off its node; all: no distinction. */
enum fbq_type { fbq_regular, fbq_remote, fbq_all };

struct sg_stats {
	int first;              /* index of its first CPU in the level's cpus[] */
	int weight;
	int sum_nr_running;
	int idle_cpus;
	int nr_numa_running, nr_preferred_running;
	enum group_type type;
};

struct lb_env {
	int level;
	int dst_cpu;
	bool idle;              /* dst is idle (CPU_IDLE or CPU_NEWLY_IDLE) */
	bool newidle;
	enum migration_type type;
	enum fbq_type fbq_type; /* set by find_busiest_group */
	long imbalance;         /* tasks (migrate_task/util) or load (migrate_load) */
	unsigned nr_balance_failed;
	int scanned;            /* runqueues examined, for the cost */
};

static void update_sg_stats(struct sim *s, struct lb_env *env, int first, struct sg_stats *sg)
{
	const struct sd_map *mp = &s->sched->topo.map[env->level];
	int w = s->sched->topo.level[env->level].group_weight;
	sg->first = first;
	sg->weight = w;
	sg->sum_nr_running = sg->idle_cpus = sg->nr_numa_running = sg->nr_preferred_running = 0;
	for (int i = 0; i < w; i++) {
		int cpu = mp->cpus[first + i];
		const struct rq *rq = cpu_rq(s, cpu);
		sg->sum_nr_running += rq->nr_running;
		sg->nr_numa_running += rq->nr_numa_running;
		sg->nr_preferred_running += rq->nr_preferred_running;
		sg->idle_cpus += available_idle_cpu(s, cpu);
	}
	env->scanned += w;
	sg->type = sg->sum_nr_running < w ? group_has_spare
		   : sg->sum_nr_running == w ? group_fully_busy : group_overloaded;
}

/* update_sd_pick_busiest's order: the higher class; among overloaded
 * groups the higher average load; among spare ones fewer idle CPUs, then
 * more tasks. */
static bool busier(const struct sg_stats *a, const struct sg_stats *b)
{
	if (a->type != b->type)
		return a->type > b->type;
	if (a->type == group_overloaded)
		return (long)a->sum_nr_running * b->weight > (long)b->sum_nr_running * a->weight;
	if (a->type == group_has_spare) {
		if (a->idle_cpus != b->idle_cpus)
			return a->idle_cpus < b->idle_cpus;
		return a->sum_nr_running > b->sum_nr_running;
	}
	return false;
}

/* adjust_numa_imbalance (v6.0): a small imbalance may stand while the
 * destination runs few tasks. */
static long adjust_numa_imbalance(long imbalance, int dst_running, unsigned imb_numa_nr)
{
	if (dst_running > (int)imb_numa_nr)
		return imbalance;
	if (imbalance <= NUMA_IMBALANCE_MIN)
		return 0;
	return imbalance;
}

/* fbq_classify_group and fbq_classify_rq: one rule over a group's sums or
 * one runqueue's counts. */
static enum fbq_type fbq_classify(int nr_running, int nr_numa_running, int nr_preferred_running)
{
	if (nr_running > nr_numa_running)
		return fbq_regular;
	if (nr_running > nr_preferred_running)
		return fbq_remote;
	return fbq_all;
}

static enum fbq_type fbq_classify_group(const struct sg_stats *sg)
{
	return fbq_classify(sg->sum_nr_running, sg->nr_numa_running, sg->nr_preferred_running);
}

static enum fbq_type fbq_classify_rq(const struct rq *rq)
{
	return fbq_classify(rq->nr_running, rq->nr_numa_running, rq->nr_preferred_running);
}

/* sched_balance_find_src_group + calculate_imbalance: false if balanced. */
static bool find_busiest_group(struct sim *s, struct lb_env *env, struct sg_stats *busiest)
{
	const struct sched_topology *t = &s->sched->topo;
	const struct sd_level *sd = &t->level[env->level];
	const struct sd_map *mp = &t->map[env->level];
	int dom = mp->dom_start[env->dst_cpu], local_first = mp->grp_start[env->dst_cpu];
	struct sg_stats local, sg;
	bool found = false;
	long total_running = 0;

	update_sg_stats(s, env, local_first, &local);
	total_running += local.sum_nr_running;
	for (int g = dom; g < dom + sd->span_weight; g += sd->group_weight) {
		if (g == local_first)
			continue;
		update_sg_stats(s, env, g, &sg);
		total_running += sg.sum_nr_running;
		if (!found || busier(&sg, busiest)) {
			*busiest = sg;
			found = true;
		}
	}
	/* update_sd_lb_stats: at a NUMA level, the busiest group's class */
	env->fbq_type = found && sd->kind == SD_NUMA ? fbq_classify_group(busiest) : fbq_all;
	if (!found || busiest->sum_nr_running == 0)
		return false;
	if (local.type > busiest->type)
		return false;
	if (busiest->type == group_overloaded && local.type == group_overloaded) {
		/* both overloaded: the busiest must be imbalance_pct above */
		long b = (long)busiest->sum_nr_running * local.weight * 100;
		long lo = (long)local.sum_nr_running * busiest->weight * sd->imbalance_pct;
		if (b <= lo)
			return false;
	}
	if (busiest->type != group_overloaded) {
		if (!env->idle)
			return false;
		if (sd->group_weight > 1 && local.idle_cpus <= busiest->idle_cpus + 1)
			return false;
		if (busiest->sum_nr_running == 1)
			return false;
	}

	/* calculate_imbalance */
	if (local.type == group_has_spare) {
		if (busiest->type == group_overloaded && sd->kind == SD_NUMA) {
			/* migrate_util: fill the local spare capacity */
			env->type = migrate_util;
			env->imbalance = local.idle_cpus ? local.idle_cpus : (env->idle ? 1 : 0);
		} else {
			/* prefer_sibling (every group of the model's levels is a
			 * PREFER_SIBLING child or a single CPU): even out the
			 * running counts (sibling_imbalance; equal core counts) */
			env->type = migrate_task;
			long imb = env->idle ? busiest->sum_nr_running - local.sum_nr_running : 0;
			if (sd->kind == SD_NUMA && s->k.imb_numa_nr) {
				imb = adjust_numa_imbalance(imb, local.sum_nr_running + 1, sd->imb_numa_nr);
			} else if (sd->kind == SD_NUMA && imb <= NUMA_IMBALANCE_MIN &&
				   busiest->sum_nr_running < busiest->weight / 4) {
				imb = 0; /* v5.11-v5.17: 25% of the busiest group */
			}
			env->imbalance = imb >> 1;
		}
		return env->imbalance > 0;
	}
	/* local fully busy or overloaded: average loads (running per CPU) */
	long cpus = sd->span_weight;
	double avg = (double)total_running / (double)cpus;
	double local_avg = (double)local.sum_nr_running / local.weight;
	double busiest_avg = (double)busiest->sum_nr_running / busiest->weight;
	if (local_avg >= busiest_avg || local_avg >= avg)
		return false;
	env->type = migrate_load;
	double a = (busiest_avg - avg) * busiest->weight, b = (avg - local_avg) * local.weight;
	env->imbalance = (long)((a < b ? a : b) * NICE_0_LOAD);
	return env->imbalance > 0;
}

/* migrate_degrades_locality: +1 if moving @p from @src to @dst degrades
 * its NUMA locality (the task counts as cache-hot), -1 if it improves it
 * (not hot), 0 if locality has no say (cache hotness decides).  Follows
 * v6.12 (the same in v6.1; c3856c9ce6b8, v6.14, recast it as a signed
 * weight difference):
 * - off its preferred node: +1 while its runqueue runs tasks that are not
 *   on their preferred node, else 0; towards it: -1;
 * - an idle destination (CPU_IDLE, not newly idle: 739294fb03f5, v4.13):
 *   0, leaving a CPU idle is worse than degrading locality;
 * - otherwise the group's fault weights (the task's without a group) on
 *   the two nodes: +1 if the destination's is lower, -1 if higher; equal,
 *   -1 before v6.14 (`dst < src` was false: "improves"), 0 from it
 *   (`src - dst` is 0: task_hot decides; degrades_locality_signed). */
static int migrate_degrades_locality(struct sim *s, struct task_struct *p, int src, int dst,
				     const struct lb_env *env)
{
	int src_nid = cpu_to_node(s, src), dst_nid = cpu_to_node(s, dst);
	if (!sched_numa_balancing(s) || !p->numa_faults ||
	    s->sched->topo.level[env->level].kind != SD_NUMA || src_nid == dst_nid)
		return 0;
	if (src_nid == p->numa_preferred_nid) {
		struct rq *rq = cpu_rq(s, src);
		if (rq->nr_running > rq->nr_preferred_running)
			return 1;
		return 0;
	}
	if (dst_nid == p->numa_preferred_nid)
		return -1;
	if (env->idle && !env->newidle)
		return 0;
	long src_weight, dst_weight;
	if (p->numa_group) {
		src_weight = group_weight(s, p, src_nid);
		dst_weight = group_weight(s, p, dst_nid);
	} else {
		src_weight = task_weight(s, p, src_nid);
		dst_weight = task_weight(s, p, dst_nid);
	}
	if (dst_weight < src_weight)
		return 1;
	if (dst_weight > src_weight || !s->k.degrades_locality_signed)
		return -1;
	return 0;
}

/* can_migrate_task for a queued task (a running one needs active balance). */
static bool can_migrate_task(struct sim *s, struct task_struct *p, int src, struct lb_env *env,
			     uint64_t now)
{
	if (!task_allowed(p, env->dst_cpu))
		return false;
	int degrades = migrate_degrades_locality(s, p, src, env->dst_cpu, env);
	bool hot;
	if (degrades)
		hot = degrades > 0;
	else if (s->sched->topo.level[env->level].kind == SD_SMT)
		hot = false;
	else
		hot = now - p->exec_start < SCHED_MIGRATION_COST_NS;
	return !hot || env->nr_balance_failed > s->sched->topo.level[env->level].cache_nice_tries;
}

/* The busiest runqueue of the group: the most running tasks (ties: first),
 * among those whose fbq class is within the balance's: at a NUMA level a
 * runqueue whose tasks are all on their preferred node is passed over
 * while the group has tasks that are not (or have none). */
static int find_busiest_queue(struct sim *s, const struct lb_env *env, const struct sg_stats *sg)
{
	const struct sd_map *mp = &s->sched->topo.map[env->level];
	int best = -1, best_nr = 0;
	for (int i = 0; i < sg->weight; i++) {
		int cpu = mp->cpus[sg->first + i];
		if (fbq_classify_rq(cpu_rq(s, cpu)) > env->fbq_type)
			continue;
		int nr = cpu_rq(s, cpu)->nr_running;
		if (nr > best_nr) {
			best = cpu;
			best_nr = nr;
		}
	}
	return best;
}

/* detach_tasks + attach_tasks: move queued tasks from @src to the
 * destination until the imbalance is used up; returns how many moved. */
static int detach_tasks(struct sim *s, struct lb_env *env, int src, uint64_t now)
{
	int moved = 0, loops = 0;
	struct task_struct *p = cpu_rq(s, src)->head;
	while (p && env->imbalance > 0 && loops++ < 32) {
		struct task_struct *next = p->rq_next;
		if (env->idle && cpu_rq(s, src)->nr_running <= 1)
			break;
		if (can_migrate_task(s, p, src, env, now)) {
			if (env->type == migrate_load) {
				long load = NICE_0_LOAD >> (env->nr_balance_failed < 10 ? env->nr_balance_failed : 10);
				if (load > env->imbalance) {
					p = next;
					continue;
				}
				env->imbalance -= NICE_0_LOAD;
			} else {
				env->imbalance--;
			}
			move_task(s, p, env->dst_cpu, now);
			moved++;
			if (env->newidle)
				break;
		}
		p = next;
	}
	return moved;
}

/* sched_balance_rq: find the busiest group and queue, pull; on repeated
 * failure to move a running task, active balance.  Returns true if
 * something was out of balance. */
static bool sched_balance_rq(struct sim *s, struct lb_env *env, struct balancer *b, uint64_t now)
{
	struct sg_stats busiest = { 0 };
	if (!find_busiest_group(s, env, &busiest))
		return false;
	int src = find_busiest_queue(s, env, &busiest);
	if (src < 0)
		return false;
	int moved = 0;
	if (cpu_rq(s, src)->nr_running > 1)
		moved = detach_tasks(s, env, src, now);
	if (!b)
		return true;
	if (moved) {
		b->nr_balance_failed = 0;
		return true;
	}
	b->nr_balance_failed++;
	const struct sd_level *sd = &s->sched->topo.level[env->level];
	struct task_struct *curr = s->cpus[src].curr;
	if (env->type != migrate_load && b->nr_balance_failed > sd->cache_nice_tries + 2 && curr &&
	    task_allowed(curr, env->dst_cpu) && available_idle_cpu(s, env->dst_cpu)) {
		/* active balance: the stopper pushes the running task */
		move_task(s, curr, env->dst_cpu, now);
		b->nr_balance_failed = 0;
	}
	return true;
}

void sched_balance_newidle(struct sim *s, int cpu, uint64_t now)
{
	struct sched_state *ss = s->sched;
	if (!ss->nr_overloaded) /* the root domain is not overloaded */
		return;
	for (int l = 0; l < ss->topo.nr_levels && available_idle_cpu(s, cpu); l++) {
		struct lb_env env = { .level = l, .dst_cpu = cpu, .idle = true, .newidle = true };
		sched_balance_rq(s, &env, NULL, now);
		s->e.acct[cpu].cost[COST_SCHED] += env.scanned * s->m.cost.sched_rq_scan_ns;
	}
}

/* Is there anything for a balancer of this domain to do?  An overloaded
 * runqueue, or idle CPUs beside busy ones. */
static bool domain_active(struct sim *s, int level, int cpu)
{
	const struct sd_map *mp = &s->sched->topo.map[level];
	int w = s->sched->topo.level[level].span_weight, first = mp->dom_start[cpu];
	int idle = 0, over = 0;
	for (int i = 0; i < w; i++) {
		int c = mp->cpus[first + i];
		idle += available_idle_cpu(s, c);
		over += cpu_rq(s, c)->nr_running >= 2;
	}
	return over || (idle && idle < w);
}

/* The responsible CPU of a balancer's group (should_we_balance): its
 * first idle CPU, else its first CPU. */
static int balance_cpu(struct sim *s, const struct balancer *b)
{
	const struct sched_topology *t = &s->sched->topo;
	const struct sd_map *mp = &t->map[b->level];
	int w = t->level[b->level].group_weight, first = mp->grp_start[b->cpu];
	for (int i = 0; i < w; i++)
		if (available_idle_cpu(s, mp->cpus[first + i]))
			return mp->cpus[first + i];
	return b->cpu;
}

static uint64_t balance_interval_jiffies(struct sim *s, const struct balancer *b, bool idle)
{
	const struct sd_level *sd = &s->sched->topo.level[b->level];
	uint64_t ms = b->interval_ms;
	if (!idle)
		ms *= sd->busy_factor;
	uint64_t j = msecs_to_jiffies(s, ms);
	if (!idle && j > 1)
		j--;
	return j ? j : 1;
}

static void arm_balancer(struct sim *s, int bi, uint64_t now)
{
	struct balancer *b = &s->sched->bal[bi];
	bool idle = available_idle_cpu(s, balance_cpu(s, b));
	uint64_t due = (b->last_balance + balance_interval_jiffies(s, b, idle)) * tick_ns(s);
	if (due <= now)
		due = (now / tick_ns(s) + 1) * tick_ns(s);
	timerq_set(&s->e.q, s->sched->timer_bal + (uint32_t)bi, due);
}

void sched_balance_periodic(struct sim *s, int bi, uint64_t now)
{
	struct sched_state *ss = s->sched;
	struct balancer *b = &ss->bal[bi];
	const struct sd_level *sd = &ss->topo.level[b->level];
	int cpu = balance_cpu(s, b);
	sim_enter_cpu(s, cpu, now);
	b->last_balance = now / tick_ns(s);
	if (!domain_active(s, b->level, cpu)) {
		b->interval_ms = sd->max_interval_ms; /* dormant: balanced passes double it */
		return;
	}
	struct lb_env env = { .level = b->level, .dst_cpu = cpu, .idle = available_idle_cpu(s, cpu),
			      .nr_balance_failed = b->nr_balance_failed };
	bool imbalanced = sched_balance_rq(s, &env, b, now);
	steal(s, cpu, COST_SCHED, env.scanned * s->m.cost.sched_rq_scan_ns);
	if (imbalanced)
		b->interval_ms = sd->min_interval_ms;
	else if (b->interval_ms < sd->max_interval_ms)
		b->interval_ms = b->interval_ms * 2 < sd->max_interval_ms ? b->interval_ms * 2
									   : sd->max_interval_ms;
	arm_balancer(s, bi, now);
}

/* Something changed on @cpu's runqueue: wake the balancers of its domains
 * that slept while there was nothing to do (the nohz kick and the
 * periodic ticks of the kernel, which the model does not simulate while
 * every balance would be a no-op). */
void sched_balance_rearm(struct sim *s, int cpu, uint64_t now)
{
	struct sched_state *ss = s->sched;
	for (int l = 0; l < ss->topo.nr_levels; l++) {
		if (!domain_active(s, l, cpu))
			continue;
		const struct sd_map *mp = &ss->topo.map[l];
		const struct sd_level *sd = &ss->topo.level[l];
		int first = mp->dom_start[cpu];
		for (int g = first; g < first + sd->span_weight; g += sd->group_weight) {
			int bi = ss->bal_of[l][mp->cpus[g]];
			if (!timerq_armed(&s->e.q, ss->timer_bal + (uint32_t)bi))
				arm_balancer(s, bi, now);
		}
	}
}
