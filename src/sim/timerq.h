/* Timer queue: indexed 4-ary min-heaps of timers keyed by (time, id).
 *
 * Every event source in the model (a touch group's next touch of a
 * PROT_NONE page, a thread's next scheduler-tick check, a thread's
 * in-flight kernel work) owns one timer id with at most one pending expiry,
 * so re-arming is an O(log n) update in place and the heap never holds
 * stale entries.  Ties are broken by id, which makes the order of
 * simultaneous events deterministic.  The heaps store the keys inline, so
 * sifting compares without chasing ids.
 *
 * Two heaps: timers marked far (timerq_set_far: armed far ahead and seldom
 * firing, like the tasks' scheduler ticks, which are most of the armed
 * timers) live in the second, so that the first, where nearly every event
 * happens, stays small and shallow.  A pop takes the earlier of the two
 * roots by (time, id): the pop order is that of one queue.
 *
 * Most handlers re-arm the timer that just fired (a touch group's next
 * touch, a task's next step).  So a popped timer stays at its heap's root,
 * no longer armed ("held"), until the next operation: re-arming it then is
 * one sift down from the root, which stops early for a near expiry, where
 * removing the root and inserting anew would cost a sift down and a sift
 * up; any other operation removes it first.  The set of armed (time, id)
 * keys, and so the pop order, is the same either way. */
#ifndef NUMASIM_TIMERQ_H
#define NUMASIM_TIMERQ_H

#include <stdbool.h>
#include <stdint.h>

#define TIMER_IDLE UINT32_MAX

/* id is 64 bits wide (the entry is 16 bytes either way) so that where the
 * compiler has 128-bit integers, (time, id) compares as one number. */
struct timerq_entry {
	uint64_t id;
	uint64_t when;
};

struct timerq_heap {
	struct timerq_entry *heap;
	uint32_t size;       /* entries, the held one included */
};

struct timerq {
	struct timerq_heap h[2]; /* [0]: near timers, [1]: far ones */
	uint8_t *far;            /* far[id]: its heap */
	uint32_t *pos;           /* pos[id] = index in its heap, or TIMER_IDLE */
	uint64_t *when;          /* when[id]: the expiry, also for the last popped */
	uint32_t cap;
	uint32_t held;           /* the popped timer still at its heap's root, or TIMER_IDLE */
};

int timerq_init(struct timerq *q, uint32_t nr_ids);
void timerq_free(struct timerq *q);
/* Put idle timer @id in the far heap (only a matter of speed). */
void timerq_set_far(struct timerq *q, uint32_t id);
void timerq_set_other(struct timerq *q, uint32_t id, uint64_t when);
void timerq_rearm_held(struct timerq *q, uint32_t id, uint64_t when);
/* Arm or re-arm timer @id to expire at @when.  The common case, the timer
 * just popped re-armed by its handler, is told apart here, at the caller. */
static inline void timerq_set(struct timerq *q, uint32_t id, uint64_t when)
{
	if (id == q->held)
		timerq_rearm_held(q, id, when);
	else
		timerq_set_other(q, id, when);
}
void timerq_cancel(struct timerq *q, uint32_t id);
static inline bool timerq_armed(const struct timerq *q, uint32_t id)
{
	return q->pos[id] != TIMER_IDLE;
}
/* Armed timers. */
static inline uint32_t timerq_count(const struct timerq *q)
{
	return q->h[0].size + q->h[1].size - (q->held != TIMER_IDLE);
}
static inline bool timerq_empty(const struct timerq *q) { return timerq_count(q) == 0; }
/* Remove and return the earliest timer; its time goes to *when. */
uint32_t timerq_pop(struct timerq *q, uint64_t *when);

#endif
