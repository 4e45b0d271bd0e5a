#include "sim/timerq.h"

#include <stdlib.h>

int timerq_init(struct timerq *q, uint32_t nr_ids)
{
	uint32_t n = nr_ids ? nr_ids : 1;
	q->h[0].heap = malloc(sizeof(struct timerq_entry) * n);
	q->h[1].heap = malloc(sizeof(struct timerq_entry) * n);
	q->far = calloc(n, 1);
	q->pos = malloc(sizeof(uint32_t) * n);
	q->when = calloc(n, sizeof(uint64_t));
	if (!q->h[0].heap || !q->h[1].heap || !q->far || !q->pos || !q->when) {
		timerq_free(q);
		return -1;
	}
	for (uint32_t i = 0; i < nr_ids; i++)
		q->pos[i] = TIMER_IDLE;
	q->h[0].size = q->h[1].size = 0;
	q->cap = nr_ids;
	q->held = TIMER_IDLE;
	return 0;
}

void timerq_free(struct timerq *q)
{
	free(q->h[0].heap);
	free(q->h[1].heap);
	free(q->far);
	free(q->pos);
	free(q->when);
	q->h[0].heap = q->h[1].heap = NULL;
	q->far = NULL;
	q->pos = NULL;
	q->when = NULL;
}

void timerq_set_far(struct timerq *q, uint32_t id)
{
	if (q->pos[id] == TIMER_IDLE && id != q->held)
		q->far[id] = 1;
}

/* (time, id) order.  With 128-bit integers the pair compares as one
 * number, time in the high half: a compare and a subtract with borrow, no
 * branch. */
static inline bool before(struct timerq_entry a, struct timerq_entry b)
{
#ifdef __SIZEOF_INT128__
	__extension__ typedef unsigned __int128 u128;
	return (((u128)a.when << 64) | a.id) < (((u128)b.when << 64) | b.id);
#else
	return (a.when < b.when) | ((a.when == b.when) & (a.id < b.id));
#endif
}

static inline void place(struct timerq *q, struct timerq_heap *h, uint32_t i, struct timerq_entry e)
{
	h->heap[i] = e;
	q->pos[(uint32_t)e.id] = i;
}

static void sift_up(struct timerq *q, struct timerq_heap *h, uint32_t i, struct timerq_entry e)
{
	while (i > 0) {
		uint32_t parent = (i - 1) / 4;
		if (!before(e, h->heap[parent]))
			break;
		place(q, h, i, h->heap[parent]);
		i = parent;
	}
	place(q, h, i, e);
}

/* The earliest child is found by a two-round tournament when all four
 * children exist.  Ids are distinct, so (time, id) keys are totally ordered
 * and the earliest child is the same whatever order the comparisons take.
 * The moving timer is passed as its two words, not as a struct, so that it
 * stays in registers. */
static void sift_down(struct timerq *q, struct timerq_heap *h, uint32_t i, uint64_t id, uint64_t when)
{
	struct timerq_entry *a = h->heap;
	uint32_t *pos = q->pos;
	const uint32_t size = h->size;
	const struct timerq_entry e = { .id = id, .when = when };
	for (;;) {
		uint32_t first = 4 * i + 1;
		uint32_t best;
		if (first + 4 <= size) {
			const struct timerq_entry *c = a + first;
			uint32_t b01 = before(c[1], c[0]);
			uint32_t b23 = 2 + before(c[3], c[2]);
			best = first + (before(c[b23], c[b01]) ? b23 : b01);
		} else {
			if (first >= size)
				break;
			best = first;
			for (uint32_t c = first + 1; c < size; c++)
				if (before(a[c], a[best]))
					best = c;
		}
		if (!before(a[best], e))
			break;
		a[i] = a[best];
		pos[(uint32_t)a[i].id] = i;
		i = best;
	}
	a[i] = e;
	pos[(uint32_t)id] = i;
}

/* Remove the held timer from its heap's root (what a pop used to do at once). */
static void drop_held(struct timerq *q)
{
	struct timerq_heap *h = &q->h[q->far[q->held]];
	q->held = TIMER_IDLE;
	struct timerq_entry last = h->heap[--h->size];
	if (h->size)
		sift_down(q, h, 0, last.id, last.when);
}

/* The popped timer re-armed: in place, one sift down from the root. */
void timerq_rearm_held(struct timerq *q, uint32_t id, uint64_t when)
{
	q->when[id] = when;
	q->held = TIMER_IDLE;
	sift_down(q, &q->h[q->far[id]], 0, id, when);
}

/* Any other timer: the held one, if any, leaves the root first. */
void timerq_set_other(struct timerq *q, uint32_t id, uint64_t when)
{
	struct timerq_entry e = { .id = id, .when = when };
	struct timerq_heap *h = &q->h[q->far[id]];
	q->when[id] = when;
	if (q->held != TIMER_IDLE)
		drop_held(q);
	uint32_t i = q->pos[id];
	if (i == TIMER_IDLE) {
		sift_up(q, h, h->size++, e);
		return;
	}
	if (before(e, h->heap[i]))
		sift_up(q, h, i, e);
	else
		sift_down(q, h, i, id, when);
}

void timerq_cancel(struct timerq *q, uint32_t id)
{
	if (q->pos[id] == TIMER_IDLE)
		return; /* the held timer too: it is no longer armed */
	if (q->held != TIMER_IDLE)
		drop_held(q);
	struct timerq_heap *h = &q->h[q->far[id]];
	uint32_t i = q->pos[id];
	q->pos[id] = TIMER_IDLE;
	struct timerq_entry last = h->heap[--h->size];
	if (i == h->size)
		return;
	if (i > 0 && before(last, h->heap[(i - 1) / 4]))
		sift_up(q, h, i, last);
	else
		sift_down(q, h, i, last.id, last.when);
}

uint32_t timerq_pop(struct timerq *q, uint64_t *when)
{
	if (q->held != TIMER_IDLE)
		drop_held(q);
	/* the earlier root of the two heaps */
	int which = q->h[1].size && (!q->h[0].size || before(q->h[1].heap[0], q->h[0].heap[0]));
	struct timerq_entry top = q->h[which].heap[0];
	*when = top.when;
	q->pos[(uint32_t)top.id] = TIMER_IDLE;
	q->held = (uint32_t)top.id; /* stays at the root until the next operation */
	return (uint32_t)top.id;
}
