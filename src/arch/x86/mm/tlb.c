/* x86 TLB shootdowns, after arch/x86/mm/tlb.c and
 * arch/x86/include/asm/tlbflush.h (linux-next, early 2026: INVLPGB global
 * ASIDs and batch->unmapped_pages from the v6.15 series included).
 *
 * The context switch (switch_mm_irqs_off, enter_lazy_tlb) keeps each CPU's
 * loaded mm, its six dynamic ASIDs and lazy mode; mm_cpumask and the flush
 * targets follow the base: before v6.14 a CPU leaves an mm's mask when it
 * switches to another mm and flushes skip lazy CPUs; from v6.14
 * (209954cbc7d0, 6db2526c1d69) the mask is cleared lazily, by a flush that
 * reaches a CPU running another mm, and once a second a flush also goes to
 * such CPUs to trim them (should_flush_tlb).
 * Left out: PTI's invalidate_other, the ASID transition to a global ASID,
 * secondary-MMU notifiers, paravirt flush hooks, IBPB on switch.  A CPU's
 * TLB state is its loaded mm and the tlb_gen it is up to date with; a flush
 * is a state change plus the time it costs. */
#include "asm/mmu_context.h"
#include "asm/tlbflush.h"
#include "kernel/sim.h"
#include "linux/mmdebug.h"
#include "linux/tlb_oracle.h"

struct flush_tlb_info {
	struct mm_struct *mm;     /* NULL for a batch flush */
	uint64_t start, end;
	unsigned stride_shift;
	bool freed_tables;
	bool trim_cpumask;        /* v6.14+: also IPI CPUs running another mm */
	uint64_t new_tlb_gen;     /* 0 = TLB_GENERATION_INVALID */
	int initiating_cpu;
};

/* INVLPGB is used only by kernels that have the v6.15 support: on an
 * earlier base an INVLPGB machine flushes with IPIs like any x86. */
static bool x86_invlpgb(const struct sim *s)
{
	return s->m.engine == FLUSH_X86_INVLPGB && s->k.x86_invlpgb;
}

/* x86 pte_accessible (arch/x86/include/asm/pgtable.h): present, or PROT_NONE
 * while a flush is pending on the mm. */
bool x86_pte_accessible(struct mm_struct *mm, pte_t pte)
{
	if (pte & PTE_PRESENT)
		return true;
	/* no-pending-check (broken on purpose): the clause 20841405940e added */
	if ((pte & PTE_PROTNONE) && mm->tlb_flush_pending && !mm->sim->k.no_pending_check)
		return true;
	return false;
}

/* Defer only if another CPU may hold the mm's translations. */
bool x86_tlbbatch_should_defer(struct mm_struct *mm)
{
	return cpumask_any_but(&mm->cpumask, mm->sim->e.cpu);
}

void x86_tlbbatch_add_pending(struct arch_tlbflush_unmap_batch *b, struct mm_struct *mm,
			      uint64_t start, uint64_t end)
{
	(void)start; (void)end; /* x86 ignores the range: the flush is full */
	mm->tlb_gen++;          /* inc_mm_tlb_gen */
	cpumask_or(&b->cpumask, &b->cpumask, &mm->cpumask);
	b->unmapped_pages = true;
}

void tlb_full_flush_refill(struct sim *s, int cpu)
{
	tlb_refill_at(s, cpu, sim_now(s));
}

/* What flush_tlb_func reads of the machine, the kernel and the flush for
 * every CPU, loaded (and what can be, computed) once per round: the
 * compiler would reload them after each store to a CPU's counters, which
 * might alias them.  The receivers' times are the same sums flush_tlb_func
 * would form for each (the handler plus the flush's cost), so they are
 * the same doubles. */
struct flush_round {
	struct cpu_state *cpus;
	struct cpu_acct *acct;
	struct mm_struct *mm;         /* the flush_tlb_info's */
	uint64_t new_tlb_gen;
	unsigned long nr;             /* pages of a range flush */
	bool range;                   /* f->end != TLB_FLUSH_ALL */
	bool lazy_mm_cpumask, trace, oracle;
	bool global_asids;            /* INVLPGB: an mm may have a global ASID */
	double range_ns, cr3_flush_ns, refill_ns; /* the flush's costs */
	double handler;               /* a receiver's interrupt */
	double recv_none, recv_range, recv_full; /* handler + cost of each outcome */
	engine_fx_t recv_none_fx, recv_range_fx, recv_full_fx, refill_fx; /* engine_fx of each */
	uint64_t now;
};

static inline __attribute__((always_inline)) struct flush_round
flush_round(const struct sim *s, const struct flush_tlb_info *f, double handler, uint64_t now)
{
	struct flush_round r = {
		.cpus = s->cpus, .acct = s->e.acct, .mm = f->mm, .new_tlb_gen = f->new_tlb_gen,
		.range = f->end != TLB_FLUSH_ALL, .lazy_mm_cpumask = s->k.lazy_mm_cpumask,
		.trace = trace_on(s, TR_TLB_FLUSH), .oracle = s->oracle != NULL,
		.global_asids = x86_invlpgb(s),
		.cr3_flush_ns = s->m.cost.cr3_flush_ns, .refill_ns = s->tlb_refill_ns,
		.handler = handler, .now = now,
	};
	r.nr = r.range ? (unsigned long)((f->end - f->start) >> f->stride_shift) : 0;
	r.range_ns = (double)r.nr * s->m.cost.invlpg_ns;
	r.recv_none = handler + 0.0;
	r.recv_range = handler + r.range_ns;
	r.recv_full = handler + r.cr3_flush_ns;
	r.recv_none_fx = engine_fx(r.recv_none);
	r.recv_range_fx = engine_fx(r.recv_range);
	r.recv_full_fx = engine_fx(r.recv_full);
	r.refill_fx = engine_fx(r.refill_ns);
	return r;
}

/* The end of flush_tlb_func on @c (account @a): the initiator (@local)
 * charges itself the flush's @cost; a receiver's @recv, the handler plus
 * that cost (@recv_fx in fixed point), is stolen from its thread.  A
 * receiver is never the running step's CPU: nothing of it is charged. */
static inline __attribute__((always_inline)) void
flush_tlb_func_done(struct sim *s, const struct cpu_state *c, struct cpu_acct *a, bool local,
		    double cost, double recv, engine_fx_t recv_fx, uint64_t now)
{
	if (local)
		charge(s, COST_FLUSH_LOCAL, cost);
	else
		engine_steal_irq_other(&s->e, a, c->curr != NULL, recv, recv_fx, now);
}

/* flush_tlb_func: runs on every targeted CPU, the initiator included
 * (@local: this is the initiating CPU).
 * A receiver's handling time (the interrupt plus the flush) is stolen
 * from its thread: r->handler is the interrupt's part, r->now the round's
 * time.  @general: the oracle or the trace may be on, or an mm may have
 * a global ASID (else none has: consider_global_asid gives one only where
 * INVLPGB is used, as mm_global_asid reads 0 without it); @batch: the
 * flush is arch_tlbbatch_flush's (no mm, no generation, everything), else
 * it is flush_tlb_mm_range's (an mm and its new generation); @awake: the
 * CPU is known not to be lazy.  Constants where this is inlined, so that
 * the common rounds test only what can differ from CPU to CPU. */
static inline __attribute__((always_inline)) void
flush_tlb_func_on(struct sim *s, int cpu, const struct flush_round *r, bool local, bool general,
		  bool batch, bool awake)
{
	struct cpu_state *c = &r->cpus[cpu];
	struct mm_struct *loaded = c->loaded_mm;
	struct mm_struct *const f_mm = batch ? NULL : r->mm;
	const uint64_t new_tlb_gen = batch ? 0 : r->new_tlb_gen;
	const bool range = batch ? false : r->range;
	const uint64_t now = r->now;
	double cost, recv;
	engine_fx_t recv_fx;

	if (!local) /* and NR_TLB_REMOTE_FLUSH_RECEIVED: vm_event_cpu */
		c->irq_tlb_count++;
	long pages = 0;
	if (!batch) {
		if (f_mm != loaded) {
			/* v6.14+: a CPU that left the mm clears itself when a
			 * flush of it still reaches it; before, it was cleared
			 * at switch-out */
			if (r->lazy_mm_cpumask) {
				cpumask_clear_cpu(cpu, &f_mm->cpumask);
				if (general && r->trace)
					trace_emit(s->e.trace, TR_TLB_FLUSH, cpu,
						   c->curr ? c->curr->pid : 0, now, 0,
						   TLB_REMOTE_WRONG_CPU, 0, 0, 0);
			}
			goto out;
		}
	} else if (!loaded) {
		goto out;
	}
	/* loaded is the flush's mm (never NULL) or, for a batch, any */
	if (general && loaded->global_asid)
		goto out;
	if (!awake && c->is_lazy) {
		/* switch_mm_irqs_off(NULL, &init_mm): drop the mm */
		if (!r->lazy_mm_cpumask)
			cpumask_clear_cpu(cpu, &loaded->cpumask);
		c->asid_gen[c->loaded_asid] = c->loaded_gen;
		c->loaded_mm = NULL;
		c->is_lazy = false;
		goto out;
	}
	if (!batch && new_tlb_gen <= c->loaded_gen) /* a batch has no generation */
		goto out;
	uint64_t mm_gen = loaded->tlb_gen;
	VM_BUG_ON_MM(c->loaded_gen > mm_gen, loaded);
	if (c->loaded_gen == mm_gen)
		goto out;

	if (range && new_tlb_gen == c->loaded_gen + 1 && new_tlb_gen == mm_gen) {
		cost = r->range_ns;
		recv = r->recv_range;
		recv_fx = r->recv_range_fx;
		pages = (long)r->nr;
		if (local)
			c->vm_events[NR_TLB_LOCAL_FLUSH_ONE] += r->nr;
		if (general && r->oracle)
			oracle_range_cpu(s, cpu);
	} else {
		cost = r->cr3_flush_ns;
		recv = r->recv_full;
		recv_fx = r->recv_full_fx;
		pages = -1;
		if (local) {
			c->vm_events[NR_TLB_LOCAL_FLUSH_ALL]++;
			tlb_refill_acct(c, &r->acct[cpu], now, r->refill_ns);
		} else {
			tlb_refill_acct_rx(c, &r->acct[cpu], now, r->refill_ns, r->refill_fx);
		}
		if (general && r->oracle)
			oracle_drop_mm(s, cpu, loaded, "flush_tlb_func: full flush");
	}
	c->loaded_gen = mm_gen;
	if (general && r->trace)
		trace_emit(s->e.trace, TR_TLB_FLUSH, cpu, c->curr ? c->curr->pid : 0, now, 0,
			   local ? (f_mm ? TLB_LOCAL_MM_SHOOTDOWN : TLB_LOCAL_SHOOTDOWN)
				 : TLB_REMOTE_SHOOTDOWN, pages, 0, 0);
	/* each outcome ends on its own, with its time a constant of the
	 * round where this is inlined */
	flush_tlb_func_done(s, c, &r->acct[cpu], local, cost, recv, recv_fx, now);
	return;
out:
	flush_tlb_func_done(s, c, &r->acct[cpu], local, 0, r->recv_none, r->recv_none_fx, now);
}

/* flush_tlb_func on the initiating CPU (its own flush, after a round or
 * alone); the CPU leaves its round ledger first (the simulator's). */
static void flush_tlb_func(struct sim *s, int cpu, const struct flush_tlb_info *f,
			   double handler, uint64_t now)
{
	flush_ledger_leave(s, cpu);
	struct flush_round r = flush_round(s, f, handler, now);
	flush_tlb_func_on(s, cpu, &r, cpu == f->initiating_cpu, true, !f->mm, false);
}

/* ---- the round ledger (the simulator's own) ------------------------------
 *
 * A round's receivers are mostly alike: awake, running the flushed mm in
 * user mode with no step of theirs to delay, their TLB as far behind as
 * the others'.  flush_tlb_func does the same to each: one more interrupt,
 * the same costs stolen, the same generation and (full flush) refill
 * start.  So such a CPU, once a round has handled it, joins its mm's
 * ledger, and the rounds after it add to the ledger once instead of to
 * each member; a member takes what it missed (ledger_settle) when it
 * leaves (flush_ledger_leave: before anything changes what a round would
 * do to it or touches that state) or when its state is read
 * (flush_ledger_settle_all: the accounting tick, the end of the run).
 * The costs are the receivers' fixed-point sums (sim/engine.h), so the
 * settled state is what the rounds one by one would have left.  Not with
 * the oracle, the trace or global ASIDs (the general rounds), which look
 * at each receiver. */

static void ledger_settle(struct sim *s, int cpu)
{
	struct cpu_state *c = &s->cpus[cpu];
	struct cpu_acct *a = &s->e.acct[cpu];
	const struct flush_ledger *l = &c->ledger_mm->rx_ledger;
	c->irq_tlb_count += l->rounds - c->ledger_rounds;
	a->rx_ipi += l->recv - c->ledger_recv;
	a->rx_refill += l->refill - c->ledger_refill;
	c->loaded_gen = l->gen;
	c->last_full_flush = l->last_full;
	c->ledger_rounds = l->rounds;
	c->ledger_recv = l->recv;
	c->ledger_refill = l->refill;
}

void flush_ledger_leave_slow(struct sim *s, int cpu)
{
	struct cpu_state *c = &s->cpus[cpu];
	struct flush_ledger *l = &c->ledger_mm->rx_ledger;
	ledger_settle(s, cpu);
	cpumask_clear_cpu(cpu, &l->members);
	cpumask_clear_cpu(cpu, &s->ledger_cpus);
	l->nr_members--;
	c->ledger_mm = NULL;
}

void flush_ledger_settle_all(struct sim *s)
{
	int cpu;
	for_each_cpu(cpu, &s->ledger_cpus)
		ledger_settle(s, cpu);
}

static void ledger_leave_all(struct sim *s)
{
	int cpu;
	for_each_cpu(cpu, &s->ledger_cpus)
		flush_ledger_leave_slow(s, cpu);
}

/* The members of @l with work in flight at @now leave (a round then
 * delays it); busy_max is the others' latest. */
static void ledger_leave_busy(struct sim *s, struct flush_ledger *l, uint64_t now)
{
	uint64_t max = 0;
	for (int w = 0; w < nr_cpu_words; w++)
		for (uint64_t b = l->members.bits[w]; b; b &= b - 1) {
			int cpu = w * 64 + __builtin_ctzll(b);
			uint64_t until = s->e.acct[cpu].busy_until;
			if (until > now)
				flush_ledger_leave_slow(s, cpu);
			else if (until > max)
				max = until;
		}
	l->busy_max = max;
}

/* After a round handled @cpu: it joins its mm's ledger if later rounds
 * would do to it what they do to the members: awake on the mm, in user
 * mode with no work in flight (a round delays none), as far behind. */
static inline void ledger_try_join(struct sim *s, int cpu, const struct flush_round *r)
{
	struct cpu_state *c = &r->cpus[cpu];
	const struct cpu_acct *a = &r->acct[cpu];
	struct mm_struct *mm = c->loaded_mm;
	if (!mm || s->no_ledger || c->is_lazy || a->in_kernel || a->busy_until > r->now ||
	    !cpumask_test_cpu(cpu, &mm->cpumask))
		return;
	struct flush_ledger *l = &mm->rx_ledger;
	if (!l->nr_members) {
		l->gen = c->loaded_gen;
		l->last_full = c->last_full_flush;
		l->busy_max = a->busy_until;
	} else if (l->gen != c->loaded_gen || l->last_full != c->last_full_flush) {
		return; /* not as far behind as the members */
	}
	if (a->busy_until > l->busy_max) /* a later round may come at an earlier time */
		l->busy_max = a->busy_until;
	l->nr_members++;
	cpumask_set_cpu(cpu, &l->members);
	cpumask_set_cpu(cpu, &s->ledger_cpus);
	c->ledger_mm = mm;
	c->ledger_rounds = l->rounds;
	c->ledger_recv = l->recv;
	c->ledger_refill = l->refill;
}

/* Round @r reaches @mm's members through @mask: those it misses leave;
 * the others' flush_tlb_func (its outcome the same for all: they share
 * loaded_gen) is the ledger's.  @batch: arch_tlbbatch_flush's round. */
static void ledger_round(struct sim *s, struct mm_struct *mm, const struct flush_round *r,
			 const struct cpumask *mask, bool batch)
{
	struct flush_ledger *l = &mm->rx_ledger;
	for (int w = 0; w < nr_cpu_words; w++)
		for (uint64_t b = l->members.bits[w] & ~mask->bits[w]; b; b &= b - 1)
			flush_ledger_leave_slow(s, w * 64 + __builtin_ctzll(b));
	if (r->now < l->busy_max)
		ledger_leave_busy(s, l, r->now);
	if (!l->nr_members)
		return;
	l->rounds++;
	if ((!batch && r->new_tlb_gen <= l->gen) || l->gen == mm->tlb_gen) {
		l->recv += r->recv_none_fx;
		return;
	}
	if (!batch && r->range && r->new_tlb_gen == l->gen + 1 && r->new_tlb_gen == mm->tlb_gen) {
		l->recv += r->recv_range_fx;
	} else {
		l->recv += r->recv_full_fx;
		l->refill += tlb_refill_fx(r->now - l->last_full, r->refill_ns, r->refill_fx);
		l->last_full = r->now;
	}
	l->gen = mm->tlb_gen;
}

/* Record round @r in the ledgers it reaches: @mm's, or every one for a
 * batch (@mm NULL).  Returns the CPUs it leaves to the ledgers. */
static const struct cpumask *ledger_rounds(struct sim *s, struct mm_struct *mm,
					   const struct flush_round *r, const struct cpumask *mask)
{
	if (mm) {
		if (mm->rx_ledger.nr_members)
			ledger_round(s, mm, r, mask, false);
		return &mm->rx_ledger.members;
	}
	for (int i = 0; i < s->nr_mms; i++)
		if (s->mms[i].rx_ledger.nr_members)
			ledger_round(s, &s->mms[i], r, mask, true);
	return &s->ledger_cpus;
}

/* The on_each_cpu_cond_mask() filter: tlb_is_not_lazy before v6.14;
 * should_flush_tlb from v6.14 (lazy CPUs are skipped; a CPU running
 * another mm gets the flush only when the mask is being trimmed).
 * @any_mm: the round goes to CPUs whatever mm they run (before v6.14, a
 * batch flush, or a trimming flush). */
static inline bool should_flush_tlb(const struct cpu_state *c, const struct flush_round *r,
				    bool any_mm)
{
	if (c->is_lazy)
		return false;
	return any_mm || c->loaded_mm == r->mm;
}

/* should_trim_cpumask (v6.14+): at most once a second per mm. */
static bool should_trim_cpumask(struct sim *s, struct mm_struct *mm)
{
	uint64_t now = jiffies(s);
	if (!s->k.lazy_mm_cpumask || now <= mm->next_trim_cpumask)
		return false;
	mm->next_trim_cpumask = now + (uint64_t)s->m.hz;
	return true;
}

/* The receivers of a round, in CPU order (@self, the initiator, left out).
 * Each word of the mask is read once, before its CPUs are handled: a
 * receiver may clear its own bit of the mask being walked.  Returns the
 * number of IPIs sent.  @general, @batch: as for flush_tlb_func_on.
 * @ledger: the CPUs whose handling the ledgers did (none if @general);
 * the others are handled here, one by one, leaving any other ledger
 * first, and join theirs if they may. */
static inline __attribute__((always_inline)) int
flush_receivers(struct sim *s, const struct cpumask *mask, const struct flush_round *r,
		int self, bool all, bool any_mm, bool general, bool batch,
		const struct cpumask *ledger)
{
	int nr_ipis = 0;
	for (int w = 0; w < nr_cpu_words; w++) {
		uint64_t b = mask->bits[w];
		if (w == self >> 6)
			b &= ~(1ull << (self & 63));
		/* counted as sent, less those filtered out: the common
		 * receiver then keeps no count of its own */
		nr_ipis += __builtin_popcountll(b);
		if (!general)
			b &= ~ledger->bits[w];
		/* the word's CPUs, addressed from their first: one add each */
		struct cpu_state *cw = r->cpus + w * 64;
		for (; b; b &= b - 1) {
			unsigned i = (unsigned)__builtin_ctzll(b);
			int cpu = w * 64 + (int)i;
			if (!all && !should_flush_tlb(&cw[i], r, any_mm)) {
				nr_ipis--;
				continue;
			}
			if (!general)
				flush_ledger_leave(s, cpu);
			if (all)
				flush_tlb_func_on(s, cpu, r, false, general, batch, false);
			else /* should_flush_tlb saw it awake */
				flush_tlb_func_on(s, cpu, r, false, general, batch, true);
			if (!general)
				ledger_try_join(s, cpu, r);
		}
	}
	return nr_ipis;
}

/* native_flush_tlb_multi: IPI the targets, run the callback locally too,
 * wait for every receiver.  The initiator pays a per-target send cost and
 * the delivery and handling time of the round; each receiver pays its
 * interrupt. */
static void flush_tlb_multi(struct sim *s, const struct cpumask *mask,
			    const struct flush_tlb_info *f)
{
	const struct cost_model *cm = &s->m.cost;
	int self = s->e.cpu, nr_ipis;
	bool all = f->freed_tables;

	uint64_t now = sim_now(s);
	long pages = f->end == TLB_FLUSH_ALL ? -1 : (long)((f->end - f->start) >> PAGE_SHIFT);

	count_vm_event(s, NR_TLB_REMOTE_FLUSH);
	s->st.flush_rounds++;
	trace(s, TR_TLB_FLUSH, self, current_pid(s), now, 0, TLB_REMOTE_SEND_IPI, pages, 0, 0);
	const struct flush_round r = flush_round(s, f, cm->ipi_handler_ns, now);
	const bool batch = !f->mm, any_mm = !r.lazy_mm_cpumask || batch || f->trim_cpumask;
	/* the initiator's round (kernel/smp.h): the sockets the mask spans and
	 * the rounds already in flight to its CPUs, before a receiver may
	 * clear its bit */
	int near, far;
	smp_mask_sockets(s, mask, self, &near, &far);
	const int queued = smp_rounds_in_flight(&s->ipi_rounds, self, mask, now);
	VM_BUG_ON(batch ? f->new_tlb_gen || f->end != TLB_FLUSH_ALL || all : !f->new_tlb_gen);
	/* a receiver (the initiator's own flush comes last): inlined, as a
	 * round runs it for up to every CPU, and apart for each common round
	 * (no oracle or trace to call, no global ASIDs): a batch, and an mm's
	 * flush to its awake CPUs or (freed page tables) to all */
	flush_ledger_leave(s, self); /* its own flush comes last */
	if (r.oracle || r.trace || r.global_asids) {
		if (!cpumask_empty(&s->ledger_cpus))
			ledger_leave_all(s);
		nr_ipis = flush_receivers(s, mask, &r, self, all, any_mm, true, batch, NULL);
	} else {
		const struct cpumask *ledger = ledger_rounds(s, f->mm, &r, mask);
		if (batch)
			nr_ipis = flush_receivers(s, mask, &r, self, false, any_mm, false, true,
						  ledger);
		else if (all)
			nr_ipis = flush_receivers(s, mask, &r, self, true, any_mm, false, false,
						  ledger);
		else
			nr_ipis = flush_receivers(s, mask, &r, self, false, any_mm, false, false,
						  ledger);
	}
	if (nr_ipis) {
		/* the IPIs sent, split between the sockets as the mask is */
		double far_ipis = (double)nr_ipis * far / (near + far);
		charge(s, COST_FLUSH_WAIT, smp_call_round_ns(cm, nr_ipis - far_ipis, far_ipis, queued,
							     cm->cr3_flush_ns));
		smp_round_done(&s->ipi_rounds, self, mask, sim_now(s));
		s->last_round_end = sim_now(s);
	}
	trace(s, TR_FLUSH_ROUND, self, current_pid(s), now, sim_now(s) - now, nr_ipis, pages,
	      s->flush_origin, 0);
	if (cpumask_test_cpu(self, mask))
		flush_tlb_func(s, self, f, 0, sim_now(s));
}

/* broadcast_tlb_flush (INVLPGB): no IPIs, no counters; every CPU running the
 * mm loses the range. */
static void broadcast_tlb_flush(struct sim *s, const struct flush_tlb_info *f)
{
	int cpu;
	bool full = f->end == TLB_FLUSH_ALL;
	uint64_t now = sim_now(s);
	s->st.broadcasts++;
	charge(s, COST_FLUSH_WAIT, s->m.cost.invlpgb_ns);
	trace(s, TR_FLUSH_ROUND, s->e.cpu, current_pid(s), now, sim_now(s) - now, 0,
	      full ? -1 : (long)((f->end - f->start) >> PAGE_SHIFT), s->flush_origin, 0);
	if (s->oracle) { /* the broadcast reaches every CPU, whatever it runs */
		if (full)
			for (int i = 0; i < s->m.nr_cpus; i++)
				oracle_drop_mm(s, i, f->mm, "INVLPGB (global ASID)");
		else
			oracle_drop_range_all(s, f->mm, f->start, f->end, "INVLPGB range (global ASID)");
	}
	for_each_cpu(cpu, &f->mm->cpumask) {
		struct cpu_state *c = &s->cpus[cpu];
		if (c->loaded_mm != f->mm)
			continue;
		flush_ledger_leave(s, cpu); /* (none is in one with INVLPGB in use) */
		if (full)
			tlb_full_flush_refill(s, cpu);
		c->loaded_gen = f->mm->tlb_gen;
	}
}

/* consider_global_asid: sample about 1/32 of flushes and give the mm a
 * global ASID when more than three CPUs run it (INVLPGB machines only). */
static void consider_global_asid(struct sim *s, struct mm_struct *mm)
{
	if (!x86_invlpgb(s) || mm->global_asid)
		return;
	if ((s->current ? (uint64_t)s->current->pid : 0) % 32 != jiffies(s) % 32)
		return;
	if (cpumask_weight(&mm->cpumask) > 3)
		mm->global_asid = true;
}

void x86_flush_tlb_mm_range(struct mm_struct *mm, uint64_t start, uint64_t end,
			    unsigned stride_shift, bool freed_tables)
{
	struct sim *s = mm->sim;
	struct flush_tlb_info f = {
		.mm = mm, .start = start, .end = end, .stride_shift = stride_shift,
		.freed_tables = freed_tables, .initiating_cpu = s->e.cpu,
	};

	f.new_tlb_gen = ++mm->tlb_gen;
	if (end != TLB_FLUSH_ALL &&
	    ((end - start) >> stride_shift) > (uint64_t)s->m.tlb_single_page_flush_ceiling) {
		f.start = 0;
		f.end = TLB_FLUSH_ALL;
	}
	if (mm->global_asid) {
		broadcast_tlb_flush(s, &f);
	} else if (cpumask_any_but(&mm->cpumask, s->e.cpu)) {
		f.trim_cpumask = should_trim_cpumask(s, mm);
		flush_tlb_multi(s, &mm->cpumask, &f);
		consider_global_asid(s, mm);
	} else if (s->cpus[s->e.cpu].loaded_mm == mm) {
		flush_tlb_func(s, s->e.cpu, &f, 0, sim_now(s));
	}
	if (s->oracle && f.end != TLB_FLUSH_ALL)
		oracle_range_done(s, mm, f.start, f.end, "flush_tlb_func: INVLPG range");
}

void x86_tlbbatch_flush(struct sim *s, struct arch_tlbflush_unmap_batch *b)
{
	struct flush_tlb_info f = {
		.mm = NULL, .start = 0, .end = TLB_FLUSH_ALL, .stride_shift = 0,
		.freed_tables = false, .new_tlb_gen = 0, .initiating_cpu = s->e.cpu,
	};

	s->st.batch_flushes++;
	if (x86_invlpgb(s) && b->unmapped_pages) {
		/* invlpgb_flush_all_nonglobals: every CPU drops every user entry */
		uint64_t now = sim_now(s);
		s->st.broadcasts++;
		charge(s, COST_FLUSH_WAIT, s->m.cost.invlpgb_ns);
		trace(s, TR_FLUSH_ROUND, s->e.cpu, current_pid(s), now, sim_now(s) - now, 0, -1,
		      s->flush_origin, 0);
		for (int cpu = 0; cpu < s->m.nr_cpus; cpu++) {
			struct cpu_state *c = &s->cpus[cpu];
			if (c->loaded_mm) {
				tlb_full_flush_refill(s, cpu);
				c->loaded_gen = c->loaded_mm->tlb_gen;
			}
			if (s->oracle)
				oracle_drop_cpu(s, cpu, "invlpgb_flush_all_nonglobals");
		}
		b->unmapped_pages = false;
	} else if (cpumask_any_but(&b->cpumask, s->e.cpu)) {
		flush_tlb_multi(s, &b->cpumask, &f);
	} else if (cpumask_test_cpu(s->e.cpu, &b->cpumask)) {
		flush_tlb_func(s, s->e.cpu, &f, 0, sim_now(s));
	}
	cpumask_clear(&b->cpumask);
}

/* ---- context switch ----------------------------------------------------- */

/* choose_new_asid: the slot already holding @next, flushed only if @next
 * moved on since; else the next slot round robin, flushed. */
static int choose_new_asid(struct cpu_state *c, struct mm_struct *next, bool *need_flush)
{
	for (int i = 0; i < TLB_NR_DYN_ASIDS; i++)
		if (c->asid_mm[i] == next) {
			*need_flush = c->asid_gen[i] < next->tlb_gen;
			return i;
		}
	int asid = c->next_asid;
	c->next_asid = (uint8_t)((c->next_asid + 1) % TLB_NR_DYN_ASIDS);
	*need_flush = true;
	return asid;
}

/* switch_mm_irqs_off (v6.17, with the mask rules of the base): a lazy CPU
 * coming back to its mm catches up if the mm was flushed meanwhile (a full
 * flush); a switch to another mm reuses that mm's ASID if this CPU still
 * has one, flushing only if its generation is old. */
void x86_switch_mm_irqs_off(struct sim *s, int cpu, struct mm_struct *next, uint64_t now)
{
	flush_ledger_leave(s, cpu);
	struct cpu_state *c = &s->cpus[cpu];
	struct mm_struct *prev = c->loaded_mm;
	bool was_lazy = c->is_lazy, need_flush = false;
	c->is_lazy = false;
	if (prev == next) {
		if (!was_lazy || next->global_asid || c->loaded_gen == next->tlb_gen)
			return;
		need_flush = true;
		if (s->oracle)
			oracle_drop_mm(s, cpu, next, "switch_mm_irqs_off: tlb_gen catch-up");
	} else {
		if (prev) {
			c->asid_gen[c->loaded_asid] = c->loaded_gen;
			if (!s->k.lazy_mm_cpumask)
				cpumask_clear_cpu(cpu, &prev->cpumask);
		}
		cpumask_set_cpu(cpu, &next->cpumask);
		int asid = choose_new_asid(c, next, &need_flush);
		if (next->global_asid)
			need_flush = false;
		struct mm_struct *evicted = c->asid_mm[asid];
		c->loaded_asid = (uint8_t)asid;
		c->asid_mm[asid] = next;
		c->loaded_mm = next;
		c->loaded_gen = need_flush ? next->tlb_gen : c->asid_gen[asid];
		if (s->oracle) {
			/* a reused ASID is flushed: its old owner's entries go */
			if (evicted && evicted != next)
				oracle_drop_mm(s, cpu, evicted, "choose_new_asid: ASID reused");
			if (need_flush)
				oracle_drop_mm(s, cpu, next, "switch_mm_irqs_off: new ASID flushed");
			else
				oracle_load(s, cpu, next);
		}
	}
	if (need_flush) {
		c->loaded_gen = next->tlb_gen;
		tlb_refill_at(s, cpu, now);
	}
	trace(s, TR_TLB_FLUSH, cpu, c->curr ? c->curr->pid : 0, now, 0, TLB_FLUSH_ON_TASK_SWITCH,
	      need_flush ? -1 : 0, 0, 0);
}

/* enter_lazy_tlb: idle keeps the user mm loaded, lazily. */
void x86_enter_lazy_tlb(struct sim *s, int cpu)
{
	flush_ledger_leave(s, cpu);
	struct cpu_state *c = &s->cpus[cpu];
	if (c->loaded_mm)
		c->is_lazy = true;
}
