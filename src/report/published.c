/* The published measurements and their verdict rule (published.h). */
#include "report/published.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

#include "kernel/variants.h"

/* The seed table's source, cited by its thread on linux-mm. */
#define PUBLISHED_SOURCE                                                                    \
	"the linux-mm patch series \"mm/migrate: don't batch the TLB flush when there is " \
	"nothing to batch\" (2026, v1/v2): v7.3 and v7.3 + the v2 patch, 2-socket 384-CPU "  \
	"x86, three A/B pairs of 180 s"
#define KA "v7.3"
#define KB "v7.3+single-folio-v2"

const char *const published_kernels[NR_PUBLISHED_KERNELS] = { KA, KB };

/* The headline figures are min-max over the series' three pairs; the
 * instrumentation figures are approximate, or given for one kernel only
 * (bpftrace over 55 s; the rates are implied by its counts). */
#define HEAD(k, f, lo, hi) { k, f, lo, hi, NULL, PUB_HEADLINE, PUBLISHED_SOURCE }
#define INSTR(k, f, lo, hi, text) { k, f, lo, hi, text, PUB_INSTRUMENT, PUBLISHED_SOURCE }
const struct published published_rows[] = {
	HEAD(KA, FIG_LOSS, 0.130, 0.165),
	HEAD(KB, FIG_LOSS, 0.005, 0.063),
	HEAD(KA, FIG_KCYCLES, 1.18e6, 1.22e6),
	HEAD(KB, FIG_KCYCLES, 0.28e6, 0.31e6),
	HEAD(KA, FIG_IRQ_PER_MIGRATED, 202, 210),
	HEAD(KB, FIG_IRQ_PER_MIGRATED, 12.7, 13.6),
	INSTR(KA, FIG_SCANNER_FLUSHES_55S, 11600, 11600, "~11600"),
	INSTR(KA, FIG_CPR_SHARE, 0.999, 0.999, "99.9%"),
	INSTR(KA, FIG_GATHER_MS, 90, 90, "~90 ms"),
	INSTR(KB, FIG_GATHER_MS, 6.7, 6.7, "6.7 ms"),
	INSTR(KA, FIG_PENDING_SHARE, 0.42, 0.42, "42%"),
	INSTR(KB, FIG_PENDING_SHARE, 0.035, 0.035, "3.5%"),
	INSTR(KA, FIG_PASS_WALL_SHARE, 0.09, 0.12, "9-12%"),
	INSTR(KA, FIG_OVERLAP_SHARE, 0.33, 0.42, "33-42%"),
	INSTR(KA, FIG_IN_CHUNK_SHARE, 0.60, 0.60, "60%"),
	INSTR(KB, FIG_PROTNONE_SHARE, 0.96, 0.96, "~96%"),
	INSTR(KA, FIG_MIGRATIONS_PER_S, 1800, 1800, "~1800"),
	INSTR(KA, FIG_PTE_UPDATES_PER_S, 108000, 108000, "~108k"),
};
const size_t nr_published_rows = sizeof(published_rows) / sizeof(published_rows[0]);

const struct published *published_find(enum ab_figure f, const char *kernel)
{
	struct kernel_config want, pub;
	char err[256];
	if (kernel_config_parse(kernel, &want, err, sizeof(err)))
		return NULL;
	for (size_t i = 0; i < nr_published_rows; i++) {
		const struct published *p = &published_rows[i];
		if (p->fig == f && !kernel_config_parse(p->kernel, &pub, err, sizeof(err)) &&
		    kernel_config_same(&want, &pub))
			return p;
	}
	return NULL;
}

static double tolerance_share(const struct published *p)
{
	return p->tol == PUB_HEADLINE ? 0.10 : 0.25;
}

/* Each end moves outwards by its share of itself (fabs: a negative end,
 * such as a throughput gain, moves outwards too). */
void published_tolerated(const struct published *p, double *lo, double *hi)
{
	double t = tolerance_share(p);
	*lo = p->lo - t * fabs(p->lo);
	*hi = p->hi + t * fabs(p->hi);
}

bool published_in(const struct published *p, double lo, double hi)
{
	double tlo, thi;
	published_tolerated(p, &tlo, &thi);
	return lo <= thi && hi >= tlo;
}

const char *published_tolerance_name(const struct published *p)
{
	return p->tol == PUB_HEADLINE ? "10%" : "25%";
}

void published_format(const struct published *p, char *buf, size_t len)
{
	if (p->text)
		snprintf(buf, len, "%s", p->text);
	else
		ab_figure_format(buf, len, p->fig, p->lo, p->hi);
}
