/* The workload model (see workload.h and docs/model.md): memory layout,
 * first touch, the touch groups' hint-fault process and throughput. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "linux/bitops.h"
#include "linux/huge_mm.h"
#include "linux/mm.h"
#include "linux/sched/numa_balancing.h"
#include "linux/mmdebug.h"
#include "sim/bigalloc.h"
#include "kernel/sim.h"
#include "workload/access.h"
#include "workload/touch.h"
#include "workload/workload.h"

const char *const first_touch_names[NR_FIRST_TOUCH] = {
	[FT_LOCAL] = "local",
	[FT_REMOTE] = "remote",
	[FT_INTERLEAVE] = "interleave",
	[FT_NODE0] = "node0",
	[FT_BIND] = "bind",
	[FT_PREFERRED] = "preferred",
	[FT_WEIGHTED] = "weighted",
};

const char *const madv_hugepage_names[NR_MADV_HP] = {
	[MADV_HP_NONE] = "none",
	[MADV_HP_ALL] = "all",
	[MADV_HP_SHARED] = "shared",
	[MADV_HP_PRIVATE] = "private",
};

const char *const thp_partial_op_names[NR_THP_PARTIAL_OP] = {
	[THP_PARTIAL_UNMAP] = "unmap",
	[THP_PARTIAL_MPROTECT] = "mprotect",
};

const char *const thp_partial_pattern_names[NR_THP_PATTERN] = {
	[THP_PATTERN_TAIL] = "tail",
	[THP_PATTERN_HEAD] = "head",
	[THP_PATTERN_STRIDE] = "stride",
};

const char *const thread_bind_names[NR_THREAD_BIND] = {
	[BIND_NONE] = "none",
	[BIND_NODE] = "node",
	[BIND_CPU] = "cpu",
};

const char *const migrate_syscall_names[NR_MCALLS] = {
	[MCALL_NONE] = "none",
	[MCALL_MIGRATE_PAGES] = "migrate_pages",
	[MCALL_MOVE_PAGES] = "move_pages",
	[MCALL_MBIND] = "mbind",
};

void workload_defaults(struct workload_params *p)
{
	memset(p, 0, sizeof(*p));
	p->processes = 1;
	p->threads = 384;
	p->memory_gib = 120;
	p->private_fraction = 0.5;
	p->private_access_share = 0.5;
	p->hot_fraction = 0.1;
	p->hot_access_share = 0.8;
	p->cpu_ns_per_op = 100;
	p->access = ACCESS_UNIFORM;
	p->access_set = 1;
	p->bytes_per_op = 64; /* one cache line */
	p->main_thread_works = true;
	p->shared_first_touch.mode = FT_INTERLEAVE;
	p->private_first_touch.mode = FT_LOCAL;
	p->eat_node = -1;
	p->migrate_to = 1;
	p->migrate_back_and_forth = true;
	p->madvise_cold_kib = 1024;
	p->madvise_dontneed_kib = 64;
}

#define BASE_ADDR (1ull << 30)
#define PAGES_PER_PMD 512ull

static uint64_t round_pmd(uint64_t pages)
{
	return (pages + PAGES_PER_PMD - 1) / PAGES_PER_PMD * PAGES_PER_PMD;
}

/* Class of a page for the latency model: the owner's slice, or the shared
 * store (one per process, or one for all with map_shared). */
static int owner_class(const struct sim *s, const struct vm_area_struct *vma, int owner)
{
	if (owner >= 0)
		return owner;
	return s->nr_tasks + (s->w.p.map_shared ? 0 : vma->vm_mm->id);
}

static int table_class(const struct sim *s, const struct vm_area_struct *vma,
		       const struct pte_table *t)
{
	return owner_class(s, vma, t->owner);
}

/* A store of @pages mapped by @mappers VMAs (its rmap's size). */
static struct folio_store *new_store(struct sim *s, uint64_t pages, size_t mappers)
{
	struct folio_store *fs = &s->stores[s->nr_stores++];
	fs->nr_pages = pages;
	fs->pg = big_zalloc(pages * sizeof(*fs->pg));
	fs->mappers = calloc(mappers, sizeof(*fs->mappers));
	fs->max_mappers = mappers;
	fs->anon = true;
	if (!fs->pg || !fs->mappers)
		return NULL;
	return fs; /* last_cpupid is reset when the page is first touched */
}

/* Map [pgoff, pgoff + pages) of @fs into @mm at @addr as one VMA. */
static struct vm_area_struct *map_vma(struct sim *s, struct mm_struct *mm, uint64_t addr,
				      struct folio_store *fs, uint64_t pgoff, uint64_t pages,
				      bool shared, int region)
{
	struct vm_area_struct *vma = &mm->vmas[mm->nr_vmas++];
	vma->vm_mm = mm;
	vma->vm_start = addr;
	vma->vm_end = addr + (pages << PAGE_SHIFT);
	vma->vm_flags = VM_READ | VM_WRITE | (shared ? VM_SHARED : 0);
	/* the default policy has MPOL_F_MOF; a policy kept in force does
	 * not, except bind with MPOL_F_NUMA_BALANCING */
	const struct first_touch_policy *pol = region == 0 ? &s->w.p.shared_first_touch
							   : &s->w.p.private_first_touch;
	vma->mof = true;
	if (s->w.p.policy_in_force && pol->mode != FT_LOCAL && pol->mode != FT_REMOTE) {
		bool nb = pol->mode == FT_BIND && s->w.p.numa_balancing_bind;
		vma->mof = nb;
		vma->bind_nodes = nb ? pol->nodes : 0;
	}
	vma->store = fs;
	vma->store_pgoff = pgoff;
	vma->region = region;
	vma->ptes = big_zalloc(pages);
	vma->nr_tables = (uint32_t)(round_pmd(pages) / PAGES_PER_PMD);
	/* zero-filled mappings: a lazy table's struct is written only when a
	 * path first reaches it (struct pte_table), its home node here now */
	vma->tables = big_zalloc_sparse(vma->nr_tables * sizeof(struct pte_table));
	vma->table_home = big_zalloc(vma->nr_tables);
	vma->first_table_id = s->nr_tables;
	s->nr_tables += vma->nr_tables;
	VM_BUG_ON((size_t)fs->nr_mappers >= fs->max_mappers);
	fs->mappers[fs->nr_mappers++] = vma;
	if (!vma->ptes || !vma->tables || !vma->table_home)
		return NULL;
	return vma;
}

/* Every page of every region, as the map of the builder. */
struct layout {
	uint64_t shared_pages, slice_pages, private_pages;
	uint64_t vma_pages;
};

static void compute_layout(const struct sim *s, struct layout *l)
{
	const struct workload_params *p = &s->w.p;
	uint64_t total = (uint64_t)(p->memory_gib * (1ull << 30)) >> PAGE_SHIFT;
	uint64_t priv = (uint64_t)((double)total * p->private_fraction);
	l->slice_pages = p->threads ? round_pmd(priv / (uint64_t)p->threads) : 0;
	if (priv == 0)
		l->slice_pages = 0;
	l->private_pages = l->slice_pages * (uint64_t)p->threads;
	l->shared_pages = round_pmd(total - (priv < total ? priv : total));
	l->vma_pages = p->vma_mib ? round_pmd((uint64_t)p->vma_mib << (20 - PAGE_SHIFT)) : 0;
}

/* The number of VMAs map_region() splits a region of @pages into. */
static size_t region_vmas(uint64_t pages, uint64_t vma_pages)
{
	return vma_pages ? (size_t)((pages + vma_pages - 1) / vma_pages) : 1;
}

/* Map a region of @pages of @fs into @mm as VMAs of at most vma_pages. */
static int map_region(struct sim *s, struct mm_struct *mm, uint64_t *addr, struct folio_store *fs,
		      uint64_t pages, bool shared, int region, uint64_t vma_pages)
{
	for (uint64_t off = 0; off < pages;) {
		uint64_t n = vma_pages && pages - off > vma_pages ? vma_pages : pages - off;
		if (!map_vma(s, mm, *addr, fs, off, n, shared, region))
			return -1;
		*addr += (n << PAGE_SHIFT) + PMD_SIZE; /* a guard gap between VMAs */
		off += n;
	}
	return 0;
}

/* The owner of store table @c: a thread's slice, or -1 for shared.  In the
 * spread layout (one region, region 2) the shared tables are spaced evenly
 * through the slices, so a sweep of the address space meets them at a
 * steady rate. */
static int store_table_owner(const struct sim *s, const struct vm_area_struct *vma,
			     const struct layout *l, uint64_t c, int first_task, uint64_t *j)
{
	*j = c; /* the table's index within its region (slice or shared) */
	if (vma->region == 0)
		return -1;
	uint64_t per_slice = l->slice_pages / PAGES_PER_PMD;
	if (vma->region == 1) {
		*j = c % per_slice;
		return first_task + (int)(c / per_slice);
	}
	uint64_t shared = l->shared_pages / PAGES_PER_PMD;
	uint64_t total = shared + l->private_pages / PAGES_PER_PMD;
	/* before = c shared / total, upto = (c + 1) shared / total: one
	 * division (c shared + shared passes one more multiple of total at
	 * most, shared <= total), not two, on each of set-up's tables */
	uint64_t before = c * shared / total, rem = c * shared % total;
	uint64_t upto = before + (rem + shared >= total);
	(void)s;
	if (upto > before) {
		*j = before;
		return -1;
	}
	*j = (c - upto) % per_slice;
	return first_task + (int)((c - upto) / per_slice);
}

/* A table's touch group: its owner's slice, or its process's shared region
 * (with map_shared, the process's own mapping of the common store). */
static inline uint32_t owner_group(const struct sim *s, const struct vm_area_struct *vma, int owner)
{
	return owner >= 0 ? (uint32_t)owner : (uint32_t)(s->nr_tasks + vma->vm_mm->id);
}

/* What set-up gives table @ti of @vma besides its pages: a function of the
 * layout alone, so that a lazy table's struct can wait until a path first
 * reaches it (workload_table_setup) and still hold what set-up would have
 * written. */
struct table_ident {
	int owner;
	uint32_t weight, group, rank;
};

static struct table_ident table_ident(const struct sim *s, const struct vm_area_struct *vma,
				      const struct layout *l, uint64_t ti)
{
	const struct workload_params *p = &s->w.p;
	uint64_t chunk = (vma->store_pgoff + ti * PAGES_PER_PMD) / PAGES_PER_PMD, j;
	struct table_ident id;
	id.owner = store_table_owner(s, vma, l, chunk, vma->vm_mm->id * p->threads, &j);
	id.weight = id.owner >= 0 ? s->w.slice_weight[j] : access_table_weight(p, j, l->shared_pages);
	id.group = owner_group(s, vma, id.owner);
	/* a group's tables are a slice's or a process's shared ones, in
	 * address order, which j counts: touch_init ranks them so (the
	 * checker compares, mm/debug.c) */
	id.rank = (uint32_t)j + 1;
	return id;
}

static void table_ident_set(struct pte_table *t, const struct table_ident *id)
{
	t->owner = id->owner;
	t->weight = id->weight;
	t->group = id->group;
	t->rank = id->rank;
}

uint64_t workload_hot_cut(double hot_fraction)
{
	return hot_fraction >= 1 ? UINT64_MAX : (uint64_t)(hot_fraction * 0x1p64);
}

bool workload_page_hot(uint64_t seed, uint64_t idx, int mm_id, bool private, uint64_t hot_cut)
{
	return hot_cut && (hot_cut == UINT64_MAX ||
			   rng_mix(seed ^ rng_mix(((uint64_t)RNG_WORKLOAD << 48) ^ idx ^ ((uint64_t)mm_id << 40) ^
						  ((uint64_t)private << 39))) < hot_cut);
}

static bool page_is_hot(const struct sim *s, const struct folio_store *fs, uint64_t idx,
			uint64_t hot_cut, bool private)
{
	return workload_page_hot(s->seed, idx, fs->mappers[0]->vm_mm->id, private, hot_cut);
}

/* First touch of one PTE table where large folios may be used: the fault
 * path (mm/huge_memory.c) picks each folio's order and node; a table of
 * same-order folios on one node without a hot set is built lazily like a
 * 4 KiB one.  The scenario's partial unmap or mprotect follows at once. */
/* The NUMA counters of a first-touch allocation of @nr pages in @folios
 * folios on @nid: the policy preferred @want (policy_node, or the
 * interleave node), the toucher runs on a CPU of node @local. */
static void first_touch_stats(struct sim *s, const struct first_touch_policy *pol, int want, int nid,
			      int local, unsigned long nr, unsigned long folios)
{
	zone_statistics(s, want, nid, local, nr);
	if ((pol->mode == FT_INTERLEAVE || pol->mode == FT_WEIGHTED) && nid == want)
		count_numa_interleave_hits(s, nid, folios); /* one per folio */
}

static int populate_table_large(struct sim *s, struct vm_area_struct *vma, struct pte_table *t,
				uint64_t i0, uint64_t i1, int want, int cls, int cpu,
				unsigned long vm_flags, uint64_t hot_cut, bool private,
				const struct first_touch_policy *pol)
{
	uint64_t w = t->weight;
	uint64_t allowed = pol->mode == FT_BIND ? pol->nodes : ~0ull;
	struct { uint8_t order, nid; } f[PAGES_PER_PMD] = { { 0, 0 } };
	struct folio_store *fs = vma->store;
	int nf = 0;
	bool uniform = true;
	uint64_t mapped = 0;

	for (uint64_t i = i0; i < i1;) {
		int nid;
		unsigned order = thp_first_touch(s, vma, vm_flags, vma->vm_start + (i << PAGE_SHIFT),
						 i == i0, want, allowed, cpu, &nid);
		if (!order && (nid = alloc_pages_policy(s, pol, want, 1)) < 0)
			return -1;
		first_touch_stats(s, pol, want, nid, s->cpus[cpu].node, 1ul << order, 1);
		f[nf].order = (uint8_t)order;
		f[nf].nid = (uint8_t)nid;
		uniform &= f[nf].order == f[0].order && f[nf].nid == f[0].nid;
		nf++;
		i += 1ull << order;
	}
	s->w.populated_pages += i1 - i0;
	if (uniform && !hot_cut && f[0].order) {
		mapped = (uint64_t)nf * thp_partial_mapped(s, f[0].order);
		t->lazy = true;
		t->home_nid = f[0].nid;
		t->lazy_order = f[0].order;
		t->pmd_huge = f[0].order == HPAGE_PMD_ORDER;
		class_nodes(&s->w, cls, 0)[f[0].nid] += mapped * w;
	} else {
		uint64_t i = i0;
		for (int k = 0; k < nf; k++)
			for (unsigned j = 0; j < (1u << f[k].order); j++, i++) {
				uint64_t idx = vma->store_pgoff + i;
				bool hot = page_is_hot(s, fs, idx, hot_cut, private);
				fs->pg[idx].nid = f[k].nid;
				fs->pg[idx].last_cpupid = LAST_CPUPID_UNSET;
				fs->pg[idx].flags = (uint8_t)(f[k].order << FOLIO_ORDER_SHIFT);
				vma->ptes[i] = PTE_PRESENT | PTE_YOUNG | PTE_WRITE | PTE_DIRTY | (hot ? PTE_SIM_HOT : 0);
				fs->pg[idx].mapcount++;
				if (f[k].order && thp_partial_page_unmapped(s, f[k].order, j))
					continue; /* unmapped again at once, below */
				class_nodes(&s->w, cls, hot)[f[k].nid] += w;
				mapped++;
			}
		t->pmd_huge = nf == 1 && f[0].order == HPAGE_PMD_ORDER;
		s->st.tables_materialised++;
	}
	vma->vm_mm->rss_pages += mapped;
	s->w.unmapped_pages += (i1 - i0) - mapped;
	if (s->w.p.thp_partial > 0) {
		t->lazy_partial = t->lazy;
		thp_partial_table(s, vma, t, cpu, true);
	}
	return 0;
}

/* Where each task runs at set-up, for populate_vma: its CPU and that CPU's
 * node, in an array of their own (a table's toucher is a task struct apart
 * from the last table's, and a cache miss or two away). */
struct user_cpu {
	int cpu, node;
};

/* Place and map every page of @vma: first touch, hot set, initial PTE;
 * and what build_groups and tlb_refill_init need of each table (struct
 * workload), so that nothing reads every table's struct again. */
static int populate_vma(struct sim *s, struct vm_area_struct *vma, const struct layout *l,
			bool first_mapping, const struct user_cpu *users)
{
	const struct workload_params *p = &s->w.p;
	struct folio_store *fs = vma->store;
	struct mm_struct *mm = vma->vm_mm;
	int first_task = mm->id * p->threads;
	uint64_t hot_cut = workload_hot_cut(p->hot_fraction);
	uint64_t npages = vma_pages(vma);
	/* large folios (not for a MAP_SHARED store: shmem THP is not
	 * modelled): the flags and whether any order is allowed, for a shared
	 * [0] and a private [1] table of this VMA */
	unsigned long vm_flags[2];
	bool large[2];
	for (int private = 0; private < 2; private++) {
		vm_flags[private] = vma->vm_flags |
			(p->madv_hugepage == MADV_HP_ALL ||
			 p->madv_hugepage == (private ? MADV_HP_PRIVATE : MADV_HP_SHARED) ? VM_HUGEPAGE : 0);
		large[private] = first_mapping && !p->map_shared &&
				 thp_vma_allowable_orders(s, vm_flags[private]);
	}

	/* one 2 MiB table at a time: owner and first-touch node are per table */
	for (uint64_t i0 = 0; i0 < npages; i0 += PAGES_PER_PMD) {
		uint64_t i1 = i0 + PAGES_PER_PMD < npages ? i0 + PAGES_PER_PMD : npages;
		uint64_t chunk = (vma->store_pgoff + i0) / PAGES_PER_PMD;
		uint64_t ti = i0 / PAGES_PER_PMD;
		struct pte_table *t = &vma->tables[ti];
		struct table_ident id = table_ident(s, vma, l, ti);
		int owner = id.owner;
		bool private = owner >= 0;
		int want = 0, cls = 0;
		uint32_t w = id.weight, g = id.group;
		/* build_groups' inputs, in table id order (rank 1 first) */
		s->w.table_group[vma->first_table_id + ti] = g;
		s->w.wsize[g] += (double)w * (double)(i1 - i0);
		s->w.group_w[g] = id.rank == 1 || s->w.group_w[g] == w ? w : 0;
		int cpu = 0, local = 0;
		if (first_mapping) {
			int user = private ? owner : first_task + (int)(chunk % (uint64_t)p->threads);
			cpu = users[user].cpu;
			local = users[user].node;
			want = mpol_first_touch_node(&s->m, private ? &p->private_first_touch
								    : &p->shared_first_touch,
						     local, chunk);
			cls = owner_class(s, vma, owner);
		}
		if (large[private]) {
			table_ident_set(t, &id);
			if (populate_table_large(s, vma, t, i0, i1, want, cls, cpu, vm_flags[private], hot_cut,
						 private, private ? &p->private_first_touch : &p->shared_first_touch))
				return -1;
			if (mm->id == 0)
				s->w.pmd_tables += t->pmd_huge;
			continue;
		}
		int home = -1;
		if (!hot_cut && first_mapping && !p->map_shared) {
			/* the whole table on @want, or, @want below its low
			 * watermark, on the node its zonelist gives (the per-page
			 * path would give every page that node but at the last
			 * page that fits) */
			const struct first_touch_policy *pol = private ? &p->private_first_touch
								       : &p->shared_first_touch;
			if (node_watermark_ok(&s->node_free_pages[want], &s->pgdat[want], WMARK_LOW, i1 - i0))
				home = alloc_pages_bulk_node(s, want, i1 - i0) ? want : -1;
			else
				home = alloc_pages_policy(s, pol, want, i1 - i0);
		}
		if (home >= 0) {
			/* The common case: a whole table on one node, without a hot
			 * set, mapped once.  Its pages are all in their first-touch
			 * state, so they are written only when a kernel path first
			 * reaches the table (workload_materialize_table): a sweep
			 * of a big workload reaches a fraction of it in a run, and
			 * untouched memory costs neither time nor RSS.  Nor is its
			 * struct written before then (workload_table_setup): only
			 * its home node, here. */
			uint64_t n = i1 - i0;
			first_touch_stats(s, private ? &p->private_first_touch : &p->shared_first_touch, want,
					  home, local, n, n);
			class_nodes(&s->w, cls, 0)[home] += n * w;
			vma->table_home[ti] = (uint8_t)home;
			mm->rss_pages += n;
			s->w.populated_pages += n;
			continue;
		}
		table_ident_set(t, &id);
		for (uint64_t i = i0; i < i1; i++) {
			uint64_t idx = vma->store_pgoff + i;
			bool hot = page_is_hot(s, fs, idx, hot_cut, private);
			if (first_mapping) {
				int nid = alloc_pages_policy(s, private ? &p->private_first_touch
									  : &p->shared_first_touch, want, 1);
				if (nid < 0)
					return -1;
				first_touch_stats(s, private ? &p->private_first_touch : &p->shared_first_touch,
						  want, nid, local, 1, 1);
				fs->pg[idx].nid = (uint8_t)nid;
				fs->pg[idx].last_cpupid = LAST_CPUPID_UNSET; /* page_cpupid_reset_last */
				class_nodes(&s->w, cls, hot)[nid] += w;
			}
			VM_BUG_ON(fs->pg[idx].mapcount == PAGE_MAPCOUNT_MAX);
			fs->pg[idx].mapcount++;
			vma->ptes[i] = PTE_PRESENT | PTE_YOUNG | PTE_WRITE | PTE_DIRTY | (hot ? PTE_SIM_HOT : 0);
		}
		mm->rss_pages += i1 - i0;
		s->w.populated_pages += i1 - i0;
		s->st.tables_materialised++; /* built page by page */
	}
	return 0;
}

int workload_build(struct sim *s, char *err, size_t errlen)
{
	const struct workload_params *p = &s->w.p;
	struct layout l;
	compute_layout(s, &l);

	s->stores = calloc((size_t)(2 * p->processes), sizeof(struct folio_store));
	s->w.nr_nodes = s->m.nr_nodes;
	s->w.nr_classes = s->nr_tasks + p->processes;
	s->w.class_pages = calloc((size_t)s->w.nr_classes * 2 * (size_t)s->m.nr_nodes, sizeof(uint64_t));
	if (!s->stores || !s->w.class_pages)
		goto oom;

	/* every VMA mapped first, numbering the tables; then placed, in the
	 * same order */
	s->w.pmd_tables = 0;
	struct folio_store *shared_fs = NULL;
	for (int i = 0; i < p->processes; i++) {
		struct mm_struct *mm = &s->mms[i];
		uint64_t addr = BASE_ADDR;
		int nvmas = 2 + (int)(l.vma_pages ? (l.shared_pages + l.private_pages) / l.vma_pages + 2 : 0);
		mm->vmas = calloc((size_t)nvmas, sizeof(struct vm_area_struct));
		if (!mm->vmas)
			goto oom;
		if (l.shared_pages && !(p->spread_shared && !p->map_shared)) {
			bool first = !(p->map_shared && shared_fs);
			size_t users = p->map_shared ? (size_t)p->processes : 1;
			if (first && !(shared_fs = new_store(s, l.shared_pages,
							     users * region_vmas(l.shared_pages, l.vma_pages))))
				goto oom;
			if (map_region(s, mm, &addr, shared_fs, l.shared_pages, p->map_shared, 0, l.vma_pages))
				goto oom;
			if (!p->map_shared)
				shared_fs = NULL;
		}
		if (p->spread_shared && !p->map_shared) {
			struct folio_store *fs = new_store(s, l.shared_pages + l.private_pages,
							   region_vmas(l.shared_pages + l.private_pages,
								       l.vma_pages));
			if (!fs || map_region(s, mm, &addr, fs, l.shared_pages + l.private_pages, false, 2,
					      l.vma_pages))
				goto oom;
		} else if (l.private_pages) {
			struct folio_store *fs = new_store(s, l.private_pages,
							   region_vmas(l.private_pages, l.vma_pages));
			if (!fs || map_region(s, mm, &addr, fs, l.private_pages, false, 1, l.vma_pages))
				goto oom;
		}
	}
	size_t groups = (size_t)s->nr_tasks + (size_t)s->nr_mms;
	uint64_t slice_tables = l.slice_pages / PAGES_PER_PMD;
	s->w.slice_weight = malloc(sizeof(uint32_t) * (slice_tables ? slice_tables : 1));
	if (!s->w.slice_weight)
		goto oom;
	for (uint64_t j = 0; j < slice_tables; j++)
		s->w.slice_weight[j] = access_table_weight(p, j, l.slice_pages);
	s->w.table_group = malloc(sizeof(uint32_t) * (s->nr_tables ? s->nr_tables : 1));
	s->w.wsize = calloc(groups ? groups : 1, sizeof(double));
	s->w.group_w = calloc(groups ? groups : 1, sizeof(uint32_t));
	struct user_cpu *users = malloc(sizeof(*users) * (s->nr_tasks ? (size_t)s->nr_tasks : 1));
	if (!s->w.table_group || !s->w.wsize || !s->w.group_w || !users) {
		free(users);
		goto oom;
	}
	for (int i = 0; i < s->nr_tasks; i++)
		users[i] = (struct user_cpu){ s->tasks[i].cpu, s->cpus[s->tasks[i].cpu].node };
	/* the first mapping of a store places its pages; another process's
	 * (map_shared) maps them */
	for (int i = 0; i < p->processes; i++)
		for (int v = 0; v < s->mms[i].nr_vmas; v++) {
			struct vm_area_struct *vma = &s->mms[i].vmas[v];
			if (populate_vma(s, vma, &l, vma->store->mappers[0]->vm_mm == vma->vm_mm, users)) {
				free(users);
				goto nomem;
			}
		}
	free(users);
	return 0;
oom:
	snprintf(err, errlen, "out of memory building the workload");
	return -1;
nomem:
	snprintf(err, errlen, "workload.memory_gib: the machine's memory cannot hold the workload");
	return -1;
}

void workload_free(struct sim *s)
{
	for (int i = 0; i < s->nr_mms; i++) {
		for (int v = 0; v < s->mms[i].nr_vmas; v++) {
			struct vm_area_struct *vma = &s->mms[i].vmas[v];
			big_free(vma->ptes, vma_pages(vma));
			big_free(vma->tables, vma->nr_tables * sizeof(struct pte_table));
			big_free(vma->table_home, vma->nr_tables);
		}
		free(s->mms[i].vmas);
	}
	for (int i = 0; i < s->nr_stores; i++) {
		struct folio_store *fs = &s->stores[i];
		big_free(fs->pg, fs->nr_pages * sizeof(*fs->pg));
		free(fs->mappers);
	}
	free(s->stores);
	free(s->mms);
	free(s->w.class_pages);
	free(s->w.task_rate);
	free(s->w.op_ns);
	s->w.op_ns = NULL;
	free(s->w.mm_rate);
	free(s->w.user_frac);
	free(s->w.lat_cache);
	free(s->w.lat_stale);
	touch_free(&s->w.touch);
	free(s->w.wsize);
	free(s->w.table_group);
	free(s->w.group_w);
	free(s->w.slice_weight);
	s->w.table_group = s->w.group_w = s->w.slice_weight = NULL;
	free(s->w.slice_of);
	free(s->w.toucher);
	free(s->w.frac_cache);
	free(s->w.mem_q);
	free(s->w.sat_ns);
	free(s->w.peak_q);
	free(s->w.op_node);
	free(s->w.shared_term);
	free(s->w.task_mm);
	free(s->w.slice_term);
	free(s->w.slice_dirty);
	free(s->w.dirty_task);
	s->w.shared_term = s->w.slice_term = NULL;
	s->w.task_mm = s->w.dirty_task = NULL;
	s->w.slice_dirty = NULL;
	free(s->w.demand_bps);
	free(s->w.demand_in);
	free(s->w.frac_gen);
	free(s->w.bw_part);
	free(s->w.bw_sum);
	free(s->w.bw_node);
	free(s->w.bw_slice);
	free(s->w.bw_gen);
	free(s->w.bw_weight);
	free(s->w.bw_term);
	free(s->w.bw_lat_ref);
	s->w.bw_lat_ref = NULL;
	free(s->w.bw_dirty);
	free(s->w.bw_mark);
	s->w.frac_gen = s->w.bw_gen = NULL;
	s->w.bw_part = s->w.bw_sum = s->w.bw_weight = NULL;
	s->w.bw_node = s->w.bw_slice = s->w.bw_dirty = NULL;
	s->w.bw_term = NULL;
	s->w.bw_mark = NULL;
	s->w.op_node = NULL;
	s->w.demand_bps = NULL;
	s->w.demand_in = NULL;
	s->w.frac_cache = s->w.mem_q = s->w.sat_ns = s->w.peak_q = NULL;
	s->w.slice_of = s->w.toucher = NULL;
	s->w.class_pages = NULL;
	s->w.task_rate = s->w.mm_rate = s->w.user_frac = s->w.lat_cache = s->w.wsize = NULL;
	s->w.lat_stale = NULL;
}

/* Write into @t what set-up would have given table @ti of @vma: the one
 * kind of table populate_vma leaves unwritten is lazy, of small pages, all
 * on its home node. */
static void lazy_table_fill(const struct vm_area_struct *vma, uint64_t ti, struct pte_table *t)
{
	const struct sim *s = vma->vm_mm->sim;
	struct layout l;
	compute_layout(s, &l);
	struct table_ident id = table_ident(s, vma, &l, ti);
	table_ident_set(t, &id);
	t->lazy = true;
	t->home_nid = vma->table_home[ti];
}

void workload_table_setup(struct vm_area_struct *vma, struct pte_table *t)
{
	VM_BUG_ON(t->rank); /* set up once */
	lazy_table_fill(vma, (uint64_t)(t - vma->tables), t);
}

const struct pte_table *workload_table_view(const struct vm_area_struct *vma, uint32_t ti,
					    struct pte_table *buf)
{
	const struct pte_table *t = &vma->tables[ti];
	if (t->rank)
		return t;
	*buf = *t;
	lazy_table_fill(vma, ti, buf);
	return buf;
}

void workload_materialize_table(struct vm_area_struct *vma, struct pte_table *t)
{
	uint64_t i0 = (uint64_t)(t - vma->tables) * PAGES_PER_PMD, i1 = i0 + PAGES_PER_PMD;
	struct page_state init = { .last_cpupid = LAST_CPUPID_UNSET, .nid = t->home_nid,
				   .flags = (uint8_t)(t->lazy_order << FOLIO_ORDER_SHIFT), .mapcount = 1 };
	if (i1 > vma_pages(vma))
		i1 = vma_pages(vma);
	/* copied as one 8-byte word: assigning the struct, the compiler
	 * rebuilds its bit-fields for every page */
	uint64_t word;
	memcpy(&word, &init, sizeof(word));
	struct page_state *pg = &vma->store->pg[vma->store_pgoff];
	for (uint64_t i = i0; i < i1; i++)
		memcpy(&pg[i], &word, sizeof(word));
	memset(&vma->ptes[i0], PTE_PRESENT | PTE_YOUNG | PTE_WRITE | PTE_DIRTY, i1 - i0);
	t->lazy = false;
	vma->vm_mm->sim->st.tables_materialised++; /* what a run's RSS grows by (scenario_model_bytes) */
	if (t->lazy_partial) { /* the partial unmap it was built with */
		t->lazy_partial = false;
		thp_partial_table(vma->vm_mm->sim, vma, t, 0, false);
	}
}

/* ---- latency and rates ------------------------------------------------- */

/* Mean memory latency seen from @node over class @cls's touches (cached;
 * workload_page_moved marks a class stale). */
static double class_latency_compute(struct sim *s, int cls, int node);

static void class_frac_compute(struct sim *s, int cls, double *frac);

/* A class's placement (or the stretches) changed: its latency and
 * fractions are recomputed when next read, and so is every task's op_ns. */
static void class_mark_stale(struct workload *w, int cls)
{
	w->lat_stale[cls] = 1;
	w->op_valid = false;
	if (cls < w->nr_classes - w->p.processes) { /* a slice: its reader's term */
		int task = w->toucher[cls];
		if (!w->slice_dirty[task]) {
			w->slice_dirty[task] = 1;
			w->dirty_task[w->nr_dirty++] = task;
		}
	}
	/* a shared class: its term is taken again at every refresh */
}

static void class_mark_all_stale(struct workload *w)
{
	memset(w->lat_stale, 1, (size_t)w->nr_classes);
	w->op_valid = false;
	w->op_all = true;
}

static void class_recompute(struct sim *s, int cls)
{
	size_t row = (size_t)cls * (size_t)s->m.nr_nodes;
	double frac[MAX_NUMNODES];
	for (int n = 0; n < s->m.nr_nodes; n++)
		s->w.lat_cache[row + (size_t)n] = class_latency_compute(s, cls, n);
	class_frac_compute(s, cls, frac);
	size_t bytes = (size_t)s->m.nr_nodes * sizeof(double);
	if (memcmp(frac, &s->w.frac_cache[row], bytes)) { /* not when only the stretches moved */
		memcpy(&s->w.frac_cache[row], frac, bytes);
		s->w.frac_gen[cls]++;
	}
	s->w.lat_stale[cls] = 0;
	/* what the tasks' op_ns and bandwidth demand were computed from may
	 * have changed, but class_mark_stale cleared op_valid already */
}

/* Called for every running task at every rate refresh, where a class is
 * seldom stale: the test is inlined, the work is not. */
static inline void class_refresh(struct sim *s, int cls)
{
	if (s->w.lat_stale[cls])
		class_recompute(s, cls);
}

static double class_latency(struct sim *s, int cls, int node)
{
	class_refresh(s, cls);
	return s->w.lat_cache[(size_t)cls * (size_t)s->m.nr_nodes + (size_t)node];
}

/* The loaded latency's stretch from a CPU on @from to memory on @to: the
 * node's queue, and the sockets' link's if the access crosses it. */
static double mem_stretch(const struct sim *s, int from, int to)
{
	double q = s->w.mem_q[to];
	if (machine_node_socket(&s->m, from) != machine_node_socket(&s->m, to))
		q *= s->w.link_q;
	return q;
}

static double class_latency_compute(struct sim *s, int cls, int node)
{
	const struct workload_params *p = &s->w.p;
	double lat = 0;
	for (int hot = 0; hot < 2; hot++) {
		uint64_t *n = class_nodes(&s->w, cls, hot), total = 0;
		double l = 0;
		for (int k = 0; k < s->m.nr_nodes; k++) {
			total += n[k];
			l += (double)n[k] * (machine_mem_latency(&s->m, node, k) * mem_stretch(s, node, k));
		}
		if (total)
			lat += (hot ? p->hot_access_share : 1 - p->hot_access_share) * l / (double)total;
	}
	return lat;
}

/* The share of class @cls's touches that land on each node. */
static void class_frac_compute(struct sim *s, int cls, double *frac)
{
	const struct workload_params *p = &s->w.p;
	for (int k = 0; k < s->m.nr_nodes; k++)
		frac[k] = 0;
	for (int hot = 0; hot < 2; hot++) {
		uint64_t *n = class_nodes(&s->w, cls, hot), total = 0;
		for (int k = 0; k < s->m.nr_nodes; k++)
			total += n[k];
		double share = hot ? p->hot_access_share : 1 - p->hot_access_share;
		for (int k = 0; total && k < s->m.nr_nodes; k++)
			frac[k] += share * (double)n[k] / (double)total;
	}
}

/* The share of a task's touches that go to its slice. */
static double private_share(const struct sim *s)
{
	return s->w.slice_pages ? s->w.p.private_access_share : 0;
}

/* A task's ns per operation is cpu_ns + (slice term + shared term): its
 * slice's latency from @node weighted by @share (private_share), and its
 * process's shared region's by 1 - @share, each term +0 where its share is
 * 0 (adding +0 changes no latency; none is -0).  The tick keeps the slice
 * term per task and takes the shared term once per class and node
 * (refresh_op_ns); task_op_ns takes both for one task. */
static inline double slice_term_on(struct sim *s, const struct task_struct *t, int node,
				   double share)
{
	return !t->syscall_caller && share > 0 ? share * class_latency(s, s->w.slice_of[t->idx], node)
					       : 0;
}

static inline double shared_term_on(struct sim *s, int cls, int node, double share)
{
	return share < 1 ? (1 - share) * class_latency(s, cls, node) : 0;
}

/* The shared class task @t reads (a syscall caller's: none, -1). */
static inline int shared_class(const struct sim *s, const struct task_struct *t)
{
	return t->syscall_caller ? -1 : s->nr_tasks + (s->w.p.map_shared ? 0 : t->mm->id);
}

/* Expected nanoseconds per operation of task @p now: compute plus the
 * memory latency of its mix of private and shared touches. */
static double task_op_ns(struct sim *s, const struct task_struct *t)
{
	int node = s->cpus[t->cpu].node, cls = shared_class(s, t);
	double share = private_share(s), cpu_ns = s->w.p.cpu_ns_per_op;
	if (cls < 0) /* a syscall caller does no work of the workload's */
		return cpu_ns;
	return cpu_ns + (slice_term_on(s, t, node, share) + shared_term_on(s, cls, node, share));
}

/* The share of task @t's memory touches that land on the node it is on
 * now: its slice's touches and its process's shared region's, each split
 * over the nodes as the region's pages are (class_frac_compute, hot and
 * cold weighted by hot_access_share).  It reads the placement without
 * refreshing the latency caches, so sampling it changes no run.  A region
 * without pages takes no share.  -1 for a syscall caller, which touches no
 * memory of the workload's (or a task with no page to touch). */
double workload_task_local_share(struct sim *s, const struct task_struct *t)
{
	int node = s->cpus[t->cpu].node, cls = shared_class(s, t);
	if (cls < 0)
		return -1;
	double frac[MAX_NUMNODES], share = private_share(s), local = 0, seen = 0;
	int classes[2] = { s->w.slice_of[t->idx], cls };
	double weight[2] = { share, 1 - share };
	for (int i = 0; i < 2; i++) {
		if (weight[i] <= 0)
			continue;
		class_frac_compute(s, classes[i], frac);
		double placed = 0; /* 0 where the region has no page */
		for (int k = 0; k < s->m.nr_nodes; k++)
			placed += frac[k];
		local += weight[i] * frac[node];
		seen += weight[i] * placed;
	}
	return seen > 0 ? local / seen : -1;
}

/* The share of the running threads' touches that land on top-tier nodes,
 * each thread weighted by its rate: where a tiered machine's accesses go.
 * -1 if no thread touches memory. */
double workload_toptier_touch_share(struct sim *s)
{
	double frac[MAX_NUMNODES], top = 0, all = 0, share = private_share(s);
	for (int i = 0; i < s->nr_tasks; i++) {
		const struct task_struct *t = &s->tasks[i];
		int cls = shared_class(s, t);
		if (cls < 0 || t->state != TASK_ON_CPU) /* a sleeping thread touches nothing */
			continue;
		int classes[2] = { s->w.slice_of[t->idx], cls };
		double weight[2] = { share, 1 - share }, rate = s->w.task_rate[i];
		for (int c = 0; c < 2; c++) {
			if (weight[c] <= 0)
				continue;
			class_frac_compute(s, classes[c], frac);
			for (int k = 0; k < s->m.nr_nodes; k++) {
				all += rate * weight[c] * frac[k];
				top += node_is_toptier(s, k) ? rate * weight[c] * frac[k] : 0;
			}
		}
	}
	return all > 0 ? top / all : -1;
}

static void refresh_page_rates(struct sim *s);
static int build_groups(struct sim *s);

/* ---- memory bandwidth ------------------------------------------------------
 *
 * machine.mem_bw_gbs bounds each node's memory traffic, machine.link_bw_gbs
 * the traffic between sockets.  Each operation moves workload.bytes_per_op
 * bytes, split over the nodes as its touches are.  When the running
 * threads ask more of a node than it has, its accesses queue: their latency
 * stretches by mem_q[node] (and a crossing access by link_q) until the
 * demand at the slowed rates equals the capacity -- a roofline, no
 * queueing below it, so a machine that is not saturated runs as if
 * bandwidth were unlimited.  Solved at every rate refresh from the last
 * solution: q <- max(1, q * demand / capacity) converges monotonically,
 * since a task's demand falls as its stretched latency grows. */

/* Whether no node's or link's demand can reach its capacity: the
 * stretches are 1, and each thread's traffic is at most 1e9 / op_ns *
 * bytes_per_op on any one node or across the link, with op_ns at least
 * cpu_ns_per_op (its latency is not negative).  If all the threads at that
 * pace, every byte on one node, stay below each capacity (with a margin
 * far beyond the sums' rounding), the solve could only leave the
 * stretches at 1 and change nothing, so it need not run.  (The seed's 384
 * threads could ask at most 246 GB/s of 400.) */
static bool bandwidth_unreachable(const struct sim *s)
{
	double cpu = s->w.p.cpu_ns_per_op;
	if (!(cpu > 0) || s->w.link_q != 1)
		return false;
	for (int n = 0; n < s->m.nr_nodes; n++)
		if (s->w.mem_q[n] != 1)
			return false;
	double most = (double)s->nr_tasks * (1e9 / cpu * s->w.p.bytes_per_op) * (1 + 1e-6);
	for (int n = 0; n < s->m.nr_nodes; n++)
		if (machine_node_bw_gbs(&s->m, n) > 0 && most >= machine_node_bw_gbs(&s->m, n) * 1e9)
			return false;
	return s->m.link_bw_gbs <= 0 || most < s->m.link_bw_gbs * 1e9;
}

static bool bandwidth_limited(const struct sim *s)
{
	bool any = s->m.link_bw_gbs > 0;
	for (int n = 0; n < s->m.nr_nodes; n++)
		any |= machine_node_bw_gbs(&s->m, n) > 0;
	return any && !bandwidth_unreachable(s);
}

/* Task @t's bytes per second on each node and across the sockets, at
 * @op_ns nanoseconds an operation. */
static void task_demand(struct sim *s, const struct task_struct *t, double op_ns, double *node_bps,
			double *link_bps)
{
	const struct workload_params *p = &s->w.p;
	int node = s->cpus[t->cpu].node;
	double bps = 1e9 / op_ns * p->bytes_per_op;
	double share = s->w.slice_pages ? p->private_access_share : 0;
	int slice = s->w.slice_of[t->idx], shared = s->nr_tasks + (p->map_shared ? 0 : t->mm->id);
	class_refresh(s, slice);
	class_refresh(s, shared);
	const double *fs = &s->w.frac_cache[(size_t)slice * (size_t)s->m.nr_nodes];
	const double *fr = &s->w.frac_cache[(size_t)shared * (size_t)s->m.nr_nodes];
	for (int n = 0; n < s->m.nr_nodes; n++) {
		double b = bps * (share * fs[n] + (1 - share) * fr[n]);
		node_bps[n] += b;
		if (machine_node_socket(&s->m, node) != machine_node_socket(&s->m, n))
			*link_bps += b;
	}
}

#define BW_MAX_ROUNDS 200
#define BW_TOLERANCE 1e-4

/* A stretch's next value; true if it moved. */
static bool bw_step(double *q, double demand, double capacity_gbs)
{
	if (capacity_gbs <= 0)
		return false;
	double next = *q * demand / (capacity_gbs * 1e9);
	if (next < 1)
		next = 1;
	bool moved = fabs(next - *q) > BW_TOLERANCE * *q;
	*q = next;
	return moved;
}

static bool demand_counts(const struct task_struct *t)
{
	return !t->syscall_caller && t->state == TASK_ON_CPU;
}

/* ---- a bound on the first round's demand ----------------------------------
 *
 * A large machine below its capacities solves at every tick (its threads
 * could reach a capacity, bandwidth_unreachable says no) and finds the
 * stretches at 1 again, after O(tasks x nodes) work.  When every stretch is
 * 1, a node's first-round demand is sum_i bps_i x (share fs_i[n] +
 * (1 - share) fr_i[n]) over the counted tasks, with bps_i = 1e9 / op_ns_i x
 * bytes_per_op and op_ns_i = cpu_ns + (slice_term_i + shared term).  The
 * shared term is at least its class's floor (bw_lat_ref: a little under
 * its least over the nodes, kept until that least leaves [floor, floor x
 * 1.07)), and the additions, the division and the product round
 * monotonically, so bps_i is at most beta_i, the same expression at the
 * floor: a function of the task's own slice term, which changes only when
 * its node, its slice or its slice's placement does.  So each counted task
 * keeps, in whole bytes per second rounded up, beta_i x share x fs_i[n] per
 * node (and their sum over the other sockets' nodes, for the link) and
 * beta_i x (1 - share) (summed per shared class and socket, to be weighted
 * by that class's fractions);
 * the sums over the tasks are exact integers, the same whatever order the
 * changes came in.  If each node's and the link's bound, with a margin far
 * beyond the float sums' rounding (N x 2^-53 relative for N tasks), is
 * below its capacity, the exact solve would compute each next stretch as
 * max(1, 1 x demand / capacity) = 1 and change nothing: it need not run.
 * Otherwise it runs as before, so the results are the same bit for bit.
 *
 * A task's part is taken again when it may have changed: every task after
 * any task changed CPU or state (sim.task_node_gen, task_state_gen), all
 * terms were taken again or a floor moved (bw_all), else those whose terms
 * refresh_op_ns took again since (bw_dirty). */

#define BW_PART_MAX 0x1p40 /* bytes/s of one task's part; above: no bound */
#define BW_UNBOUNDED UINT64_MAX /* a shared weight: the task's parts are not kept */

static inline int bw_row(const struct sim *s, int i)
{
	return s->w.p.map_shared ? 0 : s->tasks[i].mm->id;
}

/* Task @i's parts on @node, from its slice term: per node, then the link,
 * then its shared weight; false if too large to keep (an op_ns near 0). */
static bool bw_part_compute(struct sim *s, int i, int node, uint64_t *part)
{
	struct workload *w = &s->w;
	const int nodes = s->m.nr_nodes, slice = w->slice_of[i];
	const int socket = machine_node_socket(&s->m, node);
	const double share = w->slice_pages ? w->p.private_access_share : 0;
	const double op_least = w->p.cpu_ns_per_op + (w->slice_term[i] + w->bw_lat_ref[bw_row(s, i)]);
	if (!(op_least > 0))
		return false;
	const double beta = 1e9 / op_least * w->p.bytes_per_op;
	const double *fs = &w->frac_cache[(size_t)slice * (size_t)nodes];
	if (!(beta < BW_PART_MAX))
		return false;
	part[nodes] = 0;
	for (int n = 0; n < nodes; n++) {
		part[n] = (uint64_t)(beta * share * fs[n]) + 1;
		if (machine_node_socket(&s->m, n) != socket)
			part[nodes] += part[n];
	}
	part[nodes + 1] = (uint64_t)(beta * (1 - share)) + 1;
	return true;
}

/* Take task @i out of the kept sums, or put it in, counted on @node. */
static void bw_part_drop(struct sim *s, int i)
{
	struct workload *w = &s->w;
	const int nodes = s->m.nr_nodes;
	const uint64_t *part = &w->bw_part[(size_t)i * (size_t)(nodes + 2)];
	if (part[nodes + 1] == BW_UNBOUNDED) {
		w->bw_unbounded--;
	} else {
		for (int n = 0; n <= nodes; n++)
			w->bw_sum[n] -= part[n];
		w->bw_weight[bw_row(s, i) * s->m.nr_sockets + machine_node_socket(&s->m, w->bw_node[i])] -=
			part[nodes + 1];
	}
	w->bw_node[i] = -1;
}

static void bw_part_take(struct sim *s, int i, int node)
{
	struct workload *w = &s->w;
	const int nodes = s->m.nr_nodes, slice = w->slice_of[i];
	uint64_t *part = &w->bw_part[(size_t)i * (size_t)(nodes + 2)];
	w->bw_node[i] = node;
	w->bw_slice[i] = slice;
	w->bw_gen[i] = w->frac_gen[slice];
	w->bw_term[i] = w->slice_term[i];
	if (!bw_part_compute(s, i, node, part)) {
		part[nodes + 1] = BW_UNBOUNDED;
		w->bw_unbounded++;
		return;
	}
	for (int n = 0; n <= nodes; n++)
		w->bw_sum[n] += part[n];
	w->bw_weight[bw_row(s, i) * s->m.nr_sockets + machine_node_socket(&s->m, node)] +=
		part[nodes + 1];
}

/* Task @i's part again if anything it is taken from changed (@floor: its
 * class's floor did). */
static void bw_part_check(struct sim *s, int i, bool floor)
{
	struct workload *w = &s->w;
	const struct task_struct *t = &s->tasks[i];
	if (!demand_counts(t)) {
		if (w->bw_node[i] >= 0)
			bw_part_drop(s, i);
		return;
	}
	int node = s->cpus[t->cpu].node, slice = w->slice_of[i];
	class_refresh(s, slice);
	if (!floor && node == w->bw_node[i] && slice == w->bw_slice[i] &&
	    w->frac_gen[slice] == w->bw_gen[i] &&
	    !memcmp(&w->slice_term[i], &w->bw_term[i], sizeof(double)))
		return;
	if (w->bw_node[i] >= 0)
		bw_part_drop(s, i);
	bw_part_take(s, i, node);
}

/* Bring the kept sums up to date (see above). */
static void bw_sums_update(struct sim *s)
{
	struct workload *w = &s->w;
	const int nodes = s->m.nr_nodes;
	bool floor = false;
	for (int c = 0; c < w->nr_classes - s->nr_tasks; c++) {
		double least = INFINITY;
		for (int n = 0; n < nodes; n++) {
			double term = w->shared_term[(size_t)c * (size_t)nodes + (size_t)n];
			least = term < least ? term : least;
		}
		/* the floor within [least x (1 - 2^-4), least] */
		if (least < w->bw_lat_ref[c] || least * (1 - 0x1p-4) > w->bw_lat_ref[c]) {
			w->bw_lat_ref[c] = least * (1 - 0x1p-6);
			floor = true;
		}
	}
	if (floor || w->bw_all || s->task_node_gen != w->bw_node_gen ||
	    s->task_state_gen != w->bw_state_gen) {
		for (int i = 0; i < s->nr_tasks; i++)
			bw_part_check(s, i, floor);
	} else {
		for (int k = 0; k < w->nr_bw_dirty; k++)
			bw_part_check(s, w->bw_dirty[k], false);
	}
	for (int k = 0; k < w->nr_bw_dirty; k++)
		w->bw_mark[w->bw_dirty[k]] = 0;
	w->nr_bw_dirty = 0;
	w->bw_all = false;
	w->bw_node_gen = s->task_node_gen;
	w->bw_state_gen = s->task_state_gen;
}

/* refresh_op_ns took task @i's terms again. */
static inline void bw_mark_dirty(struct workload *w, int i)
{
	if (!w->bw_mark[i]) {
		w->bw_mark[i] = 1;
		w->bw_dirty[w->nr_bw_dirty++] = i;
	}
}

static bool bw_bound_ok(double bound, double capacity_gbs)
{
	return capacity_gbs <= 0 || bound * (1 + 1e-6) < capacity_gbs * 1e9;
}

/* Whether, with every stretch at 1, each node's and the link's first-round
 * demand is certainly below its capacity (see above). */
static bool bw_bound_below(struct sim *s)
{
	struct workload *w = &s->w;
	const int nodes = s->m.nr_nodes, sockets = s->m.nr_sockets;
	if (w->link_q != 1)
		return false;
	for (int n = 0; n < nodes; n++)
		if (w->mem_q[n] != 1)
			return false;
	bw_sums_update(s);
	if (w->bw_unbounded)
		return false;
	double bound[MAX_NUMNODES + 1];
	for (int n = 0; n <= nodes; n++)
		bound[n] = (double)w->bw_sum[n];
	for (int c = 0; c < w->nr_classes - s->nr_tasks; c++) {
		const uint64_t *weight = &w->bw_weight[c * sockets];
		bool read = false;
		for (int k = 0; k < sockets; k++)
			read |= weight[k] > 0;
		if (!read)
			continue;
		class_refresh(s, s->nr_tasks + c);
		const double *fr = &w->frac_cache[(size_t)(s->nr_tasks + c) * (size_t)nodes];
		for (int n = 0; n < nodes; n++) {
			int on = machine_node_socket(&s->m, n);
			for (int k = 0; k < sockets; k++) {
				bound[n] += (double)weight[k] * fr[n];
				if (k != on)
					bound[nodes] += (double)weight[k] * fr[n];
			}
		}
	}
	for (int n = 0; n < nodes; n++)
		if (!bw_bound_ok(bound[n], machine_node_bw_gbs(&s->m, n)))
			return false;
	return bw_bound_ok(bound[nodes], s->m.link_bw_gbs);
}

bool workload_bw_sums_check(struct sim *s)
{
	struct workload *w = &s->w;
	const int nodes = s->m.nr_nodes, sockets = s->m.nr_sockets;
	const int rows = (w->nr_classes - s->nr_tasks) * sockets;
	uint64_t sum[MAX_NUMNODES + 1] = { 0 }, part[MAX_NUMNODES + 2];
	uint64_t *weight = calloc((size_t)rows + 1, sizeof(uint64_t));
	int unbounded = 0;
	if (!weight)
		return false;
	bw_sums_update(s);
	bool same = true;
	for (int i = 0; i < s->nr_tasks; i++) {
		const struct task_struct *t = &s->tasks[i];
		if (!demand_counts(t)) {
			same &= w->bw_node[i] < 0;
			continue;
		}
		int node = s->cpus[t->cpu].node;
		same &= w->bw_node[i] == node;
		class_refresh(s, w->slice_of[i]);
		if (!bw_part_compute(s, i, node, part)) {
			unbounded++;
			continue;
		}
		for (int n = 0; n <= nodes; n++)
			sum[n] += part[n];
		weight[bw_row(s, i) * sockets + machine_node_socket(&s->m, node)] += part[nodes + 1];
	}
	same &= unbounded == w->bw_unbounded;
	same &= !memcmp(sum, w->bw_sum, (size_t)(nodes + 1) * sizeof(uint64_t));
	same &= !memcmp(weight, w->bw_weight, (size_t)rows * sizeof(uint64_t));
	free(weight);
	return same;
}

/* Solve the stretches from s->w.op_ns (current at the present stretches);
 * true if they moved, and op_ns with them.  The first round's demand is a
 * function of op_ns, the classes' fractions (frac_cache, which change only
 * with op_ns) and the set of running tasks: its last sums are kept while
 * both are unchanged (refresh_op_ns, which runs before every solve, clears
 * demand_valid if not).  The sums are the same additions in the same order
 * either way. */
static bool solve_bandwidth(struct sim *s)
{
	struct workload *w = &s->w;
	int nodes = s->m.nr_nodes;
	double node_bps[MAX_NUMNODES];
	bool changed = false;
	for (int round = 0; round < BW_MAX_ROUNDS; round++) {
		double link_bps = 0;
		if (round == 0 && w->demand_valid) {
			memcpy(node_bps, w->demand_bps, (size_t)nodes * sizeof(double));
			link_bps = w->demand_bps[nodes];
		} else if (round == 0 && !w->bw_no_bound && bw_bound_below(s)) {
			return false; /* the stretches stay at 1; the sums are not taken */
		} else {
			for (int n = 0; n < nodes; n++)
				node_bps[n] = 0;
			for (int i = 0; i < s->nr_tasks; i++) {
				const struct task_struct *t = &s->tasks[i];
				if (round == 0)
					w->demand_in[i] = demand_counts(t);
				if (demand_counts(t))
					task_demand(s, t, changed ? task_op_ns(s, t) : w->op_ns[i], node_bps,
						    &link_bps);
			}
			if (round == 0) {
				memcpy(w->demand_bps, node_bps, (size_t)nodes * sizeof(double));
				w->demand_bps[nodes] = link_bps;
				w->demand_valid = true;
			}
		}
		bool moved = false;
		for (int n = 0; n < nodes; n++)
			moved |= bw_step(&s->w.mem_q[n], node_bps[n], machine_node_bw_gbs(&s->m, n));
		moved |= bw_step(&s->w.link_q, link_bps, s->m.link_bw_gbs);
		if (!moved)
			break;
		changed = true;
		class_mark_all_stale(&s->w); /* the stretches changed */
	}
	return changed;
}

/* The rates from each task's ns per operation (s->w.op_ns); kept while
 * op_ns is (refresh_op_ns clears rates_valid when it recomputes). */
static void rates_from_op_ns(struct sim *s)
{
	if (s->w.rates_valid)
		return;
	s->w.rates_valid = true;
	for (int i = 0; i < s->nr_mms; i++)
		s->w.mm_rate[i] = 0;
	const int *mm = s->w.task_mm; /* refresh_op_ns took them */
	const double *op_ns = s->w.op_ns;
	double *task_rate = s->w.task_rate, *mm_rate = s->w.mm_rate;
	/* each mm's sum in task order, the same additions; a process's
	 * threads are neighbours, so a run of them sums in a register (through
	 * memory each addition waited for the last one's store: at 4,096
	 * threads this loop was a tenth of the run) */
	int cur = -1;
	double sum = 0;
	for (int i = 0; i < s->nr_tasks; i++) {
		if (mm[i] < 0)
			continue; /* a syscall caller */
		task_rate[i] = 1e9 / op_ns[i];
		if (mm[i] != cur) {
			if (cur >= 0)
				mm_rate[cur] = sum;
			cur = mm[i];
			sum = mm_rate[cur];
		}
		sum += task_rate[i];
	}
	if (cur >= 0)
		mm_rate[cur] = sum;
	refresh_page_rates(s);
}

/* op_ns of every task, as task_op_ns gives it, from the terms: the slice
 * term is kept per task, the shared term per shared class and node, so a
 * task's op_ns is two loads and two additions.  A slice term is taken again
 * when its class was marked stale since (slice_dirty; any other change
 * marks all: op_all) or the task's node changed (the scheduler's
 * task_node_gen moved and the node is not the one op_node holds).  A class
 * is recomputed from its own inputs alone, so which task reads it first
 * does not matter.  When op_ns is kept whole (op_valid), a
 * bandwidth-limited run's check also tells solve_bandwidth whether the
 * same tasks run as when its first-round sums were taken. */
static void op_terms_task(struct sim *s, int i, int node, double share)
{
	struct workload *w = &s->w;
	const struct task_struct *t = &s->tasks[i];
	w->task_mm[i] = t->syscall_caller ? -1 : t->mm->id;
	w->slice_term[i] = slice_term_on(s, t, node, share);
	w->op_node[i] = node;
	w->slice_dirty[i] = 0;
}

static void op_ns_from_terms(struct sim *s)
{
	struct workload *w = &s->w;
	const double share = private_share(s), cpu_ns = w->p.cpu_ns_per_op;
	const int nodes = s->m.nr_nodes, shared_classes = w->nr_classes - s->nr_tasks;
	double *shared_term = w->shared_term;
	for (int c = 0; c < shared_classes; c++)
		for (int n = 0; n < nodes; n++)
			shared_term[(size_t)c * (size_t)nodes + (size_t)n] =
				shared_term_on(s, s->nr_tasks + c, n, share);
	const bool map_shared = w->p.map_shared;
	const int *mm = w->task_mm, *node = w->op_node;
	const double *slice_term = w->slice_term;
	double *op_ns = w->op_ns;
	for (int i = 0; i < s->nr_tasks; i++) {
		int row = map_shared ? 0 : mm[i]; /* shared_class's, less nr_tasks */
		op_ns[i] = mm[i] < 0 ? cpu_ns
				     : cpu_ns + (slice_term[i] +
						 shared_term[(size_t)row * (size_t)nodes + (size_t)node[i]]);
	}
	w->nr_dirty = 0;
	w->op_all = false;
	w->op_valid = true;
	w->demand_valid = w->rates_valid = false;
}

static void refresh_op_ns(struct sim *s)
{
	struct workload *w = &s->w;
	const double share = private_share(s);
	const uint64_t gen = s->task_node_gen;
	if (!w->op_all) {
		/* the running set matters only to kept sums (demand_valid) */
		bool check_running = w->op_valid && w->demand_valid && bandwidth_limited(s);
		bool same_nodes = true, same_running = true;
		if (gen != w->op_gen || check_running)
			for (int i = 0; i < s->nr_tasks; i++) {
				const struct task_struct *t = &s->tasks[i];
				same_nodes &= t->syscall_caller || w->op_node[i] == s->cpus[t->cpu].node;
				same_running &= demand_counts(t) == w->demand_in[i];
			}
		if (same_nodes) {
			w->op_gen = gen;
			if (w->op_valid) {
				if (check_running && !same_running)
					w->demand_valid = false;
				return;
			}
			for (int k = 0; k < w->nr_dirty; k++) {
				int i = w->dirty_task[k];
				op_terms_task(s, i, w->op_node[i], share);
				bw_mark_dirty(w, i);
			}
			op_ns_from_terms(s);
			return;
		}
	}
	for (int i = 0; i < s->nr_tasks; i++)
		op_terms_task(s, i, s->cpus[s->tasks[i].cpu].node, share);
	w->bw_all = true;
	w->op_gen = gen;
	op_ns_from_terms(s);
}

/* The rates from s->w.op_ns, after the bandwidth roofline has had its say. */
static void settle_rates(struct sim *s)
{
	if (bandwidth_limited(s) && solve_bandwidth(s))
		refresh_op_ns(s);
	rates_from_op_ns(s);
}

/* Everything from scratch (a phase moved the slices' touchers). */
static void refresh_rates(struct sim *s)
{
	s->w.op_valid = false;
	s->w.op_all = true;
	refresh_op_ns(s);
	settle_rates(s);
}

int workload_start(struct sim *s)
{
	s->w.slice_pages = 0;
	struct layout l;
	compute_layout(s, &l);
	s->w.slice_pages = l.slice_pages;
	s->w.shared_pages = l.shared_pages;
	s->w.task_rate = calloc((size_t)s->nr_tasks, sizeof(double));
	s->w.op_ns = calloc((size_t)s->nr_tasks, sizeof(double));
	s->w.mm_rate = calloc((size_t)s->nr_mms, sizeof(double));
	s->w.user_frac = malloc((size_t)s->nr_tasks * sizeof(double));
	s->w.lat_cache = calloc((size_t)s->w.nr_classes * (size_t)s->m.nr_nodes, sizeof(double));
	s->w.lat_stale = malloc((size_t)s->w.nr_classes);
	s->w.frac_cache = calloc((size_t)s->w.nr_classes * (size_t)s->m.nr_nodes, sizeof(double));
	s->w.mem_q = malloc((size_t)s->m.nr_nodes * sizeof(double));
	s->w.sat_ns = calloc((size_t)s->m.nr_nodes + 1, sizeof(double));
	s->w.peak_q = calloc((size_t)s->m.nr_nodes + 1, sizeof(double));
	s->w.op_node = malloc((size_t)s->nr_tasks * sizeof(int));
	s->w.task_mm = malloc((size_t)s->nr_tasks * sizeof(int));
	s->w.slice_term = malloc((size_t)s->nr_tasks * sizeof(double));
	s->w.slice_dirty = calloc((size_t)s->nr_tasks, 1);
	s->w.dirty_task = malloc((size_t)s->nr_tasks * sizeof(int));
	s->w.nr_dirty = 0;
	s->w.op_all = true;
	s->w.shared_term = malloc((size_t)(s->w.nr_classes - s->nr_tasks) * (size_t)s->m.nr_nodes *
				  sizeof(double) + 1);
	s->w.demand_bps = calloc((size_t)s->m.nr_nodes + 1, sizeof(double));
	s->w.demand_in = calloc((size_t)s->nr_tasks, 1);
	s->w.frac_gen = calloc((size_t)s->w.nr_classes, sizeof(uint32_t));
	s->w.bw_part = malloc((size_t)s->nr_tasks * (size_t)(s->m.nr_nodes + 2) * sizeof(uint64_t));
	s->w.bw_term = malloc((size_t)s->nr_tasks * sizeof(double));
	s->w.bw_lat_ref = calloc((size_t)(s->w.nr_classes - s->nr_tasks) + 1, sizeof(double));
	s->w.bw_dirty = malloc((size_t)s->nr_tasks * sizeof(int));
	s->w.bw_mark = calloc((size_t)s->nr_tasks, 1);
	s->w.bw_sum = calloc((size_t)s->m.nr_nodes + 1, sizeof(uint64_t));
	s->w.bw_node = malloc((size_t)s->nr_tasks * sizeof(int));
	s->w.bw_slice = malloc((size_t)s->nr_tasks * sizeof(int));
	s->w.bw_gen = calloc((size_t)s->nr_tasks, sizeof(uint32_t));
	s->w.bw_weight = calloc((size_t)(s->w.nr_classes - s->nr_tasks) * (size_t)s->m.nr_sockets + 1,
				sizeof(uint64_t));
	s->w.nr_bw_dirty = s->w.bw_unbounded = 0;
	s->w.bw_all = true;
	if (!s->w.frac_cache || !s->w.mem_q || !s->w.sat_ns || !s->w.peak_q || !s->w.op_node ||
	    !s->w.shared_term || !s->w.task_mm || !s->w.slice_term || !s->w.slice_dirty ||
	    !s->w.dirty_task ||
	    !s->w.demand_bps || !s->w.demand_in || !s->w.frac_gen || !s->w.bw_part || !s->w.bw_sum ||
	    !s->w.bw_node || !s->w.bw_slice || !s->w.bw_gen || !s->w.bw_weight || !s->w.bw_term ||
	    !s->w.bw_dirty || !s->w.bw_mark || !s->w.bw_lat_ref)
		return -1;
	for (int i = 0; i < s->nr_tasks; i++)
		s->w.bw_node[i] = s->w.bw_slice[i] = -1;
	s->w.op_valid = s->w.demand_valid = s->w.rates_valid = false;
	for (int n = 0; n < s->m.nr_nodes; n++)
		s->w.mem_q[n] = 1;
	s->w.link_q = 1;
	s->w.slice_of = malloc((size_t)s->nr_tasks * sizeof(int));
	s->w.toucher = malloc((size_t)s->nr_tasks * sizeof(int));
	if (!s->w.lat_cache || !s->w.lat_stale || !s->w.slice_of || !s->w.toucher)
		return -1;
	for (int i = 0; i < s->nr_tasks; i++)
		s->w.slice_of[i] = s->w.toucher[i] = i;
	s->w.phase = 0;
	s->w.next_phase_ns = time_ns(s->w.p.phase_every_s, NSEC_PER_SEC); /* 0: no phases */
	class_mark_all_stale(&s->w);
	if (!s->w.task_rate || !s->w.op_ns || !s->w.mm_rate || !s->w.user_frac || build_groups(s))
		return -1;
	for (int i = 0; i < s->nr_tasks; i++)
		s->w.user_frac[i] = 1;
	refresh_rates(s);
	return 0;
}

/* Settle @t's stretch up to @now at @op ns per operation: its operations,
 * its share of time left by interrupt handlers, and (returned) its user
 * time's wait beyond all-local memory (@local ns per operation), which the
 * caller adds to s->w.remote_ns.  @target: operations before a thread
 * exits (0: none).  Inlined in the accounting tick's loop, which reads
 * @local and @target once. */
static inline __attribute__((always_inline)) double
account_task(struct sim *s, struct task_struct *t, uint64_t now, double op, double local,
	     double target)
{
	struct cpu_acct *c = &s->e.acct[t->cpu];
	double span = ns_to_double(now - t->acct_from); /* acct_from <= now */
	double busy, stolen;
	engine_account_delta(c, &busy, &stolen);
	t->acct_from = now;
	double user = span - busy;
	if (user < 0)
		user = 0;
	if (t->syscall_caller || t->done)
		user = 0; /* its time is the calls'; or it is exiting, its work done */
	t->ops += user / op;
	if (target > 0 && !t->done && t->ops >= target) {
		/* its last operation ended inside this stretch: interpolate, and
		 * count no operation past the last (the thread exits there) */
		double back = (t->ops - target) * op * (user > 0 ? span / user : 0);
		t->done = true;
		t->finish_ns = now - (uint64_t)(back < span ? back : span);
		t->ops = target;
	}
	/* the share of the interval not taken by interrupt handlers: the
	 * thread touches no memory while they run */
	double frac = span > 0 ? 1 - stolen / span : 1;
	s->w.user_frac[t->idx] = frac < 0 ? 0 : frac;
	/* user time spent waiting on latency beyond all-local memory (0 adds
	 * nothing: the sum starts at +0 and only grows) */
	return op > local ? user * (op - local) / op : 0;
}

static double local_op_ns(const struct sim *s)
{
	return s->w.p.cpu_ns_per_op + s->m.cost.dram_local_ns;
}

/* The operations a thread does before it exits (0: no limit). */
static double work_target(const struct sim *s)
{
	return s->w.p.work_mops * 1e6;
}

/* A kernel path charged near the end may carry the clock past the run's
 * end (its cost is taken at once), and a task may stop there: the run's
 * work stops at the end, and a stretch already settled to it adds nothing
 * (its start is at most the end too: __schedule). */
static uint64_t within_run(const struct sim *s, const struct task_struct *t, uint64_t now)
{
	if (now > s->duration_ns)
		now = s->duration_ns;
	return now < t->acct_from ? t->acct_from : now;
}

void workload_account_task(struct sim *s, struct task_struct *t, uint64_t now)
{
	now = within_run(s, t, now);
	s->w.remote_ns += account_task(s, t, now, task_op_ns(s, t), local_op_ns(s), work_target(s));
}

/* Every 10 ms: settle the running tasks, then refresh the rates.  Nothing
 * between the two changes a task's ns per operation, so it is computed
 * once per task for both. */
void workload_account(struct sim *s, uint64_t now)
{
	refresh_op_ns(s);
	const double local = local_op_ns(s), target = work_target(s);
	double remote = s->w.remote_ns; /* the same additions in the same order */
	for (int i = 0; i < s->nr_tasks; i++)
		if (s->tasks[i].state == TASK_ON_CPU)
			remote += account_task(s, &s->tasks[i], now, s->w.op_ns[i], local, target);
	s->w.remote_ns = remote;
	/* time spent at a bandwidth limit, for the report */
	double dt = (double)(now - s->w.last_account);
	for (int n = 0; n < s->m.nr_nodes; n++)
		if (s->w.mem_q[n] > 1) {
			s->w.sat_ns[n] += dt;
			s->w.peak_q[n] = s->w.mem_q[n] > s->w.peak_q[n] ? s->w.mem_q[n] : s->w.peak_q[n];
		}
	if (s->w.link_q > 1) {
		s->w.sat_ns[s->m.nr_nodes] += dt;
		s->w.peak_q[s->m.nr_nodes] = s->w.link_q > s->w.peak_q[s->m.nr_nodes] ? s->w.link_q
										: s->w.peak_q[s->m.nr_nodes];
	}
	s->w.last_account = now;
	settle_rates(s);
}

/* A phase: thread j of each process now touches the slice of thread
 * j + shift (mod threads), the k-th phase k * shift on.  What each task
 * touched so far is settled (workload_account ran at @now); the slices'
 * touch processes are redrawn for their new touchers (memorylessness),
 * and the latency model and rates follow. */
void workload_phase(struct sim *s, uint64_t now)
{
	struct workload *w = &s->w;
	int threads = w->p.threads;
	int shift = w->p.phase_shift ? w->p.phase_shift : 1;
	if (!w->next_phase_ns || now < w->next_phase_ns)
		return;
	w->phase++;
	w->next_phase_ns += time_ns(w->p.phase_every_s, NSEC_PER_SEC);
	for (int m = 0; m < w->p.processes; m++)
		for (int j = 0; j < threads; j++) {
			int task = m * threads + j;
			int slice = m * threads + (int)(((int64_t)j + (int64_t)w->phase * shift) % threads);
			w->slice_of[task] = slice;
			w->toucher[slice] = task;
		}
	struct touch_model *tm = &w->touch;
	for (int m = 0; m < w->p.processes; m++)
		for (int j = 0; j < threads; j++) {
			int slice = m * threads + j;
			const struct task_struct *t = &s->tasks[w->toucher[slice]];
			tm->owner_cpu[slice] = t->state == TASK_ON_CPU ? t->cpu : -1;
		}
	refresh_rates(s);
	sim_enter(s, NULL, now);
	for (int m = 0; m < w->p.processes; m++)
		for (int j = 0; j < threads; j++)
			touch_changed(tm, (uint32_t)(m * threads + j));
}

void workload_page_moved(struct sim *s, struct vm_area_struct *vma, uint64_t addr, int from,
			 int to, unsigned long nr)
{
	if (vma->vm_mm != vma->store->mappers[0]->vm_mm)
		return; /* count each physical page once: in the first mapping mm */
	struct pte_table *t = pte_table_of(vma, addr);
	int cls = table_class(s, vma, t);
	int hot = !!(vma->ptes[pte_index(vma, addr)] & PTE_SIM_HOT);
	class_nodes(&s->w, cls, hot)[from] -= nr * t->weight;
	class_nodes(&s->w, cls, hot)[to] += nr * t->weight;
	class_mark_stale(&s->w, cls);
}

/* ---- aggregated private faults (docs/model.md 3.3a) ------------------------ */

/* Whether a table's @n pages may be pooled for @p on @nid: none is in a
 * large folio (its faults restore several PTEs), and each PROT_NONE one is
 * on @nid, not isolated or locked for a migration, and was last touched by
 * @p or by nobody (else its fault is a shared one, for task_numa_group).
 * A page's state is one 8-byte word: the fields are compared at once,
 * against a page_state built with the wanted values under a mask built
 * the same way (so the byte order does not matter).  Eight pages at a
 * time (a PTE is one byte): their words OR-ed say whether any is large,
 * and when all eight PTEs are PROT_NONE, their words differ from the
 * wanted one in no placed bit, and either in no pid bit or all eight are
 * unset, all eight pass at once; anything else is looked at page by
 * page.  The same verdict as page by page. */
struct poolable_want {
	uint64_t want, order, placed, pid, unset, last;
};

static bool page_poolable(const struct poolable_want *m, uint64_t w)
{
	/* misplaced, migrating, or a shared fault (task_numa_group) */
	return !(((w ^ m->want) & m->placed) ||
		 (((w ^ m->want) & m->pid) && ((w ^ m->unset) & m->last)));
}

static bool table_poolable(const struct page_state *pg, const pte_t *ptes, uint64_t n, int nid,
			   const struct task_struct *p)
{
	struct page_state want = { .last_cpupid = (uint32_t)p->pid & 0xff, .nid = (uint8_t)nid },
			  order = { .flags = (uint8_t)(0xffu << FOLIO_ORDER_SHIFT) },
			  placed = { .nid = 0xff, .flags = FOLIO_ISOLATED | FOLIO_LOCKED },
			  pid = { .last_cpupid = 0xff }, unset = { .last_cpupid = LAST_CPUPID_UNSET },
			  last = { .last_cpupid = UINT32_MAX };
	struct poolable_want m;
	memcpy(&m.want, &want, 8);
	memcpy(&m.order, &order, 8);
	memcpy(&m.placed, &placed, 8);
	memcpy(&m.pid, &pid, 8);
	memcpy(&m.unset, &unset, 8);
	memcpy(&m.last, &last, 8);
	const uint64_t ones = 0x0101010101010101ull;
	_Static_assert(PTE_PRESENT == 0x01 && PTE_PROTNONE == 0x02 && sizeof(pte_t) == 1,
		       "the byte test below");
	uint64_t i = 0;
	for (; i + 8 <= n; i += 8) {
		uint64_t x, any = 0, off = 0, off_unset = 0;
		memcpy(&x, &ptes[i], 8);
		for (int j = 0; j < 8; j++) {
			uint64_t w;
			memcpy(&w, &pg[i + (uint64_t)j], 8);
			any |= w;
			off |= w ^ m.want;
			off_unset |= w ^ m.unset;
		}
		if (any & m.order)
			return false; /* a large folio: its faults restore several PTEs */
		/* a byte's low two bits are PROTNONE alone iff they XOR 0x02 to 0 */
		uint64_t z = (x & (3 * ones)) ^ (2 * ones), pn = ~(z | (z >> 1)) & ones;
		if (!pn || (pn == ones && !(off & m.placed) &&
			    (!(off & m.pid) || !(off_unset & m.last))))
			continue;
		for (uint64_t j = i; j < i + 8; j++) {
			uint64_t w;
			memcpy(&w, &pg[j], 8);
			if (pte_protnone(ptes[j]) && !page_poolable(&m, w))
				return false;
		}
	}
	for (; i < n; i++) {
		uint64_t w;
		memcpy(&w, &pg[i], 8);
		if (w & m.order)
			return false;
		if (pte_protnone(ptes[i]) && !page_poolable(&m, w))
			return false;
	}
	return true;
}

void workload_pool_offer(struct sim *s, struct vm_area_struct *vma, struct pte_table *t)
{
	struct touch_model *tm = &s->w.touch;
	if (!tm->pool || t->group >= tm->nr_slices || t->pmd_huge || t->lazy ||
	    s->w.p.phase_every_s > 0 || !(t->nr_protnone_hot + t->nr_protnone_cold))
		return;
	uint32_t ti = (uint32_t)(t - vma->tables);
	struct touch_pool *tp = &tm->pool[vma->first_table_id + ti];
	const struct task_struct *p = &s->tasks[s->w.toucher[t->group]];
	int nid = s->cpus[p->cpu].node;
	uint64_t i0 = (uint64_t)ti * PTRS_PER_PTE;
	uint64_t n = vma_pages(vma) - i0 < PTRS_PER_PTE ? vma_pages(vma) - i0 : PTRS_PER_PTE;
	const struct page_state *pg = &vma->store->pg[vma->store_pgoff + i0];
	if (tp->on || !table_poolable(pg, &vma->ptes[i0], n, nid, p))
		return;
	tp->on = 1;
	tp->nid = (uint8_t)nid;
	uint32_t g = t->group;
	tm->pool_w[2 * g] += (uint64_t)t->nr_protnone_cold * t->weight;
	tm->pool_w[2 * g + 1] += (uint64_t)t->nr_protnone_hot * t->weight;
	if (tm->pool_tables[g]++ == 0)
		tm->pool_nid[g] = (int16_t)nid;
	else if (tm->pool_nid[g] != nid)
		tm->pool_nid[g] = POOL_NID_MIXED;
}

void workload_table_sync(struct vm_area_struct *vma, struct pte_table *t)
{
	struct sim *s = vma->vm_mm->sim;
	VM_BUG_ON(!t->rank); /* reached through pte_table_of or table_of_id */
	if (touch_in_bulk(&s->w.touch, t->group))
		user_touch_bulk_end(s, t->group); /* its faults so far, before the path looks */
	if (t->lazy)
		workload_materialize_table(vma, t);
	workload_pool_settle(vma, t);
}

/* numa_rebuild_single_mapping of every PROT_NONE PTE of one kind (@hot)
 * in table @t (index @ti of @vma): pool_settle when the faults since
 * pooling hit all of them.  The same PTEs, bitmaps and counts as one by
 * one. */
static void settle_all(struct vm_area_struct *vma, struct pte_table *t, uint32_t ti, int hot,
		       pte_t write)
{
	uint64_t *map = hot ? t->protnone_hot : t->protnone_cold;
	pte_t *ptes = &vma->ptes[(uint64_t)ti * PTRS_PER_PTE];
	for (unsigned w = 0; w < PTRS_PER_PTE / 64; w++) {
		for (uint64_t bits = map[w]; bits; bits &= bits - 1) {
			pte_t *ptep = &ptes[w * 64 + (unsigned)__builtin_ctzll(bits)];
			pte_t old = *ptep;
			VM_BUG_ON(!pte_protnone(old) || !(old & PTE_SIM_HOT) != !hot);
			*ptep = (pte_t)(PTE_PRESENT | PTE_YOUNG | (old & (PTE_DIRTY | PTE_SIM_HOT)) | write);
		}
		map[w] = 0;
	}
	*(hot ? &t->nr_protnone_hot : &t->nr_protnone_cold) = 0;
}

void workload_pool_settle(struct vm_area_struct *vma, struct pte_table *t)
{
	struct touch_model *tm = &vma->vm_mm->sim->w.touch;
	if (!tm->pool)
		return;
	uint32_t ti = (uint32_t)(t - vma->tables);
	struct touch_pool *tp = &tm->pool[vma->first_table_id + ti];
	if (!tp->on)
		return;
	touch_unpend_table(tm, t->group, t->rank); /* its faults still without a table */
	/* The faults since the table was pooled hit PROT_NONE pages of their
	 * kind that no path has looked at since: each of them alike, so which
	 * ones they were is a uniform draw without replacement. */
	struct rng r = { tm->pool_key, tm->pool_ctr };
	pte_t write = (vma->vm_flags & VM_WRITE) ? PTE_WRITE : 0; /* pte_writable_after_fault */
	for (int hot = 0; hot < 2; hot++) {
		uint64_t *map = hot ? t->protnone_hot : t->protnone_cold;
		if (tp->done[hot] && tp->done[hot] == (hot ? t->nr_protnone_hot : t->nr_protnone_cold)) {
			/* every one of them: the draws cannot change which, only
			 * the stream moves on as if they were drawn */
			settle_all(vma, t, ti, hot, write);
			r.ctr += tp->done[hot];
			continue;
		}
		for (unsigned k = tp->done[hot]; k; k--) {
			unsigned count = hot ? t->nr_protnone_hot : t->nr_protnone_cold;
			unsigned bit = find_nth_bit(map, PTRS_PER_PTE, (unsigned)rng_below(&r, count));
			pte_t *ptep = &vma->ptes[(uint64_t)ti * PTRS_PER_PTE + bit];
			pte_t old = *ptep;
			/* numa_rebuild_single_mapping; the touch model counted the
			 * fault when it happened */
			pte_t val = (pte_t)(PTE_PRESENT | PTE_YOUNG | (old & (PTE_DIRTY | PTE_SIM_HOT)) | write);
			bool h;
			*ptep = val;
			pte_table_update(t, bit, old, val, &h);
		}
	}
	tm->pool_ctr = r.ctr;
	*tp = (struct touch_pool){ { 0, 0 }, 0, 0 };
	uint32_t g = t->group;
	tm->pool_w[2 * g] -= (uint64_t)t->nr_protnone_cold * t->weight;
	tm->pool_w[2 * g + 1] -= (uint64_t)t->nr_protnone_hot * t->weight;
	if (--tm->pool_tables[g] == 0)
		tm->pool_nid[g] = POOL_NID_NONE;
}

/* madvise(MADV_DONTNEED) zapped the mapped page at @addr (its PTE not yet
 * cleared): it leaves the latency model and the RSS. */
void workload_page_zapped(struct sim *s, struct vm_area_struct *vma, uint64_t addr)
{
	vma->vm_mm->rss_pages--;
	if (vma->vm_mm != vma->store->mappers[0]->vm_mm)
		return;
	struct pte_table *t = pte_table_of(vma, addr);
	uint64_t idx = vma_store_idx(vma, addr);
	int cls = table_class(s, vma, t);
	int hot = !!(vma->ptes[pte_index(vma, addr)] & PTE_SIM_HOT);
	class_nodes(&s->w, cls, hot)[vma->store->pg[idx].nid] -= t->weight;
	class_mark_stale(&s->w, cls);
}

/* The first touch after a zap (do_anonymous_page): a new order-0 page on
 * node @nid for the freed store page at @addr, mapped present, young,
 * writable and dirty (every first touch is a write); its hotness is the
 * page's, as at set-up. */
void workload_page_refault(struct sim *s, struct vm_area_struct *vma, uint64_t addr, int nid)
{
	const struct workload_params *p = &s->w.p;
	struct pte_table *t = pte_table_of(vma, addr);
	uint64_t idx = vma_store_idx(vma, addr);
	struct page_state *pg = &vma->store->pg[idx];
	uint64_t hot_cut = workload_hot_cut(p->hot_fraction);
	bool hot = page_is_hot(s, vma->store, idx, hot_cut, t->owner >= 0);
	pg->nid = (uint8_t)nid;
	pg->last_cpupid = LAST_CPUPID_UNSET;
	pg->flags = 0;
	pg->flags2 = 0;
	pg->mapcount = 1;
	set_pte_at(vma, addr, &vma->ptes[pte_index(vma, addr)],
		   PTE_PRESENT | PTE_YOUNG | PTE_WRITE | PTE_DIRTY | (hot ? PTE_SIM_HOT : 0));
	vma->vm_mm->rss_pages++;
	if (vma->vm_mm != vma->store->mappers[0]->vm_mm)
		return;
	int cls = table_class(s, vma, t);
	class_nodes(&s->w, cls, hot)[nid] += t->weight;
	class_mark_stale(&s->w, cls);
}

/* ---- the hint-fault process -------------------------------------------- */

/* Touch rates (touches/ns) of one hot and one cold page of a region of
 * @pages taking @rate touches/s, given workload.hot_fraction and
 * hot_access_share (read once by the caller's loop: its stores could
 * alias them). */
static inline void page_rates(double hot_fraction, double hot_share, double rate, double pages,
			      double *hot, double *cold)
{
	double pages_hot = pages * hot_fraction;
	double pages_cold = pages - pages_hot;
	*hot = pages_hot >= 1 ? rate * hot_share / pages_hot / 1e9 : 0;
	*cold = pages_cold >= 1 ? rate * (1 - hot_share) / pages_cold / 1e9 : 0;
}

/* Per-page rates of every class, after the task rates change. */
static void refresh_page_rates(struct sim *s)
{
	const struct workload_params *p = &s->w.p;
	const double hf = p->hot_fraction, hs = p->hot_access_share, priv = p->private_access_share;
	const double *task_rate = s->w.task_rate, *wsize = s->w.wsize;
	const int *toucher = s->w.toucher;
	double *rate = s->w.touch.rate;
	/* per page of weight 1: the region's touches over its weighted pages;
	 * after partial unmaps, over the pages still mapped */
	double f = s->w.unmapped_pages ? 1 - (double)s->w.unmapped_pages / (double)s->w.populated_pages : 1;
	for (int i = 0; i < s->nr_tasks; i++) /* slice i, touched by toucher[i] */
		page_rates(hf, hs, task_rate[toucher[i]] * priv, wsize[i] * f, &rate[2 * i], &rate[2 * i + 1]);
	for (int m = 0; m < s->nr_mms; m++)
		page_rates(hf, hs, s->w.mm_rate[m] * (s->w.slice_pages ? 1 - priv : 1),
			   wsize[s->nr_tasks + m] * f, &rate[2 * (s->nr_tasks + m)],
			   &rate[2 * (s->nr_tasks + m) + 1]);
	touch_rates_changed(&s->w.touch);
}

/* ---- touch groups ---------------------------------------------------------- */

/* The touch groups from what populate_vma gathered per table: each table's
 * group (in table id order, the order touch_init ranks them in), each
 * group's weighted size and its tables' one weight. */
static int build_groups(struct sim *s)
{
	struct touch_model *tm = &s->w.touch;
	uint32_t n = (uint32_t)(s->nr_tasks + s->nr_mms), total = s->nr_tables;
	int rc = -1;
	/* the ranks touch_init gives are those a table's struct gets
	 * (table_ident): the checker compares (mm/debug.c, check_groups) */
	if (touch_init(tm, &s->e, n, (uint32_t)s->nr_tasks, total, s->w.table_group, NULL, s->seed) ||
	    (!s->exact && touch_pool_init(tm, total, s->seed)) ||
	    (s->exact && touch_ahead_init(tm)))
		goto out;
	/* a slice's faults may go without a table only if its pages weigh
	 * alike: its first table's weight, 0 once one differs */
	for (uint32_t g = 0; tm->lazy_w && g < tm->nr_slices; g++)
		tm->lazy_w[g] = s->w.group_w[g];
	for (uint32_t g = 0; g < n; g++)
		tm->timer[g] = touch_timer_id(s, (int)g);
	for (int i = 0; i < s->nr_tasks; i++)
		tm->owner_cpu[i] = -1; /* until it runs (sched_start) */
	rc = 0;
out:
	free(s->w.table_group);
	free(s->w.group_w);
	s->w.table_group = s->w.group_w = NULL;
	return rc;
}
