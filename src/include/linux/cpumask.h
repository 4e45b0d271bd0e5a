/* cpumask: a fixed-size CPU bitmap, after include/linux/cpumask.h.
 *
 * The model keeps masks at NR_CPUS_MAX bits; operations walk only the words
 * that can hold a simulated CPU (nr_cpu_words), so a flush round over the
 * mask is O(CPUs/64) word operations. */
#ifndef NUMASIM_CPUMASK_H
#define NUMASIM_CPUMASK_H

#include <stdbool.h>
#include <stdint.h>
#include <string.h>

#define NR_CPUS_MAX 4096
#define CPUMASK_WORDS (NR_CPUS_MAX / 64)

struct cpumask {
	uint64_t bits[CPUMASK_WORDS];
};

/* Number of 64-bit words in use; set once by the machine (sim_init). */
extern int nr_cpu_words;

static inline void cpumask_clear(struct cpumask *m)
{
	memset(m->bits, 0, sizeof(uint64_t) * (size_t)nr_cpu_words);
}

static inline void cpumask_set_cpu(int cpu, struct cpumask *m)
{
	m->bits[cpu >> 6] |= 1ull << (cpu & 63);
}

static inline void cpumask_clear_cpu(int cpu, struct cpumask *m)
{
	m->bits[cpu >> 6] &= ~(1ull << (cpu & 63));
}

static inline bool cpumask_test_cpu(int cpu, const struct cpumask *m)
{
	return (m->bits[cpu >> 6] >> (cpu & 63)) & 1;
}

static inline void cpumask_or(struct cpumask *dst, const struct cpumask *a,
			      const struct cpumask *b)
{
	for (int i = 0; i < nr_cpu_words; i++)
		dst->bits[i] = a->bits[i] | b->bits[i];
}

static inline int cpumask_weight(const struct cpumask *m)
{
	int n = 0;
	for (int i = 0; i < nr_cpu_words; i++)
		n += __builtin_popcountll(m->bits[i]);
	return n;
}

static inline bool cpumask_empty(const struct cpumask *m)
{
	for (int i = 0; i < nr_cpu_words; i++)
		if (m->bits[i])
			return false;
	return true;
}

/* True if any CPU other than @cpu is set (x86 arch_tlbbatch_should_defer). */
static inline bool cpumask_any_but(const struct cpumask *m, int cpu)
{
	for (int i = 0; i < nr_cpu_words; i++) {
		uint64_t w = m->bits[i];
		if (i == (cpu >> 6))
			w &= ~(1ull << (cpu & 63));
		if (w)
			return true;
	}
	return false;
}

#define for_each_cpu(cpu, m)                                                  \
	for (int __w = 0; __w < nr_cpu_words; __w++)                          \
		for (uint64_t __b = (m)->bits[__w];                           \
		     __b && ((cpu) = __w * 64 + __builtin_ctzll(__b), 1);     \
		     __b &= __b - 1)

#endif
