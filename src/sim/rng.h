/* Counter-based random numbers: every draw is a pure function of (seed,
 * stream, counter), so streams split per purpose (placement, per thread, per
 * PTE table) never depend on the order in which other streams are used. */
#ifndef NUMASIM_RNG_H
#define NUMASIM_RNG_H

#include <stdint.h>
#include <string.h>

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
	RNG_JITTER,     /* numasim verify: the run's cost jitter */
	RNG_POOL,       /* aggregated faults: which pooled pages they were (touch.h) */
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

/* Uniform integer in [0, n), n < 2^63: the conversions go through int64_t,
 * one instruction each on x86-64 (the unsigned ones branch), with the same
 * results in that range. */
static inline uint64_t rng_below(struct rng *r, uint64_t n)
{
	return (uint64_t)(int64_t)(rng_unit(r) * (double)(int64_t)n);
}

/* ln x for x in [2^-1022, 1], our own, so that draws do not depend on the
 * C library's rounding (and cost a third of its log1p).  x = 2^k m with m
 * in [sqrt(1/2), sqrt(2)): adding the bits of 1 - sqrt(1/2) carries into
 * the exponent exactly when the mantissa is at least sqrt(2)'s, which
 * picks k without a branch.  Then ln m = 2 atanh(s), s = (m-1)/(m+1),
 * |s| < 0.1716, by its series up to s^21: the next term is below 2^-53 of
 * the sum.  For x above sqrt(1/2) (k = 0), m - 1 = x - 1 is exact, so a
 * draw near 1 keeps its relative accuracy.  Within a few ulps of ln x
 * (tests/unit/test_rng.c). */
static inline double rng_log(double x)
{
	uint64_t b;
	memcpy(&b, &x, sizeof(b));
	b += 0x3ff0000000000000ull - 0x3fe6a09e667f3bcdull; /* 1.0 - sqrt(1/2), as bits */
	int k = (int)(b >> 52) - 0x3ff;
	b = (b & 0x000fffffffffffffull) + 0x3fe6a09e667f3bcdull;
	double m;
	memcpy(&m, &b, sizeof(m));
	double f = m - 1, s = f / (2 + f), z = s * s;
	double p = z * (2.0 / 3 + z * (2.0 / 5 + z * (2.0 / 7 + z * (2.0 / 9 + z * (2.0 / 11 +
		   z * (2.0 / 13 + z * (2.0 / 15 + z * (2.0 / 17 + z * (2.0 / 19 + z * (2.0 / 21))))))))));
	return (double)k * 0x1.62e42fefa39efp-1 + (2 * s + s * p); /* k ln 2 + ln m */
}

/* Exponential with mean @mean: -mean ln(1 - U), U uniform in [0, 1), so
 * 1 - U is in [2^-53, 1] and exact. */
static inline double rng_exp(struct rng *r, double mean)
{
	return -mean * rng_log(1.0 - rng_unit(r));
}

#endif
