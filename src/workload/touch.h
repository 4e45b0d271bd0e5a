/* The touch model: when user code touches a PROT_NONE page, and which.
 *
 * Touches to pages that are not PROT_NONE have no kernel effect, so the
 * model never generates them one by one.  A touch group is a set of pages
 * with one set of touchers: a thread's private slice (one toucher, its
 * owner) or a process's shared region (all its threads).  Touches of one
 * page form a Poisson process, so the group's PROT_NONE pages fault as one
 * Poisson process of the summed rate: the model draws the group's next
 * touch of a PROT_NONE page, then which page and which toucher.  Two
 * Fenwick trees per group (hot and cold pages) over its tables count the
 * PROT_NONE pages, so a touch finds its table in O(log tables); the page
 * within the table is a bitmap select (find_nth_bit).
 *
 * A Fenwick tree is the left halves' sums of a binary tree over the
 * tables: the descent from the root (0, 2 top] (top the largest power of
 * two <= tables) reads, at node (pos, pos + 2 step], its left half's sum at
 * index mid = pos + step -- an index per node.  In the aggregated mode a
 * slice's faults drawn in bulk need not say which table they hit when
 * they happen (docs/model.md 3.3c): a node may hold faults known to be
 * somewhere below it (pend, at its mid), split between its halves -- a
 * hypergeometric draw -- only when something needs a table under it: a
 * path looking at it (workload_pool_settle), a touch finding its table
 * (touch_find), a change of its count (touch_count, and the bulk loop's
 * touch_hide_table / touch_show_table).
 *
 * The mm learns nothing from here; it tells the model what changed:
 * touch_count() for every PTE that became or stopped being PROT_NONE
 * (set_pte_at), touch_changed() once a path is done with a table.  The
 * model arms each group's engine timer; what a touch does when the timer
 * fires is the kernel's business (kernel/sched/user.c).  See docs/model.md
 * section 3.3 for why the process is exact. */
#ifndef NUMASIM_TOUCH_H
#define NUMASIM_TOUCH_H

#include <stdbool.h>
#include <stdint.h>

#include "linux/mmdebug.h" /* VM_BUG_ON */
#include "sim/engine.h"
#include "sim/rng.h"

struct touch_model {
	struct engine *e;
	uint32_t nr_groups;
	uint32_t nr_slices;           /* groups [0, nr_slices) have one toucher */
	uint32_t *timer;              /* [group]: its engine timer id */
	int32_t *owner_cpu;           /* [slice]: the CPU its owner runs on, -1 if off-CPU */
	uint32_t *grp_first;          /* [group]: first slot of its tables in grp_tables */
	uint32_t *grp_count;          /* [group]: number of its tables */
	uint32_t *grp_tables;         /* table ids by group, in address order */
	/* per group a 1-based tree at fen_first[group]: at index i, the
	 * weighted PROT_NONE pages of ranks (i - lowbit(i), i] not faulted,
	 * less the faults pending at nodes inside that range.  Past the
	 * group's n tables up to twice the root's step, TOUCH_FEN_PAD: a
	 * descent's step there is never taken, so touch_find needs no test
	 * against n (touch_fen_size) */
	uint64_t *fen_hot, *fen_cold;
	uint64_t *fen_first;          /* [group]: its tree's offset in fen_hot and fen_cold */
	uint64_t *pn_hot, *pn_cold;   /* [group]: its PROT_NONE pages not yet faulted, weighted */
	uint64_t *ctr;                /* [group]: draws of its random stream */
	/* [group]: bumped by every change of its counts (touch_count) and
	 * rates (touch_rates_changed): whether a pick drawn ahead still
	 * stands (struct touch_ahead) */
	uint64_t *gen;
	struct touch_ahead *ahead;    /* [group] (exact mode; NULL otherwise) */
	uint64_t *key;                /* [group]: its stream's key */
	double *rate;                 /* [group][hot, cold]: touches/ns of one page */
	/* Aggregated private faults (docs/model.md 3.3a; NULL with --exact):
	 * per table id, whether its PROT_NONE pages are pooled, the node they
	 * are all on, and how many of each kind have faulted since -- their
	 * PTEs restored only when a path next looks at the table. */
	struct touch_pool *pool;
	uint64_t pool_key, pool_ctr;  /* the stream that says which pages they were */
	/* Per slice (aggregated mode): its pooled tables' PROT_NONE pages not
	 * yet faulted, weighted as pn_cold/pn_hot ([2 g]: cold, [2 g + 1]:
	 * hot), how many tables it has pooled and the node they are on
	 * (POOL_NID_NONE, POOL_NID_MIXED).  When every PROT_NONE page of a
	 * slice is pooled, on its owner's node, its faults can be drawn in
	 * bulk (docs/model.md 3.3b): bulk[g], with faults applied up to
	 * bulk_from[g]; nr_bulk slices are in bulk. */
	uint64_t *pool_w;
	uint32_t *pool_tables;
	int16_t *pool_nid;
	uint8_t *bulk;
	uint64_t *bulk_from;
	uint32_t nr_bulk;
	/* Faults without a table yet (docs/model.md 3.3c): per tree node,
	 * faults on some PROT_NONE page below it, not yet split between its
	 * halves (pend_hot, pend_cold, laid out as the trees, at the nodes'
	 * mid indexes); per group and kind, their total ([2 g + hot]: 0
	 * but for a slice in the aggregated mode); per slice the one weight of
	 * its tables, 0 if they differ (the split draws pages, and counts
	 * them in pages; a slice has fewer than 2^32 pages, 16 TiB, so the
	 * counts fit 32 bits); per group, the table whose PTL a path held last,
	 * until when, and until when it held others (ptl_free_at). */
	uint32_t *pend_hot, *pend_cold;
	uint32_t *nr_pend;
	uint32_t *lazy_w;
	uint32_t *held_rank;
	uint64_t *held_until, *held_other;
};

#define POOL_NID_NONE (-1)
#define POOL_NID_MIXED (-2)

struct touch_pool {
	uint16_t done[2];             /* [cold, hot]: faulted, PTE not yet restored */
	uint8_t on;                   /* the table is pooled */
	uint8_t nid;                  /* the node of all its PROT_NONE pages */
};

/* Build the groups of @nr_tables tables, table i belonging to group
 * table_group[i] (tables in address order within a group); each table's
 * 1-based rank in its group goes to rank[i] (unless @rank is NULL).  Every
 * group's stream is keyed from @seed.  Timers and owners are set by the
 * caller. */
int touch_init(struct touch_model *tm, struct engine *e, uint32_t nr_groups, uint32_t nr_slices,
	       uint32_t nr_tables, const uint32_t *table_group, uint32_t *rank, uint64_t seed);
void touch_free(struct touch_model *tm);
/* Aggregated mode: the pool's per-table state for @nr_tables tables. */
int touch_pool_init(struct touch_model *tm, uint32_t nr_tables, uint64_t seed);

/* Whether group @g's faults are being drawn in bulk (docs/model.md 3.3b):
 * nothing but the bulk loop may change its PROT_NONE set or arm its timer
 * then -- a path that would must call workload_table_sync first. */
static inline bool touch_in_bulk(const struct touch_model *tm, uint32_t g)
{
	return tm->nr_bulk && g < tm->nr_slices && tm->bulk[g];
}

/* Group @g's Fenwick tree of @hot pages (1-based). */
static inline uint64_t *touch_tree(struct touch_model *tm, uint32_t g, bool hot)
{
	return (hot ? tm->fen_hot : tm->fen_cold) + tm->fen_first[g];
}

/* The entries past a group's tables: above any count a descent compares
 * (a group's weighted pages are far below 2^63), so never stepped to. */
#define TOUCH_FEN_PAD UINT64_MAX

/* The entries of a tree over @n tables: index 0 and the ranks, then pads
 * up to the last index a descent from the root's step can reach (the sum
 * of the steps, 2 top - 1). */
static inline uint64_t touch_fen_size(uint32_t n)
{
	return n ? 2 * (uint64_t)(1u << (31 - __builtin_clz(n))) : 1;
}

/* Every pending fault above the table at @rank of slice @g's @hot tree
 * goes down, the table's own to its pool count.  Out of line and marked
 * cold: once a slice has been in bulk its count of pending faults may
 * stay above 0 for a long time, but the exact mode never gets here. */
__attribute__((cold)) void touch_unpend_path(struct touch_model *tm, uint32_t g, bool hot,
					    uint32_t rank);

/* A PTE of the table at @rank in group @g became (+1) or stopped being (-1)
 * PROT_NONE.  The table's pages weigh @weight each: the access density of
 * the workload's distribution there (1 for a uniform one), so that a
 * touch picks a table in proportion to weight x PROT_NONE pages. */
static inline void touch_count(struct touch_model *tm, uint32_t g, uint32_t rank,
			       uint32_t weight, bool hot, int delta)
{
	/* faults still above the table were drawn before this change: they
	 * go down first, so that none of them can land on a page it adds */
	if (__builtin_expect(tm->nr_pend[2 * g + hot] != 0, 0))
		touch_unpend_path(tm, g, hot, rank);
	uint64_t *tree = touch_tree(tm, g, hot);
	uint64_t d = (uint64_t)(int64_t)delta * weight;
	uint32_t n = tm->grp_count[g];
	for (uint32_t i = rank; i <= n; i += i & (~i + 1))
		tree[i] += d;
	tm->gen[g]++;
	if (hot)
		tm->pn_hot[g] += d;
	else
		tm->pn_cold[g] += d;
}

/* A hint fault took one PROT_NONE page of pooled table @id (of group @g,
 * at @rank, its pages weighing @weight): the pool's count of faulted
 * pages, the group's pooled weight and the touch model's counts. */
static inline void touch_pool_fault(struct touch_model *tm, uint32_t id, uint32_t g, uint32_t rank,
				    uint32_t weight, bool hot)
{
	tm->pool[id].done[hot]++;
	tm->pool_w[2 * g + hot] -= weight;
	touch_count(tm, g, rank, weight, hot, -1);
}

static inline struct rng group_rng(const struct touch_model *tm, uint32_t g)
{
	struct rng r = { tm->key[g], tm->ctr[g] };
	return r;
}

/* A weighted PROT_NONE count as a double: counts stay far below 2^63, where
 * the signed conversion (one instruction) gives the unsigned one's result. */
static inline double pn_double(uint64_t pn)
{
	return (double)(int64_t)pn;
}

/* The time of the next touch of a group whose PROT_NONE pages are touched
 * at @total per ns, from @base on, drawn from @r; in a run of
 * @duration_ns.  A rate near 0 draws a gap beyond any run (and beyond
 * uint64_t): the touch is parked past the end. */
static inline uint64_t touch_next_at(struct rng *r, double total, uint64_t base, uint64_t duration_ns)
{
	double dt = rng_exp1(r) / total;
	uint64_t when = dt < ns_to_double(duration_ns) ? base + ns_from_double(dt) + 1 : duration_ns + 1;
	return when > duration_ns + 1 ? duration_ns + 1 : when;
}

/* Draw group @g's next touch of a PROT_NONE page from @base on: its time,
 * or 0 if the group has no PROT_NONE page (nothing is drawn then).  Inline,
 * with touch_pick and touch_find: once per hint fault. */
static inline uint64_t touch_draw(struct touch_model *tm, uint32_t g, uint64_t base)
{
	double total = tm->rate[2 * g] * pn_double(tm->pn_hot[g]) +
		       tm->rate[2 * g + 1] * pn_double(tm->pn_cold[g]);
	if (total <= 0)
		return 0;
	struct rng r = group_rng(tm, g);
	uint64_t when = touch_next_at(&r, total, base, tm->e->duration_ns);
	tm->ctr[g] = r.ctr;
	return when;
}

/* touch_draw, and arm the group's timer then (cancel it if nothing). */
void touch_rearm(struct touch_model *tm, uint32_t g, uint64_t base);
static inline __attribute__((always_inline)) void touch_rearm_inline(struct touch_model *tm,
								     uint32_t g, uint64_t base)
{
	struct engine *e = tm->e;
	VM_BUG_ON(touch_in_bulk(tm, g)); /* its faults would be drawn twice */
	uint64_t when = touch_draw(tm, g, base);
	if (when)
		timerq_set(&e->q, tm->timer[g], when);
	else
		timerq_cancel(&e->q, tm->timer[g]);
}
/* A path changed the PROT_NONE set of one of @g's tables: redraw from the
 * event's time -- the group's other PROT_NONE pages stay touchable while
 * the step that made the change runs -- or, for a slice whose owner is in
 * a kernel path, from when it leaves; a slice whose owner is off-CPU is
 * not touched at all. */
void touch_changed(struct touch_model *tm, uint32_t g);
/* touch_changed's body: inline where a hint fault calls it (mm/memory.c),
 * the extern function for everyone else. */
static inline __attribute__((always_inline)) void touch_changed_inline(struct touch_model *tm,
								       uint32_t g)
{
	uint64_t base = tm->e->t0;
	if (g < tm->nr_slices) {
		if (tm->owner_cpu[g] < 0) { /* its owner is not running */
			timerq_cancel(&tm->e->q, tm->timer[g]);
			return;
		}
		uint64_t busy = engine_busy_end(tm->e, tm->owner_cpu[g], base);
		if (busy > base)
			base = busy;
	}
	touch_rearm_inline(tm, g, base);
}

/* What a firing group touches: hot or cold, the k-th of @count (weighted)
 * PROT_NONE pages of that kind, which of its @nr_touchers touchers (0: a slice, whose
 * owner needs no draw), and a uniform variate for thinning by interrupt
 * time. */
struct touch_pick {
	bool hot;
	uint64_t count, k;
	uint64_t toucher;
	double thin;
};
/* touch_pick's draws from @r, for a group whose hot and cold PROT_NONE pages
 * are touched at @wh and @wc per ns and number @pn_hot and @pn_cold
 * (weighted). */
static inline void touch_pick_from(struct rng *r, double wh, double wc, uint64_t pn_hot,
				   uint64_t pn_cold, uint64_t nr_touchers, struct touch_pick *p)
{
	/* u (wh + wc) < wh: never true without a rate on the hot pages
	 * (most workloads have no hot set), whatever u is */
	if (wh > 0) {
		p->hot = rng_unit(r) * (wh + wc) < wh;
	} else {
		p->hot = false;
		rng_skip(r);
	}
	p->count = p->hot ? pn_hot : pn_cold;
	p->k = p->count ? rng_below(r, p->count) : 0;
	p->toucher = nr_touchers ? rng_below(r, nr_touchers) : 0;
	p->thin = rng_unit(r);
}

/* Group @g's pick from stream position @ctr: the position after it. */
static inline uint64_t touch_pick_at(const struct touch_model *tm, uint32_t g, uint64_t ctr,
				     uint64_t nr_touchers, struct touch_pick *p)
{
	struct rng r = { tm->key[g], ctr };
	double wh = tm->rate[2 * g] * pn_double(tm->pn_hot[g]);
	double wc = tm->rate[2 * g + 1] * pn_double(tm->pn_cold[g]);
	touch_pick_from(&r, wh, wc, tm->pn_hot[g], tm->pn_cold[g], nr_touchers, p);
	return r.ctr;
}

static inline void touch_pick(struct touch_model *tm, uint32_t g, uint64_t nr_touchers,
			      struct touch_pick *p)
{
	tm->ctr[g] = touch_pick_at(tm, g, tm->ctr[g], nr_touchers, p);
}

/* The table id holding the group's @k-th (weighted) PROT_NONE page of the
 * kind; the remainder within that table goes to *rem (divided by the
 * table's weight, the rank of the page among its PROT_NONE pages).  With
 * faults pending on the way, touch_find_unpend splits them first. */
__attribute__((cold)) uint32_t touch_find_unpend(struct touch_model *tm, uint32_t g, bool hot,
						uint64_t k, uint64_t *rem);
static inline uint32_t touch_find(struct touch_model *tm, uint32_t g, bool hot, uint64_t k,
				  uint64_t *rem)
{
	if (__builtin_expect(tm->nr_pend[2 * g + hot] != 0, 0))
		return touch_find_unpend(tm, g, hot, k, rem);
	const uint64_t *tree = touch_tree(tm, g, hot);
	uint32_t n = tm->grp_count[g], pos = 0;
	/* Descend from the largest power of two <= n.  Whether a level takes
	 * its step is a data-dependent coin flip, which a branch predicts no
	 * better than chance: it is two selects instead (conditional moves
	 * on x86-64, which the compiler turns back into a branch if left to
	 * itself; masks elsewhere).  A step past the group's tables reads a
	 * pad, above any k: no test against n. */
	for (uint32_t step = n ? 1u << (31 - __builtin_clz(n)) : 0; step; step >>= 1) {
		uint32_t next = pos + step;
		uint64_t v = tree[next]; /* past n, TOUCH_FEN_PAD: not taken */
#if defined(__x86_64__) && defined(__GNUC__)
		uint64_t left = k - v;
		/* if (v <= k) { pos = next; k = left; } */
		__asm__("cmp %[v], %[k]\n\t"
			"cmovae %[next], %[pos]\n\t"
			"cmovae %[left], %[k]"
			: [pos] "+r"(pos), [k] "+r"(k)
			: [v] "r"(v), [next] "r"(next), [left] "r"(left)
			: "cc");
#else
		uint64_t take = -(uint64_t)(v <= k);
		pos += step & (uint32_t)take;
		k -= v & take;
#endif
	}
	*rem = k;
	return tm->grp_tables[tm->grp_first[g] + pos];
}

/* A group's next touch drawn ahead of its time (exact mode).  The touch
 * that fires a group's timer first picks a page (touch_pick, touch_find,
 * and the caller's bit in the table), then reads that page's PTE and
 * struct page: in a big run both are cache misses, and the fault waits
 * for them.  A group's next pick depends only on its stream's position
 * and on its counts and rates, so it can be drawn as soon as its timer is
 * armed -- and its page prefetched then, hundreds of events before it
 * fires.  The pick stands if neither the stream (another re-arm) nor the
 * counts or rates (the group's gen) moved meanwhile; when it fires,
 * touch_ahead_take hands it over and moves the stream past its draws,
 * exactly as touch_pick would have.  Results are the same either way. */
struct touch_ahead {
	uint64_t ctr, ctr_after;      /* the stream's position before and after the pick */
	uint64_t gen;                 /* the group's gen it saw; TOUCH_AHEAD_NONE: none */
	struct touch_pick pick;
	uint64_t rem;                 /* touch_find's remainder in the table */
	uint64_t addr;                /* the caller's: the page's address */
	uint32_t id;                  /* touch_find's table */
};
#define TOUCH_AHEAD_NONE UINT64_MAX /* a gen no group reaches */

/* Exact mode: the per-group picks drawn ahead. */
int touch_ahead_init(struct touch_model *tm);

/* Every group's rates changed: no pick drawn before stands. */
void touch_rates_changed(struct touch_model *tm);

/* Draw group @g's next pick now, from where its stream stands, without
 * moving it, and find its table: the entry, or NULL if the pick has no
 * page or its table cannot be found without splitting pending faults. */
static inline struct touch_ahead *touch_ahead_draw(struct touch_model *tm, uint32_t g,
						   uint64_t nr_touchers)
{
	struct touch_ahead *a = &tm->ahead[g];
	a->ctr = tm->ctr[g];
	a->ctr_after = touch_pick_at(tm, g, a->ctr, nr_touchers, &a->pick);
	if (!a->pick.count || tm->nr_pend[2 * g + a->pick.hot]) {
		a->gen = TOUCH_AHEAD_NONE;
		return NULL;
	}
	a->gen = tm->gen[g];
	a->id = touch_find(tm, g, a->pick.hot, a->pick.k, &a->rem);
	return a;
}

/* The pick drawn ahead for group @g, if it still stands (neither its
 * stream nor its counts or rates moved since): the stream moves past its
 * draws, as touch_pick would have moved it, and the entry is used up. */
static inline const struct touch_ahead *touch_ahead_take(struct touch_model *tm, uint32_t g)
{
	struct touch_ahead *a = &tm->ahead[g];
	if (a->gen != tm->gen[g] || a->ctr != tm->ctr[g])
		return NULL;
	a->gen = TOUCH_AHEAD_NONE;
	tm->ctr[g] = a->ctr_after;
	return a;
}

/* Aggregated mode (docs/model.md 3.3c).  @nr faults of slice @g, each on
 * one of its @hot PROT_NONE pages, drawn in bulk: their tables are left
 * open -- they wait at the root for the next split.  The counts drop at
 * once. */
void touch_pend_faults(struct touch_model *tm, uint32_t g, bool hot, uint32_t nr);
/* The last fault touch_pend_faults left at the root gets its table now (a
 * uniform page among those no earlier fault took), as touch_pool_fault
 * would have counted it: its table id is returned. */
uint32_t touch_place_last(struct touch_model *tm, uint32_t g, bool hot);
/* Every pending fault above the table at @rank of slice @g goes down; the
 * table's own land in its pool counts (touch_pool.done). */
void touch_unpend_table(struct touch_model *tm, uint32_t g, uint32_t rank);
/* Slice @g's table at @rank leaves the counts for a while and comes back
 * (touch_show_table): the faults above it go down first, so none of those
 * drawn meanwhile can land on it.  Its counts go to @hidden ([cold, hot],
 * weighted). */
void touch_hide_table(struct touch_model *tm, uint32_t g, uint32_t rank, uint64_t hidden[2]);
void touch_show_table(struct touch_model *tm, uint32_t g, uint32_t rank, const uint64_t hidden[2]);
/* A path held the PTL of the table at @rank of group @g until @at.  The
 * hold that ends last is kept by table (held_rank, held_until), the others
 * by their latest end only (held_other). */
static inline void touch_ptl_held(struct touch_model *tm, uint32_t g, uint32_t rank, uint64_t at)
{
	if (!tm->held_until)
		return;
	if (tm->held_rank[g] == rank) {
		if (at > tm->held_until[g])
			tm->held_until[g] = at;
	} else if (at >= tm->held_until[g]) {
		if (tm->held_until[g] > tm->held_other[g])
			tm->held_other[g] = tm->held_until[g];
		tm->held_rank[g] = rank;
		tm->held_until[g] = at;
	} else if (at > tm->held_other[g]) {
		tm->held_other[g] = at;
	}
}

#endif
