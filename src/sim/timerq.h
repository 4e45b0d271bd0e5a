/* Timer queue: a radix heap of timers keyed by (time, id).
 *
 * Every event source in the model (a touch group's next touch of a
 * PROT_NONE page, a thread's next scheduler-tick check, a thread's
 * in-flight kernel work) owns one timer id with at most one pending expiry,
 * so re-arming is an update in place and the queue never holds stale
 * entries.  Ties are broken by id, which makes the order of simultaneous
 * events deterministic.
 *
 * Simulated time only moves forward: nearly every timer is armed at or
 * after the last time popped (@last).  A radix heap (Ahuja, Mehlhorn,
 * Orlin and Tarjan, "Faster algorithms for the shortest path problem",
 * J. ACM 37(2), 1990) keeps timer t in bucket b = the bit length of
 * (when(t) XOR last): bucket 0 holds the timers due at @last, bucket b > 0
 * those that agree with @last above bit b - 1 and differ there.  Arming is
 * an append to an array (no comparisons); a pop takes the lowest non-empty
 * bucket, and if that is not bucket 0 it scans it for its earliest time,
 * makes that @last and hands the bucket's timers down to lower buckets --
 * each timer descends at most 64 times in its life, and in the seed run
 * 1.4 times per pop.  Where a heap re-arming the timer that just fired
 * (most events) paid a sift through every level, this pays an append.
 *
 * The queue stays exact when a timer is armed before @last: it goes to
 * bucket 0, where the pop compares whole (time, id) keys, and @last never
 * moves back.  So the pop order is (time, id) order in every case, that of
 * any correct priority queue: results do not depend on this structure. */
#ifndef NUMASIM_TIMERQ_H
#define NUMASIM_TIMERQ_H

#include <stdbool.h>
#include <stdint.h>

#define TIMER_IDLE UINT32_MAX
#define TIMERQ_BUCKETS 65 /* bucket 0, and one per bit of a 64-bit time */

struct timerq_slot {
	uint64_t when;
	uint32_t id;
};

struct timerq {
	struct timerq_slot *slot[TIMERQ_BUCKETS]; /* bucket b's timers: slot[b][0, size[b]) */
	struct timerq_slot *slots; /* their memory: cap slots per bucket */
	uint32_t size[TIMERQ_BUCKETS];
	uint64_t nonempty;       /* bit b - 1 set: bucket b > 0 holds a timer */
	uint64_t last;           /* the latest time popped */
	uint32_t *pos;           /* [id]: its slot in its bucket */
	uint8_t *bucket;         /* [id]: its bucket, or TIMERQ_BUCKETS if idle */
	uint64_t *when;          /* when[id]: the expiry, also for the last popped */
	uint32_t cap;
	uint32_t count;          /* armed timers */
#ifdef CONFIG_DEBUG_VM
	uint64_t last_when;      /* the instant of the last pop, and how many pops */
	uint32_t same_instant;   /* since time last moved on (note_fired) */
#endif
};

int timerq_init(struct timerq *q, uint32_t nr_ids);
void timerq_free(struct timerq *q);
/* Arm or re-arm timer @id to expire at @when. */
void timerq_set(struct timerq *q, uint32_t id, uint64_t when);
void timerq_cancel(struct timerq *q, uint32_t id);
static inline bool timerq_armed(const struct timerq *q, uint32_t id)
{
	return q->bucket[id] != TIMERQ_BUCKETS;
}
/* Armed timers. */
static inline uint32_t timerq_count(const struct timerq *q)
{
	return q->count;
}
static inline bool timerq_empty(const struct timerq *q) { return q->count == 0; }
/* Remove and return the earliest timer; its time goes to *when. */
uint32_t timerq_pop(struct timerq *q, uint64_t *when);

#endif
