#include "sim/timerq.h"

#include <stdlib.h>

int timerq_init(struct timerq *q, uint32_t nr_ids)
{
	uint32_t n = nr_ids ? nr_ids : 1;
	q->heap = malloc(sizeof(*q->heap) * n);
	q->pos = malloc(sizeof(uint32_t) * n);
	q->when = calloc(n, sizeof(uint64_t));
	if (!q->heap || !q->pos || !q->when) {
		timerq_free(q);
		return -1;
	}
	for (uint32_t i = 0; i < nr_ids; i++)
		q->pos[i] = TIMER_IDLE;
	q->size = 0;
	q->cap = nr_ids;
	q->held = TIMER_IDLE;
	return 0;
}

void timerq_free(struct timerq *q)
{
	free(q->heap);
	free(q->pos);
	free(q->when);
	q->heap = NULL;
	q->pos = NULL;
	q->when = NULL;
}

static inline bool before(struct timerq_entry a, struct timerq_entry b)
{
	return a.when < b.when || (a.when == b.when && a.id < b.id);
}

static inline void place(struct timerq *q, uint32_t i, struct timerq_entry e)
{
	q->heap[i] = e;
	q->pos[e.id] = i;
}

static void sift_up(struct timerq *q, uint32_t i, struct timerq_entry e)
{
	while (i > 0) {
		uint32_t parent = (i - 1) / 4;
		if (!before(e, q->heap[parent]))
			break;
		place(q, i, q->heap[parent]);
		i = parent;
	}
	place(q, i, e);
}

static void sift_down(struct timerq *q, uint32_t i, struct timerq_entry e)
{
	for (;;) {
		uint32_t first = 4 * i + 1;
		if (first >= q->size)
			break;
		uint32_t last = first + 4 < q->size ? first + 4 : q->size;
		uint32_t best = first;
		for (uint32_t c = first + 1; c < last; c++)
			if (before(q->heap[c], q->heap[best]))
				best = c;
		if (!before(q->heap[best], e))
			break;
		place(q, i, q->heap[best]);
		i = best;
	}
	place(q, i, e);
}

/* Remove the held timer from the root (what a pop used to do at once). */
static void drop_held(struct timerq *q)
{
	q->held = TIMER_IDLE;
	struct timerq_entry last = q->heap[--q->size];
	if (q->size)
		sift_down(q, 0, last);
}

void timerq_set(struct timerq *q, uint32_t id, uint64_t when)
{
	struct timerq_entry e = { when, id };
	q->when[id] = when;
	if (q->held != TIMER_IDLE) {
		if (id == q->held) { /* the popped timer re-armed: in place */
			q->held = TIMER_IDLE;
			sift_down(q, 0, e);
			return;
		}
		drop_held(q);
	}
	uint32_t i = q->pos[id];
	if (i == TIMER_IDLE) {
		sift_up(q, q->size++, e);
		return;
	}
	if (before(e, q->heap[i]))
		sift_up(q, i, e);
	else
		sift_down(q, i, e);
}

void timerq_cancel(struct timerq *q, uint32_t id)
{
	if (q->pos[id] == TIMER_IDLE)
		return; /* the held timer too: it is no longer armed */
	if (q->held != TIMER_IDLE)
		drop_held(q);
	uint32_t i = q->pos[id];
	q->pos[id] = TIMER_IDLE;
	struct timerq_entry last = q->heap[--q->size];
	if (i == q->size)
		return;
	if (i > 0 && before(last, q->heap[(i - 1) / 4]))
		sift_up(q, i, last);
	else
		sift_down(q, i, last);
}

uint32_t timerq_pop(struct timerq *q, uint64_t *when)
{
	if (q->held != TIMER_IDLE)
		drop_held(q);
	struct timerq_entry top = q->heap[0];
	*when = top.when;
	q->pos[top.id] = TIMER_IDLE;
	q->held = top.id; /* stays at the root until the next operation */
	return top.id;
}
