/* The parts of sim/rng.h off the hot path: e^-x, the exponential
 * ziggurat's tables and its draws that miss a layer's core. */
#include "sim/rng.h"

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
