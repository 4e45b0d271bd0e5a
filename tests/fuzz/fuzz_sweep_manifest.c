/* libFuzzer: a sweep's directory read back, as 'numasim sweep collect DIR'
 * reads it (cli/sweep_manifest.c: the manifest as data, every point's
 * result; results.csv and compare.txt written into DIR), and the O(1)
 * lookup of an array task in the manifest's cache.  The input is the
 * manifest's bytes, optionally followed by a line "%%" and a result file,
 * placed as the first point's result.  Finds crashes, undefined behaviour,
 * a lookup answering something that is not an id, and a control character
 * in results.csv. */
#include <fcntl.h>
#include <jansson.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "cli/cli.h"
#include "cli/sweep.h"
#include "fuzz/fuzz_quiet.h"

static char dir[256];
static char last[400]; /* the last input's result file, removed before the next */

static void setup(void)
{
	char pts[300];
	const char *t = getenv("TMPDIR");
	snprintf(dir, sizeof(dir), "%s/numasim-fuzz-manifest.%d", t && *t ? t : "/tmp", (int)getpid());
	snprintf(pts, sizeof(pts), "%s/points", dir);
	mkdir(dir, 0777);
	mkdir(pts, 0777);
	int fd = open("/dev/null", O_WRONLY);
	if (fd >= 0) {
		dup2(fd, STDOUT_FILENO);
		close(fd);
	}
}

static void put(const char *name, const uint8_t *data, size_t size, char *path, size_t len)
{
	snprintf(path, len, "%s/%s", dir, name);
	FILE *f = fopen(path, "w");
	if (!f)
		abort();
	fwrite(data, 1, size, f);
	fclose(f);
}

/* The manifest's own key and size, looked up as an array task would. */
static void lookup(const uint8_t *data, size_t size)
{
	json_t *doc = json_loadb((const char *)data, size, 0, NULL);
	const json_t *x = json_object_get(doc, "expansion");
	const char *key = json_string_value(json_object_get(x, "key"));
	json_int_t n = json_integer_value(json_object_get(x, "points"));
	if (key && n > 0 && n <= SWEEP_MAX_POINTS) {
		int ks[3] = { 0, (int)n / 2, (int)n - 1 };
		for (int i = 0; i < 3; i++) {
			char id[SWEEP_ID_LEN + 1];
			if (!sweep_manifest_cached_id(dir, key, (int)n, ks[i], id) && !sweep_is_id(id))
				abort();
		}
	}
	json_decref(doc);
}

/* results.csv, if collect wrote one: printable ASCII lines only. */
static void check_csv(void)
{
	char path[400];
	snprintf(path, sizeof(path), "%s/results.csv", dir);
	FILE *f = fopen(path, "r");
	if (!f)
		return;
	int c;
	while ((c = fgetc(f)) != EOF)
		if ((c < 0x20 && c != '\n') || c >= 0x7f)
			abort();
	fclose(f);
	remove(path);
}

static void first_result(const uint8_t *data, size_t size, const uint8_t *res, size_t rlen)
{
	json_t *doc = json_loadb((const char *)data, size, 0, NULL);
	const char *id = json_string_value(json_object_get(json_array_get(json_object_get(doc, "points"), 0), "id"));
	char name[64];
	if (id && sweep_is_id(id)) {
		snprintf(name, sizeof(name), "points/%s.json", id);
		put(name, res, rlen, last, sizeof(last));
	}
	json_decref(doc);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	if (!dir[0])
		setup();
	size_t mlen = size;
	for (size_t i = 0; i + 4 <= size; i++)
		if (!memcmp(data + i, "\n%%\n", 4)) {
			mlen = i;
			break;
		}
	char path[400];
	if (last[0]) /* every input its own directory's worth */
		unlink(last);
	last[0] = '\0';
	put("manifest.json", data, mlen, path, sizeof(path));
	if (mlen < size)
		first_result(data, mlen, data + mlen + 4, size - mlen - 4);
	lookup(data, mlen);
	int saved = quiet_begin();
	char *argv[] = { "sweep", "collect", dir, "-q", NULL };
	cmd_sweep(4, argv);
	quiet_end(saved);
	check_csv();
	return 0;
}
