/* Consistency checks of the large-folio memory state (beside mm/debug.c):
 * what must hold between the free counts, the folios, the PTEs, the PROT_NONE
 * bitmaps and the touch model, whatever ran.  They read every materialised
 * page, so they are not run by default: NUMASIM_CHECK=1 runs them at the end
 * of a run, and the tests call them. */
#include <stdio.h>
#include <stdlib.h>

#include "linux/bitops.h"
#include "linux/compaction.h"
#include "linux/mm.h"
#include "linux/mmdebug.h"
#include "linux/migrate.h"
#include "kernel/sim.h"

#define FAIL(...) do { snprintf(err, errlen, __VA_ARGS__); free(used); return false; } while (0)

static unsigned popcount8(const uint64_t *w)
{
	unsigned n = 0;
	for (int i = 0; i < 8; i++)
		n += (unsigned)__builtin_popcountll(w[i]);
	return n;
}

/* A table's PTEs against its pages, bitmaps and PMD state. */
static bool check_table(const struct sim *s, const struct vm_area_struct *vma, uint32_t ti,
			uint64_t *used, uint64_t *deferred, char *err, unsigned long errlen)
{
	struct pte_table buf;
	const struct pte_table *t = workload_table_view(vma, ti, &buf);
	uint64_t i0 = (uint64_t)ti * PTRS_PER_PTE;
	uint64_t n = vma_pages(vma) - i0 < PTRS_PER_PTE ? vma_pages(vma) - i0 : PTRS_PER_PTE;
	/* each physical page once: through the first mapping mm (a store split
	 * by vma_mib has several VMAs in it, each holding its own pages) */
	bool first = vma->vm_mm == vma->store->mappers[0]->vm_mm;
	unsigned hot = 0, cold = 0, kinds = 0;
	(void)s;

	if (t->lazy) {
		if (first)
			used[t->home_nid] += n;
		if (first && t->lazy_partial)
			*deferred += n >> t->lazy_order;
		if (t->nr_protnone_hot + t->nr_protnone_cold)
			return snprintf(err, errlen, "a table not built yet has PROT_NONE pages"), false;
		return true;
	}
	for (uint64_t i = 0; i < n; i++) {
		uint64_t idx = vma->store_pgoff + i0 + i;
		const struct page_state *pg = &vma->store->pg[idx];
		pte_t pte = vma->ptes[i0 + i];
		struct folio f = page_folio(vma->store, idx);
		const struct page_state *head = &f.fs->pg[f.idx];
		if (first && !(pg->flags2 & FOLIO2_FREED))
			used[pg->nid]++;
		if (first && f.idx == idx && (pg->flags2 & FOLIO2_DEFERRED))
			(*deferred)++;
		if ((pg->flags2 & FOLIO2_FREED) && !pte_none(pte))
			return snprintf(err, errlen, "a freed page is mapped (store page %llu)",
					(unsigned long long)idx), false;
		if (is_migration_entry(pte) && !(head->flags & (FOLIO_ISOLATED | FOLIO_LOCKED)))
			return snprintf(err, errlen, "migration entry of a folio nobody migrates (page %llu)",
					(unsigned long long)idx), false;
		if (vma->store->nr_mappers == 1 && (pte_present(pte) ? 1 : 0) != pg->mapcount)
			return snprintf(err, errlen, "mapcount %u with PTE %#x (page %llu)", pg->mapcount,
					pte, (unsigned long long)idx), false;
		unsigned bit = (unsigned)(i & (PTRS_PER_PTE - 1));
		bool in_map = ((pte & PTE_SIM_HOT ? t->protnone_hot : t->protnone_cold)[bit / 64] >> (bit % 64)) & 1;
		if (in_map != pte_protnone(pte))
			return snprintf(err, errlen, "PROT_NONE bitmap disagrees with the PTE (page %llu)",
					(unsigned long long)idx), false;
		if (pte_protnone(pte))
			(pte & PTE_SIM_HOT) ? hot++ : cold++;
		kinds |= pte_protnone(pte) ? 1 : is_migration_entry(pte) ? 2 : pte_present(pte) ? 4 : 8;
	}
	if (hot != t->nr_protnone_hot || cold != t->nr_protnone_cold ||
	    hot != popcount8(t->protnone_hot) || cold != popcount8(t->protnone_cold))
		return snprintf(err, errlen, "PROT_NONE counts of a table disagree"), false;
	if (t->pmd_huge) {
		struct folio f = page_folio(vma->store, vma->store_pgoff + i0);
		if (folio_order(f) != HPAGE_PMD_ORDER || (kinds & (kinds - 1)) || (kinds & 8))
			return snprintf(err, errlen, "a huge PMD over PTEs of different kinds"), false;
		if (t->pmd_protnone != (kinds == 1))
			return snprintf(err, errlen, "pmd_protnone disagrees with its PTEs"), false;
	}
	return true;
}

/* Pages reserved on their target node by the migrations in flight: a folio
 * unmapped and not yet moved holds its destination as well as itself. */
struct reserved {
	uint64_t *used;
	int nr_nodes;
};

static int add_reserved(void *arg, const struct migrate_ctx *x, int pid)
{
	struct reserved *r = arg;
	(void)pid;
	if (x->target_nid < 0 || x->target_nid >= r->nr_nodes)
		return -1; /* mm_check_state names it */
	for (int k = 0; k < x->nr; k++)
		if (x->state[k] == MIG_UNMAPPED)
			r->used[x->target_nid] += folio_nr_pages(x->folios[k]);
	return 0;
}

bool mm_check_invariants(const struct sim *s, char *err, unsigned long errlen)
{
	uint64_t *used = calloc((size_t)s->m.nr_nodes, sizeof(uint64_t));
	uint64_t deferred = 0, queued = 0;
	if (!used)
		FAIL("out of memory");
	for (int n = 0; n < s->m.nr_nodes; n++) {
		const struct pglist_data *pg = &s->pgdat[n];
		uint64_t f = pg->compact_pool;
		for (int o = 0; o < NR_PAGE_ORDERS; o++)
			f += pg->nr_free[o] << o;
		if (f != s->node_free_pages[n])
			FAIL("node %d: free blocks hold %llu pages, the free count says %llu", n,
			     (unsigned long long)f, (unsigned long long)s->node_free_pages[n]);
		queued += pg->split_queue_len;
	}
	for (int m = 0; m < s->nr_mms; m++)
		for (int v = 0; v < s->mms[m].nr_vmas; v++) {
			const struct vm_area_struct *vma = &s->mms[m].vmas[v];
			for (uint32_t ti = 0; ti < vma->nr_tables; ti++)
				if (!check_table(s, vma, ti, used, &deferred, err, errlen)) {
					free(used);
					return false;
				}
		}
	struct reserved r = { used, s->m.nr_nodes };
	if (mm_for_each_migration(s, add_reserved, &r))
		FAIL("a migration in flight targets a node out of range");
	for (int n = 0; n < s->m.nr_nodes; n++)
		if (used[n] + s->pgdat[n].held_pages + s->node_free_pages[n] !=
		    machine_node_pages(&s->m, n))
			FAIL("node %d: %llu pages in use and %llu free, of %llu", n,
			     (unsigned long long)used[n], (unsigned long long)s->node_free_pages[n],
			     (unsigned long long)machine_node_pages(&s->m, n));
	if (deferred != queued)
		FAIL("%llu folios flagged on the deferred split queue, the queues count %llu",
		     (unsigned long long)deferred, (unsigned long long)queued);
	/* the touch model counts what the bitmaps hold */
	const struct touch_model *tm = &s->w.touch;
	uint64_t *pn = calloc(2 * (size_t)tm->nr_groups, sizeof(uint64_t));
	if (!pn)
		FAIL("out of memory");
	for (uint32_t id = 0; id < s->nr_tables; id++) {
		struct pte_table buf;
		const struct pte_table *t = table_view_of_id(s, id, &buf);
		/* a pooled table's faults are counted, their PTEs not yet restored */
		const struct touch_pool *tp = tm->pool ? &tm->pool[id] : NULL;
		/* the counts are weighted: each page by its table's access density */
		pn[2 * t->group] += (uint64_t)(t->nr_protnone_hot - (tp ? tp->done[1] : 0u)) * t->weight;
		pn[2 * t->group + 1] += (uint64_t)(t->nr_protnone_cold - (tp ? tp->done[0] : 0u)) * t->weight;
	}
	for (uint32_t g = 0; tm->lazy_w && g < tm->nr_slices; g++) {
		/* faults drawn without a table yet (docs/model.md 3.3c) */
		pn[2 * g] -= (uint64_t)tm->nr_pend[2 * g + 1] * tm->lazy_w[g];
		pn[2 * g + 1] -= (uint64_t)tm->nr_pend[2 * g] * tm->lazy_w[g];
	}
	for (uint32_t g = 0; g < tm->nr_groups; g++)
		if (pn[2 * g] != tm->pn_hot[g] || pn[2 * g + 1] != tm->pn_cold[g]) {
			snprintf(err, errlen, "touch group %u counts %llu+%llu PROT_NONE pages, its tables hold %llu+%llu",
				 g, (unsigned long long)tm->pn_hot[g], (unsigned long long)tm->pn_cold[g],
				 (unsigned long long)pn[2 * g], (unsigned long long)pn[2 * g + 1]);
			free(pn);
			free(used);
			return false;
		}
	free(pn);
	free(used);
	return true;
}
