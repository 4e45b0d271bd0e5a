/* The parts of sim/rng.h off the hot path: e^-x, the exponential
 * ziggurat's tables and its draws that miss a layer's core, ln k! and the
 * hypergeometric draw. */
#include "sim/rng.h"

#include <stdbool.h>

struct rng_zig rng_zig;

double rng_exp_neg(double x)
{
	int k = (int)(x * 0x1.71547652b82fep0 + 0.5); /* x / ln 2, to nearest */
	double f = (x - k * 0x1.62e42fee00000p-1) - k * 0x1.a39ef35793c76p-33;
	/* e^-f = 1 - f (1 - f/2 (1 - f/3 (...))), the 1/n constants */
	static const double inv[15] = { 0, 1.0, 1.0 / 2, 1.0 / 3, 1.0 / 4, 1.0 / 5, 1.0 / 6,
					1.0 / 7, 1.0 / 8, 1.0 / 9, 1.0 / 10, 1.0 / 11, 1.0 / 12,
					1.0 / 13, 1.0 / 14 };
	double p = 1;
	for (int n = 14; n >= 1; n--)
		p = 1 - f * p * inv[n];
	uint64_t b = (uint64_t)(1023 - k) << 52; /* 2^-k */
	double scale;
	memcpy(&scale, &b, sizeof(scale));
	return p * scale;
}

/* Layer i (1..255) spans heights e^-x[i] .. e^-x[i-1] and its rectangle
 * is x[i] wide: RNG_ZIG_V = x[i] (e^-x[i-1] - e^-x[i]) gives x[i-1] from
 * x[i], down from x[255] = RNG_ZIG_R to x[0] = 0 (the top).  Layer 0 is
 * the base: a rectangle RNG_ZIG_V / e^-R wide, of which the part beyond R
 * stands for the tail (the same area, e^-R). */
__attribute__((constructor)) static void rng_zig_init(void)
{
	const double m2 = 0x1p53;
	double x[256];
	x[255] = RNG_ZIG_R;
	for (int i = 254; i >= 1; i--)
		x[i] = -rng_log(RNG_ZIG_V / x[i + 1] + rng_exp_neg(x[i + 1]));
	x[0] = 0;
	double base = RNG_ZIG_V / rng_exp_neg(RNG_ZIG_R);
	rng_zig.k[0] = (uint64_t)(RNG_ZIG_R / base * m2);
	rng_zig.w[0] = base / m2;
	rng_zig.f[0] = 1;
	for (int i = 1; i < 256; i++) {
		rng_zig.k[i] = (uint64_t)(x[i - 1] / x[i] * m2);
		rng_zig.w[i] = x[i] / m2;
		rng_zig.f[i] = rng_exp_neg(x[i]);
	}
}

double rng_exp1_slow(struct rng *r, uint64_t u)
{
	for (;;) {
		unsigned i = (unsigned)u & 255;
		uint64_t m = u >> 11;
		double x = (double)(int64_t)m * rng_zig.w[i];
		if (m < rng_zig.k[i])
			return x;
		if (i == 0) /* the tail: R plus an exponential (memorylessness) */
			return RNG_ZIG_R - rng_log(1.0 - rng_unit(r));
		/* the wedge: a height uniform across the layer, kept under e^-x */
		double y = rng_zig.f[i] + rng_unit(r) * (rng_zig.f[i - 1] - rng_zig.f[i]);
		if (y < rng_exp_neg(x))
			return x;
		u = rng_next(r);
	}
}

/* ln k! for k < 256, summed once at start-up from our own logarithm (an
 * error of a few ulps of the sum, about 1e-13, at most). */
static double lnfact_small[256];

__attribute__((constructor)) static void rng_lnfact_init(void)
{
	lnfact_small[0] = 0;
	for (int k = 1; k < 256; k++)
		lnfact_small[k] = lnfact_small[k - 1] + rng_log((double)k);
}

double rng_lnfact(uint64_t k)
{
	if (k < 256)
		return lnfact_small[k];
	/* ln Gamma(x), x = k + 1 >= 257: Stirling's series to x^-7; the
	 * first term left out is below 1/(1188 x^9), under 1e-24 here */
	double x = (double)k + 1, ix = 1 / x, ix2 = ix * ix;
	double series = ix * (1.0 / 12 - ix2 * (1.0 / 360 - ix2 * (1.0 / 1260 - ix2 * (1.0 / 1680))));
	return (x - 0.5) * rng_log(x) - x + 0.91893853320467274178 /* ln sqrt(2 pi) */ + series;
}

/* The draw for K, n <= N / 2 (so that no bound of the support is cut by
 * N - K): the draws one by one when the smaller of K, n is small;
 * otherwise inversion from the mode outward, its probability from the log-factorials and each
 * neighbour's from the last by the ratio of consecutive terms,
 *   P(x+1) / P(x) = (K - x)(n - x) / ((x + 1)(N - K - n + x + 1)),
 * taking the terms above and below the mode in turn: about 1.6 standard
 * deviations of terms per draw.  A uniform variate left over by rounding
 * when both ends are reached (for N below 2^20, a few 1e-12 at most)
 * returns the mode. */
static uint64_t hypergeom_core(struct rng *r, uint64_t N, uint64_t K, uint64_t n)
{
	if (K < n) { /* the same law with the roles swapped: mark the drawn */
		uint64_t k = K;
		K = n;
		n = k;
	}
	if (n <= 16) {
		/* few draws: make them, one by one, each marked with the
		 * chance the marked left among those left give it (one
		 * uniform each, and no logarithm) */
		uint64_t x = 0;
		for (uint64_t i = 0; i < n; i++)
			x += rng_below(r, N - i) < K - x;
		return x;
	}
	uint64_t hi = n < K ? n : K, rest = N - K - n; /* the support is [0, hi] */
	uint64_t m = (uint64_t)(((double)(n + 1) * (double)(K + 1)) / (double)(N + 2));
	if (m > hi)
		m = hi;
	double lnp = rng_lnfact(K) - rng_lnfact(m) - rng_lnfact(K - m) + rng_lnfact(N - K) -
		     rng_lnfact(n - m) - rng_lnfact(rest + m) - rng_lnfact(N) + rng_lnfact(n) +
		     rng_lnfact(N - n);
	double pm = lnp < 0 ? rng_exp_neg(-lnp) : 1;
	double u = rng_unit(r);
	if (u < pm)
		return m;
	u -= pm;
	double pu = pm, pd = pm;
	uint64_t xu = m, xd = m;
	while (xu < hi || xd > 0) {
		if (xu < hi) {
			pu *= ((double)(K - xu) * (double)(n - xu)) /
			      ((double)(xu + 1) * (double)(rest + xu + 1));
			xu++;
			if (u < pu)
				return xu;
			u -= pu;
		}
		if (xd > 0) {
			pd *= ((double)xd * (double)(rest + xd)) /
			      ((double)(K - xd + 1) * (double)(n - xd + 1));
			xd--;
			if (u < pd)
				return xd;
			u -= pd;
		}
	}
	return m;
}

uint64_t rng_hypergeom(struct rng *r, uint64_t N, uint64_t K, uint64_t n)
{
	if (!n || !K)
		return 0;
	if (K == N)
		return n;
	if (n == N)
		return K;
	/* count the unmarked instead when they are fewer, and the items left
	 * behind when they are fewer than the drawn */
	bool flip_k = K > N - K, flip_n = n > N - n;
	uint64_t k = flip_k ? N - K : K, d = flip_n ? N - n : n;
	uint64_t x = hypergeom_core(r, N, k, d);
	if (flip_n)
		x = k - x; /* marked among the drawn: those not left behind */
	return flip_k ? n - x : x;
}
