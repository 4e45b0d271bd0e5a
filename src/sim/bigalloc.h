/* Zeroed allocations for the per-page arrays (hundreds of MB): anonymous
 * mappings the kernel may back with transparent huge pages, so building a
 * 120 GiB workload takes thousands of page faults rather than ~75,000 and
 * the simulator's own random accesses miss its TLB less. */
#ifndef NUMASIM_BIGALLOC_H
#define NUMASIM_BIGALLOC_H

#include <stddef.h>

void *big_zalloc(size_t bytes);
void big_free(void *p, size_t bytes);

#endif
