/* NUMA hinting faults, after mm/memory.c:do_numa_page and its helpers
 * (linux-next, early 2026; numa_migrate_check was numa_migrate_prep before
 * v6.12).
 *
 * do_numa_page runs in two parts: up to the PTL drop (here, at the fault's
 * time), and after migrate_misplaced_folio returns (do_numa_page_migrated,
 * when the simulated migration is done).  The PTL is modelled as the time
 * until which a table is held (pte_table.ptl_free_at).
 * Left out: the write-protect fault that follows a delayed mapping, zone
 * device folios.  The huge-PMD fault is in
 * mm/huge_memory.c. */
#include "asm/tlbflush.h"
#include "linux/migrate.h"
#include "linux/mm.h"
#include "linux/sched/numa_balancing.h"
#include "kernel/sim.h"
#include "linux/tlb_oracle.h"
#include "workload/touch.h"
#include "mm/internal.h"

/* numa_rebuild_single_mapping: restore the PTE from vm_page_prot, young,
 * writable if allowed.  A permission upgrade: no flush.  Inline in
 * rebuild_mapping: once per hint fault. */
inline __attribute__((always_inline)) void
numa_rebuild_single_mapping(struct vm_fault *vmf, struct vm_area_struct *vma, uint64_t addr,
			    pte_t *ptep, bool writable)
{
	(void)vmf;
	pte_t pte = PTE_PRESENT | PTE_YOUNG | (*ptep & (PTE_DIRTY | PTE_SIM_HOT));
	if (writable)
		pte |= PTE_WRITE;
	set_pte_at_inline(vma, addr, ptep, pte); /* once per hint fault */
}

/* numa_rebuild_large_mapping: restore every PROT_NONE PTE of the folio that
 * lies in this VMA and this PTE table. */
void numa_rebuild_large_mapping(struct vm_fault *vmf, struct vm_area_struct *vma,
				struct folio folio, pte_t *ptep, bool ignore_writable,
				bool pte_write_upgrade)
{
	uint64_t table = vmf->address & ~(PMD_SIZE - 1);
	(void)ptep;
	for (unsigned long i = 0; i < folio_nr_pages(folio); i++) {
		uint64_t a = vma_address(vma, folio.idx + i);
		if (!a || (a & ~(PMD_SIZE - 1)) != table)
			continue;
		pte_t *p = &vma->ptes[pte_index(vma, a)];
		if (!pte_protnone(*p))
			continue;
		bool writable = !ignore_writable && pte_write_upgrade;
		numa_rebuild_single_mapping(vmf, vma, a, p, writable);
	}
}

/* numa_migrate_check: flags, last_cpupid, the counters, the VMA's PID bit,
 * and the policy's verdict.  Inline in do_numa_page (once per hint fault);
 * the huge-PMD fault calls it. */
inline __attribute__((always_inline)) int
numa_migrate_check(struct sim *s, struct folio folio, struct vm_fault *vmf, int *flags,
		   bool writable, int *last_cpupid)
{
	struct vm_area_struct *vma = vmf->vma;

	if (!writable)
		*flags |= TNF_NO_GROUP;
	if (folio_maybe_mapped_shared(folio) && (vma->vm_flags & VM_SHARED))
		*flags |= TNF_SHARED;
	/* in tiering mode a slow-tier folio's field holds its scan time, not
	 * a cpupid: the fault statistics take the default */
	*last_cpupid = folio_use_access_time(s, folio_nid(folio)) ? (int)LAST_CPUPID_UNSET
								   : (int)folio.fs->pg[folio.idx].last_cpupid;
	vma_set_access_pid_bit(s, vma);
	count_vm_event(s, NUMA_HINT_FAULTS);
	vma->vm_mm->hint_faults++;
	if (folio_nid(folio) == numa_node_id(s)) {
		count_vm_event(s, NUMA_HINT_FAULTS_LOCAL);
		vma->vm_mm->hint_faults_local++;
		*flags |= TNF_FAULT_LOCAL;
		/* mpol_misplaced's answer without the call (most hint faults
		 * are local): for a folio already on this node, its first two
		 * tests -- this node outside a balancing MPOL_BIND's nodes, or
		 * the folio on this node -- return NUMA_NO_NODE, with nothing
		 * else done */
		return NUMA_NO_NODE;
	}
	return mpol_misplaced(folio, vma, vmf->address);
}

/* Inline in its three callers: once per hint fault. */
static inline __attribute__((always_inline)) void
rebuild_mapping(struct vm_fault *vmf, struct folio folio, pte_t *ptep, bool writable,
		bool ignore_writable)
{
	/* numa_rebuild_large_mapping came with the mTHP series (v6.10):
	 * before it, only the faulting PTE was restored */
	if (folio_test_large(folio) && vmf->vma->vm_mm->sim->k.mthp_numa)
		numa_rebuild_large_mapping(vmf, vmf->vma, folio, ptep, ignore_writable, writable);
	else
		numa_rebuild_single_mapping(vmf, vmf->vma, vmf->address, ptep, writable);
}

bool do_numa_page(struct vm_fault *vmf)
{
	struct vm_area_struct *vma = vmf->vma;
	struct sim *s = vma->vm_mm->sim;
	struct task_struct *p = s->current;
	struct pte_table *t = vmf->pmd;
	pte_t *ptep = &vma->ptes[pte_index(vma, vmf->address)];
	int flags = 0, last_cpupid = (int)LAST_CPUPID_UNSET, target;
	bool writable;

	ptl_lock(s, t);
	charge(s, COST_HINT_FAULT, s->m.cost.hint_fault_ns);
	if (s->oracle)
		oracle_note(s, ON_FAULT, vma->vm_mm, vmf->address);
	if (*ptep != vmf->orig_pte || !pte_protnone(*ptep)) {
		ptl_unlock(s, t); /* raced with another fault: nothing to do */
		return false;
	}
	writable = pte_writable_after_fault(vma);
	struct folio folio = page_folio(vma->store, vma_store_idx(vma, vmf->address));
	int nid = NUMA_NO_NODE;
	int nr_pages = (int)folio_nr_pages(folio);

	/* Before the mthp-numa series: "TODO: handle PTE-mapped THP", taken
	 * before nid is known, so nothing is counted or accounted */
	if (!s->k.mthp_numa && folio_test_large(folio) && !t->pmd_huge)
		goto out_map;
	nid = folio_nid(folio);
	target = numa_migrate_check(s, folio, vmf, &flags, writable, &last_cpupid);
	if (target == NUMA_NO_NODE)
		goto out_map;
	if (migrate_misplaced_folio_prepare(s, folio, vma, target)) {
		flags |= TNF_MIGRATE_FAIL;
		goto out_map;
	}
	/* v5.12 and older remapped first, then migrated a present PTE; since
	 * b99a342d4f11 the PTE stays PROT_NONE until the migration remaps it */
	if (!s->k.numa_delay_mapping) {
		rebuild_mapping(vmf, folio, ptep, writable, false);
		touch_changed_inline(&s->w.touch, t->group);
	}
	ptl_unlock(s, t);
	trace(s, TR_HINT_FAULT, s->e.cpu, p->pid, s->e.t0, sim_now(s) - s->e.t0, (int64_t)vmf->address, nid,
	      target, flags);
	p->fault = (struct numa_fault_ctx){
		.vma = vma, .addr = vmf->address, .folio = folio, .target_nid = target,
		.last_cpupid = last_cpupid, .flags = flags, .folio_nid_at_fault = nid,
		.nr_pages = nr_pages,
	};
	return true;

out_map:
	rebuild_mapping(vmf, folio, ptep, writable, false);
	ptl_unlock(s, t);
	trace(s, TR_HINT_FAULT, s->e.cpu, p->pid, s->e.t0, sim_now(s) - s->e.t0, (int64_t)vmf->address, nid,
	      NUMA_NO_NODE, flags);
	touch_changed_inline(&s->w.touch, t->group);
	if (nid != NUMA_NO_NODE)
		task_numa_fault(s, last_cpupid, nid, nr_pages, flags);
	return false;
}

void do_numa_page_migrated(struct sim *s, bool migrated)
{
	struct numa_fault_ctx *f = &s->current->fault;
	struct vm_area_struct *vma = f->vma;

	if (f->pmd) {
		do_huge_pmd_numa_page_migrated(s, migrated);
		return;
	}
	if (migrated) {
		f->flags |= TNF_MIGRATED;
		task_numa_fault(s, f->last_cpupid, f->target_nid, f->nr_pages, f->flags);
		return;
	}
	f->flags |= TNF_MIGRATE_FAIL;
	if (!s->k.numa_delay_mapping) {
		task_numa_fault(s, f->last_cpupid, f->folio_nid_at_fault, f->nr_pages, f->flags);
		return;
	}
	struct pte_table *t = pte_table_of(vma, f->addr);
	pte_t *ptep = &vma->ptes[pte_index(vma, f->addr)];
	ptl_lock(s, t);
	if (!pte_protnone(*ptep)) {
		ptl_unlock(s, t); /* someone else restored or changed it */
		return;
	}
	struct vm_fault vmf = { .vma = vma, .address = f->addr, .pmd = t, .orig_pte = *ptep };
	rebuild_mapping(&vmf, f->folio, ptep, false, true); /* writable = false, ignore_writable */
	ptl_unlock(s, t);
	touch_changed(&s->w.touch, t->group);
	task_numa_fault(s, f->last_cpupid, folio_nid(f->folio), f->nr_pages, f->flags);
}
