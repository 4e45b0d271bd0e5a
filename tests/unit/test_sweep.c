/* cli/sweep_spec.c: sweep files parsed as strictly as scenarios (FILE:LINE:
 * key for every mistake), expansion to points in their documented order,
 * and point ids that name the resolved scenario. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <cmocka.h>

#include "cli/sweep.h"

static struct sweep_spec *parse(const char *text, char *err, size_t errlen, int *rc)
{
	struct sweep_spec *sp = malloc(sizeof(*sp));
	assert_non_null(sp);
	err[0] = '\0';
	*rc = sweep_spec_parse("t.ini", text, strlen(text), sp, err, errlen);
	return sp;
}

static void expect_ok(const char *text, struct sweep_spec **out)
{
	char err[2048];
	int rc;
	struct sweep_spec *sp = parse(text, err, sizeof(err), &rc);
	if (rc)
		fail_msg("unexpected error: %s", err);
	*out = sp;
}

/* The error, of the parse or else of the expansion (every point), starts
 * with @prefix ("t.ini:LINE: key: "). */
static void expect_err(const char *text, const char *prefix)
{
	char err[2048];
	int rc, biggest;
	struct sweep_spec *sp = parse(text, err, sizeof(err), &rc);
	if (!rc) {
		char (*ids)[SWEEP_ID_LEN + 1] = malloc((size_t)sp->nr_points * sizeof(*ids));
		assert_non_null(ids);
		rc = sweep_expand(sp, ids, &biggest, err, sizeof(err));
		free(ids);
	}
	free(sp);
	if (!rc)
		fail_msg("accepted, expected '%s...'", prefix);
	if (strncmp(err, prefix, strlen(prefix)))
		fail_msg("error '%s', expected '%s...'", err, prefix);
}

static const char small_grid[] =
	"# comment\n"
	"[sweep]\n"
	"scenario = small\n"
	"kernels = v7.3, v7.3+single-folio-v2\n"
	"seeds = 1..2, 7\n"
	"balancing = both\n"
	"[set]\n"
	"run.duration_s = 2\n"
	"[grid]\n"
	"numa_balancing.scan_size_mb = 64, 256, 1024\n"
	"workload.threads = 8, 16\n";

static void test_expansion_order(void **state)
{
	(void)state;
	struct sweep_spec *sp;
	expect_ok(small_grid, &sp);
	assert_int_equal(sp->nr_kernels, 2);
	assert_int_equal(sp->nr_seeds, 3);
	assert_int_equal(sp->seeds[2], 7);
	assert_int_equal(sp->nr_grid, 2);
	/* 2 kernels x 3 sizes x 2 thread counts x 3 seeds x on/off */
	assert_int_equal(sp->nr_points, 2 * 3 * 2 * 3 * 2);
	struct sweep_point pt;
	sweep_point(sp, 0, &pt);
	assert_int_equal(pt.kernel, 0);
	assert_int_equal(pt.value[0], 0);
	assert_int_equal(pt.value[1], 0);
	assert_int_equal(pt.seed, 0);
	assert_false(pt.off);
	sweep_point(sp, 1, &pt);          /* balancing innermost */
	assert_true(pt.off);
	assert_int_equal(pt.seed, 0);
	sweep_point(sp, 2, &pt);          /* then seeds */
	assert_false(pt.off);
	assert_int_equal(pt.seed, 1);
	sweep_point(sp, 6, &pt);          /* then the last grid key */
	assert_int_equal(pt.seed, 0);
	assert_int_equal(pt.value[1], 1);
	assert_int_equal(pt.value[0], 0);
	sweep_point(sp, 12, &pt);         /* then the first */
	assert_int_equal(pt.value[0], 1);
	assert_int_equal(pt.kernel, 0);
	sweep_point(sp, 36, &pt);         /* kernels outermost */
	assert_int_equal(pt.kernel, 1);
	assert_int_equal(pt.value[0], 0);
	sweep_point(sp, sp->nr_points - 1, &pt);
	assert_int_equal(pt.kernel, 1);
	assert_int_equal(pt.value[0], 2);
	assert_int_equal(pt.value[1], 1);
	assert_int_equal(pt.seed, 2);
	assert_true(pt.off);

	/* the point's scenario has every value applied */
	struct scenario *sc = malloc(sizeof(*sc));
	char err[1024];
	assert_non_null(sc);
	sweep_point(sp, 12 + 6 + 5, &pt); /* size 256, 16 threads, seed 7, off */
	assert_int_equal(sweep_point_scenario(sp, &pt, sc, err, sizeof(err)), 0);
	assert_string_equal(sc->kernel, "v7.3");
	assert_int_equal(sc->t.scan_size_mb, 256);
	assert_int_equal(sc->w.threads, 16);
	assert_int_equal(sc->seed, 7);
	assert_int_equal(sc->t.numa_balancing, 0);
	assert_true(sc->duration_s == 2);
	sweep_point(sp, 36, &pt);
	assert_int_equal(sweep_point_scenario(sp, &pt, sc, err, sizeof(err)), 0);
	assert_string_equal(sc->kernel, "v7.3+single-folio-v2");
	assert_int_equal(sc->t.numa_balancing, 1);
	free(sc);
	free(sp);
}

static void test_ids(void **state)
{
	(void)state;
	struct sweep_spec *sp;
	expect_ok(small_grid, &sp);
	struct scenario *sc = malloc(sizeof(*sc));
	char err[1024], ids[72][SWEEP_ID_LEN + 1], again[SWEEP_ID_LEN + 1];
	assert_non_null(sc);
	for (int k = 0; k < sp->nr_points; k++) {
		struct sweep_point pt;
		sweep_point(sp, k, &pt);
		assert_int_equal(sweep_point_scenario(sp, &pt, sc, err, sizeof(err)), 0);
		assert_int_equal(sweep_scenario_id(sc, ids[k]), 0);
		assert_true(sweep_is_id(ids[k]));
		for (int j = 0; j < k; j++)
			assert_string_not_equal(ids[j], ids[k]);
	}
	/* the id names what is simulated: the same point through another
	 * sweep (other values around it, another order of keys) keeps it */
	struct sweep_spec *other;
	expect_ok("[sweep]\nscenario = small\nseeds = 7\nkernels = v7.3\nbalancing = both\n"
		  "[grid]\nworkload.threads = 16, 4\nnuma_balancing.scan_size_mb = 256\n"
		  "[set]\nrun.duration_s = 2.0\n", &other);
	struct sweep_point pt;
	sweep_point(other, 1, &pt);
	assert_int_equal(sweep_point_scenario(other, &pt, sc, err, sizeof(err)), 0);
	assert_int_equal(sweep_scenario_id(sc, again), 0);
	assert_string_equal(again, ids[12 + 6 + 5]);
	/* and a scenario differing in any key has another */
	sc->w.cpu_ns_per_op += 1;
	assert_int_equal(sweep_scenario_id(sc, again), 0);
	assert_string_not_equal(again, ids[12 + 6 + 5]);
	assert_false(sweep_is_id("0123456789abcdeF"));
	assert_false(sweep_is_id("0123456789abcde"));
	assert_false(sweep_is_id("../../etc/passwd"));
	free(other);
	free(sc);
	free(sp);
}

static void test_defaults_and_quotes(void **state)
{
	(void)state;
	struct sweep_spec *sp;
	/* no kernels, seeds or balancing: one point, the scenario's */
	expect_ok("[sweep]\nscenario = small\n", &sp);
	assert_int_equal(sp->nr_points, 1);
	struct sweep_point pt;
	struct scenario *sc = malloc(sizeof(*sc));
	char err[1024];
	assert_non_null(sc);
	sweep_point(sp, 0, &pt);
	assert_int_equal(pt.kernel, -1);
	assert_int_equal(pt.seed, -1);
	assert_int_equal(sweep_point_scenario(sp, &pt, sc, err, sizeof(err)), 0);
	assert_string_equal(sc->kernel, "v7.3");
	assert_int_equal(sc->seed, 1);
	free(sp);
	/* a quoted value keeps its commas */
	expect_ok("[sweep]\nscenario = small\nbalancing = off\n[grid]\n"
		  "workload.shared_first_touch = interleave, \"bind:0,1\" , local\n", &sp);
	assert_int_equal(sp->grid[0].nr, 3);
	assert_string_equal(sp->grid[0].value[1], "bind:0,1");
	assert_int_equal(sp->nr_points, 3);
	sweep_point(sp, 2, &pt);
	assert_true(pt.off);
	assert_int_equal(sweep_point_scenario(sp, &pt, sc, err, sizeof(err)), 0);
	assert_int_equal(sc->t.numa_balancing, 0);
	free(sc);
	free(sp);
}

static void test_bad_specs(void **state)
{
	(void)state;
	expect_err("[sweep]\nscenario = small\nkernals = v7.3\n", "t.ini:3: kernals: unknown key");
	expect_err("[sweep]\nscenario = small\nscenario = seed\n", "t.ini:3: scenario: given twice (first at line 2)");
	expect_err("[sweep]\nscenario = small\n[grid]\nworkload.threads = 4\n[set]\nworkload.threads = 8\n",
		   "t.ini:6: workload.threads: given twice (first at line 4)");
	expect_err("[sweep]\nscenario = small\n[grid]\nworkload.thread = 4\n",
		   "t.ini:4: workload.thread: unknown scenario key");
	expect_err("[sweep]\nscenario = small\n[grid]\nworkload.threads = 4, x\n",
		   "t.ini:4: workload.threads:");
	expect_err("[sweep]\nscenario = small\n[grid]\nworkload.threads = 4,,8\n",
		   "t.ini:4: workload.threads: an empty value");
	expect_err("[sweep]\nscenario = small\n[grid]\nworkload.threads = 4, 4\n",
		   "t.ini:4: workload.threads: '4' given twice");
	expect_err("[sweep]\nscenario = small\n[grid]\nworkload.threads = \"4\n",
		   "t.ini:4: workload.threads: a '\"' without");
	expect_err("[sweep]\nscenario = small\n[set]\nrun.duration_s = -1\n", "t.ini:4: run.duration_s:");
	expect_err("[sweep]\nscenario = small\nkernels = v7.3, v9.9\n", "t.ini:3: kernels:");
	expect_err("[sweep]\nscenario = small\nkernels = v7.3, v7.3\n", "t.ini:3: kernels:");
	expect_err("[sweep]\nscenario = small\nseeds = 3..1\n", "t.ini:3: seeds: '3..1': the range runs backwards");
	expect_err("[sweep]\nscenario = small\nseeds = 1..5000\n", "t.ini:3: seeds:");
	expect_err("[sweep]\nscenario = small\nseeds = 1, 1\n", "t.ini:3: seeds:");
	expect_err("[sweep]\nscenario = small\nseeds = one\n", "t.ini:3: seeds:");
	expect_err("[sweep]\nscenario = small\nbalancing = maybe\n", "t.ini:3: balancing:");
	expect_err("[sweep]\nscenario = small\n[set]\nkernel.name = v6.4\n",
		   "t.ini:4: kernel.name: the sweep sets it: use 'kernels'");
	expect_err("[sweep]\nscenario = small\n[grid]\nrun.seed = 1, 2\n",
		   "t.ini:4: run.seed: the sweep sets it: use 'seeds'");
	expect_err("[set]\nkernel.numa_balancing = 1\n[sweep]\nscenario = small\nbalancing = both\n",
		   "t.ini:2: kernel.numa_balancing: the sweep sets it: use 'balancing'");
	expect_err("[sweep]\nscenario = small\n[bogus]\n", "t.ini:3: bogus: unknown section");
	expect_err("[sweep]\nscenario = small\n[sweep]\n", "t.ini:3: sweep: section given twice");
	expect_err("scenario = small\n", "t.ini:1: scenario: key outside any section");
	expect_err("[sweep]\nscenario = small\nthis line\n", "t.ini:3: expected");
	expect_err("[sweep]\nkernels = v7.3\n", "t.ini: no 'scenario' in [sweep]");
	expect_err("[sweep]\nscenario = no-such-scenario\n", "t.ini:2: scenario: ");
	expect_err("[sweep]\nscenario = small\n\x1b[31m\n", "t.ini:3: a control byte 0x1b");
	/* a value that is fine alone but not at one point: the key's line */
	expect_err("[sweep]\nscenario = small\n[grid]\nworkload.memory_gib = 0.5, 100\n",
		   "t.ini:4: workload.memory_gib: needs 100 GiB");
	/* two points alike, found by sorting the ids: the first pair, by the
	 * later point, whatever lies between */
	expect_err("[sweep]\nscenario = small\n[grid]\nworkload.cpu_ns_per_op = 100, 200, 100.0, 200.0\n",
		   "t.ini: points 0 and 2 are the same scenario");
	expect_err("[sweep]\nscenario = small\nseeds = 1..3\n[grid]\nworkload.cpu_ns_per_op = 50, 100, 1e2\n",
		   "t.ini: points 3 and 6 are the same scenario");
}

static void test_scenario_file_beside_spec(void **state)
{
	(void)state;
	char dir[160] = "/tmp/numasim-sweep-XXXXXX", path[256], spec[256];
	const char *tmp = getenv("TMPDIR");
	if (tmp && strlen(tmp) < 100)
		snprintf(dir, sizeof(dir), "%s/swXXXXXX", tmp);
	assert_non_null(mkdtemp(dir));
	snprintf(path, sizeof(path), "%s/mine.ini", dir);
	FILE *f = fopen(path, "w");
	assert_non_null(f);
	fputs("[machine]\nsockets = 2\nnodes_per_socket = 1\ncores_per_node = 2\nthreads_per_core = 1\n"
	      "cpus = 4\nmem_per_node_gib = 1\n[workload]\nthreads = 4\nmemory_gib = 0.25\n", f);
	fclose(f);
	snprintf(spec, sizeof(spec), "%s/s.ini", dir);
	struct sweep_spec *sp = malloc(sizeof(*sp));
	char err[1024];
	const char *text = "[sweep]\nscenario = mine.ini\n";
	assert_non_null(sp);
	if (sweep_spec_parse(spec, text, strlen(text), sp, err, sizeof(err)))
		fail_msg("%s", err);
	/* results record the scenario as the sweep names it */
	assert_string_equal(sp->base.source, "mine.ini");
	assert_string_equal(sp->base.name, "mine");
	assert_int_equal(sp->base.w.threads, 4);
	free(sp);
	remove(path);
	rmdir(dir);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_expansion_order),
		cmocka_unit_test(test_ids),
		cmocka_unit_test(test_defaults_and_quotes),
		cmocka_unit_test(test_bad_specs),
		cmocka_unit_test(test_scenario_file_beside_spec),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
