/* Aggregated private faults (docs/model.md 3.3a, 3.3b): which tables the
 * scanner pools, what a pooled fault counts and defers, how a pooled table
 * is settled, and when a slice's faults are drawn in bulk.  The world: 4 threads, each with a private slice of one PTE
 * table, first touched on its node. */
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>

#include "kernel/sched/sched.h"
#include "linux/compaction.h"
#include "linux/mm.h"
#include "linux/sched/numa_balancing.h"
#include "unit/helpers/testsim.h"

static void slices(struct sim *s)
{
	s->w.p.private_fraction = 1;
	s->w.p.private_access_share = 1;
}

/* No hot set: every touch is of a cold page. */
static void slices_cold(struct sim *s)
{
	slices(s);
	s->w.p.hot_fraction = 0;
	s->w.p.hot_access_share = 0;
}

static void slices_exact(struct sim *s)
{
	slices(s);
	s->exact = true;
}

static struct sim *mk(void **state, void (*cfg)(struct sim *))
{
	struct sim *s = testsim_new_cfg("v7.3", FLUSH_X86_IPI, cfg);
	*state = s;
	return s;
}

/* Scan thread @i's slice (its table i) in its own context. */
static struct pte_table *scan_slice(struct sim *s, int i)
{
	struct vm_area_struct *vma = testsim_vma(s);
	testsim_enter(s, i, NSEC_PER_SEC);
	uint64_t a = vma->vm_start + (uint64_t)i * PMD_SIZE;
	change_prot_numa(vma, a, a + PMD_SIZE);
	return &vma->tables[i];
}

static const struct touch_pool *pool_of(struct sim *s, int i)
{
	return &s->w.touch.pool[testsim_vma(s)->first_table_id + (uint32_t)i];
}

static unsigned protnone_ptes(struct sim *s, int i)
{
	unsigned n = 0;
	for (uint64_t p = (uint64_t)i * PTRS_PER_PTE; p < (uint64_t)(i + 1) * PTRS_PER_PTE; p++)
		n += pte_protnone(*testsim_pte(s, p));
	return n;
}

static void assert_invariants(struct sim *s)
{
	char err[256] = "";
	bool ok = mm_check_invariants(s, err, sizeof(err));
	if (!ok)
		fail_msg("%s", err);
}

static void test_local_slice_table_is_pooled_and_its_faults_deferred(void **state)
{
	struct sim *s = mk(state, slices);
	struct vm_area_struct *vma = testsim_vma(s);
	struct pte_table *t = scan_slice(s, 1);
	struct task_struct *p = &s->tasks[1];
	assert_int_equal(t->owner, 1);
	assert_int_equal(pool_of(s, 1)->on, 1);
	assert_int_equal(pool_of(s, 1)->nid, s->cpus[p->cpu].node);
	assert_int_equal(protnone_ptes(s, 1), PTRS_PER_PTE);

	uint64_t cold = s->w.touch.pn_cold[t->group];
	unsigned long long faults = testsim_event(s, NUMA_HINT_FAULTS);
	for (int k = 0; k < 5; k++)
		task_fault_pooled(s, p, vma, t, false, NSEC_PER_SEC + 1000000 * (uint64_t)(k + 1));
	assert_int_equal(testsim_event(s, NUMA_HINT_FAULTS), faults + 5);
	assert_int_equal(testsim_event(s, NUMA_HINT_FAULTS_LOCAL), 5);
	assert_int_equal(s->st.hint_faults_pooled, 5);
	assert_int_equal(s->w.touch.pn_cold[t->group], cold - 5 * t->weight);
	assert_int_equal(pool_of(s, 1)->done[0], 5);
	/* task_numa_fault saw five private local faults on the slice's node */
	assert_non_null(p->numa_faults);
	assert_int_equal(p->numa_faults_locality[1], 5);
	/* the PTEs wait for the table to be settled; the checkers know */
	assert_int_equal(protnone_ptes(s, 1), PTRS_PER_PTE);
	assert_invariants(s);

	workload_pool_settle(vma, t);
	assert_int_equal(pool_of(s, 1)->on, 0);
	assert_int_equal(pool_of(s, 1)->done[0], 0);
	assert_int_equal(protnone_ptes(s, 1), PTRS_PER_PTE - 5);
	assert_int_equal(t->nr_protnone_hot + t->nr_protnone_cold, PTRS_PER_PTE - 5);
	assert_invariants(s);
	/* the scanner's next visit re-protects exactly the five */
	testsim_enter(s, 1, 2 * NSEC_PER_SEC);
	unsigned long n = change_prot_numa(vma, vma->vm_start + PMD_SIZE, vma->vm_start + 2 * PMD_SIZE);
	assert_int_equal(n, 5);
	assert_int_equal(pool_of(s, 1)->on, 1);
}

/* A table whose pooled faults hit every PROT_NONE page settles them all
 * without drawing which: every PTE is present again, the bitmaps and counts
 * are empty, the checkers agree, and the pool's stream moved on by one draw
 * a fault, as a settle that draws does (five faults: five draws). */
static void test_settle_of_every_page_moves_the_stream_as_drawing_does(void **state)
{
	struct sim *s = mk(state, slices);
	struct vm_area_struct *vma = testsim_vma(s);
	struct touch_model *tm = &s->w.touch;
	struct task_struct *p = &s->tasks[1];
	struct pte_table *t = scan_slice(s, 1);
	assert_int_equal(pool_of(s, 1)->on, 1);
	unsigned cold = t->nr_protnone_cold, hot = t->nr_protnone_hot;
	assert_int_equal(cold + hot, PTRS_PER_PTE);
	for (unsigned k = 0; k < PTRS_PER_PTE; k++)
		task_fault_pooled(s, p, vma, t, k >= cold, NSEC_PER_SEC + 1000 * (uint64_t)(k + 1));
	assert_int_equal(pool_of(s, 1)->done[0], cold);
	assert_int_equal(pool_of(s, 1)->done[1], hot);
	/* each PTE as numa_rebuild_single_mapping leaves it */
	pte_t want[PTRS_PER_PTE], write = (vma->vm_flags & VM_WRITE) ? PTE_WRITE : 0;
	for (uint64_t i = 0; i < PTRS_PER_PTE; i++) {
		pte_t old = *testsim_pte(s, PTRS_PER_PTE + i);
		assert_true(pte_protnone(old));
		want[i] = (pte_t)(PTE_PRESENT | PTE_YOUNG | (old & (PTE_DIRTY | PTE_SIM_HOT)) | write);
	}
	uint64_t ctr = tm->pool_ctr;
	workload_pool_settle(vma, t);
	assert_int_equal(tm->pool_ctr - ctr, PTRS_PER_PTE);
	for (uint64_t i = 0; i < PTRS_PER_PTE; i++)
		assert_int_equal(*testsim_pte(s, PTRS_PER_PTE + i), want[i]);
	assert_int_equal(protnone_ptes(s, 1), 0);
	assert_int_equal(t->nr_protnone_hot + t->nr_protnone_cold, 0);
	for (unsigned w = 0; w < PTRS_PER_PTE / 64; w++)
		assert_int_equal(t->protnone_hot[w] | t->protnone_cold[w], 0);
	for (uint64_t i = PTRS_PER_PTE; i < 2 * PTRS_PER_PTE; i++)
		assert_true(pte_present(*testsim_pte(s, i)) && (*testsim_pte(s, i) & PTE_YOUNG));
	assert_invariants(s);

	/* five of them: five draws */
	testsim_enter(s, 1, 2 * NSEC_PER_SEC);
	change_prot_numa(vma, vma->vm_start + PMD_SIZE, vma->vm_start + 2 * PMD_SIZE);
	for (int k = 0; k < 5; k++)
		task_fault_pooled(s, p, vma, t, false, 2 * NSEC_PER_SEC + 1000000 * (uint64_t)(k + 1));
	assert_true(t->nr_protnone_cold > 5); /* some left: they are drawn */
	ctr = tm->pool_ctr;
	workload_pool_settle(vma, t);
	assert_int_equal(tm->pool_ctr - ctr, 5);
	assert_int_equal(protnone_ptes(s, 1), PTRS_PER_PTE - 5);
	assert_invariants(s);
}

static void test_misplaced_page_keeps_table_exact(void **state)
{
	struct sim *s = mk(state, slices);
	struct vm_area_struct *vma = testsim_vma(s);
	struct page_state *pg = &vma->store->pg[vma->store_pgoff + 2 * PTRS_PER_PTE + 7];
	pg->nid = (uint8_t)(1 - s->cpus[s->tasks[2].cpu].node); /* one page on the other node */
	scan_slice(s, 2);
	assert_int_equal(pool_of(s, 2)->on, 0);
	scan_slice(s, 3); /* its neighbour is pooled */
	assert_int_equal(pool_of(s, 3)->on, 1);
}

static void test_page_last_faulted_by_another_task_keeps_table_exact(void **state)
{
	struct sim *s = mk(state, slices);
	struct vm_area_struct *vma = testsim_vma(s);
	struct page_state *pg = &vma->store->pg[vma->store_pgoff + 0 * PTRS_PER_PTE + 100];
	pg->last_cpupid = (uint32_t)cpu_pid_to_cpupid(s->tasks[3].cpu, s->tasks[3].pid);
	scan_slice(s, 0);
	assert_int_equal(pool_of(s, 0)->on, 0); /* a fault there is a shared one */
	pg->last_cpupid = (uint32_t)cpu_pid_to_cpupid(s->tasks[0].cpu, s->tasks[0].pid);
	scan_slice(s, 0); /* nothing new to protect, but the verdict is taken again */
	assert_int_equal(pool_of(s, 0)->on, 1);
}

static void test_large_folio_keeps_table_exact(void **state)
{
	struct sim *s = mk(state, slices);
	struct vm_area_struct *vma = testsim_vma(s);
	struct page_state *pg = &vma->store->pg[vma->store_pgoff + 1 * PTRS_PER_PTE];
	for (int i = 0; i < 16; i++) /* an order-4 folio at the table's start */
		pg[i].flags = (uint8_t)(4 << FOLIO_ORDER_SHIFT);
	scan_slice(s, 1);
	assert_int_equal(pool_of(s, 1)->on, 0);
}

static void test_exact_mode_pools_nothing(void **state)
{
	struct sim *s = mk(state, slices_exact);
	assert_null(s->w.touch.pool);
	struct pte_table *t = scan_slice(s, 1);
	assert_int_equal(t->nr_protnone_hot + t->nr_protnone_cold, PTRS_PER_PTE);
}


/* ---- bulk draws (docs/model.md 3.3b) ---- */

/* Slice @i scanned and pooled, then its first touch run as an event at
 * 1.1 s (a pooled fault, after which the slice may go to bulk). */
static struct pte_table *pooled_slice_touched(struct sim *s, int i)
{
	struct pte_table *t = scan_slice(s, i);
	assert_int_equal(pool_of(s, i)->on, 1);
	user_touch(s, t->group, NSEC_PER_SEC + 100000000);
	return t;
}

static uint64_t weighted_protnone(const struct sim *s, uint32_t g)
{
	return s->w.touch.pn_cold[g] + s->w.touch.pn_hot[g];
}

/* The time in which a PROT_NONE page of slice @g (cold, weight 1) faults
 * with probability 1/2. */
static uint64_t half_life_ns(const struct sim *s, uint32_t g)
{
	double rate = s->w.touch.rate[2 * g + 1] * s->w.user_frac[s->w.toucher[g]];
	return (uint64_t)(log(2) / rate);
}

static void test_pooled_slice_goes_to_bulk_and_its_faults_add_up(void **state)
{
	struct sim *s = mk(state, slices);
	struct touch_model *tm = &s->w.touch;
	struct task_struct *p = &s->tasks[1];
	struct pte_table *t = pooled_slice_touched(s, 1);
	uint32_t g = t->group;
	assert_int_equal(s->st.hint_faults_pooled, 1); /* the event's own fault */
	assert_int_equal(tm->bulk[g], 1);
	assert_int_equal(tm->nr_bulk, 1);
	assert_false(timerq_armed(&s->e.q, tm->timer[g])); /* no event per fault */
	assert_int_equal(tm->pool_w[2 * g] + tm->pool_w[2 * g + 1], weighted_protnone(s, g));

	double cost0 = s->e.acct[p->cpu].cost[COST_HINT_FAULT];
	uint64_t upto = tm->bulk_from[g] + half_life_ns(s, g);
	user_touch_bulk(s, g, upto);
	unsigned long long n = s->st.hint_faults_bulk;
	assert_true(n > 0);
	assert_int_equal(s->st.hint_faults_pooled, 1 + n);
	/* every effect of each fault, summed: counters, CPU time, the touch
	 * model, the pool, task_numa_fault's statistics */
	assert_int_equal(testsim_event(s, NUMA_HINT_FAULTS), 1 + n);
	assert_int_equal(testsim_event(s, NUMA_HINT_FAULTS_LOCAL), 1 + n);
	assert_true(fabs(s->e.acct[p->cpu].cost[COST_HINT_FAULT] - cost0 - (double)n * s->m.cost.hint_fault_ns) < 1e-6);
	assert_int_equal(pool_of(s, 1)->done[0] + pool_of(s, 1)->done[1], 1 + n);
	assert_int_equal(p->numa_faults_locality[1], 1 + n);
	assert_int_equal(tm->pool_w[2 * g] + tm->pool_w[2 * g + 1], weighted_protnone(s, g));
	assert_true(tm->bulk_from[g] >= upto);
	assert_true(weighted_protnone(s, g) > 0);
	assert_invariants(s);
	/* drawing again to the same time adds nothing */
	user_touch_bulk(s, g, upto);
	assert_int_equal(s->st.hint_faults_bulk, n);
}

/* The count follows the process: each of the N pooled pages faults at its
 * rate (thinned by the interrupt share) while the owner runs user code, so
 * after u ns of it about N (1 - exp(-rate u)) have; 5 standard deviations
 * either way. */
static void test_bulk_count_follows_the_pages_rate(void **state)
{
	struct sim *s = mk(state, slices);
	struct touch_model *tm = &s->w.touch;
	struct pte_table *t = pooled_slice_touched(s, 2);
	uint32_t g = t->group;
	double pages = (double)weighted_protnone(s, g) / t->weight;
	double rate = tm->rate[2 * g + 1] * t->weight * s->w.user_frac[s->w.toucher[g]];
	uint64_t from = tm->bulk_from[g], d = half_life_ns(s, g);
	user_touch_bulk(s, g, from + d);
	/* the owner touches nothing during its own faults: of the d ns, those
	 * of m faults are not user time (the fixed point of m) */
	double f = (double)ns_from_double(s->m.cost.hint_fault_ns), lo = 0, hi = pages, mean = 0, q = 0;
	for (int i = 0; i < 100; i++) { /* bisection: the user time falls as m grows */
		mean = (lo + hi) / 2;
		double u = (double)d - mean * f;
		q = u > 0 ? 1 - exp(-rate * u) : 0;
		if (pages * q > mean)
			lo = mean;
		else
			hi = mean;
	}
	double sd = sqrt(pages * q * (1 - q));
	double got = (double)s->st.hint_faults_bulk;
	assert_true(mean > 20); /* a test that can fail */
	if (fabs(got - mean) > 5 * sd)
		fail_msg("%.0f faults in %llu ns, expected %.1f +- %.1f", got, (unsigned long long)d, mean, sd);
}

/* A path holds the slice's table (its only one) for the first half
 * half-life: no touch can fault it meanwhile, and from the hold's end on
 * it faults at its full rate -- the same draws as a slice whose bulk
 * draws start there (docs/model.md 3.3c, "A held PTL"). */
static uint64_t bulk_faults_after(int hold)
{
	struct sim *s = testsim_new_cfg("v7.3", FLUSH_X86_IPI, slices);
	struct touch_model *tm = &s->w.touch;
	struct pte_table *t = pooled_slice_touched(s, 2);
	uint32_t g = t->group;
	assert_int_equal(tm->bulk[g], 1);
	assert_int_equal(tm->lazy_w[g], 1);
	uint64_t from = tm->bulk_from[g], d = half_life_ns(s, g);
	if (hold) {
		touch_ptl_held(tm, g, t->rank, from + d / 2);
	} else {
		tm->bulk_from[g] = from + d / 2;
	}
	user_touch_bulk(s, g, from + 2 * d);
	uint64_t n = s->st.hint_faults_bulk;
	assert_invariants(s);
	testsim_free(s);
	return n;
}

static void test_a_held_table_faults_again_when_the_hold_ends(void **state)
{
	(void)state;
	uint64_t held = bulk_faults_after(1), later = bulk_faults_after(0);
	assert_true(later > 20); /* a test that can fail */
	assert_int_equal(held, later);
}

static void test_bulk_ends_when_a_path_looks_at_its_table(void **state)
{
	struct sim *s = mk(state, slices);
	struct touch_model *tm = &s->w.touch;
	struct vm_area_struct *vma = testsim_vma(s);
	struct pte_table *t = pooled_slice_touched(s, 1);
	uint32_t g = t->group;
	uint64_t now = s->w.touch.bulk_from[g] + half_life_ns(s, g);
	testsim_enter(s, 0, now);
	workload_table_sync(vma, t); /* the scanner, a migration call, compaction, a zap */
	assert_int_equal(tm->bulk[g], 0);
	assert_int_equal(tm->nr_bulk, 0);
	assert_true(s->st.hint_faults_bulk > 0); /* its faults up to then came first */
	assert_int_equal(pool_of(s, 1)->on, 0);   /* and were settled */
	assert_int_equal(tm->pool_w[2 * g] + tm->pool_w[2 * g + 1], 0);
	assert_true(timerq_armed(&s->e.q, tm->timer[g])); /* one event per fault again */
	assert_true(s->e.q.when[tm->timer[g]] >= now);
	assert_invariants(s);
}

static void test_bulk_ends_when_the_owner_enters_the_kernel(void **state)
{
	struct sim *s = mk(state, slices);
	struct touch_model *tm = &s->w.touch;
	struct task_struct *p = &s->tasks[3];
	struct pte_table *t = pooled_slice_touched(s, 3);
	uint64_t faulted = s->st.hint_faults_pooled;
	testsim_enter(s, 3, s->w.touch.bulk_from[t->group] + half_life_ns(s, t->group));
	task_set_act(s, p, ACT_FAULT); /* a fault elsewhere, a scan, a call */
	assert_int_equal(tm->bulk[t->group], 0);
	assert_true(s->st.hint_faults_pooled > faulted); /* its faults until then */
	assert_true(timerq_armed(&s->e.q, tm->timer[t->group]));
	task_set_act(s, p, ACT_USER);
}

/* Leaving its CPU (put_prev_task): the faults drawn in bulk come first, so
 * that the stretch's settling takes their CPU time off its user time. */
static void test_bulk_ends_before_the_owner_leaves_its_cpu(void **state)
{
	struct sim *s = mk(state, slices);
	struct touch_model *tm = &s->w.touch;
	struct task_struct *p = &s->tasks[1];
	struct pte_table *t = pooled_slice_touched(s, 1);
	struct cpu_acct *a = &s->e.acct[p->cpu];
	uint64_t now = tm->bulk_from[t->group] + half_life_ns(s, t->group);
	double busy0 = a->busy_at_account + engine_fx_ns(a->rx_busy_at_account), ops0 = p->ops;
	uint64_t from = p->acct_from;
	double op = s->w.op_ns[p->idx];
	unsigned long long bulk0 = s->st.hint_faults_bulk;
	testsim_enter(s, 1, now);
	sched_block_task(s, p, now, UINT64_MAX);
	assert_int_equal(tm->bulk[t->group], 0);
	assert_int_equal(p->state, TASK_SLEEPING);
	assert_false(timerq_armed(&s->e.q, tm->timer[t->group])); /* off its CPU: no touch */
	unsigned long long n = s->st.hint_faults_bulk - bulk0;
	assert_true(n > 0);
	/* its operations: the stretch less the kernel time, the faults' included */
	double faults_ns = (double)n * s->m.cost.hint_fault_ns;
	double user = (double)(now - from) - (engine_busy_ns(a) - busy0);
	assert_true(engine_busy_ns(a) - busy0 >= faults_ns);
	assert_true(fabs((p->ops - ops0) * op - user) < 1e-6 * (double)(now - from));
}

static void test_bulk_stops_when_the_next_fault_would_act(void **state)
{
	struct sim *s = mk(state, slices);
	struct touch_model *tm = &s->w.touch;
	struct task_struct *p = &s->tasks[1];
	struct pte_table *t = pooled_slice_touched(s, 1);
	uint32_t g = t->group;
	/* work waits for its return (task_work): the next fault returns through it */
	p->numa_work_queued = true;
	uint64_t now = tm->bulk_from[g] + half_life_ns(s, g) / 4;
	user_touch_bulk_recheck(s, now);
	assert_int_equal(tm->bulk[g], 0);
	assert_true(s->st.hint_faults_bulk > 0); /* its faults up to the recheck */
	assert_true(timerq_armed(&s->e.q, tm->timer[g])); /* the next one an event */
	p->numa_work_queued = false;
	/* placed on the other node: the next fault may move it */
	t = pooled_slice_touched(s, 2);
	assert_int_equal(tm->bulk[t->group], 1);
	/* (as numa_migrate_preferred leaves it: its next retry a second ahead,
	 * so that the faults drawn up to the recheck do not reach it) */
	s->tasks[2].numa_preferred_nid = 1 - s->cpus[s->tasks[2].cpu].node;
	s->tasks[2].numa_migrate_retry = ns_to_jiffies(s, 2 * NSEC_PER_SEC);
	user_touch_bulk_recheck(s, NSEC_PER_SEC + 120000000);
	assert_int_equal(tm->bulk[t->group], 0);
}

/* A slice with no hot set takes the bulk loop's cold-only variant (no hot
 * weight, the thinning compared as an integer): its faults are the touch
 * process's draws one by one -- an exponential gap at the PROT_NONE pages'
 * rate, a uniform against the user share (below: kept; else lost to an
 * interrupt handler) -- with the owner busy for each kept fault.  Drawn
 * here by the same rules, the counts and the stream's position agree. */
static void test_cold_slice_bulk_is_the_draws_one_by_one(void **state)
{
	struct sim *s = mk(state, slices_cold);
	struct touch_model *tm = &s->w.touch;
	struct pte_table *t = pooled_slice_touched(s, 2);
	uint32_t g = t->group;
	assert_int_equal(tm->bulk[g], 1);
	assert_int_equal(tm->lazy_w[g], 1);
	assert_true(tm->rate[2 * g] == 0 && tm->pn_hot[g] == 0);
	s->w.user_frac[s->w.toucher[g]] = 0.75; /* a quarter of the touches lost */
	const double frac = 0.75, rate = tm->rate[2 * g + 1];
	const uint64_t whole = ns_from_double(s->m.cost.hint_fault_ns);
	const uint64_t from = tm->bulk_from[g], upto = from + 2 * half_life_ns(s, g);
	struct rng r = { tm->key[g], tm->ctr[g] };
	uint64_t pn = tm->pn_cold[g];
	unsigned long long kept = 0, lost = 0;
	for (uint64_t at = from; pn;) {
		uint64_t when = touch_next_at(&r, rate * pn_double(pn), at, s->e.duration_ns);
		if (when > upto)
			break;
		if (rng_unit(&r) >= frac) {
			lost++;
			at = when;
			continue;
		}
		kept++;
		pn -= tm->lazy_w[g];
		at = when + whole;
	}
	assert_true(kept > 20 && lost > 5); /* a test that can fail */
	unsigned long long bulk0 = s->st.hint_faults_bulk, lost0 = s->st.hint_faults_lost;
	user_touch_bulk(s, g, upto);
	assert_int_equal(s->st.hint_faults_bulk - bulk0, kept);
	assert_int_equal(s->st.hint_faults_lost - lost0, lost);
	assert_int_equal(tm->ctr[g], r.ctr);
	assert_invariants(s);
}

static void test_exact_mode_draws_no_bulk(void **state)
{
	struct sim *s = mk(state, slices_exact);
	assert_null(s->w.touch.bulk);
	struct pte_table *t = scan_slice(s, 1);
	user_touch(s, t->group, NSEC_PER_SEC + 100000000);
	assert_int_equal(s->w.touch.nr_bulk, 0);
	assert_int_equal(s->st.hint_faults_bulk, 0);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_teardown(test_local_slice_table_is_pooled_and_its_faults_deferred, testsim_teardown),
		cmocka_unit_test_teardown(test_settle_of_every_page_moves_the_stream_as_drawing_does, testsim_teardown),
		cmocka_unit_test_teardown(test_misplaced_page_keeps_table_exact, testsim_teardown),
		cmocka_unit_test_teardown(test_page_last_faulted_by_another_task_keeps_table_exact, testsim_teardown),
		cmocka_unit_test_teardown(test_large_folio_keeps_table_exact, testsim_teardown),
		cmocka_unit_test_teardown(test_exact_mode_pools_nothing, testsim_teardown),
		cmocka_unit_test_teardown(test_pooled_slice_goes_to_bulk_and_its_faults_add_up, testsim_teardown),
		cmocka_unit_test_teardown(test_bulk_count_follows_the_pages_rate, testsim_teardown),
		cmocka_unit_test(test_a_held_table_faults_again_when_the_hold_ends),
		cmocka_unit_test_teardown(test_bulk_ends_when_a_path_looks_at_its_table, testsim_teardown),
		cmocka_unit_test_teardown(test_bulk_ends_when_the_owner_enters_the_kernel, testsim_teardown),
		cmocka_unit_test_teardown(test_bulk_ends_before_the_owner_leaves_its_cpu, testsim_teardown),
		cmocka_unit_test_teardown(test_bulk_stops_when_the_next_fault_would_act, testsim_teardown),
		cmocka_unit_test_teardown(test_cold_slice_bulk_is_the_draws_one_by_one, testsim_teardown),
		cmocka_unit_test_teardown(test_exact_mode_draws_no_bulk, testsim_teardown),
	};
	return cmocka_run_group_tests_name("pool", tests, NULL, NULL);
}
