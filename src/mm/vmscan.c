/* Page reclaim, after mm/vmscan.c (v6.12), as far as memory tiering needs
 * it: kswapd's wake-up.  The model has no swap and no page cache, so the
 * only reclaim it could do is demotion to a slower tier. */
#include "linux/mmzone.h"
#include "kernel/sim.h"

/* wakeup_kswapd: a promotion found node @nid short of room.  Counted; the
 * kswapd that would demote to make room is not modelled yet. */
void wakeup_kswapd(struct sim *s, int nid, unsigned order)
{
	(void)nid;
	(void)order;
	s->kswapd_wakes++;
}
