/* Zeroed allocations for the per-page arrays (hundreds of MB): anonymous
 * mappings the kernel may back with transparent huge pages, so building a
 * 120 GiB workload takes thousands of page faults rather than ~75,000 and
 * the simulator's own random accesses miss its TLB less. */
#ifndef NUMASIM_BIGALLOC_H
#define NUMASIM_BIGALLOC_H

#include <stddef.h>

void *big_zalloc(size_t bytes);
/* big_zalloc for an array written sparsely, an entry here and there (a PTE
 * table's struct, written when a path first reaches the table): no huge
 * pages, so that one entry costs a 4 KiB page, not 2 MiB. */
void *big_zalloc_sparse(size_t bytes);
/* Free what either gave. */
void big_free(void *p, size_t bytes);

/* calloc for arrays of a type with _Alignas(64) members (struct cpu_state,
 * struct task_struct and what embeds one): calloc promises 16 bytes only.
 * NULL if n * size overflows or memory is short; free() frees it. */
void *zalloc_aligned64(size_t n, size_t size);

#endif
