/* The touch model (see touch.h): groups, their Fenwick trees of PROT_NONE
 * counts, and their Poisson draws. */
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
	tm->fen_hot = calloc((size_t)nr_tables + n, sizeof(uint64_t));
	tm->fen_cold = calloc((size_t)nr_tables + n, sizeof(uint64_t));
	uint32_t *fill = calloc(n ? n : 1, sizeof(uint32_t));
	if (!tm->timer || !tm->owner_cpu || !tm->grp_first || !tm->grp_count || !tm->pn_hot ||
	    !tm->pn_cold || !tm->ctr || !tm->key || !tm->rate || !tm->grp_tables || !tm->fen_hot ||
	    !tm->fen_cold || !fill) {
		free(fill);
		return -1;
	}
	for (uint32_t g = 0; g < nr_groups; g++) /* each group's stream, keyed once */
		tm->key[g] = rng_stream(seed, RNG_THREAD, g).key;
	for (uint32_t id = 0; id < nr_tables; id++)
		tm->grp_count[table_group[id]]++;
	for (uint32_t g = 1; g < nr_groups; g++)
		tm->grp_first[g] = tm->grp_first[g - 1] + tm->grp_count[g - 1];
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
	free(tm->fen_hot);
	free(tm->fen_cold);
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
	if (!tm->pool || !tm->pool_w || !tm->pool_tables || !tm->pool_nid || !tm->bulk || !tm->bulk_from)
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
