/* The realcheck figures (report/realfig.h). */
#include "report/realfig.h"

#include <math.h>

const struct realfig_def realfigs[NR_REALFIGS] = {
	[RF_PTE] = { "numa_pte_updates", "numa_pte_updates", true },
	[RF_FAULTS] = { "numa_hint_faults", "numa_hint_faults", true },
	[RF_FAULTS_PER_PTE] = { "  hint faults per PTE update", "hint_faults_per_pte_update", true },
	[RF_LOCAL_PCT] = { "  local hint faults (%)", "local_hint_faults_pct", true },
	[RF_MIGRATED] = { "numa_pages_migrated", "numa_pages_migrated", true },
	[RF_MIGR_PER_FAULT] = { "  pages migrated per hint fault", "pages_migrated_per_hint_fault", true },
	[RF_FAIL] = { "pgmigrate_fail", "pgmigrate_fail", true },
	[RF_TLB] = { "TLB shootdowns (/proc/interrupts)", "tlb_shootdowns", true },
	[RF_TLB_PER_MIGR] = { "  TLB shootdowns per migrated page", "tlb_shootdowns_per_migrated_page", true },
	[RF_PENDING_FLUSHES] = { "flush_tlb_batched_pending flushes", "flush_tlb_batched_pending_flushes", true },
	[RF_BATCH_FLUSHES] = { "batched unmap flushes (try_to_unmap_flush)", "batched_unmap_flushes", true },
	[RF_IPI_ROUNDS] = { "IPI rounds (flush_tlb_multi)", "ipi_rounds", true },
	[RF_NUMA_MOVES] = { "NUMA task moves (sched_move_numa)", "numa_task_moves", true },
	[RF_NUMA_SWAPS] = { "NUMA task swaps (sched_swap_numa)", "numa_task_swaps", true },
	[RF_PTEP_CLEAR] = { "ptep_clear_flush flushes", "ptep_clear_flush_flushes", false },
	[RF_GATHER] = { "mmu_gather flushes (tlb_finish_mmu)", "mmu_gather_flushes", false },
	[RF_THROUGHPUT] = { "throughput (ops/s)", "throughput_ops_per_s", false },
};

static double num(const json_t *v)
{
	return json_is_number(v) ? json_number_value(v) : NAN;
}

static double at(const json_t *doc, const char *a, const char *b)
{
	return num(json_object_get(json_object_get(doc, a), b));
}

static const json_t *trace_of(const json_t *doc, const char *what)
{
	return json_object_get(json_object_get(json_object_get(doc, "real"), "trace"), what);
}

static double path_count(const json_t *doc, const char *group, const char *path)
{
	return num(json_object_get(json_object_get(trace_of(doc, "tlb_flush"), group), path));
}

static double ratio(double a, double b)
{
	return b > 0 ? a / b : NAN;
}

double realfig_machine(const json_t *d, const char *key)
{
	return num(json_object_get(json_object_get(d, "machine"), key));
}

double realfig_value(const json_t *d, bool real, enum realfig f)
{
	double pte = at(d, "vmstat", "numa_pte_updates"), faults = at(d, "vmstat", "numa_hint_faults");
	double local = at(d, "vmstat", "numa_hint_faults_local");
	double migrated = at(d, "vmstat", "numa_pages_migrated");
	double tlb = at(d, "interrupts", "tlb_shootdowns");
	switch (f) {
	case RF_PTE: return pte;
	case RF_FAULTS: return faults;
	case RF_FAULTS_PER_PTE: return ratio(faults, pte);
	case RF_LOCAL_PCT: return faults > 0 ? 100 * local / faults : NAN;
	case RF_MIGRATED: return migrated;
	case RF_MIGR_PER_FAULT: return ratio(migrated, faults);
	case RF_FAIL: return at(d, "vmstat", "pgmigrate_fail");
	case RF_TLB: return tlb;
	case RF_TLB_PER_MIGR: return ratio(tlb, migrated);
	case RF_PENDING_FLUSHES:
		return real ? path_count(d, "local_flushes_by_path", "flush_tlb_batched_pending")
			    : at(d, "stats", "scanner_flushes_cpr");
	case RF_BATCH_FLUSHES:
		return real ? path_count(d, "local_flushes_by_path", "try_to_unmap_flush")
			    : at(d, "stats", "batch_flushes");
	case RF_IPI_ROUNDS:
		return real ? num(json_object_get(json_object_get(trace_of(d, "tlb_flush"), "by_reason"),
						  "remote_ipi_send"))
			    : at(d, "stats", "flush_rounds");
	case RF_NUMA_MOVES:
		return real ? num(json_object_get(trace_of(d, "sched_numa"), "moves"))
			    : at(d, "stats", "numa_task_moves");
	case RF_NUMA_SWAPS:
		return real ? num(json_object_get(trace_of(d, "sched_numa"), "swaps"))
			    : at(d, "stats", "numa_task_swaps");
	case RF_PTEP_CLEAR:
		return real ? path_count(d, "local_flushes_by_path", "ptep_clear_flush") : NAN;
	case RF_GATHER:
		return real ? path_count(d, "local_flushes_by_path", "tlb_finish_mmu") : NAN;
	case RF_THROUGHPUT: return num(json_object_get(d, "throughput_ops_per_s"));
	default: return NAN;
	}
}

enum realfig_verdict realfig_judge(enum realfig f, double real, double sim, double *q)
{
	*q = real > 0 && !isnan(sim) ? sim / real : NAN;
	if (!realfigs[f].compared)
		return RFV_SHOWN;
	if (isnan(real) || isnan(sim))
		return RFV_NA;
	if (real == 0 && sim == 0)
		return RFV_BOTH_ZERO;
	if (real == 0 || sim == 0)
		return RFV_MISS;
	return *q <= REALFIG_AGREE && *q >= 1 / REALFIG_AGREE ? RFV_IN : RFV_MISS;
}
