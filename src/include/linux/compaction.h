/* Memory compaction (mm/compaction.c): /proc/sys/vm/compact_memory, kcompactd
 * and direct compaction, over the model's free-block counts. */
#ifndef NUMASIM_COMPACTION_H
#define NUMASIM_COMPACTION_H

#include <stdbool.h>
#include <stdint.h>

struct sim;

/* COMPACT_CLUSTER_MAX: pages isolated for one migrate_pages call. */
#define COMPACT_CLUSTER_MAX 32
/* sysctl_extfrag_threshold: at or below, a failure is lack of memory. */
#define EXTFRAG_THRESHOLD 500

int compaction_init(struct sim *s);
void compaction_free_state(struct sim *s);
/* Arm the forced compact_memory runs (if the scenario asks) at time 0. */
void compaction_start(struct sim *s);
/* Timer ids [first, first + n) belong to compaction. */
uint32_t compaction_nr_timers(const struct sim *s);
void compaction_timer(struct sim *s, uint32_t id, uint64_t now);

/* __fragmentation_index for an allocation of @order on @nid: -1000 if it
 * would succeed, towards 0 for lack of memory, towards 1000 for
 * fragmentation. */
int fragmentation_index(const struct sim *s, int nid, unsigned order);
/* compaction_suitable: is there anything compaction of @nid could do for
 * @order? */
bool compaction_suitable(const struct sim *s, int nid, unsigned order);
/* wakeup_kcompactd: an allocation of @order failed on @nid. */
void wakeup_kcompactd(struct sim *s, int nid, unsigned order);
/* The compactors' migrations between their unmap and move halves, for the
 * invariant checker: up to @max contexts into @ctx; returns how many. */
struct migrate_ctx;
int compaction_migrations_in_flight(const struct sim *s, const struct migrate_ctx **ctx, int max);
/* Direct compaction for a first-touch allocation of @order (set-up). */
void try_to_compact_pages(struct sim *s, int nid, unsigned order, int cpu);

/* compact_node(nid) for compact_memory, all its steps at once in the
 * writer's context from @now (tests); returns the pages it migrated. */
unsigned long compact_node_sync(struct sim *s, int nid, uint64_t now);

/* migrate_pages' callbacks when the reason is MR_COMPACTION: the
 * destination comes from the node's scattered free pages, the source is
 * freed into the pageblock being emptied. */
bool compaction_alloc(struct sim *s, int nid, unsigned order);
void compaction_free(struct sim *s, int nid, unsigned order);
void compaction_free_source(struct sim *s, int nid, unsigned order);

/* Consistency of the model's memory state (free counts, mappings,
 * bitmaps); false with a message in @err.  NUMASIM_CHECK=1 runs it at the
 * end of every run. */
bool mm_check_invariants(const struct sim *s, char *err, unsigned long errlen);

#endif
