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
		return (user_node + m->nodes_per_socket) % m->nr_cpu_nodes; /* the next socket's DRAM */
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

/* @want's zonelist (nearest first, ties by number; only the policy's
 * nodes under bind) into @order; returns its length. */
static int zonelist(const struct machine *m, const struct first_touch_policy *pol, int want,
		    int *order)
{
	bool bind = pol->mode == FT_BIND, taken[MAX_NUMNODES] = { false };
	int n = 0;
	for (int k = 0; k < m->nr_nodes; k++) {
		int best = -1;
		for (int nid = 0; nid < m->nr_nodes; nid++) {
			if (taken[nid] || (bind && !((pol->nodes >> nid) & 1)))
				continue;
			if (best < 0 || m->distance[want][nid] < m->distance[want][best])
				best = nid;
		}
		if (best < 0)
			break;
		taken[best] = true;
		order[n++] = best;
	}
	return n;
}

/* The page allocator (__alloc_pages): the first node of @want's zonelist
 * whose free pages stay above its low watermark (get_page_from_freelist's
 * fast path); failing that, the slow path wakes every zonelist node's
 * kswapd (wake_all_kswapds) and takes the first above its min watermark.
 * Last, below the watermarks: the model has neither direct reclaim nor
 * the OOM killer, and the scenario's memory check sized the workload to
 * the machine.  -1 if nothing fits at all. */
int alloc_pages_policy(struct sim *s, const struct first_touch_policy *pol, int want,
		       unsigned long nr)
{
	int order[MAX_NUMNODES], n = zonelist(&s->m, pol, want, order);
	for (int k = 0; k < n; k++)
		if (node_watermark_ok(&s->node_free_pages[order[k]], &s->pgdat[order[k]], WMARK_LOW, nr))
			return alloc_pages_bulk_node(s, order[k], nr) ? order[k] : -1;
	for (int k = 0; k < n; k++)
		wakeup_kswapd(s, order[k], 0);
	for (int k = 0; k < n; k++)
		if (node_watermark_ok(&s->node_free_pages[order[k]], &s->pgdat[order[k]], WMARK_MIN, nr))
			return alloc_pages_bulk_node(s, order[k], nr) ? order[k] : -1;
	for (int k = 0; k < n; k++)
		if (alloc_pages_bulk_node(s, order[k], nr))
			return order[k];
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

#include <stdio.h>
#include <stdlib.h>

#include "linux/bitops.h"
#include "linux/migrate.h"
#include "linux/mmdebug.h"
#include "workload/workload.h"

/* The list's bit for page @idx of store @fs. */
static uint64_t list_bit(const struct sim *s, const struct migrate_call *call,
			 const struct folio_store *fs, uint64_t idx)
{
	return call->store_base[fs - s->stores] + idx;
}

static void list_mark(const struct sim *s, struct migrate_call *call, struct folio f, bool on)
{
	uint64_t b = list_bit(s, call, f.fs, f.idx);
	for (unsigned long k = 0; k < folio_nr_pages(f); k++) {
		if (on)
			__set_bit(b + k, call->listed);
		else
			__clear_bit(b + k, call->listed);
	}
}

/* Room for the list: a bit for every page of every store, whichever of
 * them the process maps. */
static void list_alloc(const struct sim *s, struct migrate_call *call)
{
	uint64_t bits = 0;
	call->store_base = malloc(sizeof(uint64_t) * (size_t)(s->nr_stores ? s->nr_stores : 1));
	if (!call->store_base)
		abort();
	for (int i = 0; i < s->nr_stores; i++) {
		call->store_base[i] = bits;
		bits += s->stores[i].nr_pages;
	}
	call->listed = calloc((size_t)(bits / 64 + 1), sizeof(uint64_t));
	if (!call->listed)
		abort();
}

/* migrate_folio_add (and move_pages' __add_folio_for_migration): without
 * MPOL_MF_MOVE_ALL a folio that other processes map stays where it is.
 * v6.1 asks page_mapcount(head) == 1 (folio_estimated_sharers in its
 * stable updates), v6.12 folio_likely_mapped_shared: both read the first
 * page's mapcount; folio_maybe_mapped_shared from v6.15. */
static bool call_leaves_shared(const struct sim *s, const struct migrate_call *call,
			       struct folio f)
{
	if (call->move_all)
		return false;
	return s->k.maybe_mapped_shared ? folio_maybe_mapped_shared(f)
					: folio_likely_mapped_shared(f);
}

/* queue_pages_range with MPOL_MF_MOVE or MPOL_MF_MOVE_ALL over the whole
 * mm (migrate_to_node, v6.12; v6.1 alike), from the walk's position: every
 * folio on the source node is isolated (folio_isolate_lru: FOLIO_ISOLATED,
 * off the LRU) onto the list before anything migrates, except one already
 * isolated by another migration (the isolation fails; the kernel counts it
 * in the call's return value, the model does not) and, without
 * MPOL_MF_MOVE_ALL, one that other processes map (left alone, no failure).
 * move_pages(2) queues one page of its array at a time and migrates what it
 * has queued as soon as a page cannot be queued (do_pages_move ->
 * move_pages_and_store_status): its walk stops after that folio.  Charged
 * once per PTE looked at: a large folio is queued once, but its other PTEs
 * are still read (queue_folios_pte_range reads each; qp->large only skips
 * queueing the folio again). */
static void queue_pages_range(struct sim *s, struct migrate_call *call)
{
	struct mm_struct *mm = &s->mms[call->mm_id];
	long walked = 0;
	if (!call->listed)
		list_alloc(s, call);
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
			uint64_t last = vma_address(vma, f.idx + folio_nr_pages(f) - 1), at = call->addr;
			call->addr = last ? last + PAGE_SIZE : call->addr + PAGE_SIZE;
			walked += (long)((call->addr - at) / PAGE_SIZE) - 1; /* the folio's other PTEs */
			if (folio_nid(f) != call->from)
				continue;
			uint8_t *fl = &f.fs->pg[f.idx].flags;
			if ((*fl & FOLIO_ISOLATED) || call_leaves_shared(s, call, f)) {
				if (call->flush_at_busy && call->nr_listed)
					goto out;
				continue;
			}
			*fl |= FOLIO_ISOLATED;
			list_mark(s, call, f, true);
			call->nr_listed += folio_nr_pages(f);
		}
	}
	call->walked = true;
out:
	charge(s, COST_MIGRATE, (double)walked * s->m.cost.pte_skip_ns);
}

/* The folio at the head of the list, taken off it; false when the list is
 * empty.  The head moves in the walk's order, over the list's bits. */
static bool list_pop(struct sim *s, struct migrate_call *call, struct folio *out)
{
	struct mm_struct *mm = &s->mms[call->mm_id];
	for (; call->nr_listed && call->list_vma < mm->nr_vmas; call->list_vma++) {
		struct vm_area_struct *vma = &mm->vmas[call->list_vma];
		uint64_t first = list_bit(s, call, vma->store, vma->store_pgoff);
		uint64_t end = first + vma_pages(vma);
		if (call->list_addr < vma->vm_start)
			call->list_addr = vma->vm_start;
		uint64_t b = find_next_bit(call->listed, end,
					   first + ((call->list_addr - vma->vm_start) >> PAGE_SHIFT));
		if (b == end)
			continue;
		struct folio f = page_folio(vma->store, vma->store_pgoff + (b - first));
		VM_BUG_ON_FOLIO(f.idx != vma->store_pgoff + (b - first), f); /* whole folios only */
		call->list_addr = vma->vm_start +
				  ((f.idx + folio_nr_pages(f) - vma->store_pgoff) << PAGE_SHIFT);
		call->nr_listed -= folio_nr_pages(f);
		*out = f;
		return true;
	}
	return false;
}

enum migrate_call_step migrate_call_step(struct sim *s, struct migrate_call *call,
					 struct migrate_ctx *ctx)
{
	if (!call->nr_listed) {
		if (call->walked)
			return CALL_DONE;
		queue_pages_range(s, call);
		return call->nr_listed ? CALL_QUEUED : CALL_DONE;
	}
	/* migrate_pages: the list's next NR_MAX_BATCHED_MIGRATION pages (the
	 * folio that reaches the count included) go to migrate_pages_sync */
	unsigned long pages = 0;
	struct folio f;
	ctx->nr = 0;
	while (pages < NR_MAX_BATCHED_MIGRATION && list_pop(s, call, &f)) {
		ctx->folios[ctx->nr++] = f;
		pages += folio_nr_pages(f);
	}
	ctx->target_nid = call->to;
	ctx->mode = MIGRATE_SYNC;
	ctx->reason = call->reason;
	ctx->setup_prepaid = false;
	migrate_pages_begin(s, ctx);
	return CALL_BATCH;
}

void migrate_call_batch_finish(struct sim *s, struct migrate_call *call, struct migrate_ctx *ctx)
{
	migrate_pages_finish(s, ctx);
	call->moved += ctx->nr_succeeded;
	call->failed += ctx->nr_failed_pages;
	/* moved or put back: off the list (a split folio's pieces are in the
	 * batch too, so every page of the batch is cleared) */
	for (int i = 0; i < ctx->nr; i++)
		list_mark(s, call, ctx->folios[i], false);
	if (ctx->enomem) {
		/* migrate_pages gave up: migrate_to_node (do_pages_move alike)
		 * puts the rest back and the call returns */
		migrate_call_putback(s, call);
		call->walked = true;
	}
}

void migrate_call_putback(struct sim *s, struct migrate_call *call)
{
	struct folio f;
	while (call->listed && list_pop(s, call, &f)) {
		f.fs->pg[f.idx].flags &= (uint8_t)~FOLIO_ISOLATED;
		list_mark(s, call, f, false);
	}
}

int migrate_call_check_list(const struct sim *s, const struct migrate_call *call, char *msg,
			    size_t len)
{
	const struct mm_struct *mm = &s->mms[call->mm_id];
	unsigned long pages = 0;
	if (!call->listed)
		return call->nr_listed ? snprintf(msg, len, "%lu pages listed, no list", call->nr_listed), -1
				       : 0;
	for (int v = call->list_vma; v < mm->nr_vmas; v++) {
		const struct vm_area_struct *vma = &mm->vmas[v];
		uint64_t first = list_bit(s, call, vma->store, vma->store_pgoff);
		uint64_t end = first + vma_pages(vma);
		uint64_t b = first;
		if (v == call->list_vma && call->list_addr > vma->vm_start)
			b += (call->list_addr - vma->vm_start) >> PAGE_SHIFT;
		while ((b = find_next_bit(call->listed, end, b)) < end) {
			uint64_t idx = vma->store_pgoff + (b - first);
			struct folio f = page_folio(vma->store, idx);
			const struct page_state *head = &f.fs->pg[f.idx];
			if (f.idx != idx || !(head->flags & FOLIO_ISOLATED) || head->nid != call->from)
				return snprintf(msg, len, "migration call: mm %d, store page %llu on its "
						"list is %s", mm->id, (unsigned long long)idx,
						f.idx != idx ? "not a folio's first page"
						: !(head->flags & FOLIO_ISOLATED) ? "not isolated"
										 : "not on the source node"), -1;
			pages += folio_nr_pages(f);
			b += folio_nr_pages(f);
		}
	}
	if (pages != call->nr_listed)
		return snprintf(msg, len, "migration call: mm %d: %lu pages on its list, %lu counted",
				mm->id, pages, call->nr_listed), -1;
	return 0;
}

void migrate_call_free(struct migrate_call *call)
{
	if (!call)
		return;
	free(call->listed);
	free(call->store_base);
	free(call);
}

void migrate_call_note_busy_fault(struct sim *s, struct folio folio)
{
	if (!s->caller_mm)
		return;
	/* the caller is the last task (kernel/sim.c:setup_tasks) */
	struct migrate_call *call = s->tasks[s->nr_tasks - 1].call;
	if (call && call->listed && test_bit(list_bit(s, call, folio.fs, folio.idx), call->listed))
		call->hint_fails++;
}
