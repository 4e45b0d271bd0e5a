/* linux/bitops.h: hweight64, select64, find_nth_bit and find_next_bit
 * against a bit-by-bit reference, and the hardware versions (popcnt, pdep:
 * in this build if ISA_FLAGS gave them) against the broadword ones, on
 * fixed-seed words of every density. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>

#include "linux/bitops.h"

static uint64_t rnd(uint64_t *x) /* xorshift64*, fixed seed */
{
	*x ^= *x >> 12;
	*x ^= *x << 25;
	*x ^= *x >> 27;
	return *x * 0x2545F4914F6CDD1Dull;
}

/* A word with about @density of 64 bits set. */
static uint64_t word(uint64_t *x, unsigned density)
{
	uint64_t w = 0;
	for (unsigned b = 0; b < 64; b++)
		if (rnd(x) % 64 < density)
			w |= 1ull << b;
	return w;
}

static unsigned ref_weight(uint64_t w)
{
	unsigned n = 0;
	for (unsigned b = 0; b < 64; b++)
		n += (unsigned)(w >> b) & 1;
	return n;
}

static unsigned ref_select(uint64_t w, unsigned n)
{
	for (unsigned b = 0; b < 64; b++)
		if ((w >> b) & 1 && n-- == 0)
			return b;
	return 64;
}

static void test_words(void **state)
{
	(void)state;
	uint64_t x = 0x9e3779b97f4a7c15ull;
	const uint64_t fixed[] = { 1, 1ull << 63, ~0ull, 0x8000000000000001ull,
				   0x00ff00ff00ff00ffull, 0xf0f0f0f0f0f0f0f0ull };
	for (unsigned i = 0; i < 4000 + 6; i++) {
		uint64_t w = i < 6 ? fixed[i] : word(&x, i % 65);
		unsigned c = ref_weight(w);
		assert_int_equal(hweight64(w), c);
		assert_int_equal(hweight64_soft(w), c);
		for (unsigned n = 0; n < c; n++) {
			unsigned want = ref_select(w, n);
			assert_int_equal(select64(w, n), want);
			assert_int_equal(select64_soft(w, n), want);
		}
	}
	assert_int_equal(hweight64(0), 0);
}

static void test_find_nth_bit(void **state)
{
	(void)state;
	uint64_t x = 12345;
	uint64_t map[8];
	for (unsigned round = 0; round < 300; round++) {
		unsigned total = 0;
		for (unsigned i = 0; i < 8; i++) {
			map[i] = word(&x, (round + 7 * i) % 65);
			total += ref_weight(map[i]);
		}
		unsigned n = 0;
		for (unsigned bit = 0; bit < 512; bit++)
			if ((map[bit / 64] >> (bit % 64)) & 1)
				assert_int_equal(find_nth_bit(map, 512, n++), bit);
		assert_int_equal(n, total);
		assert_int_equal(find_nth_bit(map, 512, total), 512); /* fewer: size */
	}
}

/* find_next_bit against a bit-by-bit scan, from every offset, with a size
 * that ends inside a word (bits past it must not be found). */
static void test_find_next_bit(void **state)
{
	(void)state;
	uint64_t x = 777;
	uint64_t map[6];
	const uint64_t size = 5 * 64 + 17;
	for (unsigned round = 0; round < 100; round++) {
		for (unsigned i = 0; i < 6; i++)
			map[i] = word(&x, (round * 3 + 11 * i) % 65) & (round % 4 ? ~0ull : 0);
		for (uint64_t off = 0; off <= size + 1; off++) {
			uint64_t want = off;
			while (want < size && !test_bit(want, map))
				want++;
			if (want > size)
				want = size;
			assert_int_equal(find_next_bit(map, size, off), want);
		}
	}
	uint64_t one[2] = { 0, 0 };
	__set_bit(70, one);
	assert_true(test_bit(70, one));
	assert_int_equal(find_next_bit(one, 128, 0), 70);
	__clear_bit(70, one);
	assert_int_equal(find_next_bit(one, 128, 0), 128);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_words),
		cmocka_unit_test(test_find_nth_bit),
		cmocka_unit_test(test_find_next_bit),
	};
	return cmocka_run_group_tests_name("bitops", tests, NULL, NULL);
}
