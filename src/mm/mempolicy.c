/* NUMA hinting from mm/mempolicy.c (linux-next, early 2026): change_prot_numa,
 * folio_can_map_prot_numa and the default policy's mpol_misplaced.
 * Left out: explicit mbind/set_mempolicy policies (every VMA has the default
 * local policy, MPOL_F_MOF|MPOL_F_MORON), memory tiering, KSM, zone-device,
 * memcg counters. */
#include "linux/migrate.h"
#include "linux/mm.h"
#include "linux/sched/numa_balancing.h"
#include "kernel/sim.h"

static bool is_cow_mapping(unsigned long flags)
{
	return !(flags & VM_SHARED) && (flags & VM_WRITE);
}

/* folio_can_map_prot_numa: is hinting this folio useful and safe?  The
 * v6.19 helper; its COW test was folio_likely_mapped_shared (plus DMA pins)
 * from v6.10 and folio_maybe_mapped_shared from v6.15. */
bool folio_can_map_prot_numa(struct folio folio, struct vm_area_struct *vma,
			     bool is_private_single_threaded)
{
	struct sim *s = vma->vm_mm->sim;

	if (is_cow_mapping(vma->vm_flags) &&
	    (s->k.maybe_mapped_shared ? folio_maybe_mapped_shared(folio)
				      : folio_likely_mapped_shared(folio)))
		return false;
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

/* page_count() of a folio's pages: one reference per PTE mapping (one per
 * PMD mapping), one for an isolation, and DMA pins. */
static int folio_ref_count(struct folio folio)
{
	const struct page_state *head = &folio.fs->pg[folio.idx];
	int refs = folio_test_large(folio) ? folio_total_mapcount(folio) : head->mapcount;
	if (head->flags & FOLIO_ISOLATED)
		refs++;
	if (head->flags & FOLIO_PINNED)
		refs += 1024; /* GUP_PIN_COUNTING_BIAS */
	return refs;
}

bool prot_numa_can_map(struct folio folio, uint64_t idx, struct vm_area_struct *vma,
		       bool is_private_single_threaded)
{
	struct sim *s = vma->vm_mm->sim;

	if (s->k.mthp_numa) /* d2136d749d76 and later */
		return folio_can_map_prot_numa(folio, vma, is_private_single_threaded);
	if (is_cow_mapping(vma->vm_flags)) {
		if (s->k.prot_numa_refcount) {
			/* 80d47f5de5e3 (v5.14): "Don't touch entries that are not
			 * even readable" -- page_count() != 1, which a large folio
			 * with two mapped PTEs always fails */
			if (folio_ref_count(folio) != 1)
				return false;
		} else if (folio.fs->pg[idx].mapcount != 1) {
			return false; /* v5.12: page_mapcount() of this page */
		}
	}
	if (!folio_test_anon(folio) && folio_test_dirty(folio))
		return false;
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
