/* numaload profile (tools/numaload/profile*.c) and numasim's --costs
 * fragment (src/scenario/fragment.c): the line fit and the spreads on
 * synthetic data, the INI written from a profile read back by numasim's
 * own parser with the same values, the JSON's shape, and the refusals (a
 * CPU that cannot be measured, a required figure the machine cannot give,
 * a fragment with a section other than [machine] and [costs]). */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <cmocka.h>

#include "numaload/profile.h"
#include "scenario/scenario.h"

static void test_fit_exact_line(void **state)
{
	(void)state;
	double x[] = { 1, 2, 5, 9, 17 }, y[5], a, b;
	for (int i = 0; i < 5; i++)
		y[i] = 1200 + 450 * x[i];
	assert_int_equal(nl_fit_line(x, y, 5, &a, &b), 0);
	assert_float_equal(a, 1200, 1e-6);
	assert_float_equal(b, 450, 1e-9);
}

static void test_fit_noisy_line(void **state)
{
	(void)state;
	/* symmetric noise around y = 100 + 10 x leaves the fit on the line */
	double x[] = { 1, 1, 3, 3, 5, 5 }, y[] = { 115, 105, 125, 135, 145, 155 }, a, b;
	assert_int_equal(nl_fit_line(x, y, 6, &a, &b), 0);
	assert_float_equal(b, 10, 1e-9);
	assert_float_equal(a, 100, 1e-9);
}

static void test_fit_needs_two_x(void **state)
{
	(void)state;
	double x[] = { 4, 4, 4 }, y[] = { 1, 2, 3 }, a, b;
	assert_int_equal(nl_fit_line(x, y, 3, &a, &b), -1);
	assert_int_equal(nl_fit_line(x, y, 1, &a, &b), -1);
}

static void test_stat_spread(void **state)
{
	(void)state;
	double v[] = { 9, 1, 5, 3, 7, 2, 8, 4, 6, 10, 0 };
	struct nl_stat st;
	nl_stat_of(v, 11, &st);
	assert_int_equal(st.trials, 11);
	assert_float_equal(st.median, 5, 0);
	assert_float_equal(st.p10, 1, 0);
	assert_float_equal(st.p90, 9, 0);
	assert_float_equal(st.min, 0, 0);
	assert_float_equal(st.max, 10, 0);
	double w[] = { 2.00049, 2.0004, 2.0006 };
	nl_stat_of(w, 3, &st);
	assert_true(st.median == 2.0); /* rounded to 1/1000 */
}

/* A profile as a 4-CPU, one-node machine might give it. */
static void fake_profile(struct nl_profile *p)
{
	memset(p, 0, sizeof(*p));
	snprintf(p->release, sizeof(p->release), "6.1.0-test");
	snprintf(p->arch, sizeof(p->arch), "x86_64");
	p->quick = true;
	p->ncpus = 4;
	for (int i = 0; i < 4; i++)
		p->cpus[i] = i;
	p->nodes = 1;
	double ghz[] = { 3.1, 3.1, 3.2, 3.0 }, base[] = { 812.5, 790.25, 845.125 },
	       per[] = { 401.5, 380.75, 420.0 }, pte[] = { 61.123, 59.875, 64.5 },
	       dram[] = { 151.8, 149.0, 158.7 }, walk[] = { 2.1, 1.9, 9.5 };
	nl_fig_set(&p->fig[NLF_CPU_GHZ], ghz, 4, "cpuinfo");
	nl_fig_skip(&p->fig[NLF_TLB_ENTRIES], "not measured: out of scope");
	nl_fig_set(&p->fig[NLF_IPI_BASE], base, 3, "fit intercept");
	nl_fig_set(&p->fig[NLF_IPI_PER_CPU], per, 3, "fit slope");
	nl_fig_set(&p->fig[NLF_IPI_REMOTE], per, 3, "the same slope");
	nl_fig_set(&p->fig[NLF_IPI_CONTENDED], per, 3, "two initiators");
	nl_fig_set(&p->fig[NLF_PTE_UPDATE], pte, 3, "mprotect");
	nl_fig_skip(&p->fig[NLF_PTE_SKIP], "not meaningful");
	nl_fig_set(&p->fig[NLF_DRAM_LOCAL], dram, 3, "chase");
	nl_fig_skip(&p->fig[NLF_DRAM_REMOTE], "not measurable: one NUMA node with memory");
	nl_fig_skip(&p->fig[NLF_MIGRATE_PAGE], "not measurable: one NUMA node with memory");
	nl_fig_set(&p->fig[NLF_PAGE_WALK], walk, 3, "refill");
	p->fig[NLF_PAGE_WALK].clean = false; /* not steady: no key */
	struct nl_curve *c = &p->fig[NLF_IPI_BASE].curve;
	p->fig[NLF_IPI_BASE].has_curve = true;
	c->x_name = "targets";
	c->n = 2;
	c->x[1] = 3;
	c->y[0].median = 2900;
	c->y[1].median = 4100;
}

static void write_ini(const struct nl_profile *p, char *path)
{
	snprintf(path, 64, "/tmp/test_profile.XXXXXX");
	int fd = mkstemp(path);
	assert_true(fd >= 0);
	FILE *f = fdopen(fd, "w");
	assert_non_null(f);
	assert_int_equal(nl_profile_ini(p, f), 0);
	assert_int_equal(fclose(f), 0);
}

static void test_ini_round_trip(void **state)
{
	(void)state;
	struct nl_profile *p = malloc(sizeof(*p));
	struct scenario *sc = malloc(sizeof(*sc)), *def = malloc(sizeof(*def));
	char path[64], err[1024];
	fake_profile(p);
	write_ini(p, path);
	assert_int_equal(scenario_load_builtin("small", sc, err, sizeof(err)), 0);
	assert_int_equal(scenario_load_builtin("small", def, err, sizeof(err)), 0);
	if (scenario_apply_fragment(sc, path, err, sizeof(err)))
		fail_msg("%s", err);
	assert_int_equal(scenario_validate(sc, err, sizeof(err)), 0);
	unlink(path);
	/* the written figures read back as the same doubles */
	/* the clock is a nominal reading, reported only: the scenario's stays */
	assert_true(sc->m.cpu_ghz == def->m.cpu_ghz);
	assert_true(sc->m.cost.ipi_send_base_ns == p->fig[NLF_IPI_BASE].st.median);
	assert_true(sc->m.cost.ipi_send_per_cpu_ns == p->fig[NLF_IPI_PER_CPU].st.median);
	assert_true(sc->m.cost.ipi_callback_ns == p->fig[NLF_IPI_CONTENDED].st.median);
	assert_true(sc->m.cost.ipi_send_remote_ns == p->fig[NLF_IPI_REMOTE].st.median);
	assert_true(sc->m.cost.pte_update_ns == 61.123);
	assert_true(sc->m.cost.dram_local_ns == p->fig[NLF_DRAM_LOCAL].st.median);
	/* the rest keep the scenario's values */
	assert_true(sc->m.cost.page_walk_ns == def->m.cost.page_walk_ns);
	assert_true(sc->m.cost.pte_skip_ns == def->m.cost.pte_skip_ns);
	assert_int_equal(sc->m.tlb_entries, def->m.tlb_entries);
	assert_int_equal(sc->nr_overrides, 6);
	assert_string_equal(sc->overrides[0].option, "--costs");
	free(p);
	free(sc);
	free(def);
}

static void test_ini_comments_spread(void **state)
{
	(void)state;
	struct nl_profile *p = malloc(sizeof(*p));
	char path[64], buf[8192];
	fake_profile(p);
	write_ini(p, path);
	FILE *f = fopen(path, "r");
	size_t n = fread(buf, 1, sizeof(buf) - 1, f);
	buf[n] = '\0';
	fclose(f);
	unlink(path);
	assert_non_null(strstr(buf, "; median of 3, p10-p90 60.125-63.825 ns, min-max "
				    "59.875-64.5\npte_update_ns = 61.123\n"));
	assert_non_null(strstr(buf, "; costs.pte_skip_ns not written: not meaningful"));
	assert_non_null(strstr(buf, "; machine.tlb_entries not written: not measured"));
	assert_null(strstr(buf, "page_walk_ns ="));
	assert_null(strstr(buf, "[workload]"));
	free(p);
}

static void test_json_figures(void **state)
{
	(void)state;
	struct nl_profile *p = malloc(sizeof(*p));
	fake_profile(p);
	json_t *j = nl_profile_json(p), *figs = json_object_get(j, "figures");
	json_t *pte = json_object_get(figs, "pte_update");
	assert_string_equal(json_string_value(json_object_get(pte, "key")), "costs.pte_update_ns");
	assert_true(json_real_value(json_object_get(pte, "median")) == 61.123);
	assert_int_equal(json_integer_value(json_object_get(pte, "trials")), 3);
	assert_true(json_is_true(json_object_get(pte, "written")));
	json_t *rem = json_object_get(figs, "dram_remote");
	assert_true(json_is_false(json_object_get(rem, "measured")));
	assert_true(json_is_null(json_object_get(rem, "key")));
	assert_string_equal(json_string_value(json_object_get(rem, "not_measured")),
			    "not measurable: one NUMA node with memory");
	json_t *walk = json_object_get(figs, "page_walk");
	assert_true(json_is_true(json_object_get(walk, "measured")));
	assert_true(json_is_false(json_object_get(walk, "written")));
	json_t *pts = json_object_get(json_object_get(json_object_get(figs, "ipi_send_base"), "curve"),
				      "points");
	assert_int_equal(json_array_size(pts), 2);
	assert_true(json_real_value(json_object_get(json_array_get(pts, 1), "targets")) == 3);
	json_decref(j);
	free(p);
}

static void test_refuse_offline_cpu(void **state)
{
	(void)state;
	int allowed[] = { 0, 1 }, want[] = { 0, 5 }, twice[] = { 1, 1 };
	char err[512];
	assert_int_equal(nl_prof_check_cpus(allowed, 2, allowed, 2, err, sizeof(err)), 0);
	assert_int_equal(nl_prof_check_cpus(want, 2, allowed, 2, err, sizeof(err)), -1);
	assert_string_equal(err, "--cpus: CPU 5 is offline or outside this process's affinity "
			    "(taskset): it cannot be measured");
	assert_int_equal(nl_prof_check_cpus(twice, 2, allowed, 2, err, sizeof(err)), -1);
	assert_string_equal(err, "--cpus: CPU 1 named twice");
}

static void test_refuse_required(void **state)
{
	(void)state;
	struct nl_profile *p = malloc(sizeof(*p));
	char err[512];
	fake_profile(p);
	assert_int_equal(nl_prof_require(p, "ipi,latency,cpu", err, sizeof(err)), 0);
	assert_int_equal(nl_prof_require(p, "ipi,migrate", err, sizeof(err)), -1);
	assert_string_equal(err, "--require migrate: move_pages_per_page was not measured: "
			    "not measurable: one NUMA node with memory");
	assert_int_equal(nl_prof_require(p, "ipi,root", err, sizeof(err)), -2);
	assert_non_null(strstr(err, "unknown group 'root'"));
	free(p);
}

/* A fragment with another section, or a bad value, is refused at FILE:LINE. */
static void test_fragment_refusals(void **state)
{
	(void)state;
	static const struct { const char *text, *err; } cases[] = {
		{ "[costs]\npte_update_ns = 4\n[workload]\nthreads = 2\n",
		  ":3: workload: a --costs file holds only [machine] and [costs] sections" },
		/* a section with no key, text after a header, a file of comments */
		{ "[tunables]\n[costs]\npte_update_ns = 4\n",
		  ":1: tunables: a --costs file holds only [machine] and [costs] sections" },
		{ "[costs] junk\npte_update_ns = 4\n", ":1: costs: unexpected text after the section header" },
		{ "; a profile that measured nothing\n", ": no [machine] or [costs] key: nothing to apply" },
		/* edge values: numasim's own range checks */
		{ "[machine]\ncpu_ghz = 0\n", ":2: machine.cpu_ghz: 0 is out of range" },
		{ "[machine]\ncpu_ghz = nan\n", ":2: machine.cpu_ghz: 'nan' is not a decimal number" },
		{ "[costs]\nipi_send_per_cpu_ns = 1e300\n", ":2: costs.ipi_send_per_cpu_ns: 1e300 is out of range" },
		{ "[costs]\npte_update_ns = -1\n", ":2: costs.pte_update_ns: -1 is out of range" },
		{ "[costs]\npte_update_ns = 1\npte_update_ns = 2\n",
		  ":3: costs.pte_update_ns: set twice in one --costs file" },
		{ "[costs]\nno_such_ns = 1\n", ":2: costs.no_such_ns: unknown key" },
		{ "cpu_ghz = 2\n", ":1: cpu_ghz: a --costs file holds only" },
	};
	struct scenario *sc = malloc(sizeof(*sc));
	char path[64], err[1024];
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		snprintf(path, sizeof(path), "/tmp/test_fragment.XXXXXX");
		int fd = mkstemp(path);
		assert_true(fd >= 0);
		assert_int_equal(write(fd, cases[i].text, strlen(cases[i].text)),
				 (ssize_t)strlen(cases[i].text));
		close(fd);
		assert_int_equal(scenario_load_builtin("small", sc, err, sizeof(err)), 0);
		assert_int_equal(scenario_apply_fragment(sc, path, err, sizeof(err)), -1);
		unlink(path);
		if (strncmp(err, path, strlen(path)) || !strstr(err, cases[i].err))
			fail_msg("case %zu: '%s'", i, err);
	}
	free(sc);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_fit_exact_line),
		cmocka_unit_test(test_fit_noisy_line),
		cmocka_unit_test(test_fit_needs_two_x),
		cmocka_unit_test(test_stat_spread),
		cmocka_unit_test(test_ini_round_trip),
		cmocka_unit_test(test_ini_comments_spread),
		cmocka_unit_test(test_json_figures),
		cmocka_unit_test(test_refuse_offline_cpu),
		cmocka_unit_test(test_refuse_required),
		cmocka_unit_test(test_fragment_refusals),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
