/* numasim command line: run, scenarios, kernels, show.
 *
 * Exit status: 0 success, 2 bad input (usage, scenario, option values, a
 * trace over its limit; no output file is written), 1 internal failure. */
#include <errno.h>
#include <getopt.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "lib/escape.h"
#include "lib/suggest.h"
#include "lib/version.h"
#include "cli/cli.h"
#include "kernel/variants.h"
#include "lib/outfile.h"
#include "report/report.h"
#include "scenario/scenario.h"
#include "kernel/sim.h"
#include "linux/tlb_oracle.h"
#include "trace/writers.h"


static const char usage_text[] =
	"usage: numasim COMMAND [OPTIONS]\n"
	"\n"
	"Simulate Linux NUMA balancing, page migration and TLB shootdowns.\n"
	"\n"
	"commands:\n"
	"  run SCENARIO|FILE [OPTIONS]   run a built-in scenario or an INI file\n"
	"  ab SCENARIO --kernels A,B     A/B pairs (balancing on vs off): the seed table\n"
	"  validate [--short]            the model against every published measurement:\n"
	"                                in or miss, per figure\n"
	"  timeline SCENARIO --kernel K  the scan/migration race of one pass, as text\n"
	"  verify SCENARIO --kernel K    the TLB oracle over many seeds: safe, or the\n"
	"                                first stale translations and their interleaving\n"
	"  plot RESULT.json... -o FILE   time series and A/B figures with gnuplot\n"
	"  compare A.json B.json...      mmtests-style comparison of runs\n"
	"  sweep SPEC                    a sweep file's points (kernels x grids x seeds)\n"
	"                                into a directory; 'sweep collect DIR'\n"
	"  scenarios                     list the built-in scenarios\n"
	"  kernels                       list the kernel bases and patches\n"
	"  show SCENARIO                 print a built-in scenario's INI text\n"
	"  help [COMMAND]                this text, or a command's options\n"
	"\n"
	"  --help, --version\n"
	"\n"
	"'numasim COMMAND --help' describes a command's options.\n";

static const char run_usage[] =
	"usage: numasim run SCENARIO|FILE [OPTIONS]\n"
	"\n"
	"Run a built-in scenario (see 'numasim scenarios') or an INI file (see\n"
	"'numasim show seed' for every key) and print the report to stdout.\n"
	"\n"
	"options (applied in order, after the scenario is read):\n"
	"  --kernel K          kernel variant, e.g. v6.4 or v7.3+single-folio-v2\n"
	"  --seed N            random seed\n"
	"  --duration S        simulated seconds\n"
	"  --exact             every hint fault one by one (run.exact = true); by\n"
	"                      default a private slice's faults on local pages are\n"
	"                      aggregated (docs/model.md 3.3a), same figures\n"
	"  --set KEY=VALUE     any scenario key: a tunable by its kernel name\n"
	"                      (kernel.numa_balancing, numa_balancing.scan_size_mb, ...)\n"
	"                      or SECTION.KEY (workload.threads, costs.ipi_handler_ns, ...)\n"
	"  --costs FILE        every [machine] and [costs] key of FILE, as --set would\n"
	"                      apply it (the fragment 'numaload profile --ini' writes;\n"
	"                      any other section is an error)\n"
	"  --json FILE         also write the report as JSON to FILE ('-': the JSON\n"
	"                      on standard output instead of the report)\n"
	"  --trace FILE        record a trace: FILE.json (Chrome trace events, for\n"
	"                      ui.perfetto.dev), FILE.txt (ftrace text) and FILE.dat\n"
	"                      (trace-cmd's trace.dat, for trace-cmd report and\n"
	"                      KernelShark); a .json, .json.gz, .txt or .dat suffix on\n"
	"                      FILE is dropped.  See docs/traces.md\n"
	"  --trace-gzip yes|no|auto  FILE.json.gz (gzip'd; Perfetto opens it) instead\n"
	"                      of FILE.json: always, never, or auto when the JSON\n"
	"                      would be over 16 MiB.  The default is auto, or what\n"
	"                      FILE's suffix names (.json: no, .json.gz: yes).  An\n"
	"                      older FILE.json(.gz) of the other form is removed\n"
	"  --trace-window START:END  only events in [START, END) simulated seconds\n"
	"                      (default: the whole run; either side may be empty)\n"
	"  --trace-events LIST comma-separated event names, 'kernel' (the kernel's\n"
	"                      tracepoints) or 'all' (default)\n"
	"  --trace-max-mb N    stop the run, and write nothing, once the trace passes\n"
	"                      N MiB of text + JSON, uncompressed (default 2048; the buffer holds\n"
	"                      N MiB / 128 events, at most 20 million)\n"
	"  --check             check the modelled mm's invariants every 0.1 simulated\n"
	"                      seconds and at the end, as a debug build always does\n"
	"                      (docs/model.md, \"Invariants\"); a violation stops the run\n"
	"  --oracle            run the TLB oracle (docs/oracle.md) alongside and print its\n"
	"                      verdict and any stale translation's report to stderr\n"
	"  -q, --quiet         no progress line, no wall time\n"
	"  -h, --help          this text\n"
	"\n"
	"Outputs are written to a temporary and renamed into place (an interrupted\n"
	"run leaves none); two outputs may not name one file.\n"
	"\n"
	"Exit status: 0 done, 2 bad input or a trace over its size limit (nothing\n"
	"written either way), 1 internal failure.\n";

static const char scenarios_usage[] =
	"usage: numasim scenarios [--names]\n\nList the built-in scenarios.\n\n"
	"  --names   only the names, one a line (for scripts and shell completion)\n";
static const char kernels_usage[] =
	"usage: numasim kernels [--names]\n\nList the kernel bases and patches; combine them as BASE+PATCH.\n\n"
	"  --names   only the names, one a line: the bases, then each patch as +PATCH\n"
	"            (for scripts and shell completion)\n";
static const char show_usage[] =
	"usage: numasim show SCENARIO\n\n"
	"Print a built-in scenario's INI text; 'numasim show seed > my.ini' starts a\n"
	"scenario file that 'numasim run my.ini' runs identically.\n";

/* ---- option parsing ----------------------------------------------------- */

/* getopt_long over a subcommand's arguments (argv[0] is the command name).
 * Returns the option, or -1 at the end; on a bad option prints a message and
 * returns '?'. */
static int next_opt(const char *cmd, int argc, char **argv, const char *shortopts,
		    const struct option *longopts)
{
	int c = getopt_long(argc, argv, shortopts, longopts, NULL);
	if (c == '?' || c == ':') {
		const char *arg = argv[optind - 1];
		if (c == ':')
			fprintf(stderr, "numasim %s: option '%s' needs a value\n", cmd, arg);
		else
			fprintf(stderr, "numasim %s: unknown option '%s'\n", cmd, arg);
		fprintf(stderr, "Try 'numasim %s --help'.\n", cmd);
		return '?';
	}
	return c;
}

/* Commands that take no options besides --help. */
static int simple_opts(const char *cmd, const char *usage, int argc, char **argv)
{
	static const struct option opts[] = { { "help", no_argument, NULL, 'h' }, { 0, 0, 0, 0 } };
	int c;
	opterr = 0;
	while ((c = next_opt(cmd, argc, argv, ":h", opts)) != -1) {
		if (c == 'h') {
			fputs(usage, stdout);
			exit(0);
		}
		return EXIT_INPUT;
	}
	return 0;
}

/* A listing command's options: --help, and --names (only the names). */
static int list_opts(const char *cmd, const char *usage, int argc, char **argv, bool *names)
{
	static const struct option opts[] = { { "help", no_argument, NULL, 'h' },
					      { "names", no_argument, NULL, 'n' },
					      { 0, 0, 0, 0 } };
	int c;
	opterr = 0;
	*names = false;
	while ((c = next_opt(cmd, argc, argv, ":h", opts)) != -1) {
		if (c == 'h') {
			fputs(usage, stdout);
			exit(0);
		}
		if (c == 'n') {
			*names = true;
			continue;
		}
		return EXIT_INPUT;
	}
	if (optind != argc) {
		fprintf(stderr, "numasim %s: takes no arguments\nTry 'numasim %s --help'.\n", cmd, cmd);
		return EXIT_INPUT;
	}
	return 0;
}

/* ---- run ------------------------------------------------------------------ */

/* A command-line override, applied after the scenario is read. */
struct override {
	const char *option;  /* "--set", "--kernel", ... */
	const char *key;     /* NULL for --set (the value is KEY=VALUE) */
	const char *value;
};

struct run_args {
	const char *scenario;
	const char *json;
	bool quiet;
	bool check;
	bool oracle;
	struct override *ov;
	int nr_ov;
	struct trace_opts trace;
};

enum { OPT_KERNEL = 256, OPT_SEED, OPT_SET, OPT_JSON, OPT_DURATION, OPT_TRACE, OPT_TRACE_WINDOW,
       OPT_TRACE_EVENTS, OPT_TRACE_MAX_MB, OPT_TRACE_GZIP, OPT_CHECK, OPT_ORACLE, OPT_EXACT,
       OPT_COSTS };

static void add_override(struct run_args *a, const char *option, const char *key,
			 const char *value)
{
	a->ov[a->nr_ov++] = (struct override){ option, key, value };
}

/* Returns 0, or an exit status. */
static int parse_run_args(int argc, char **argv, struct run_args *a)
{
	static const struct option opts[] = {
		{ "kernel", required_argument, NULL, OPT_KERNEL },
		{ "seed", required_argument, NULL, OPT_SEED },
		{ "set", required_argument, NULL, OPT_SET },
		{ "costs", required_argument, NULL, OPT_COSTS },
		{ "json", required_argument, NULL, OPT_JSON },
		{ "duration", required_argument, NULL, OPT_DURATION },
		{ "exact", no_argument, NULL, OPT_EXACT },
		{ "trace", required_argument, NULL, OPT_TRACE },
		{ "trace-window", required_argument, NULL, OPT_TRACE_WINDOW },
		{ "trace-events", required_argument, NULL, OPT_TRACE_EVENTS },
		{ "trace-max-mb", required_argument, NULL, OPT_TRACE_MAX_MB },
		{ "trace-gzip", required_argument, NULL, OPT_TRACE_GZIP },
		{ "check", no_argument, NULL, OPT_CHECK },
		{ "oracle", no_argument, NULL, OPT_ORACLE },
		{ "quiet", no_argument, NULL, 'q' },
		{ "help", no_argument, NULL, 'h' },
		{ 0, 0, 0, 0 },
	};
	int c;
	opterr = 0;
	while ((c = next_opt("run", argc, argv, ":qh", opts)) != -1) {
		switch (c) {
		case 'h': fputs(run_usage, stdout); exit(0);
		case 'q': a->quiet = true; break;
		case OPT_CHECK: a->check = true; break;
		case OPT_ORACLE: a->oracle = true; break;
		case OPT_JSON: a->json = optarg; break;
		case OPT_KERNEL: add_override(a, "--kernel", "kernel.name", optarg); break;
		case OPT_SEED: add_override(a, "--seed", "run.seed", optarg); break;
		case OPT_DURATION: add_override(a, "--duration", "run.duration_s", optarg); break;
		case OPT_SET: add_override(a, "--set", NULL, optarg); break;
		case OPT_COSTS: add_override(a, "--costs", NULL, optarg); break;
		case OPT_EXACT: add_override(a, "--exact", "run.exact", "true"); break;
		case OPT_TRACE: a->trace.path = optarg; break;
		case OPT_TRACE_WINDOW: a->trace.window = optarg; break;
		case OPT_TRACE_EVENTS: a->trace.events = optarg; break;
		case OPT_TRACE_MAX_MB: a->trace.max_mb = optarg; break;
		case OPT_TRACE_GZIP: a->trace.gzip = optarg; break;
		default: return EXIT_INPUT;
		}
	}
	if (optind != argc - 1) {
		fprintf(stderr, "numasim run: expected one SCENARIO or FILE, got %d\n"
			"Try 'numasim run --help'.\n", argc - optind);
		return EXIT_INPUT;
	}
	a->scenario = argv[optind];
	return 0;
}

static int apply_overrides(const struct run_args *a, struct scenario *sc, char *err,
			   size_t errlen)
{
	for (int i = 0; i < a->nr_ov; i++) {
		const struct override *o = &a->ov[i];
		int rc = !strcmp(o->option, "--costs") ? scenario_apply_fragment(sc, o->value, err, errlen)
			 : o->key ? scenario_set_option(sc, o->option, o->key, o->value, err, errlen)
				  : scenario_set(sc, o->value, err, errlen);
		if (rc)
			return -1;
	}
	return 0;
}

/* Two outputs, or an output and the scenario file, must not be one file:
 * '--json t.json --trace t' once wrote the trace over the report. */
static int check_collisions(const struct run_args *a, const struct scenario *sc, char *err,
			    size_t errlen)
{
	char tj[sizeof(a->trace.base) + 8], tz[sizeof(a->trace.base) + 8], tt[sizeof(a->trace.base) + 8],
	     td[sizeof(a->trace.base) + 8];
	const char *name[6], *path[6];
	int n = 0;
	if (a->json) {
		name[n] = "--json";
		path[n++] = a->json;
	}
	if (a->trace.path) {
		snprintf(tj, sizeof(tj), "%s.json", a->trace.base);
		snprintf(tt, sizeof(tt), "%s.txt", a->trace.base);
		snprintf(td, sizeof(td), "%s.dat", a->trace.base);
		snprintf(tz, sizeof(tz), "%s.json.gz", a->trace.base);
		name[n] = "--trace";
		path[n++] = tj;
		name[n] = "--trace";
		path[n++] = tz; /* the JSON's name if it is gzip'd */
		name[n] = "--trace";
		path[n++] = tt;
		name[n] = "--trace";
		path[n++] = td;
	}
	for (int i = 0; i < n; i++) {
		for (int j = 0; j < i; j++)
			if (outfile_same(path[i], path[j])) {
				snprintf(err, errlen, "%s %s and %s %s name the same file: give them "
					 "different names", name[j], path[j], name[i], path[i]);
				return -1;
			}
		if (strncmp(sc->source, "builtin:", 8) && outfile_same(path[i], sc->source)) {
			snprintf(err, errlen, "%s %s is the scenario file being run: give the output "
				 "another name", name[i], path[i]);
			return -1;
		}
	}
	return 0;
}

/* Read the scenario and the options into @sc and @s.  0 or -1 with @err. */
static int prepare(struct run_args *a, struct scenario *sc, struct sim *s, char *err,
		   size_t errlen)
{
	if (load_scenario(a->scenario, sc, err, errlen) || apply_overrides(a, sc, err, errlen))
		return -1;
	if (scenario_validate(sc, err, errlen) || scenario_to_sim(sc, s, err, errlen) ||
	    scenario_check_host(sc, host_memory_bytes(), err, errlen))
		return -1;
	if (a->json && strcmp(a->json, "-") && outfile_check("--json", a->json, err, errlen))
		return -1;
	if (trace_opts_check(&a->trace, s->duration_ns, err, errlen))
		return -1;
	return check_collisions(a, sc, err, errlen);
}

static double now_s(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

/* The TLB oracle's verdict on stderr. */
static void oracle_summary(struct sim *s)
{
	struct oracle_counts oc;
	oracle_counts(s, &oc);
	for (int i = 0; i < oracle_nr_reports(s); i++)
		fputs(oracle_report(s, i), stderr);
	/* no check, no verdict: a run shorter than the scan delay proves nothing */
	const char *verdict = oc.violations ? "UNSAFE" : oc.checks ? "safe" : "inconclusive";
	fprintf(stderr, "oracle: %s: %llu migrations, %llu checks", verdict,
		(unsigned long long)oc.migrations, (unsigned long long)oc.checks);
	if (oc.zaps) /* madvise(MADV_DONTNEED) returns checked, as verify says */
		fprintf(stderr, " (%llu zap returns)", (unsigned long long)oc.zaps);
	fprintf(stderr, ", %llu stale translations\n", (unsigned long long)oc.violations);
}

/* Create the temporaries of --json (out[0]) and the trace before the run:
 * an output that cannot be created (--json /proc/x.json) fails in a
 * moment, not after the whole run.  Returns how many, or -1 after a
 * message. */
static int open_outputs(const char *json, const struct trace_opts *trace, struct outfile *out)
{
	char err[9000];
	int nr = 0;
	if (json) {
		if (outfile_open(&out[0], "--json", json, err, sizeof(err))) {
			cli_error("numasim: ", err);
			return -1;
		}
		nr++;
	}
	if (trace->path) {
		if (trace_files_open(trace, &out[nr], err, sizeof(err))) {
			cli_error("numasim: ", err);
			if (nr)
				outfile_discard(&out[0]);
			return -1;
		}
		nr += TRACE_FILES;
	}
	return nr;
}

/* After the run: the JSON and the trace into their temporaries.  0, or 1
 * after a message (the temporaries removed). */
static int fill_outputs(struct sim *s, const struct scenario *sc, const char *json, struct trace_output *tr,
			struct outfile *out)
{
	char err[9000];
	if (json) {
		json_t *j = report_json(s, sc);
		int bad = !j || report_put_json(j, &out[0], err, sizeof(err));
		json_decref(j);
		if (bad) {
			cli_error("numasim: ", j ? err : "cannot build the JSON report");
			outfile_discard(&out[0]);
			return 1;
		}
	}
	if (tr && trace_output_write(tr, &out[json ? 1 : 0], err, sizeof(err))) {
		cli_error("numasim: ", err);
		if (json)
			outfile_discard(&out[0]);
		return 1;
	}
	return 0;
}

/* Run @s; if its trace fits, print the report and write the JSON and the
 * trace, all committed together.  Returns the exit status. */
static int execute(struct sim *s, const struct scenario *sc, const char *json,
		   const struct trace_opts *trace, bool oracle)
{
	char err[9000];
	int rc = 0, nr;
	struct outfile out[1 + TRACE_FILES];
	struct trace_output *tr = NULL;
	bool json_stdout = json && !strcmp(json, "-");
	if (json_stdout)
		json = NULL; /* no file */
	if ((nr = open_outputs(json, trace, out)) < 0) {
		sim_free(s);
		return EXIT_INPUT;
	}
	if (sim_init(s, err, sizeof(err)) ||
	    (trace_attach(s, trace) && snprintf(err, sizeof(err), "out of memory"))) {
		cli_error("numasim: ", err);
		rc = 1;
	} else if (oracle && oracle_enable(s, false)) {
		fprintf(stderr, "numasim: out of memory for the TLB oracle\n");
		rc = 1;
	}
	if (!rc) {
		sim_run(s);
		if (oracle)
			oracle_summary(s);
		if (mm_debug_enabled(s, &s->debug) && s->progress_out)
			fprintf(s->progress_out, "invariants: %llu full checks, none violated\n",
				(unsigned long long)s->debug.checks);
		rc = trace_finish_run(s, trace, sc->name, stderr, &tr); /* over the limit: nothing written */
	}
	if (!rc && json_stdout) { /* --json -: the JSON instead of the report */
		json_t *j = report_json(s, sc);
		if (!j || report_print_json(j, stdout)) {
			fprintf(stderr, "numasim: cannot write the JSON to stdout: %s\n", strerror(errno));
			rc = 1;
		}
		json_decref(j);
	} else if (!rc) {
		report_text(s, sc, stdout);
		if (fflush(stdout) != 0 || ferror(stdout)) {
			fprintf(stderr, "numasim: cannot write the report to stdout: %s\n", strerror(errno));
			rc = 1;
		}
	}
	if (!rc && nr && !(rc = fill_outputs(s, sc, json, tr, out))) {
		if (outfile_commit_group(out, nr, err, sizeof(err))) {
			cli_error("numasim: ", err);
			rc = 1;
		} else if (tr) {
			trace_output_report(tr, stderr);
		}
	}
	for (int i = 0; i < nr; i++)
		outfile_discard(&out[i]); /* the temporaries of a failed run; nothing once committed */
	trace_output_free(tr);
	sim_free(s);
	return rc;
}

static int cmd_run(int argc, char **argv)
{
	double t0 = now_s();
	char err[2048];
	struct run_args a = { .ov = calloc((size_t)argc + 1, sizeof(struct override)) };
	struct scenario *sc = malloc(sizeof(*sc));
	struct sim *s = malloc(sizeof(*s));
	int rc = a.ov && sc && s ? parse_run_args(argc, argv, &a) : 1;
	if (rc == 0 && prepare(&a, sc, s, err, sizeof(err))) {
		cli_error("numasim run: ", err);
		rc = EXIT_INPUT;
	}
	if (rc == 0) {
		s->progress = isatty(STDERR_FILENO) && !a.quiet;
		s->progress_out = a.quiet ? NULL : stderr;
		s->debug.on = a.check;
		rc = execute(s, sc, a.json, &a.trace, a.oracle);
		if (!a.quiet)
			fprintf(stderr, "wall time: %.2f s\n", now_s() - t0);
	}
	free(a.ov);
	free(sc);
	free(s);
	return rc;
}

/* ---- listing commands --------------------------------------------------- */

static int cmd_scenarios(int argc, char **argv)
{
	bool names;
	if (list_opts("scenarios", scenarios_usage, argc, argv, &names))
		return EXIT_INPUT;
	for (const char *const *n = scenario_builtin_names(); *n; n++) {
		if (names)
			printf("%s\n", *n);
		else
			printf("  %-16s %s\n", *n, scenario_builtin_summary(*n));
	}
	return 0;
}

static int cmd_kernels(int argc, char **argv)
{
	bool names;
	if (list_opts("kernels", kernels_usage, argc, argv, &names))
		return EXIT_INPUT;
	if (names)
		kernel_variants_print_names();
	else
		kernel_variants_print();
	return 0;
}

static int cmd_show(int argc, char **argv)
{
	int rc = simple_opts("show", show_usage, argc, argv);
	if (rc)
		return rc;
	if (optind != argc - 1) {
		fprintf(stderr, "numasim show: expected one SCENARIO\nTry 'numasim show --help'.\n");
		return EXIT_INPUT;
	}
	const char *text = scenario_builtin_text(argv[optind]);
	if (!text) {
		fprintf(stderr, "numasim show: %s: no such built-in scenario (see 'numasim scenarios')\n",
			argv[optind]);
		return EXIT_INPUT;
	}
	fputs(text, stdout);
	return 0;
}

/* ---- dispatch ----------------------------------------------------------- */

struct command {
	const char *name;
	int (*fn)(int argc, char **argv);
	const char *usage;
};

static const struct command commands[] = {
	{ "run", cmd_run, run_usage },
	{ "ab", cmd_ab, ab_usage },
	{ "validate", cmd_validate, validate_usage },
	{ "timeline", cmd_timeline, timeline_usage },
	{ "verify", cmd_verify, verify_usage },
	{ "plot", cmd_plot, plot_usage },
	{ "compare", cmd_compare, compare_usage },
	{ "sweep", cmd_sweep, sweep_usage },
	{ "scenarios", cmd_scenarios, scenarios_usage },
	{ "kernels", cmd_kernels, kernels_usage },
	{ "show", cmd_show, show_usage },
};

#define NR_COMMANDS (sizeof(commands) / sizeof(commands[0]))

static const struct command *find_command(const char *name)
{
	for (size_t i = 0; i < NR_COMMANDS; i++)
		if (!strcmp(commands[i].name, name))
			return &commands[i];
	return NULL;
}

/* "unknown command" with the closest command, if one is close. */
static void unknown_command(const char *prefix, const char *name)
{
	struct suggest sg;
	suggest_init(&sg, name);
	for (size_t i = 0; i < NR_COMMANDS; i++)
		suggest_offer(&sg, commands[i].name);
	const char *near = suggest_result(&sg);
	fprintf(stderr, "%s: unknown command '", prefix);
	fputs_escaped(name, stderr);
	if (near)
		fprintf(stderr, "'; did you mean '%s'?\n\n%s", near, usage_text);
	else
		fprintf(stderr, "'\n\n%s", usage_text);
}

/* "numasim help [COMMAND]" */
static int cmd_help(int argc, char **argv)
{
	const struct command *c = argc > 1 ? find_command(argv[1]) : NULL;
	if (argc > 1 && !c) {
		unknown_command("numasim help", argv[1]);
		return EXIT_INPUT;
	}
	fputs(c ? c->usage : usage_text, stdout);
	return 0;
}

int main(int argc, char **argv)
{
	if (argc < 2 || !strcmp(argv[1], "--help") || !strcmp(argv[1], "-h")) {
		fputs(usage_text, stdout);
		return 0;
	}
	if (!strcmp(argv[1], "help"))
		return cmd_help(argc - 1, argv + 1);
	if (!strcmp(argv[1], "--version")) {
		printf("numasim %s (build %s)\n", NUMASIM_VERSION, numasim_build_id);
		return 0;
	}
	const struct command *c = find_command(argv[1]);
	if (!c) {
		unknown_command("numasim", argv[1]);
		return EXIT_INPUT;
	}
	return c->fn(argc - 1, argv + 1);
}
