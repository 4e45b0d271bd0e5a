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
	RNG_RECLAIM,    /* per node: kswapd's reference checks (mm/vmscan.c) */
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

/* A draw whose value cannot matter to its caller: the counter moves as if
 * it had been drawn, so the draws after it are the same. */
static inline void rng_skip(struct rng *r)
{
	r->ctr++;
}

/* Uniform in [0, 1). */
static inline double rng_unit(struct rng *r)
{
	return (double)(rng_next(r) >> 11) * (1.0 / 9007199254740992.0);
}

/* rng_unit's draw as its integer k (u = k 2^-53), for comparing with a
 * bound from rng_unit_below. */
static inline uint64_t rng_unit_bits(struct rng *r)
{
	return rng_next(r) >> 11;
}

/* The bound on rng_unit_bits below which the draw's u is not at least
 * @p (!(u >= p): u < p, or p NaN): u = k 2^-53 exactly, so u >= p iff
 * k >= p 2^53 (exact: a power of two), iff k is at least its ceiling.  A
 * p of 1 or more or NaN passes every draw, a p of 0 or less none.  For a loop
 * that compares draws with the same p many times, without a conversion
 * per draw. */
static inline uint64_t rng_unit_below(double p)
{
	if (!(p < 1))
		return 1ull << 53;
	if (!(p > 0))
		return 0;
	double f = p * 0x1p53;
	uint64_t floor = (uint64_t)(int64_t)f;
	return floor + ((double)(int64_t)floor < f);
}

/* Uniform integer in [0, n), n < 2^63: the conversions go through int64_t,
 * one instruction each on x86-64 (the unsigned ones branch), with the same
 * results in that range. */
static inline uint64_t rng_below(struct rng *r, uint64_t n)
{
	return (uint64_t)(int64_t)(rng_unit(r) * (double)(int64_t)n);
}

/* ln x for x in [2^-1022, 2^1000], our own, so that draws do not depend on the
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

/* e^-x for x in [0, 708], our own for the same reason as rng_log.  x =
 * k ln 2 + f with |f| <= ln 2 / 2 (ln 2 in two parts, the first with
 * trailing zeros, so that k ln 2 loses nothing), e^-f by its Taylor series
 * up to f^14 (the next term is below 2^-60), times 2^-k set in the
 * exponent bits.  Within a few ulps of exp(-x) (tests/unit/test_rng.c).
 * Off the hot path: the ziggurat's wedges and its tables. */
double rng_exp_neg(double x);

/* The exponential ziggurat (Marsaglia and Tsang, "The Ziggurat Method for
 * Generating Random Variables", J. Stat. Softw. 5(8), 2000): e^-x covered
 * by 256 layers of equal area RNG_ZIG_V, the base layer's rectangle and
 * the tail beyond RNG_ZIG_R included.  A draw picks a layer (the low 8
 * bits of one 64-bit variate) and a point across it (the top 53 bits);
 * inside the layer's core (97.8% of draws) it is the variate.  The
 * index and the point come from different bits (Doornik, 2005).  The
 * tables are computed once at start-up with rng_log and rng_exp_neg, so
 * that they are the same bits on every machine. */
#define RNG_ZIG_R 7.69711747013104972
#define RNG_ZIG_V 0.0039496598225815571993
struct rng_zig {
	uint64_t k[256]; /* layer i's core: the points below k[i] (of 2^53) */
	double w[256];   /* layer i's rectangle's width / 2^53 */
	double f[256];   /* e^-x at that width (f[0] = 1: the top's left) */
};
extern struct rng_zig rng_zig;

/* The draws that miss the core (the wedges and the tail): rng.c. */
double rng_exp1_slow(struct rng *r, uint64_t u);

/* A standard exponential variate (mean 1). */
static inline double rng_exp1(struct rng *r)
{
	uint64_t u = rng_next(r);
	unsigned i = (unsigned)u & 255;
	uint64_t m = u >> 11;
	if (m < rng_zig.k[i])
		return (double)(int64_t)m * rng_zig.w[i];
	return rng_exp1_slow(r, u);
}

/* ln k!, our own (a table below 256, Stirling's series above): for
 * rng_hypergeom. */
double rng_lnfact(uint64_t k);

/* Hypergeometric: of @N items, @K of them marked, @n drawn without
 * replacement -- how many of the drawn are marked.  K, n <= N < 2^52; the
 * mode's probability comes from ln N! and friends, whose rounding grows
 * with N (about 1e-6 relative at N = 2^27): exact to double precision for
 * the splits the simulator makes (N, a slice's pages, below 2^20). */
uint64_t rng_hypergeom(struct rng *r, uint64_t N, uint64_t K, uint64_t n);

/* Exponential with mean @mean. */
static inline double rng_exp(struct rng *r, double mean)
{
	return mean * rng_exp1(r);
}

#endif
