/* The scenario on a real machine (see shape.h). */
#include "shape.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/utsname.h>

#include "counters.h"
#include "keys.h"
#include "kernel/sched/topology.h"

#define ARRAY_SIZE(a) (sizeof(a) / sizeof((a)[0]))

/* ---- the real machine ------------------------------------------------------ */

static int read_int(const char *path, int *out)
{
	char *t = nl_read_text(path);
	if (!t)
		return -1;
	char *end;
	errno = 0;
	long v = strtol(t, &end, 10);
	int bad = end == t || errno || v < -1 || v > 1 << 30;
	free(t);
	if (bad)
		return -1;
	*out = (int)v;
	return 0;
}

static int read_cpulist(const char *path, int *cpus, int max)
{
	char *t = nl_read_text(path);
	if (!t)
		return -1;
	int n = nl_parse_cpulist(t, cpus, max);
	free(t);
	return n;
}

/* CONFIG_HZ of the running kernel from /boot/config-RELEASE (Debian and
 * most distributions install it; the realcheck guest carries it). */
static int config_hz(const char *release)
{
	char path[256];
	snprintf(path, sizeof(path), "/boot/config-%s", release);
	char *t = nl_read_text(path);
	if (!t)
		return 0;
	int hz = 0;
	const char *p = strstr(t, "\nCONFIG_HZ=");
	if (p)
		hz = atoi(p + 11);
	free(t);
	return hz > 0 ? hz : 0;
}

/* x86 without the invlpgb CPU flag flushes remote TLBs with IPIs.  With
 * the flag, Linux broadcasts with INVLPGB only from the release that
 * merged broadcast TLB invalidation; numaload cannot see whether the
 * running kernel is one of those and reports x86-invlpgb (docs/realcheck.md). */
static enum flush_engine flush_engine_of(const char *machine)
{
	if (!strcmp(machine, "aarch64"))
		return FLUSH_ARM64;
	if (!strncmp(machine, "riscv", 5))
		return FLUSH_RISCV;
	char *t = nl_read_text("/proc/cpuinfo");
	enum flush_engine e = FLUSH_X86_IPI;
	if (t) {
		const char *flags = strstr(t, "\nflags");
		const char *eol = flags ? strchr(flags + 1, '\n') : NULL;
		const char *f = flags ? strstr(flags, " invlpgb") : NULL;
		if (f && (!eol || f < eol) && (f[8] == ' ' || f[8] == '\n'))
			e = FLUSH_X86_INVLPGB;
		free(t);
	}
	return e;
}

int nl_real_read(struct nl_real *r, char *err, size_t errlen)
{
	char path[256];
	struct utsname u;
	memset(r, 0, sizeof(*r));
	if (uname(&u) == 0) {
		snprintf(r->release, sizeof(r->release), "%s", u.release);
		snprintf(r->machine, sizeof(r->machine), "%s", u.machine);
	}
	static int online[MAX_NUMNODES * 64];
	int n = read_cpulist("/sys/devices/system/node/online", online, (int)ARRAY_SIZE(online));
	if (n <= 0) {
		snprintf(err, errlen, "/sys/devices/system/node/online: cannot read the NUMA nodes "
			 "(a kernel without CONFIG_NUMA, or no sysfs)");
		return -1;
	}
	int sockets[MAX_NUMNODES], nr_sockets = 0;
	for (int i = 0; i < n; i++) {
		int id = online[i], k = r->nr_nodes;
		snprintf(path, sizeof(path), "/sys/devices/system/node/node%d/cpulist", id);
		int c = read_cpulist(path, r->node_cpus[k], NL_MAX_NODE_CPUS);
		if (c < 0) {
			snprintf(err, errlen, "%s: cannot read", path);
			return -1;
		}
		if (c == 0)
			continue; /* a memory-only node (CXL, PMEM): no thread runs there */
		if (k >= MAX_NUMNODES) {
			snprintf(err, errlen, "more than %d NUMA nodes with CPUs", MAX_NUMNODES);
			return -1;
		}
		r->node_id[k] = id;
		r->node_ncpus[k] = c;
		r->nr_cpus += c;
		snprintf(path, sizeof(path), "/sys/devices/system/node/node%d/meminfo", id);
		char *t = nl_read_text(path);
		if (!t || nl_parse_node_meminfo(t, "MemTotal", &r->node_mem_kb[k])) {
			free(t);
			snprintf(err, errlen, "%s: no MemTotal", path);
			return -1;
		}
		free(t);
		snprintf(path, sizeof(path),
			 "/sys/devices/system/cpu/cpu%d/topology/physical_package_id", r->node_cpus[k][0]);
		if (read_int(path, &r->node_socket[k]))
			r->node_socket[k] = 0;
		int s;
		for (s = 0; s < nr_sockets && sockets[s] != r->node_socket[k]; s++)
			;
		if (s == nr_sockets)
			sockets[nr_sockets++] = r->node_socket[k];
		r->nr_nodes++;
	}
	r->sockets = nr_sockets;
	/* SLIT rows, between the nodes with CPUs */
	for (int a = 0; a < r->nr_nodes; a++) {
		snprintf(path, sizeof(path), "/sys/devices/system/node/node%d/distance", r->node_id[a]);
		char *t = nl_read_text(path);
		const char *p = t;
		/* one entry per online node, in the order of the online list */
		for (int i = 0; p && i < n; i++) {
			char *end;
			long d = strtol(p, &end, 10);
			if (end == p)
				break;
			for (int k = 0; k < r->nr_nodes; k++)
				if (online[i] == r->node_id[k])
					r->distance[a][k] = (int)d;
			p = end;
		}
		free(t);
	}
	snprintf(path, sizeof(path), "/sys/devices/system/cpu/cpu%d/topology/thread_siblings_list",
		 r->node_cpus[0][0]);
	int sib[64];
	int ns = read_cpulist(path, sib, (int)ARRAY_SIZE(sib));
	r->threads_per_core = ns > 0 ? ns : 1;
	r->engine = flush_engine_of(r->machine);
	r->config_hz = config_hz(r->release);
	return 0;
}

/* ---- the keys ---------------------------------------------------------------- */

/* The real machine as numasim's topology: every node alike. */
struct topo {
	int sockets, nodes_per_socket, cores_per_node, threads_per_core;
	int same, remote;        /* SLIT distances, -1 if not uniform, 0 if none */
	double min_node_gib;
};

static int real_topo(const struct nl_real *r, struct topo *t, char *why, size_t len)
{
	memset(t, 0, sizeof(*t));
	t->sockets = r->sockets;
	if (!r->sockets || r->nr_nodes % r->sockets) {
		snprintf(why, len, "%d nodes on %d sockets: not the same number on each", r->nr_nodes,
			 r->sockets);
		return -1;
	}
	t->nodes_per_socket = r->nr_nodes / r->sockets;
	t->threads_per_core = r->threads_per_core;
	int per = r->node_ncpus[0];
	for (int k = 0; k < r->nr_nodes; k++)
		if (r->node_ncpus[k] != per) {
			snprintf(why, len, "node %d has %d CPUs, node %d has %d", r->node_id[0], per,
				 r->node_id[k], r->node_ncpus[k]);
			return -1;
		}
	if (per % t->threads_per_core) {
		snprintf(why, len, "%d CPUs per node with %d threads per core", per, t->threads_per_core);
		return -1;
	}
	t->cores_per_node = per / t->threads_per_core;
	t->min_node_gib = 1e18;
	for (int k = 0; k < r->nr_nodes; k++)
		if ((double)r->node_mem_kb[k] / (1 << 20) < t->min_node_gib)
			t->min_node_gib = (double)r->node_mem_kb[k] / (1 << 20);
	for (int a = 0; a < r->nr_nodes; a++)
		for (int b = 0; b < r->nr_nodes; b++) {
			if (a == b)
				continue;
			int *d = r->node_socket[a] == r->node_socket[b] ? &t->same : &t->remote;
			if (*d == 0)
				*d = r->distance[a][b];
			else if (*d != r->distance[a][b])
				*d = -1;
		}
	return 0;
}

/* Numbers as a scenario value. */
static int set_key(struct scenario *sc, const char *key, const char *fmt, double v, char *err,
		   size_t errlen)
{
	char val[64];
	snprintf(val, sizeof(val), fmt, v);
	return scenario_set_option(sc, "this machine", key, val, err, errlen);
}

/* A node's MemTotal is its DIMMs less what firmware and the kernel keep:
 * accept from 85% of the nominal size up to the nominal size (+1%). */
#define MEM_LOW 0.85
#define MEM_HIGH 1.01

static int check_machine_key(struct scenario *sc, int k, const char *name, const struct nl_real *r,
			     const struct topo *t, char *err, size_t errlen)
{
	const struct machine *m = &sc->m;
	int want = 0, have = 0;
	const char *what = NULL;
	if (!strcmp(name, "sockets")) {
		want = m->nr_sockets, have = t->sockets, what = "sockets";
	} else if (!strcmp(name, "nodes_per_socket")) {
		want = m->nodes_per_socket, have = t->nodes_per_socket, what = "NUMA nodes per socket";
	} else if (!strcmp(name, "cores_per_node")) {
		want = m->cores_per_node, have = t->cores_per_node, what = "cores per node";
	} else if (!strcmp(name, "threads_per_core")) {
		want = m->threads_per_core, have = t->threads_per_core, what = "threads per core";
	} else if (!strcmp(name, "cpus")) {
		want = sc->cpus, have = r->nr_cpus, what = "CPUs on nodes";
	} else if (!strcmp(name, "distance_same_socket")) {
		want = sc->distance_same_socket, have = t->same, what = "as the SLIT distance within a socket";
	} else if (!strcmp(name, "distance_remote")) {
		want = sc->distance_remote, have = t->remote, what = "as the SLIT distance between sockets";
	} else if (!strcmp(name, "flush_engine")) {
		if (m->engine == r->engine)
			return 0;
		return scenario_key_error(sc, k, err, errlen, "%s, but this machine flushes with %s",
					  flush_engine_names[m->engine], flush_engine_names[r->engine]);
	} else if (!strcmp(name, "hz")) {
		if (!r->config_hz)
			return scenario_key_error(sc, k, err, errlen,
						  "cannot check CONFIG_HZ here (no /boot/config-%s)",
						  r->release);
		want = m->hz, have = r->config_hz, what = "as CONFIG_HZ";
	} else if (!strcmp(name, "mem_per_node_gib")) {
		double gib = (double)m->mem_per_node_mib / 1024;
		if (t->min_node_gib >= gib * MEM_LOW && t->min_node_gib <= gib * MEM_HIGH)
			return 0;
		return scenario_key_error(sc, k, err, errlen,
					  "%g, but this machine's smallest node has %.3f GiB (MemTotal; "
					  "accepted: %.0f%% to %.0f%% of the value)",
					  gib, t->min_node_gib, MEM_LOW * 100, MEM_HIGH * 100);
	}
	if (want == have)
		return 0;
	if (have < 0)
		return scenario_key_error(sc, k, err, errlen, "%d, but this machine's distances differ "
					  "between node pairs", want);
	return scenario_key_error(sc, k, err, errlen, "%d, but this machine has %d %s", want, have, what);
}

int nl_shape_resolve(struct scenario *sc, const struct nl_real *r, char *err, size_t errlen)
{
	char buf[160], why[256];
	struct topo t;
	if (nl_keys_refuse(sc, err, errlen))
		return -1;
	int bad_topo = real_topo(r, &t, why, sizeof(why));
	for (int k = 0; k < scenario_key_count(); k++) {
		if (!scenario_key_assigned(sc, k) || nl_key_rule(k, NULL) != NL_CHECK)
			continue;
		if (bad_topo)
			return scenario_key_error(sc, k, err, errlen, "cannot be checked: this machine "
						  "is not numasim's uniform topology (%s)", why);
		const char *name = scenario_key_name(k, buf, sizeof(buf));
		if (check_machine_key(sc, k, strchr(name, '.') + 1, r, &t, err, errlen))
			return -1;
	}
	if (bad_topo) {
		snprintf(err, errlen, "%s: this machine is not numasim's uniform topology: %s", sc->source, why);
		return -1;
	}
	/* The machine's keys the scenario left out come from the machine. */
	static const struct { const char *key; int off; } fill[] = {
		{ "machine.sockets", 0 }, { "machine.nodes_per_socket", 1 },
		{ "machine.cores_per_node", 2 }, { "machine.threads_per_core", 3 },
	};
	const int vals[] = { t.sockets, t.nodes_per_socket, t.cores_per_node, t.threads_per_core };
	for (size_t i = 0; i < ARRAY_SIZE(fill); i++)
		if (!scenario_key_assigned(sc, scenario_key_index(fill[i].key)) &&
		    set_key(sc, fill[i].key, "%.0f", vals[fill[i].off], err, errlen))
			return -1;
	if (!scenario_key_assigned(sc, scenario_key_index("machine.mem_per_node_gib")) &&
	    set_key(sc, "machine.mem_per_node_gib", "%.6f", t.min_node_gib, err, errlen))
		return -1;
	if (!scenario_key_assigned(sc, scenario_key_index("machine.flush_engine")))
		sc->m.engine = r->engine;
	if (!scenario_key_assigned(sc, scenario_key_index("machine.distance_same_socket")) && t.same > 10 &&
	    set_key(sc, "machine.distance_same_socket", "%.0f", t.same, err, errlen))
		return -1;
	if (!scenario_key_assigned(sc, scenario_key_index("machine.distance_remote")) && t.remote > 10 &&
	    set_key(sc, "machine.distance_remote", "%.0f", t.remote, err, errlen))
		return -1;
	if (r->config_hz && !scenario_key_assigned(sc, scenario_key_index("machine.hz")))
		sc->m.hz = r->config_hz;
	return scenario_validate(sc, err, errlen);
}

/* ---- the layout: numasim's, in the same arithmetic -------------------------------- */

static uint64_t round_pmd(uint64_t pages)
{
	return (pages + NL_PMD_PAGES - 1) / NL_PMD_PAGES * NL_PMD_PAGES;
}

void nl_layout(const struct workload_params *p, struct nl_layout *l)
{
	uint64_t total = (uint64_t)(p->memory_gib * (double)(1ull << 30)) >> 12;
	uint64_t priv = (uint64_t)((double)total * p->private_fraction);
	l->slice_pages = priv ? round_pmd(priv / (uint64_t)p->threads) : 0;
	l->private_pages = l->slice_pages * (uint64_t)p->threads;
	l->shared_pages = round_pmd(total - (priv < total ? priv : total));
	l->vma_pages = p->vma_mib ? round_pmd((uint64_t)p->vma_mib << 8) : 0;
}

int nl_table_owner(const struct nl_layout *l, enum nl_region region, uint64_t chunk)
{
	if (region == NL_SHARED)
		return -1;
	uint64_t per_slice = l->slice_pages / NL_PMD_PAGES;
	if (region == NL_PRIVATE)
		return (int)(chunk / per_slice);
	uint64_t shared = l->shared_pages / NL_PMD_PAGES;
	uint64_t total = shared + l->private_pages / NL_PMD_PAGES;
	uint64_t before = chunk * shared / total, upto = (chunk + 1) * shared / total;
	if (upto > before)
		return -1;
	return (int)((chunk - upto) / per_slice);
}

int nl_task_cpu(const struct machine *m, int task)
{
	return fork_spread_cpu(m, task);
}

int nl_first_touch_node(const struct machine *m, enum first_touch ft, int user_cpu, uint64_t chunk)
{
	int node = machine_cpu_node(m, user_cpu);
	switch (ft) {
	case FT_LOCAL:
		return node;
	case FT_REMOTE:
		return (node + m->nodes_per_socket) % m->nr_nodes;
	case FT_INTERLEAVE:
		return (int)(chunk % (uint64_t)m->nr_nodes);
	default:
		return 0;
	}
}
