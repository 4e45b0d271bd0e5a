/* Folio lookups over the folio store (include/linux/mm.h helpers). */
#include "linux/mm_types.h"

struct folio page_folio(struct folio_store *fs, uint64_t idx)
{
	unsigned order = fs->pg[idx].flags >> FOLIO_ORDER_SHIFT;
	struct folio f = { fs, idx & ~((1ull << order) - 1) };
	return f;
}

/* folio_maybe_mapped_shared: may a page of the folio be mapped by more than
 * one process?  The model counts mappings per page, as the old mapcount did. */
bool folio_maybe_mapped_shared(struct folio f)
{
	unsigned long nr = folio_nr_pages(f);
	for (unsigned long i = 0; i < nr; i++)
		if (f.fs->pg[f.idx + i].mapcount > 1)
			return true;
	return false;
}

/* folio_likely_mapped_shared (v6.9; folio_estimated_sharers before): a small
 * folio by its mapcount; a large one by its first page's only, so a folio
 * whose first page is unmapped reads as not shared. */
bool folio_likely_mapped_shared(struct folio f)
{
	return f.fs->pg[f.idx].mapcount > 1;
}
