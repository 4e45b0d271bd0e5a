/* Which of numasim's scenario keys numaload honours on a real machine, in
 * one table (keys.c).  Every key numasim's parser knows
 * (scenario_key_count) is looked up there; a key the table does not list
 * is refused, so a key added to numasim is never accepted and silently
 * ignored (test_numaload walks every key). */
#ifndef NUMALOAD_KEYS_H
#define NUMALOAD_KEYS_H

#include <stdbool.h>
#include <stddef.h>

#include "scenario/scenario.h"

enum nl_rule {
	NL_HONOUR,   /* workload and run keys numaload runs as numasim does */
	NL_CHECK,    /* a [machine] key: must match this machine (shape.c) */
	NL_WRITE,    /* a tunable written to the kernel for the run (tunables.c) */
	NL_OFF,      /* something numaload does not do: only numasim's default, off */
	NL_NEVER,    /* a parameter of numasim's model: refused whatever its value */
};

/* The rule for scenario key @k; for NL_OFF and NL_NEVER, @why (if not
 * NULL) says what numaload does instead. */
enum nl_rule nl_key_rule(int k, const char **why);
/* Whether the table names @k, by its name or by a prefix ("costs."). */
bool nl_key_listed(int k);
/* Refuse what @sc assigned that numaload cannot honour: NL_NEVER keys,
 * NL_OFF keys away from numasim's default, honoured keys with a value
 * numaload cannot run.  -1 with "FILE:LINE: key: ..." in @err. */
int nl_keys_refuse(const struct scenario *sc, char *err, size_t errlen);

#endif
