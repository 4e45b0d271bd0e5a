/* numaload profile: memory latency and page migration.
 *
 * dram_local_ns: a pointer chase in random order over the cache lines of a
 * buffer much larger than the caches (THP asked for, so the TLB stays out
 * of it where it can), first touched by the pinned caller; ns per load.
 * With two NUMA nodes with memory, the same chase over a buffer on another
 * node (remote latency, reported only: numasim derives it from the SLIT
 * distance), and move_pages(2) of populated pages to that node and back
 * (per page: numasim's migrate_setup_ns + copy_page_ns + remap_ns
 * together, reported only). */
#define _GNU_SOURCE
#include "profile.h"

#include <errno.h>
#include <numa.h>
#include <numaif.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>

#define LINE 64u
#define PAGE 4096u

static uint64_t rng_next(uint64_t *s)
{
	*s ^= *s << 13;
	*s ^= *s >> 7;
	*s ^= *s << 17;
	return *s;
}

/* Link the lines of @buf into one random cycle (Sattolo's shuffle). */
static int link_lines(char *buf, size_t len)
{
	size_t n = len / LINE;
	uint32_t *order = malloc(n * sizeof(*order));
	uint64_t s = 0x9e3779b97f4a7c15u;
	if (!order)
		return -1;
	for (size_t i = 0; i < n; i++)
		order[i] = (uint32_t)i;
	for (size_t i = n - 1; i > 0; i--) {
		size_t j = rng_next(&s) % i;
		uint32_t tmp = order[i];
		order[i] = order[j];
		order[j] = tmp;
	}
	for (size_t i = 0; i < n; i++)
		*(void **)(buf + (size_t)order[i] * LINE) = buf + (size_t)order[(i + 1) % n] * LINE;
	free(order);
	return 0;
}

/* ns per load of @steps dependent loads from @start. */
static double chase(void *start, long steps)
{
	void *volatile sink;
	void **q = start;
	uint64_t t0 = nl_now_ns();
	for (long i = 0; i < steps; i++)
		q = *q;
	uint64_t t1 = nl_now_ns();
	sink = q;
	(void)sink;
	return (double)(t1 - t0) / (double)steps;
}

/* Chase @buf (@len bytes) for every trial into @f. */
static int chase_trials(char *buf, size_t len, const struct nl_prof_opts *o, struct nl_figure *f,
			const char *how)
{
	double v[NL_PROF_MAX_TRIALS];
	long steps = o->quick ? 200000 : 2000000;
	if (link_lines(buf, len))
		return -1;
	chase(buf, steps / 4); /* warm the TLB and the walk caches */
	for (int t = 0; t < o->trials; t++)
		v[t] = chase(buf, steps);
	nl_fig_set(f, v, o->trials, how);
	return 0;
}

static void local_latency(struct nl_profile *p, const struct nl_prof_opts *o)
{
	struct nl_figure *f = &p->fig[NLF_DRAM_LOCAL];
	size_t len = (o->quick ? 64u : 256u) << 20;
	char *buf = mmap(NULL, len, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (buf == MAP_FAILED) {
		nl_fig_skip(f, "mmap of %zu MiB: %s", len >> 20, strerror(errno));
		return;
	}
	madvise(buf, len, MADV_HUGEPAGE);
	if (chase_trials(buf, len, o, f, "random pointer chase over the lines of a buffer "
			 "(THP asked for) much larger than the caches, ns per load"))
		nl_fig_skip(f, "out of memory");
	munmap(buf, len);
}

/* The first node with memory other than @home, or -1. */
static int other_node(int home)
{
	for (int n = 0; n <= numa_max_node(); n++)
		if (n != home && numa_node_size64(n, NULL) > 0)
			return n;
	return -1;
}

static void remote_latency(const struct nl_prof_opts *o, int node, struct nl_figure *f)
{
	size_t len = (o->quick ? 64u : 256u) << 20;
	char *buf = numa_alloc_onnode(len, node);
	if (!buf) {
		nl_fig_skip(f, "numa_alloc_onnode(%zu MiB, node %d) failed", len >> 20, node);
		return;
	}
	madvise(buf, len, MADV_HUGEPAGE);
	char how[128];
	snprintf(how, sizeof(how), "the local chase over memory on node %d; reported only "
		 "(numasim: dram_local_ns x SLIT / 10)", node);
	if (chase_trials(buf, len, o, f, how))
		nl_fig_skip(f, "out of memory");
	f->clean = false;
	numa_free(buf, len);
}

/* move_pages(2) of @n populated pages to @to and back, each way a trial. */
static void migrate_cost(const struct nl_prof_opts *o, int home, int to, struct nl_figure *f)
{
	int n = o->quick ? 64 : 512;
	size_t len = (size_t)n * PAGE;
	void **pages = calloc((size_t)n, sizeof(*pages));
	int *nodes = calloc((size_t)n, sizeof(*nodes)), *status = calloc((size_t)n, sizeof(*status));
	double v[NL_PROF_MAX_TRIALS];
	char *buf = mmap(NULL, len, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	int t = 0;
	if (!pages || !nodes || !status || buf == MAP_FAILED) {
		nl_fig_skip(f, "out of memory");
		goto out;
	}
	madvise(buf, len, MADV_NOHUGEPAGE);
	for (int i = 0; i < n; i++) {
		buf[(size_t)i * PAGE] = 1;
		pages[i] = buf + (size_t)i * PAGE;
	}
	for (; t < o->trials; t++) {
		for (int i = 0; i < n; i++)
			nodes[i] = t % 2 ? home : to;
		uint64_t t0 = nl_now_ns();
		long left = move_pages(0, (unsigned long)n, pages, nodes, status, MPOL_MF_MOVE);
		if (left > 0) /* pages it could not move (6.x returns their count) */
			errno = EBUSY;
		if (left)
			break;
		v[t] = (double)(nl_now_ns() - t0) / n;
		int stayed = 0; /* a page that stayed: the call timed no migration of it */
		for (int i = 0; i < n && !stayed; i++)
			if (status[i] < 0)
				stayed = -status[i];
		if (stayed) {
			errno = stayed;
			break;
		}
	}
	if (t < o->trials)
		nl_fig_skip(f, "move_pages: %s", strerror(errno));
	else
		nl_fig_set(f, v, t, "move_pages(2) of 4 KiB pages between two nodes, ns per page; "
			   "reported only (numasim: migrate_setup_ns + copy_page_ns + remap_ns)");
	f->clean = false;
out:
	if (buf != MAP_FAILED)
		munmap(buf, len);
	free(pages);
	free(nodes);
	free(status);
}

void nl_prof_mem(struct nl_profile *p, const struct nl_prof_opts *o)
{
	struct nl_figure *fr = &p->fig[NLF_DRAM_REMOTE], *fm = &p->fig[NLF_MIGRATE_PAGE];
	nl_pin(p->cpus[0]);
	local_latency(p, o);
	if (p->nodes < 2) {
		nl_fig_skip(fr, "not measurable: one NUMA node with memory");
		nl_fig_skip(fm, "not measurable: one NUMA node with memory");
		return;
	}
	int home = numa_node_of_cpu(p->cpus[0]);
	int to = other_node(home);
	if (home < 0 || to < 0) {
		nl_fig_skip(fr, "not measurable: no node with memory apart from CPU %d's", p->cpus[0]);
		nl_fig_skip(fm, "not measurable: no node with memory apart from CPU %d's", p->cpus[0]);
		return;
	}
	remote_latency(o, to, fr);
	migrate_cost(o, home, to, fm);
}
