/* The memory-management state the modelled kernel paths read and write.
 *
 * Layout follows the kernel's split: a PTE per 4 KiB virtual page of a VMA
 * (one byte here), and a folio store for the physical pages behind it (node,
 * flags, mapcount, last_cpupid: eight bytes a page).  Several VMAs, in one
 * or several mms, may map the same folio store (MAP_SHARED), so a physical
 * page has one folio record and one PTE per mapping.  A folio of order N
 * covers 2^N naturally aligned pages of its store; every page of it carries
 * the same order and node, and the head page holds the folio's flags. */
#ifndef NUMASIM_MM_TYPES_H
#define NUMASIM_MM_TYPES_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "linux/cpumask.h"
#include "sim/engine.h" /* engine_fx_t */

#define PAGE_SHIFT 12
#define PAGE_SIZE (1ul << PAGE_SHIFT)
#define PMD_SHIFT 21
#define PMD_SIZE (1ul << PMD_SHIFT)
#define PTRS_PER_PTE 512
#define HPAGE_PMD_NR 512
#define HPAGE_PMD_ORDER 9
#define TLB_FLUSH_ALL (~0ul)

/* ---- PTE: one byte per virtual page ------------------------------------
 * x86 encoding in the model's terms: PROT_NONE is "not hardware-present but
 * PROTNONE", so pte_present() is PRESENT|PROTNONE, pte_protnone() is
 * PROTNONE alone.  A migration entry is a non-present swap-type entry. */
#define PTE_PRESENT 0x01   /* _PAGE_PRESENT */
#define PTE_PROTNONE 0x02  /* _PAGE_PROTNONE: NUMA hinting */
#define PTE_MIGRATION 0x04 /* migration entry (non-present) */
#define PTE_WRITE 0x08
#define PTE_YOUNG 0x10
#define PTE_DIRTY 0x20
/* Not a kernel bit: the workload's hot-set membership of this page, kept in
 * the spare bit so the fault process can find hot PROT_NONE pages fast. */
#define PTE_SIM_HOT 0x40

typedef uint8_t pte_t;

static inline bool pte_none(pte_t p)
{
	return !(p & (PTE_PRESENT | PTE_PROTNONE | PTE_MIGRATION));
}
static inline bool pte_present(pte_t p) { return p & (PTE_PRESENT | PTE_PROTNONE); }
static inline bool pte_protnone(pte_t p)
{
	return (p & (PTE_PRESENT | PTE_PROTNONE)) == PTE_PROTNONE;
}
/* pte_modify(@p, PAGE_NONE), as change_pte_range and change_huge_pmd
 * make it: PROT_NONE, keeping the pfn, young and dirty (and the workload's
 * hot bit); write goes. */
static inline pte_t pte_mkprotnone(pte_t p)
{
	return PTE_PROTNONE | (p & (PTE_YOUNG | PTE_DIRTY | PTE_SIM_HOT));
}
static inline bool pte_write(pte_t p) { return p & PTE_WRITE; }
static inline bool pte_dirty(pte_t p) { return p & PTE_DIRTY; }
static inline bool pte_young(pte_t p) { return p & PTE_YOUNG; }
static inline bool is_migration_entry(pte_t p) { return p & PTE_MIGRATION; }

/* ---- folio store: the physical pages behind one or more VMAs ----------- */
#define FOLIO_ISOLATED 0x01 /* off the LRU, owned by a migration */
#define FOLIO_LOCKED 0x02
#define FOLIO_DIRTY 0x04
#define FOLIO_PINNED 0x08   /* folio_maybe_dma_pinned */
#define FOLIO_ORDER_SHIFT 4 /* bits 4..7: folio order 0..9 */
/* page_state.flags2, head page: the large-folio state */
#define FOLIO2_DEFERRED 0x01         /* on its node's deferred split queue */
#define FOLIO2_PARTIALLY_MAPPED 0x02 /* PG_partially_mapped (v6.12) */
#define FOLIO2_FREED 0x04            /* any page: freed (a split's unmapped piece) */

#define LAST_CPUPID_UNSET 0xffffffffu

struct vm_area_struct;

/* The state of one physical page: eight bytes, one cache line fetch for a
 * fault's folio lookups.  The kernel's mapcount is an atomic_t; the model's
 * holds 8191 mappings, twice what a scenario can make (a page is mapped at
 * most once per process, and workload.processes is at most 4096: checked
 * in scenario.c), and leaves 3 bits for the FOLIO2_* flags. */
struct page_state {
	uint32_t last_cpupid;  /* (cpu << 8) | (pid & 0xff); head page */
	uint8_t nid;           /* node (equal within a folio) */
	uint8_t flags;         /* FOLIO_* on the head page, order on every page */
	/* number of PTE mappings (a PMD mapping counts on every page) */
	uint16_t mapcount : 13;
	uint16_t flags2 : 3;   /* FOLIO2_* */
};
#define PAGE_MAPCOUNT_MAX 8191
_Static_assert(sizeof(struct page_state) == 8, "a page's state is one 8-byte load");

struct folio_store {
	uint64_t nr_pages;
	struct page_state *pg;
	bool anon;
	struct vm_area_struct **mappers; /* the VMAs mapping this store (rmap) */
	int nr_mappers;
	size_t max_mappers;              /* room in mappers[] */
};

/* A folio is named by its store and head index. */
struct folio {
	struct folio_store *fs;
	uint64_t idx;
};

static inline unsigned folio_order(struct folio f)
{
	return f.fs->pg[f.idx].flags >> FOLIO_ORDER_SHIFT;
}
static inline unsigned long folio_nr_pages(struct folio f)
{
	return 1ul << folio_order(f);
}
static inline int folio_nid(struct folio f) { return f.fs->pg[f.idx].nid; }
static inline bool folio_test_large(struct folio f) { return folio_order(f) > 0; }
static inline bool folio_test_anon(struct folio f) { return f.fs->anon; }
static inline bool folio_test_dirty(struct folio f)
{
	return f.fs->pg[f.idx].flags & FOLIO_DIRTY;
}
static inline bool folio_test_pmd_mappable(struct folio f)
{
	return folio_order(f) >= HPAGE_PMD_ORDER;
}
static inline uint8_t folio_flags2(struct folio f) { return f.fs->pg[f.idx].flags2; }
static inline bool folio_test_partially_mapped(struct folio f)
{
	return f.fs->pg[f.idx].flags2 & FOLIO2_PARTIALLY_MAPPED;
}
static inline bool folio_maybe_dma_pinned(struct folio f)
{
	return f.fs->pg[f.idx].flags & FOLIO_PINNED;
}
/* folio_maybe_mapped_shared: mapped by more than one process (any page). */
bool folio_maybe_mapped_shared(struct folio f);
struct folio page_folio(struct folio_store *fs, uint64_t idx);

/* ---- page tables ------------------------------------------------------- */

/* One PTE table (512 PTEs, 2 MiB of a VMA).  The PROT_NONE bitmaps split by
 * the workload's hot bit are derived state that lets a touch group pick
 * the k-th PROT_NONE page in O(8) words; set_pte_at() keeps them, and the
 * group's counts, in step.
 *
 * Simulator: a lazily built table of small pages is not written at set-up
 * (its struct stays zero, rank 0, in a zero-filled mapping that costs
 * nothing until written): owner, weight, group and rank follow from the
 * layout and the home node was kept in vm_area_struct.table_home, and
 * pte_table_of() fills them in when a path first reaches the table
 * (workload_table_setup), as the kernel allocates a page table on the
 * first fault below its PMD. */
struct pte_table {
	uint64_t protnone_hot[8];
	uint64_t protnone_cold[8];
	uint16_t nr_protnone_hot, nr_protnone_cold;
	uint8_t pmd_huge : 1;     /* mapped by a huge PMD (one folio of order 9) */
	uint8_t pmd_protnone : 1; /* the huge PMD is PROT_NONE */
	uint8_t lazy : 1;         /* simulator: pages and PTEs not written yet (all at
				   * their first-touch state on home_nid) ... */
	uint8_t lazy_partial : 1; /* ... the scenario's partial unmap still to apply */
	uint8_t lazy_order : 4;   /* ... the order of its folios */
	uint8_t home_nid;
	int32_t owner;           /* index of the thread whose slice this is, or -1 */
	uint32_t group;          /* its touch group (workload/touch.h) */
	uint32_t weight;         /* the workload's access density per page here (touch_count) */
	uint32_t rank;           /* 1-based position among its touch group's tables;
				  * 0: not set up yet (see above) */
	uint64_t ptl_free_at;    /* PTL held until this time (ns) */
	uint64_t aged_at;        /* its toucher's clock when kswapd's LRU hand last passed (mm/vmscan.c) */
};
_Static_assert(sizeof(struct pte_table) == 168, "struct pte_table grew: docs/model.md 1.1 gives its size");

#define VM_READ 0x1ul
#define VM_WRITE 0x2ul
#define VM_EXEC 0x4ul
#define VM_SHARED 0x8ul
#define VM_HUGETLB 0x10ul
#define VM_MIXEDMAP 0x20ul
#define VM_PFNMAP 0x40ul
#define VM_HUGEPAGE 0x80ul     /* MADV_HUGEPAGE */
#define VM_NOHUGEPAGE 0x100ul  /* MADV_NOHUGEPAGE */

/* vma->numab_state (v6.4+, kernel/sched/fair.c) */
struct vma_numab_state {
	bool valid;
	uint64_t next_scan;          /* jiffies */
	uint64_t pids_active_reset;  /* jiffies */
	uint64_t pids_active[2];
	int start_scan_seq;
	int prev_scan_seq;
};

struct mm_struct;

struct vm_area_struct {
	struct mm_struct *vm_mm;
	uint64_t vm_start, vm_end;     /* bytes, page aligned */
	unsigned long vm_flags;
	bool mof;                      /* policy has MPOL_F_MOF (default policy) */
	uint64_t bind_nodes;           /* MPOL_BIND|MPOL_F_NUMA_BALANCING: its nodes, else 0 */
	struct folio_store *store;
	uint64_t store_pgoff;          /* first store page mapped at vm_start */
	pte_t *ptes;                   /* one per page */
	struct pte_table *tables;      /* one per 2 MiB */
	uint8_t *table_home;           /* simulator: per table, a lazy table's home node,
					* until its struct is set up (struct pte_table) */
	uint32_t nr_tables;
	uint32_t first_table_id;       /* global table index of tables[0] */
	int region;                    /* workload region this VMA belongs to */
	struct vma_numab_state numab;
	uint32_t *oracle_off;          /* TLB oracle: per page, when the PTE went inaccessible */
};

static inline uint64_t vma_pages(const struct vm_area_struct *v)
{
	return (v->vm_end - v->vm_start) >> PAGE_SHIFT;
}

/* ---- per-task unmap batch (include/linux/mm_types_task.h) -------------- */
struct arch_tlbflush_unmap_batch {
	struct cpumask cpumask;   /* x86, riscv */
	bool unmapped_pages;      /* x86 v6.15+ */
	uint32_t nr_tlbi;         /* arm64: TLBIs issued without DSB */
};

struct mm_struct;

struct tlbflush_unmap_batch {
	struct arch_tlbflush_unmap_batch arch;
	bool flush_required;
	bool writable;
	/* flush-side patch: the mm and pending generation the batch covers */
	struct mm_struct *flushed_mm;
	uint32_t pending_gen;
	/* simulator: when the batch's PTEs were recorded, as runs of equal
	 * times (the migration-to-flush delay histogram, sim.h), and, while
	 * tracing, the batch's id and its first record's index in the trace
	 * buffer (the JSON's flow arrow from the batch to its flush) */
	struct ubc_mark *marks;
	uint32_t nr_marks, max_marks;
	uint32_t trace_id;
	size_t trace_first;
};

struct ubc_mark {
	uint64_t at;   /* ns */
	uint64_t n;    /* PTEs recorded at that time */
};

/* ---- mm_struct ----------------------------------------------------------- */
#define TLB_FLUSH_BATCH_FLUSHED_SHIFT 16
#define TLB_FLUSH_BATCH_PENDING_MASK ((1u << (TLB_FLUSH_BATCH_FLUSHED_SHIFT - 1)) - 1)
#define TLB_FLUSH_BATCH_PENDING_LARGE (TLB_FLUSH_BATCH_PENDING_MASK / 2)

struct sim;

/* The simulator's ledger of the x86 IPI rounds for this mm's members: CPUs
 * running it whose flush_tlb_func would do the same for every round
 * (arch/x86/mm/tlb.c).  A member's receiver state is the ledger's: its
 * interrupt count and fixed-point costs grow by the sums' growth since it
 * last settled, its loaded_gen and last_full_flush are the ledger's. */
struct flush_ledger {
	struct cpumask members;
	int nr_members;
	uint64_t rounds;               /* rounds its members received */
	engine_fx_t recv, refill;      /* their costs to each member, summed (engine_fx_t) */
	uint64_t gen;                  /* a member's loaded_gen ... */
	uint64_t last_full;            /* ... and last_full_flush */
	uint64_t busy_max;             /* no member's busy_until is later */
};

struct mm_struct {
	struct sim *sim;
	int id;
	int tlb_flush_pending;         /* open mmu_gathers */
	uint32_t tlb_flush_batched;    /* pending gen | flushed gen << 16 */
	uint64_t tlb_gen;              /* x86 mm->context.tlb_gen */
	bool global_asid;              /* x86 INVLPGB broadcast ASID */
	uint64_t next_trim_cpumask;    /* x86 v6.14+: jiffies of the next mask trim */
	struct cpumask cpumask;        /* mm_cpumask */
	struct vm_area_struct *vmas;
	int nr_vmas;
	int mm_users;
	uint64_t rss_pages;
	/* NUMA balancing (kernel/sched/fair.c) */
	uint64_t numa_next_scan;       /* jiffies */
	int numa_scan_seq;
	uint64_t numa_scan_offset;     /* address */
	/* simulator bookkeeping */
	bool scan_pass_running;
	uint64_t scan_pass_start;      /* ns */
	struct vm_area_struct *scan_vma; /* chunk being scanned, if a gather is open */
	uint64_t scan_chunk_start, scan_chunk_end;
	uint64_t nr_threads;
	struct flush_ledger rx_ledger;
	/* numa_hint_faults(_local) of this process's tasks, and of them those
	 * that left the page on the task's node (task_numa_fault's mem_node
	 * == cpu_node: local, or migrated there): the convergence series
	 * (kernel/sim.c) take their shares per second */
	uint64_t hint_faults, hint_faults_local, hint_faults_ended_local;
	/* hint faults that reached task_numa_fault: the ended-local share's
	 * denominator, counted where its numerator is (a fault that migrates
	 * may end a second after it began) */
	uint64_t hint_faults_ended;
};

/* ---- mmu_gather (include/asm-generic/tlb.h) ------------------------------ */
struct mmu_gather {
	struct mm_struct *mm;
	uint64_t start, end;
	bool fullmm;
	bool need_flush_all;
	bool freed_tables;
	bool cleared_ptes, cleared_pmds;
	uint64_t opened_at;            /* ns, for the instrumentation figures */
};

#endif
