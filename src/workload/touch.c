/* The touch model (see touch.h): groups, their sum trees of PROT_NONE
 * counts and the faults pending in them, and their Poisson draws. */
#include "workload/touch.h"

#include <stdlib.h>
#include <string.h>

#include "linux/mmdebug.h"
#include "sim/engine.h"
#include "sim/rng.h"

int touch_init(struct touch_model *tm, struct engine *e, uint32_t nr_groups, uint32_t nr_slices,
	       uint32_t nr_tables, const uint32_t *table_group, uint32_t *rank, uint64_t seed)
{
	size_t n = nr_groups;
	tm->e = e;
	tm->nr_groups = nr_groups;
	tm->nr_slices = nr_slices;
	tm->timer = calloc(n, sizeof(uint32_t));
	tm->owner_cpu = calloc(nr_slices ? nr_slices : 1, sizeof(int32_t));
	tm->grp_first = calloc(n, sizeof(uint32_t));
	tm->grp_count = calloc(n, sizeof(uint32_t));
	tm->pn_hot = calloc(n, sizeof(uint64_t));
	tm->pn_cold = calloc(n, sizeof(uint64_t));
	tm->ctr = calloc(n, sizeof(uint64_t));
	tm->key = malloc(n * sizeof(uint64_t));
	tm->rate = calloc(2 * n, sizeof(double));
	tm->grp_tables = malloc(sizeof(uint32_t) * (nr_tables ? nr_tables : 1));
	tm->seg_first = calloc(n ? n : 1, sizeof(uint32_t));
	tm->seg_leaves = calloc(n ? n : 1, sizeof(uint32_t));
	uint32_t *fill = calloc(n ? n : 1, sizeof(uint32_t));
	if (!tm->timer || !tm->owner_cpu || !tm->grp_first || !tm->grp_count || !tm->pn_hot ||
	    !tm->pn_cold || !tm->ctr || !tm->key || !tm->rate || !tm->grp_tables || !tm->seg_first ||
	    !tm->seg_leaves || !fill) {
		free(fill);
		return -1;
	}
	for (uint32_t g = 0; g < nr_groups; g++) /* each group's stream, keyed once */
		tm->key[g] = rng_stream(seed, RNG_THREAD, g).key;
	for (uint32_t id = 0; id < nr_tables; id++)
		tm->grp_count[table_group[id]]++;
	for (uint32_t g = 1; g < nr_groups; g++)
		tm->grp_first[g] = tm->grp_first[g - 1] + tm->grp_count[g - 1];
	/* each group's trees: 2 x leaves nodes (node 0 unused) */
	size_t nodes = 0;
	for (uint32_t g = 0; g < nr_groups; g++) {
		uint32_t leaves = 1;
		while (leaves < tm->grp_count[g])
			leaves *= 2;
		tm->seg_leaves[g] = leaves;
		tm->seg_first[g] = (uint32_t)nodes;
		nodes += 2 * (size_t)leaves;
	}
	tm->nr_nodes = nodes;
	tm->seg_hot = calloc(nodes ? nodes : 1, sizeof(uint64_t));
	tm->seg_cold = calloc(nodes ? nodes : 1, sizeof(uint64_t));
	if (!tm->seg_hot || !tm->seg_cold) {
		free(fill);
		return -1;
	}
	for (uint32_t id = 0; id < nr_tables; id++) {
		uint32_t g = table_group[id];
		rank[id] = ++fill[g];
		tm->grp_tables[tm->grp_first[g] + rank[id] - 1] = id;
	}
	free(fill);
	return 0;
}

void touch_free(struct touch_model *tm)
{
	free(tm->timer);
	free(tm->owner_cpu);
	free(tm->grp_first);
	free(tm->grp_count);
	free(tm->grp_tables);
	free(tm->seg_first);
	free(tm->seg_leaves);
	free(tm->seg_hot);
	free(tm->seg_cold);
	free(tm->pend_hot);
	free(tm->pend_cold);
	free(tm->nr_pend);
	free(tm->lazy_w);
	free(tm->held_rank);
	free(tm->held_until);
	free(tm->held_other);
	free(tm->pn_hot);
	free(tm->pn_cold);
	free(tm->ctr);
	free(tm->key);
	free(tm->rate);
	free(tm->pool);
	free(tm->pool_w);
	free(tm->pool_tables);
	free(tm->pool_nid);
	free(tm->bulk);
	free(tm->bulk_from);
	struct engine *e = tm->e;
	memset(tm, 0, sizeof(*tm)); /* safe to free again */
	tm->e = e;
}

int touch_pool_init(struct touch_model *tm, uint32_t nr_tables, uint64_t seed)
{
	size_t n = tm->nr_slices ? tm->nr_slices : 1;
	tm->pool = calloc(nr_tables ? nr_tables : 1, sizeof(*tm->pool));
	tm->pool_key = rng_stream(seed, RNG_POOL, 0).key;
	tm->pool_ctr = 0;
	tm->pool_w = calloc(2 * n, sizeof(uint64_t));
	tm->pool_tables = calloc(n, sizeof(uint32_t));
	tm->pool_nid = malloc(n * sizeof(int16_t));
	tm->bulk = calloc(n, 1);
	tm->bulk_from = calloc(n, sizeof(uint64_t));
	tm->nr_bulk = 0;
	tm->pend_hot = calloc(tm->nr_nodes ? tm->nr_nodes : 1, sizeof(uint32_t));
	tm->pend_cold = calloc(tm->nr_nodes ? tm->nr_nodes : 1, sizeof(uint32_t));
	tm->nr_pend = calloc(2 * n, sizeof(uint32_t));
	tm->lazy_w = calloc(n, sizeof(uint32_t));
	tm->held_rank = calloc(tm->nr_groups ? tm->nr_groups : 1, sizeof(uint32_t));
	tm->held_until = calloc(tm->nr_groups ? tm->nr_groups : 1, sizeof(uint64_t));
	tm->held_other = calloc(tm->nr_groups ? tm->nr_groups : 1, sizeof(uint64_t));
	if (!tm->pool || !tm->pool_w || !tm->pool_tables || !tm->pool_nid || !tm->bulk ||
	    !tm->bulk_from || !tm->pend_hot || !tm->pend_cold || !tm->nr_pend || !tm->lazy_w ||
	    !tm->held_rank || !tm->held_until || !tm->held_other)
		return -1;
	for (size_t g = 0; g < n; g++)
		tm->pool_nid[g] = POOL_NID_NONE;
	return 0;
}

void touch_rearm(struct touch_model *tm, uint32_t g, uint64_t base)
{
	struct engine *e = tm->e;
	VM_BUG_ON(touch_in_bulk(tm, g)); /* its faults would be drawn twice */
	uint64_t when = touch_draw(tm, g, base);
	if (when)
		timerq_set(&e->q, tm->timer[g], when);
	else
		timerq_cancel(&e->q, tm->timer[g]);
}

void touch_changed(struct touch_model *tm, uint32_t g)
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
	touch_rearm(tm, g, base);
}

/* ---- faults without a table yet (docs/model.md 3.3c) ---------------------- */

static inline uint32_t *pend_of(struct touch_model *tm, uint32_t g, bool hot)
{
	return (hot ? tm->pend_hot : tm->pend_cold) + tm->seg_first[g];
}

static inline uint64_t *tree_of(struct touch_model *tm, uint32_t g, bool hot)
{
	return (hot ? tm->seg_hot : tm->seg_cold) + tm->seg_first[g];
}

/* @x faults go down to node @v of slice @g: held there if it is inside
 * the tree, counted in its table's pool if it is a leaf. */
static void pend_give(struct touch_model *tm, uint32_t g, bool hot, uint32_t v, uint32_t x)
{
	uint32_t leaves = tm->seg_leaves[g];
	if (!x)
		return;
	if (v < leaves) {
		pend_of(tm, g, hot)[v] += x;
		return;
	}
	uint32_t id = tm->grp_tables[tm->grp_first[g] + v - leaves];
	VM_BUG_ON(!tm->pool[id].on || v - leaves >= tm->grp_count[g]);
	tm->pool[id].done[hot] = (uint16_t)(tm->pool[id].done[hot] + x);
	tm->nr_pend[2 * g + hot] -= x;
}

/* Node @v's pending faults, split between its children.  They are the
 * faults drawn since anything below @v last changed (every change first
 * empties the nodes above it), each on a page no earlier one took: so
 * together a uniform draw without replacement from the pages the
 * children hold now (their counts are already less the older faults
 * below them) -- a hypergeometric split, in pages of the slice's one
 * weight. */
static void unpend_node(struct touch_model *tm, uint32_t g, bool hot, uint32_t v)
{
	uint32_t *pend = pend_of(tm, g, hot);
	uint32_t n = pend[v];
	if (!n)
		return;
	uint64_t *tree = tree_of(tm, g, hot);
	uint64_t w = tm->lazy_w[g];
	VM_BUG_ON(!w);
	uint64_t left = tree[2 * v] / w, right = tree[2 * v + 1] / w;
	VM_BUG_ON(left + right < n);
	struct rng r = { tm->pool_key, tm->pool_ctr };
	uint32_t x = (uint32_t)rng_hypergeom(&r, left + right, left, n);
	tm->pool_ctr = r.ctr;
	pend[v] = 0;
	tree[2 * v] -= x * w;
	tree[2 * v + 1] -= (n - x) * w;
	pend_give(tm, g, hot, 2 * v, x);
	pend_give(tm, g, hot, 2 * v + 1, n - x);
}

void touch_unpend_path(struct touch_model *tm, uint32_t g, bool hot, uint32_t rank)
{
	uint32_t leaf = tm->seg_leaves[g] + rank - 1;
	for (int shift = __builtin_ctz(tm->seg_leaves[g]); shift > 0; shift--)
		unpend_node(tm, g, hot, leaf >> shift);
}

void touch_unpend_table(struct touch_model *tm, uint32_t g, uint32_t rank)
{
	if (!tm->nr_pend || g >= tm->nr_slices)
		return;
	for (int hot = 0; hot < 2; hot++)
		if (tm->nr_pend[2 * g + hot])
			touch_unpend_path(tm, g, hot, rank);
}

/* The descent of touch_find, splitting the pending faults on its way:
 * the rank of the table holding the @k-th page. */
static uint32_t find_rank_unpend(struct touch_model *tm, uint32_t g, bool hot, uint64_t k,
				 uint64_t *rem)
{
	const uint64_t *tree = tree_of(tm, g, hot);
	uint32_t leaves = tm->seg_leaves[g], v = 1;
	while (v < leaves) {
		unpend_node(tm, g, hot, v);
		uint64_t left = tree[2 * v];
		uint32_t right = k >= left;
		k -= left & -(uint64_t)right;
		v = 2 * v + right;
	}
	*rem = k;
	return v - leaves + 1;
}

uint32_t touch_find_unpend(struct touch_model *tm, uint32_t g, bool hot, uint64_t k, uint64_t *rem)
{
	uint32_t rank = find_rank_unpend(tm, g, hot, k, rem);
	return tm->grp_tables[tm->grp_first[g] + rank - 1];
}

void touch_pend_faults(struct touch_model *tm, uint32_t g, bool hot, uint32_t nr)
{
	uint64_t w = tm->lazy_w[g], d = w * nr;
	tree_of(tm, g, hot)[1] -= d;
	if (hot)
		tm->pn_hot[g] -= d;
	else
		tm->pn_cold[g] -= d;
	tm->pool_w[2 * g + hot] -= d;
	tm->nr_pend[2 * g + hot] += nr;
	pend_give(tm, g, hot, 1, nr); /* a one-table slice: its leaf is the root */
}

uint32_t touch_place_last(struct touch_model *tm, uint32_t g, bool hot)
{
	uint64_t w = tm->lazy_w[g];
	if (tm->seg_leaves[g] == 1) /* one table: counted in its pool already */
		return tm->grp_tables[tm->grp_first[g]];
	/* take it back from the root, then place it as a touch would: after
	 * the older faults there, on a uniform page of those left */
	VM_BUG_ON(!pend_of(tm, g, hot)[1]);
	pend_of(tm, g, hot)[1]--;
	tm->nr_pend[2 * g + hot]--;
	tree_of(tm, g, hot)[1] += w;
	uint64_t *pn = hot ? &tm->pn_hot[g] : &tm->pn_cold[g];
	*pn += w;
	tm->pool_w[2 * g + hot] += w;
	struct rng r = { tm->pool_key, tm->pool_ctr };
	uint64_t k = rng_below(&r, *pn), rem;
	tm->pool_ctr = r.ctr;
	uint32_t rank = find_rank_unpend(tm, g, hot, k, &rem);
	uint32_t id = tm->grp_tables[tm->grp_first[g] + rank - 1];
	touch_pool_fault(tm, id, g, rank, (uint32_t)w, hot);
	return id;
}

/* The table's counts change by @d (weighted) with the nodes above it
 * emptied first: touch_count's order, without the pool's bookkeeping. */
static void table_adjust(struct touch_model *tm, uint32_t g, uint32_t rank, bool hot, uint64_t d)
{
	if (tm->nr_pend[2 * g + hot])
		touch_unpend_path(tm, g, hot, rank);
	uint64_t *tree = tree_of(tm, g, hot);
	for (uint32_t v = tm->seg_leaves[g] + rank - 1; v; v >>= 1)
		tree[v] += d;
	if (hot)
		tm->pn_hot[g] += d;
	else
		tm->pn_cold[g] += d;
}

void touch_hide_table(struct touch_model *tm, uint32_t g, uint32_t rank, uint64_t hidden[2])
{
	for (int hot = 0; hot < 2; hot++) {
		if (tm->nr_pend[2 * g + hot])
			touch_unpend_path(tm, g, hot, rank);
		hidden[hot] = tree_of(tm, g, hot)[tm->seg_leaves[g] + rank - 1];
		if (hidden[hot])
			table_adjust(tm, g, rank, hot, -hidden[hot]);
	}
}

void touch_show_table(struct touch_model *tm, uint32_t g, uint32_t rank, const uint64_t hidden[2])
{
	for (int hot = 0; hot < 2; hot++)
		if (hidden[hot])
			table_adjust(tm, g, rank, hot, hidden[hot]);
}
