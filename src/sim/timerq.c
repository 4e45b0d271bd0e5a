#include "sim/timerq.h"

#include <stdio.h>
#include <stdlib.h>

int timerq_init(struct timerq *q, uint32_t nr_ids)
{
	uint32_t n = nr_ids ? nr_ids : 1;
	/* each bucket may hold every timer; a bucket's slots are touched only
	 * as far as it fills, so the memory used follows the timers armed */
	q->slots = malloc(sizeof(struct timerq_slot) * TIMERQ_BUCKETS * (size_t)n);
	q->pos = malloc(sizeof(uint32_t) * n);
	q->bucket = malloc(n);
	q->when = calloc(n, sizeof(uint64_t));
	if (!q->slots || !q->pos || !q->bucket || !q->when) {
		timerq_free(q);
		return -1;
	}
	for (uint32_t i = 0; i < n; i++)
		q->bucket[i] = TIMERQ_BUCKETS;
	for (int b = 0; b < TIMERQ_BUCKETS; b++) {
		q->slot[b] = q->slots + (size_t)b * n;
		q->size[b] = 0;
	}
	q->nonempty = 0;
	q->last = 0;
	q->cap = n;
	q->count = 0;
#ifdef CONFIG_DEBUG_VM
	q->last_when = 0;
	q->same_instant = 0;
#endif
	return 0;
}

void timerq_free(struct timerq *q)
{
	free(q->slots);
	free(q->pos);
	free(q->bucket);
	free(q->when);
	q->slots = NULL;
	q->pos = NULL;
	q->bucket = NULL;
	q->when = NULL;
}

/* The bucket of a timer due at @when: the bit length of when XOR last, or
 * 0 for one due at or before the last time popped. */
static inline unsigned bucket_of(const struct timerq *q, uint64_t when)
{
	return when > q->last ? 64u - (unsigned)__builtin_clzll(when ^ q->last) : 0u;
}

/* (time, id) order. */
static inline bool before(struct timerq_slot a, struct timerq_slot b)
{
	return a.when < b.when || (a.when == b.when && a.id < b.id);
}

static inline void put(struct timerq *q, unsigned b, uint32_t i, struct timerq_slot e)
{
	q->slot[b][i] = e;
	q->pos[e.id] = i;
}

/* Append to bucket @b > 0 (its slots are in no order). */
static inline void append(struct timerq *q, unsigned b, struct timerq_slot e)
{
	put(q, b, q->size[b]++, e);
	q->bucket[e.id] = (uint8_t)b;
	q->nonempty |= 1ull << (b - 1);
}

/* Bucket 0 is kept in descending (time, id) order, so that a pop takes its
 * last slot: a batch of timers due at one time (the tasks' ticks) comes
 * out in id order without a scan per pop.  Entries arrive there one at a
 * time (armed at or before the last time popped) or from a bucket handed
 * down (sort0). */
static void insert0(struct timerq *q, struct timerq_slot e)
{
	struct timerq_slot *s = q->slot[0];
	uint32_t i = q->size[0]++;
	for (; i > 0 && before(s[i - 1], e); i--)
		put(q, 0, i, s[i - 1]);
	put(q, 0, i, e);
	q->bucket[e.id] = 0;
}

static void remove_at(struct timerq *q, unsigned b, uint32_t i)
{
	struct timerq_slot *s = q->slot[b];
	uint32_t last = --q->size[b];
	if (b == 0) {
		for (; i < last; i++) /* keep the order */
			put(q, 0, i, s[i + 1]);
		return;
	}
	if (i != last)
		put(q, b, i, s[last]);
	if (!last)
		q->nonempty &= ~(1ull << (b - 1));
}

/* Re-arming an armed timer, or arming one at or before the last time
 * popped: out of line, so that the common case below saves no registers. */
__attribute__((noinline)) static void set_slow(struct timerq *q, uint32_t id, uint64_t when,
					      unsigned b, unsigned old)
{
	if (old == b && b) { /* a bucket above 0 is in no order */
		q->slot[b][q->pos[id]].when = when;
		return;
	}
	if (old != TIMERQ_BUCKETS)
		remove_at(q, old, q->pos[id]);
	else
		q->count++;
	struct timerq_slot e = { .when = when, .id = id };
	if (b)
		append(q, b, e);
	else
		insert0(q, e);
}

#ifdef CONFIG_DEBUG_VM
/* VM_BUG_ON for the engine (which calls nothing above it): timers may fire
 * at one instant many times over (a task's next step, kcompactd's next
 * block), but a queue that pops TIMERQ_STUCK timers without time moving on
 * is a timer re-arming itself at the instant it fired, for ever. Every
 * period comes from time_ns() and is at least 1 ns (the scenario's check),
 * so no input should reach this: it states the rule. */
#define TIMERQ_STUCK (1u << 24)

static _Noreturn void stuck_bug(uint32_t id, uint64_t when)
{
	fprintf(stderr, "numasim: BUG: %u timers fired at %llu ns without time moving on "
		"(the last: timer %u): a timer re-arms at the instant it fires\n",
		TIMERQ_STUCK, (unsigned long long)when, (unsigned)id);
	abort();
}
#endif

void timerq_set(struct timerq *q, uint32_t id, uint64_t when)
{
	unsigned b = bucket_of(q, when);
	unsigned old = q->bucket[id];
	q->when[id] = when;
	if (__builtin_expect(old == TIMERQ_BUCKETS && b, 1)) {
		/* an idle timer armed ahead: most often the one just popped */
		struct timerq_slot e = { .when = when, .id = id };
		q->count++;
		append(q, b, e);
		return;
	}
	set_slow(q, id, when, b, old);
}

void timerq_cancel(struct timerq *q, uint32_t id)
{
	if (!timerq_armed(q, id))
		return;
	remove_at(q, q->bucket[id], q->pos[id]);
	q->bucket[id] = TIMERQ_BUCKETS;
	q->count--;
}

static int cmp_desc(const void *a, const void *b)
{
	const struct timerq_slot *x = a, *y = b;
	return before(*x, *y) ? 1 : before(*y, *x) ? -1 : 0;
}

/* Bucket 0 is empty: the lowest non-empty bucket's earliest time becomes
 * the last, and its timers go down (each to a lower bucket, the earliest
 * ones to bucket 0, sorted there). */
static void redistribute(struct timerq *q)
{
	unsigned b = (unsigned)__builtin_ctzll(q->nonempty) + 1;
	struct timerq_slot *s = q->slot[b], *s0 = q->slot[0];
	uint32_t n = q->size[b];
	uint64_t min = s[0].when;
	for (uint32_t i = 1; i < n; i++)
		min = s[i].when < min ? s[i].when : min;
	q->last = min;
	q->size[b] = 0;
	q->nonempty &= ~(1ull << (b - 1));
	for (uint32_t i = 0; i < n; i++) {
		unsigned nb = bucket_of(q, s[i].when);
		if (nb) {
			append(q, nb, s[i]);
		} else {
			s0[q->size[0]++] = s[i];
			q->bucket[s[i].id] = 0;
		}
	}
	uint32_t n0 = q->size[0];
	if (n0 > 1)
		qsort(s0, n0, sizeof(*s0), cmp_desc);
	for (uint32_t i = 0; i < n0; i++)
		q->pos[s0[i].id] = i;
}

static inline void note_fired(struct timerq *q, struct timerq_slot e)
{
#ifdef CONFIG_DEBUG_VM
	if (e.when != q->last_when) {
		q->last_when = e.when;
		q->same_instant = 0;
	} else if (++q->same_instant >= TIMERQ_STUCK) {
		stuck_bug(e.id, e.when);
	}
#else
	(void)q;
	(void)e;
#endif
}

uint32_t timerq_pop(struct timerq *q, uint64_t *when)
{
	if (!q->size[0]) {
		unsigned b = (unsigned)__builtin_ctzll(q->nonempty) + 1;
		if (q->size[b] == 1) {
			/* one timer: it is the earliest, and becomes the last */
			struct timerq_slot e = q->slot[b][0];
			q->size[b] = 0;
			q->nonempty &= ~(1ull << (b - 1));
			q->last = e.when;
			q->bucket[e.id] = TIMERQ_BUCKETS;
			q->count--;
			*when = e.when;
			note_fired(q, e);
			return e.id;
		}
		redistribute(q);
	}
	struct timerq_slot e = q->slot[0][--q->size[0]];
	q->bucket[e.id] = TIMERQ_BUCKETS;
	q->count--;
	*when = e.when;
	note_fired(q, e);
	return e.id;
}
