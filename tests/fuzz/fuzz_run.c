/* libFuzzer: a scenario (as fuzz_scenario takes it) run for a moment with
 * the invariant checks on (mm/debug.c, every 0.1 s and at the end), then
 * its report and JSON.  Scenarios are kept small enough to run in
 * milliseconds: at most 64 CPUs and 64 threads, 64 MiB of model, 0.3
 * simulated seconds, a scan delay of at most 100 ms (so scanning starts). */
#include <jansson.h>

#include "fuzz_common.h"
#include "report/report.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static struct scenario sc;
	static struct sim s;
	char err[4096];
	if (fuzz_scenario(data, size, &sc))
		return 0;
	if (sc.m.nr_cpus > 64 || sc.w.processes * sc.w.threads > 64 ||
	    scenario_model_bytes(&sc) > (64u << 20))
		return 0;
	if (sc.duration_s > 0.3)
		sc.duration_s = 0.3;
	if (sc.t.scan_delay_ms > 100)
		sc.t.scan_delay_ms = 100;
	if (sc.t.scan_period_min_ms > 100)
		sc.t.scan_period_min_ms = 100;
	if (sc.t.scan_period_max_ms < sc.t.scan_period_min_ms)
		sc.t.scan_period_max_ms = sc.t.scan_period_min_ms;
	if (scenario_to_sim(&sc, &s, err, sizeof(err))) {
		fuzz_check_message(err);
		return 0;
	}
	s.debug.on = true;
	if (sim_init(&s, err, sizeof(err))) {
		fuzz_check_message(err);
		return 0;
	}
	sim_run(&s);
	FILE *null = fopen("/dev/null", "w");
	if (null) {
		report_text(&s, &sc, null);
		fclose(null);
	}
	json_t *j = report_json(&s, &sc);
	char *text = json_dumps(j, JSON_COMPACT);
	if (!text)
		abort();
	free(text);
	json_decref(j);
	sim_free(&s);
	return 0;
}
