/* The TLB-coherence oracle: see linux/tlb_oracle.h and docs/oracle.md.
 *
 * Sequence numbers order the oracle's events: a drop or a load takes a new
 * even number, a PTE going inaccessible is stamped with the current number
 * plus one (odd), so "cached since d" and "inaccessible since o" compare
 * strictly whichever came first in the step. */
#include <inttypes.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#if defined(__SSE2__)
#include <emmintrin.h>
#endif

#include "kernel/sim.h"
#include "linux/mm.h"
#include "linux/tlb_oracle.h"
#include "sim/bigalloc.h"

#define RING 8192            /* events kept for the interleavings */
#define REPORT_LINES 48      /* lines of interleaving per report */

enum oev_kind { OEV_OFF, OEV_NOTE, OEV_DROP, OEV_LOAD, OEV_CHECK };

struct oev {
	uint64_t t;
	uint64_t a0, a1;          /* address range (OFF, NOTE, range DROP) */
	uint64_t cpus;            /* DROP: the CPUs that dropped (the first 64) */
	const char *what;
	const char *fn;           /* NOTE: the gather's user */
	uint32_t seq;
	int32_t pid;
	int32_t extra;            /* OFF: tlb_flush_pending; NOTE: its kind; DROP: CPUs dropped */
	int16_t cpu;              /* the CPU the step ran on */
	int16_t mm;               /* -1: every mm */
	uint8_t kind;
	uint8_t origin;           /* DROP: enum flush_origin */
	pte_t pte;                /* OFF: the new PTE */
};

/* A broadcast invalidation issued by @cpu and not completed yet. */
struct oissued {
	struct mm_struct *mm;
	int cpu;
	uint64_t start, end;
};

struct tlb_oracle {
	uint32_t seq;
	struct oissued *issued;   /* oracle_issued, in issue order */
	int nr_issued, max_issued;
	int nr_mms;               /* ids 0..nr_mms-1 (the caller mm included) */
	int nr_cpus;
	uint32_t *since;          /* [mm * nr_cpus + cpu] (since_slot): cached since (0: holds none) */
	uint64_t *since_t;        /* ... at this time (for the report) */
	uint64_t range_mask[4];   /* oracle_range_cpu's CPUs (up to 256; beyond: conservative) */
	bool range_any;
	const char *ctx;
	bool mute;                /* after oracle_pmd_invalidate: the stamps are made */
	bool first;
	struct oracle_counts n;
	struct oev ring[RING];
	uint64_t head;            /* events written */
	char *report[ORACLE_MAX_REPORTS];
	int nr_reports;
};

static inline struct tlb_oracle *O(const struct sim *s) { return s->oracle; }

/* An mm's stamps are one run over the CPUs: a page's check reads them all. */
static inline size_t since_slot(const struct tlb_oracle *o, int cpu, int m)
{
	return (size_t)m * (size_t)o->nr_cpus + (size_t)cpu;
}

static uint32_t next_seq(struct tlb_oracle *o)
{
	o->seq = (o->seq | 1u) + 1u;
	return o->seq;
}

static int mm_slot(const struct tlb_oracle *o, const struct mm_struct *mm)
{
	return mm->id < o->nr_mms ? mm->id : -1;
}

static struct oev *ev_new(struct sim *s, enum oev_kind k, const struct mm_struct *mm)
{
	struct tlb_oracle *o = O(s);
	struct oev *e = &o->ring[o->head++ % RING];
	memset(e, 0, sizeof(*e));
	e->t = sim_now(s);
	e->kind = (uint8_t)k;
	e->cpu = (int16_t)s->e.cpu;
	e->pid = current_pid(s);
	e->mm = (int16_t)(mm ? mm->id : -1);
	e->seq = o->seq;
	return e;
}

static struct oev *ev_last(struct tlb_oracle *o)
{
	return o->head ? &o->ring[(o->head - 1) % RING] : NULL;
}

int oracle_enable(struct sim *s, bool first)
{
	struct tlb_oracle *o = calloc(1, sizeof(*o));
	if (!o)
		return -1;
	o->nr_mms = s->nr_mms + 1;
	o->nr_cpus = s->m.nr_cpus;
	o->first = first;
	o->seq = 2;
	o->ctx = "set_pte_at";
	size_t n = (size_t)s->m.nr_cpus * (size_t)o->nr_mms;
	o->since = calloc(n, sizeof(*o->since));
	o->since_t = calloc(n, sizeof(*o->since_t));
	bool ok = o->since && o->since_t;
	for (int m = 0; ok && m < s->nr_mms; m++)
		for (int v = 0; ok && v < s->mms[m].nr_vmas; v++) {
			struct vm_area_struct *vma = &s->mms[m].vmas[v];
			vma->oracle_off = big_zalloc(vma_pages(vma) * sizeof(uint32_t));
			ok = vma->oracle_off != NULL;
		}
	s->oracle = o;
	if (!ok) {
		oracle_free(s);
		return -1;
	}
	return 0;
}

void oracle_free(struct sim *s)
{
	struct tlb_oracle *o = O(s);
	if (!o)
		return;
	for (int m = 0; s->mms && m < s->nr_mms; m++)
		for (int v = 0; v < s->mms[m].nr_vmas; v++) {
			struct vm_area_struct *vma = &s->mms[m].vmas[v];
			if (vma->oracle_off)
				big_free(vma->oracle_off, vma_pages(vma) * sizeof(uint32_t));
			vma->oracle_off = NULL;
		}
	for (int i = 0; i < o->nr_reports; i++)
		free(o->report[i]);
	free(o->issued);
	free(o->since);
	free(o->since_t);
	free(o);
	s->oracle = NULL;
}

void oracle_counts(const struct sim *s, struct oracle_counts *c)
{
	if (O(s))
		*c = O(s)->n;
	else
		memset(c, 0, sizeof(*c));
}

int oracle_nr_reports(const struct sim *s) { return O(s) ? O(s)->nr_reports : 0; }
const char *oracle_report(const struct sim *s, int i) { return O(s)->report[i]; }

void oracle_ctx_set(struct sim *s, const char *fn)
{
	O(s)->ctx = fn;
	O(s)->mute = false;
}

/* ---- what a CPU may hold ------------------------------------------------- */

void oracle_pte_off(struct sim *s, struct vm_area_struct *vma, uint64_t addr, pte_t val)
{
	struct tlb_oracle *o = O(s);
	if (o->mute)
		return;
	uint32_t stamp = o->seq | 1u;
	vma->oracle_off[pte_index(vma, addr)] = stamp;
	/* one event for a run of PTEs changed by one function in one step */
	struct oev *l = ev_last(o);
	if (l && l->kind == OEV_OFF && l->t == sim_now(s) && l->cpu == s->e.cpu &&
	    l->mm == vma->vm_mm->id && l->what == o->ctx && l->a1 == addr && l->seq == stamp &&
	    l->pte == val) {
		l->a1 = addr + PAGE_SIZE;
		return;
	}
	struct oev *e = ev_new(s, OEV_OFF, vma->vm_mm);
	e->seq = stamp;
	e->a0 = addr;
	e->a1 = addr + PAGE_SIZE;
	e->what = o->ctx;
	e->extra = vma->vm_mm->tlb_flush_pending;
	e->pte = val;
}

void oracle_pmd_invalidate(struct sim *s, struct vm_area_struct *vma, uint64_t haddr,
			   const char *fn, bool off)
{
	oracle_ctx_set(s, fn);
	for (unsigned i = 0; off && i < HPAGE_PMD_NR; i++) {
		uint64_t a = haddr + (uint64_t)i * PAGE_SIZE;
		if (vma->ptes[pte_index(vma, a)] & PTE_PRESENT)
			oracle_pte_off(s, vma, a, PTE_MIGRATION);
	}
	O(s)->mute = true;
}

/* A drop at @now (sim_now, which the callers have): merged into the last
 * event when it is the same drop on another CPU (a flush round's
 * receivers), else a new one.  Inline: once per receiver of every round. */
static inline __attribute__((always_inline)) void
log_drop_at(struct sim *s, int cpu, const struct mm_struct *mm, const char *how, uint64_t a0,
	    uint64_t a1, uint64_t now)
{
	struct tlb_oracle *o = O(s);
	struct oev *l = ev_last(o);
	if (l && l->kind == OEV_DROP && l->t == now && l->cpu == s->e.cpu && l->what == how &&
	    l->mm == (mm ? mm->id : -1) && l->a0 == a0 && l->a1 == a1) {
		if (cpu >= 0 && cpu < 64)
			l->cpus |= 1ull << cpu;
		l->extra++;
		l->seq = o->seq;
		return;
	}
	struct oev *e = ev_new(s, OEV_DROP, mm);
	e->what = how;
	e->a0 = a0;
	e->a1 = a1;
	e->extra = 1;
	e->origin = (uint8_t)s->flush_origin;
	if (cpu >= 0 && cpu < 64)
		e->cpus = 1ull << cpu;
}

static void log_drop(struct sim *s, int cpu, const struct mm_struct *mm, const char *how,
		     uint64_t a0, uint64_t a1)
{
	log_drop_at(s, cpu, mm, how, a0, a1, sim_now(s));
}

void oracle_load(struct sim *s, int cpu, struct mm_struct *mm)
{
	struct tlb_oracle *o = O(s);
	int m = mm_slot(o, mm);
	if (m < 0)
		return;
	size_t i = since_slot(o, cpu, m);
	if (!o->since[i]) {
		o->since[i] = next_seq(o);
		o->since_t[i] = sim_now(s);
	}
}

static inline __attribute__((always_inline)) void drop_one(struct sim *s, int cpu, int m,
							   uint64_t now)
{
	struct tlb_oracle *o = O(s);
	size_t i = since_slot(o, cpu, m);
	const struct mm_struct *loaded = s->cpus[cpu].loaded_mm;
	if (loaded && loaded->id == m) {
		o->since[i] = o->seq; /* may refill at once */
		o->since_t[i] = now;
	} else {
		o->since[i] = 0;
	}
}

void oracle_drop_mm(struct sim *s, int cpu, struct mm_struct *mm, const char *how)
{
	struct tlb_oracle *o = O(s);
	int m = mm_slot(o, mm);
	if (m < 0)
		return;
	uint64_t now = sim_now(s);
	next_seq(o);
	drop_one(s, cpu, m, now);
	log_drop_at(s, cpu, mm, how, 0, 0, now);
}

void oracle_drop_cpu(struct sim *s, int cpu, const char *how)
{
	struct tlb_oracle *o = O(s);
	next_seq(o);
	uint64_t now = sim_now(s);
	for (int m = 0; m < o->nr_mms; m++)
		drop_one(s, cpu, m, now);
	log_drop_at(s, cpu, NULL, how, 0, 0, now);
}

/* x86: will @cpu flush @mm's entries before it can use them again?  A CPU
 * not running the mm (lazy, or on another mm) whose ASID generation is
 * behind tlb_gen does: switch_mm_irqs_off / choose_new_asid flush it. */
static bool x86_flushes_before_use(const struct sim *s, int cpu, const struct mm_struct *mm)
{
	const struct cpu_state *c = &s->cpus[cpu];
	if (s->m.engine != FLUSH_X86_IPI && s->m.engine != FLUSH_X86_INVLPGB)
		return false;
	if (mm->global_asid)
		return false;
	if (c->loaded_mm == mm)
		return c->is_lazy && c->loaded_gen < mm->tlb_gen;
	for (int a = 0; a < TLB_NR_DYN_ASIDS; a++)
		if (c->asid_mm[a] == mm)
			return c->asid_gen[a] < mm->tlb_gen;
	return true; /* no ASID left: a new one is flushed */
}

/* May @cpu still translate a page of @mm whose PTE went inaccessible at
 * @off? */
static bool holds(const struct sim *s, int cpu, const struct mm_struct *mm, uint32_t off)
{
	const struct tlb_oracle *o = O(s);
	uint32_t since = o->since[since_slot(o, cpu, mm->id)];
	return since && since < off && !x86_flushes_before_use(s, cpu, mm);
}

uint64_t oracle_holders(const struct sim *s, const struct vm_area_struct *vma, uint64_t addr,
			bool raw)
{
	const struct tlb_oracle *o = O(s);
	uint64_t i = pte_index(vma, addr), mask = 0;
	uint32_t off = vma->oracle_off[i];
	if (!off || (vma->ptes[i] & PTE_PRESENT) || mm_slot(o, vma->vm_mm) < 0)
		return 0;
	for (int c = 0; c < s->m.nr_cpus && c < 64; c++) {
		uint32_t since = o->since[since_slot(o, c, vma->vm_mm->id)];
		if (raw ? since && since < off : holds(s, c, vma->vm_mm, off))
			mask |= 1ull << c;
	}
	return mask;
}

/* Clear the stamps of the inaccessible PTEs of [start, end) of @mm that no
 * CPU outside @keep (NULL: none) may still hold. */
static void range_clear(struct sim *s, struct mm_struct *mm, uint64_t start, uint64_t end,
			const uint64_t *keep)
{
	for (uint64_t a = start; a < end;) {
		struct vm_area_struct *vma = find_vma(mm, a);
		if (!vma || vma->vm_start >= end)
			return;
		if (a < vma->vm_start)
			a = vma->vm_start;
		uint64_t e = end < vma->vm_end ? end : vma->vm_end;
		for (; a < e; a += PAGE_SIZE) {
			uint64_t i = pte_index(vma, a);
			uint32_t off = vma->oracle_off[i];
			if (!off || (vma->ptes[i] & PTE_PRESENT))
				continue;
			bool left = false;
			for (int c = 0; keep && !left && c < s->m.nr_cpus; c++) {
				bool in = c < 256 && (keep[c / 64] >> (c % 64) & 1);
				left = !in && holds(s, c, mm, off);
			}
			if (!left)
				vma->oracle_off[i] = 0;
		}
	}
}

void oracle_drop_range_all(struct sim *s, struct mm_struct *mm, uint64_t start, uint64_t end,
			   const char *how)
{
	if (mm_slot(O(s), mm) < 0)
		return;
	next_seq(O(s));
	range_clear(s, mm, start, end, NULL);
	log_drop(s, -1, mm, how, start, end);
}

void oracle_issued(struct sim *s, int cpu, struct mm_struct *mm, uint64_t start, uint64_t end)
{
	struct tlb_oracle *o = O(s);
	if (mm_slot(o, mm) < 0)
		return;
	oracle_note(s, ON_ISSUED, mm, start);
	struct oissued *l = o->nr_issued ? &o->issued[o->nr_issued - 1] : NULL;
	if (l && l->cpu == cpu && l->mm == mm && l->end == start) {
		l->end = end; /* the next page of a batch: one range */
		return;
	}
	if (o->nr_issued == o->max_issued) {
		int cap = o->max_issued ? 2 * o->max_issued : 64;
		struct oissued *p = realloc(o->issued, (size_t)cap * sizeof(*p));
		if (!p) {
			/* out of memory: take it as completed now (optimistic,
			 * as the model was before it tracked issuers) */
			next_seq(o);
			range_clear(s, mm, start, end, NULL);
			return;
		}
		o->issued = p;
		o->max_issued = cap;
	}
	o->issued[o->nr_issued++] = (struct oissued){ mm, cpu, start, end };
}

void oracle_issued_complete(struct sim *s, int cpu, const char *how)
{
	struct tlb_oracle *o = O(s);
	int k = 0;
	for (int i = 0; i < o->nr_issued; i++) {
		struct oissued *p = &o->issued[i];
		if (p->cpu != cpu) {
			o->issued[k++] = *p;
			continue;
		}
		next_seq(o);
		range_clear(s, p->mm, p->start, p->end, NULL);
		log_drop(s, -1, p->mm, how, p->start, p->end);
	}
	o->nr_issued = k;
}

void oracle_range_cpu(struct sim *s, int cpu)
{
	struct tlb_oracle *o = O(s);
	if (cpu < 256)
		o->range_mask[cpu / 64] |= 1ull << (cpu % 64);
	o->range_any = true;
}

void oracle_range_done(struct sim *s, struct mm_struct *mm, uint64_t start, uint64_t end,
		       const char *how)
{
	struct tlb_oracle *o = O(s);
	if (!o->range_any || mm_slot(o, mm) < 0)
		return;
	next_seq(o);
	range_clear(s, mm, start, end, o->range_mask);
	struct oev *e;
	log_drop(s, -1, mm, how, start, end);
	e = ev_last(o);
	e->cpus = o->range_mask[0];
	e->extra = 0;
	for (int w = 0; w < 4; w++)
		e->extra += __builtin_popcountll(o->range_mask[w]);
	memset(o->range_mask, 0, sizeof(o->range_mask));
	o->range_any = false;
}

static const char *const note_names[] = {
	[ON_FAULT] = "hint fault (do_numa_page)",
	[ON_BATCH] = "try_to_migrate_one: set_tlb_ubc_flush_pending recorded a batch",
	[ON_BATCH_SKIP] = "try_to_migrate_one (the unmap): set_tlb_ubc_flush_pending found pte_accessible() false, recorded no flush",
	[ON_CLEAR_FLUSH] = "try_to_migrate_one: ptep_clear_flush flushed the page",
	[ON_CLEAR_NOFLUSH] = "try_to_migrate_one (the unmap): ptep_clear_flush found pte_accessible() false, no flush",
	[ON_GATHER_OPEN] = "tlb_gather_mmu (tlb_flush_pending raised)",
	[ON_GATHER_FLUSH] = "tlb_finish_mmu: the gather's flush",
	[ON_GATHER_CLOSE] = "tlb_finish_mmu: tlb_flush_pending dropped",
	[ON_UNMAP_FLUSH] = "try_to_unmap_flush",
	[ON_PENDING_FLUSH] = "flush_tlb_batched_pending: flush_tlb_mm",
	[ON_PENDING_DSB] = "flush_tlb_batched_pending: arch_flush_tlb_batched_pending, a DSB only",
	[ON_PENDING_SKIP] = "flush_tlb_batched_pending: pending == flushed, no flush",
	[ON_UNMAP_MARK] = "try_to_unmap_flush: marked the mm's unmap batches flushed",
	[ON_ISSUED] = "TLBI VALE1IS issued (batched: complete at the issuer's DSB)",
};

void oracle_note(struct sim *s, enum oracle_note what, struct mm_struct *mm, uint64_t addr)
{
	struct oev *e = ev_new(s, OEV_NOTE, mm);
	e->what = note_names[what];
	e->extra = (int32_t)what;
	if (what == ON_GATHER_OPEN || what == ON_GATHER_FLUSH || what == ON_GATHER_CLOSE)
		e->fn = O(s)->ctx; /* whose gather */
	e->a0 = addr;
	e->a1 = addr + PAGE_SIZE;
	if (mm)
		e->pte = (pte_t)(mm->tlb_flush_pending > 255 ? 255 : mm->tlb_flush_pending);
}

void oracle_note_mark(struct sim *s, struct mm_struct *mm, uint32_t own, uint32_t marked)
{
	oracle_note(s, ON_UNMAP_MARK, mm, 0);
	struct oev *e = ev_last(O(s));
	e->a0 = own;
	e->a1 = marked;
}

/* ---- the check and its report -------------------------------------------- */

struct sbuf {
	char *p;
	size_t len, cap;
};

static void sb_printf(struct sbuf *b, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));
static void sb_printf(struct sbuf *b, const char *fmt, ...)
{
	va_list ap;
	for (;;) {
		size_t room = b->cap - b->len;
		va_start(ap, fmt);
		int n = b->p ? vsnprintf(b->p + b->len, room, fmt, ap) : -1;
		va_end(ap);
		if (b->p && n >= 0 && (size_t)n < room) {
			b->len += (size_t)n;
			return;
		}
		size_t cap = b->cap ? b->cap * 2 : 4096;
		if (n > 0 && cap < b->len + (size_t)n + 1)
			cap = b->len + (size_t)n + 1;
		char *p = realloc(b->p, cap);
		if (!p)
			return;
		b->p = p;
		b->cap = cap;
	}
}

static const char *origin_name(int origin)
{
	switch (origin) {
	case FLUSH_FROM_SCANNER_PENDING: return "flush_tlb_batched_pending";
	case FLUSH_FROM_GATHER: return "tlb_finish_mmu";
	case FLUSH_FROM_BATCH: return "try_to_unmap_flush";
	case FLUSH_FROM_PTEP_CLEAR: return "ptep_clear_flush";
	default: return "other";
	}
}

static const char *pte_kind(pte_t p)
{
	if (p & PTE_MIGRATION)
		return "migration entry";
	if (p & PTE_PROTNONE)
		return "PROT_NONE";
	return "none";
}

static void cpu_list(struct sbuf *b, uint64_t mask)
{
	bool first = true;
	for (int c = 0; c < 64; c++)
		if (mask >> c & 1) {
			sb_printf(b, "%s%d", first ? "" : ",", c);
			first = false;
		}
}

static void ev_line(struct sbuf *b, const struct oev *e, uint64_t t0)
{
	sb_printf(b, "  %+10.3f us  cpu%-3d pid %-5d ", ((double)e->t - (double)t0) / 1e3, e->cpu,
		  e->pid);
	switch (e->kind) {
	case OEV_OFF:
		sb_printf(b, "%s: %#" PRIx64 "..%#" PRIx64 " -> %s (tlb_flush_pending %d)\n", e->what,
			  e->a0, e->a1, pte_kind(e->pte), e->extra);
		break;
	case OEV_NOTE:
		if (e->fn)
			sb_printf(b, "%s: ", e->fn);
		sb_printf(b, "%s", e->what);
		if (e->extra == ON_UNMAP_MARK)
			sb_printf(b, " up to generation %" PRIu64 " (its own batch: generation %" PRIu64
				  "%s)", e->a1, e->a0,
				  e->a0 == e->a1 ? "" : "; a later batch of another task was not flushed");
		else if (e->extra == ON_UNMAP_FLUSH || e->extra == ON_PENDING_SKIP ||
			 e->extra == ON_PENDING_FLUSH || e->extra == ON_PENDING_DSB)
			;
		else if (!e->fn)
			sb_printf(b, " at %#" PRIx64, e->a0);
		sb_printf(b, " (tlb_flush_pending %d)\n", e->pte);
		break;
	case OEV_DROP:
		sb_printf(b, "%s from %s: %d CPU%s drop", e->what, origin_name(e->origin), e->extra,
			  e->extra == 1 ? "" : "s");
		if (e->cpus) {
			sb_printf(b, " (");
			cpu_list(b, e->cpus);
			sb_printf(b, ")");
		}
		if (e->a1)
			sb_printf(b, " %#" PRIx64 "..%#" PRIx64 "\n", e->a0, e->a1);
		else
			sb_printf(b, " %s\n", e->mm < 0 ? "every mm's entries" : "the mm's entries");
		break;
	default:
		sb_printf(b, "%s\n", e->what);
	}
}

/* Is event @e part of page @addr of mm @mm's story? */
static bool ev_relevant(const struct oev *e, int mm, uint64_t addr)
{
	if (e->mm >= 0 && e->mm != mm)
		return false;
	switch (e->kind) {
	case OEV_OFF:
		return addr >= e->a0 && addr < e->a1;
	case OEV_NOTE:
		if (e->extra == ON_FAULT || e->extra == ON_BATCH || e->extra == ON_BATCH_SKIP ||
		    e->extra == ON_CLEAR_FLUSH || e->extra == ON_CLEAR_NOFLUSH || e->extra == ON_ISSUED)
			return addr >= e->a0 && addr < e->a1;
		return true;
	case OEV_DROP:
		return !e->a1 || (addr >= e->a0 && addr < e->a1);
	default:
		return false;
	}
}

/* A zap's report: the pids (up to 8) whose try_to_unmap_flush marked the
 * mm's batches flushed between ring positions @from and the end. */
static int markers(const struct tlb_oracle *o, int mm, uint64_t from, int32_t *pid)
{
	int n = 0;
	for (uint64_t j = from; j < o->head && n < 8; j++) {
		const struct oev *e = &o->ring[j % RING];
		if (e->kind != OEV_NOTE || e->mm != mm || e->extra != ON_UNMAP_MARK)
			continue;
		bool seen = false;
		for (int i = 0; i < n; i++)
			seen |= pid[i] == e->pid;
		if (!seen)
			pid[n++] = e->pid;
	}
	return n;
}

static void report(struct sim *s, struct vm_area_struct *vma, uint64_t addr, uint32_t off,
		   const uint64_t *holders, const char *where, bool zap)
{
	struct tlb_oracle *o = O(s);
	struct mm_struct *mm = vma->vm_mm;
	struct sbuf b = { 0 };
	uint64_t now = sim_now(s);

	sb_printf(&b, "stale translation %s: mm %d page %#" PRIx64 " at %.6f s (seed %" PRIu64
		  ", kernel %s)\n", where, mm->id, addr, (double)now / 1e9, s->seed, s->k.name);
	/* when and by whom the PTE went inaccessible */
	const struct oev *offev = NULL;
	uint64_t first = o->head > RING ? o->head - RING : 0;
	for (uint64_t k = o->head; k-- > first;) {
		const struct oev *e = &o->ring[k % RING];
		if (e->kind == OEV_OFF && e->mm == mm->id && e->seq == off && addr >= e->a0 &&
		    addr < e->a1) {
			offev = e;
			break;
		}
	}
	uint64_t t0 = offev ? offev->t : now;
	if (offev && offev->t <= now)
		sb_printf(&b, "  PTE made inaccessible by %s on cpu%d (pid %d) at %.6f s, %.3f us "
			  "before the check, with tlb_flush_pending %d\n", offev->what, offev->cpu,
			  offev->pid, (double)offev->t / 1e9, (double)(now - offev->t) / 1e3,
			  offev->extra);
	else if (offev) /* a long step's events carry its time charged so far */
		sb_printf(&b, "  PTE made inaccessible by %s on cpu%d (pid %d), in a step that started "
			  "before the check and whose events carry its charged time (%.6f s), with "
			  "tlb_flush_pending %d\n", offev->what, offev->cpu, offev->pid,
			  (double)offev->t / 1e9, offev->extra);
	else
		sb_printf(&b, "  PTE made inaccessible before the oracle's event log begins\n");
	sb_printf(&b, "  CPUs that may still translate it:");
	for (int c = 0; c < s->m.nr_cpus && c < 256; c++) {
		if (!(holders[c / 64] >> (c % 64) & 1))
			continue;
		const struct cpu_state *cs = &s->cpus[c];
		size_t i = since_slot(o, c, mm->id);
		sb_printf(&b, " cpu%d (%s, may cache since %.6f s)", c,
			  cs->loaded_mm == mm ? (cs->is_lazy ? "lazy on the mm" : "running the mm")
					      : "entries kept in its ASID",
			  (double)o->since_t[i] / 1e9);
	}
	sb_printf(&b, "\n  pending: tlb_flush_pending %d, tlb_flush_batched pending %u flushed %u, "
		  "tlb_gen %" PRIu64 ";", mm->tlb_flush_pending,
		  mm->tlb_flush_batched & TLB_FLUSH_BATCH_PENDING_MASK,
		  mm->tlb_flush_batched >> TLB_FLUSH_BATCH_FLUSHED_SHIFT, mm->tlb_gen);
	int unflushed = 0;
	for (int i = 0; i < s->nr_tasks; i++)
		if (s->tasks[i].tlb_ubc.flush_required) {
			sb_printf(&b, " pid %d's unmap batch not yet flushed;", s->tasks[i].pid);
			unflushed++;
		}
	if (!unflushed)
		sb_printf(&b, " no unflushed unmap batch");
	sb_printf(&b, "\n  interleaving (us from the PTE change):\n");
	/* the story from the PTE change (or the log's start) to now */
	uint64_t k = first;
	if (offev)
		for (uint64_t j = o->head; j-- > first;)
			if (&o->ring[j % RING] == offev) {
				k = j;
				break;
			}
	/* before the change: the gathers of the mm since the one the change
	 * was made in opened (what tlb_flush_pending counted) */
	uint64_t k0 = k;
	if (offev)
		for (uint64_t j = k0; j-- > first && k0 - j < RING / 2;) {
			const struct oev *e = &o->ring[j % RING];
			if (e->kind == OEV_NOTE && e->mm == mm->id && e->extra == ON_GATHER_OPEN &&
			    e->cpu == offev->cpu) {
				k = j;
				break;
			}
		}
	/* a zap's check: also the unmap batches of the tasks whose flush
	 * marked the mm's batches flushed after the change, back to the
	 * batch each of them flushed (its records since its previous flush) */
	int32_t mpid[8];
	int nm = zap && offev ? markers(o, mm->id, k0, mpid) : 0;
	bool done[8] = { false };
	for (uint64_t j = k0; nm && j-- > first && k0 - j < RING / 2;) {
		const struct oev *e = &o->ring[j % RING];
		if (e->kind != OEV_NOTE || e->mm != mm->id)
			continue;
		for (int i = 0; i < nm; i++) {
			if (done[i] || e->pid != mpid[i])
				continue;
			if (e->extra == ON_UNMAP_FLUSH)
				done[i] = true; /* its previous batch ended here */
			else if (e->extra == ON_BATCH && j < k)
				k = j;
		}
	}
	int lines = 0, skipped = 0;
	/* a marking task's run of records: its first line, then one line
	 * saying how many more, when another event comes */
	const struct oev *run_last = NULL;
	int run_more = 0;
	for (; k < o->head; k++) {
		const struct oev *e = &o->ring[k % RING];
		bool marker = false;
		for (int i = 0; i < nm; i++)
			marker |= e->pid == mpid[i];
		if (k < k0 ? !(e->kind == OEV_NOTE && e->mm == mm->id &&
			       (e->extra == ON_GATHER_OPEN || e->extra == ON_GATHER_FLUSH ||
				e->extra == ON_GATHER_CLOSE ||
				(marker && (e->extra == ON_BATCH || e->extra == ON_UNMAP_FLUSH ||
					    e->extra == ON_UNMAP_MARK))))
			   : !(ev_relevant(e, mm->id, addr) ||
			       (marker && e->kind == OEV_NOTE && e->mm == mm->id &&
				e->extra == ON_BATCH)))
			continue;
		bool rec = marker && e->kind == OEV_NOTE && e->extra == ON_BATCH &&
			   !(addr >= e->a0 && addr < e->a1);
		if (rec && run_last && run_last->pid == e->pid) {
			run_last = e;
			run_more++;
			continue;
		}
		if (run_more && lines < REPORT_LINES) {
			sb_printf(&b, "  %+10.3f us  cpu%-3d pid %-5d ... and %d more batch records, the "
				  "last at %#" PRIx64 "\n", ((double)run_last->t - (double)t0) / 1e3,
				  run_last->cpu, run_last->pid, run_more, run_last->a0);
			lines++;
		}
		run_last = rec ? e : NULL;
		run_more = 0;
		if (lines < REPORT_LINES) {
			ev_line(&b, e, t0);
			lines++;
		} else {
			skipped++;
		}
	}
	if (skipped)
		sb_printf(&b, "  ... %d more events\n", skipped);
	sb_printf(&b, "  %+10.3f us  cpu%-3d pid %-5d CHECK %s: the page may still be translated\n",
		  ((double)now - (double)t0) / 1e3, s->e.cpu, current_pid(s), where);
	if (b.p)
		o->report[o->nr_reports++] = b.p;
}

/* Whether one of @n stamps is in [1, @off): some CPU may hold a page
 * made inaccessible at @off (holds(), less its x86 test).  Four at a time
 * with SSE2 (x86-64's baseline): an unsigned compare is a signed one of
 * both sides with the top bit flipped. */
static bool any_since_below(const uint32_t *since, int n, uint32_t off)
{
	const uint32_t lim = off - 1u; /* since - 1 < off - 1: 0 wraps above */
	int c = 0;
	bool maybe = false;
#if defined(__SSE2__)
	const __m128i one = _mm_set1_epi32(1), top = _mm_set1_epi32(INT32_MIN);
	const __m128i limv = _mm_set1_epi32((int32_t)(lim ^ 0x80000000u));
	__m128i acc = _mm_setzero_si128();
	for (; c + 4 <= n; c += 4) {
		__m128i v = _mm_loadu_si128((const __m128i *)(const void *)(since + c));
		v = _mm_xor_si128(_mm_sub_epi32(v, one), top);
		acc = _mm_or_si128(acc, _mm_cmplt_epi32(v, limv));
	}
	maybe = _mm_movemask_epi8(acc) != 0;
#endif
	for (; c < n; c++)
		maybe |= since[c] - 1u < lim;
	return maybe;
}

/* Check page @a of @vma; *@counted: a report was made for this folio or
 * range already (one each). */
static void check_page(struct sim *s, struct vm_area_struct *vma, uint64_t a, const char *where,
		       bool zap, bool *counted)
{
	struct tlb_oracle *o = O(s);
	struct mm_struct *mm = vma->vm_mm;
	uint64_t i = pte_index(vma, a);
	o->n.checks++;
	uint32_t off = vma->oracle_off[i];
	if (!off || (vma->ptes[i] & PTE_PRESENT))
		return;
	/* Nearly always no CPU may hold it: a first pass over the stamps
	 * alone, the full test only if one might. */
	if (!any_since_below(&o->since[since_slot(o, 0, mm->id)], s->m.nr_cpus, off))
		return;
	uint64_t holders[4] = { 0 };
	bool any = false;
	for (int c = 0; c < s->m.nr_cpus; c++)
		if (holds(s, c, mm, off)) {
			if (c < 256)
				holders[c / 64] |= 1ull << (c % 64);
			any = true;
		}
	if (!any)
		return;
	o->n.violations++;
	if (!*counted && o->nr_reports < ORACLE_MAX_REPORTS)
		report(s, vma, a, off, holders, where, zap);
	*counted = true;
	if (o->first)
		s->stop = true;
}

void oracle_check_folio(struct sim *s, struct folio folio, const char *where)
{
	struct tlb_oracle *o = O(s);
	unsigned long nr = folio_nr_pages(folio);
	bool counted = false;
	if (!strcmp(where, "before the copy"))
		o->n.migrations++;
	for (int m = 0; m < folio.fs->nr_mappers; m++) {
		struct vm_area_struct *vma = folio.fs->mappers[m];
		struct mm_struct *mm = vma->vm_mm;
		if (mm_slot(o, mm) < 0 || !vma->oracle_off)
			continue;
		for (unsigned long k = 0; k < nr; k++) {
			uint64_t a = vma_address(vma, folio.idx + k);
			if (a)
				check_page(s, vma, a, where, false, &counted);
		}
	}
}

void oracle_check_range(struct sim *s, struct vm_area_struct *vma, uint64_t start, uint64_t end,
			const char *where)
{
	struct tlb_oracle *o = O(s);
	bool counted = false;
	if (mm_slot(o, vma->vm_mm) < 0 || !vma->oracle_off)
		return;
	o->n.zaps++;
	for (uint64_t a = start; a < end; a += PAGE_SIZE)
		check_page(s, vma, a, where, true, &counted);
}
