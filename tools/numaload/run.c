/* The workload on real hardware (see run.h).
 *
 * The parent process is the observer: it maps a control page shared with
 * the workload, forks one child per scenario process, waits until every
 * thread has first-touched its memory, then reads the counters, lets the
 * threads go, samples once a second and stops them at the end.  It owns no
 * workload memory (with map_shared it maps the shared store before fork
 * but never touches it), so only the workload's threads run task_numa_work.
 *
 * Memory: every region is 2 MiB aligned so that numasim's "tables" are the
 * kernel's PTE tables, mapped with MADV_NOHUGEPAGE (numasim's workload has
 * only order-0 folios), with a 2 MiB gap between VMAs as numasim leaves; the
 * gaps are PROT_NONE mappings, which task_numa_work skips as inaccessible.
 * First touch: each 2 MiB chunk is touched by numasim's user of it under a
 * task policy MPOL_PREFERRED for numasim's node, then the task policy goes
 * back to MPOL_DEFAULT, so the VMAs carry no policy and NUMA balancing may
 * move every page, as in numasim (vma->mof). */
#define _GNU_SOURCE
#include "run.h"

#include <errno.h>
#include <numa.h>
#include <numaif.h>
#include <pthread.h>
#include <sched.h>
#include <math.h>
#include <signal.h>
#include <stdarg.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "sim/rng.h"

const char *const nl_threads_names[3] = { "pinned", "node", "free" };

#define PMD_BYTES (2ull << 20)
#define PAGE_BYTES 4096ull
#define MAX_PROCS 4096
#define THREAD_STACK (256u << 10)

struct thr_slot {
	_Atomic uint64_t ops;
	char pad[56];
};

/* The page shared by the parent and the workload. */
struct ctl {
	_Atomic int populated;   /* threads done with first touch */
	_Atomic int go, stop, release;
	_Atomic int failed;
	char err[512];
	struct {
		uint64_t lo, hi;     /* the process's own regions */
	} proc[MAX_PROCS];
	struct thr_slot thr[];   /* per task */
};

/* A touch set: a thread's slice or a process's shared region. */
struct tset {
	char **tab;              /* each 2 MiB table's address, in address order */
	uint64_t *chunk;         /* its chunk in the store */
	uint64_t ntab;
	uint32_t *hot, *cold;    /* page numbers (table * 512 + page), with a hot set */
	uint64_t nhot, ncold;
};

/* A store mapped into the process: tables at addresses. */
struct region {
	enum nl_region kind;
	uint64_t pages;          /* of the store */
	char **tab;              /* per store chunk */
};

struct proc_ctx {
	const struct scenario *sc;
	const struct nl_real *r;
	const struct nl_opts *o;
	struct ctl *ctl;
	struct nl_layout l;
	int proc;
	struct region reg[3];
	int nreg;
	char **shared_tab;       /* map_shared: the parent's mapping of the store */
	struct tset shared;      /* the process's shared set */
	struct tset *slice;      /* per thread */
	uint64_t spin_iters;
};

struct thr_ctx {
	struct proc_ctx *pc;
	int t;                   /* thread index in the process */
	int g;                   /* task index */
};

static void fail(struct ctl *ctl, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static void fail(struct ctl *ctl, const char *fmt, ...)
{
	int expected = 0;
	if (atomic_compare_exchange_strong(&ctl->failed, &expected, 1)) {
		va_list ap;
		va_start(ap, fmt);
		vsnprintf(ctl->err, sizeof(ctl->err), fmt, ap);
		va_end(ap);
	}
	atomic_store(&ctl->stop, 1);
	_exit(1);
}

static uint64_t now_ns(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

static void nap_ms(long ms)
{
	struct timespec ts = { ms / 1000, (ms % 1000) * 1000000 };
	while (nanosleep(&ts, &ts) && errno == EINTR)
		;
}

/* ---- compute between touches ------------------------------------------------ */

static uint64_t spin(uint64_t n, uint64_t x)
{
	for (uint64_t i = 0; i < n; i++)
		x = x * 6364136223846793005ull + 1442695040888963407ull;
	return x;
}

static volatile uint64_t spin_sink;

/* Iterations of spin() per ns on this machine: the best of a few tries. */
static double calibrate_spin(void)
{
	double best = 0;
	for (int i = 0; i < 5; i++) {
		uint64_t n = 1u << 22, t0 = now_ns();
		spin_sink = spin(n, spin_sink);
		uint64_t dt = now_ns() - t0;
		if (dt && (double)n / (double)dt > best)
			best = (double)n / (double)dt;
	}
	return best;
}

/* ---- memory ------------------------------------------------------------------- */

/* Reserve a 2 MiB aligned range of @bytes with PROT_NONE guards around it
 * (kept: they stop the kernel from merging a thread stack or a malloc arena
 * into the workload's VMAs). */
static char *reserve(uint64_t bytes)
{
	uint64_t len = bytes + 3 * PMD_BYTES;
	char *p = mmap(NULL, len, PROT_NONE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
	if (p == MAP_FAILED)
		return NULL;
	return (char *)(((uintptr_t)p + PMD_BYTES) & ~(uintptr_t)(PMD_BYTES - 1));
}

/* Map a store of @pages as VMAs of at most vma_pages, each followed by a
 * 2 MiB hole; fill @tab with each chunk's address. */
static int map_store(const struct nl_layout *l, uint64_t pages, bool shared, char **tab, uint64_t *lo,
		     uint64_t *hi)
{
	uint64_t vp = l->vma_pages ? l->vma_pages : pages;
	uint64_t nvma = (pages + vp - 1) / vp;
	char *base = reserve(pages * PAGE_BYTES + nvma * PMD_BYTES);
	if (!base)
		return -1;
	char *addr = base;
	for (uint64_t off = 0; off < pages; off += vp) {
		uint64_t n = pages - off < vp ? pages - off : vp;
		int flags = (shared ? MAP_SHARED : MAP_PRIVATE) | MAP_ANONYMOUS | MAP_FIXED;
		if (mmap(addr, n * PAGE_BYTES, PROT_READ | PROT_WRITE, flags, -1, 0) == MAP_FAILED)
			return -1;
		(void)madvise(addr, n * PAGE_BYTES, MADV_NOHUGEPAGE);
		for (uint64_t c = 0; c < n / NL_PMD_PAGES; c++)
			tab[off / NL_PMD_PAGES + c] = addr + c * PMD_BYTES;
		addr += n * PAGE_BYTES + PMD_BYTES;
	}
	if (lo && (!*lo || (uint64_t)(uintptr_t)base < *lo))
		*lo = (uint64_t)(uintptr_t)base;
	if (hi && (uint64_t)(uintptr_t)addr > *hi)
		*hi = (uint64_t)(uintptr_t)addr;
	return 0;
}

static int tset_add(struct tset *s, char *addr, uint64_t chunk, uint64_t cap)
{
	if (!s->tab) {
		s->tab = malloc(cap * sizeof(*s->tab));
		s->chunk = malloc(cap * sizeof(*s->chunk));
		if (!s->tab || !s->chunk)
			return -1;
	}
	s->tab[s->ntab] = addr;
	s->chunk[s->ntab++] = chunk;
	return 0;
}

/* The hot set, as numasim draws it (workload.c:populate_vma). */
static int tset_hot(struct tset *s, const struct scenario *sc, int mm_id, bool private)
{
	uint64_t cut = workload_hot_cut(sc->w.hot_fraction);
	if (!cut || !s->ntab)
		return 0;
	uint64_t n = s->ntab * NL_PMD_PAGES;
	s->hot = malloc(n * sizeof(uint32_t));
	s->cold = malloc(n * sizeof(uint32_t));
	if (!s->hot || !s->cold || n > UINT32_MAX)
		return -1;
	for (uint64_t i = 0; i < n; i++) {
		uint64_t idx = s->chunk[i / NL_PMD_PAGES] * NL_PMD_PAGES + i % NL_PMD_PAGES;
		if (workload_page_hot(sc->seed, idx, mm_id, private, cut))
			s->hot[s->nhot++] = (uint32_t)i;
		else
			s->cold[s->ncold++] = (uint32_t)i;
	}
	return 0;
}

/* Map the process's regions and sort their tables into touch sets. */
static int build_process(struct proc_ctx *pc)
{
	const struct workload_params *w = &pc->sc->w;
	const struct nl_layout *l = &pc->l;
	uint64_t *lo = &pc->ctl->proc[pc->proc].lo, *hi = &pc->ctl->proc[pc->proc].hi;
	bool spread = w->spread_shared && !w->map_shared;
	pc->slice = calloc((size_t)w->threads, sizeof(*pc->slice));
	if (!pc->slice)
		return -1;
	if (l->shared_pages && !spread) {
		struct region *rg = &pc->reg[pc->nreg++];
		rg->kind = NL_SHARED;
		rg->pages = l->shared_pages;
		if (w->map_shared) {
			rg->tab = pc->shared_tab;
		} else {
			rg->tab = calloc(rg->pages / NL_PMD_PAGES, sizeof(char *));
			if (!rg->tab || map_store(l, rg->pages, false, rg->tab, lo, hi))
				return -1;
		}
	}
	if (spread || l->private_pages) {
		struct region *rg = &pc->reg[pc->nreg++];
		rg->kind = spread ? NL_SPREAD : NL_PRIVATE;
		rg->pages = l->private_pages + (spread ? l->shared_pages : 0);
		rg->tab = calloc(rg->pages / NL_PMD_PAGES, sizeof(char *));
		if (!rg->tab || map_store(l, rg->pages, false, rg->tab, lo, hi))
			return -1;
	}
	for (int i = 0; i < pc->nreg; i++) {
		struct region *rg = &pc->reg[i];
		uint64_t nt = rg->pages / NL_PMD_PAGES;
		for (uint64_t c = 0; c < nt; c++) {
			int owner = nl_table_owner(l, rg->kind, c);
			struct tset *s = owner < 0 ? &pc->shared : &pc->slice[owner];
			if (tset_add(s, rg->tab[c], c, nt))
				return -1;
		}
	}
	/* the hot set's hash names the store's first mapper: process 0 for map_shared */
	if (tset_hot(&pc->shared, pc->sc, w->map_shared ? 0 : pc->proc, false))
		return -1;
	for (int t = 0; t < w->threads; t++)
		if (tset_hot(&pc->slice[t], pc->sc, pc->proc, true))
			return -1;
	return 0;
}

/* ---- threads -------------------------------------------------------------------- */

/* numasim's CPU @c as a real CPU: the same index among its node's CPUs. */
static int real_cpu(const struct nl_real *r, const struct machine *m, int c)
{
	int node = machine_cpu_node(m, c), j = 0;
	for (int x = 0; x < c; x++)
		j += machine_cpu_node(m, x) == node;
	return r->node_cpus[node][j % r->node_ncpus[node]];
}

static void bind_thread(struct thr_ctx *tc)
{
	const struct proc_ctx *pc = tc->pc;
	const struct machine *m = &pc->sc->m;
	int c = nl_task_cpu(m, tc->g);
	if (pc->o->threads == NL_PINNED) {
		cpu_set_t set;
		CPU_ZERO(&set);
		CPU_SET(real_cpu(pc->r, m, c), &set);
		if (sched_setaffinity(0, sizeof(set), &set))
			fail(pc->ctl, "sched_setaffinity(CPU %d): %s", real_cpu(pc->r, m, c), strerror(errno));
	} else if (pc->o->threads == NL_NODE) {
		if (numa_run_on_node(pc->r->node_id[machine_cpu_node(m, c)]))
			fail(pc->ctl, "numa_run_on_node: %s", strerror(errno));
	}
}

static void prefer_node(struct ctl *ctl, int real_node)
{
	unsigned long mask[2] = { 0, 0 };
	mask[real_node / 64] |= 1ul << (real_node % 64);
	if (set_mempolicy(MPOL_PREFERRED, mask, 65))
		fail(ctl, "set_mempolicy(MPOL_PREFERRED, node %d): %s", real_node, strerror(errno));
}

/* First touch of a table: one write per page. */
static void touch_table(char *tab)
{
	for (uint64_t p = 0; p < NL_PMD_PAGES; p++)
		*(volatile uint64_t *)(tab + p * PAGE_BYTES) = 1;
}

static void populate(struct thr_ctx *tc)
{
	struct proc_ctx *pc = tc->pc;
	const struct scenario *sc = pc->sc;
	const struct workload_params *w = &sc->w;
	int first_task = pc->proc * w->threads;
	int cpu = nl_task_cpu(&sc->m, tc->g);
	const struct tset *s = &pc->slice[tc->t];
	for (uint64_t i = 0; i < s->ntab; i++) {
		prefer_node(pc->ctl, pc->r->node_id[nl_first_touch_node(&sc->m, w->private_first_touch.mode,
									  cpu, s->chunk[i])]);
		touch_table(s->tab[i]);
	}
	/* shared chunks: chunk % threads is the user; only the first mapping places */
	if (!w->map_shared || pc->proc == 0) {
		s = &pc->shared;
		for (uint64_t i = 0; i < s->ntab; i++) {
			if ((int)(s->chunk[i] % (uint64_t)w->threads) != tc->t)
				continue;
			int user = nl_task_cpu(&sc->m, first_task + tc->t);
			prefer_node(pc->ctl, pc->r->node_id[nl_first_touch_node(&sc->m, w->shared_first_touch.mode,
										  user, s->chunk[i])]);
			touch_table(s->tab[i]);
		}
	}
	if (set_mempolicy(MPOL_DEFAULT, NULL, 0))
		fail(pc->ctl, "set_mempolicy(MPOL_DEFAULT): %s", strerror(errno));
}

static inline uint64_t below(uint64_t x, uint64_t n)
{
	return (uint64_t)(((unsigned __int128)x * n) >> 64);
}

/* A page of @s: hot with probability hot_cut / 2^32, uniform within. */
static inline char *pick(const struct tset *s, uint64_t x, uint64_t y, uint64_t hot_cut)
{
	uint64_t page;
	if (s->hot) {
		bool hot = (x >> 32) < hot_cut;
		if ((hot && s->nhot) || !s->ncold)
			page = s->hot[below(y, s->nhot)];
		else
			page = s->cold[below(y, s->ncold)];
	} else {
		page = below(y, s->ntab * NL_PMD_PAGES);
	}
	return s->tab[page / NL_PMD_PAGES] + (page % NL_PMD_PAGES) * PAGE_BYTES;
}

static void work(struct thr_ctx *tc)
{
	struct proc_ctx *pc = tc->pc;
	struct ctl *ctl = pc->ctl;
	const struct workload_params *w = &pc->sc->w;
	const struct tset *mine = &pc->slice[tc->t], *shared = &pc->shared;
	struct rng r = rng_stream(pc->sc->seed, RNG_THREAD, (uint64_t)tc->g);
	uint64_t priv_cut = (uint64_t)(w->private_access_share * 4294967296.0);
	uint64_t hot_cut = (uint64_t)(w->hot_access_share * 4294967296.0);
	uint64_t line = ((uint64_t)tc->g * 64) % PAGE_BYTES, ops = 0, sink = (uint64_t)tc->g;
	if (!mine->ntab)
		priv_cut = 0;
	if (!shared->ntab)
		priv_cut = UINT64_MAX;
	while (!atomic_load_explicit(&ctl->go, memory_order_acquire)) {
		if (atomic_load(&ctl->stop))
			return;
		nap_ms(1);
	}
	while (!atomic_load_explicit(&ctl->stop, memory_order_relaxed)) {
		for (int i = 0; i < 256; i++) {
			uint64_t x = rng_next(&r), y = rng_next(&r);
			const struct tset *s = (x & 0xffffffffu) < priv_cut ? mine : shared;
			volatile uint64_t *word = (volatile uint64_t *)(pick(s, x, y, hot_cut) + line);
			*word = *word + 1;
			sink = spin(pc->spin_iters, sink);
		}
		ops += 256;
		atomic_store_explicit(&ctl->thr[tc->g].ops, ops, memory_order_relaxed);
	}
	spin_sink = sink;
}

static void *thread_main(void *arg)
{
	struct thr_ctx *tc = arg;
	bind_thread(tc);
	populate(tc);
	atomic_fetch_add(&tc->pc->ctl->populated, 1);
	work(tc);
	return NULL;
}

static void child_main(struct proc_ctx *pc)
{
	const struct workload_params *w = &pc->sc->w;
	prctl(PR_SET_PDEATHSIG, SIGKILL);
	if (getppid() == 1)
		_exit(1);
	if (build_process(pc))
		fail(pc->ctl, "process %d: cannot map or index its memory: %s", pc->proc, strerror(errno));
	struct thr_ctx *tc = calloc((size_t)w->threads, sizeof(*tc));
	pthread_t *th = calloc((size_t)w->threads, sizeof(*th));
	if (!tc || !th)
		fail(pc->ctl, "out of memory");
	int first = w->main_thread_works ? 1 : 0;
	/* Small stacks: a thread's stack is a VMA task_numa_work scans too,
	 * and numasim's mm has only the workload's VMAs. */
	pthread_attr_t attr;
	if (pthread_attr_init(&attr) || pthread_attr_setstacksize(&attr, THREAD_STACK))
		fail(pc->ctl, "pthread_attr: %s", strerror(errno));
	for (int t = 0; t < w->threads; t++) {
		tc[t] = (struct thr_ctx){ pc, t, pc->proc * w->threads + t };
		if (t >= first && pthread_create(&th[t], &attr, thread_main, &tc[t]))
			fail(pc->ctl, "pthread_create: %s", strerror(errno));
	}
	pthread_attr_destroy(&attr);
	if (first)
		thread_main(&tc[0]);   /* the main thread is thread 0 */
	for (int t = first; t < w->threads; t++)
		pthread_join(th[t], NULL);
	while (!atomic_load(&pc->ctl->release))
		nap_ms(5);
	_exit(0);
}

/* ---- the observer ------------------------------------------------------------------ */

/* the signal that ended the run (tunables.c's handler sets it) */
static volatile sig_atomic_t interrupted;

static int read_counters(struct nl_counters *c)
{
	memset(c, 0, sizeof(*c));
	char *v = nl_read_text("/proc/vmstat"), *i = nl_read_text("/proc/interrupts");
	int rc = 0;
	if (!v || nl_parse_vmstat(v, c) < 0)
		rc = -1;
	if (i) {
		int t = nl_parse_interrupts(i, &c->tlb_irqs);
		c->have_tlb = t == 1;
		rc = t < 0 ? -1 : rc;
	}
	free(v);
	free(i);
	return rc;
}

/* Why the run stopped early: the signal, or the workload's failure. */
static void stop_reason(const struct ctl *ctl, char *err, size_t errlen)
{
	if (interrupted)
		snprintf(err, errlen, "interrupted (%s)", strsignal((int)interrupted));
	else
		snprintf(err, errlen, "%s", ctl->err);
}

static uint64_t total_ops(const struct ctl *ctl, int tasks)
{
	uint64_t n = 0;
	for (int g = 0; g < tasks; g++)
		n += atomic_load_explicit(&ctl->thr[g].ops, memory_order_relaxed);
	return n;
}

static void node_pages(const struct scenario *sc, const struct nl_real *r, const pid_t *pids,
		       const struct ctl *ctl, uint64_t shared_lo, uint64_t shared_hi, uint64_t *out)
{
	uint64_t by_id[MAX_NUMNODES] = { 0 };
	char path[64];
	for (int p = 0; p < sc->w.processes; p++) {
		snprintf(path, sizeof(path), "/proc/%d/numa_maps", (int)pids[p]);
		char *t = nl_read_text(path);
		if (!t)
			continue;
		(void)nl_parse_numa_maps(t, ctl->proc[p].lo, ctl->proc[p].hi, by_id, MAX_NUMNODES);
		if (p == 0 && shared_hi)
			(void)nl_parse_numa_maps(t, shared_lo, shared_hi, by_id, MAX_NUMNODES);
		free(t);
	}
	for (int k = 0; k < r->nr_nodes; k++)
		out[k] = by_id[r->node_id[k]];
}

static void sample(struct nl_result *res, int i, const struct nl_counters *prev,
		   const struct nl_counters *cur)
{
	struct nl_counters d;
	(void)nl_counters_delta(prev, cur, &d);
	res->tlb_s[i] = d.have_tlb ? (double)d.tlb_irqs : NAN;
	res->mig_s[i] = d.have_vm[NUMA_PAGE_MIGRATE] ? (double)d.vm[NUMA_PAGE_MIGRATE] : NAN;
	res->pte_s[i] = d.have_vm[NUMA_PTE_UPDATES] ? (double)d.vm[NUMA_PTE_UPDATES] : NAN;
	res->fault_s[i] = d.have_vm[NUMA_HINT_FAULTS] ? (double)d.vm[NUMA_HINT_FAULTS] : NAN;
}

static void stop_children(struct ctl *ctl, pid_t *pids, int n)
{
	atomic_store(&ctl->stop, 1);
	atomic_store(&ctl->release, 1);
	for (int p = 0; p < n; p++)
		while (pids[p] > 0 && waitpid(pids[p], NULL, 0) < 0 && errno == EINTR)
			;
}

/* Wait until every thread has placed its memory; -1 if a child failed. */
static int wait_populated(struct ctl *ctl, pid_t *pids, int nprocs, int tasks)
{
	while (atomic_load(&ctl->populated) < tasks) {
		if (atomic_load(&ctl->failed) || interrupted)
			return -1;
		for (int p = 0; p < nprocs; p++) {
			int st;
			if (waitpid(pids[p], &st, WNOHANG) == pids[p]) {
				pids[p] = -1;
				if (!atomic_load(&ctl->failed))
					snprintf(ctl->err, sizeof(ctl->err), "a workload process died (%s %d)",
						 WIFSIGNALED(st) ? "signal" : "status",
						 WIFSIGNALED(st) ? WTERMSIG(st) : WEXITSTATUS(st));
				atomic_store(&ctl->failed, 1);
				return -1;
			}
		}
		nap_ms(2);
	}
	return 0;
}

int nl_run(const struct scenario *sc, const struct nl_real *r, const struct nl_opts *o,
	   struct nl_result *res, char *err, size_t errlen)
{
	const struct workload_params *w = &sc->w;
	int tasks = w->processes * w->threads, rc = 1;
	pid_t pids[MAX_PROCS];
	char **shared_tab = NULL;
	uint64_t shared_lo = 0, shared_hi = 0;
	struct nl_layout l;
	struct nl_counters before, prev, cur;
	bool triggers = false;
	char rerr[512];

	memset(res, 0, sizeof(*res));
	if (w->processes > MAX_PROCS) {
		snprintf(err, errlen, "at most %d processes", MAX_PROCS);
		return 1;
	}
	if (numa_available() < 0) {
		snprintf(err, errlen, "libnuma: the kernel has no NUMA support (numa_available)");
		return 1;
	}
	nl_layout(w, &l);
	res->nsec = (int)ceil(sc->duration_s);
	res->tlb_s = calloc((size_t)res->nsec, sizeof(double));
	res->mig_s = calloc((size_t)res->nsec, sizeof(double));
	res->pte_s = calloc((size_t)res->nsec, sizeof(double));
	res->fault_s = calloc((size_t)res->nsec, sizeof(double));
	size_t ctl_len = sizeof(struct ctl) + (size_t)tasks * sizeof(struct thr_slot);
	struct ctl *ctl = mmap(NULL, ctl_len, PROT_READ | PROT_WRITE, MAP_SHARED | MAP_ANONYMOUS, -1, 0);
	if (ctl == MAP_FAILED || !res->tlb_s || !res->mig_s || !res->pte_s || !res->fault_s) {
		snprintf(err, errlen, "out of memory");
		return 1;
	}
	double ipns = calibrate_spin();
	res->spin_iters_per_op = floor(w->cpu_ns_per_op * ipns + 0.5);

	/* the handlers first: from the first write on, every way out restores */
	nl_tunables_catch_signals(&interrupted);
	if (nl_tunables_apply(sc, &res->tun, err, errlen)) {
		nl_tunables_release_signals(); /* what was written is back (or @err says not) */
		munmap(ctl, ctl_len);
		return 2;
	}
	if (interrupted) {
		stop_reason(ctl, err, errlen);
		rc = 130;
		goto out_tun;
	}

	if (w->map_shared && l.shared_pages) {
		shared_tab = calloc(l.shared_pages / NL_PMD_PAGES, sizeof(char *));
		if (!shared_tab || map_store(&l, l.shared_pages, true, shared_tab, &shared_lo, &shared_hi)) {
			snprintf(err, errlen, "cannot map the shared store (%llu MiB): %s",
				 (unsigned long long)(l.shared_pages >> 8), strerror(errno));
			goto out_tun;
		}
	}
	fflush(NULL);
	int nprocs = 0;
	for (int p = 0; p < w->processes; p++) {
		struct proc_ctx pc = { .sc = sc, .r = r, .o = o, .ctl = ctl, .l = l, .proc = p,
				       .shared_tab = shared_tab,
				       .spin_iters = (uint64_t)res->spin_iters_per_op };
		pid_t pid = fork();
		if (pid == 0)
			child_main(&pc);
		if (pid < 0) {
			snprintf(err, errlen, "fork: %s", strerror(errno));
			goto out_children;
		}
		pids[nprocs++] = pid;
	}
	if (!o->quiet)
		fprintf(stderr, "numaload: %d processes x %d threads placing %.3g GiB...\n", w->processes,
			w->threads, w->memory_gib * w->processes);
	if (wait_populated(ctl, pids, nprocs, tasks)) {
		stop_reason(ctl, err, errlen);
		rc = interrupted ? 130 : 1;
		goto out_children;
	}
	node_pages(sc, r, pids, ctl, shared_lo, shared_hi, res->node_pages_start);
	if (o->trace) {
		int n = nl_trace_set(o->tracefs, true, err, errlen);
		if (n < 0)
			goto out_children;
		triggers = true;
	}
	if (read_counters(&before)) {
		snprintf(err, errlen, "/proc/vmstat or /proc/interrupts: unexpected format");
		goto out_children;
	}
	prev = before;
	uint64_t t0 = now_ns(), dur = (uint64_t)(sc->duration_s * 1e9 + 0.5);
	atomic_store_explicit(&ctl->go, 1, memory_order_release);
	if (!o->quiet)
		fprintf(stderr, "numaload: running for %g s\n", sc->duration_s);
	for (int i = 0; i < res->nsec; i++) {
		uint64_t at = t0 + ((uint64_t)(i + 1) * 1000000000ull < dur ? (uint64_t)(i + 1) * 1000000000ull : dur);
		struct timespec ts = { (time_t)(at / 1000000000ull), (long)(at % 1000000000ull) };
		while (clock_nanosleep(CLOCK_MONOTONIC, TIMER_ABSTIME, &ts, NULL) == EINTR && !interrupted)
			;
		if (interrupted || atomic_load(&ctl->failed))
			break;
		read_counters(&cur);
		sample(res, i, &prev, &cur);
		prev = cur;
	}
	res->seconds = (double)(now_ns() - t0) / 1e9;
	res->ops = (double)total_ops(ctl, tasks);
	/* the histograms and placement while the threads still run: stopping
	 * them frees their stacks (MADV_DONTNEED), which flushes TLBs too */
	if (triggers && !interrupted && !atomic_load(&ctl->failed)) {
		nl_trace_read(o->tracefs, &res->trace, o->save_hist);
		res->traced = true;
	}
	node_pages(sc, r, pids, ctl, shared_lo, shared_hi, res->node_pages_end);
	atomic_store(&ctl->stop, 1);
	if (interrupted || atomic_load(&ctl->failed)) {
		stop_reason(ctl, err, errlen);
		rc = interrupted ? 130 : 1;
		goto out_children;
	}
	if (nl_counters_delta(&before, &prev, &res->delta) && !o->quiet)
		fprintf(stderr, "numaload: warning: a counter went backwards (a CPU went offline?)\n");
	res->have_node_pages = true;
	nl_tunables_read(&res->tun);
	rc = 0;
out_children:
	stop_children(ctl, pids, nprocs);
	if (triggers)
		nl_trace_set(o->tracefs, false, NULL, 0);
out_tun:
	if (nl_tunables_restore(rerr, sizeof(rerr))) {
		fprintf(stderr, "numaload: %s\n", rerr);
		rc = rc ? rc : 1;
	} else {
		nl_tunables_release_signals();
	}
	free(shared_tab);
	munmap(ctl, ctl_len);
	return rc;
}

void nl_result_free(struct nl_result *res)
{
	free(res->tlb_s);
	free(res->mig_s);
	free(res->pte_s);
	free(res->fault_s);
}
