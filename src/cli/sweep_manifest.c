/* A sweep's DIR/manifest.json: written (the axes, every point, and the
 * expansion's cache), read back as data by collect and compare, and
 * looked up in O(1) by an array task that runs one point.
 *
 * The cache: expanding a sweep (cli/sweep_expand.c) resolves and hashes
 * every point, seconds at 100,000 points; done by each of 100,000 array
 * tasks it was the sweep's whole cost.  So the manifest begins with
 *
 *   {
 *     "numasim_version": "0.1",
 *     "expansion": {
 *       "key": "SWEEPHASH:BUILDID",
 *       "points": N,
 *       "ids": "ID0ID1...",          N ids of 16 hex digits, end to end
 *
 * where the key names the sweep file's and its scenario file's bytes and
 * this binary's build (lib/buildid.h): the expansion belongs to exactly
 * that input read by exactly that program.  A task computes the prefix it
 * expects, compares the file's first bytes with it, and reads its id at a
 * fixed offset after it.  Anything else (an older manifest, another sweep
 * file, another build, a damaged file) is a miss: the caller expands. */
#include "cli/sweep.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "lib/buildid.h"
#include "lib/version.h"
#include "lib/escape.h"
#include "lib/outfile.h"
#include "lib/readfile.h"
#include "report/mmstat.h"
#include "report/report.h"

#define MAX_MANIFEST_BYTES (64u << 20)

static void path_in(const char *dir, const char *name, char *out, size_t len)
{
	snprintf(out, len, "%s/%s", dir, name);
}

/* ---- writing ------------------------------------------------------------------ */

int sweep_cache_key(const struct sweep_spec *sp, char *key, size_t len)
{
	char build[128];
	if (self_build_id(build, sizeof(build)))
		return -1;
	return (size_t)snprintf(key, len, "%016llx:%s", (unsigned long long)sp->hash, build) < len ? 0 : -1;
}

static json_t *expansion_json(const struct sweep_spec *sp, char (*ids)[SWEEP_ID_LEN + 1], const char *key)
{
	json_t *x = json_object();
	char *all = malloc((size_t)sp->nr_points * SWEEP_ID_LEN + 1);
	if (!x || !all) {
		json_decref(x);
		free(all);
		return NULL;
	}
	for (int k = 0; k < sp->nr_points; k++)
		memcpy(all + (size_t)k * SWEEP_ID_LEN, ids[k], SWEEP_ID_LEN);
	all[(size_t)sp->nr_points * SWEEP_ID_LEN] = '\0';
	json_object_set_new(x, "key", json_string(key));
	json_object_set_new(x, "points", json_integer(sp->nr_points));
	json_object_set_new(x, "ids", json_string(all));
	free(all);
	return x;
}

static const char *const balancing_names[] = { "on", "off", "both" };

static json_t *point_json(const struct sweep_spec *sp, int k, const char *id)
{
	struct sweep_point pt;
	char result[64];
	json_t *x = json_object(), *gv = json_object();
	sweep_point(sp, k, &pt);
	snprintf(result, sizeof(result), "points/%s.json", id);
	json_object_set_new(x, "index", json_integer(k));
	json_object_set_new(x, "id", json_string(id));
	json_object_set_new(x, "kernel", json_string(pt.kernel >= 0 ? sp->kernels[pt.kernel] : sp->base.kernel));
	json_object_set_new(x, "seed", json_integer((json_int_t)(pt.seed >= 0 ? sp->seeds[pt.seed] : sp->base.seed)));
	json_object_set_new(x, "balancing", json_string(pt.off ? "off" : "on"));
	for (int g = 0; g < sp->nr_grid; g++)
		json_object_set_new(gv, sp->grid[g].key, json_string(sp->grid[g].value[pt.value[g]]));
	json_object_set_new(x, "grid", gv);
	json_object_set_new(x, "result", json_string(result));
	return x;
}

json_t *sweep_manifest_json(const struct sweep_spec *sp, char (*ids)[SWEEP_ID_LEN + 1], const char *key)
{
	json_t *m = json_object(), *ks = json_array(), *seeds = json_array(), *grid = json_array(),
	       *pts = json_array();
	/* first, in this order: the cache's prefix (see above) */
	json_object_set_new(m, "numasim_version", json_string(NUMASIM_VERSION));
	if (key)
		json_object_set_new(m, "expansion", expansion_json(sp, ids, key));
	json_object_set_new(m, "scenario", json_string(sp->base.name));
	json_object_set_new(m, "numasim_build", json_string(numasim_build_id));
	json_object_set_new(m, "balancing", json_string(balancing_names[sp->balancing]));
	for (int k = 0; k < sp->nr_kernels; k++)
		json_array_append_new(ks, json_string(sp->kernels[k]));
	if (!sp->nr_kernels)
		json_array_append_new(ks, json_string(sp->base.kernel));
	json_object_set_new(m, "kernels", ks);
	for (int s = 0; s < sp->nr_seeds; s++)
		json_array_append_new(seeds, json_integer((json_int_t)sp->seeds[s]));
	if (!sp->nr_seeds)
		json_array_append_new(seeds, json_integer((json_int_t)sp->base.seed));
	json_object_set_new(m, "seeds", seeds);
	for (int g = 0; g < sp->nr_grid; g++) {
		json_t *x = json_object(), *vals = json_array();
		json_object_set_new(x, "key", json_string(sp->grid[g].key));
		for (int v = 0; v < sp->grid[g].nr; v++)
			json_array_append_new(vals, json_string(sp->grid[g].value[v]));
		json_object_set_new(x, "values", vals);
		json_array_append_new(grid, x);
	}
	json_object_set_new(m, "grid", grid);
	for (int k = 0; k < sp->nr_points; k++)
		json_array_append_new(pts, point_json(sp, k, ids[k]));
	json_object_set_new(m, "points", pts);
	return m;
}

/* ---- the cache, in O(1) ----------------------------------------------------------- */

/* Exactly @len bytes at @off of @fd (a short file is a miss). */
static int read_at(int fd, void *buf, size_t len, off_t off)
{
	size_t got = 0;
	while (got < len) {
		ssize_t n = pread(fd, (char *)buf + got, len - got, off + (off_t)got);
		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0)
			return -1;
		got += (size_t)n;
	}
	return 0;
}

int sweep_manifest_cached_id(const char *dir, const char *key, int nr_points, int k,
			     char id[SWEEP_ID_LEN + 1])
{
	char path[OUTFILE_PATH_MAX], want[512], got[512], end;
	struct stat st;
	int n = snprintf(want, sizeof(want),
			 "{\n  \"numasim_version\": \"%s\",\n  \"expansion\": {\n    \"key\": \"%s\",\n"
			 "    \"points\": %d,\n    \"ids\": \"", NUMASIM_VERSION, key, nr_points);
	if (n < 0 || (size_t)n >= sizeof(want) || k < 0 || k >= nr_points)
		return -1;
	path_in(dir, "manifest.json", path, sizeof(path));
	/* O_NONBLOCK: a FIFO planted as the manifest must not hang the task */
	int fd = open(path, O_RDONLY | O_NONBLOCK | O_NOCTTY | O_CLOEXEC), rc = -1;
	if (fd < 0)
		return -1;
	off_t ids = n;
	if (!fstat(fd, &st) && S_ISREG(st.st_mode) && !read_at(fd, got, (size_t)n, 0) && !memcmp(got, want, (size_t)n) &&
	    !read_at(fd, &end, 1, ids + (off_t)nr_points * SWEEP_ID_LEN) && end == '"' &&
	    !read_at(fd, id, SWEEP_ID_LEN, ids + (off_t)k * SWEEP_ID_LEN)) {
		id[SWEEP_ID_LEN] = '\0';
		rc = sweep_is_id(id) ? 0 : -1;
	}
	close(fd);
	return rc;
}

/* ---- reading, as data (collect, compare) ------------------------------------------ */

int sweep_manifest_load(const char *dir, struct sweep_manifest *m, char *err, size_t errlen)
{
	char path[OUTFILE_PATH_MAX], *text;
	size_t len;
	json_error_t je;
	path_in(dir, "manifest.json", path, sizeof(path));
	if (read_input_file(path, MAX_MANIFEST_BYTES, &text, &len, err, errlen))
		return -1;
	m->doc = json_loadb(text, len, JSON_REJECT_DUPLICATES, &je);
	free(text);
	if (!m->doc) {
		char shown[200];
		term_escape(je.text, shown, sizeof(shown));
		snprintf(err, errlen, "%s: not JSON (line %d: %s)", path, je.line, shown);
		return -1;
	}
	m->points = json_object_get(m->doc, "points");
	const json_t *grid = json_object_get(m->doc, "grid");
	if (!json_is_array(m->points) || !json_is_array(grid) || json_array_size(grid) > SWEEP_MAX_GRID ||
	    json_array_size(m->points) > SWEEP_MAX_POINTS) {
		snprintf(err, errlen, "%s: not a numasim sweep manifest", path);
		return -1;
	}
	size_t i;
	const json_t *x;
	json_array_foreach(grid, i, x) {
		const char *key = json_string_value(json_object_get(x, "key"));
		int k = key ? scenario_key_index(key) : -1;
		if (k < 0) {
			snprintf(err, errlen, "%s: not a numasim sweep manifest: grid key %zu is not a "
				 "scenario key", path, i);
			return -1;
		}
		m->grid_key[m->nr_grid] = k;
		m->grid_name[m->nr_grid++] = key;
	}
	json_array_foreach(m->points, i, x) {
		const char *id = json_string_value(json_object_get(x, "id"));
		if (!id || !sweep_is_id(id)) {
			snprintf(err, errlen, "%s: not a numasim sweep manifest: point %zu has no id", path, i);
			return -1;
		}
	}
	return 0;
}

int sweep_result_load(const char *dir, const char *id, size_t k, json_t **doc, char *err, size_t errlen)
{
	char name[64], path[OUTFILE_PATH_MAX];
	struct stat st;
	*doc = NULL;
	snprintf(name, sizeof(name), "points/%s.json", id);
	path_in(dir, name, path, sizeof(path));
	if (lstat(path, &st) && errno == ENOENT)
		return 0;
	if (mmstat_load_result(path, doc, err, errlen) != MMSTAT_RESULT_RUN) {
		if (*doc)
			snprintf(err, errlen, "%s: not a run result", path);
		json_decref(*doc);
		*doc = NULL;
		return -1;
	}
	const char *got = json_string_value(json_object_get(*doc, "sweep_id"));
	if (!got || strcmp(got, id)) {
		snprintf(err, errlen, "%s: not the result of point %zu (its sweep_id is not %s)", path, k, id);
		json_decref(*doc);
		*doc = NULL;
		return -1;
	}
	return 1;
}

