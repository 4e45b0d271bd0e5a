/* Bit operations, after include/linux/bitops.h and lib/find_bit.c. */
#ifndef NUMASIM_BITOPS_H
#define NUMASIM_BITOPS_H

#include <stdint.h>

static inline unsigned hweight64(uint64_t x)
{
	x -= (x >> 1) & 0x5555555555555555ull;
	x = (x & 0x3333333333333333ull) + ((x >> 2) & 0x3333333333333333ull);
	x = (x + (x >> 4)) & 0x0f0f0f0f0f0f0f0full;
	return (unsigned)((x * 0x0101010101010101ull) >> 56);
}

/* The position of the n-th (0-based) set bit of @x, which has more than n:
 * byte popcounts and their running sums find the byte, then at most seven
 * bits are cleared in it. */
static inline unsigned select64(uint64_t x, unsigned n)
{
	uint64_t b = x - ((x >> 1) & 0x5555555555555555ull);
	b = (b & 0x3333333333333333ull) + ((b >> 2) & 0x3333333333333333ull);
	b = (b + (b >> 4)) & 0x0f0f0f0f0f0f0f0full;
	uint64_t sums = b * 0x0101010101010101ull; /* byte k: bits set in bytes 0..k */
	unsigned byte = 0;
	while (byte < 7 && ((sums >> (8 * byte)) & 0xff) <= n)
		byte++;
	if (byte)
		n -= (unsigned)((sums >> (8 * (byte - 1))) & 0xff);
	uint64_t v = (x >> (8 * byte)) & 0xff;
	while (n--)
		v &= v - 1;
	return 8 * byte + (unsigned)__builtin_ctzll(v);
}

/* find_nth_bit: the index of the n-th (0-based) set bit in the first
 * @size bits of @addr (a multiple of 64), or @size if there are fewer. */
static inline unsigned find_nth_bit(const uint64_t *addr, unsigned size, unsigned n)
{
	for (unsigned i = 0; i < size / 64; i++) {
		unsigned c = hweight64(addr[i]);
		if (n < c)
			return i * 64 + select64(addr[i], n);
		n -= c;
	}
	return size;
}

#endif
