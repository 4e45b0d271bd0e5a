/* The invariants of the modelled mm, checked the way CONFIG_DEBUG_VM checks
 * the kernel's (mm/debug.c, mm/debug_vm_pgtable.c): the VM_BUG_ON reports,
 * and a full-state checker run at a fixed interval of simulated time and at
 * the end of a run (see linux/mmdebug.h).
 *
 * What must hold between two events of a run:
 *  - a page's mapcount equals the number of present PTEs (valid or
 *    PROT_NONE) that map it; a migration entry is not present, so a page
 *    under migration has mapcount 0 while its entries exist;
 *  - a PTE table's PROT_NONE bitmaps and counts are its PTEs', split by the
 *    workload's hot bit, and a touch group's totals and Fenwick trees are
 *    its tables' counts, less the faults pending at the trees' nodes;
 *  - mm->tlb_flush_pending is never negative and equals the number of
 *    mmu_gathers open on the mm (zero outside a gather);
 *  - every migration entry belongs to a folio that a migration in flight
 *    has unmapped (no entry outlives its migration);
 *  - a migration call's list holds whole folios, isolated, on its source
 *    node, as many pages as it counts;
 *  - a node's free pages are within its capacity, and free + placed pages
 *    + pages reserved by migrations in flight equal the capacity;
 *  - no CPU's loaded_gen is ahead of its loaded mm's tlb_gen;
 *  - a CPU in an mm's round ledger (arch/x86/mm/tlb.c) is awake on that
 *    mm, in its cpumask, in user mode, not busy past the ledger's mark, and
 *    once settled as far behind as the ledger says; the ledgers' members
 *    are the CPUs that name them;
 *  - the workload's per-class page counts (its latency model) are the
 *    pages' nodes.
 * A lazily built table (pte_table.lazy) holds no page state yet: its pages
 * count as placed on its home node, and its PTEs and bitmaps must be zero. */
#include "linux/compaction.h"
#include "linux/vmscan.h"
#include "linux/huge_mm.h"
#include "linux/mmdebug.h"

#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "linux/migrate.h"
#include "kernel/sim.h"

/* The run on this thread, for the time VM_BUG_ON reports (ab runs several
 * at once, one per thread). */
static _Thread_local const struct sim *debug_sim;

static void print_when(FILE *f)
{
	const struct sim *s = debug_sim;
	if (!s)
		return;
	fprintf(f, "numasim:   at simulated time %.9f s (event %" PRIu64 "), on CPU %d, pid %d\n",
		(double)sim_now(s) / 1e9, s->st.events, s->e.cpu, s->current ? s->current->pid : 0);
}

void vm_bug(const char *file, int line, const char *func, const char *what,
	    const struct mm_struct *mm, const struct folio *folio)
{
	fflush(stdout);
	fprintf(stderr, "numasim: VM_BUG_ON(%s) failed at %s:%d (%s)\n", what, file, line, func);
	print_when(stderr);
	if (mm)
		fprintf(stderr, "numasim:   mm %d: tlb_flush_pending %d, tlb_gen %" PRIu64
			", tlb_flush_batched %#x, %d VMAs\n", mm->id, mm->tlb_flush_pending,
			mm->tlb_gen, mm->tlb_flush_batched, mm->nr_vmas);
	if (folio && folio->fs) {
		const struct page_state *p = &folio->fs->pg[folio->idx];
		fprintf(stderr, "numasim:   folio: store page %" PRIu64 " of %" PRIu64
			", order %u, node %u, flags %#x, mapcount %u\n", folio->idx,
			folio->fs->nr_pages, (unsigned)(p->flags >> FOLIO_ORDER_SHIFT), p->nid,
			p->flags & ((1u << FOLIO_ORDER_SHIFT) - 1), (unsigned)p->mapcount);
	}
	abort();
}

void vm_warn(const char *file, int line, const char *func, const char *what)
{
	fprintf(stderr, "numasim: warning: VM_WARN_ON(%s) at %s:%d (%s)\n", what, file, line, func);
	print_when(stderr);
}

/* ---- the full-state checker --------------------------------------------- */

struct checker {
	const struct sim *s;
	char *msg;
	size_t len;
	/* migrations in flight: folios unmapped and not yet moved */
	struct inflight {
		const struct folio_store *fs;
		uint64_t idx, nr;
		int target, pid;
	} *mig;
	size_t nr_mig;
	uint64_t *placed;    /* [node] pages placed there */
	uint64_t *reserved;  /* [node] pages reserved by migrations in flight */
	uint64_t *classes;   /* [class][hot][node] pages, as workload.class_pages */
};

static int fail(struct checker *c, const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(c->msg, c->len, fmt, ap);
	va_end(ap);
	return -1;
}

/* A ledger member's state. */
static int check_ledger_member(struct checker *c, int cpu)
{
	const struct sim *s = c->s;
	const struct cpu_state *cs = &s->cpus[cpu];
	const struct cpu_acct *a = &s->e.acct[cpu];
	const struct mm_struct *mm = cs->ledger_mm;
	const struct flush_ledger *l = &mm->rx_ledger;
	if (!cpumask_test_cpu(cpu, &l->members) || !cpumask_test_cpu(cpu, &s->ledger_cpus))
		return fail(c, "round ledger: CPU %d names mm %d's ledger but is not its member",
			    cpu, mm->id);
	if (cs->loaded_mm != mm || cs->is_lazy || a->in_kernel || a->busy_until > l->busy_max ||
	    !cpumask_test_cpu(cpu, &mm->cpumask))
		return fail(c, "round ledger: CPU %d in mm %d's ledger would not receive its rounds "
			    "alike (loaded mm %d, lazy %d, in kernel %d, busy until %" PRIu64
			    " past %" PRIu64 ")", cpu, mm->id, cs->loaded_mm ? cs->loaded_mm->id : -1,
			    cs->is_lazy, a->in_kernel, a->busy_until, l->busy_max);
	if (cs->ledger_rounds > l->rounds || cs->ledger_recv > l->recv ||
	    cs->ledger_refill > l->refill)
		return fail(c, "round ledger: CPU %d took more from mm %d's ledger than it holds",
			    cpu, mm->id);
	if (cs->ledger_rounds == l->rounds &&
	    (cs->loaded_gen != l->gen || cs->last_full_flush != l->last_full))
		return fail(c, "round ledger: CPU %d, settled, is not as far behind as mm %d's "
			    "ledger", cpu, mm->id);
	return 0;
}

static int check_ledgers(struct checker *c)
{
	const struct sim *s = c->s;
	int members = 0;
	for (int m = 0; m < s->nr_mms; m++) {
		const struct flush_ledger *l = &s->mms[m].rx_ledger;
		if (l->nr_members != cpumask_weight(&l->members))
			return fail(c, "round ledger: mm %d counts %d members, its mask %d", m,
				    l->nr_members, cpumask_weight(&l->members));
		members += l->nr_members;
	}
	if (members != cpumask_weight(&s->ledger_cpus))
		return fail(c, "round ledger: %d members, %d CPUs marked", members,
			    cpumask_weight(&s->ledger_cpus));
	for (int cpu = 0; cpu < s->m.nr_cpus; cpu++)
		if (s->cpus[cpu].ledger_mm && check_ledger_member(c, cpu))
			return -1;
	return 0;
}

static int check_cpus(struct checker *c)
{
	const struct sim *s = c->s;
	if (check_ledgers(c))
		return -1;
	for (int cpu = 0; cpu < s->m.nr_cpus; cpu++) {
		const struct cpu_state *cs = &s->cpus[cpu];
		if (cs->loaded_mm && cs->loaded_gen > cs->loaded_mm->tlb_gen)
			return fail(c, "TLB generation: CPU %d's loaded_gen %" PRIu64 " is ahead of "
				    "mm %d's tlb_gen %" PRIu64, cpu, cs->loaded_gen,
				    cs->loaded_mm->id, cs->loaded_mm->tlb_gen);
	}
	return 0;
}

static int check_gathers(struct checker *c)
{
	const struct sim *s = c->s;
	for (int m = 0; m < s->nr_mms; m++) {
		const struct mm_struct *mm = &s->mms[m];
		int open = 0;
		for (int i = 0; i < s->nr_tasks; i++)
			open += s->tasks[i].mm == mm && s->tasks[i].walk.in_gather;
		if (mm->tlb_flush_pending < 0)
			return fail(c, "tlb_flush_pending: mm %d's count is %d, below zero", m,
				    mm->tlb_flush_pending);
		/* pending-flag (broken on purpose) keeps a flag, not a count:
		 * losing another gather's raise is the bug it stands for */
		if (s->k.pending_flag ? mm->tlb_flush_pending > 1
				      : mm->tlb_flush_pending != open)
			return fail(c, "tlb_flush_pending: mm %d's count is %d but %d mmu_gather%s "
				    "open%s", m, mm->tlb_flush_pending, open,
				    open == 1 ? " is" : "s are", open ? "" : " (outside a gather)");
	}
	return 0;
}

/* The migration calls' lists of isolated folios (mm/mempolicy.c). */
static int check_call_lists(struct checker *c)
{
	for (int i = 0; i < c->s->nr_tasks; i++)
		if (c->s->tasks[i].call &&
		    migrate_call_check_list(c->s, c->s->tasks[i].call, c->msg, c->len))
			return -1;
	return 0;
}

/* The migrations that have unmapped their folios and not moved them yet:
 * a task between migrate_misplaced_folio_begin and _end (its flush step
 * included), or a migration call's batch between its unmap and its move. */
static bool migrating(const struct task_struct *t)
{
	return (t->act == ACT_MIGRATE_FLUSH || t->act == ACT_MIGRATE_MOVE ||
		t->act == ACT_SYSCALL_FLUSH || t->act == ACT_SYSCALL_MOVE) && t->mctx;
}

/* One migration context's unmapped folios, for pid @pid. */
static int collect_ctx(struct checker *c, const struct migrate_ctx *x, int pid)
{
	const struct sim *s = c->s;
	for (int k = 0; k < x->nr; k++) {
		if (x->state[k] != MIG_UNMAPPED)
			continue;
		struct inflight *f = &c->mig[c->nr_mig++];
		f->fs = x->folios[k].fs;
		f->idx = x->folios[k].idx;
		f->nr = folio_nr_pages(x->folios[k]);
		f->target = x->target_nid;
		f->pid = pid;
		if (f->target < 0 || f->target >= s->m.nr_nodes)
			return fail(c, "migration: pid %d migrates to node %d of %d", pid, f->target,
				    s->m.nr_nodes);
		c->reserved[f->target] += f->nr;
	}
	return 0;
}

int mm_for_each_migration(const struct sim *s,
			  int (*fn)(void *arg, const struct migrate_ctx *x, int pid), void *arg)
{
	const struct migrate_ctx *comp[2 * MAX_NUMNODES + 1];
	int nr_comp = compaction_migrations_in_flight(s, comp, MAX_NUMNODES + 1);
	nr_comp += vmscan_migrations_in_flight(s, comp + nr_comp, MAX_NUMNODES);
	for (int i = 0; i < s->nr_tasks; i++)
		if (migrating(&s->tasks[i]) && fn(arg, s->tasks[i].mctx, s->tasks[i].pid))
			return -1;
	for (int i = 0; i < nr_comp; i++) /* kcompactd, the compact_memory writer, kswapd */
		if (fn(arg, comp[i], 0))
			return -1;
	return 0;
}

static int count_ctx(void *arg, const struct migrate_ctx *x, int pid)
{
	(void)pid;
	*(size_t *)arg += (size_t)x->nr;
	return 0;
}

static int collect_one(void *arg, const struct migrate_ctx *x, int pid)
{
	return collect_ctx(arg, x, pid);
}

static int collect_migrations(struct checker *c)
{
	size_t n = 0;
	mm_for_each_migration(c->s, count_ctx, &n);
	c->mig = calloc(n ? n : 1, sizeof(*c->mig));
	if (!c->mig)
		return fail(c, "out of memory");
	return mm_for_each_migration(c->s, collect_one, c);
}

static bool under_migration(const struct checker *c, const struct folio_store *fs, uint64_t idx)
{
	for (size_t i = 0; i < c->nr_mig; i++)
		if (c->mig[i].fs == fs && idx >= c->mig[i].idx && idx < c->mig[i].idx + c->mig[i].nr)
			return true;
	return false;
}

static void vma_where(const struct vm_area_struct *v, uint64_t i, char *buf, size_t len)
{
	snprintf(buf, len, "mm %d, VMA [%#" PRIx64 ", %#" PRIx64 "), address %#" PRIx64
		 " (store page %" PRIu64 ")", v->vm_mm->id, v->vm_start, v->vm_end,
		 v->vm_start + (i << PAGE_SHIFT), v->store_pgoff + i);
}

/* One PTE table: its bitmaps and counts against its PTEs; migration
 * entries against the migrations in flight. */
static int check_table(struct checker *c, const struct vm_area_struct *v, uint32_t ti)
{
	struct pte_table buf;
	const struct pte_table *t = workload_table_view(v, ti, &buf);
	uint64_t i0 = (uint64_t)ti * PTRS_PER_PTE, i1 = i0 + PTRS_PER_PTE;
	uint64_t hot[8] = { 0 }, cold[8] = { 0 };
	unsigned nh = 0, nc = 0;
	char where[160];
	if (i1 > vma_pages(v))
		i1 = vma_pages(v);
	for (uint64_t i = i0; i < i1; i++) {
		pte_t pte = v->ptes[i];
		if (t->lazy && pte) {
			vma_where(v, i, where, sizeof(where));
			return fail(c, "lazy table: %s: PTE %#x in a table not built yet", where, pte);
		}
		if (pte_protnone(pte)) {
			unsigned b = (unsigned)(i - i0);
			if (pte & PTE_SIM_HOT) {
				hot[b / 64] |= 1ull << (b % 64);
				nh++;
			} else {
				cold[b / 64] |= 1ull << (b % 64);
				nc++;
			}
		}
		if (is_migration_entry(pte) && !under_migration(c, v->store, v->store_pgoff + i)) {
			vma_where(v, i, where, sizeof(where));
			return fail(c, "migration entry: %s: no migration in flight owns it (the "
				    "entry outlived its migration)", where);
		}
	}
	if (memcmp(hot, t->protnone_hot, sizeof(hot)) || memcmp(cold, t->protnone_cold, sizeof(cold)) ||
	    nh != t->nr_protnone_hot || nc != t->nr_protnone_cold) {
		vma_where(v, i0, where, sizeof(where));
		return fail(c, "PROT_NONE bitmaps: table at %s: the PTEs have %u hot and %u cold "
			    "PROT_NONE pages, the table says %u and %u%s", where, nh, nc,
			    t->nr_protnone_hot, t->nr_protnone_cold,
			    nh == t->nr_protnone_hot && nc == t->nr_protnone_cold
				    ? " (same counts, different bits)" : "");
	}
	return 0;
}

/* Where a page of table @t counts in the workload's latency classes
 * (workload.c: table_class, class_nodes). */
static size_t class_slot(const struct sim *s, const struct vm_area_struct *v,
			 const struct pte_table *t, bool hot)
{
	int cls = t->owner >= 0 ? t->owner : s->nr_tasks + (s->w.p.map_shared ? 0 : v->vm_mm->id);
	return ((size_t)cls * 2 + hot) * (size_t)s->w.nr_nodes;
}

/* Pages of every store: mapcounts against present PTEs, and where they
 * are placed.  A store mapped by one mm is walked through its VMAs; one
 * mapped by several (map_shared) needs a count per page. */
static int check_store(struct checker *c, const struct folio_store *fs)
{
	const struct sim *s = c->s;
	char where[160];
	if (!fs->nr_mappers)
		return 0;
	const struct mm_struct *first = fs->mappers[0]->vm_mm;
	bool one_mm = true;
	for (int m = 1; m < fs->nr_mappers; m++)
		one_mm &= fs->mappers[m]->vm_mm == first;
	uint32_t *count = NULL;
	if (!one_mm && !(count = calloc(fs->nr_pages ? fs->nr_pages : 1, sizeof(*count))))
		return fail(c, "out of memory");
	for (int m = 0; m < fs->nr_mappers; m++) {
		const struct vm_area_struct *v = fs->mappers[m];
		for (uint32_t ti = 0; ti < v->nr_tables; ti++) {
			struct pte_table buf;
			const struct pte_table *t = workload_table_view(v, ti, &buf);
			uint64_t i0 = (uint64_t)ti * PTRS_PER_PTE, i1 = i0 + PTRS_PER_PTE;
			if (i1 > vma_pages(v))
				i1 = vma_pages(v);
			if (t->lazy) {
				if (t->home_nid >= s->m.nr_nodes) {
					free(count);
					return fail(c, "lazy table of mm %d at %#" PRIx64 ": home node %u "
						    "of %d", v->vm_mm->id, v->vm_start + (i0 << PAGE_SHIFT),
						    t->home_nid, s->m.nr_nodes);
				}
				if (v->vm_mm == first) {
					/* a partial unmap still to apply keeps its pages
					 * placed but out of the latency model */
					uint64_t n = i1 - i0, mapped = t->lazy_partial
						? (n >> t->lazy_order) * thp_partial_mapped(s, t->lazy_order) : n;
					c->placed[t->home_nid] += n;
					c->classes[class_slot(s, v, t, false) + t->home_nid] += mapped * t->weight;
				}
				continue;
			}
			for (uint64_t i = i0; i < i1; i++) {
				uint64_t idx = v->store_pgoff + i;
				const struct page_state *p = &fs->pg[idx];
				if (v->vm_mm == first) {
					if (p->nid >= s->m.nr_nodes) {
						vma_where(v, i, where, sizeof(where));
						free(count);
						return fail(c, "page node: %s: node %u of %d", where,
							    p->nid, s->m.nr_nodes);
					}
					/* a freed piece of a split holds no memory; an
					 * unmapped page is not touched (latency model) */
					if (!(p->flags2 & FOLIO2_FREED))
						c->placed[p->nid]++;
					if (!pte_none(v->ptes[i]))
						c->classes[class_slot(s, v, t, v->ptes[i] & PTE_SIM_HOT) + p->nid] +=
							t->weight;
				}
				if (count) {
					count[idx] += pte_present(v->ptes[i]);
				} else if (p->mapcount != (pte_present(v->ptes[i]) ? 1 : 0)) {
					vma_where(v, i, where, sizeof(where));
					return fail(c, "mapcount: %s: mapcount %u but %d present PTE%s map%s "
						    "it (PTE %#x)%s", where, (unsigned)p->mapcount,
						    pte_present(v->ptes[i]) ? 1 : 0,
						    pte_present(v->ptes[i]) ? "" : "s",
						    pte_present(v->ptes[i]) ? "s" : "", v->ptes[i],
						    is_migration_entry(v->ptes[i])
							    ? ": a page under migration has mapcount 0" : "");
				}
			}
		}
	}
	for (uint64_t idx = 0; count && idx < fs->nr_pages; idx++) {
		if (fs->pg[idx].mapcount != count[idx]) {
			uint32_t n = count[idx];
			unsigned mc = fs->pg[idx].mapcount;
			free(count);
			return fail(c, "mapcount: shared store page %" PRIu64 " (first mapped by mm "
				    "%d): mapcount %u but %u present PTEs map it", idx, first->id, mc, n);
		}
	}
	free(count);
	return 0;
}

/* A touch group's totals and Fenwick trees against its tables' counts,
 * each weighted by its table's access density (workload/touch.h): an
 * entry holds its range's PROT_NONE pages not yet faulted, less the faults
 * pending at the tree's nodes inside the range (docs/model.md 3.3c). */
static int check_groups(struct checker *c)
{
	const struct sim *s = c->s;
	const struct touch_model *tm = &s->w.touch;
	uint64_t *fen = NULL;
	size_t fen_cap = 0;
	for (uint32_t g = 0; g < tm->nr_groups; g++) {
		uint32_t n = tm->grp_count[g];
		for (int hot = 0; hot < 2; hot++) {
			if (n + 1 > fen_cap) {
				free(fen);
				fen_cap = n + 1;
				if (!(fen = calloc(fen_cap, sizeof(*fen))))
					return fail(c, "out of memory");
			}
			uint64_t total = 0;
			for (uint32_t r = 1; r <= n; r++) {
				uint32_t id = tm->grp_tables[tm->grp_first[g] + r - 1];
				struct pte_table buf;
				const struct pte_table *t = table_view_of_id(s, id, &buf);
				/* a table's struct, set up at set-up or on first use
				 * (table_ident), places it where touch_init did */
				if (t->group != g || t->rank != r) {
					uint32_t tg = t->group, tr = t->rank;
					free(fen);
					return fail(c, "touch group %u: table %u at rank %u says group %u, "
						    "rank %u", g, id, r, tg, tr);
				}
				/* a pooled table's faults counted, their PTEs not yet restored */
				unsigned done = tm->pool ? tm->pool[id].done[hot] : 0;
				fen[r] = (uint64_t)((hot ? t->nr_protnone_hot : t->nr_protnone_cold) - done) *
					 t->weight;
				total += fen[r];
			}
			/* build the tree in place: each node adds itself to its parent */
			for (uint32_t r = 1; r <= n; r++) {
				uint32_t up = r + (r & (~r + 1));
				if (up <= n)
					fen[up] += fen[r];
			}
			/* the pending faults: node mid (pos, step) spans ranks
			 * (pos, pos + 2 step]; the entries that contain it are
			 * those of a point update at its end */
			const uint32_t *pend = tm->pend_hot && g < tm->nr_slices
						       ? (hot ? tm->pend_hot : tm->pend_cold) + tm->grp_first[g] + g
						       : NULL;
			uint64_t pending = 0;
			for (uint32_t mid = 1; pend && mid <= n; mid++) {
				uint64_t p = pend[mid], w = tm->lazy_w[g];
				if (!p)
					continue;
				if (!w) {
					free(fen);
					return fail(c, "touch group %u: %" PRIu64 " faults pending at node %u "
						    "of a group whose pages do not weigh alike", g, p, mid);
				}
				pending += p;
				uint32_t step = mid & (~mid + 1);
				for (uint32_t j = mid - step + 2 * step; j <= n; j += j & (~j + 1))
					fen[j] -= p * w;
				total -= p * w;
			}
			if (pend && tm->nr_pend[2 * g + hot] != pending) {
				uint32_t have = tm->nr_pend[2 * g + hot];
				free(fen);
				return fail(c, "touch group %u: %u %s faults pending, its tree holds %" PRIu64,
					    g, have, hot ? "hot" : "cold", pending);
			}
			if (tm->pool && g < tm->nr_slices) {
				/* the pool's count: its tables' pages not yet
				 * faulted, less the faults pending */
				uint64_t pooled = 0;
				for (uint32_t r = 1; r <= n; r++) {
					uint32_t id = tm->grp_tables[tm->grp_first[g] + r - 1];
					struct pte_table buf;
					const struct pte_table *t = table_view_of_id(s, id, &buf);
					if (tm->pool[id].on)
						pooled += (uint64_t)((hot ? t->nr_protnone_hot : t->nr_protnone_cold) -
								     tm->pool[id].done[hot]) * t->weight;
				}
				pooled -= (uint64_t)tm->nr_pend[2 * g + hot] * tm->lazy_w[g];
				if (tm->pool_w[2 * g + hot] != pooled) {
					uint64_t got = tm->pool_w[2 * g + hot];
					free(fen);
					return fail(c, "touch group %u's pool counts %" PRIu64 " %s pages (weighted), "
						    "its pooled tables hold %" PRIu64, g, got, hot ? "hot" : "cold",
						    pooled);
				}
			}
			const uint64_t *tree = (hot ? tm->fen_hot : tm->fen_cold) + tm->fen_first[g];
			for (uint64_t i = (uint64_t)n + 1; i < touch_fen_size(n); i++)
				if (tree[i] != TOUCH_FEN_PAD) {
					uint64_t got = tree[i];
					free(fen);
					return fail(c, "touch group %u's %s tree: entry %" PRIu64 " past its %u "
						    "tables is %" PRIu64 ", not the pad", g, hot ? "hot" : "cold",
						    i, n, got);
				}
			uint64_t have = hot ? tm->pn_hot[g] : tm->pn_cold[g];
			if (have != total) {
				free(fen);
				return fail(c, "PROT_NONE counts: touch group %u has %" PRIu64 " %s "
					    "PROT_NONE pages (weighted), its tables %" PRIu64, g, have,
					    hot ? "hot" : "cold", total);
			}
			for (uint32_t r = 1; r <= n; r++)
				if (tree[r] != fen[r]) {
					uint64_t got = tree[r], want = fen[r];
					free(fen);
					return fail(c, "PROT_NONE counts: touch group %u's %s Fenwick tree "
						    "holds %" PRIu64 " at rank %u, its tables sum to %" PRIu64, g,
						    hot ? "hot" : "cold", got, r, want);
				}
		}
	}
	free(fen);
	return 0;
}

/* The workload's per-class placement (its latency model) against the
 * pages' nodes. */
static int check_classes(struct checker *c)
{
	const struct sim *s = c->s;
	for (int cls = 0; cls < s->w.nr_classes; cls++)
		for (int hot = 0; hot < 2; hot++)
			for (int n = 0; n < s->w.nr_nodes; n++) {
				size_t k = ((size_t)cls * 2 + (size_t)hot) * (size_t)s->w.nr_nodes + (size_t)n;
				if (c->classes[k] != s->w.class_pages[k])
					return fail(c, "workload placement: class %d (%s), %s pages (weighted) on node "
						    "%d: the workload counts %" PRIu64 ", the pages say %" PRIu64,
						    cls, cls < s->nr_tasks ? "a thread's slice" : "a shared region",
						    hot ? "hot" : "cold", n, s->w.class_pages[k], c->classes[k]);
			}
	return 0;
}

static int check_nodes(struct checker *c)
{
	const struct sim *s = c->s;
	for (int n = 0; n < s->m.nr_nodes; n++) {
		uint64_t cap = machine_node_pages(&s->m, n);
		uint64_t free_pages = s->node_free_pages[n];
		if (free_pages > cap)
			return fail(c, "node %d: %" PRIu64 " free pages, above its capacity of %" PRIu64,
				    n, free_pages, cap);
		uint64_t eaten = s->pgdat ? s->pgdat[n].held_pages : 0;
		if (free_pages + c->placed[n] + c->reserved[n] + eaten != cap)
			return fail(c, "node %d: pages not conserved: %" PRIu64 " free + %" PRIu64
				    " placed + %" PRIu64 " reserved by migrations in flight + %" PRIu64
				    " eaten = %" PRIu64 ", capacity %" PRIu64, n, free_pages, c->placed[n],
				    c->reserved[n], eaten, free_pages + c->placed[n] + c->reserved[n] + eaten,
				    cap);
	}
	return 0;
}

int mm_check_state(const struct sim *s, char *msg, size_t len)
{
	struct checker c = { .s = s, .msg = msg, .len = len };
	int rc = -1;
	c.placed = calloc((size_t)s->m.nr_nodes, sizeof(uint64_t));
	c.reserved = calloc((size_t)s->m.nr_nodes, sizeof(uint64_t));
	c.classes = calloc((size_t)s->w.nr_classes * 2 * (size_t)s->w.nr_nodes + 1, sizeof(uint64_t));
	if (!c.placed || !c.reserved || !c.classes) {
		fail(&c, "out of memory");
		goto out;
	}
	if (check_cpus(&c) || check_gathers(&c) || check_call_lists(&c) || collect_migrations(&c))
		goto out;
	for (int m = 0; m < s->nr_mms; m++)
		for (int v = 0; v < s->mms[m].nr_vmas; v++)
			for (uint32_t ti = 0; ti < s->mms[m].vmas[v].nr_tables; ti++)
				if (check_table(&c, &s->mms[m].vmas[v], ti))
					goto out;
	for (int i = 0; i < s->nr_stores; i++)
		if (check_store(&c, &s->stores[i]))
			goto out;
	if (check_groups(&c) || check_classes(&c) || check_nodes(&c))
		goto out;
	rc = 0;
out:
	free(c.classes);
	free(c.mig);
	free(c.placed);
	free(c.reserved);
	return rc;
}

/* ---- running it ------------------------------------------------------------ */

static void check_now(struct sim *s, uint64_t now, const char *when)
{
	char msg[1024];
	s->debug.checks++;
	if (!mm_check_state(s, msg, sizeof(msg)))
		return;
	fflush(stdout);
	fprintf(stderr, "numasim: invariant violated: %s\n"
		"numasim:   found by the %s check at simulated time %.9f s (check %" PRIu64
		", event %" PRIu64 "), kernel %s, seed %" PRIu64 "\n",
		msg, when, (double)now / 1e9, s->debug.checks, s->st.events, s->k.name, s->seed);
	abort();
}

void mm_debug_start(struct sim *s)
{
	debug_sim = s;
	s->debug.next_ns = MM_DEBUG_INTERVAL_NS;
}

void mm_debug_tick(struct sim *s, uint64_t now)
{
	if (now < s->debug.next_ns)
		return;
	s->debug.next_ns = now - now % MM_DEBUG_INTERVAL_NS + MM_DEBUG_INTERVAL_NS;
	check_now(s, now, "interval");
}

void mm_debug_final(struct sim *s)
{
	check_now(s, s->duration_ns, "end-of-run");
	debug_sim = NULL;
}
