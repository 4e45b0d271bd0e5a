/* Prototypes of the modelled mm paths, grouped by kernel file under mm/. */
#ifndef NUMASIM_MM_H
#define NUMASIM_MM_H

#include <stdbool.h>
#include <stdint.h>

#include "linux/mm_types.h"

struct sim;

enum ttu_flags {
	TTU_SPLIT_HUGE_PMD = 0x4,
	TTU_BATCH_FLUSH = 0x20,
};

#define MM_CP_PROT_NUMA 0x2

/* Page-table helpers: the PTE and 2 MiB table of @addr in @vma, and the
 * store page it maps (the model's pte_offset_map, pmd and pfn). */
static inline uint64_t pte_index(const struct vm_area_struct *vma, uint64_t addr)
{
	return (addr - vma->vm_start) >> PAGE_SHIFT;
}
static inline uint64_t vma_store_idx(const struct vm_area_struct *vma, uint64_t addr)
{
	return vma->store_pgoff + pte_index(vma, addr);
}
/* Simulator: fill in the struct of table @t of @vma, not set up yet
 * (struct pte_table), from the layout (workload/workload.c). */
void workload_table_setup(struct vm_area_struct *vma, struct pte_table *t);
/* Table @ti of @vma, its struct set up on first use.  The kernel paths
 * take a table through here (pte_table_of, table_of_id); the touch model
 * indexes tables itself, but only tables a path has made PROT_NONE, and
 * the invariant checker reads one not set up through workload_table_view. */
static inline struct pte_table *vma_pte_table(struct vm_area_struct *vma, uint64_t ti)
{
	struct pte_table *t = &vma->tables[ti];
	if (__builtin_expect(!t->rank, 0))
		workload_table_setup(vma, t);
	return t;
}
static inline struct pte_table *pte_table_of(struct vm_area_struct *vma, uint64_t addr)
{
	return vma_pte_table(vma, (addr - vma->vm_start) >> PMD_SHIFT);
}

/* mm/folio.c: folio_likely_mapped_shared (v6.9 .. v6.14): the estimate from
 * the first page's mapcount */
bool folio_likely_mapped_shared(struct folio folio);

/* mm/mmap.c */
struct vm_area_struct *find_vma(struct mm_struct *mm, uint64_t addr);

/* mm/rmap.c */
bool should_defer_flush(struct mm_struct *mm, enum ttu_flags flags);
void set_tlb_ubc_flush_pending(struct mm_struct *mm, pte_t pteval, uint64_t start, uint64_t end);
/* Returns true if it flushed (the kernel's returns void; the model counts). */
bool flush_tlb_batched_pending(struct mm_struct *mm);
void try_to_unmap_flush(struct sim *s);
/* Simulator: free what the batch keeps for the delay histogram. */
void tlb_ubc_free(struct tlbflush_unmap_batch *b);
bool try_to_migrate_one(struct folio folio, struct vm_area_struct *vma, uint64_t addr,
			enum ttu_flags flags);
void try_to_migrate(struct sim *s, struct folio folio, enum ttu_flags flags);
void remove_migration_ptes(struct sim *s, struct folio folio);
/* rmap walk helper: the address of store page @idx in @vma, or 0 if unmapped there. */
uint64_t vma_address(const struct vm_area_struct *vma, uint64_t idx);

/* mm/pgtable-generic.c */
/* set_pte_at: write a PTE of @vma.  The table's PROT_NONE bitmaps and the
 * touch model's counts follow every PROT_NONE change; a path that changes a
 * table's PROT_NONE set tells the touch model once it is done with the
 * table (touch_changed). */
void set_pte_at(struct vm_area_struct *vma, uint64_t addr, pte_t *ptep, pte_t val);

/* The PROT_NONE bitmaps and counts of table @t after its PTE @bit changed
 * from @old to @val: +1 if it became PROT_NONE, -1 if it stopped being, 0
 * otherwise; *hot says which bitmap. */
static inline int pte_table_update(struct pte_table *t, unsigned bit, pte_t old, pte_t val,
				   bool *hot)
{
	bool was = pte_protnone(old), is = pte_protnone(val);
	if (was == is)
		return 0;
	*hot = (old | val) & PTE_SIM_HOT;
	uint64_t *map = *hot ? t->protnone_hot : t->protnone_cold;
	uint16_t *count = *hot ? &t->nr_protnone_hot : &t->nr_protnone_cold;
	if (is) {
		map[bit / 64] |= 1ull << (bit % 64);
		(*count)++;
		return 1;
	}
	map[bit / 64] &= ~(1ull << (bit % 64));
	(*count)--;
	return -1;
}

/* set_pte_at for a path that makes many PTEs of one table PROT_NONE
 * (change_pte_range): the PTE is written at once; set_ptes_done then reads
 * which of the table's PTEs are PROT_NONE now and adds those its bitmaps
 * did not hold to them, to its counts and to the touch model's counts in
 * one go -- the same bits and sums as set_pte_at's one by one, since
 * nothing reads them in between (the bitmaps held exactly the table's
 * PROT_NONE PTEs before: mm/folio_check.c checks it).  @val is PROT_NONE. */
static inline void set_pte_protnone_batched(pte_t *ptep, pte_t val)
{
	*ptep = val;
}
void set_ptes_done(struct vm_area_struct *vma, struct pte_table *t);
pte_t ptep_clear_flush(struct vm_area_struct *vma, uint64_t addr, pte_t *ptep);

/* mm/mmu_gather.c and include/asm-generic/tlb.h */
void inc_tlb_flush_pending(struct mm_struct *mm);
void dec_tlb_flush_pending(struct mm_struct *mm);
static inline bool mm_tlb_flush_pending(struct mm_struct *mm) { return mm->tlb_flush_pending > 0; }
static inline bool mm_tlb_flush_nested(struct mm_struct *mm) { return mm->tlb_flush_pending > 1; }
void tlb_gather_mmu(struct mmu_gather *tlb, struct mm_struct *mm);
void tlb_flush_pte_range(struct mmu_gather *tlb, uint64_t address, uint64_t size);
void tlb_flush_pmd_range(struct mmu_gather *tlb, uint64_t address, uint64_t size);
void tlb_finish_mmu(struct mmu_gather *tlb);
/* tlb_finish_mmu's halves: the flush, then the pending count's drop. */
void tlb_finish_mmu_flush(struct mmu_gather *tlb);
void tlb_finish_mmu_done(struct mmu_gather *tlb);

/* mm/madvise.c: madvise(MADV_COLD), and the workload's callers of it */
void madvise_cold(struct sim *s, struct vm_area_struct *vma, uint64_t start, uint64_t end);
/* madvise(MADV_DONTNEED): zap the range (mm/madvise.c). */
void madvise_dontneed(struct sim *s, struct vm_area_struct *vma, uint64_t start, uint64_t end);
uint32_t madvise_nr_timers(const struct sim *s);
int madvise_init(struct sim *s, uint32_t first);
void madvise_start(struct sim *s);
void madvise_timer(struct sim *s, uint32_t id, uint64_t now);
void madvise_free(struct sim *s);

/* mm/mprotect.c */
long change_pte_range(struct mmu_gather *tlb, struct vm_area_struct *vma, uint64_t addr,
		      uint64_t end, unsigned long cp_flags);
/* One PMD of change_protection(): a huge PMD or a PTE table.  The model
 * steps the walk one PMD at a time so simulated time passes between tables. */
long change_pmd_step(struct mmu_gather *tlb, struct vm_area_struct *vma, uint64_t addr,
		     uint64_t end, unsigned long cp_flags, long *huge_updates);
long change_protection(struct mmu_gather *tlb, struct vm_area_struct *vma, uint64_t start,
		       uint64_t end, unsigned long cp_flags);

/* mm/mempolicy.c */
unsigned long change_prot_numa(struct vm_area_struct *vma, uint64_t start, uint64_t end);
bool folio_can_map_prot_numa(struct folio folio, struct vm_area_struct *vma,
			     bool is_private_single_threaded);
/* change_pte_range's prot_numa test of the PTE of store page @idx, as the
 * base has it (folio_can_map_prot_numa, or the older per-page tests). */
bool prot_numa_can_map(struct folio folio, uint64_t idx, struct vm_area_struct *vma,
		       bool is_private_single_threaded);

/* The same tests in two parts, for change_pte_range's loop: what is the
 * same for every folio of one call -- the base, the VMA's flags, this
 * CPU's node -- once (prot_numa_test_init), then what depends on the folio
 * (prot_numa_test).  The two functions above are the two parts in one. */
struct prot_numa_test {
	bool mthp_numa;           /* the base tests folio_can_map_prot_numa (v6.10) */
	bool maybe_mapped_shared; /* ... with folio_maybe_mapped_shared (v6.15) */
	bool cow;                 /* is_cow_mapping(vma->vm_flags) */
	int local_nid;            /* a private single-threaded mm: this CPU's node; else NUMA_NO_NODE */
	struct vm_area_struct *vma;
};
void prot_numa_test_init(struct prot_numa_test *pt, struct vm_area_struct *vma,
			 bool is_private_single_threaded);
/* The bases before the mTHP series: per-page tests (mm/mempolicy.c). */
bool prot_numa_test_pre_mthp(const struct prot_numa_test *pt, struct folio folio, uint64_t idx);

/* folio_can_map_prot_numa's tests of the folio itself. */
static inline bool prot_numa_test_folio(const struct prot_numa_test *pt, struct folio folio)
{
	if (pt->cow && (pt->maybe_mapped_shared ? folio_maybe_mapped_shared(folio)
						: folio_likely_mapped_shared(folio)))
		return false;
	if (folio_maybe_dma_pinned(folio))
		return false;
	if (!folio_test_anon(folio) && folio_test_dirty(folio))
		return false;
	/* a single-threaded process's folio already on this node: a fault
	 * could only say "local" */
	if (folio_nid(folio) == pt->local_nid)
		return false;
	return true;
}

/* prot_numa_test_folio for an order-0 folio, from its one page's state
 * @ps (@anon: its store's): the same verdict -- for one page,
 * folio_maybe_mapped_shared and folio_likely_mapped_shared both read
 * mapcount > 1 -- from one load, for change_pte_range's loop, where most
 * folios are small. */
static inline bool prot_numa_test_small(const struct prot_numa_test *pt, struct page_state ps,
					bool anon)
{
	if (pt->cow && ps.mapcount > 1)
		return false;
	if (ps.flags & FOLIO_PINNED)
		return false;
	if (!anon && (ps.flags & FOLIO_DIRTY))
		return false;
	return ps.nid != pt->local_nid;
}

static inline bool prot_numa_test(const struct prot_numa_test *pt, struct folio folio, uint64_t idx)
{
	if (pt->mthp_numa) /* d2136d749d76 and later */
		return prot_numa_test_folio(pt, folio);
	return prot_numa_test_pre_mthp(pt, folio, idx);
}
int mpol_misplaced(struct folio folio, struct vm_area_struct *vma, uint64_t addr);

/* The access time a slow-tier folio keeps in its last_cpupid field in
 * tiering mode (linux/mm.h, v6.0): milliseconds, as many bits as the
 * field has.  Debian's amd64 kernels have NR_CPUS 8192: LAST_CPUPID_SHIFT
 * is 8 + 13 = 21 bits, at least PAGE_ACCESS_TIME_MIN_BITS (12), so no
 * buckets and the time wraps every 2^21 ms (35 minutes). */
#define LAST_CPUPID_SHIFT 21
#define PAGE_ACCESS_TIME_BUCKETS 0
#define PAGE_ACCESS_TIME_MASK ((1u << LAST_CPUPID_SHIFT) - 1)
/* folio_xchg_access_time: store @time_ms, return the time stored before. */
static inline unsigned folio_xchg_access_time(struct folio folio, unsigned time_ms)
{
	uint32_t *f = &folio.fs->pg[folio.idx].last_cpupid;
	unsigned last = *f & PAGE_ACCESS_TIME_MASK;
	*f = (time_ms >> PAGE_ACCESS_TIME_BUCKETS) & PAGE_ACCESS_TIME_MASK;
	return last << PAGE_ACCESS_TIME_BUCKETS;
}
struct machine;
struct first_touch_policy;
/* The node a first touch under @pol goes to, for a page of 2 MiB chunk
 * @chunk first touched by a thread on @user_node. */
int mpol_first_touch_node(const struct machine *m, const struct first_touch_policy *pol,
			  int user_node, uint64_t chunk);
/* Take @nr pages on @want or, through its zonelist, the nearest node with
 * room the policy allows; the node, or -1. */
int alloc_pages_policy(struct sim *s, const struct first_touch_policy *pol, int want,
		       unsigned long nr);

/* mm/memory.c */
struct vm_fault {
	struct vm_area_struct *vma;
	uint64_t address;
	struct pte_table *pmd; /* the PTE table under the address's PMD (vmf->pmd) */
	pte_t orig_pte;
};
/* The first half of do_numa_page, up to the PTL drop; returns true if a
 * migration was started (the task's fault context holds its state) and the
 * fault continues in do_numa_page_migrated(). */
bool do_numa_page(struct vm_fault *vmf);
void do_numa_page_migrated(struct sim *s, bool migrated);
void numa_rebuild_single_mapping(struct vm_fault *vmf, struct vm_area_struct *vma,
				 uint64_t addr, pte_t *ptep, bool writable);
void numa_rebuild_large_mapping(struct vm_fault *vmf, struct vm_area_struct *vma,
				struct folio folio, pte_t *ptep, bool ignore_writable,
				bool pte_write_upgrade);

#endif
