/* numasim verify: the TLB oracle (docs/oracle.md) over many seeds.
 *
 * Each seed runs the scenario afresh with the oracle on and with timing
 * jitter: the costs that decide how kernel paths and flushes interleave
 * (IPI delivery and handling, broadcast invalidation, the fault, scan and
 * migration steps) are each scaled by a factor drawn in [0.5, 1.5) from the
 * seed (RNG_JITTER), so a seed is a different interleaving and the same
 * seed is the same run.  Prints one line per seed and the verdict: "safe:
 * N migrations, M checks, 0 stale translations", or the first violations'
 * reports with their interleaving.
 *
 * A verdict needs checks: a run that checked nothing (shorter than the scan
 * delay, or with no migration) is "inconclusive", not "safe".
 *
 * Exit status: 0 safe, 3 stale translations found, 4 inconclusive (no
 * check made), 2 bad input, 1 failure. */
#include <getopt.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli/cli.h"
#include "kernel/sim.h"
#include "lib/strnum.h"
#include "linux/tlb_oracle.h"
#include "scenario/scenario.h"
#include "sim/rng.h"

const char verify_usage[] =
	"usage: numasim verify SCENARIO|FILE [OPTIONS]\n"
	"\n"
	"Run the scenario under the TLB oracle (docs/oracle.md) for several seeds,\n"
	"each with its own timing jitter, and check at every point where the kernel\n"
	"relies on no CPU holding a stale translation (before a migration copies a\n"
	"folio, before the old folio is freed).  Prints a line per seed, then\n"
	"'safe: N migrations, M checks, 0 stale translations' or the first\n"
	"violations: the page, the CPUs that may still translate it, who made its\n"
	"PTE inaccessible and when, the pending flushes and the interleaving.\n"
	"\n"
	"options (applied in order, after the scenario is read):\n"
	"  --kernel K          kernel variant, e.g. v7.3 or v7.3+no-pending-check\n"
	"  --set KEY=VALUE     any scenario key (see 'numasim run --help') but\n"
	"                      run.seed and run.duration_s: --seed and --duration\n"
	"  --seeds N           seeds to run (default 10)\n"
	"  --seed S            the first seed (default 1): seeds S .. S+N-1\n"
	"  --duration S        simulated seconds per seed (default 2, or the\n"
	"                      scenario's duration if shorter)\n"
	"  --no-jitter         the scenario's costs as they are\n"
	"  --first             stop at the first stale translation\n"
	"  --exact             every hint fault one by one (run.exact = true; see\n"
	"                      'numasim run --help'): the private faults the default\n"
	"                      mode draws in bulk are checked one by one too\n"
	"  -h, --help          this text\n"
	"\n"
	"A run that made no check (shorter than the scan delay, or migrating\n"
	"nothing) proves nothing: its verdict is 'inconclusive'.\n"
	"\n"
	"Exit status: 0 safe, 3 stale translations found, 4 inconclusive (no check\n"
	"made), 2 bad input, 1 failure.\n";

#define DEFAULT_SEEDS 10
#define DEFAULT_DURATION_S 2.0
#define EXIT_UNSAFE 3
#define EXIT_INCONCLUSIVE 4

struct v_args {
	const char *scenario;
	const char **opt, **val;
	int nr;
	const char *duration;
	long seeds, first_seed;
	bool first, no_jitter;
};

enum { OPT_KERNEL = 256, OPT_SET, OPT_SEEDS, OPT_SEED, OPT_DURATION, OPT_FIRST, OPT_NOJITTER, OPT_EXACT };

static int bad(const char *msg, const char *arg)
{
	fprintf(stderr, "numasim verify: %s '%s'\nTry 'numasim verify --help'.\n", msg, arg);
	return EXIT_INPUT;
}

/* Whether the --set assignment @kv ("KEY=VALUE") names scenario key @key,
 * however written (scenario_key_index's spellings, spaces around KEY). */
static bool set_names(const char *kv, const char *key)
{
	char name[160];
	const char *eq = strchr(kv, '=');
	size_t n = eq ? (size_t)(eq - kv) : strlen(kv);
	while (n && (kv[n - 1] == ' ' || kv[n - 1] == '\t'))
		n--;
	while (n && (*kv == ' ' || *kv == '\t'))
		kv++, n--;
	if (n >= sizeof(name))
		return false;
	memcpy(name, kv, n);
	name[n] = 0;
	int k = scenario_key_index(name);
	return k >= 0 && k == scenario_key_index(key);
}

static int parse_args(int argc, char **argv, struct v_args *a)
{
	static const struct option opts[] = {
		{ "kernel", required_argument, NULL, OPT_KERNEL },
		{ "set", required_argument, NULL, OPT_SET },
		{ "seeds", required_argument, NULL, OPT_SEEDS },
		{ "seed", required_argument, NULL, OPT_SEED },
		{ "duration", required_argument, NULL, OPT_DURATION },
		{ "first", no_argument, NULL, OPT_FIRST },
		{ "no-jitter", no_argument, NULL, OPT_NOJITTER },
		{ "exact", no_argument, NULL, OPT_EXACT },
		{ "help", no_argument, NULL, 'h' },
		{ 0, 0, 0, 0 },
	};
	int c;
	opterr = 0;
	optind = 1;
	while ((c = getopt_long(argc, argv, ":h", opts, NULL)) != -1) {
		long long n;
		switch (c) {
		case 'h':
			fputs(verify_usage, stdout);
			exit(0);
		case OPT_KERNEL: a->opt[a->nr] = "--kernel"; a->val[a->nr++] = optarg; break;
		case OPT_EXACT: a->opt[a->nr] = "--exact"; a->val[a->nr++] = "run.exact"; break;
		case OPT_SET:
			if (set_names(optarg, "run.seed"))
				return bad("--set: verify runs seeds S .. S+N-1: use --seed S "
					   "(and --seeds N), not", optarg);
			if (set_names(optarg, "run.duration_s"))
				return bad("--set: verify sets each run's length: use --duration S, "
					   "not", optarg);
			a->opt[a->nr] = "--set";
			a->val[a->nr++] = optarg;
			break;
		case OPT_DURATION: a->duration = optarg; break;
		case OPT_FIRST: a->first = true; break;
		case OPT_NOJITTER: a->no_jitter = true; break;
		case OPT_SEEDS:
			if (strnum_ll(optarg, &n) || n < 1 || n > 100000)
				return bad("--seeds: not a number in 1..100000:", optarg);
			a->seeds = (long)n;
			break;
		case OPT_SEED:
			if (strnum_ll(optarg, &n) || n < 0 || n > 1000000000000ll)
				return bad("--seed: not a number in 0..10^12:", optarg);
			a->first_seed = (long)n;
			break;
		case ':':
			return bad("option needs a value:", argv[optind - 1]);
		default:
			return bad("unknown option", argv[optind - 1]);
		}
	}
	if (optind != argc - 1) {
		fprintf(stderr, "numasim verify: expected one SCENARIO or FILE, got %d\n"
			"Try 'numasim verify --help'.\n", argc - optind);
		return EXIT_INPUT;
	}
	a->scenario = argv[optind];
	return 0;
}

static int prepare(const struct v_args *a, long seed, struct scenario *sc, struct sim *s,
		   char *err, size_t errlen)
{
	if (load_scenario(a->scenario, sc, err, errlen))
		return -1;
	for (int i = 0; i < a->nr; i++) {
		int rc = !strcmp(a->opt[i], "--kernel")
				 ? scenario_set_option(sc, "--kernel", "kernel.name", a->val[i], err, errlen)
			 : !strcmp(a->opt[i], "--exact")
				 ? scenario_set_option(sc, "--exact", "run.exact", "true", err, errlen)
				 : scenario_set(sc, a->val[i], err, errlen);
		if (rc)
			return -1;
	}
	char buf[64];
	snprintf(buf, sizeof(buf), "%ld", seed);
	if (scenario_set_option(sc, "--seed", "run.seed", buf, err, errlen))
		return -1;
	const char *d = a->duration;
	if (!d) {
		snprintf(buf, sizeof(buf), "%.17g",
			 sc->duration_s < DEFAULT_DURATION_S ? sc->duration_s : DEFAULT_DURATION_S);
		d = buf;
	}
	if (scenario_set_option(sc, "--duration", "run.duration_s", d, err, errlen))
		return -1;
	memset(s, 0, sizeof(*s));
	if (scenario_validate(sc, err, errlen) || scenario_to_sim(sc, s, err, errlen) ||
	    scenario_check_host(sc, host_memory_bytes(), err, errlen))
		return -1;
	return 0;
}

/* Scale the interleaving-deciding costs by factors in [0.5, 1.5) drawn
 * from the seed. */
static void jitter(struct sim *s)
{
	struct cost_model *c = &s->m.cost;
	double *v[] = {
		&c->ipi_send_base_ns, &c->ipi_send_per_cpu_ns, &c->ipi_latency_ns,
		&c->ipi_handler_ns, &c->cr3_flush_ns, &c->invlpg_ns, &c->invlpgb_ns, &c->tlbi_ns,
		&c->dsb_ns, &c->pte_update_ns, &c->pte_skip_ns, &c->pte_table_ns, &c->gather_ns,
		&c->hint_fault_ns, &c->migrate_setup_ns, &c->copy_page_ns, &c->remap_ns,
		/* added later: last, so the draws above stay what they were */
		&c->ipi_send_remote_ns, &c->ipi_latency_remote_ns, &c->ipi_callback_ns,
	};
	struct rng r = rng_stream(s->seed, RNG_JITTER, 0);
	for (size_t i = 0; i < sizeof(v) / sizeof(v[0]); i++)
		*v[i] *= 0.5 + rng_unit(&r);
}

int cmd_verify(int argc, char **argv)
{
	char err[2048];
	struct v_args a = { .seeds = DEFAULT_SEEDS, .first_seed = 1 };
	a.opt = calloc((size_t)argc + 1, sizeof(*a.opt));
	a.val = calloc((size_t)argc + 1, sizeof(*a.val));
	struct scenario *sc = malloc(sizeof(*sc));
	struct sim *s = calloc(1, sizeof(*s));
	int rc = a.opt && a.val && sc && s ? parse_args(argc, argv, &a) : 1;
	struct oracle_counts tot = { 0 };
	long bad_seeds = 0, ran = 0;
	int printed = 0;
	for (long i = 0; rc == 0 && i < a.seeds; i++) {
		long seed = a.first_seed + i;
		if (prepare(&a, seed, sc, s, err, sizeof(err))) {
			cli_error("numasim verify: ", err);
			rc = EXIT_INPUT;
			break;
		}
		if (i == 0)
			printf("verify %s, kernel %s: %ld seed%s from %ld, %.3g s each, %s%s\n", sc->name,
			       s->k.name, a.seeds, a.seeds == 1 ? "" : "s", a.first_seed,
			       (double)s->duration_ns / 1e9,
			       a.no_jitter ? "no jitter" : "timing jitter x0.5..1.5",
			       s->exact ? ", every hint fault exact" : "");
		if (!a.no_jitter)
			jitter(s);
		if (sim_init(s, err, sizeof(err))) {
			cli_error("numasim verify: ", err);
			rc = 1;
			break;
		}
		if (oracle_enable(s, a.first)) {
			fprintf(stderr, "numasim verify: out of memory\n");
			sim_free(s);
			rc = 1;
			break;
		}
		sim_run(s);
		struct oracle_counts c;
		oracle_counts(s, &c);
		printf("  seed %ld: %llu migrations, %llu checks", seed,
		       (unsigned long long)c.migrations, (unsigned long long)c.checks);
		if (c.zaps)
			printf(" (%llu zap returns)", (unsigned long long)c.zaps);
		printf(", %llu stale translations\n", (unsigned long long)c.violations);
		for (int k = 0; k < oracle_nr_reports(s) && printed < ORACLE_MAX_REPORTS; k++, printed++)
			fputs(oracle_report(s, k), stdout);
		tot.migrations += c.migrations;
		tot.checks += c.checks;
		tot.zaps += c.zaps;
		tot.violations += c.violations;
		bad_seeds += c.violations > 0;
		ran++;
		sim_free(s);
		if (a.first && c.violations)
			break;
	}
	if (rc == 0) {
		const char *verdict = tot.violations ? "UNSAFE" : tot.checks ? "safe" : "inconclusive";
		printf("%s: %llu migrations, %llu checks", verdict,
		       (unsigned long long)tot.migrations, (unsigned long long)tot.checks);
		if (tot.zaps) /* madvise(MADV_DONTNEED) returns checked */
			printf(" (%llu zap returns)", (unsigned long long)tot.zaps);
		if (tot.violations)
			printf(", %llu stale translations (in %ld of %ld seeds run)\n",
			       (unsigned long long)tot.violations, bad_seeds, ran);
		else if (tot.checks)
			printf(", 0 stale translations\n");
		else
			printf(": nothing was checked (no migration ran; the first NUMA scan "
			       "comes after kernel.numa_balancing_scan_delay_ms): give a longer "
			       "--duration\n");
		if (fflush(stdout) != 0 || ferror(stdout)) {
			fprintf(stderr, "numasim verify: cannot write to stdout\n");
			rc = 1;
		} else if (tot.violations) {
			rc = EXIT_UNSAFE;
		} else if (!tot.checks) {
			rc = EXIT_INCONCLUSIVE;
		}
	}
	free(a.opt);
	free(a.val);
	free(sc);
	free(s);
	return rc;
}
