/* NUMA hinting from mm/mempolicy.c (linux-next, early 2026): change_prot_numa,
 * folio_can_map_prot_numa and the default policy's mpol_misplaced.
 * Left out: explicit mbind/set_mempolicy policies (every VMA has the default
 * local policy, MPOL_F_MOF|MPOL_F_MORON), memory tiering, KSM, zone-device,
 * memcg counters. */
#include "linux/mm.h"
#include "linux/sched/numa_balancing.h"
#include "kernel/sim.h"

static bool is_cow_mapping(unsigned long flags)
{
	return !(flags & VM_SHARED) && (flags & VM_WRITE);
}

/* folio_can_map_prot_numa: is hinting this folio useful and safe?
 * Before the mthp-numa series, shared-CoW detection was page_count() != 1,
 * which every PTE-mapped large folio fails (its refcount counts each
 * mapped page), so such folios were never hinted. */
bool folio_can_map_prot_numa(struct folio folio, struct vm_area_struct *vma,
			     bool is_private_single_threaded)
{
	struct sim *s = vma->vm_mm->sim;
	bool pte_mapped_large = folio_test_large(folio) &&
				!pte_table_of(vma, vma_address(vma, folio.idx) ?
						   vma_address(vma, folio.idx) : vma->vm_start)->pmd_huge;

	if (is_cow_mapping(vma->vm_flags)) {
		if (!s->k.mthp_numa && pte_mapped_large)
			return false;
		if (folio_maybe_mapped_shared(folio))
			return false;
	}
	if (folio_maybe_dma_pinned(folio))
		return false;
	if (!folio_test_anon(folio) && folio_test_dirty(folio))
		return false;
	/* a single-threaded process's folio already on this node: a fault
	 * could only say "local" */
	if (is_private_single_threaded && folio_nid(folio) == numa_node_id(s))
		return false;
	return true;
}

/* change_prot_numa: one mmu_gather around change_protection(); the gather
 * keeps mm->tlb_flush_pending raised while the PTEs change.  The scanner
 * (kernel/sched/fair.c) runs the same three parts one PTE table per step. */
unsigned long change_prot_numa(struct vm_area_struct *vma, uint64_t start, uint64_t end)
{
	struct mmu_gather tlb;
	long nr;

	tlb_gather_mmu(&tlb, vma->vm_mm);
	nr = change_protection(&tlb, vma, start, end, MM_CP_PROT_NUMA);
	if (nr > 0)
		count_vm_events(vma->vm_mm->sim, NUMA_PTE_UPDATES, (unsigned long)nr);
	tlb_finish_mmu(&tlb);
	return nr > 0 ? (unsigned long)nr : 0;
}

/* mpol_misplaced for the default policy (MPOL_PREFERRED on the local node
 * with MPOL_F_MORON): a folio already on this node stays, without touching
 * last_cpupid; otherwise this node is the target if
 * should_numa_migrate_memory() agrees. */
int mpol_misplaced(struct folio folio, struct vm_area_struct *vma, uint64_t addr)
{
	struct sim *s = vma->vm_mm->sim;
	int curnid = folio_nid(folio);
	int thiscpu = s->e.cpu;
	int thisnid = numa_node_id(s);
	(void)addr;

	if (curnid == thisnid)
		return NUMA_NO_NODE;
	if (!should_numa_migrate_memory(s, s->current, folio, curnid, thiscpu))
		return NUMA_NO_NODE;
	return thisnid;
}
