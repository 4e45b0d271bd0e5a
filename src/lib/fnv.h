/* FNV-1a, 64 bits: the hash of sweep point ids and of the sweep cache's
 * key.  Not cryptographic: it names inputs, it does not defend them. */
#ifndef NUMASIM_FNV_H
#define NUMASIM_FNV_H

#include <stddef.h>
#include <stdint.h>

#define FNV1A64_INIT 0xcbf29ce484222325ull

/* @h (FNV1A64_INIT to start) extended by @len bytes of @data. */
static inline uint64_t fnv1a64(uint64_t h, const void *data, size_t len)
{
	const unsigned char *c = data;
	for (size_t i = 0; i < len; i++) {
		h ^= c[i];
		h *= 0x100000001b3ull;
	}
	return h;
}

#endif
