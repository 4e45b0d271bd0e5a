/* numaload: a numasim scenario's workload on a real Linux machine, with the
 * kernel's own counters read before, during and after, written as the JSON
 * of `numasim run --json`.  See docs/realcheck.md. */
#include <getopt.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "lib/version.h"
#include "report/report.h"
#include "cli/cli.h"
#include "lib/outfile.h"
#include "out.h"
#include "profile.h"
#include "run.h"
#include "shape.h"
#include "table.h"

static const char usage[] =
	"usage: numaload SCENARIO [--json FILE] [--threads pinned|node|free] [--trace]\n"
	"                [--set KEY=VALUE]... [--quiet]\n"
	"       numaload --table LABEL REAL.json SIM.json [LABEL REAL.json SIM.json]...\n"
	"       numaload --version\n"
	"       numaload profile [--json FILE] [--ini FILE] [--quick] [--cpus LIST]\n"
	"\n"
	"Run a numasim scenario's workload on this machine: its processes and\n"
	"threads, its anonymous memory laid out and first-touched as numasim lays\n"
	"it out, every thread touching its private slice and its process's shared\n"
	"region at the scenario's proportions as fast as it can, for run.duration_s.\n"
	"The kernel's counters (/proc/vmstat, the /proc/interrupts TLB line) are\n"
	"read before, once a second and after; the result is the JSON of 'numasim\n"
	"run --json', for 'numasim compare' and 'numasim plot'.\n"
	"\n"
	"SCENARIO is an INI file (or a built-in name) read by numasim's parser.\n"
	"[machine] keys must describe this machine (those left out are read from\n"
	"it); [tunables] are written to the kernel for the run and restored after\n"
	"(root); the workload's shape and [run] are honoured; what numaload does\n"
	"not do (sleeps, access patterns, migration calls, madvise, THP, --exact)\n"
	"is accepted only at numasim's default, off; [costs], [kernel] and the\n"
	"simulator-only machine keys are errors (FILE:LINE: key).\n"
	"\n"
	"options:\n"
	"  --json FILE        write the result there (default: stdout)\n"
	"  --threads MODE     pinned: each thread on numasim's CPU for it;\n"
	"                     node: on that CPU's node; free: anywhere (default:\n"
	"                     the scenario's workload.bind: cpu, node or none)\n"
	"  --trace            count tlb:tlb_flush (by reason and call path),\n"
	"                     migrate:mm_migrate_pages and sched:sched_skip_vma_numa\n"
	"                     with tracefs histogram triggers (root)\n"
	"  --tracefs DIR      tracefs mount point (default /sys/kernel/tracing)\n"
	"  --save-hist DIR    with --trace: keep the raw histogram files in DIR\n"
	"  --set KEY=VALUE    as numasim's --set (run.duration_s=5, workload.threads=2)\n"
	"  --quiet            no progress on stderr\n"
	"\n"
	"--table prints a real result beside numasim's for the same scenario:\n"
	"counts and ratios, numasim / real, and whether each is within 1.5x.\n"
	"\n"
	"profile measures this machine's costs for numasim's model ('numaload\n"
	"profile --help').\n"
	"\n"
	"exit status: 0 ok, 1 the machine failed, 2 bad input, 130 interrupted.\n";

int main(int argc, char **argv)
{
	static const struct option opts[] = {
		{ "json", required_argument, NULL, 'j' },
		{ "threads", required_argument, NULL, 't' },
		{ "trace", no_argument, NULL, 'T' },
		{ "tracefs", required_argument, NULL, 'F' },
		{ "save-hist", required_argument, NULL, 'H' },
		{ "set", required_argument, NULL, 's' },
		{ "quiet", no_argument, NULL, 'q' },
		{ "help", no_argument, NULL, 'h' },
		{ 0, 0, 0, 0 },
	};
	struct nl_opts o = { .threads = -1, .tracefs = "/sys/kernel/tracing" };
	const char *json_path = NULL;
	char *sets[64];
	int nsets = 0, ch;
	char err[1024];

	if (argc > 1 && !strcmp(argv[1], "--table"))
		return nl_table_main(argc - 2, argv + 2);
	if (argc == 2 && !strcmp(argv[1], "--version")) {
		printf("numaload %s (build %s)\n", NUMASIM_VERSION, numasim_build_id);
		return 0;
	}
	if (argc > 1 && !strcmp(argv[1], "profile"))
		return nl_profile_main(argc - 1, argv + 1);
	opterr = 0;
	while ((ch = getopt_long(argc, argv, ":h", opts, NULL)) != -1) {
		switch (ch) {
		case 'j': json_path = optarg; break;
		case 'T': o.trace = true; break;
		case 'F': o.tracefs = optarg; break;
		case 'H': o.save_hist = optarg; o.trace = true; break;
		case 'q': o.quiet = true; break;
		case 'h': fputs(usage, stdout); return 0;
		case 't':
			if (!strcmp(optarg, "pinned"))
				o.threads = NL_PINNED;
			else if (!strcmp(optarg, "node"))
				o.threads = NL_NODE;
			else if (!strcmp(optarg, "free"))
				o.threads = NL_FREE;
			else {
				fprintf(stderr, "numaload: --threads: expected pinned, node or free\n");
				return EXIT_INPUT;
			}
			break;
		case 's':
			if (nsets == (int)(sizeof(sets) / sizeof(sets[0]))) {
				fprintf(stderr, "numaload: too many --set options\n");
				return EXIT_INPUT;
			}
			sets[nsets++] = optarg;
			break;
		case ':':
			fprintf(stderr, "numaload: option '%s' needs a value\n", argv[optind - 1]);
			return EXIT_INPUT;
		default:
			fprintf(stderr, "numaload: unknown option '%s'\nTry 'numaload --help'.\n", argv[optind - 1]);
			return EXIT_INPUT;
		}
	}
	if (optind != argc - 1) {
		fprintf(stderr, "numaload: expected one scenario\nTry 'numaload --help'.\n");
		return EXIT_INPUT;
	}
	struct scenario *sc = malloc(sizeof(*sc));
	struct nl_real *r = malloc(sizeof(*r));
	struct nl_result res;
	json_t *j = NULL;
	int rc = EXIT_INPUT;
	bool ran = false;
	if (!sc || !r) {
		fprintf(stderr, "numaload: out of memory\n");
		rc = 1;
		goto out;
	}
	if (load_scenario(argv[optind], sc, err, sizeof(err)))
		goto fail;
	for (int i = 0; i < nsets; i++)
		if (scenario_set(sc, sets[i], err, sizeof(err)))
			goto fail;
	if (json_path && outfile_check("--json", json_path, err, sizeof(err)))
		goto fail;
	if (nl_real_read(r, err, sizeof(err))) {
		rc = 1;
		goto fail;
	}
	if (nl_shape_resolve(sc, r, err, sizeof(err)))
		goto fail;
	if ((int)o.threads < 0) /* the scenario's workload.bind, as numasim runs it */
		o.threads = sc->w.bind == BIND_CPU ? NL_PINNED : sc->w.bind == BIND_NODE ? NL_NODE : NL_FREE;

	ran = true;
	rc = nl_run(sc, r, &o, &res, err, sizeof(err));
	if (rc)
		goto fail;
	j = nl_result_json(sc, r, &o, &res);
	if (json_path) {
		rc = nl_write_json(j, json_path, err, sizeof(err)) ? 1 : 0;
		if (rc)
			goto fail;
	} else {
		rc = json_dumpf(j, stdout, JSON_INDENT(2) | JSON_PRESERVE_ORDER | JSON_REAL_PRECISION(10)) ||
		     fputc('\n', stdout) == EOF || fflush(stdout) ? 1 : 0;
	}
	goto out;
fail:
	fprintf(stderr, "numaload: %s\n", err);
out:
	json_decref(j);
	if (ran)
		nl_result_free(&res);
	free(sc);
	free(r);
	return rc;
}
