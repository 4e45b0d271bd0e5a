/* kswapd and demotion (mm/vmscan.c): see there. */
#ifndef NUMASIM_VMSCAN_H
#define NUMASIM_VMSCAN_H

#include <stdint.h>

struct sim;
struct migrate_ctx;

/* Timer ids [first, first + n): one kswapd per node, on machines with a
 * slow tier (none elsewhere: without swap there is nothing to reclaim). */
uint32_t vmscan_nr_timers(const struct sim *s);
int vmscan_init(struct sim *s, uint32_t timer_first);
void vmscan_free(struct sim *s);
void vmscan_timer(struct sim *s, uint32_t id, uint64_t now);
/* Wake node @nid's kswapd at @now and run its balance_pgdat to the end at
 * once, in its context (tests); returns the pages it demoted. */
unsigned long kswapd_run_sync(struct sim *s, int nid, uint64_t now);
/* kswapd's demote lists between their unmap and move, for the invariant
 * checker: up to @max into @ctx; returns how many. */
int vmscan_migrations_in_flight(const struct sim *s, const struct migrate_ctx **ctx, int max);

#endif
