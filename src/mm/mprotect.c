/* change_protection() for MM_CP_PROT_NUMA, after mm/mprotect.c (linux-next,
 * early 2026, with folio_can_map_prot_numa from mm/mempolicy.c).
 * Left out: userfaultfd write-protect, soft-dirty, device-private entries,
 * the non-NUMA mprotect() uses, mprotect_folio_pte_batch's arch batching
 * (the model changes a large folio's PTEs one by one, same result). */
#include <string.h>

#include "asm/tlbflush.h"
#include "linux/huge_mm.h"
#include "linux/mm.h"
#include "linux/tlb_oracle.h"
#include "kernel/sim.h"
#include "mm/internal.h"
#include "workload/touch.h"

/* What change_pte_range's loop carries, for change_small_ptes. */
struct small_run {
	pte_t *ptes;
	const struct page_state *pg; /* the VMA's pages in its store */
	struct prot_numa_test pt;
	bool anon;
	long looked, pages;
	uint64_t changed_lo, changed_hi;
	uint64_t last;               /* the last order-0 folio tested (PTE index), or UINT64_MAX */
};

/* The fields of an order-0 page's state that fail prot_numa_test_small
 * for every PTE of a run, or end the run (a large folio's order), as one
 * mask over the 8-byte word: the order, FOLIO_PINNED, FOLIO_DIRTY outside
 * anonymous memory, and mapcount's bits above the lowest in a COW mapping
 * (mapcount > 1).  The local node's test is not in it: the callers use
 * the mask only without one (NUMA_NO_NODE).  Built field by field, so the
 * byte order does not matter. */
static uint64_t small_fail_mask(const struct prot_numa_test *pt, bool anon)
{
	struct page_state m = {
		.flags = (uint8_t)((0xffu << FOLIO_ORDER_SHIFT) | FOLIO_PINNED | (anon ? 0 : FOLIO_DIRTY)),
		.mapcount = pt->cow ? PAGE_MAPCOUNT_MAX & ~1u : 0,
	};
	uint64_t w;
	memcpy(&w, &m, sizeof(w));
	return w;
}

/* change_pte_range's loop for a run of PTEs whose folios are order 0, as
 * the bases with prot_numa_test_small test them and without the oracle:
 * the loop's own steps, in a function of its own so that what it carries
 * stays in registers (the whole loop has too much to keep there).  It
 * returns at the first present PTE of a large folio, or @iend: the
 * caller's loop takes that PTE.
 *
 * Eight PTEs at a time (a PTE is one byte) where the test has no local
 * node: when all eight are present and not PROT_NONE (bit 0 set in each
 * byte: pte_present && !pte_protnone) and none of their pages has a bit
 * of small_fail_mask (their words OR-ed), every one passes and none is
 * large, so all eight become pte_mkprotnone at once -- the same PTEs and
 * counts as one by one.  Anything else goes one by one. */
__attribute__((noinline)) static uint64_t change_small_ptes(struct small_run *r, uint64_t i,
							     uint64_t iend)
{
	pte_t *ptes = r->ptes;
	const struct page_state *pg = r->pg;
	const struct prot_numa_test pt = r->pt;
	const bool anon = r->anon;
	const uint64_t from = i;
	long pages = r->pages;
	uint64_t lo = r->changed_lo, hi = r->changed_hi, last = r->last;
	const bool by8 = pt.local_nid == NUMA_NO_NODE;
	const uint64_t fail = small_fail_mask(&pt, anon), ones = 0x0101010101010101ull;
	_Static_assert(PTE_PRESENT == 0x01 && sizeof(pte_t) == 1, "one PTE a byte, present in bit 0");
	while (i < iend) {
		uint64_t stop = iend - i < 8 ? iend : i + 8;
		if (by8 && stop == i + 8) {
			uint64_t x, any = 0;
			memcpy(&x, &ptes[i], sizeof(x));
			if ((x & ones) == ones) {
				for (int j = 0; j < 8; j++) {
					uint64_t w;
					memcpy(&w, &pg[i + (uint64_t)j], sizeof(w));
					any |= w;
				}
				if (!(any & fail)) {
					/* pte_mkprotnone of each byte */
					x = PTE_PROTNONE * ones | (x & (PTE_YOUNG | PTE_DIRTY | PTE_SIM_HOT) * ones);
					memcpy(&ptes[i], &x, sizeof(x));
					if (!pages)
						lo = i;
					hi = last = i + 7;
					pages += 8;
					i += 8;
					continue;
				}
			}
		}
		for (; i < stop; i++) {
			pte_t old = ptes[i];
			if (!pte_present(old) || pte_protnone(old))
				continue;
			struct page_state ps = pg[i];
			if (ps.flags >> FOLIO_ORDER_SHIFT)
				goto large; /* a large folio */
			last = i;
			if (!prot_numa_test_small(&pt, ps, anon))
				continue;
			set_pte_protnone_batched(&ptes[i], pte_mkprotnone(old));
			if (!pages)
				lo = i;
			hi = i;
			pages++;
		}
	}
large:
	r->looked += (long)(i - from); /* every PTE before the one returned */
	r->pages = pages;
	r->changed_lo = lo;
	r->changed_hi = hi;
	r->last = last;
	return i;
}

/* change_pte_range: one PTE table, under its PTL.  Flush any batched
 * unmaps first (flush_tlb_batched_pending), then make every present,
 * not-yet-PROT_NONE PTE whose folio may be NUMA-hinted PROT_NONE.
 * The loop runs over the table's PTE indexes: the PTE, its store page and
 * its bit in the table's bitmaps follow from one index. */
long change_pte_range(struct mmu_gather *tlb, struct vm_area_struct *vma, uint64_t addr,
		      uint64_t end, unsigned long cp_flags)
{
	struct mm_struct *mm = vma->vm_mm;
	struct sim *s = mm->sim;
	const struct cost_model *cm = &s->m.cost;
	struct pte_table *t = pte_table_of(vma, addr);
	bool prot_numa = cp_flags & MM_CP_PROT_NUMA;
	bool is_private_single_threaded = !(vma->vm_flags & VM_SHARED) && mm->mm_users == 1;
	long pages = 0, looked = 0;
	uint64_t t_start = sim_now(s), first = addr;
	/* the verdict for the folio of the previous PTE: the test runs once
	 * per folio batch (mprotect_folio_pte_batch, v6.17) */
	struct folio_store *last_fs = NULL;
	uint64_t last_idx = 0;
	bool flushed = false;

	workload_table_sync(vma, t); /* simulator: lazy build, pooled faults */
	if (s->oracle)
		oracle_ctx_set(s, "change_pte_range");
	/* pte_offset_map_lock */
	if (t->ptl_free_at > sim_now(s))
		charge(s, COST_LOCK_WAIT, (double)(t->ptl_free_at - sim_now(s)));
	if (flush_tlb_batched_pending(mm) && s->current && s->current->act == ACT_SCAN) {
		s->st.scanner_flushes++;
		s->st.scanner_flushes_cpr++;
		flushed = true;
	}

	/* what the loop reads of the call's context, read once: each PTE
	 * store could alias it, so the compiler would reload it per PTE */
	struct prot_numa_test pt;
	prot_numa_test_init(&pt, vma, is_private_single_threaded);
	bool oracle = s->oracle != NULL;
	pte_t *ptes = vma->ptes;
	struct folio_store *fs = vma->store;
	uint64_t pgoff = vma->store_pgoff;
	/* the tests of the mTHP bases (prot_numa_test_folio) take a small
	 * folio's one page_state; the older ones' go through prot_numa_test */
	const bool small_test = pt.mthp_numa, anon = fs->anon;
	uint64_t i = pte_index(vma, addr), iend = i + ((end - addr) >> PAGE_SHIFT);
	uint64_t changed_lo = 0, changed_hi = 0; /* PTE indexes */
	/* tiering mode tests and stamps every folio: the loop below */
	const bool tiering = prot_numa && numa_tiering_mode(s);
	const unsigned now_ms = tiering ? jiffies_to_msecs(s, jiffies(s)) : 0;
	const bool fast = prot_numa && small_test && !oracle && !tiering;
	struct small_run run = { .ptes = ptes, .pg = fs->pg + pgoff, .pt = pt, .anon = anon,
				 .last = UINT64_MAX };
	for (; i < iend; i++) {
		if (fast) { /* the order-0 folios up to the next large one */
			run.looked = looked;
			run.pages = pages;
			run.changed_lo = changed_lo;
			run.changed_hi = changed_hi;
			i = change_small_ptes(&run, i, iend);
			looked = run.looked;
			pages = run.pages;
			changed_lo = run.changed_lo;
			changed_hi = run.changed_hi;
			if (run.last != UINT64_MAX) {
				last_fs = fs;
				last_idx = pgoff + run.last;
				run.last = UINT64_MAX;
			}
			if (i >= iend)
				break;
		}
		pte_t old = ptes[i];
		looked++;
		if (!pte_present(old))
			continue;
		if (prot_numa) {
			if (pte_protnone(old))
				continue;
			struct page_state ps = fs->pg[pgoff + i];
			if (small_test && !(ps.flags >> FOLIO_ORDER_SHIFT)) {
				/* an order-0 folio: its one page's tests */
				last_fs = fs;
				last_idx = pgoff + i;
				if (!prot_numa_test_small(&pt, ps, anon))
					continue;
				if (tiering && !prot_numa_tier(s, page_folio(fs, pgoff + i), now_ms))
					continue;
			} else {
				struct folio folio = page_folio(fs, pgoff + i);
				bool same = folio_test_large(folio) && last_fs == folio.fs &&
					    last_idx == folio.idx && pt.mthp_numa;
				last_fs = folio.fs;
				last_idx = folio.idx;
				if (!same && (!prot_numa_test(&pt, folio, pgoff + i) ||
					      (tiering && !prot_numa_tier(s, folio, now_ms)))) {
					/* skip the rest of this folio's PTEs in the table */
					uint64_t fend = folio.idx + folio_nr_pages(folio) - pgoff;
					if (fend > iend)
						fend = iend;
					looked += (long)(fend - i) - 1;
					i = fend - 1;
					continue;
				}
			}
		}
		pte_t newpte = pte_mkprotnone(old);
		set_pte_protnone_batched(&ptes[i], newpte);
		if (oracle)
			oracle_pte_off(s, vma, vma->vm_start + (i << PAGE_SHIFT), newpte);
		if (!pages)
			changed_lo = i;
		changed_hi = i;
		pages++;
	}
	set_ptes_done(vma, t); /* the bitmaps and the touch model's counts, once per table */
	/* present -> PROT_NONE needs a flush: the kernel adds each PTE's page to
	 * the gather's range (tlb_flush_pte_range); their union, added once,
	 * gives the same range, and nothing reads it before the table is done */
	if (pages)
		tlb_flush_pte_range(tlb, vma->vm_start + (changed_lo << PAGE_SHIFT),
				    (changed_hi - changed_lo + 1) << PAGE_SHIFT);
	charge(s, COST_SCAN, cm->pte_table_ns + (double)pages * cm->pte_update_ns +
				     (double)(looked - pages) * cm->pte_skip_ns);
	ptl_unlock(s, t);
	workload_pool_offer(s, vma, t);
	touch_changed(&s->w.touch, t->group);
	trace(s, TR_PTE_TABLE, s->e.cpu, current_pid(s), t_start, sim_now(s) - t_start, (int64_t)first,
	      pages, flushed, 0);
	return pages;
}

long change_pmd_step(struct mmu_gather *tlb, struct vm_area_struct *vma, uint64_t addr,
		     uint64_t end, unsigned long cp_flags, long *huge_updates)
{
	struct pte_table *t = pte_table_of(vma, addr);
	uint64_t next = (addr & ~(PMD_SIZE - 1)) + PMD_SIZE;
	if (next > end)
		next = end;
	if (t->pmd_huge) {
		/* a huge PMD the range does not cover whole is split (the
		 * scanner's chunks are PMD aligned, so it never splits one) */
		if (next - addr != PMD_SIZE) {
			split_huge_pmd(vma, addr & ~(PMD_SIZE - 1), false);
			return change_pte_range(tlb, vma, addr, next, cp_flags);
		}
		long n = change_huge_pmd(tlb, vma, addr);
		if (n)
			(*huge_updates)++;
		return n;
	}
	return change_pte_range(tlb, vma, addr, next, cp_flags);
}

long change_protection(struct mmu_gather *tlb, struct vm_area_struct *vma, uint64_t start,
		       uint64_t end, unsigned long cp_flags)
{
	long pages = 0, huge = 0;
	for (uint64_t addr = start; addr < end; addr = (addr & ~(PMD_SIZE - 1)) + PMD_SIZE)
		pages += change_pmd_step(tlb, vma, addr, end, cp_flags, &huge);
	if (huge)
		count_vm_events(vma->vm_mm->sim, NUMA_HUGE_PTE_UPDATES, (unsigned long)huge);
	return pages;
}
