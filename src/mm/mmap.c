/* VMA lookup, after mm/mmap.c.  The model's VMAs are an array sorted by
 * address (the kernel's maple tree), fixed for the run. */
#include "linux/mm.h"

struct vm_area_struct *find_vma(struct mm_struct *mm, uint64_t addr)
{
	int lo = 0, hi = mm->nr_vmas - 1;
	while (lo <= hi) {
		int mid = (lo + hi) / 2;
		struct vm_area_struct *v = &mm->vmas[mid];
		if (addr < v->vm_start)
			hi = mid - 1;
		else if (addr >= v->vm_end)
			lo = mid + 1;
		else
			return v;
	}
	return NULL;
}
