/* What a full TLB flush costs a thread: the translations it would have
 * used again.
 *
 * A flush empties the TLB; the thread then misses once on every entry it
 * would have hit, and on nothing else (it would have missed on the rest
 * anyway).  How many that is follows from the TLB's size and the thread's
 * reuse, under two standard approximations: touches are independent draws
 * from the thread's access distribution (the independent reference model)
 * and the TLB keeps what was used in the last T touches, T chosen so that
 * this fills it (Che, Tung and Wang, "Hierarchical Web caching systems:
 * modeling, design and experimental results", IEEE JSAC 20(7), 2002: the
 * characteristic time of an LRU cache).  An entry touched with probability
 * p per touch is then resident with probability 1 - e^(-pT), and the first
 * touch after the flush would have hit if the touch before the flush and
 * the one after lie within T of each other: 1 - e^(-pT)(1 + pT).  Summed
 * over the entries:
 *   - a working set that fits the TLB: T is unbounded, every entry is
 *     reused, the refill is the whole set;
 *   - N uniform pages, N much larger than the E entries: pT ~ E/N, each
 *     entry's term ~ (E/N)^2 / 2, the refill ~ E^2 / 2N: the seed's 77,824
 *     private pages and a 1,536-entry TLB give ~15 entries, 1% of the TLB;
 *   - normal and pareto sets: the dense middle (normal) or head (pareto)
 *     behaves like a small set that fits, the tail like a large uniform one.
 * Left out: the order of a thread's touches (a scan reuses nothing; a loop
 * over a set that fits reuses all), the kernel's own entries, the split
 * between the L1 TLB and the second level, and a refill walk that hits the
 * caches. */
#ifndef NUMASIM_TLB_REUSE_H
#define NUMASIM_TLB_REUSE_H

#include <stdint.h>

struct workload_params;

/* @pages entries (a page, or a huge page), each touched with probability
 * @p per touch. */
struct reuse_class {
	double pages;
	double p;
};

/* The entries a thread reuses after a full flush of a @tlb_entries-entry
 * TLB, its touches spread over @n classes (@c, reordered). */
double tlb_reuse_after_flush(struct reuse_class *c, int n, double tlb_entries);

/* The same for a thread of workload @p whose private slice has
 * @slice_pages pages and whose shared region has @shared_pages, with
 * @pmd_share of the memory mapped by 2 MiB PMDs (one entry per 512
 * pages).  Returns -1 when out of memory. */
double workload_tlb_reuse(const struct workload_params *p, uint64_t slice_pages,
			  uint64_t shared_pages, double pmd_share, int tlb_entries);

#endif
