/* libFuzzer: the scenario parser, --set and the validation, then the
 * resolved scenario as a result records it.  Finds crashes, undefined
 * behaviour (the sanitizers) and error messages that are empty or span
 * lines. */
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
	if (scenario_to_sim(&sc, &s, err, sizeof(err))) {
		fuzz_check_message(err);
		return 0;
	}
	if (scenario_check_host(&sc, 8ull << 30, err, sizeof(err)))
		fuzz_check_message(err);
	json_t *j = report_scenario_json(&sc, &s.k);
	char *text = json_dumps(j, JSON_COMPACT);
	if (!text)
		abort(); /* every value must be representable */
	free(text);
	json_decref(j);
	return 0;
}
