/* Transparent huge pages, after mm/huge_memory.c and include/linux/huge_mm.h
 * (linux-next early 2026; what changed between releases is switched by the
 * base, kernel/variants.h):
 *  - the sysfs knobs and which orders a VMA may use at a fault
 *    (thp_vma_allowable_orders, thp_vma_suitable_order, vma_thp_gfp_mask);
 *  - the first-touch allocation with its fallbacks
 *    (do_huge_pmd_anonymous_page, alloc_anon_folio) and counters;
 *  - the huge-PMD NUMA paths: change_huge_pmd, do_huge_pmd_numa_page (and
 *    v5.12's older path), PMD migration entries;
 *  - PMD splits, the deferred split queue, and folio splits for migration.
 * Left out: the huge zero page (every first touch is a write), khugepaged,
 * the deferred-split shrinker and the underused-THP queueing (v6.12: it
 * needs zero-filled pages, which the model does not have), memcg charging,
 * file and shmem THPs (a map_shared store keeps small pages), PUD THPs. */
#include "asm/tlbflush.h"
#include "linux/compaction.h"
#include "linux/huge_mm.h"
#include "linux/migrate.h"
#include "linux/mm.h"
#include "linux/tlb_oracle.h"
#include "linux/mmdebug.h"
#include "linux/sched/numa_balancing.h"
#include "kernel/sim.h"
#include "mm/internal.h"
#include "workload/touch.h"

#define EAGAIN 11

const char *const thp_enabled_names[NR_THP_ENABLED] = {
	[THP_ENABLED_ALWAYS] = "always",
	[THP_ENABLED_MADVISE] = "madvise",
	[THP_ENABLED_NEVER] = "never",
};
const char *const thp_defrag_names[NR_THP_DEFRAG] = {
	[THP_DEFRAG_ALWAYS] = "always",
	[THP_DEFRAG_DEFER] = "defer",
	[THP_DEFRAG_DEFER_MADVISE] = "defer+madvise",
	[THP_DEFRAG_MADVISE] = "madvise",
	[THP_DEFRAG_NEVER] = "never",
};
const char *const thp_size_enabled_names[NR_THP_SIZE_ENABLED] = {
	[THP_SIZE_ALWAYS] = "always",
	[THP_SIZE_INHERIT] = "inherit",
	[THP_SIZE_MADVISE] = "madvise",
	[THP_SIZE_NEVER] = "never",
};
const char *const mthp_stat_names[NR_MTHP_STAT_ITEMS] = {
	[MTHP_STAT_ANON_FAULT_ALLOC] = "anon_fault_alloc",
	[MTHP_STAT_ANON_FAULT_FALLBACK] = "anon_fault_fallback",
	[MTHP_STAT_SPLIT] = "split",
	[MTHP_STAT_SPLIT_DEFERRED] = "split_deferred",
};

void thp_tunables_defaults(struct thp_tunables *t)
{
	t->enabled = THP_ENABLED_NEVER;
	t->defrag = THP_DEFRAG_MADVISE;        /* the static initialiser's DEFRAG_REQ_MADV */
	for (int o = 0; o < NR_PAGE_ORDERS; o++)
		t->size[o] = THP_SIZE_NEVER;   /* hugepage_init_sysfs: mTHP sizes off ... */
	t->size[HPAGE_PMD_ORDER] = THP_SIZE_INHERIT; /* ... the PMD size follows "enabled" */
}

void count_mthp_stat(struct sim *s, unsigned order, enum mthp_stat_item item)
{
	if (s->k.mthp_stats && order < NR_PAGE_ORDERS) /* ec33687c6749 and later, v6.10+ */
		s->mthp_stats[order][item]++;
}

/* ---- which orders ------------------------------------------------------ */

unsigned long thp_vma_allowable_orders(const struct sim *s, unsigned long vm_flags)
{
	const struct thp_tunables *t = &s->t.thp;
	bool madv = vm_flags & VM_HUGEPAGE;
	bool global = t->enabled == THP_ENABLED_ALWAYS || (t->enabled == THP_ENABLED_MADVISE && madv);
	unsigned long orders = 0;

	if (vm_flags & VM_NOHUGEPAGE)
		return 0;
	for (unsigned o = THP_MIN_ANON_ORDER; o <= HPAGE_PMD_ORDER; o++) {
		/* before v6.8 there is one size, governed by the global knob */
		if (!s->k.mthp_alloc && o != HPAGE_PMD_ORDER)
			continue;
		enum thp_size_enabled e = s->k.mthp_alloc ? t->size[o] : THP_SIZE_INHERIT;
		if (e == THP_SIZE_ALWAYS || (e == THP_SIZE_MADVISE && madv) ||
		    (e == THP_SIZE_INHERIT && global))
			orders |= 1ul << o;
	}
	return orders;
}

bool thp_vma_suitable_order(const struct vm_area_struct *vma, uint64_t addr, unsigned order)
{
	uint64_t size = PAGE_SIZE << order;
	uint64_t start = addr & ~(size - 1);
	return start >= vma->vm_start && start + size <= vma->vm_end;
}

/* vma_thp_gfp_mask: what the allocation may do when no block is free. */
struct thp_gfp {
	bool direct_reclaim;  /* __GFP_DIRECT_RECLAIM: direct compaction */
	bool kswapd_reclaim;  /* __GFP_KSWAPD_RECLAIM: wake kswapd, which wakes kcompactd */
};

static struct thp_gfp vma_thp_gfp_mask(const struct sim *s, unsigned long vm_flags)
{
	bool madv = vm_flags & VM_HUGEPAGE;
	struct thp_gfp g = { false, false };
	switch (s->t.thp.defrag) {
	case THP_DEFRAG_ALWAYS:
		g.direct_reclaim = true; /* with __GFP_NORETRY unless madvised */
		break;
	case THP_DEFRAG_DEFER:
		g.kswapd_reclaim = true;
		break;
	case THP_DEFRAG_DEFER_MADVISE:
		g.direct_reclaim = madv;
		g.kswapd_reclaim = !madv;
		break;
	case THP_DEFRAG_MADVISE:
		g.direct_reclaim = madv;
		break;
	default:
		break;
	}
	return g;
}

/* The @k-th node of @want's zonelist among @allowed: nearest first, ties by
 * number (as mempolicy.c's alloc_pages_policy); -1 past the last. */
static int zonelist_node(const struct sim *s, int want, uint64_t allowed, int k)
{
	uint64_t used = 0;
	int best = -1;
	for (int round = 0; round <= k; round++) {
		best = -1;
		for (int nid = 0; nid < s->m.nr_nodes; nid++) {
			if (!((allowed >> nid) & 1) || ((used >> nid) & 1))
				continue;
			if (best < 0 || s->m.distance[want][nid] < s->m.distance[want][best])
				best = nid;
		}
		if (best < 0)
			return -1;
		used |= 1ull << best;
	}
	return best;
}

/* do_huge_pmd_anonymous_page's allocation (vma_alloc_anon_folio_pmd,
 * alloc_pages_mpol for the PMD order): the faulting node alone first
 * (__GFP_THISNODE | __GFP_NORETRY); a mask with direct reclaim compacts
 * and then may take any node; one with kswapd reclaim wakes kcompactd. */
static bool alloc_thp_pmd(struct sim *s, unsigned long vm_flags, int want, uint64_t allowed,
			  int cpu, int *nid)
{
	struct thp_gfp g = vma_thp_gfp_mask(s, vm_flags);
	if (alloc_pages_node(s, want, HPAGE_PMD_ORDER)) {
		*nid = want;
		return true;
	}
	if (g.direct_reclaim) {
		try_to_compact_pages(s, want, HPAGE_PMD_ORDER, cpu);
		for (int k = 0, n; (n = zonelist_node(s, want, allowed, k)) >= 0; k++)
			if (alloc_pages_node(s, n, HPAGE_PMD_ORDER)) {
				*nid = n;
				return true;
			}
	}
	if (g.kswapd_reclaim)
		wakeup_kcompactd(s, want, HPAGE_PMD_ORDER);
	return false;
}

/* An mTHP order: the normal zonelist, this node first, then the others. */
static bool alloc_mthp(struct sim *s, unsigned order, int want, uint64_t allowed, int *nid)
{
	for (int k = 0, n; (n = zonelist_node(s, want, allowed, k)) >= 0; k++)
		if (alloc_pages_node(s, n, order)) {
			*nid = n;
			return true;
		}
	return false;
}

unsigned thp_first_touch(struct sim *s, struct vm_area_struct *vma, unsigned long vm_flags,
			 uint64_t addr, bool pmd_empty, int want, uint64_t allowed, int cpu, int *nid)
{
	unsigned long orders = thp_vma_allowable_orders(s, vm_flags);

	*nid = -1;
	/* __handle_mm_fault: a PMD THP only while the PMD is empty */
	if (pmd_empty && (orders & (1ul << HPAGE_PMD_ORDER)) &&
	    thp_vma_suitable_order(vma, addr, HPAGE_PMD_ORDER)) {
		if (alloc_thp_pmd(s, vm_flags, want, allowed, cpu, nid)) {
			count_vm_events_cpu(s, cpu, THP_FAULT_ALLOC, 1);
			count_mthp_stat(s, HPAGE_PMD_ORDER, MTHP_STAT_ANON_FAULT_ALLOC);
			return HPAGE_PMD_ORDER;
		}
		count_vm_events_cpu(s, cpu, THP_FAULT_FALLBACK, 1);
		count_mthp_stat(s, HPAGE_PMD_ORDER, MTHP_STAT_ANON_FAULT_FALLBACK);
	}
	/* alloc_anon_folio (v6.8+): the enabled orders below the PMD's, the
	 * highest whose aligned block is inside the VMA and all pte_none.
	 * First touch fills a table in address order, so the block is
	 * pte_none exactly when @addr is its start. */
	orders &= (1ul << HPAGE_PMD_ORDER) - 1;
	for (int o = HPAGE_PMD_ORDER - 1; o >= THP_MIN_ANON_ORDER; o--) {
		if (!(orders & (1ul << o)) || !thp_vma_suitable_order(vma, addr, (unsigned)o) ||
		    (addr & ((PAGE_SIZE << o) - 1)))
			continue;
		if (alloc_mthp(s, (unsigned)o, want, allowed, nid)) {
			count_mthp_stat(s, (unsigned)o, MTHP_STAT_ANON_FAULT_ALLOC);
			return (unsigned)o;
		}
		count_mthp_stat(s, (unsigned)o, MTHP_STAT_ANON_FAULT_FALLBACK);
	}
	return 0; /* a small page: the caller allocates it */
}

/* ---- partial unmaps and the deferred split queue ------------------------ */

/* How many of a 2^order folio's pages the scenario unmaps. */
static unsigned partial_unmapped(const struct sim *s, unsigned order)
{
	double f = s->w.p.thp_partial;
	unsigned nr = 1u << order;
	if (f <= 0 || order < THP_MIN_ANON_ORDER)
		return 0;
	unsigned n = (unsigned)(f * nr + 0.5);
	if (n < 1)
		n = 1;
	if (n > nr - 1)
		n = nr - 1;
	return n;
}

unsigned thp_partial_mapped(const struct sim *s, unsigned order)
{
	return (1u << order) - (s->w.p.thp_partial_op == THP_PARTIAL_UNMAP ? partial_unmapped(s, order) : 0);
}

/* Page @i of a 2^order folio is one the scenario unmaps (the pattern). */
bool thp_partial_page_unmapped(const struct sim *s, unsigned order, unsigned i)
{
	unsigned nr = 1u << order, n = partial_unmapped(s, order);
	if (!n || s->w.p.thp_partial_op != THP_PARTIAL_UNMAP)
		return false;
	switch (s->w.p.thp_partial_pattern) {
	case THP_PATTERN_HEAD:
		return i < n;
	case THP_PATTERN_STRIDE: /* n pages spread evenly */
		return (uint64_t)(i + 1) * n / nr > (uint64_t)i * n / nr;
	default:
		return i >= nr - n;
	}
}

void deferred_split_folio(struct sim *s, struct folio folio, int cpu)
{
	struct page_state *head = &folio.fs->pg[folio.idx];
	if (folio_order(folio) < THP_MIN_ANON_ORDER || (head->flags2 & FOLIO2_PARTIALLY_MAPPED))
		return;
	head->flags2 |= FOLIO2_DEFERRED | FOLIO2_PARTIALLY_MAPPED;
	s->pgdat[head->nid].split_queue_len++;
	if (folio_test_pmd_mappable(folio))
		count_vm_events_cpu(s, cpu, THP_DEFERRED_SPLIT_PAGE, 1);
	count_mthp_stat(s, folio_order(folio), MTHP_STAT_SPLIT_DEFERRED);
}

/* __split_huge_pmd_locked: pmdp_invalidate (flushed at once if @flush),
 * then 512 PTEs -- or migration entries with @freeze -- from vm_page_prot
 * and the PMD's young/dirty/write.  A PROT_NONE PMD's NUMA hint is not
 * carried over to the PTEs. */
static void __split_huge_pmd(struct vm_area_struct *vma, uint64_t haddr, bool freeze, bool flush,
			     int cpu)
{
	struct sim *s = vma->vm_mm->sim;
	struct pte_table *t = pte_table_of(vma, haddr);
	workload_table_sync(vma, t); /* simulator: lazy build, the slice's faults in bulk */
	if (!t->pmd_huge)
		return;
	if (s->oracle) /* pmdp_invalidate: the PMD goes before its flush */
		oracle_pmd_invalidate(s, vma, haddr, "__split_huge_pmd_locked", freeze);
	if (flush)
		flush_pmd_tlb_range(vma, haddr, haddr + PMD_SIZE);
	for (unsigned i = 0; i < HPAGE_PMD_NR; i++) {
		uint64_t a = haddr + (uint64_t)i * PAGE_SIZE;
		pte_t *ptep = &vma->ptes[pte_index(vma, a)];
		pte_t old = *ptep;
		if (pte_none(old) || is_migration_entry(old))
			continue;
		pte_t keep = old & (PTE_YOUNG | PTE_DIRTY | PTE_WRITE | PTE_SIM_HOT);
		set_pte_at(vma, a, ptep, freeze ? PTE_MIGRATION | keep : PTE_PRESENT | keep);
		if (freeze)
			vma->store->pg[vma_store_idx(vma, a)].mapcount--;
	}
	t->pmd_huge = false;
	t->pmd_protnone = false;
	if (s->oracle)
		oracle_ctx_set(s, "set_pte_at");
	count_vm_events_cpu(s, cpu, THP_SPLIT_PMD, 1);
}

void split_huge_pmd(struct vm_area_struct *vma, uint64_t haddr, bool freeze)
{
	struct sim *s = vma->vm_mm->sim;
	__split_huge_pmd(vma, haddr, freeze, true, s->e.cpu);
	touch_changed(&s->w.touch, pte_table_of(vma, haddr)->group);
}

void thp_partial_table(struct sim *s, struct vm_area_struct *vma, struct pte_table *t, int cpu,
		       bool count)
{
	uint64_t i0 = (uint64_t)(t - vma->tables) * PTRS_PER_PTE;
	uint64_t i1 = i0 + PTRS_PER_PTE < vma_pages(vma) ? i0 + PTRS_PER_PTE : vma_pages(vma);
	bool write = !t->lazy;

	for (uint64_t i = i0; i < i1;) {
		uint64_t idx = vma->store_pgoff + i;
		unsigned order = write ? vma->store->pg[idx].flags >> FOLIO_ORDER_SHIFT : t->lazy_order;
		unsigned nr = 1u << order;
		struct folio f = { vma->store, idx };
		i += nr;
		if (order < THP_MIN_ANON_ORDER)
			continue;
		/* munmap / MADV_DONTNEED or mprotect of part of the folio: a
		 * PMD mapping is split first (zap_pmd_range, change_pmd_range) */
		if (order == HPAGE_PMD_ORDER && count)
			count_vm_events_cpu(s, cpu, THP_SPLIT_PMD, 1);
		if (write && order == HPAGE_PMD_ORDER && t->pmd_huge) {
			t->pmd_huge = false; /* nothing runs yet: no flush needed */
			t->pmd_protnone = false;
		}
		if (s->w.p.thp_partial_op != THP_PARTIAL_UNMAP)
			continue; /* mprotect: the folio stays fully mapped, by PTEs */
		if (write) {
			for (unsigned k = 0; k < nr; k++) {
				if (!thp_partial_page_unmapped(s, order, k))
					continue;
				uint64_t a = vma->vm_start + ((idx + k - vma->store_pgoff) << PAGE_SHIFT);
				set_pte_at(vma, a, &vma->ptes[pte_index(vma, a)], 0);
				vma->store->pg[idx + k].mapcount = 0;
			}
			f.fs->pg[f.idx].flags2 |= FOLIO2_DEFERRED | FOLIO2_PARTIALLY_MAPPED;
		}
		if (count) {
			/* deferred_split_folio, counted now for every table */
			s->pgdat[write ? f.fs->pg[f.idx].nid : t->home_nid].split_queue_len++;
			if (order == HPAGE_PMD_ORDER)
				count_vm_events_cpu(s, cpu, THP_DEFERRED_SPLIT_PAGE, 1);
			count_mthp_stat(s, order, MTHP_STAT_SPLIT_DEFERRED);
		}
	}
	if (!write && count)
		t->pmd_huge = false; /* the lazy table's PMD was split too */
}

/* ---- scanning: change_huge_pmd ------------------------------------------- */

long change_huge_pmd(struct mmu_gather *tlb, struct vm_area_struct *vma, uint64_t addr)
{
	struct sim *s = vma->vm_mm->sim;
	struct pte_table *t = pte_table_of(vma, addr);
	uint64_t start = addr & ~(PMD_SIZE - 1);

	workload_table_sync(vma, t); /* simulator: lazy build, the slice's faults in bulk */
	charge(s, COST_SCAN, s->m.cost.pte_table_ns);
	/* a PMD migration entry, or already PROT_NONE: nothing to do */
	if (t->pmd_protnone || is_migration_entry(vma->ptes[pte_index(vma, start)]))
		return 0;
	struct folio folio = page_folio(vma->store, vma_store_idx(vma, start));
	bool spst = !(vma->vm_flags & VM_SHARED) && vma->vm_mm->mm_users == 1;
	/* v6.19 applies folio_can_map_prot_numa to PMDs; before, only the
	 * zero page, protnone and the tiering tests */
	if (s->k.pmd_prot_numa_checks && !folio_can_map_prot_numa(folio, vma, spst))
		return 0;
	if (numa_tiering_mode(s) && !prot_numa_tier(s, folio, jiffies_to_msecs(s, jiffies(s))))
		return 0;
	if (s->oracle)
		oracle_ctx_set(s, "change_huge_pmd");
	t->pmd_protnone = true;
	for (unsigned i = 0; i < HPAGE_PMD_NR; i++) {
		uint64_t a = start + (uint64_t)i * PAGE_SIZE;
		pte_t *ptep = &vma->ptes[pte_index(vma, a)];
		if (pte_present(*ptep))
			set_pte_at(vma, a, ptep, pte_mkprotnone(*ptep));
	}
	if (s->k.huge_pmd_immediate_flush) {
		/* before 4a18419f71cd (v5.19): pmdp_invalidate flushes the PMD
		 * now, and change_protection_range still flushes the whole
		 * range at the end (flush_tlb_range: page stride) */
		s->flush_origin = FLUSH_FROM_OTHER;
		flush_pmd_tlb_range(vma, start, start + PMD_SIZE);
		tlb_flush_pte_range(tlb, start, PMD_SIZE);
	} else {
		tlb_flush_pmd_range(tlb, start, PMD_SIZE);
	}
	touch_changed(&s->w.touch, t->group);
	return HPAGE_PMD_NR;
}

/* ---- hint faults: do_huge_pmd_numa_page ---------------------------------- */

/* Restore the PMD from vm_page_prot: young, writable if allowed; no flush
 * (it was not accessible). */
static void huge_pmd_restore(struct vm_area_struct *vma, uint64_t haddr, bool writable)
{
	struct pte_table *t = pte_table_of(vma, haddr);
	for (unsigned i = 0; i < HPAGE_PMD_NR; i++) {
		uint64_t a = haddr + (uint64_t)i * PAGE_SIZE;
		pte_t *ptep = &vma->ptes[pte_index(vma, a)];
		if (!pte_protnone(*ptep))
			continue;
		set_pte_at(vma, a, ptep, PTE_PRESENT | PTE_YOUNG | (writable ? PTE_WRITE : 0) |
					 (*ptep & (PTE_DIRTY | PTE_SIM_HOT)));
	}
	t->pmd_protnone = false;
}

bool do_huge_pmd_numa_page(struct vm_fault *vmf)
{
	struct vm_area_struct *vma = vmf->vma;
	struct sim *s = vma->vm_mm->sim;
	struct task_struct *p = s->current;
	struct pte_table *t = vmf->pmd;
	uint64_t haddr = vmf->address & ~(PMD_SIZE - 1);
	int flags = 0, last_cpupid = (int)LAST_CPUPID_UNSET, target;

	ptl_lock(s, t);
	charge(s, COST_HINT_FAULT, s->m.cost.hint_fault_ns);
	if (s->oracle)
		oracle_note(s, ON_FAULT, vma->vm_mm, vmf->address);
	if (!t->pmd_huge || !t->pmd_protnone) {
		ptl_unlock(s, t); /* pmd_same failed: nothing to do */
		return false;
	}
	struct folio folio = page_folio(vma->store, vma_store_idx(vma, haddr));
	bool writable = pte_writable_after_fault(vma);
	/* v5.12 (before c5b5a3dd2c1f): a THP being migrated makes the other
	 * faulters wait and retry, unaccounted (the wait is not modelled) */
	if (!s->k.thp_numa_generic && (folio.fs->pg[folio.idx].flags & FOLIO_ISOLATED)) {
		ptl_unlock(s, t);
		return false;
	}
	int nid = folio_nid(folio);
	target = numa_migrate_check(s, folio, vmf, &flags, writable, &last_cpupid);
	if (target == NUMA_NO_NODE)
		goto out_map;
	if (migrate_misplaced_folio_prepare(s, folio, vma, target)) {
		flags |= TNF_MIGRATE_FAIL;
		goto out_map;
	}
	/* v5.12: make sure no CPU still writes through the old PMD: a flush
	 * if any gather is open on the mm (f00230ff8411 removed it in v5.15) */
	if (!s->k.thp_numa_generic && mm_tlb_flush_pending(vma->vm_mm))
		flush_tlb_range(vma, haddr, haddr + PMD_SIZE);
	ptl_unlock(s, t);
	trace(s, TR_HINT_FAULT, s->e.cpu, p->pid, s->e.t0, sim_now(s) - s->e.t0, (int64_t)vmf->address,
	      nid, target, flags);
	p->fault = (struct numa_fault_ctx){
		.vma = vma, .addr = vmf->address, .folio = folio, .target_nid = target,
		.last_cpupid = last_cpupid, .flags = flags, .folio_nid_at_fault = nid,
		.nr_pages = HPAGE_PMD_NR, .pmd = true,
	};
	return true;

out_map:
	huge_pmd_restore(vma, haddr, writable);
	ptl_unlock(s, t);
	trace(s, TR_HINT_FAULT, s->e.cpu, p->pid, s->e.t0, sim_now(s) - s->e.t0, (int64_t)vmf->address,
	      nid, NUMA_NO_NODE, flags);
	touch_changed(&s->w.touch, t->group);
	task_numa_fault(s, last_cpupid, nid, HPAGE_PMD_NR, flags);
	return false;
}

void do_huge_pmd_numa_page_migrated(struct sim *s, bool migrated)
{
	struct numa_fault_ctx *f = &s->current->fault;
	struct vm_area_struct *vma = f->vma;
	uint64_t haddr = f->addr & ~(PMD_SIZE - 1);
	struct pte_table *t = pte_table_of(vma, haddr);

	if (migrated) {
		f->flags |= TNF_MIGRATED;
		task_numa_fault(s, f->last_cpupid, f->target_nid, HPAGE_PMD_NR, f->flags);
		return;
	}
	f->flags |= TNF_MIGRATE_FAIL;
	ptl_lock(s, t);
	if (!t->pmd_huge || !t->pmd_protnone) {
		ptl_unlock(s, t); /* the PMD changed meanwhile: return quietly */
		return;
	}
	/* restore without write: the attempt may have lost it (v5.12's path
	 * keeps the mapping it had) */
	huge_pmd_restore(vma, haddr, !s->k.thp_numa_generic && pte_writable_after_fault(vma));
	ptl_unlock(s, t);
	touch_changed(&s->w.touch, t->group);
	task_numa_fault(s, f->last_cpupid, folio_nid(f->folio), HPAGE_PMD_NR, f->flags);
}

/* ---- PMD migration entries ---------------------------------------------- */

void set_pmd_migration_entry(struct vm_area_struct *vma, uint64_t haddr)
{
	struct sim *s = vma->vm_mm->sim;
	struct pte_table *t = pte_table_of(vma, haddr);

	/* pmdp_invalidate: a present PMD (PROT_NONE is present) is flushed at
	 * once -- no batching, no pte_accessible test, no generation bump */
	s->flush_origin = FLUSH_FROM_OTHER;
	if (s->oracle) /* pmdp_invalidate: the PMD goes before its flush */
		oracle_pmd_invalidate(s, vma, haddr, "set_pmd_migration_entry", true);
	flush_pmd_tlb_range(vma, haddr, haddr + PMD_SIZE);
	for (unsigned i = 0; i < HPAGE_PMD_NR; i++) {
		uint64_t a = haddr + (uint64_t)i * PAGE_SIZE;
		pte_t *ptep = &vma->ptes[pte_index(vma, a)];
		pte_t v = *ptep;
		if (!pte_present(v))
			continue;
		set_pte_at(vma, a, ptep, PTE_MIGRATION | (v & (PTE_WRITE | PTE_YOUNG | PTE_DIRTY | PTE_SIM_HOT)));
		VM_BUG_ON(!vma->store->pg[vma_store_idx(vma, a)].mapcount);
		vma->store->pg[vma_store_idx(vma, a)].mapcount--;
	}
	t->pmd_protnone = false;
	if (s->oracle)
		oracle_ctx_set(s, "set_pte_at");
	trace(s, TR_SET_MIGRATION_PTE, s->e.cpu, current_pid(s), sim_now(s), 0, (int64_t)haddr,
	      PTE_MIGRATION, HPAGE_PMD_ORDER, 0);
}

void remove_migration_pmd(struct sim *s, struct vm_area_struct *vma, uint64_t haddr)
{
	struct folio folio = page_folio(vma->store, vma_store_idx(vma, haddr));
	pte_t last = 0;
	for (unsigned i = 0; i < HPAGE_PMD_NR; i++) {
		uint64_t a = haddr + (uint64_t)i * PAGE_SIZE;
		pte_t *ptep = &vma->ptes[pte_index(vma, a)];
		pte_t e = *ptep;
		if (!is_migration_entry(e))
			continue;
		/* from vm_page_prot: never PROT_NONE; write only if the entry
		 * was writable (a PROT_NONE PMD's was not) */
		pte_t pmd = PTE_PRESENT | (e & (PTE_YOUNG | PTE_WRITE | PTE_SIM_HOT));
		if ((e & PTE_DIRTY) && folio_test_dirty(folio))
			pmd |= PTE_DIRTY;
		set_pte_at(vma, a, ptep, pmd);
		vma->store->pg[vma_store_idx(vma, a)].mapcount++;
		last = pmd;
	}
	trace(s, TR_REMOVE_MIGRATION_PTE, s->e.cpu, current_pid(s), sim_now(s), 0, (int64_t)haddr, last,
	      HPAGE_PMD_ORDER, 0);
}

/* ---- splitting a folio for migration -------------------------------------- */

/* unmap_folio: try_to_migrate with TTU_SPLIT_HUGE_PMD for a PMD mapping
 * (split straight into migration entries), batching the PTE flushes since
 * v6.8, then one try_to_unmap_flush. */
static void unmap_folio(struct sim *s, struct folio folio)
{
	enum ttu_flags ttu = s->k.split_unmap_batch ? TTU_BATCH_FLUSH : 0;
	for (int m = 0; m < folio.fs->nr_mappers; m++) {
		struct vm_area_struct *vma = folio.fs->mappers[m];
		uint64_t a = vma_address(vma, folio.idx);
		if (!a)
			continue;
		struct pte_table *t = pte_table_of(vma, a);
		if (t->pmd_huge && folio_test_pmd_mappable(folio)) {
			__split_huge_pmd(vma, a & ~(PMD_SIZE - 1), true, true, s->e.cpu);
			continue;
		}
		try_to_migrate_one(folio, vma, a, ttu);
	}
	try_to_unmap_flush(s);
}

int split_folio(struct sim *s, struct folio folio)
{
	struct page_state *head = &folio.fs->pg[folio.idx];
	unsigned order = folio_order(folio), nr = 1u << order;

	if (head->flags & FOLIO_LOCKED) /* try_split_folio's trylock, ASYNC */
		return -EAGAIN;
	/* lock, unmap, freeze and split: a migration's setup; remap_page: a
	 * remap (the model's costs of those steps) */
	charge(s, COST_MIGRATE, s->m.cost.migrate_setup_ns + s->m.cost.remap_ns);
	for (int m = 0; m < folio.fs->nr_mappers; m++) { /* simulator: as each path that looks */
		struct vm_area_struct *vma = folio.fs->mappers[m];
		uint64_t a = vma_address(vma, folio.idx);
		if (a)
			workload_table_sync(vma, pte_table_of(vma, a));
	}
	unmap_folio(s, folio);
	/* __folio_split: off the deferred queue, every page its own folio */
	if (head->flags2 & FOLIO2_DEFERRED)
		s->pgdat[head->nid].split_queue_len--;
	uint8_t keep = head->flags & (FOLIO_ISOLATED | FOLIO_DIRTY);
	uint32_t cpupid = head->last_cpupid;
	for (unsigned i = 0; i < nr; i++) {
		struct page_state *pg = &folio.fs->pg[folio.idx + i];
		pg->flags = keep;      /* order 0; each piece is on the split list */
		pg->flags2 = 0;
		pg->last_cpupid = cpupid;
	}
	if (order == HPAGE_PMD_ORDER)
		count_vm_event(s, THP_SPLIT_PAGE);
	count_mthp_stat(s, order, MTHP_STAT_SPLIT);
	/* remap_page: every migration entry becomes a present PTE again */
	for (unsigned i = 0; i < nr; i++) {
		struct folio piece = { folio.fs, folio.idx + i };
		remove_migration_ptes(s, piece);
	}
	for (int m = 0; m < folio.fs->nr_mappers; m++) {
		struct vm_area_struct *vma = folio.fs->mappers[m];
		uint64_t a = vma_address(vma, folio.idx);
		if (a)
			touch_changed(&s->w.touch, pte_table_of(vma, a)->group);
	}
	return 0;
}
