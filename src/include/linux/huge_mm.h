/* Transparent huge pages: the sysfs knobs, which folio orders a VMA may
 * use, and the huge-PMD paths (after include/linux/huge_mm.h and
 * mm/huge_memory.c).  The functions live in mm/huge_memory.c. */
#ifndef NUMASIM_HUGE_MM_H
#define NUMASIM_HUGE_MM_H

#include <stdbool.h>
#include <stdint.h>

#include "linux/mm_types.h"
#include "linux/mmzone.h"

/* /sys/kernel/mm/transparent_hugepage/enabled */
/* The zero value of each is what a zeroed config means: no THP. */
enum thp_enabled { THP_ENABLED_NEVER, THP_ENABLED_ALWAYS, THP_ENABLED_MADVISE, NR_THP_ENABLED };
/* .../defrag */
enum thp_defrag {
	THP_DEFRAG_MADVISE, THP_DEFRAG_ALWAYS, THP_DEFRAG_DEFER, THP_DEFRAG_DEFER_MADVISE,
	THP_DEFRAG_NEVER, NR_THP_DEFRAG
};
/* .../hugepages-<N>kB/enabled */
enum thp_size_enabled {
	THP_SIZE_NEVER, THP_SIZE_ALWAYS, THP_SIZE_INHERIT, THP_SIZE_MADVISE, NR_THP_SIZE_ENABLED
};
extern const char *const thp_enabled_names[NR_THP_ENABLED];
extern const char *const thp_defrag_names[NR_THP_DEFRAG];
extern const char *const thp_size_enabled_names[NR_THP_SIZE_ENABLED];

/* The anonymous THP orders the kernel has sysfs files for: 2 (16 kB) up to
 * the PMD order (order 1 is never used for anonymous memory). */
#define THP_MIN_ANON_ORDER 2
#define THP_ORDERS_ALL_ANON (((1ul << (HPAGE_PMD_ORDER + 1)) - 1) & ~3ul)

struct thp_tunables {
	enum thp_enabled enabled;
	enum thp_defrag defrag;
	enum thp_size_enabled size[NR_PAGE_ORDERS]; /* by order; only THP_ORDERS_ALL_ANON used */
};

/* The kernel's defaults, except enabled: numasim defaults to "never" (the
 * kernel's comes from Kconfig, always or madvise) so that a scenario that
 * says nothing about THP keeps 4 KiB pages. */
void thp_tunables_defaults(struct thp_tunables *t);

/* Per-size mTHP statistics (/sys/kernel/mm/transparent_hugepage/
 * hugepages-<N>kB/stats/, v6.10+). */
enum mthp_stat_item {
	MTHP_STAT_ANON_FAULT_ALLOC,
	MTHP_STAT_ANON_FAULT_FALLBACK,
	MTHP_STAT_SPLIT,
	MTHP_STAT_SPLIT_DEFERRED,
	NR_MTHP_STAT_ITEMS
};
extern const char *const mthp_stat_names[NR_MTHP_STAT_ITEMS];

struct sim;
struct vm_area_struct;
struct mmu_gather;
struct vm_fault;

/* A VMA's allowed orders (bit n: order n) for @vm_flags (VM_HUGEPAGE,
 * VM_NOHUGEPAGE), after thp_vma_allowable_orders for an anonymous VMA at
 * fault time. */
unsigned long thp_vma_allowable_orders(const struct sim *s, unsigned long vm_flags);
/* The naturally aligned block of @order around @addr lies inside @vma. */
bool thp_vma_suitable_order(const struct vm_area_struct *vma, uint64_t addr, unsigned order);

/* First touch of the anonymous range [addr, ...) whose earlier pages in its
 * PTE table are already populated up to @addr (@pmd_empty: nothing in the
 * table yet): the order of the folio the fault allocates and its node
 * (alloc_anon_folio / do_huge_pmd_anonymous_page with their fallbacks), the
 * pages taken from the node.  @allowed: the nodes the policy lets the
 * fallback use (bind's, else all).  @cpu is the faulting CPU (counters).  Returns
 * the order; *nid is the node, or -1 if no node has the memory. */
unsigned thp_first_touch(struct sim *s, struct vm_area_struct *vma, unsigned long vm_flags,
			 uint64_t addr, bool pmd_empty, int want, uint64_t allowed, int cpu, int *nid);

/* mm/huge_memory.c paths */
long change_huge_pmd(struct mmu_gather *tlb, struct vm_area_struct *vma, uint64_t addr);
/* A hint fault on a PROT_NONE huge PMD (the first half, up to the PMD lock
 * drop); true if a migration was started (do_numa_page_migrated ends it). */
bool do_huge_pmd_numa_page(struct vm_fault *vmf);
void set_pmd_migration_entry(struct vm_area_struct *vma, uint64_t haddr);
void remove_migration_pmd(struct sim *s, struct vm_area_struct *vma, uint64_t haddr);
/* __split_huge_pmd: the PMD mapping of the THP at @haddr becomes 512 PTEs
 * (PROT_NONE is not carried over); @freeze: straight to migration entries. */
void split_huge_pmd(struct vm_area_struct *vma, uint64_t haddr, bool freeze);
/* deferred_split_folio(folio, partially_mapped = true) */
void deferred_split_folio(struct sim *s, struct folio folio, int cpu);
/* The scenario's partial unmap or mprotect of each large folio of a
 * table, at set-up (@count: count the events; false when a lazily built
 * table is written later). */
void thp_partial_table(struct sim *s, struct vm_area_struct *vma, struct pte_table *t, int cpu,
		       bool count);
/* Pages of a folio the partial unmap leaves mapped (0: none unmapped). */
unsigned thp_partial_mapped(const struct sim *s, unsigned order);
/* Page @i of a 2^order folio is one the partial unmap takes. */
bool thp_partial_page_unmapped(const struct sim *s, unsigned order, unsigned i);
void count_mthp_stat(struct sim *s, unsigned order, enum mthp_stat_item item);

#endif
