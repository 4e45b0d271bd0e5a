/* Access distributions: how a thread's touches spread over a region (its
 * private slice, or its process's shared region), after pmbench's patterns
 * (blakecaldwell/pmbench pattern.c): uniform; normal around the middle of
 * the accessed set with a standard deviation in pages; bounded Pareto over
 * the set's pages with shape alpha.  Only the first access_set share of
 * the region is touched.  The density is taken per 2 MiB table: every page
 * of a table gets the table's mean density, as an integer weight (the
 * touch model picks a table in proportion to weight x PROT_NONE pages). */
#ifndef NUMASIM_ACCESS_H
#define NUMASIM_ACCESS_H

#include <stdint.h>

struct workload_params;

enum access_pattern { ACCESS_UNIFORM, ACCESS_NORMAL, ACCESS_PARETO, NR_ACCESS_PATTERNS };
extern const char *const access_pattern_names[NR_ACCESS_PATTERNS];

/* The weight of the pages of table @j of a region of @region_pages pages:
 * 0 if the table is never touched; 1 for a uniform pattern; otherwise the
 * density scaled so the densest table weighs ACCESS_WEIGHT_MAX. */
uint32_t access_table_weight(const struct workload_params *p, uint64_t j, uint64_t region_pages);

#define ACCESS_WEIGHT_MAX (1u << 20)

#endif
