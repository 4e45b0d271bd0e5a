/* Counter-based random numbers: every draw is a pure function of (seed,
 * stream, counter), so streams split per purpose (placement, per thread, per
 * PTE table) never depend on the order in which other streams are used. */
#ifndef NUMASIM_RNG_H
#define NUMASIM_RNG_H

#include <math.h>
#include <stdint.h>

static inline uint64_t rng_mix(uint64_t z)
{
	/* splitmix64 finaliser */
	z += 0x9e3779b97f4a7c15ull;
	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
	z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
	return z ^ (z >> 31);
}

/* A stream: a key and a counter. */
struct rng {
	uint64_t key;
	uint64_t ctr;
};

enum rng_purpose {
	RNG_THREAD = 2, /* stream numbers are part of the results: keep them */
	RNG_WORKLOAD,
	RNG_SCHED,      /* per task: its run and sleep phases */
};

static inline struct rng rng_stream(uint64_t seed, enum rng_purpose purpose, uint64_t index)
{
	struct rng r = { rng_mix(seed ^ rng_mix(((uint64_t)purpose << 48) ^ index)), 0 };
	return r;
}

static inline uint64_t rng_next(struct rng *r)
{
	return rng_mix(r->key + 0xd1b54a32d192ed03ull * ++r->ctr);
}

/* Uniform in [0, 1). */
static inline double rng_unit(struct rng *r)
{
	return (double)(rng_next(r) >> 11) * (1.0 / 9007199254740992.0);
}

/* Uniform integer in [0, n). */
static inline uint64_t rng_below(struct rng *r, uint64_t n)
{
	return (uint64_t)(rng_unit(r) * (double)n);
}

/* Exponential with mean @mean. */
static inline double rng_exp(struct rng *r, double mean)
{
	return -mean * log1p(-rng_unit(r));
}

#endif
