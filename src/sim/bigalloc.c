#define _DEFAULT_SOURCE /* MAP_ANONYMOUS, MADV_HUGEPAGE */
#include "sim/bigalloc.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>

#define HUGE (2ul << 20)
#define SMALL_LIMIT (4ul << 20) /* below this, calloc */

void *big_zalloc(size_t bytes)
{
	if (bytes < SMALL_LIMIT)
		return calloc(1, bytes ? bytes : 1);
	/* over-map by 2 MiB so the array can start on a huge-page boundary */
	size_t len = bytes + HUGE;
	uint8_t *raw = mmap(NULL, len, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE,
			    -1, 0);
	if (raw == MAP_FAILED)
		return NULL;
	uintptr_t start = ((uintptr_t)raw + HUGE - 1) & ~(uintptr_t)(HUGE - 1);
	size_t head = start - (uintptr_t)raw;
	if (head)
		munmap(raw, head);
	if (len - head - bytes)
		munmap((uint8_t *)start + bytes, len - head - bytes);
#ifdef MADV_HUGEPAGE
	madvise((void *)start, bytes, MADV_HUGEPAGE); /* a hint: failure is harmless */
#endif
	return (void *)start;
}

void *big_zalloc_sparse(size_t bytes)
{
	if (bytes < SMALL_LIMIT)
		return calloc(1, bytes ? bytes : 1);
	void *p = mmap(NULL, bytes, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE,
		       -1, 0);
	return p == MAP_FAILED ? NULL : p;
}

void big_free(void *p, size_t bytes)
{
	if (!p)
		return;
	if (bytes < SMALL_LIMIT)
		free(p);
	else
		munmap(p, bytes);
}

void *zalloc_aligned64(size_t n, size_t size)
{
	if (size && n > (SIZE_MAX - 63) / size)
		return NULL;
	size_t bytes = (n * size + 63) & ~(size_t)63; /* a multiple of the alignment */
	void *p = aligned_alloc(64, bytes ? bytes : 64);
	if (p)
		memset(p, 0, bytes ? bytes : 64);
	return p;
}
