/* The tasks' user-mode work: a touch group's timer fired (workload/touch.h
 * drew when), so one of its touchers touches one of its PROT_NONE pages --
 * unless it cannot: a slice's owner in a kernel path touches nothing until
 * it leaves (and off its CPU nothing at all); a shared region's toucher
 * that is off its CPU, in a kernel path, or in an interrupt handler
 * (thinning by the share of time interrupts leave it) loses the touch.  Otherwise the touch is a hint fault on its CPU. */
#include "kernel/sched/sched.h"
#include "linux/bitops.h"
#include "linux/mm.h"
#include "linux/sched/numa_balancing.h"
#include "linux/vm_event.h"
#include "workload/touch.h"

static void bulk_try_begin(struct sim *s, uint32_t g, struct task_struct *p);

/* @rem / @weight, out of line: written inline, the compiler divides
 * whatever the weight (dividing by 1 gives the same answer), and a 64-bit
 * division then stood on every uniform workload's fault, between the
 * table's pick and the page's. */
__attribute__((noinline, cold)) static uint64_t weighted_rank(uint64_t rem, uint32_t weight)
{
	return rem / weight;
}

/* The address of the @rem-th (weighted) PROT_NONE page of kind @hot in
 * table @ti of @vma: the page a pick names (a division only where pages
 * weigh more than 1). */
static inline __attribute__((always_inline)) uint64_t pick_addr(const struct vm_area_struct *vma,
								uint32_t ti, bool hot, uint64_t rem)
{
	const struct pte_table *t = &vma->tables[ti];
	uint64_t rank = __builtin_expect(t->weight == 1, 1) ? rem : weighted_rank(rem, t->weight);
	unsigned bit = find_nth_bit(hot ? t->protnone_hot : t->protnone_cold, PTRS_PER_PTE,
				    (unsigned)rank);
	return vma->vm_start + ((uint64_t)ti * PTRS_PER_PTE + bit) * PAGE_SIZE;
}

/* The table and page of group @g's next pick, drawn ahead (exact mode,
 * workload/touch.h) once its timer is armed: its PTE and struct page are
 * fetched into the cache while the events before it run. */
static inline __attribute__((always_inline)) void touch_ahead_inline(struct sim *s, uint32_t g)
{
	struct touch_model *tm = &s->w.touch;
	if (!tm->ahead || !timerq_armed(&s->e.q, tm->timer[g]))
		return;
	struct touch_ahead *a = touch_ahead_draw(tm, g, g < tm->nr_slices ? 0 : (uint64_t)s->w.p.threads);
	if (!a)
		return;
	struct vm_area_struct *vma = s->table_vma[a->id];
	a->addr = pick_addr(vma, a->id - vma->first_table_id, a->pick.hot, a->rem);
	__builtin_prefetch(&vma->ptes[pte_index(vma, a->addr)]);
	__builtin_prefetch(&vma->store->pg[vma_store_idx(vma, a->addr)]);
}

static void touch_ahead(struct sim *s, uint32_t g)
{
	touch_ahead_inline(s, g);
}

/* touch_rearm, then the next pick drawn ahead. */
static void rearm(struct sim *s, uint32_t g, uint64_t base)
{
	touch_rearm(&s->w.touch, g, base);
	touch_ahead(s, g);
}

#ifdef CONFIG_DEBUG_VM
/* A pick drawn ahead is the one touch_pick and touch_find give now
 * (checked in the debug build only: it is the work the pick saves). */
static bool ahead_stands(struct touch_model *tm, uint32_t g, uint64_t nr_touchers,
			 const struct touch_ahead *a)
{
	struct touch_pick p;
	uint64_t rem;
	return touch_pick_at(tm, g, a->ctr, nr_touchers, &p) == a->ctr_after &&
	       p.hot == a->pick.hot && p.count == a->pick.count &&
	       p.k == a->pick.k && p.toucher == a->pick.toucher && p.thin == a->pick.thin &&
	       touch_find(tm, g, p.hot, p.k, &rem) == a->id && rem == a->rem;
}
#endif

void user_touch(struct sim *s, uint32_t g, uint64_t now)
{
	struct touch_model *tm = &s->w.touch;
	bool slice = g < tm->nr_slices;
	uint64_t nr_touchers = slice ? 0 : (uint64_t)s->w.p.threads;

	sim_enter(s, NULL, now);
	if (slice) {
		uint64_t busy = task_busy_end(s, &s->tasks[s->w.toucher[g]], now);
		if (busy) {
			/* in the kernel: its touches resume when it leaves, and
			 * by memorylessness the next one is a fresh draw from then */
			rearm(s, g, busy);
			return;
		}
	}
	struct touch_pick pick;
	const struct touch_ahead *ahead = tm->ahead ? touch_ahead_take(tm, g) : NULL;
	if (ahead)
		pick = ahead->pick;
	else
		touch_pick(tm, g, nr_touchers, &pick);
#ifdef CONFIG_DEBUG_VM
	VM_BUG_ON(ahead && !ahead_stands(tm, g, nr_touchers, ahead));
#endif
	int who = slice ? s->w.toucher[g] : (int)(g - tm->nr_slices) * s->w.p.threads + (int)pick.toucher;
	/* Thinning: the draw used the threads' full rate; a thread touches
	 * memory only for the share of time interrupt handlers leave it, and
	 * not at all while it is inside a kernel path. */
	bool stolen = pick.thin >= s->w.user_frac[who];
	struct task_struct *p = &s->tasks[who];
	if (!pick.count || stolen ||
	    (!slice && (p->state != TASK_ON_CPU || task_busy_end(s, p, now)))) {
		s->st.hint_faults_lost += pick.count > 0;
		rearm(s, g, now);
		return;
	}
	uint64_t rem;
	uint32_t id;
	if (ahead) {
		id = ahead->id;
		rem = ahead->rem;
	} else {
		id = touch_find(tm, g, pick.hot, pick.k, &rem);
	}
	struct vm_area_struct *vma = s->table_vma[id];
	uint32_t ti = id - vma->first_table_id;
	struct pte_table *t = &vma->tables[ti];
	if (t->ptl_free_at > now) {
		/* a step still holds this table's PTL: the scanner changing it
		 * now, whose PROT_NONE PTEs are not visible before it is done --
		 * the touch finds the old PTE and does not fault */
		rearm(s, g, now);
		return;
	}
	if (tm->pool && tm->pool[id].on) {
		if (s->cpus[p->cpu].node == tm->pool[id].nid) {
			/* aggregated: a pooled table's fault (docs/model.md 3.3a) */
			task_fault_pooled(s, p, vma, t, pick.hot, now);
			if (!timerq_armed(&s->e.q, tm->timer[g]))
				touch_changed(tm, g);
			bulk_try_begin(s, g, p);
			return;
		}
		/* its toucher moved to another node: the pages are remote now,
		 * and this fault is an exact one */
		workload_pool_settle(vma, t);
	}
	uint64_t addr;
	if (ahead) {
		addr = ahead->addr;
	} else {
		addr = pick_addr(vma, ti, pick.hot, rem);
		/* the page's state is read by do_numa_page after its PTE:
		 * both are a cache miss in a big run, and this one then
		 * overlaps the other */
		__builtin_prefetch(&vma->store->pg[vma_store_idx(vma, addr)]);
	}
	task_fault_protnone(s, p, vma, addr, now);
	/* a migration in flight keeps its PTE PROT_NONE and re-arms nothing */
	if (!timerq_armed(&s->e.q, tm->timer[g]))
		touch_changed(tm, g);
	touch_ahead_inline(s, g);
}

/* ---- aggregated mode: a slice's faults drawn in bulk (docs/model.md 3.3b) ----
 *
 * A slice whose PROT_NONE pages are all in pooled tables on its owner's
 * node, whose owner runs user code on its CPU with nothing waiting for its
 * return, its placement done for this scan sequence and on its preferred
 * node (or with none), faults only in ways that nothing else reads before
 * one of the catch-up points below: its faults feed counters, CPU time,
 * the touch model's counts and the pool's, and the owner's fault
 * statistics.  Such a slice needs no event per fault: its timer is off,
 * and its faults are drawn, in order and each at its time, from the same
 * process and the same stream when something is about to look
 * (user_touch_bulk): the accounting tick (CPU time, counters, the rates
 * and the interrupt share that change there), a path looking at one of its
 * tables (workload_table_sync), the owner entering the kernel or leaving
 * its CPU, the scheduler asking whether it is inside a fault (its tick,
 * move_task, the sleep and slice timers), the NUMA scanner of its mm (the
 * access PIDs, the scan sequence), the end of the run. */

/* Whether slice @g, owned by @p, may be drawn in bulk (see above). */
static bool bulk_allowed(const struct sim *s, uint32_t g, const struct task_struct *p)
{
	const struct touch_model *tm = &s->w.touch;
	if (s->e.trace || p->state != TASK_ON_CPU || p->act != ACT_USER || p->numa_work_queued ||
	    p->syscall_caller || sched_exit_work(s, p) || tm->owner_cpu[g] != p->cpu)
		return false;
	if (!sched_numa_balancing(s) || !p->mm || !p->numa_faults ||
	    p->numa_scan_seq != p->mm->numa_scan_seq)
		return false; /* the next fault places the task (task_numa_placement) */
	int node = s->cpus[p->cpu].node;
	if (p->numa_preferred_nid != NUMA_NO_NODE && p->numa_preferred_nid != node)
		return false; /* the next fault may move the task (numa_migrate_preferred) */
	return tm->pool_nid[g] == node && tm->pool_w[2 * g] == tm->pn_cold[g] &&
	       tm->pool_w[2 * g + 1] == tm->pn_hot[g] && (tm->pn_cold[g] | tm->pn_hot[g]);
}

/* After a fault on a pooled table of slice @g: stop its timer and draw its
 * next faults in bulk, from the fault's end on, if it may be. */
static void bulk_try_begin(struct sim *s, uint32_t g, struct task_struct *p)
{
	struct touch_model *tm = &s->w.touch;
	if (!tm->bulk || g >= tm->nr_slices || !bulk_allowed(s, g, p))
		return;
	uint64_t from = s->e.acct[p->cpu].busy_until;
	tm->bulk[g] = 1;
	tm->bulk_from[g] = from > s->e.t0 ? from : s->e.t0;
	tm->nr_bulk++;
	timerq_cancel(&s->e.q, tm->timer[g]);
}

/* The VMA of all of slice @g's tables, or NULL if they are not in one:
 * the first and the last table are (a VMA is one range of addresses). */
static struct vm_area_struct *slice_vma(const struct sim *s, uint32_t g)
{
	const struct touch_model *tm = &s->w.touch;
	uint32_t first = tm->grp_first[g], count = tm->grp_count[g];
	struct vm_area_struct *vma = s->table_vma[tm->grp_tables[first]];
	return s->table_vma[tm->grp_tables[first + count - 1]] == vma ? vma : NULL;
}

/* The faults counted in @lazy ([cold, hot]) go to the touch model's root. */
static inline void flush_lazy(struct touch_model *tm, uint32_t g, uint32_t lazy[2], uint32_t *nr)
{
	for (int hot = 0; hot < 2; hot++)
		if (lazy[hot]) {
			touch_pend_faults(tm, g, hot, lazy[hot]);
			*nr += lazy[hot];
			lazy[hot] = 0;
		}
}

/* A fault without a table, kept by the uniform @u (u < frac): its kind,
 * hot with probability wh / total -- u / frac is uniform again (no draw
 * if one kind has no rate; total > 0, so with no rate on the cold pages
 * there is one on the hot ones). */
static inline __attribute__((always_inline)) bool lazy_kind(double u, double inv_frac, double wh,
							    double wc, double total)
{
	return wh > 0 && (wc <= 0 || u * inv_frac * total < wh);
}

/* task_numa_fault's retry at the jiffy of a fault ending at @t (the
 * caller's t >= its retry point): the next retry point, the first ns of
 * the jiffy after numa_migrate_retry's.  Unchanged, the task has no
 * preferred node and nothing in the bulk loops gives it one: no more calls
 * (and no division per fault). */
static inline __attribute__((always_inline)) uint64_t retry_next(struct sim *s, struct task_struct *p,
								 uint64_t t)
{
	uint64_t before = p->numa_migrate_retry;
	task_numa_fault_retry_at(s, p, ns_to_jiffies(s, t));
	return p->numa_migrate_retry != before ? jiffies_end_ns(s, p->numa_migrate_retry) : UINT64_MAX;
}

/* The bulk loop's state that its common case changes. */
struct bulk_run {
	struct rng r;
	uint64_t pn[2];               /* [cold, hot]: the slice's PROT_NONE pages left */
	uint64_t t, busy_end, retry_ns;
	uint32_t lazy[2];
	int last_lazy;
	double cost, busy;
	unsigned long n, lost;
};

/* The bulk loop's fixed inputs. */
struct bulk_in {
	double rate_hot, rate_cold, frac, inv_frac, fault_ns;
	uint64_t fault_whole, upto, duration_ns;
	uint32_t w;                   /* the slice's one page weight */
};

/* user_touch_bulk's loop where every fault is one without a table (from
 * lazy_from on) and no table is held: the same draws, sums and order as
 * the loop's lazy branch, in a function of its own so that its state
 * lives in registers (in the general loop, with its calls, the compiler
 * kept it in memory: 124 instructions per fault, 94 here).  @cold_only:
 * the hot pages have no rate, so wh is +0, total is wc, every fault is
 * cold and the thinning draw is only compared (rng_unit_below) -- the
 * same results without the sums and the conversion (the seed: no hot set). */
static inline __attribute__((always_inline)) void
bulk_lazy_loop(struct sim *s, struct task_struct *p, const struct bulk_in *in, struct bulk_run *b,
	       const bool cold_only)
{
	const struct bulk_in c = *in;
	struct rng r = b->r;
	uint64_t pn0 = b->pn[0], pn1 = b->pn[1], t = b->t, busy_end = b->busy_end;
	uint64_t retry_ns = b->retry_ns;
	uint32_t lazy0 = b->lazy[0], lazy1 = b->lazy[1];
	int last_lazy = b->last_lazy;
	double cost = b->cost, busy = b->busy;
	unsigned long n = b->n, lost = b->lost;
	const uint64_t keep_below = cold_only ? rng_unit_below(c.frac) : 0;
	for (;;) {
		double wh = cold_only ? 0 : c.rate_hot * pn_double(pn1), wc = c.rate_cold * pn_double(pn0);
		double total = cold_only ? wc : wh + wc;
		if (total <= 0)
			break;
		uint64_t when = touch_next_at(&r, total, t, c.duration_ns);
		if (when > c.upto)
			break; /* that draw is dropped: the next starts afresh from upto */
		t = when;
		bool hot;
		if (cold_only) {
			if (rng_unit_bits(&r) >= keep_below) { /* u >= frac */
				lost++;
				continue;
			}
			hot = false;
		} else {
			double u = rng_unit(&r);
			if (u >= c.frac) {
				lost++; /* an interrupt handler had the CPU */
				continue;
			}
			hot = lazy_kind(u, c.inv_frac, wh, wc, total);
		}
		VM_BUG_ON(!(hot ? pn1 : pn0));
		if (hot) {
			lazy1++;
			pn1 -= c.w;
		} else {
			lazy0++;
			pn0 -= c.w;
		}
		last_lazy = hot;
		cost += c.fault_ns;
		busy += c.fault_ns;
		t = busy_end = when + c.fault_whole;
		if (__builtin_expect(t >= retry_ns, 0))
			retry_ns = retry_next(s, p, t);
		n++;
	}
	*b = (struct bulk_run){ .r = r, .pn = { pn0, pn1 }, .t = t, .busy_end = busy_end,
				.retry_ns = retry_ns, .lazy = { lazy0, lazy1 }, .last_lazy = last_lazy,
				.cost = cost, .busy = busy, .n = n, .lost = lost };
}

static __attribute__((noinline)) void bulk_run_lazy(struct sim *s, struct task_struct *p,
						     const struct bulk_in *in, struct bulk_run *b)
{
	if (in->rate_hot == 0)
		bulk_lazy_loop(s, p, in, b, true);
	else
		bulk_lazy_loop(s, p, in, b, false);
}

void user_touch_bulk(struct sim *s, uint32_t g, uint64_t upto)
{
	struct touch_model *tm = &s->w.touch;
	uint64_t t = tm->bulk_from[g];
	if (t >= upto)
		return;
	struct task_struct *p = &s->tasks[s->w.toucher[g]];
	struct cpu_acct *a = &s->e.acct[p->cpu];
	const double fault_ns = s->m.cost.hint_fault_ns;
	const uint64_t fault_whole = ns_from_double(fault_ns);
	const double frac = s->w.user_frac[p->idx], inv_frac = frac > 0 ? 1 / frac : 0;
	const int nid = s->cpus[p->cpu].node;
	/* user_touch and task_fault_pooled for a slice that passes
	 * bulk_allowed: touch_draw, touch_pick and touch_find with the same
	 * draws in the same order, each touch at its time, over the group's
	 * stream and counts held in locals (its rates do not change inside
	 * the loop); only the sums are added after it */
	const double rate_hot = tm->rate[2 * g], rate_cold = tm->rate[2 * g + 1];
	struct rng r = { tm->key[g], tm->ctr[g] };
	uint64_t pn[2] = { tm->pn_cold[g], tm->pn_hot[g] };
	/* the first ns of the jiffy after numa_migrate_retry's: no division per fault */
	uint64_t retry_ns = jiffies_end_ns(s, p->numa_migrate_retry);
	unsigned long n = 0, lost = 0;
	uint64_t busy_end = 0;
	double cost = a->cost[COST_HINT_FAULT], busy = a->busy_ns;
	const struct vm_area_struct *pid_vma = NULL;
	/* Faults without a table (docs/model.md 3.3c): when the slice's
	 * pages weigh alike and its tables are in one VMA, a fault needs only
	 * its kind; its table is drawn when a path looks.  Counted here,
	 * handed to the touch model in one go before anything that needs the
	 * tree and after the loop.  A touch of a table whose PTL a path
	 * holds finds the old PTE and is lost: for the last table held, that
	 * table leaves the counts until the hold ends (the touches left are
	 * a Poisson process of the others' rate); while another is held,
	 * each fault finds its table at once, as above. */
	const uint32_t w = tm->lazy_w[g];
	struct vm_area_struct *lazy_vma = w ? slice_vma(s, g) : NULL;
	const uint64_t lazy_from = lazy_vma ? tm->held_other[g] : UINT64_MAX;
	uint32_t lazy[2] = { 0, 0 }, nr_lazy = 0;
	int last_lazy = -1; /* the kind of the last fault if it has no table */
	uint64_t hide_until = 0, hidden[2] = { 0, 0 };
	const uint32_t hide_rank = lazy_vma ? tm->held_rank[g] : 0;
	if (lazy_vma && tm->held_until[g] > t) {
		hide_until = tm->held_until[g];
		touch_hide_table(tm, g, hide_rank, hidden);
		pn[0] -= hidden[0];
		pn[1] -= hidden[1];
	}
	/* the hold ends before upto and the next touch (if any): the rate
	 * changes there, and by memorylessness the next draw starts afresh
	 * from then */
	bool back = hide_until && hide_until <= upto;
	const struct bulk_in in = {
		.rate_hot = rate_hot, .rate_cold = rate_cold, .frac = frac, .inv_frac = inv_frac,
		.fault_ns = fault_ns, .fault_whole = fault_whole, .upto = upto,
		.duration_ns = s->e.duration_ns, .w = w,
	};
	for (;;) {
		if (!hide_until && t >= lazy_from) {
			/* the common case: every fault from here on is one
			 * without a table (each is at or after t), and no
			 * table is held */
			struct bulk_run b = {
				.r = r, .pn = { pn[0], pn[1] }, .t = t, .busy_end = busy_end,
				.retry_ns = retry_ns, .lazy = { lazy[0], lazy[1] },
				.last_lazy = last_lazy, .cost = cost, .busy = busy, .n = n, .lost = lost,
			};
			bulk_run_lazy(s, p, &in, &b);
			r = b.r;
			pn[0] = b.pn[0];
			pn[1] = b.pn[1];
			t = b.t;
			busy_end = b.busy_end;
			lazy[0] = b.lazy[0];
			lazy[1] = b.lazy[1];
			last_lazy = b.last_lazy;
			cost = b.cost;
			busy = b.busy;
			n = b.n;
			lost = b.lost;
			break;
		}
		if (hide_until && t >= hide_until) {
			if (t > upto)
				break; /* the last fault runs on past upto: placed below */
			/* the hold is over: the table counts again, after the
			 * faults drawn without it go down */
			flush_lazy(tm, g, lazy, &nr_lazy);
			touch_show_table(tm, g, hide_rank, hidden);
			pn[0] += hidden[0];
			pn[1] += hidden[1];
			hide_until = 0;
			back = false;
			last_lazy = -1; /* gone down with the others */
		}
		double wh = rate_hot * pn_double(pn[1]), wc = rate_cold * pn_double(pn[0]);
		double total = wh + wc;
		if (total <= 0) {
			if (!back)
				break;
			t = hide_until; /* no rate until the held table is back */
			continue;
		}
		uint64_t when = touch_next_at(&r, total, t, s->e.duration_ns);
		if (back && when >= hide_until) {
			t = hide_until;
			continue;
		}
		if (when > upto)
			break; /* that draw is dropped: the next starts afresh from upto */
		t = when;
		if (when >= lazy_from) {
			/* touch_pick_from's draws less the page, from one uniform:
			 * kept with probability frac, and the kind (lazy_kind) */
			double u = rng_unit(&r);
			if (u >= frac) {
				lost++; /* an interrupt handler had the CPU */
				continue;
			}
			bool hot = lazy_kind(u, inv_frac, wh, wc, total);
			VM_BUG_ON(!pn[hot]);
			lazy[hot]++;
			last_lazy = hot;
			pn[hot] -= w;
		} else {
			struct touch_pick pick;
			touch_pick_from(&r, wh, wc, pn[1], pn[0], 0, &pick);
			bool hot = pick.hot;
			if (!pick.count)
				continue;
			if (pick.thin >= frac) {
				lost++; /* an interrupt handler had the CPU */
				continue;
			}
			flush_lazy(tm, g, lazy, &nr_lazy); /* the older faults go first */
			last_lazy = -1;
			uint64_t rem;
			uint32_t id = touch_find(tm, g, hot, pick.k, &rem);
			struct vm_area_struct *vma = s->table_vma[id];
			struct pte_table *pt = &vma->tables[id - vma->first_table_id];
			if (pt->ptl_free_at > when)
				continue; /* a step still holds the PTL: the old PTE, no fault */
			VM_BUG_ON(!tm->pool[id].on || tm->pool[id].nid != nid);
			if (vma != pid_vma) { /* its bit is set already in the last one */
				vma_set_access_pid_bit_of(s, vma, p);
				pid_vma = vma;
			}
			touch_pool_fault(tm, id, g, pt->rank, pt->weight, hot);
			pn[hot] -= pt->weight;
			pt->ptl_free_at = when + fault_whole;
		}
		cost += fault_ns;
		busy += fault_ns;
		t = busy_end = when + fault_whole;
		if (t >= retry_ns)
			retry_ns = retry_next(s, p, t);
		n++;
	}
	flush_lazy(tm, g, lazy, &nr_lazy);
	if (last_lazy >= 0 && busy_end > upto) {
		/* the last fault runs on past @upto: a path that looks at its
		 * table now must wait for its PTL, so it gets its table now (in
		 * the counts it was drawn from: before the held table is back) */
		uint32_t id = touch_place_last(tm, g, last_lazy);
		table_of_id(s, id)->ptl_free_at = busy_end;
	}
	if (hide_until) /* back in the counts; the next catch-up hides it again */
		touch_show_table(tm, g, hide_rank, hidden);
	if (nr_lazy && lazy_vma != pid_vma)
		vma_set_access_pid_bit_of(s, lazy_vma, p);
	a->cost[COST_HINT_FAULT] = cost;
	a->busy_ns = busy;
	tm->ctr[g] = r.ctr;
	tm->bulk_from[g] = t > upto ? t : upto;
	if (busy_end > a->busy_until) {
		flush_ledger_busy(s, p->cpu, busy_end);
		a->busy_until = busy_end;
	}
	s->st.hint_faults_lost += lost;
	if (!n)
		return;
	count_vm_events_cpu(s, p->cpu, NUMA_HINT_FAULTS, n);
	count_vm_events_cpu(s, p->cpu, NUMA_HINT_FAULTS_LOCAL, n);
	p->mm->hint_faults += n;
	p->mm->hint_faults_local += n;
	s->st.hint_faults_pooled += n;
	s->st.hint_faults_bulk += n;
	task_numa_fault_bulk(s, p, nid, n);
}

/* Slice @g's faults up to @now, then one event per fault again. */
static void bulk_end_at(struct sim *s, uint32_t g, uint64_t now)
{
	struct touch_model *tm = &s->w.touch;
	user_touch_bulk(s, g, now);
	tm->bulk[g] = 0;
	tm->nr_bulk--;
	uint64_t from = tm->bulk_from[g];
	touch_rearm(tm, g, from > now ? from : now);
}

void user_touch_bulk_end(struct sim *s, uint32_t g)
{
	bulk_end_at(s, g, s->e.t0);
}

void user_touch_bulk_all(struct sim *s, const struct mm_struct *mm, uint64_t upto, bool end)
{
	struct touch_model *tm = &s->w.touch;
	for (uint32_t g = 0; tm->nr_bulk && g < tm->nr_slices; g++) {
		if (!tm->bulk[g] || (mm && s->tasks[s->w.toucher[g]].mm != mm))
			continue;
		if (end)
			bulk_end_at(s, g, upto);
		else
			user_touch_bulk(s, g, upto);
	}
}

void user_touch_bulk_task(struct sim *s, struct task_struct *p, uint64_t now, bool end)
{
	struct touch_model *tm = &s->w.touch;
	uint32_t g = (uint32_t)s->w.slice_of[p->idx];
	if (g >= tm->nr_slices || !tm->bulk[g] || s->w.toucher[g] != p->idx)
		return;
	if (end)
		bulk_end_at(s, g, now);
	else
		user_touch_bulk(s, g, now);
}

void user_touch_bulk_recheck(struct sim *s, uint64_t now)
{
	struct touch_model *tm = &s->w.touch;
	for (uint32_t g = 0; tm->nr_bulk && g < tm->nr_slices; g++)
		if (tm->bulk[g] && !bulk_allowed(s, g, &s->tasks[s->w.toucher[g]]))
			bulk_end_at(s, g, now);
}
