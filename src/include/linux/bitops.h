/* Bit operations, after include/linux/bitops.h and lib/find_bit.c.
 *
 * The touch model picks a page with find_nth_bit on every hint fault.  Where
 * the build targets them (the Makefile's ISA_FLAGS: -mpopcnt -mbmi2 when
 * the build machine has them), popcount is one instruction and the select
 * is pdep + tzcnt; otherwise the broadword versions below run.  Both give
 * the same answer for every input (tests/unit/test_bitops.c compares them),
 * so results do not depend on the build. */
#ifndef NUMASIM_BITOPS_H
#define NUMASIM_BITOPS_H

#include <stdbool.h>
#include <stdint.h>
#if defined(__BMI2__)
#include <immintrin.h>
#endif

static inline unsigned hweight64_soft(uint64_t x)
{
	x -= (x >> 1) & 0x5555555555555555ull;
	x = (x & 0x3333333333333333ull) + ((x >> 2) & 0x3333333333333333ull);
	x = (x + (x >> 4)) & 0x0f0f0f0f0f0f0f0full;
	return (unsigned)((x * 0x0101010101010101ull) >> 56);
}

/* The position of the n-th (0-based) set bit of @x, which has more than n:
 * byte popcounts and their running sums find the byte, then at most seven
 * bits are cleared in it. */
static inline unsigned select64_soft(uint64_t x, unsigned n)
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

static inline unsigned hweight64(uint64_t x)
{
#if defined(__POPCNT__)
	return (unsigned)__builtin_popcountll(x);
#else
	return hweight64_soft(x);
#endif
}

static inline unsigned select64(uint64_t x, unsigned n)
{
#if defined(__BMI2__)
	/* deposit bit n of a one-hot word onto x's set bits */
	return (unsigned)__builtin_ctzll(_pdep_u64(1ull << n, x));
#else
	return select64_soft(x, n);
#endif
}

/* find_nth_bit: the index of the n-th (0-based) set bit in the first
 * @size bits of @addr (a multiple of 64), or @size if there are fewer.
 * Every word is counted, without an early exit: which word holds the bit
 * is a coin flip that a loop exit would mispredict on nearly every call
 * (a hint fault's pick among a table's 8 words); selects keep the count
 * of the words before it. */
static inline unsigned find_nth_bit(const uint64_t *addr, unsigned size, unsigned n)
{
	unsigned words = size / 64, word = 0, before = 0, seen = 0;
#pragma GCC unroll 8 /* a page table's bitmap: 8 words, no loop left */
	for (unsigned i = 0; i < words; i++) {
		seen += hweight64(addr[i]);
		bool past = seen <= n; /* the bit lies beyond word i */
		word += past;
		before = past ? seen : before;
	}
	if (word == words)
		return size;
	return word * 64 + select64(addr[word], n - before);
}

/* Single bits of a bitmap of 64-bit words (the non-atomic __set_bit and
 * friends: the model has one thread). */
static inline void __set_bit(uint64_t nr, uint64_t *addr)
{
	addr[nr / 64] |= 1ull << (nr % 64);
}
static inline void __clear_bit(uint64_t nr, uint64_t *addr)
{
	addr[nr / 64] &= ~(1ull << (nr % 64));
}
static inline bool test_bit(uint64_t nr, const uint64_t *addr)
{
	return (addr[nr / 64] >> (nr % 64)) & 1;
}

/* find_next_bit: the first set bit of @addr at or after @offset and below
 * @size, or @size if there is none.  Whole zero words are skipped. */
static inline uint64_t find_next_bit(const uint64_t *addr, uint64_t size, uint64_t offset)
{
	if (offset >= size)
		return size;
	uint64_t i = offset / 64;
	uint64_t w = addr[i] & (~0ull << (offset % 64));
	while (!w) {
		if (++i * 64 >= size)
			return size;
		w = addr[i];
	}
	uint64_t bit = i * 64 + (uint64_t)__builtin_ctzll(w);
	return bit < size ? bit : size;
}

#endif
