#include "sim/timerq.h"

#include <stdlib.h>

int timerq_init(struct timerq *q, uint32_t nr_ids)
{
	q->heap = malloc(sizeof(uint32_t) * (nr_ids ? nr_ids : 1));
	q->pos = malloc(sizeof(uint32_t) * (nr_ids ? nr_ids : 1));
	q->when = malloc(sizeof(uint64_t) * (nr_ids ? nr_ids : 1));
	if (!q->heap || !q->pos || !q->when) {
		timerq_free(q);
		return -1;
	}
	for (uint32_t i = 0; i < nr_ids; i++)
		q->pos[i] = TIMER_IDLE;
	q->size = 0;
	q->cap = nr_ids;
	return 0;
}

void timerq_free(struct timerq *q)
{
	free(q->heap);
	free(q->pos);
	free(q->when);
	q->heap = q->pos = NULL;
	q->when = NULL;
}

static inline bool before(const struct timerq *q, uint32_t a, uint32_t b)
{
	return q->when[a] < q->when[b] || (q->when[a] == q->when[b] && a < b);
}

static inline void place(struct timerq *q, uint32_t i, uint32_t id)
{
	q->heap[i] = id;
	q->pos[id] = i;
}

static void sift_up(struct timerq *q, uint32_t i)
{
	uint32_t id = q->heap[i];
	while (i > 0) {
		uint32_t parent = (i - 1) / 4;
		if (!before(q, id, q->heap[parent]))
			break;
		place(q, i, q->heap[parent]);
		i = parent;
	}
	place(q, i, id);
}

static void sift_down(struct timerq *q, uint32_t i)
{
	uint32_t id = q->heap[i];
	for (;;) {
		uint32_t first = 4 * i + 1, best = i, best_id = id;
		for (uint32_t c = first; c < first + 4 && c < q->size; c++) {
			if (before(q, q->heap[c], best_id)) {
				best = c;
				best_id = q->heap[c];
			}
		}
		if (best == i)
			break;
		place(q, i, best_id);
		i = best;
	}
	place(q, i, id);
}

void timerq_set(struct timerq *q, uint32_t id, uint64_t when)
{
	uint32_t i = q->pos[id];
	if (i == TIMER_IDLE) {
		q->when[id] = when;
		i = q->size++;
		place(q, i, id);
		sift_up(q, i);
		return;
	}
	uint64_t old = q->when[id];
	q->when[id] = when;
	if (when < old)
		sift_up(q, i);
	else
		sift_down(q, i);
}

void timerq_cancel(struct timerq *q, uint32_t id)
{
	uint32_t i = q->pos[id];
	if (i == TIMER_IDLE)
		return;
	q->pos[id] = TIMER_IDLE;
	uint32_t last = q->heap[--q->size];
	if (i == q->size)
		return;
	place(q, i, last);
	sift_down(q, i);
	sift_up(q, q->pos[last]);
}

uint32_t timerq_pop(struct timerq *q, uint64_t *when)
{
	uint32_t id = q->heap[0];
	*when = q->when[id];
	timerq_cancel(q, id);
	return id;
}
