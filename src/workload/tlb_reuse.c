/* The entries a thread reuses after a full flush (workload/tlb_reuse.h). */
#include <math.h>
#include <stdbool.h>
#include <stdlib.h>

#include "linux/mm_types.h"
#include "workload/access.h"
#include "workload/tlb_reuse.h"
#include "workload/workload.h"

#define TABLE_PAGES ((uint64_t)PTRS_PER_PTE)

/* Entries resident after T touches (Che's occupancy). */
static double occupancy(const struct reuse_class *c, int n, double t)
{
	double sum = 0;
	for (int i = 0; i < n; i++)
		sum += c[i].pages * -expm1(-c[i].p * t);
	return sum;
}

/* 1 - e^-x (1 + x), without the cancellation of small x. */
static double reused_share(double x)
{
	if (x < 1e-4)
		return x * x / 2 * (1 - 2 * x / 3);
	return -expm1(-x) - x * exp(-x);
}

static int by_p(const void *a, const void *b)
{
	double x = ((const struct reuse_class *)a)->p, y = ((const struct reuse_class *)b)->p;
	return x < y ? -1 : x > y;
}

double tlb_reuse_after_flush(struct reuse_class *c, int n, double tlb_entries)
{
	double all = 0;
	int kept = 0;
	/* classes of equal probability are one class: sort and merge */
	qsort(c, (size_t)n, sizeof(*c), by_p);
	for (int i = 0; i < n; i++) {
		if (!(c[i].p > 0) || !(c[i].pages > 0))
			continue;
		if (kept && c[kept - 1].p == c[i].p)
			c[kept - 1].pages += c[i].pages;
		else
			c[kept++] = c[i];
		all += c[i].pages;
	}
	if (all <= tlb_entries)
		return all; /* it fits: every entry is used again */
	/* the characteristic time: occupancy rises with t from 0 to all */
	double lo = 0, hi = 1;
	while (occupancy(c, kept, hi) < tlb_entries)
		hi *= 2;
	for (int it = 0; it < 80; it++) {
		double mid = (lo + hi) / 2;
		if (occupancy(c, kept, mid) < tlb_entries)
			lo = mid;
		else
			hi = mid;
	}
	double t = (lo + hi) / 2, reused = 0;
	for (int i = 0; i < kept; i++)
		reused += c[i].pages * reused_share(c[i].p * t);
	return reused;
}

/* A region of @pages pages taking @share of the thread's touches: its
 * classes (per table: hot and cold pages, or the whole table as one entry
 * where PMD-mapped) appended at @c. */
static int region_classes(const struct workload_params *p, uint64_t pages, double share,
			  double pmd_share, struct reuse_class *c)
{
	uint64_t tables = (pages + TABLE_PAGES - 1) / TABLE_PAGES;
	double hf = p->hot_fraction, hs = p->hot_access_share;
	/* as workload.c's page_rates: a hot or cold set below one page takes
	 * no touches */
	bool some_hot = (double)pages * hf >= 1, some_cold = (double)pages * (1 - hf) >= 1;
	double wsum = 0;
	for (uint64_t j = 0; j < tables; j++) {
		uint64_t n = pages - j * TABLE_PAGES < TABLE_PAGES ? pages - j * TABLE_PAGES : TABLE_PAGES;
		wsum += (double)access_table_weight(p, j, pages) * (double)n;
	}
	if (!(wsum > 0) || !(share > 0))
		return 0;
	int k = 0;
	for (uint64_t j = 0; j < tables; j++) {
		double n = (double)(pages - j * TABLE_PAGES < TABLE_PAGES ? pages - j * TABLE_PAGES
									   : TABLE_PAGES);
		double w = (double)access_table_weight(p, j, pages);
		if (!(w > 0))
			continue;
		double hot = n * hf, cold = n - hot, flat = 1 - pmd_share;
		if (some_hot)
			c[k++] = (struct reuse_class){ hot * flat, share * hs * w / (wsum * hf) };
		if (some_cold)
			c[k++] = (struct reuse_class){ cold * flat, share * (1 - hs) * w / (wsum * (1 - hf)) };
		if (pmd_share > 0)
			c[k++] = (struct reuse_class){ pmd_share, share * w * n / wsum };
	}
	return k;
}

double workload_tlb_reuse(const struct workload_params *p, uint64_t slice_pages,
			  uint64_t shared_pages, double pmd_share, int tlb_entries)
{
	double to_slice = shared_pages ? (slice_pages ? p->private_access_share : 0) : 1;
	uint64_t tables = (slice_pages + TABLE_PAGES - 1) / TABLE_PAGES +
			  (shared_pages + TABLE_PAGES - 1) / TABLE_PAGES;
	struct reuse_class *c = malloc((size_t)(3 * tables + 1) * sizeof(*c));
	if (!c)
		return -1;
	int n = region_classes(p, slice_pages, to_slice, pmd_share, c);
	n += region_classes(p, shared_pages, 1 - to_slice, pmd_share, c + n);
	double r = tlb_reuse_after_flush(c, n, tlb_entries);
	free(c);
	return r;
}
