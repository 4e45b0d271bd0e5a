/* Memory policies and NUMA hinting from mm/mempolicy.c (linux-next, early
 * 2026): where a policy puts a first touch (policy_node, interleave_nid,
 * weighted_interleave_nid) and the page allocator's fallback through the
 * zonelist; change_prot_numa, folio_can_map_prot_numa and mpol_misplaced.
 * A VMA's policy is the default (local, MPOL_F_MOF|MPOL_F_MORON) unless the
 * workload keeps its first-touch policy in force (numactl --membind,
 * --interleave, --preferred): then it has no MPOL_F_MOF and the scanner
 * skips it, except a bind policy with MPOL_F_NUMA_BALANCING (v5.15), which
 * migrates within its nodes.
 * Left out: memory tiering, KSM, zone-device, memcg counters, per-page
 * interleaving (the model interleaves per 2 MiB), MPOL_PREFERRED_MANY,
 * MPOL_LOCAL's distinction from the default. */
#include "linux/migrate.h"
#include "linux/mm.h"
#include "linux/sched/numa_balancing.h"
#include "kernel/sim.h"

/* ---- first touch ---------------------------------------------------------- */

static int nth_node(uint64_t mask, uint64_t n)
{
	int count = __builtin_popcountll(mask);
	n %= (uint64_t)count;
	for (int nid = 0; nid < 64; nid++)
		if ((mask >> nid) & 1 && n-- == 0)
			return nid;
	return 0;
}

/* weighted_interleave_nid: chunk @c of the region, in a round of
 * sum(weights) chunks in which node n takes weight[n] in a row. */
static int weighted_nid(const struct first_touch_policy *pol, uint64_t c)
{
	uint64_t round = 0;
	for (int nid = 0; nid < 64; nid++)
		if ((pol->nodes >> nid) & 1)
			round += pol->weight[nid] ? pol->weight[nid] : 1;
	uint64_t k = c % (round ? round : 1);
	for (int nid = 0; nid < 64; nid++) {
		if (!((pol->nodes >> nid) & 1))
			continue;
		uint64_t w = pol->weight[nid] ? pol->weight[nid] : 1;
		if (k < w)
			return nid;
		k -= w;
	}
	return 0;
}

int mpol_first_touch_node(const struct machine *m, const struct first_touch_policy *pol,
			  int user_node, uint64_t chunk)
{
	uint64_t all = m->nr_nodes >= 64 ? ~0ull : (1ull << m->nr_nodes) - 1;
	switch (pol->mode) {
	case FT_LOCAL:
		return user_node;
	case FT_REMOTE:
		return (user_node + m->nodes_per_socket) % m->nr_nodes;
	case FT_INTERLEAVE:
		return nth_node(pol->nodes ? pol->nodes : all, chunk);
	case FT_WEIGHTED:
		return weighted_nid(pol, chunk);
	case FT_BIND:
		/* the first node of the mask the local node's zonelist meets:
		 * the local node if bound there, else the nearest bound one */
		if ((pol->nodes >> user_node) & 1)
			return user_node;
		/* fall through */
	case FT_PREFERRED: {
		int best = -1;
		for (int nid = 0; nid < m->nr_nodes; nid++)
			if ((pol->nodes >> nid) & 1 &&
			    (best < 0 || m->distance[user_node][nid] < m->distance[user_node][best]))
				best = nid;
		return best < 0 ? user_node : best;
	}
	default:
		return 0;
	}
}

/* The page allocator: @want, else the next node of @want's zonelist
 * (nearest first, ties by number) with room -- only the policy's nodes
 * under bind.  -1 if nothing fits (out of memory). */
int alloc_pages_policy(struct sim *s, const struct first_touch_policy *pol, int want,
		       unsigned long nr)
{
	const struct machine *m = &s->m;
	bool bind = pol->mode == FT_BIND;
	bool tried[64] = { false };
	for (int k = 0; k < m->nr_nodes; k++) {
		int best = -1;
		for (int nid = 0; nid < m->nr_nodes; nid++) {
			if (tried[nid] || (bind && !((pol->nodes >> nid) & 1)))
				continue;
			if (best < 0 || m->distance[want][nid] < m->distance[want][best])
				best = nid;
		}
		if (best < 0)
			return -1;
		tried[best] = true;
		if (alloc_pages_bulk_node(s, best, nr))
			return best;
	}
	return -1;
}

static bool is_cow_mapping(unsigned long flags)
{
	return !(flags & VM_SHARED) && (flags & VM_WRITE);
}

void prot_numa_test_init(struct prot_numa_test *pt, struct vm_area_struct *vma,
			 bool is_private_single_threaded)
{
	struct sim *s = vma->vm_mm->sim;
	pt->mthp_numa = s->k.mthp_numa;
	pt->maybe_mapped_shared = s->k.maybe_mapped_shared;
	pt->cow = is_cow_mapping(vma->vm_flags);
	pt->local_nid = is_private_single_threaded ? numa_node_id(s) : NUMA_NO_NODE;
	pt->vma = vma;
}

/* folio_can_map_prot_numa: is hinting this folio useful and safe?  The
 * v6.19 helper; its COW test was folio_likely_mapped_shared (plus DMA pins)
 * from v6.10 and folio_maybe_mapped_shared from v6.15.  The tests are
 * prot_numa_test_folio's (linux/mm.h). */
bool folio_can_map_prot_numa(struct folio folio, struct vm_area_struct *vma,
			     bool is_private_single_threaded)
{
	struct prot_numa_test pt;
	prot_numa_test_init(&pt, vma, is_private_single_threaded);
	return prot_numa_test_folio(&pt, folio);
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
	struct prot_numa_test pt;
	prot_numa_test_init(&pt, vma, is_private_single_threaded);
	return prot_numa_test(&pt, folio, idx);
}

bool prot_numa_test_pre_mthp(const struct prot_numa_test *pt, struct folio folio, uint64_t idx)
{
	struct sim *s = pt->vma->vm_mm->sim;

	if (pt->cow) {
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
	if (folio_nid(folio) == pt->local_nid)
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
 * with MPOL_F_MORON) and MPOL_BIND with MPOL_F_NUMA_BALANCING (this node,
 * if it is one of the bound ones): a folio already on this node stays,
 * without touching last_cpupid; otherwise this node is the target if
 * should_numa_migrate_memory() agrees.  Other policies have no
 * MPOL_F_MOF, so their VMAs are never scanned and never get here. */
int mpol_misplaced(struct folio folio, struct vm_area_struct *vma, uint64_t addr)
{
	struct sim *s = vma->vm_mm->sim;
	int curnid = folio_nid(folio);
	int thiscpu = s->e.cpu;
	int thisnid = numa_node_id(s);
	(void)addr;

	if (vma->bind_nodes && !((vma->bind_nodes >> thisnid) & 1))
		return NUMA_NO_NODE;
	if (curnid == thisnid)
		return NUMA_NO_NODE;
	if (!should_numa_migrate_memory(s, s->current, folio, curnid, thiscpu))
		return NUMA_NO_NODE;
	return thisnid;
}

/* ---- the migration system calls ------------------------------------------- */

#include "linux/migrate.h"
#include "workload/workload.h"

/* queue_pages_range, one batch at a time: walk the mm's VMAs from the
 * call's position and isolate the folios on the source node (those not
 * already isolated by another migration), up to NR_MAX_BATCHED_MIGRATION
 * pages; then migrate_pages(MIGRATE_SYNC) runs the batch's unmap.  The
 * kernel isolates the whole range before migrating; the model interleaves
 * the two per batch, which changes when the isolation is paid, not what
 * is moved or flushed. */
bool migrate_call_batch(struct sim *s, struct migrate_call *call, struct migrate_ctx *ctx)
{
	struct mm_struct *mm = &s->mms[call->mm_id];
	unsigned long pages = 0;
	long walked = 0;
	ctx->nr = 0;
	for (; call->vma < mm->nr_vmas; call->vma++) {
		struct vm_area_struct *vma = &mm->vmas[call->vma];
		if (call->addr < vma->vm_start)
			call->addr = vma->vm_start;
		while (call->addr < vma->vm_end) {
			struct pte_table *t = pte_table_of(vma, call->addr);
			workload_table_sync(vma, t);
			pte_t pte = vma->ptes[pte_index(vma, call->addr)];
			walked++;
			if (!pte_present(pte)) {
				call->addr += PAGE_SIZE;
				continue;
			}
			struct folio f = page_folio(vma->store, vma_store_idx(vma, call->addr));
			uint64_t end = vma_address(vma, f.idx + folio_nr_pages(f));
			call->addr = end && end <= vma->vm_end ? end : call->addr + PAGE_SIZE;
			uint8_t *fl = &f.fs->pg[f.idx].flags;
			if (folio_nid(f) != call->from || (*fl & FOLIO_ISOLATED))
				continue;
			*fl |= FOLIO_ISOLATED;
			ctx->folios[ctx->nr++] = f;
			pages += folio_nr_pages(f);
			if (pages >= NR_MAX_BATCHED_MIGRATION || ctx->nr == MAX_MIGRATE_FOLIOS)
				goto batch;
		}
	}
batch:
	charge(s, COST_MIGRATE, (double)walked * s->m.cost.pte_skip_ns);
	if (!ctx->nr)
		return false;
	ctx->target_nid = call->to;
	ctx->mode = MIGRATE_SYNC;
	ctx->reason = call->reason;
	ctx->setup_prepaid = false;
	migrate_pages_begin(s, ctx);
	return true;
}

void migrate_call_batch_finish(struct sim *s, struct migrate_call *call, struct migrate_ctx *ctx)
{
	migrate_pages_finish(s, ctx);
	call->moved += ctx->nr_succeeded;
	call->failed += ctx->nr_failed_pages;
}
