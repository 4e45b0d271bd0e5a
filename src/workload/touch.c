/* The touch model (see touch.h): groups, their Fenwick trees of PROT_NONE
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
	tm->gen = calloc(n, sizeof(uint64_t));
	tm->key = malloc(n * sizeof(uint64_t));
	tm->rate = calloc(2 * n, sizeof(double));
	tm->grp_tables = malloc(sizeof(uint32_t) * (nr_tables ? nr_tables : 1));
	tm->fen_first = calloc(n ? n : 1, sizeof(uint64_t));
	tm->nr_pend = calloc(2 * (n ? n : 1), sizeof(uint32_t));
	uint32_t *fill = calloc(n ? n : 1, sizeof(uint32_t));
	if (!tm->timer || !tm->owner_cpu || !tm->grp_first || !tm->grp_count || !tm->pn_hot ||
	    !tm->pn_cold || !tm->ctr || !tm->gen || !tm->key || !tm->rate || !tm->grp_tables ||
	    !tm->fen_first || !tm->nr_pend || !fill) {
		free(fill);
		return -1;
	}
	for (uint32_t g = 0; g < nr_groups; g++) /* each group's stream, keyed once */
		tm->key[g] = rng_stream(seed, RNG_THREAD, g).key;
	for (uint32_t id = 0; id < nr_tables; id++)
		tm->grp_count[table_group[id]]++;
	for (uint32_t g = 1; g < nr_groups; g++)
		tm->grp_first[g] = tm->grp_first[g - 1] + tm->grp_count[g - 1];
	/* the trees, each padded past its tables (touch_fen_size) */
	uint64_t fen_total = 0;
	for (uint32_t g = 0; g < nr_groups; g++) {
		tm->fen_first[g] = fen_total;
		fen_total += touch_fen_size(tm->grp_count[g]);
	}
	/* zero-filled: only the pads are written now, a group's entries when
	 * its counts change */
	tm->fen_hot = calloc((size_t)(fen_total ? fen_total : 1), sizeof(uint64_t));
	tm->fen_cold = calloc((size_t)(fen_total ? fen_total : 1), sizeof(uint64_t));
	if (!tm->fen_hot || !tm->fen_cold) {
		free(fill);
		return -1;
	}
	for (uint32_t g = 0; g < nr_groups; g++) {
		uint64_t first = tm->fen_first[g];
		for (uint64_t i = (uint64_t)tm->grp_count[g] + 1; i < touch_fen_size(tm->grp_count[g]); i++)
			tm->fen_hot[first + i] = tm->fen_cold[first + i] = TOUCH_FEN_PAD;
	}
	for (uint32_t id = 0; id < nr_tables; id++) {
		uint32_t g = table_group[id], r = ++fill[g];
		if (rank)
			rank[id] = r;
		tm->grp_tables[tm->grp_first[g] + r - 1] = id;
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
	free(tm->fen_hot);
	free(tm->fen_cold);
	free(tm->fen_first);
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
	free(tm->gen);
	free(tm->ahead);
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
	tm->pend_hot = calloc((size_t)nr_tables + tm->nr_groups, sizeof(uint32_t));
	tm->pend_cold = calloc((size_t)nr_tables + tm->nr_groups, sizeof(uint32_t));
	tm->lazy_w = calloc(n, sizeof(uint32_t));
	tm->held_rank = calloc(tm->nr_groups ? tm->nr_groups : 1, sizeof(uint32_t));
	tm->held_until = calloc(tm->nr_groups ? tm->nr_groups : 1, sizeof(uint64_t));
	tm->held_other = calloc(tm->nr_groups ? tm->nr_groups : 1, sizeof(uint64_t));
	if (!tm->pool || !tm->pool_w || !tm->pool_tables || !tm->pool_nid || !tm->bulk ||
	    !tm->bulk_from || !tm->pend_hot || !tm->pend_cold || !tm->lazy_w ||
	    !tm->held_rank || !tm->held_until || !tm->held_other)
		return -1;
	for (size_t g = 0; g < n; g++)
		tm->pool_nid[g] = POOL_NID_NONE;
	return 0;
}

int touch_ahead_init(struct touch_model *tm)
{
	tm->ahead = calloc(tm->nr_groups ? tm->nr_groups : 1, sizeof(*tm->ahead));
	if (!tm->ahead)
		return -1;
	for (uint32_t g = 0; g < tm->nr_groups; g++)
		tm->ahead[g].gen = TOUCH_AHEAD_NONE;
	return 0;
}

void touch_rates_changed(struct touch_model *tm)
{
	if (!tm->ahead) /* nothing is drawn ahead */
		return;
	for (uint32_t g = 0; g < tm->nr_groups; g++)
		tm->gen[g]++;
}

void touch_rearm(struct touch_model *tm, uint32_t g, uint64_t base)
{
	touch_rearm_inline(tm, g, base);
}

void touch_changed(struct touch_model *tm, uint32_t g)
{
	touch_changed_inline(tm, g);
}

/* ---- faults without a table yet (docs/model.md 3.3c) ---------------------- */

static inline uint32_t *pend_of(struct touch_model *tm, uint32_t g, bool hot)
{
	return (hot ? tm->pend_hot : tm->pend_cold) + tm->grp_first[g] + g;
}

static inline uint64_t *pn_of(struct touch_model *tm, uint32_t g, bool hot)
{
	return hot ? &tm->pn_hot[g] : &tm->pn_cold[g];
}

/* The largest power of two <= n: the root's step. */
static inline uint32_t top_step(uint32_t n)
{
	return n ? 1u << (31 - __builtin_clz(n)) : 0;
}

/* @x faults go to node (pos, step) of slice @g's tree -- ranks (pos, pos +
 * 2 step] -- held at its mid; step 0 names the leaf, rank pos + 1, whose
 * share is counted in its table's pool.  A node whose right half holds no
 * table (mid >= the group's tables) has nothing to split: they go on to
 * its left half. */
static void pend_give(struct touch_model *tm, uint32_t g, bool hot, uint32_t pos, uint32_t step,
		      uint32_t x)
{
	uint32_t n = tm->grp_count[g];
	if (!x)
		return;
	for (; step && pos + step >= n; step >>= 1)
		if (pos + step == n) /* its left half's sum is in the tree */
			touch_tree(tm, g, hot)[n] -= (uint64_t)x * tm->lazy_w[g];
	if (step) {
		pend_of(tm, g, hot)[pos + step] += x;
		return;
	}
	VM_BUG_ON(pos >= n);
	uint32_t id = tm->grp_tables[tm->grp_first[g] + pos];
	VM_BUG_ON(!tm->pool[id].on);
	tm->pool[id].done[hot] = (uint16_t)(tm->pool[id].done[hot] + x);
	tm->nr_pend[2 * g + hot] -= x;
}

/* The pending faults of node (pos, step), whose count is @c, split
 * between its halves.  They are the faults drawn since anything below the
 * node last changed (every change first empties the nodes above it), each
 * on a page no earlier one took: so together a uniform draw without
 * replacement from the pages the halves hold now (their counts already
 * less the older faults inside them) -- a hypergeometric split, in pages
 * of the slice's one weight.  Only the left half's sum is in the tree
 * (at mid); the right half's is the node's less it. */
static void unpend_node(struct touch_model *tm, uint32_t g, bool hot, uint32_t pos, uint32_t step,
			uint64_t c)
{
	uint32_t mid = pos + step;
	uint32_t *pend = pend_of(tm, g, hot);
	uint32_t n = pend[mid];
	if (!n)
		return;
	uint64_t *tree = touch_tree(tm, g, hot);
	uint64_t w = tm->lazy_w[g];
	VM_BUG_ON(!w);
	uint64_t left = tree[mid] / w, right = (c + n * w - tree[mid]) / w;
	VM_BUG_ON(left + right < n);
	struct rng r = { tm->pool_key, tm->pool_ctr };
	uint32_t x = (uint32_t)rng_hypergeom(&r, left + right, left, n);
	tm->pool_ctr = r.ctr;
	pend[mid] = 0;
	tree[mid] -= x * w;
	pend_give(tm, g, hot, pos, step >> 1, x);
	pend_give(tm, g, hot, mid, step >> 1, n - x);
}

/* The descent of touch_find by rank (@rank > 0) or by page (@k, with
 * @rank 0), splitting the pending faults on its way: the rank found (and
 * the remainder in *rem). */
static uint32_t descend_unpend(struct touch_model *tm, uint32_t g, bool hot, uint32_t rank,
			       uint64_t k, uint64_t *rem)
{
	const uint64_t *tree = touch_tree(tm, g, hot);
	uint32_t n = tm->grp_count[g], pos = 0;
	uint64_t c = *pn_of(tm, g, hot);
	for (uint32_t step = top_step(n); step; step >>= 1) {
		uint32_t mid = pos + step;
		if (mid > n)
			continue; /* the right half is empty: the node is its left half */
		unpend_node(tm, g, hot, pos, step, c);
		uint64_t left = tree[mid];
		if (rank ? rank > mid : k >= left) {
			pos = mid;
			k -= left;
			c -= left;
		} else {
			c = left;
		}
	}
	if (rem)
		*rem = k;
	return pos + 1;
}

void touch_unpend_path(struct touch_model *tm, uint32_t g, bool hot, uint32_t rank)
{
	descend_unpend(tm, g, hot, rank, 0, NULL);
}

void touch_unpend_table(struct touch_model *tm, uint32_t g, uint32_t rank)
{
	for (int hot = 0; hot < 2; hot++)
		if (tm->nr_pend[2 * g + hot])
			touch_unpend_path(tm, g, hot, rank);
}

uint32_t touch_find_unpend(struct touch_model *tm, uint32_t g, bool hot, uint64_t k, uint64_t *rem)
{
	uint32_t rank = descend_unpend(tm, g, hot, 0, k, rem);
	return tm->grp_tables[tm->grp_first[g] + rank - 1];
}

void touch_pend_faults(struct touch_model *tm, uint32_t g, bool hot, uint32_t nr)
{
	uint64_t d = (uint64_t)tm->lazy_w[g] * nr;
	*pn_of(tm, g, hot) -= d;
	tm->pool_w[2 * g + hot] -= d;
	tm->nr_pend[2 * g + hot] += nr;
	pend_give(tm, g, hot, 0, top_step(tm->grp_count[g]), nr); /* the root */
}

uint32_t touch_place_last(struct touch_model *tm, uint32_t g, bool hot)
{
	uint64_t w = tm->lazy_w[g];
	uint32_t n = tm->grp_count[g], top = top_step(n), mid = top;
	while (mid && mid >= n) /* where pend_give left the root's faults */
		mid >>= 1;
	if (!mid) /* one table: no choice, and counted in its pool already */
		return tm->grp_tables[tm->grp_first[g]];
	/* take it back from there, then place it as a touch would: after the
	 * older faults, on a uniform page of those left */
	uint32_t *held = &pend_of(tm, g, hot)[mid];
	VM_BUG_ON(!*held);
	(*held)--;
	if (top == n) /* it had gone into the root's left half */
		touch_tree(tm, g, hot)[n] += w;
	tm->nr_pend[2 * g + hot]--;
	uint64_t *pn = pn_of(tm, g, hot);
	*pn += w;
	tm->pool_w[2 * g + hot] += w;
	struct rng r = { tm->pool_key, tm->pool_ctr };
	uint64_t k = rng_below(&r, *pn), rem;
	tm->pool_ctr = r.ctr;
	uint32_t rank = descend_unpend(tm, g, hot, 0, k, &rem);
	uint32_t id = tm->grp_tables[tm->grp_first[g] + rank - 1];
	touch_pool_fault(tm, id, g, rank, (uint32_t)w, hot);
	return id;
}

/* The pages of rank (weighted, not faulted), with the nodes above it
 * empty: the difference of two prefix sums (a node inside either prefix
 * is inside one of its pieces). */
static uint64_t leaf_count(struct touch_model *tm, uint32_t g, bool hot, uint32_t rank)
{
	const uint64_t *tree = touch_tree(tm, g, hot);
	uint64_t sum = 0;
	for (uint32_t i = rank; i; i &= i - 1)
		sum += tree[i];
	for (uint32_t i = rank - 1; i; i &= i - 1)
		sum -= tree[i];
	return sum;
}

/* The table leaves the counts, or comes back: touch_count of its pages
 * (the nodes above it emptied first), without the pool's bookkeeping.  A
 * lazy slice's tables all weigh lazy_w. */
void touch_hide_table(struct touch_model *tm, uint32_t g, uint32_t rank, uint64_t hidden[2])
{
	uint32_t w = tm->lazy_w[g];
	for (int hot = 0; hot < 2; hot++) {
		if (tm->nr_pend[2 * g + hot])
			touch_unpend_path(tm, g, hot, rank);
		hidden[hot] = leaf_count(tm, g, hot, rank);
		if (hidden[hot])
			touch_count(tm, g, rank, w, hot, -(int)(hidden[hot] / w));
	}
}

void touch_show_table(struct touch_model *tm, uint32_t g, uint32_t rank, const uint64_t hidden[2])
{
	uint32_t w = tm->lazy_w[g];
	for (int hot = 0; hot < 2; hot++)
		if (hidden[hot])
			touch_count(tm, g, rank, w, hot, (int)(hidden[hot] / w));
}
