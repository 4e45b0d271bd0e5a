/* The realcheck table (see table.h). */
#include "table.h"

#include <math.h>
#include <stdbool.h>
#include <string.h>

#include "report/mmstat.h"

static double num(const json_t *v)
{
	return json_is_number(v) ? json_number_value(v) : NAN;
}

static double at(const json_t *doc, const char *a, const char *b)
{
	return num(json_object_get(json_object_get(doc, a), b));
}

static double path_count(const json_t *doc, const char *group, const char *path)
{
	const json_t *f = json_object_get(json_object_get(json_object_get(doc, "real"), "trace"), "tlb_flush");
	return num(json_object_get(json_object_get(f, group), path));
}

static double ratio(double a, double b)
{
	return b > 0 ? a / b : NAN;
}

enum fig {
	F_PTE, F_FAULTS, F_FAULTS_PER_PTE, F_LOCAL_PCT, F_MIGRATED, F_MIGR_PER_FAULT, F_FAIL,
	F_TLB, F_TLB_PER_MIGR, F_PENDING_FLUSHES, F_BATCH_FLUSHES, F_IPI_ROUNDS,
	F_NUMA_MOVES, F_NUMA_SWAPS, F_PTEP_CLEAR, F_GATHER, F_THROUGHPUT, NR_FIGS
};

static const struct {
	const char *name;
	bool compared;
} figs[NR_FIGS] = {
	[F_PTE] = { "numa_pte_updates", true },
	[F_FAULTS] = { "numa_hint_faults", true },
	[F_FAULTS_PER_PTE] = { "  hint faults per PTE update", true },
	[F_LOCAL_PCT] = { "  local hint faults (%)", true },
	[F_MIGRATED] = { "numa_pages_migrated", true },
	[F_MIGR_PER_FAULT] = { "  pages migrated per hint fault", true },
	[F_FAIL] = { "pgmigrate_fail", true },
	[F_TLB] = { "TLB shootdowns (/proc/interrupts)", true },
	[F_TLB_PER_MIGR] = { "  TLB shootdowns per migrated page", true },
	[F_PENDING_FLUSHES] = { "flush_tlb_batched_pending flushes", true },
	[F_BATCH_FLUSHES] = { "batched unmap flushes (try_to_unmap_flush)", true },
	[F_IPI_ROUNDS] = { "IPI rounds (flush_tlb_multi)", true },
	[F_NUMA_MOVES] = { "NUMA task moves (sched_move_numa)", true },
	[F_NUMA_SWAPS] = { "NUMA task swaps (sched_swap_numa)", true },
	[F_PTEP_CLEAR] = { "ptep_clear_flush flushes", false },
	[F_GATHER] = { "mmu_gather flushes (tlb_finish_mmu)", false },
	[F_THROUGHPUT] = { "throughput (ops/s)", false },
};

/* A figure of a result; @real selects where the tracepoint-only figures
 * come from (numaload's trace, or numasim's instrumentation). */
static double figure(const json_t *d, bool real, enum fig f)
{
	double pte = at(d, "vmstat", "numa_pte_updates"), faults = at(d, "vmstat", "numa_hint_faults");
	double local = at(d, "vmstat", "numa_hint_faults_local");
	double migrated = at(d, "vmstat", "numa_pages_migrated");
	double tlb = at(d, "interrupts", "tlb_shootdowns");
	switch (f) {
	case F_PTE: return pte;
	case F_FAULTS: return faults;
	case F_FAULTS_PER_PTE: return ratio(faults, pte);
	case F_LOCAL_PCT: return faults > 0 ? 100 * local / faults : NAN;
	case F_MIGRATED: return migrated;
	case F_MIGR_PER_FAULT: return ratio(migrated, faults);
	case F_FAIL: return at(d, "vmstat", "pgmigrate_fail");
	case F_TLB: return tlb;
	case F_TLB_PER_MIGR: return ratio(tlb, migrated);
	case F_PENDING_FLUSHES:
		return real ? path_count(d, "local_flushes_by_path", "flush_tlb_batched_pending")
			    : at(d, "stats", "scanner_flushes_cpr");
	case F_BATCH_FLUSHES:
		return real ? path_count(d, "local_flushes_by_path", "try_to_unmap_flush")
			    : at(d, "stats", "batch_flushes");
	case F_IPI_ROUNDS: {
		const json_t *f = json_object_get(json_object_get(json_object_get(d, "real"), "trace"),
						  "tlb_flush");
		return real ? num(json_object_get(json_object_get(f, "by_reason"), "remote_ipi_send"))
			    : at(d, "stats", "flush_rounds");
	}
	case F_NUMA_MOVES:
	case F_NUMA_SWAPS: {
		const json_t *sn = json_object_get(json_object_get(json_object_get(d, "real"), "trace"),
						   "sched_numa");
		const char *k = f == F_NUMA_MOVES ? "moves" : "swaps";
		return real ? num(json_object_get(sn, k))
			    : at(d, "stats", f == F_NUMA_MOVES ? "numa_task_moves" : "numa_task_swaps");
	}
	case F_PTEP_CLEAR:
		return real ? path_count(d, "local_flushes_by_path", "ptep_clear_flush") : NAN;
	case F_GATHER:
		return real ? path_count(d, "local_flushes_by_path", "tlb_finish_mmu") : NAN;
	case F_THROUGHPUT: return num(json_object_get(d, "throughput_ops_per_s"));
	default: return NAN;
	}
}

static void cell(FILE *out, double x)
{
	if (isnan(x))
		fprintf(out, " %13s", "n/a");
	else if (x == floor(x) && fabs(x) < 1e15)
		fprintf(out, " %13.0f", x);
	else
		fprintf(out, " %13.3f", x);
}

static const char *str(const json_t *d, const char *k)
{
	const char *s = json_string_value(json_object_get(d, k));
	return s ? s : "?";
}

int nl_table_print(FILE *out, const char *label, const json_t *real, const json_t *sim)
{
	int off = 0;
	fprintf(out, "%s: %s on %s (%.1f s measured) vs numasim %s (%.1f s simulated)\n", label,
		str(real, "scenario"), str(real, "kernel"), num(json_object_get(real, "simulated_seconds")),
		str(sim, "kernel"), num(json_object_get(sim, "simulated_seconds")));
	fprintf(out, "  %-44s %13s %13s %13s  %s\n", "figure", "real", "numasim", "numasim/real",
		"within 1.5x");
	for (int f = 0; f < NR_FIGS; f++) {
		double a = figure(real, true, (enum fig)f), b = figure(sim, false, (enum fig)f);
		const char *verdict;
		double q = NAN;
		if (!figs[f].compared) {
			verdict = "not compared";
			if (f != F_THROUGHPUT)
				verdict = "real only";
		} else if (isnan(a) || isnan(b)) {
			verdict = "n/a";
		} else if (a == 0 && b == 0) {
			verdict = "yes (both 0)";
		} else if (a == 0 || b == 0) {
			verdict = "NO";
			off++;
		} else {
			q = b / a;
			bool ok = q <= NL_AGREE_FACTOR && q >= 1 / NL_AGREE_FACTOR;
			verdict = ok ? "yes" : "NO";
			off += !ok;
		}
		if (!figs[f].compared && f != F_THROUGHPUT)
			q = NAN;
		else if (f == F_THROUGHPUT && a > 0)
			q = b / a;
		fprintf(out, "  %-44s", figs[f].name);
		cell(out, a);
		cell(out, b);
		if (isnan(q))
			fprintf(out, " %13s", "");
		else
			fprintf(out, " %13.2f", q);
		fprintf(out, "  %s\n", verdict);
	}
	return off;
}

int nl_table_main(int argc, char **argv)
{
	if (argc < 3 || argc % 3) {
		fprintf(stderr, "numaload --table: expected LABEL REAL.json SIM.json [LABEL REAL SIM]...\n");
		return 2;
	}
	json_t *docs[2 * 16];
	int n = argc / 3, rc = 0, outside = 0, loaded = 0;
	if (n > 16) {
		fprintf(stderr, "numaload --table: at most 16 pairs\n");
		return 2;
	}
	for (int i = 0; i < 2 * n && !rc; i++) {
		char err[1024];
		const char *path = argv[(i / 2) * 3 + 1 + i % 2];
		if (mmstat_load_result(path, &docs[i], err, sizeof(err)) != MMSTAT_RESULT_RUN) {
			fprintf(stderr, "numaload --table: %s\n", docs[i] ? "expected a run result" : err);
			json_decref(docs[i]);
			rc = 2;
			break;
		}
		loaded++;
	}
	for (int p = 0; p < n && !rc; p++) {
		outside += nl_table_print(stdout, argv[p * 3], docs[2 * p], docs[2 * p + 1]);
		printf("\n");
	}
	if (!rc)
		printf("%d compared figure%s outside a factor of %.1f\n", outside, outside == 1 ? "" : "s",
		       NL_AGREE_FACTOR);
	for (int i = 0; i < loaded; i++)
		json_decref(docs[i]);
	return rc;
}
