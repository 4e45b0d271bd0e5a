/* numaload profile: the cost of a TLB flush round against the number of
 * CPUs it must reach.  Helper threads pinned to N other CPUs spin reading
 * one page of this mm, so their CPUs are in mm_cpumask with the page in
 * their TLBs; the caller, pinned, toggles the page PROT_READ <->
 * PROT_READ|PROT_WRITE.  Taking write away must flush every CPU that may
 * cache the PTE (an IPI to each helper's CPU on x86); giving it back
 * flushes nothing (pte_needs_flush), so a pair of toggles is one flush
 * round plus two system calls.
 *
 * A round with targets costs y(N) = y0 + base + N * per_cpu, where y0 is
 * the round with no target (the system calls and the local flush): the
 * line through the points N >= 1 gives per_cpu as its slope and base as
 * its intercept less y0.  Each trial's points are fitted apart, so each
 * figure's spread is over trials. */
#define _GNU_SOURCE
#include "profile.h"
#include "machine/machine.h"

#include <errno.h>
#include <pthread.h>
#include <stdatomic.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

struct spinner {
	pthread_t th;
	int cpu;
	volatile const char *page;
	atomic_int *ready;
	atomic_bool *stop;
	int err;
};

static void *spin(void *arg)
{
	struct spinner *s = arg;
	char sink = 0;
	if (nl_pin(s->cpu)) {
		s->err = errno;
		atomic_fetch_add(s->ready, 1);
		return NULL;
	}
	sink += *s->page;
	atomic_fetch_add(s->ready, 1);
	while (!atomic_load_explicit(s->stop, memory_order_relaxed))
		sink += *s->page;
	return (void *)(intptr_t)sink;
}

/* A pinned initiator toggling its own page (the second one of the
 * contended round). */
struct toggler {
	pthread_t th;
	int cpu;
	char *page;
	atomic_int *ready;
	atomic_bool *stop;
	int err;
};

/* One RW page between two PROT_NONE guard pages, so its VMA never merges
 * with a neighbour when it is made RW again (a merge and a split per
 * toggle would be timed with the flush). */
static char *guarded_page(void)
{
	char *g = mmap(NULL, 3 * 4096, PROT_NONE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (g == MAP_FAILED || mprotect(g + 4096, 4096, PROT_READ | PROT_WRITE))
		return NULL;
	g[4096] = 1; /* a real page, not the zero page */
	return g + 4096;
}

static void unmap_guarded(char *page)
{
	munmap(page - 4096, 3 * 4096);
}

static int toggle(char *page)
{
	if (mprotect(page, 4096, PROT_READ) || mprotect(page, 4096, PROT_READ | PROT_WRITE))
		return -1;
	return 0;
}

static void *toggle_loop(void *arg)
{
	struct toggler *t = arg;
	if (nl_pin(t->cpu))
		t->err = errno;
	atomic_fetch_add(t->ready, 1);
	while (!t->err && !atomic_load_explicit(t->stop, memory_order_relaxed))
		if (toggle(t->page))
			t->err = errno;
	return NULL;
}

/* The helpers of one round: @n spinners on @cpus. */
struct crew {
	struct spinner s[NL_PROF_MAX_CPUS];
	int n;
	atomic_int ready;
	atomic_bool stop;
};

static int crew_start(struct crew *c, const int *cpus, int n, const char *page)
{
	atomic_init(&c->ready, 0);
	atomic_init(&c->stop, false);
	c->n = 0;
	for (int i = 0; i < n; i++) {
		struct spinner *s = &c->s[i];
		*s = (struct spinner){ .cpu = cpus[i], .page = page, .ready = &c->ready,
				       .stop = &c->stop };
		if (pthread_create(&s->th, NULL, spin, s))
			return -1;
		c->n++;
	}
	uint64_t t0 = nl_now_ns();
	while (atomic_load(&c->ready) < c->n)
		if (nl_now_ns() - t0 > 2000000000u)
			return -1;
	for (int i = 0; i < c->n; i++)
		if (c->s[i].err)
			return -1;
	return 0;
}

static void crew_stop(struct crew *c)
{
	atomic_store(&c->stop, true);
	for (int i = 0; i < c->n; i++)
		pthread_join(c->s[i].th, NULL);
	c->n = 0;
}

/* A trial's time: pairs are timed until this much has passed (at least
 * MIN_REPS of them, at most the run's reps), so a machine whose rounds
 * take milliseconds -- an emulator's: 9 ms a target under qemu TCG --
 * spends about as long per trial as a fast one. */
#define TRIAL_BUDGET_NS (5 * 1000 * 1000ull)
#define MIN_REPS 2

/* ns per toggle pair, averaged over the pairs of one trial (up to @reps,
 * TRIAL_BUDGET_NS); -1 on failure. */
static double time_round(char *page, int reps)
{
	uint64_t t0 = nl_now_ns(), now = t0;
	int r = 0;
	while (r < reps && (r < MIN_REPS || now - t0 < TRIAL_BUDGET_NS)) {
		if (toggle(page))
			return -1;
		r++;
		now = nl_now_ns();
	}
	return (double)(now - t0) / r;
}

/* The target counts to measure: 0 .. max, or 0, 1 and max with --quick;
 * at most NL_PROF_MAX_POINTS of them, evenly spread. */
static int target_counts(int max, bool quick, double *x)
{
	int n = 0;
	if (quick || max < 2) {
		for (int v = 0; v <= max && v <= 1; v++)
			x[n++] = v;
		if (max > 1)
			x[n++] = max;
		return n;
	}
	int pts = max + 1 < NL_PROF_MAX_POINTS ? max + 1 : NL_PROF_MAX_POINTS;
	for (int i = 0; i < pts; i++)
		x[n++] = (double)((long)i * max / (pts - 1));
	return n;
}

struct ipi_run {
	char *page;
	int reps, trials, npts;
	double x[NL_PROF_MAX_POINTS];
	double y[NL_PROF_MAX_TRIALS][NL_PROF_MAX_POINTS];
};

/* Every trial at target count x[i], with its helpers running. */
static int measure_point(struct nl_profile *p, struct ipi_run *r, struct crew *c, int i)
{
	int n = (int)r->x[i];
	int rc = crew_start(c, p->cpus + 1, n, r->page);
	for (int t = 0; !rc && t < r->trials; t++)
		if ((r->y[t][i] = time_round(r->page, r->reps)) < 0)
			rc = -1;
	crew_stop(c);
	return rc;
}

static void fill_curve(struct nl_figure *f, const struct ipi_run *r)
{
	double v[NL_PROF_MAX_TRIALS];
	f->has_curve = true;
	f->curve.x_name = "targets";
	f->curve.n = r->npts;
	for (int i = 0; i < r->npts; i++) {
		for (int t = 0; t < r->trials; t++)
			v[t] = r->y[t][i];
		f->curve.x[i] = r->x[i];
		nl_stat_of(v, r->trials, &f->curve.y[i]);
	}
}

/* What numasim's round adds to base and the targets (kernel/smp.h):
 * delivery, the last target's handler and its flush, at the model's
 * defaults, so the written base with them gives the measured intercept. */
static double round_fixed_ns(const struct nl_profile *p)
{
	struct machine m;
	machine_defaults(&m);
	return (p->nodes > 1 ? m.cost.ipi_latency_remote_ns : m.cost.ipi_latency_ns) +
	       m.cost.ipi_handler_ns + m.cost.cr3_flush_ns;
}

/* Fit each trial's points N >= 1: per_cpu the slope, base the intercept
 * over the round without targets, less what the model adds to a round.
 * The targets are taken in CPU order, so on a machine of several sockets
 * the line runs over both kinds: the slope is written for both
 * (ipi_send_per_cpu_ns and ipi_send_remote_ns), not separated. */
static void fit_trials(struct nl_profile *p, const struct ipi_run *r)
{
	double base[NL_PROF_MAX_TRIALS], per[NL_PROF_MAX_TRIALS];
	struct nl_figure *fb = &p->fig[NLF_IPI_BASE], *fp = &p->fig[NLF_IPI_PER_CPU];
	struct nl_figure *fr = &p->fig[NLF_IPI_REMOTE];
	fill_curve(fb, r);
	if (r->npts < 3) {
		const char *why = r->npts < 2
			? "not measurable: one CPU, no target for an IPI"
			: "not measurable: one target CPU only (2 CPUs), so base and per-CPU cost "
			  "are one sum: the curve's y(1) - y(0)";
		nl_fig_skip(fb, "%s", why);
		nl_fig_skip(fp, "%s", why);
		nl_fig_skip(fr, "%s", why);
		return;
	}
	double fixed = round_fixed_ns(p);
	for (int t = 0; t < r->trials; t++) {
		double a, b;
		if (nl_fit_line(r->x + 1, r->y[t] + 1, r->npts - 1, &a, &b)) {
			nl_fig_skip(fb, "the fit failed");
			nl_fig_skip(fp, "the fit failed");
			nl_fig_skip(fr, "the fit failed");
			return;
		}
		base[t] = a - r->y[t][0] - fixed;
		per[t] = b;
	}
	char how[200];
	snprintf(how, sizeof(how), "intercept of the flush-round line over targets >= 1, less the "
		 "round with no target (mprotect RW->RO->RW of one page) and the %.0f ns of delivery, "
		 "handler and flush numasim adds", fixed);
	nl_fig_set(fb, base, r->trials, how);
	nl_fig_set(fp, per, r->trials, "slope of the flush-round line over targets >= 1");
	nl_fig_set(fr, per, r->trials, "the same slope: the targets, in CPU order, are not "
		   "separated by socket");
	struct nl_figure *figs[3] = { fb, fp, fr };
	for (int i = 0; i < 3; i++) {
		figs[i]->clean = figs[i]->st.median > 0;
		if (!figs[i]->clean) /* say why no key is written */
			snprintf(figs[i]->why, sizeof(figs[i]->why), "the fit's median is "
				 "%.3f ns, not positive (the line through the targets' rounds)",
				 figs[i]->st.median);
	}
}

/* Two initiators at once: a second thread on cpus[1] toggling its own page
 * while the caller measures with helpers on the other CPUs. */
static void contended(struct nl_profile *p, struct ipi_run *r, struct crew *c)
{
	struct nl_figure *f = &p->fig[NLF_IPI_CONTENDED];
	if (p->ncpus < 3) {
		nl_fig_skip(f, "not measurable: two initiators and a target need 3 CPUs");
		return;
	}
	char *page2 = guarded_page();
	if (!page2) {
		nl_fig_skip(f, "mmap: %s", strerror(errno));
		return;
	}
	atomic_int ready;
	atomic_bool stop;
	atomic_init(&ready, 0);
	atomic_init(&stop, false);
	struct toggler tg = { .cpu = p->cpus[1], .page = page2, .ready = &ready, .stop = &stop };
	double v[NL_PROF_MAX_TRIALS];
	/* the same targets' round alone: the curve's last point (CPUs - 1) */
	int last = r->npts - 1;
	int n = 0;
	if (!pthread_create(&tg.th, NULL, toggle_loop, &tg)) {
		while (atomic_load(&ready) < 1)
			;
		if (!crew_start(c, p->cpus + 2, p->ncpus - 2, r->page))
			for (; n < r->trials; n++)
				if ((v[n] = time_round(r->page, r->reps)) < 0)
					break;
		crew_stop(c);
		atomic_store(&stop, true);
		pthread_join(tg.th, NULL);
	}
	unmap_guarded(page2);
	if (n < r->trials || tg.err) {
		nl_fig_skip(f, "the contended round failed");
		return;
	}
	if ((int)r->x[last] != p->ncpus - 1) {
		nl_fig_skip(f, "the curve has no round to %d targets", p->ncpus - 1);
		return;
	}
	for (int t = 0; t < n; t++)
		v[t] -= r->y[t][last];
	nl_fig_set(f, v, n, "");
	snprintf(f->why, sizeof(f->why), "the flush round with a second initiator toggling its own "
		 "page on CPU %d (%d helpers), less the same %d targets' round alone: one round in "
		 "flight ahead of it", p->cpus[1], p->ncpus - 2, p->ncpus - 1);
	f->clean = f->st.median > 0;
	if (!f->clean)
		snprintf(f->why, sizeof(f->why), "the contended round is %.3f ns "
			 "slower than the lone one, not positive", f->st.median);
}

void nl_prof_ipi(struct nl_profile *p, const struct nl_prof_opts *o)
{
	static struct crew crew; /* large: NL_PROF_MAX_CPUS spinners */
	struct ipi_run *r = calloc(1, sizeof(*r));
	char *page = guarded_page();
	if (!r || !page || nl_pin(p->cpus[0])) {
		nl_fig_skip(&p->fig[NLF_IPI_BASE], "set-up failed: %s", strerror(errno));
		nl_fig_skip(&p->fig[NLF_IPI_PER_CPU], "set-up failed");
		nl_fig_skip(&p->fig[NLF_IPI_REMOTE], "set-up failed");
		nl_fig_skip(&p->fig[NLF_IPI_CONTENDED], "set-up failed");
		if (page)
			unmap_guarded(page);
		free(r);
		return;
	}
	r->page = page;
	r->reps = o->quick ? 200 : 2000;
	r->trials = o->trials;
	r->npts = target_counts(p->ncpus - 1, o->quick, r->x);
	for (int i = 0; i < r->npts; i++)
		if (measure_point(p, r, &crew, i)) {
			nl_fig_skip(&p->fig[NLF_IPI_BASE], "helper threads could not run pinned "
				    "(%d targets)", (int)r->x[i]);
			nl_fig_skip(&p->fig[NLF_IPI_PER_CPU], "helper threads could not run pinned");
			nl_fig_skip(&p->fig[NLF_IPI_REMOTE], "helper threads could not run pinned");
			nl_fig_skip(&p->fig[NLF_IPI_CONTENDED], "helper threads could not run pinned");
			goto out;
		}
	fit_trials(p, r);
	contended(p, r, &crew);
out:
	unmap_guarded(page);
	free(r);
}
