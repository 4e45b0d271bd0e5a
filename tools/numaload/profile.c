/* `numaload profile`: the command.  Which CPUs to measure on, which
 * figures the user requires, the measurements in turn, then the JSON and
 * INI outputs (profile.h says what each file measures). */
#define _GNU_SOURCE /* sched_getaffinity */
#include "profile.h"

#include <getopt.h>
#include <numa.h>
#include <sched.h>
#include <stdlib.h>
#include <string.h>
#include <sys/utsname.h>

#include "cli/cli.h"
#include "counters.h"
#include "lib/outfile.h"

const struct nl_fig_def nl_fig_defs[NR_NLF] = {
	/* reported only: a nominal reading, not timed (a TCG guest reports
	 * its host's clock while its costs are the emulator's) */
	[NLF_CPU_GHZ] = { "cpu_ghz", NULL, NULL, "GHz", "cpu" },
	[NLF_TLB_ENTRIES] = { "tlb_entries", "machine", "tlb_entries", "entries", "tlb_entries" },
	[NLF_IPI_BASE] = { "ipi_send_base", "costs", "ipi_send_base_ns", "ns", "ipi" },
	[NLF_IPI_PER_CPU] = { "ipi_send_per_cpu", "costs", "ipi_send_per_cpu_ns", "ns", "ipi" },
	[NLF_IPI_REMOTE] = { "ipi_send_remote", "costs", "ipi_send_remote_ns", "ns", "ipi" },
	[NLF_IPI_CONTENDED] = { "ipi_callback", "costs", "ipi_callback_ns", "ns", "contention" },
	[NLF_PTE_UPDATE] = { "pte_update", "costs", "pte_update_ns", "ns", "pte" },
	[NLF_PTE_SKIP] = { "pte_skip", "costs", "pte_skip_ns", "ns", "pte" },
	[NLF_DRAM_LOCAL] = { "dram_local", "costs", "dram_local_ns", "ns", "latency" },
	[NLF_DRAM_REMOTE] = { "dram_remote", NULL, NULL, "ns", "remote" },
	[NLF_MIGRATE_PAGE] = { "move_pages_per_page", NULL, NULL, "ns", "migrate" },
	/* reported only: the walks mostly hit the caches, numasim's
	 * page_walk_ns is one whose PTE load misses them */
	[NLF_PAGE_WALK] = { "page_walk", NULL, NULL, "ns", "tlb" },
};

static const char usage[] =
	"usage: numaload profile [--json FILE] [--ini FILE] [--quick] [--cpus LIST]\n"
	"                        [--require GROUP[,GROUP]...]\n"
	"\n"
	"Measure, on this machine, the costs numasim's model needs: the TLB flush\n"
	"round against the number of CPUs it reaches (ipi_send_base_ns,\n"
	"ipi_send_per_cpu_ns, ipi_send_remote_ns) and with two initiators at\n"
	"once (ipi_callback_ns),\n"
	"mprotect per PTE (pte_update_ns, pte_skip_ns), memory latency\n"
	"(dram_local_ns; remote latency and move_pages per page with two NUMA\n"
	"nodes, reported only), the TLB refill after a full flush per page\n"
	"(reported only: its walks hit the caches, the model's page_walk_ns\n"
	"misses them) and the clock (cpu_ghz).  Each figure is a median over\n"
	"trials with its spread.  No root needed.\n"
	"\n"
	"options:\n"
	"  --json FILE      every figure: median, p10-p90, min-max, trials, raw\n"
	"                   curve, and what was not measured and why (default: stdout)\n"
	"  --ini FILE       the [machine] and [costs] keys measured, each after a\n"
	"                   comment with its spread, for 'numasim run S --costs FILE'\n"
	"  --quick          few trials and target counts 0, 1 and the most: seconds\n"
	"  --cpus LIST      the CPUs to use (0-3,8); the first one times the flushes\n"
	"                   (default: every CPU this process may run on)\n"
	"  --require LIST   fail (exit 1, nothing written) unless these groups were\n"
	"                   measured: cpu, ipi, contention, pte, latency, remote,\n"
	"                   migrate, tlb, tlb_entries\n"
	"\n"
	"exit status: 0 ok, 1 a required figure not measured or a write failed,\n"
	"2 bad input.\n";

int nl_prof_check_cpus(const int *cpus, int n, const int *allowed, int nallowed, char *err,
		       size_t errlen)
{
	for (int i = 0; i < n; i++) {
		bool ok = false;
		for (int j = 0; j < nallowed && !ok; j++)
			ok = allowed[j] == cpus[i];
		if (!ok) {
			snprintf(err, errlen, "--cpus: CPU %d is offline or outside this process's "
				 "affinity (taskset): it cannot be measured", cpus[i]);
			return -1;
		}
		for (int j = 0; j < i; j++)
			if (cpus[j] == cpus[i]) {
				snprintf(err, errlen, "--cpus: CPU %d named twice", cpus[i]);
				return -1;
			}
	}
	return 0;
}

/* Does @list (comma-separated) name @group? */
static bool names(const char *list, const char *group)
{
	size_t len = strlen(group);
	for (const char *p = list; p; p = strchr(p, ',') ? strchr(p, ',') + 1 : NULL)
		if (!strncmp(p, group, len) && (p[len] == ',' || !p[len]))
			return true;
	return false;
}

static int check_group_names(const char *list, char *err, size_t errlen)
{
	for (const char *p = list; p; p = strchr(p, ',') ? strchr(p, ',') + 1 : NULL) {
		size_t len = strcspn(p, ",");
		bool known = false;
		for (int i = 0; i < NR_NLF && !known; i++)
			known = strlen(nl_fig_defs[i].group) == len && !strncmp(p, nl_fig_defs[i].group, len);
		if (!known) {
			snprintf(err, errlen, "--require: unknown group '%.*s' (known: cpu, ipi, "
				 "contention, pte, latency, remote, migrate, tlb, tlb_entries)", (int)len, p);
			return -1;
		}
	}
	return 0;
}

int nl_prof_require(const struct nl_profile *p, const char *list, char *err, size_t errlen)
{
	if (check_group_names(list, err, errlen))
		return -2;
	for (int i = 0; i < NR_NLF; i++)
		if (names(list, nl_fig_defs[i].group) && !p->fig[i].measured) {
			snprintf(err, errlen, "--require %s: %s was not measured: %s",
				 nl_fig_defs[i].group, nl_fig_defs[i].name, p->fig[i].why);
			return -1;
		}
	return 0;
}

/* cpu_ghz: /proc/cpuinfo's "cpu MHz" (x86), else cpufreq's current
 * frequency of each CPU measured; the median over CPUs. */
void nl_prof_cpu(struct nl_profile *p)
{
	struct nl_figure *f = &p->fig[NLF_CPU_GHZ];
	double v[NL_PROF_MAX_CPUS];
	int n = 0;
	char *text = nl_read_text("/proc/cpuinfo");
	for (const char *s = text; s && (s = strstr(s, "cpu MHz")) && n < NL_PROF_MAX_CPUS; s++) {
		const char *colon = strchr(s, ':');
		if (colon && (v[n] = strtod(colon + 1, NULL) / 1000) > 0)
			n++;
	}
	free(text);
	for (int i = 0, cpufreq = !n; cpufreq && i < p->ncpus; i++) {
		char path[96];
		snprintf(path, sizeof(path), "/sys/devices/system/cpu/cpu%d/cpufreq/scaling_cur_freq",
			 p->cpus[i]);
		char *khz = nl_read_text(path);
		double x;
		if (khz && (x = strtod(khz, NULL) / 1e6) > 0) /* a CPU without the file adds nothing */
			v[n++] = x;
		free(khz);
	}
	if (!n)
		nl_fig_skip(f, "not measured: no 'cpu MHz' in /proc/cpuinfo and no cpufreq");
	else
		nl_fig_set(f, v, n, "read, not timed: /proc/cpuinfo 'cpu MHz' (or cpufreq), one "
			   "reading per CPU; the nominal clock in a VM");
}

static int count_nodes(void)
{
	int n = 0;
	if (numa_available() < 0)
		return 1;
	for (int i = 0; i <= numa_max_node(); i++)
		n += numa_node_size64(i, NULL) > 0;
	return n > 0 ? n : 1;
}

/* The CPUs to measure on: --cpus, checked against the affinity, or all. */
static int choose_cpus(struct nl_profile *p, const char *list, char *err, size_t errlen)
{
	cpu_set_t set;
	static int allowed[NL_PROF_MAX_CPUS];
	int nallowed = 0;
	if (sched_getaffinity(0, sizeof(set), &set)) {
		snprintf(err, errlen, "sched_getaffinity failed");
		return -1;
	}
	for (int c = 0; c < CPU_SETSIZE && nallowed < NL_PROF_MAX_CPUS; c++)
		if (CPU_ISSET(c, &set))
			allowed[nallowed++] = c;
	if (!list) {
		memcpy(p->cpus, allowed, sizeof(int) * (size_t)nallowed);
		p->ncpus = nallowed;
		return 0;
	}
	p->ncpus = nl_parse_cpulist(list, p->cpus, NL_PROF_MAX_CPUS);
	if (p->ncpus <= 0) {
		snprintf(err, errlen, "--cpus: '%s' is no CPU list (0-3,8)", list);
		return -1;
	}
	return nl_prof_check_cpus(p->cpus, p->ncpus, allowed, nallowed, err, errlen);
}

static void measure(struct nl_profile *p, const struct nl_prof_opts *o)
{
	nl_prof_cpu(p);
	nl_fig_skip(&p->fig[NLF_TLB_ENTRIES], "not measured: a cpuid leaf per vendor (out of scope)");
	nl_prof_ipi(p, o);
	nl_prof_pte(p, o);
	nl_prof_mem(p, o);
	nl_prof_tlb(p, o);
}

static int write_stdout(const struct nl_profile *p)
{
	json_t *j = nl_profile_json(p);
	int rc = json_dumpf(j, stdout, JSON_INDENT(2) | JSON_PRESERVE_ORDER | JSON_REAL_PRECISION(10)) ||
		 fputc('\n', stdout) == EOF || fflush(stdout) ? 1 : 0;
	json_decref(j);
	return rc;
}

int nl_profile_main(int argc, char **argv)
{
	static const struct option opts[] = {
		{ "json", required_argument, NULL, 'j' },
		{ "ini", required_argument, NULL, 'i' },
		{ "quick", no_argument, NULL, 'Q' },
		{ "cpus", required_argument, NULL, 'c' },
		{ "require", required_argument, NULL, 'r' },
		{ "help", no_argument, NULL, 'h' },
		{ 0, 0, 0, 0 },
	};
	const char *json_path = NULL, *ini_path = NULL, *cpus = NULL, *require = NULL;
	struct nl_prof_opts o = { 0 };
	char err[1024];
	int ch;
	opterr = 0;
	optind = 1;
	while ((ch = getopt_long(argc, argv, ":h", opts, NULL)) != -1) {
		switch (ch) {
		case 'j': json_path = optarg; break;
		case 'i': ini_path = optarg; break;
		case 'Q': o.quick = true; break;
		case 'c': cpus = optarg; break;
		case 'r': require = optarg; break;
		case 'h': fputs(usage, stdout); return 0;
		case ':':
			fprintf(stderr, "numaload profile: option '%s' needs a value\n", argv[optind - 1]);
			return EXIT_INPUT;
		default:
			fprintf(stderr, "numaload profile: unknown option '%s'\nTry 'numaload profile "
				"--help'.\n", argv[optind - 1]);
			return EXIT_INPUT;
		}
	}
	if (optind != argc) {
		fprintf(stderr, "numaload profile: unexpected argument '%s'\n", argv[optind]);
		return EXIT_INPUT;
	}
	struct nl_profile *p = calloc(1, sizeof(*p));
	int rc = EXIT_INPUT;
	if (!p) {
		fprintf(stderr, "numaload profile: out of memory\n");
		return 1;
	}
	if ((require && check_group_names(require, err, sizeof(err))) ||
	    choose_cpus(p, cpus, err, sizeof(err)) ||
	    (json_path && outfile_check("--json", json_path, err, sizeof(err))) ||
	    (ini_path && outfile_check("--ini", ini_path, err, sizeof(err))))
		goto fail;
	struct utsname u;
	if (!uname(&u)) {
		snprintf(p->release, sizeof(p->release), "%s", u.release);
		snprintf(p->arch, sizeof(p->arch), "%s", u.machine);
	}
	p->quick = o.quick;
	o.trials = o.quick ? 7 : 15;
	p->nodes = count_nodes();
	measure(p, &o);
	rc = 1;
	if (require && nl_prof_require(p, require, err, sizeof(err)))
		goto fail;
	if (json_path || ini_path)
		rc = nl_profile_write(p, json_path, ini_path, err, sizeof(err)) ? 1 : 0;
	else
		rc = write_stdout(p);
	if (rc)
		goto fail;
	free(p);
	return 0;
fail:
	cli_error("numaload profile: ", err); /* paths and --cpus as given: escaped */
	free(p);
	return rc;
}
