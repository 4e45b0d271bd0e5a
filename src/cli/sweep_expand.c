/* A sweep's expansion: every point resolved once, validated and given its
 * id, and no two points the same scenario.  This is the O(n log n) part
 * of a sweep (the duplicate check sorts the ids instead of comparing every
 * pair); the manifest caches its result, so that an array task running
 * one point does not redo it (cli/sweep_manifest.c).  See cli/sweep.h. */
#include "cli/sweep.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

struct ranked {
	const char *id;
	int k;
};

static int by_id_then_index(const void *a, const void *b)
{
	const struct ranked *x = a, *y = b;
	int c = strcmp(x->id, y->id);
	return c ? c : (x->k > y->k) - (x->k < y->k);
}

/* Two points with one id: the pair the old pairwise check named, the
 * lowest second point and its first twin.  0, or -1 with @err. */
static int check_unique(const struct sweep_spec *sp, char (*ids)[SWEEP_ID_LEN + 1], char *err,
			size_t errlen)
{
	struct ranked *r = malloc((size_t)sp->nr_points * sizeof(*r));
	int first = -1, second = -1;
	if (!r) {
		snprintf(err, errlen, "out of memory");
		return -1;
	}
	for (int k = 0; k < sp->nr_points; k++)
		r[k] = (struct ranked){ ids[k], k };
	qsort(r, (size_t)sp->nr_points, sizeof(*r), by_id_then_index);
	for (int i = 1; i < sp->nr_points; i++)
		if (!strcmp(r[i].id, r[i - 1].id) && (i < 2 || strcmp(r[i - 2].id, r[i].id)) &&
		    (second < 0 || r[i].k < second)) {
			first = r[i - 1].k;
			second = r[i].k;
		}
	free(r);
	if (second >= 0) {
		snprintf(err, errlen, "%s: points %d and %d are the same scenario (id %s): a value in "
			 "[grid] changes nothing", sp->path, first, second, ids[second]);
		return -1;
	}
	return 0;
}

int sweep_expand(const struct sweep_spec *sp, char (*ids)[SWEEP_ID_LEN + 1], int *biggest, char *err,
		 size_t errlen)
{
	struct scenario *sc = malloc(sizeof(*sc));
	uint64_t most = 0;
	if (!sc) {
		snprintf(err, errlen, "out of memory");
		return -1;
	}
	*biggest = 0;
	for (int k = 0; k < sp->nr_points; k++) {
		struct sweep_point pt;
		sweep_point(sp, k, &pt);
		if (sweep_point_scenario(sp, &pt, sc, err, errlen)) {
			free(sc);
			return -1;
		}
		if (sweep_scenario_id(sc, ids[k])) {
			snprintf(err, errlen, "%s: point %d: cannot compute its id (out of memory)", sp->path, k);
			free(sc);
			return -1;
		}
		uint64_t b = scenario_model_bytes(sc);
		if (b > most) {
			most = b;
			*biggest = k;
		}
	}
	free(sc);
	return check_unique(sp, ids, err, errlen);
}
