/* Scenario rules added for hostile input (issue 28): each refuses with a
 * message that names the key (and, for a rule over several keys, where the
 * others came from), and what it allows still validates. */
#include <setjmp.h>
#include <stdio.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cmocka.h>

#include "scenario/scenario.h"

static char err[2048];

/* The built-in "small" with each of @sets applied in turn: 0, or -1 with
 * err set by whichever step failed. */
static int small_with(const char *const *sets, int n)
{
	static struct scenario sc;
	err[0] = 0;
	if (scenario_load_builtin("small", &sc, err, sizeof(err)))
		return -1;
	for (int i = 0; i < n; i++)
		if (scenario_set(&sc, sets[i], err, sizeof(err)))
			return -1;
	return scenario_validate(&sc, err, sizeof(err));
}

#define SMALL(...) small_with((const char *const[]){ __VA_ARGS__ }, \
			      (int)(sizeof((const char *const[]){ __VA_ARGS__ }) / sizeof(char *)))

static void refused(int rc, const char *want)
{
	assert_int_equal(rc, -1);
	if (!strstr(err, want))
		fail_msg("'%s' lacks '%s'", err, want);
}

/* 1 ns is the model's resolution: a period that would truncate to 0 ns
 * (and re-arm its timer at the instant it fired) is refused; 0 stays off;
 * 1 ns exactly is allowed. */
static void test_times_below_one_ns(void **state)
{
	(void)state;
	static const char *const below[] = {
		"workload.madvise_dontneed_every_ms=1e-7", "workload.madvise_cold_every_ms=4e-7",
		"workload.phase_every_s=1e-10", "run.compact_memory_every_s=1e-12",
		"workload.run_ms=1e-9",
	};
	for (size_t i = 0; i < sizeof(below) / sizeof(below[0]); i++) {
		const char *eq = strchr(below[i], '=');
		char key[64];
		memcpy(key, below[i], (size_t)(eq - below[i]));
		key[eq - below[i]] = 0;
		refused(SMALL(below[i]), key);
		refused(SMALL(below[i]), "below the model's resolution of 1 ns");
	}
	assert_int_equal(SMALL("workload.madvise_dontneed_every_ms=0"), 0);
	assert_int_equal(SMALL("workload.madvise_dontneed_every_ms=1e-6"), 0);
	assert_int_equal(SMALL("workload.phase_every_s=1e-9"), 0);
}

/* Node lists: digits, ranges, commas; no sign, space, empty item or node
 * named twice, for every policy key. */
static void test_node_list_grammar(void **state)
{
	(void)state;
	static const char *const bad[] = {
		"bind:+0", "bind: 0", "bind:0 ,1", "bind:-1", "bind:0,", "bind:,0", "bind:1-0",
		"bind:0-+1", "bind:64", "bind:99999999999999999999", "interleave:0x1",
		"weighted:0=+1", "weighted:0=0", "weighted:0=256", "weighted:0= 1", "weighted:0",
		"preferred:+1",
	};
	static const char *const keys[] = { "workload.shared_first_touch=",
					    "workload.private_first_touch=" };
	char a[128];
	for (size_t k = 0; k < 2; k++) {
		for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
			snprintf(a, sizeof(a), "%s%s", keys[k], bad[i]);
			refused(SMALL(a), "is not a node list");
		}
		snprintf(a, sizeof(a), "%sbind:0,0", keys[k]);
		refused(SMALL(a), "names node 0 twice");
		snprintf(a, sizeof(a), "%sinterleave:0-1,1", keys[k]);
		refused(SMALL(a), "names node 1 twice");
		snprintf(a, sizeof(a), "%sweighted:1=2,1=3", keys[k]);
		refused(SMALL(a), "names node 1 twice");
		snprintf(a, sizeof(a), "%sinterleave:0-1", keys[k]);
		assert_int_equal(SMALL(a), 0);
		snprintf(a, sizeof(a), "%sweighted:0=3,1=1", keys[k]);
		assert_int_equal(SMALL(a), 0);
		snprintf(a, sizeof(a), "%sbind:1", keys[k]);
		assert_int_equal(SMALL(a), 0);
	}
}

/* An operation takes cpu_ns_per_op plus its touches' latency: 0 CPU time
 * made the migration caller's operations 0/0 and, with touches on no
 * page, every rate 1e9/0 (-nan throughput). */
static void test_operation_takes_time(void **state)
{
	(void)state;
	refused(SMALL("workload.cpu_ns_per_op=0"), "workload.cpu_ns_per_op: 0 is out of range");
	assert_int_equal(SMALL("workload.cpu_ns_per_op=1e-3"), 0);
	/* 1e-300 with no latency and no bandwidth limit: 1e9 / op_ns was inf */
	refused(SMALL("workload.cpu_ns_per_op=1e-300", "costs.dram_local_ns=0", "machine.mem_bw_gbs=0",
		      "machine.link_bw_gbs=0"), "workload.cpu_ns_per_op: 1e-300 is out of range");
}

/* The bandwidth roofline stretches latency: with none to stretch the
 * stretch grew to inf (NaN throughput). The key set last is blamed, the
 * others named with where they came from. */
static void test_bandwidth_needs_latency(void **state)
{
	(void)state;
	refused(SMALL("costs.dram_local_ns=0.5"), "costs.dram_local_ns: a bandwidth limit slows memory");
	refused(SMALL("costs.dram_local_ns=0", "machine.link_bw_gbs=0"),
		"machine.link_bw_gbs: a bandwidth limit");
	refused(SMALL("costs.dram_local_ns=0", "machine.link_bw_gbs=0"), "costs.dram_local_ns from --set");
	assert_int_equal(SMALL("costs.dram_local_ns=0", "machine.mem_bw_gbs=0", "machine.link_bw_gbs=0"), 0);
	assert_int_equal(SMALL("costs.dram_local_ns=1"), 0);
	refused(SMALL("costs.sched_rq_scan_ns=1e12"), "costs.sched_rq_scan_ns: 1e12 is out of range");
}

/* Every kind of page that takes touches has pages: memory below a page
 * crashed madvise (no VMA), empty slices or hot/cold sets made their
 * touches' time vanish. */
static void test_touches_need_pages(void **state)
{
	(void)state;
	refused(SMALL("workload.memory_gib=1e-9"), "workload.memory_gib: 1e-09 GiB is less than one 4 KiB page");
	refused(SMALL("workload.private_fraction=1e-9"), "gives 16 threads' slices no page");
	refused(SMALL("workload.hot_fraction=1e-9"), "leaves the hot pages of a 8192-page region less than one page");
	refused(SMALL("workload.hot_fraction=0.99999999", "workload.hot_access_share=0.5"),
		"leaves the cold pages of a 8192-page region");
	assert_int_equal(SMALL("workload.hot_fraction=0.001"), 0); /* 8 of 8192 */
	assert_int_equal(SMALL("workload.private_fraction=0.0001"), 0); /* a table per slice */
	assert_int_equal(SMALL("workload.hot_fraction=1e-9", "workload.hot_access_share=0"), 0);
}

/* The migration call's keys without a call do nothing: a value other than
 * the default is refused unless migrate_call is given (none included: a
 * scenario's no-call baseline). */
static void test_migrate_keys_need_a_call(void **state)
{
	(void)state;
	refused(SMALL("workload.migrate_to=0"), "workload.migrate_to: there is no workload.migrate_call");
	refused(SMALL("workload.migrate_every_s=1"), "workload.migrate_every_s: there is no");
	assert_int_equal(SMALL("workload.migrate_to=0", "workload.migrate_call=none"), 0);
	/* a default written out changes nothing and is taken */
	assert_int_equal(SMALL("workload.migrate_to=1", "workload.migrate_from=0"), 0);
	assert_int_equal(SMALL("workload.migrate_call=migrate_pages", "workload.migrate_from=0",
			       "workload.migrate_to=1", "workload.migrate_at_s=1"), 0);
}

/* arm64's TLBI keys on another flush engine are refused, naming the
 * engine's line. */
static void test_arm64_keys_need_arm64(void **state)
{
	(void)state;
	refused(SMALL("machine.arm64_tlbi_range=true"),
		"but flush_engine is x86-ipi (machine.flush_engine from builtin:small:");
	refused(SMALL("machine.arm64_repeat_tlbi=true", "machine.flush_engine=x86-invlpgb"),
		"machine.flush_engine: arm64_repeat_tlbi and arm64_tlbi_range");
	assert_int_equal(SMALL("machine.flush_engine=arm64", "machine.arm64_tlbi_range=true"), 0);
	assert_int_equal(SMALL("machine.arm64_tlbi_range=false"), 0);
}

/* An mTHP size key with a sign, a space or no digits is an unknown key,
 * not a size "larger than a PMD". */
static void test_thp_size_keys(void **state)
{
	(void)state;
	static const char *const unknown[] = { "+64", " 64", "-64", "0x40", "", "99999999999999999999999" };
	char a[160];
	for (size_t i = 0; i < sizeof(unknown) / sizeof(unknown[0]); i++) {
		snprintf(a, sizeof(a), "transparent_hugepage.hugepages-%skB.enabled=always", unknown[i]);
		refused(SMALL(a), "unknown key");
	}
	refused(SMALL("transparent_hugepage.hugepages-4096kB.enabled=always"),
		"4096 kB is larger than a PMD");
	refused(SMALL("transparent_hugepage.hugepages-48kB.enabled=always"),
		"48 kB is not a power-of-two");
	refused(SMALL("transparent_hugepage.hugepages-64kb.enabled=always"), "unknown key");
	assert_int_equal(SMALL("transparent_hugepage.hugepages-64kB.enabled=always"), 0);
}

/* The scenario fuzzers' dictionary (tests/fuzz/scenario.dict) holds every
 * key as a file writes it (a tunable's whole name, else the name after its
 * section) and every section header: a key added without its dictionary
 * entry would leave the fuzzers to find it by chance. Run from the
 * repository's root (scripts/run-tests.sh). */
static void test_fuzz_dictionary_has_every_key(void **state)
{
	(void)state;
	FILE *f = fopen("tests/fuzz/scenario.dict", "r");
	assert_non_null(f);
	static char dict[1 << 16];
	size_t n = fread(dict, 1, sizeof(dict) - 1, f);
	fclose(f);
	dict[n] = 0;
	int missing = 0;
	for (int k = 0; k < scenario_key_count(); k++) {
		char buf[160], want[200];
		const char *name = scenario_key_name(k, buf, sizeof(buf));
		const char *section = scenario_key_section(k);
		size_t sl = strlen(section);
		if (!strncmp(name, section, sl) && name[sl] == '.')
			name += sl + 1; /* SECTION.KEY is written KEY under [SECTION] */
		snprintf(want, sizeof(want), "\n\"%s\"\n", name);
		if (!strstr(dict, want)) {
			print_message("tests/fuzz/scenario.dict lacks \"%s\"\n", name);
			missing++;
		}
		snprintf(want, sizeof(want), "\"[%s]\"", section);
		if (!strstr(dict, want)) {
			print_message("tests/fuzz/scenario.dict lacks \"[%s]\"\n", section);
			missing++;
		}
	}
	assert_int_equal(missing, 0);
}

/* "small" with @sets, validated into @sc; fails the test if it does not. */
static void small_into(struct scenario *sc, const char *const *sets, int n)
{
	if (scenario_load_builtin("small", sc, err, sizeof(err)))
		fail_msg("%s", err);
	for (int i = 0; i < n; i++)
		if (scenario_set(sc, sets[i], err, sizeof(err)))
			fail_msg("%s: %s", sets[i], err);
	if (scenario_validate(sc, err, sizeof(err)))
		fail_msg("%s", err);
}

/* Run @sc to its end; the number of tables it came to hold page by page. */
static uint64_t run_tables(const struct scenario *sc)
{
	struct sim *s = calloc(1, sizeof(*s));
	assert_non_null(s);
	if (scenario_to_sim(sc, s, err, sizeof(err)) || sim_init(s, err, sizeof(err)))
		fail_msg("%s", err);
	sim_run(s);
	uint64_t n = s->st.tables_materialised;
	sim_free(s);
	free(s);
	return n;
}

/* scenario_model_tables bounds stats.tables_materialised, whatever reaches
 * the tables: set-up (a hot set, a store two processes map), the scanner
 * alone (its budget per pass; 8x for a single-threaded process, whose
 * local pages it leaves as they are), madvise, a migration call, THP; and
 * the bound is not "all of them" where only the scanner reaches tables in
 * a short run of a big workload. */
static void test_model_tables_bound_the_run(void **state)
{
	(void)state;
#define COLD "workload.hot_access_share=0", "workload.hot_fraction=0"
	static const char *const variants[][8] = {
		{ "workload.hot_fraction=0.1" },
		{ COLD, "workload.memory_gib=6", "run.duration_s=2" },
		{ COLD, "workload.memory_gib=6", "run.duration_s=4",
		  "numa_balancing.scan_size_mb=32" },
		{ COLD, "workload.memory_gib=6", "run.duration_s=3",
		  "workload.threads=1" },
		{ COLD, "workload.memory_gib=6", "run.duration_s=3",
		  "workload.madvise_dontneed_every_ms=10", "workload.madvise_dontneed_kib=4096" },
		{ COLD, "workload.processes=2", "workload.threads=8",
		  "workload.map_shared=true", "run.duration_s=3" },
		{ COLD, "workload.migrate_call=migrate_pages", "workload.migrate_at_s=1",
		  "run.duration_s=3" },
		{ COLD, "transparent_hugepage.enabled=always", "run.duration_s=3" },
	};
#undef COLD
	bool some_short = false;
	for (size_t v = 0; v < sizeof(variants) / sizeof(variants[0]); v++) {
		static struct scenario sc;
		int n = 0;
		while (n < 8 && variants[v][n])
			n++;
		small_into(&sc, variants[v], n);
		uint64_t bound = scenario_model_tables(&sc), held = run_tables(&sc);
		if (held > bound)
			fail_msg("variant %zu (%s ...): %llu tables held, bound %llu", v, variants[v][0],
				 (unsigned long long)held, (unsigned long long)bound);
		assert_true(held > 0); /* the run reached some: the check meant something */
		/* 6 GiB = 3,072 tables; 2 s, from a 1 s delay, at most 10 passes a second */
		some_short |= v == 1 && bound < 3072;
	}
	assert_true(some_short);
}

/* scenario_model_bytes bounds what a run really takes: in a child, the peak
 * RSS over the run, less the RSS before it, is at most the estimate less
 * its fixed part for the process itself.  A hot set builds every table page
 * by page at set-up, the case where the per-page arrays are all written
 * (and round up to the host's huge pages).  Not under ASan (its shadow and
 * quarantine) or CONFIG_DEBUG_VM (the checker's own per-page arrays). */
static void test_model_bytes_bound_the_rss(void **state)
{
	(void)state;
#if defined(__SANITIZE_ADDRESS__) || defined(CONFIG_DEBUG_VM)
	skip();
#elif defined(__has_feature)
#if __has_feature(address_sanitizer)
	skip();
#endif
#endif
	static struct scenario sc;
	small_into(&sc, (const char *const[]){ "workload.memory_gib=6", "workload.hot_fraction=0.1",
					     "run.duration_s=2" }, 3);
	uint64_t bound = scenario_model_bytes(&sc) - SCENARIO_BASE_BYTES;
	fflush(NULL);
	pid_t pid = fork();
	assert_true(pid >= 0);
	if (pid == 0) {
		long page = sysconf(_SC_PAGESIZE), size = 0, resident = 0;
		FILE *f = fopen("/proc/self/statm", "r");
		if (!f || fscanf(f, "%ld %ld", &size, &resident) != 2)
			_exit(2);
		fclose(f);
		uint64_t before = (uint64_t)resident * (uint64_t)page;
		struct sim *s = calloc(1, sizeof(*s));
		if (!s || scenario_to_sim(&sc, s, err, sizeof(err)) || sim_init(s, err, sizeof(err)))
			_exit(3);
		sim_run(s);
		struct rusage ru;
		getrusage(RUSAGE_SELF, &ru);
		uint64_t peak = (uint64_t)ru.ru_maxrss << 10;
		fprintf(stderr, "model bytes: RSS %.1f MiB over the run (%llu tables held), bound %.1f MiB\n",
			(double)(peak - before) / (1 << 20), (unsigned long long)s->st.tables_materialised,
			(double)bound / (1 << 20));
		_exit(peak - before <= bound ? 0 : 1);
	}
	int status = 0;
	assert_int_equal(waitpid(pid, &status, 0), pid);
	assert_true(WIFEXITED(status));
	assert_int_equal(WEXITSTATUS(status), 0);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_times_below_one_ns),
		cmocka_unit_test(test_node_list_grammar),
		cmocka_unit_test(test_operation_takes_time),
		cmocka_unit_test(test_bandwidth_needs_latency),
		cmocka_unit_test(test_touches_need_pages),
		cmocka_unit_test(test_migrate_keys_need_a_call),
		cmocka_unit_test(test_arm64_keys_need_arm64),
		cmocka_unit_test(test_thp_size_keys),
		cmocka_unit_test(test_fuzz_dictionary_has_every_key),
		cmocka_unit_test(test_model_tables_bound_the_run),
		cmocka_unit_test(test_model_bytes_bound_the_rss),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
