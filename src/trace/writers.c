/* Trace writers: Chrome trace-event JSON and ftrace-style text, and the
 * `numasim run --trace` plumbing.  See writers.h and docs/traces.md. */
#include "lib/version.h"
#include "trace/writers.h"

#include <errno.h>
#include <math.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "lib/escape.h"
#include "lib/gzfile.h"
#include "lib/strnum.h"
#include "report/report.h"
#include "kernel/sim.h"

/* ---- names ---------------------------------------------------------------- */

bool trace_type_is_span(int type)
{
	switch (type) {
	case TR_SCAN_PASS: case TR_GATHER: case TR_PTE_TABLE: case TR_HINT_FAULT:
	case TR_MIGRATION: case TR_FLUSH_ROUND:
		return true;
	default:
		return false;
	}
}

const char *trace_migrate_mode_name(int64_t mode)
{
	static const char *const n[] = { "MIGRATE_ASYNC", "MIGRATE_SYNC_LIGHT", "MIGRATE_SYNC" };
	return mode >= 0 && mode < 3 ? n[mode] : "?";
}

/* The model's enum migrate_reason (linux/migrate.h) as the kernel's
 * MIGRATE_REASON strings print it. */
const char *trace_migrate_reason_name(int64_t reason)
{
	static const char *const n[] = { "compaction", "memory_failure", "memory_hotplug",
					 "syscall_or_cpuset", "mempolicy_mbind", "numa_misplaced",
					 "contig_range", "longterm_pin", "demotion" };
	return reason >= 0 && reason < (int64_t)(sizeof(n) / sizeof(n[0])) ? n[reason] : "?";
}

const char *trace_flush_origin_name(int64_t origin)
{
	static const char *const n[] = { "other", "flush_tlb_batched_pending", "tlb_finish_mmu",
					 "try_to_unmap_flush", "ptep_clear_flush" };
	return origin >= 0 && origin < 5 ? n[origin] : "?";
}

/* enum numa_vmaskip_reason (kernel/sched/fair.c) */
const char *trace_skip_reason_name(int64_t reason)
{
	static const char *const n[] = { "unsuitable", "shared_ro", "inaccessible", "scan_delay",
					 "pid_inactive", "ignore_pid_inactive", "seq_completed" };
	return reason >= 0 && reason < 7 ? n[reason] : "?";
}

/* enum numa_migrate_outcome (trace/trace.h) */
const char *trace_numa_outcome_name(int64_t outcome)
{
	static const char *const n[] = { "moved", "swapped", "no_cpu", "failed", "no_sd_numa" };
	return outcome >= 0 && outcome < 5 ? n[outcome] : "?";
}

/* enum numa_migrate_refused's bits (trace/trace.h) */
const char *trace_numa_refused_name(int64_t bit)
{
	static const char *const n[NR_NUMA_REFUSED] = { "move_imbalance", "swap_spare", "swap_smallimp",
							"swap_not_home", "cpu_claimed", "affinity" };
	return bit >= 0 && bit < NR_NUMA_REFUSED ? n[bit] : "?";
}

static const char *tlb_reason_name(int64_t r)
{
	return r >= 0 && r < 6 ? tlb_flush_reason_names[r] : "?";
}

/* The JSON's "cat" of each event, for filtering in Perfetto or
 * chrome://tracing: the tracepoint's system for the kernel's tracepoints
 * (tlb, migrate, sched), and for the simulator's spans what they are part
 * of: "numa" the scanner's pass and PTE tables, "mmu_gather" its gather,
 * "fault" a hint fault, "migrate" a migration, "tlb" a flush round and a
 * recorded unmap batch (and the flow arrow from it to its flush). */
static const char *type_cat(int type)
{
	switch (type) {
	case TR_TLB_FLUSH: case TR_FLUSH_ROUND: case TR_BATCH_RECORDED:
		return "tlb";
	case TR_MIGRATE_START: case TR_MIGRATE_PAGES: case TR_SET_MIGRATION_PTE:
	case TR_REMOVE_MIGRATION_PTE: case TR_MIGRATION:
		return "migrate";
	case TR_SKIP_VMA: case TR_MOVE_NUMA: case TR_SWAP_NUMA: case TR_STICK_NUMA:
	case TR_NUMA_MIGRATE_RESULT:
		return "sched";
	case TR_SCAN_PASS: case TR_PTE_TABLE: return "numa";
	case TR_GATHER: return "mmu_gather";
	case TR_HINT_FAULT: return "fault";
	default: return "numasim";
	}
}

/* ---- output sink: a buffer that writes to a FILE, or only counts ---------- */

struct sink {
	FILE *f;          /* NULL: count only */
	uint64_t bytes;
	size_t len;
	bool err;
	char buf[1 << 16];
};

static void sk_flush(struct sink *k)
{
	if (k->f && k->len && fwrite(k->buf, 1, k->len, k->f) != k->len)
		k->err = true;
	k->bytes += k->len;
	k->len = 0;
}

/* Room for @n more bytes (n is small: a field, a line). */
static inline char *sk_room(struct sink *k, size_t n)
{
	if (k->len + n > sizeof(k->buf))
		sk_flush(k);
	return k->buf + k->len;
}

static void sk_mem(struct sink *k, const char *s, size_t n)
{
	while (n) {
		size_t c = n < 4096 ? n : 4096;
		memcpy(sk_room(k, c), s, c);
		k->len += c;
		s += c;
		n -= c;
	}
}

static inline void sk_str(struct sink *k, const char *s) { sk_mem(k, s, strlen(s)); }
static inline void sk_ch(struct sink *k, char c) { *sk_room(k, 1) = c; k->len++; }

static void sk_spaces(struct sink *k, int n)
{
	while (n-- > 0)
		sk_ch(k, ' ');
}

/* Decimal digits of @v into @d (reversed); returns the count. */
static inline int digits_rev(uint64_t v, char *d)
{
	int n = 0;
	do {
		d[n++] = (char)('0' + v % 10);
		v /= 10;
	} while (v);
	return n;
}

/* @v zero-padded to at least @width digits. */
static void sk_u64w(struct sink *k, uint64_t v, int width)
{
	char d[24];
	int n = digits_rev(v, d);
	char *p = sk_room(k, 24);
	int i = 0;
	for (; n + i < width; i++)
		p[i] = '0';
	while (n)
		p[i++] = d[--n];
	k->len += (size_t)i;
}

static inline void sk_u64(struct sink *k, uint64_t v) { sk_u64w(k, v, 1); }

static void sk_i64(struct sink *k, int64_t v)
{
	if (v < 0) {
		sk_ch(k, '-');
		sk_u64(k, (uint64_t)0 - (uint64_t)v);
	} else {
		sk_u64(k, (uint64_t)v);
	}
}

static void sk_hex(struct sink *k, uint64_t v, bool upper)
{
	const char *xd = upper ? "0123456789ABCDEF" : "0123456789abcdef";
	char d[17];
	int n = 0;
	do {
		d[n++] = xd[v & 15];
		v >>= 4;
	} while (v);
	char *p = sk_room(k, 17);
	int i = 0;
	while (n)
		p[i++] = d[--n];
	k->len += (size_t)i;
}

/* ns as microseconds with three decimals: 1234.567 */
static void sk_us(struct sink *k, uint64_t ns)
{
	sk_u64(k, ns / 1000);
	sk_ch(k, '.');
	sk_u64w(k, ns % 1000, 3);
}

static void sk_double(struct sink *k, double v)
{
	char b[64];
	int n = snprintf(b, sizeof(b), "%.10g", isfinite(v) ? v : 0.0);
	sk_mem(k, b, (size_t)n);
}

/* A JSON string literal. */
static void sk_jstr(struct sink *k, const char *s)
{
	sk_ch(k, '"');
	for (; *s; s++) {
		unsigned char c = (unsigned char)*s;
		if (c == '"' || c == '\\') {
			sk_ch(k, '\\');
			sk_ch(k, (char)c);
		} else if (c < 0x20) {
			char b[8];
			snprintf(b, sizeof(b), "\\u%04x", c);
			sk_str(k, b);
		} else {
			sk_ch(k, (char)c);
		}
	}
	sk_ch(k, '"');
}

/* ---- the plan: output order and async spans ------------------------------ */

enum { IT_INSTANT, IT_BEGIN, IT_END };

/* One output position.  Order: time, then seq, the position in the order
 * the simulated code ran.  Instants and span ends are recorded when they
 * happen: seq 4*record+4.  A span's begin goes just before the first thing
 * that happened inside it: seq 4*first+1, where first is the first record
 * at that nanosecond on that CPU since the last span that ended there (the
 * model charges time after the work, so several records share a
 * nanosecond).  A flush round is recorded as its receivers' tlb_flush
 * events, then the sender's "remote IPI send", then the round: its begin
 * goes before the receivers and the sender's event right after the begin
 * (seq 4*first_receiver+2), as the kernel emits them.  Begins that share a
 * seq: the longer (outer) first. */
struct titem {
	uint64_t time;
	uint64_t key;     /* seq << TIE_BITS | (begins: TIE_MAX - dur, capped) */
	uint32_t ev;
	uint32_t kind;
};

struct trace_plan {
	struct titem *it;
	size_t n;
	unsigned char *async;  /* per event: 1 if a span written as async */
	size_t spans, nr_async;
};

#define TIE_BITS 35
#define TIE_MAX ((1ull << TIE_BITS) - 1)

static int titem_cmp(const void *pa, const void *pb)
{
	const struct titem *a = pa, *b = pb;
	if (a->time != b->time)
		return a->time < b->time ? -1 : 1;
	if (a->key != b->key)
		return a->key < b->key ? -1 : 1;
	if (a->ev != b->ev) /* begins: the later record (outer) first */
		return (a->ev < b->ev) == (a->kind != IT_BEGIN) ? -1 : 1;
	return (int)a->kind - (int)b->kind;
}

/* Open-addressed map (cpu, time) -> slot, for the nanoseconds at which a
 * span begins. */
struct bmap {
	uint64_t *time;
	int32_t *cpu;     /* -1: empty */
	uint32_t *first;  /* record + 1 of the first record since the last end; 0: none */
	size_t mask;
};

static inline size_t bmap_hash(uint64_t time, int cpu)
{
	uint64_t h = time * 0x9e3779b97f4a7c15ull ^ ((uint64_t)(uint32_t)cpu * 0xc2b2ae3d27d4eb4full);
	return (size_t)(h ^ (h >> 29));
}

static int bmap_init(struct bmap *m, size_t n)
{
	size_t cap = 16;
	while (cap < 2 * n + 16)
		cap *= 2;
	m->mask = cap - 1;
	m->time = malloc(cap * sizeof(*m->time));
	m->cpu = malloc(cap * sizeof(*m->cpu));
	m->first = calloc(cap, sizeof(*m->first));
	if (!m->time || !m->cpu || !m->first)
		return -1;
	for (size_t i = 0; i < cap; i++)
		m->cpu[i] = -1;
	return 0;
}

static void bmap_free(struct bmap *m)
{
	free(m->time);
	free(m->cpu);
	free(m->first);
}

/* The slot of (cpu, time); inserted if @add, else -1 when absent. */
static long bmap_slot(struct bmap *m, uint64_t time, int cpu, bool add)
{
	size_t i = bmap_hash(time, cpu) & m->mask;
	for (;; i = (i + 1) & m->mask) {
		if (m->cpu[i] < 0) {
			if (!add)
				return -1;
			m->cpu[i] = cpu < 0 ? 0 : cpu;
			m->time[i] = time;
			return (long)i;
		}
		if (m->time[i] == time && m->cpu[i] == (cpu < 0 ? 0 : cpu))
			return (long)i;
	}
}

static int span_cmp_cpu(const struct trace_event *a, const struct trace_event *b)
{
	return a->cpu != b->cpu ? (a->cpu < b->cpu ? -1 : 1) : 0;
}

/* Spans by CPU, start, longer first, later record (outer) first. */
static const struct trace_event *g_sort_ev; /* for span_idx_cmp; the plan is built single-threaded */
static int span_idx_cmp(const void *pa, const void *pb)
{
	uint32_t ia = *(const uint32_t *)pa, ib = *(const uint32_t *)pb;
	const struct trace_event *a = &g_sort_ev[ia], *b = &g_sort_ev[ib];
	int c = span_cmp_cpu(a, b);
	if (c)
		return c;
	if (a->ts != b->ts)
		return a->ts < b->ts ? -1 : 1;
	if (a->dur != b->dur)
		return a->dur > b->dur ? -1 : 1;
	return ia > ib ? -1 : ia < ib;
}

/* Mark the spans that do not nest on their CPU's track. */
static int mark_async(const struct trace_buf *t, struct trace_plan *p)
{
	uint32_t *idx = malloc((p->spans ? p->spans : 1) * sizeof(*idx));
	uint64_t *stack = malloc((p->spans ? p->spans : 1) * sizeof(*stack));
	if (!idx || !stack) {
		free(idx);
		free(stack);
		return -1;
	}
	size_t n = 0;
	for (size_t i = 0; i < t->n; i++)
		if (trace_type_is_span(t->ev[i].type))
			idx[n++] = (uint32_t)i;
	g_sort_ev = t->ev;
	qsort(idx, n, sizeof(*idx), span_idx_cmp);
	g_sort_ev = NULL;
	size_t top = 0;
	int cpu = -1000000;
	for (size_t i = 0; i < n; i++) {
		const struct trace_event *e = &t->ev[idx[i]];
		if (e->cpu != cpu) {
			cpu = e->cpu;
			top = 0;
		}
		uint64_t end = e->ts + e->dur;
		while (top && stack[top - 1] <= e->ts && !(stack[top - 1] == e->ts && e->dur == 0))
			top--;
		if (!top || end <= stack[top - 1]) {
			stack[top++] = end;
		} else {
			p->async[idx[i]] = 1;
			p->nr_async++;
		}
	}
	free(idx);
	free(stack);
	return 0;
}

/* For a flush round at record @i: the first record of its block (the
 * receivers' tlb_flush events and the sender's "remote IPI send" recorded
 * just before it), or @i if there is none; *@sender gets the sender's
 * record or -1. */
static size_t round_block(const struct trace_buf *t, size_t i, long *sender)
{
	const struct trace_event *r = &t->ev[i];
	*sender = -1;
	if (i == 0)
		return i;
	const struct trace_event *e = &t->ev[i - 1];
	if (e->type != TR_TLB_FLUSH || e->a != TLB_REMOTE_SEND_IPI || e->ts != r->ts || e->cpu != r->cpu)
		return i;
	*sender = (long)i - 1;
	size_t j = i - 1;
	while (j > 0) {
		e = &t->ev[j - 1];
		if (e->type != TR_TLB_FLUSH || e->ts != r->ts ||
		    (e->a != TLB_REMOTE_SHOOTDOWN && e->a != TLB_REMOTE_WRONG_CPU))
			break;
		j--;
	}
	return j;
}

struct trace_plan *trace_plan_new(const struct trace_buf *t)
{
	struct trace_plan *p = calloc(1, sizeof(*p));
	if (!p)
		return NULL;
	size_t n = t->n;
	for (size_t i = 0; i < n; i++)
		if (trace_type_is_span(t->ev[i].type))
			p->spans++;
	p->async = calloc(n ? n : 1, 1);
	p->it = malloc((n + p->spans + 1) * sizeof(*p->it));
	uint64_t *seq = malloc((n ? n : 1) * sizeof(*seq));      /* instants, ends */
	uint64_t *bseq = malloc((p->spans + 1) * sizeof(*bseq)); /* begins */
	struct bmap m = { 0 };
	if (!p->async || !p->it || !seq || !bseq || bmap_init(&m, p->spans)) {
		free(seq);
		free(bseq);
		bmap_free(&m);
		trace_plan_free(p);
		return NULL;
	}
	for (size_t i = 0; i < n; i++) {
		const struct trace_event *e = &t->ev[i];
		seq[i] = 4 * (uint64_t)i + 4;
		if (trace_type_is_span(e->type))
			bmap_slot(&m, e->ts, e->cpu, true);
	}
	/* Walk the records in the order they were made. */
	size_t si = 0;
	for (size_t i = 0; i < n; i++) {
		const struct trace_event *e = &t->ev[i];
		long g = bmap_slot(&m, e->ts, e->cpu, false);
		if (g >= 0 && !m.first[g])
			m.first[g] = (uint32_t)i + 1;
		if (!trace_type_is_span(e->type))
			continue;
		if (e->type == TR_FLUSH_ROUND) {
			long sender;
			size_t fb = round_block(t, i, &sender);
			if (m.first[g] - 1 > fb)
				m.first[g] = (uint32_t)fb + 1;
			bseq[si++] = 4 * (uint64_t)fb + 1;
			if (sender >= 0)
				seq[sender] = 4 * (uint64_t)fb + 2;
		} else {
			bseq[si++] = 4 * (uint64_t)(m.first[g] - 1) + 1;
		}
		if (e->dur) {
			long h = bmap_slot(&m, e->ts + e->dur, e->cpu, false);
			if (h >= 0)
				m.first[h] = 0;
		}
	}
	bmap_free(&m);
	size_t k = 0;
	si = 0;
	for (size_t i = 0; i < n; i++) {
		const struct trace_event *e = &t->ev[i];
		if (!trace_type_is_span(e->type)) {
			p->it[k++] = (struct titem){ e->ts, seq[i] << TIE_BITS, (uint32_t)i, IT_INSTANT };
			continue;
		}
		uint64_t dur = e->dur < TIE_MAX ? e->dur : TIE_MAX;
		p->it[k++] = (struct titem){ e->ts, bseq[si++] << TIE_BITS | (TIE_MAX - dur),
					     (uint32_t)i, IT_BEGIN };
		p->it[k++] = (struct titem){ e->ts + e->dur, seq[i] << TIE_BITS, (uint32_t)i, IT_END };
	}
	free(seq);
	free(bseq);
	p->n = k;
	qsort(p->it, k, sizeof(*p->it), titem_cmp);
	if (mark_async(t, p)) {
		trace_plan_free(p);
		return NULL;
	}
	return p;
}

void trace_plan_free(struct trace_plan *p)
{
	if (!p)
		return;
	free(p->it);
	free(p->async);
	free(p);
}

size_t trace_plan_spans(const struct trace_plan *p) { return p->spans; }
size_t trace_plan_async(const struct trace_plan *p) { return p->nr_async; }
size_t trace_plan_items(const struct trace_plan *p) { return p->n; }

size_t trace_plan_item(const struct trace_plan *p, size_t i, int *kind, uint64_t *time)
{
	*kind = p->it[i].kind == IT_INSTANT ? 0 : p->it[i].kind == IT_BEGIN ? 1 : 2;
	*time = p->it[i].time;
	return p->it[i].ev;
}

/* ---- JSON ----------------------------------------------------------------- */

static void j_key(struct sink *k, const char *key, bool *first)
{
	if (!*first)
		sk_ch(k, ',');
	*first = false;
	sk_ch(k, '"');
	sk_str(k, key);
	sk_str(k, "\":");
}
static void j_int(struct sink *k, const char *key, int64_t v, bool *first)
{
	j_key(k, key, first);
	sk_i64(k, v);
}
static void j_hex(struct sink *k, const char *key, int64_t v, bool *first)
{
	j_key(k, key, first);
	sk_str(k, "\"0x");
	sk_hex(k, (uint64_t)v, false);
	sk_ch(k, '"');
}
static void j_name(struct sink *k, const char *key, const char *v, bool *first)
{
	j_key(k, key, first);
	sk_jstr(k, v);
}

/* The sched NUMA tracepoints' fields: sched_move_numa's seven, or the
 * pair events' ten. */
static void json_numa(struct sink *k, const struct trace_event *e, bool *f)
{
	const struct trace_numa_pair n = trace_numa_fields(e);
	bool pair = e->type != TR_MOVE_NUMA;
	j_int(k, pair ? "src_pid" : "pid", n.src.pid, f);
	j_int(k, pair ? "src_tgid" : "tgid", n.src.tgid, f);
	j_int(k, pair ? "src_ngid" : "ngid", n.src.ngid, f);
	j_int(k, "src_cpu", n.src.cpu, f);
	j_int(k, "src_nid", n.src.nid, f);
	if (pair) {
		j_int(k, "dst_pid", n.dst.pid, f);
		j_int(k, "dst_tgid", n.dst.tgid, f);
		j_int(k, "dst_ngid", n.dst.ngid, f);
	}
	j_int(k, "dst_cpu", n.dst.cpu, f);
	j_int(k, "dst_nid", n.dst.nid, f);
}

/* "name|name" of the bits set in an enum numa_migrate_refused mask
 * (nothing for 0), as the kernel's __print_flags prints a mask. */
static void sk_refused(struct sink *k, int64_t mask)
{
	for (int b = 0, first = 1; b < 63; b++) {
		if (!(mask >> b & 1))
			continue;
		if (!first)
			sk_ch(k, '|');
		first = 0;
		if (b < NR_NUMA_REFUSED) {
			sk_str(k, trace_numa_refused_name(b));
		} else {
			sk_str(k, "0x");
			sk_hex(k, (uint64_t)1 << b, false);
		}
	}
}

/* The event's fields, named as the kernel's tracepoint names them. */
static void json_args(struct sink *k, const struct trace_event *e)
{
	bool f = true;
	sk_str(k, ",\"args\":{");
	switch (e->type) {
	case TR_TLB_FLUSH:
		j_int(k, "pages", e->b, &f);
		j_name(k, "reason", tlb_reason_name(e->a), &f);
		break;
	case TR_MIGRATE_START:
		j_name(k, "mode", trace_migrate_mode_name(e->a), &f);
		j_name(k, "reason", trace_migrate_reason_name(e->b), &f);
		break;
	case TR_MIGRATE_PAGES:
		j_int(k, "succeeded", e->a, &f);
		j_int(k, "failed", e->b, &f);
		j_int(k, "thp_succeeded", 0, &f);
		j_int(k, "thp_failed", 0, &f);
		j_int(k, "thp_split", 0, &f);
		j_int(k, "large_folio_split", 0, &f);
		j_name(k, "mode", trace_migrate_mode_name(e->c), &f);
		j_name(k, "reason", trace_migrate_reason_name(e->d), &f);
		break;
	case TR_SET_MIGRATION_PTE:
	case TR_REMOVE_MIGRATION_PTE:
		j_hex(k, "addr", e->a, &f);
		j_hex(k, "pte", e->b, &f);
		j_int(k, "order", e->c, &f);
		break;
	case TR_SKIP_VMA:
		j_hex(k, "numa_scan_offset", e->a, &f);
		j_hex(k, "vm_start", e->b, &f);
		j_hex(k, "vm_end", e->c, &f);
		j_name(k, "reason", trace_skip_reason_name(e->d), &f);
		break;
	case TR_MOVE_NUMA:
	case TR_SWAP_NUMA:
	case TR_STICK_NUMA:
		json_numa(k, e, &f);
		break;
	case TR_SCAN_PASS:
		j_int(k, "pte_updates", e->a, &f);
		j_int(k, "full_flushes", e->b, &f);
		break;
	case TR_GATHER:
		j_hex(k, "start", e->a, &f);
		j_hex(k, "end", e->b, &f);
		break;
	case TR_PTE_TABLE:
		j_hex(k, "addr", e->a, &f);
		j_int(k, "pages", e->b, &f);
		j_int(k, "flushed_mm", e->c, &f);
		break;
	case TR_HINT_FAULT:
		j_hex(k, "addr", e->a, &f);
		j_int(k, "folio_nid", e->b, &f);
		j_int(k, "target_nid", e->c, &f);
		j_hex(k, "flags", e->d, &f);
		break;
	case TR_MIGRATION:
		j_hex(k, "addr", e->a, &f);
		j_int(k, "src_nid", e->b, &f);
		j_int(k, "dst_nid", e->c, &f);
		j_int(k, "saw_pending", e->d, &f);
		break;
	case TR_FLUSH_ROUND:
		j_int(k, "nr_ipis", e->a, &f);
		j_int(k, "pages", e->b, &f);
		j_name(k, "origin", trace_flush_origin_name(e->c), &f);
		break;
	case TR_BATCH_RECORDED:
		j_hex(k, "addr", e->a, &f);
		j_int(k, "pending", e->b, &f);
		if (e->c)
			j_int(k, "batch", (int64_t)((uint64_t)e->c >> 2), &f);
		break;
	case TR_NUMA_MIGRATE_RESULT:
		j_name(k, "outcome", trace_numa_outcome_name(e->a), &f);
		j_int(k, "preferred_nid", e->b, &f);
		j_int(k, "best_cpu", e->c, &f);
		j_key(k, "refused", &f);
		sk_ch(k, '"');
		sk_refused(k, e->d);
		sk_ch(k, '"');
		break;
	default:
		break;
	}
	j_int(k, "common_pid", e->pid, &f);
	sk_ch(k, '}');
}

static void json_head(struct sink *k, const char *name, const char *cat, const char *ph, int cpu,
		      uint64_t ts)
{
	sk_str(k, "{\"name\":\"");
	sk_str(k, name);
	sk_str(k, "\",\"cat\":\"");
	sk_str(k, cat);
	sk_str(k, "\",\"ph\":\"");
	sk_str(k, ph);
	sk_str(k, "\",\"pid\":1,\"tid\":");
	sk_i64(k, cpu);
	sk_str(k, ",\"ts\":");
	sk_us(k, ts);
}

static void json_sep(struct sink *k, bool *first)
{
	sk_str(k, *first ? "\n" : ",\n");
	*first = false;
}

static void json_meta(struct sink *k, const char *what, int tid, const char *key, const char *sval,
		      long ival, bool *first)
{
	json_sep(k, first);
	sk_str(k, "{\"name\":\"");
	sk_str(k, what);
	sk_str(k, "\",\"cat\":\"__metadata\",\"ph\":\"M\",\"pid\":1,\"tid\":");
	sk_i64(k, tid);
	sk_str(k, ",\"args\":{\"");
	sk_str(k, key);
	sk_str(k, "\":");
	if (sval)
		sk_jstr(k, sval);
	else
		sk_i64(k, ival);
	sk_str(k, "}}");
}

static void json_counters(struct sink *k, const struct trace_meta *m, bool *first)
{
	const struct timeseries *ts = m->ts;
	if (!ts)
		return;
	struct { const char *name; const double *v; } c[] = {
		{ "tlb_irqs_per_s", ts->count[TS_TLB_IRQS] },
		{ "migrations_per_s", ts->count[TS_MIGRATIONS] },
		{ "pass_ms", ts->pass_ms }, { "scan_period_ms", ts->scan_period_ms },
	};
	for (int i = 0; i < ts->n; i++) {
		uint64_t s0 = (uint64_t)i * NSEC_PER_SEC;
		if (s0 >= m->end || s0 + NSEC_PER_SEC <= m->start)
			continue;
		for (size_t j = 0; j < sizeof(c) / sizeof(c[0]); j++) {
			json_sep(k, first);
			sk_str(k, "{\"name\":\"");
			sk_str(k, c[j].name);
			sk_str(k, "\",\"cat\":\"counters\",\"ph\":\"C\",\"pid\":1,\"ts\":");
			sk_us(k, s0);
			sk_str(k, ",\"args\":{\"value\":");
			sk_double(k, c[j].v[i]);
			sk_str(k, "}}");
		}
	}
}

/* Flow arrows: from each recorded unmap batch (its first
 * tlb_ubc_flush_pending record, "s", bound to the slice around it) to the
 * flush that pays for it (try_to_unmap_flush, "f" with "bp":"e", bound to
 * the flush round it starts, or the slice around it when the flush needed
 * no round).  The model fills in the flush's start and marks the record
 * (rmap.c): c = id << 2 | 2 (flushed) | 1 (the batch's first record), d =
 * the flush's start.  Batches whose flush starts past the window get no
 * arrow. */
struct flow_end {
	uint64_t at;
	uint32_t ev;
};

static bool flow_starts(const struct trace_buf *t, const struct trace_event *e)
{
	return e->type == TR_BATCH_RECORDED && (e->c & 3) == 3 && (uint64_t)e->d < t->end;
}

static int flow_end_cmp(const void *pa, const void *pb)
{
	const struct flow_end *a = pa, *b = pb;
	if (a->at != b->at)
		return a->at < b->at ? -1 : 1;
	return a->ev < b->ev ? -1 : a->ev > b->ev;
}

static void json_flow(struct sink *k, const struct trace_event *e, bool start, bool *first)
{
	json_sep(k, first);
	json_head(k, "tlb_batch", "tlb", start ? "s" : "f", e->cpu, start ? e->ts : (uint64_t)e->d);
	sk_str(k, ",\"id\":\"0x");
	sk_hex(k, (uint64_t)e->c >> 2, false);
	sk_str(k, start ? "\"}" : "\",\"bp\":\"e\"}");
}

int trace_write_json(const struct trace_buf *t, const struct trace_plan *p,
		     const struct trace_meta *m, FILE *f, uint64_t *bytes)
{
	size_t nf = 0, fi = 0;
	for (size_t i = 0; i < t->n; i++)
		nf += flow_starts(t, &t->ev[i]);
	struct flow_end *fe = malloc((nf ? nf : 1) * sizeof(*fe));
	struct sink *k = calloc(1, sizeof(*k));
	if (!k || !fe) {
		free(k);
		free(fe);
		return -1;
	}
	nf = 0;
	for (size_t i = 0; i < t->n; i++)
		if (flow_starts(t, &t->ev[i]))
			fe[nf++] = (struct flow_end){ (uint64_t)t->ev[i].d, (uint32_t)i };
	qsort(fe, nf, sizeof(*fe), flow_end_cmp);
	k->f = f;
	bool first = true;
	sk_str(k, "{\"traceEvents\":[");
	json_meta(k, "process_name", 0, "name", "CPUs", 0, &first);
	json_meta(k, "process_sort_index", 0, "sort_index", NULL, 0, &first);
	for (int c = 0; c < m->nr_cpus; c++) {
		char name[32];
		snprintf(name, sizeof(name), "CPU %d", c);
		json_meta(k, "thread_name", c, "name", name, 0, &first);
		json_meta(k, "thread_sort_index", c, "sort_index", NULL, c, &first);
	}
	json_counters(k, m, &first);
	for (size_t i = 0; i < p->n; i++) {
		const struct titem *it = &p->it[i];
		const struct trace_event *e = &t->ev[it->ev];
		const char *name = trace_type_names[e->type];
		bool async = p->async[it->ev];
		/* the flow ends due before this item, after everything at
		 * their own time (their starts and the rounds included) */
		for (; fi < nf && fe[fi].at < it->time; fi++) {
			uint64_t at = k->bytes + k->len;
			json_flow(k, &t->ev[fe[fi].ev], false, &first);
			if (m->type_bytes)
				m->type_bytes[TR_BATCH_RECORDED] += k->bytes + k->len - at;
		}
		if (it->kind == IT_END && !async)
			continue;
		uint64_t at = k->bytes + k->len;
		json_sep(k, &first);
		if (it->kind == IT_INSTANT) {
			json_head(k, name, type_cat(e->type), "i", e->cpu, e->ts);
			sk_str(k, ",\"s\":\"t\"");
			json_args(k, e);
		} else if (!async) {
			json_head(k, name, type_cat(e->type), "X", e->cpu, e->ts);
			sk_str(k, ",\"dur\":");
			sk_us(k, e->dur);
			json_args(k, e);
		} else {
			json_head(k, name, type_cat(e->type), it->kind == IT_BEGIN ? "b" : "e", e->cpu,
				  it->time);
			sk_str(k, ",\"id\":\"0x");
			sk_hex(k, it->ev, false);
			sk_ch(k, '"');
			if (it->kind == IT_BEGIN)
				json_args(k, e);
		}
		sk_ch(k, '}');
		if (it->kind == IT_INSTANT && flow_starts(t, e))
			json_flow(k, e, true, &first);
		if (m->type_bytes)
			m->type_bytes[e->type] += k->bytes + k->len - at;
	}
	for (; fi < nf; fi++) {
		uint64_t at = k->bytes + k->len;
		json_flow(k, &t->ev[fe[fi].ev], false, &first);
		if (m->type_bytes)
			m->type_bytes[TR_BATCH_RECORDED] += k->bytes + k->len - at;
	}
	free(fe);
	sk_str(k, "\n],\n\"displayTimeUnit\":\"ns\",\n\"otherData\":{\"generator\":\"numasim "
		  NUMASIM_VERSION "\",\"numasim_build\":");
	sk_jstr(k, numasim_build_id);
	sk_str(k, ",\"title\":");
	sk_jstr(k, m->title ? m->title : "");
	sk_str(k, ",\"dropped_events\":");
	sk_u64(k, m->dropped);
	sk_str(k, "}}\n");
	sk_flush(k);
	*bytes = k->bytes;
	int rc = k->err ? -1 : 0;
	free(k);
	return rc;
}

/* ---- text ------------------------------------------------------------------ */

/* "         numasim-1001  [003] 12.345678: " as trace-cmd report prints it:
 * comm right-aligned in 16, pid left-aligned in 5, CPU in 3 digits, time in
 * seconds with microseconds. */
static void text_prefix(struct sink *k, const struct trace_event *e, uint64_t time)
{
	const char *comm = e->pid ? "numasim" : "swapper";
	sk_spaces(k, 16 - (int)strlen(comm));
	sk_str(k, comm);
	sk_ch(k, '-');
	char d[24];
	int nd = digits_rev((uint64_t)(e->pid < 0 ? -(int64_t)e->pid : e->pid), d) + (e->pid < 0);
	sk_i64(k, e->pid);
	sk_spaces(k, 5 - nd);
	sk_str(k, " [");
	sk_u64w(k, (uint64_t)(e->cpu < 0 ? 0 : e->cpu), 3);
	sk_str(k, "] ");
	sk_u64(k, time / NSEC_PER_SEC);
	sk_ch(k, '.');
	sk_u64w(k, time % NSEC_PER_SEC / 1000, 6);
	sk_str(k, ": ");
}

static void t_kv(struct sink *k, const char *key, int64_t v)
{
	sk_str(k, key);
	sk_i64(k, v);
}
static void t_kx(struct sink *k, const char *key, int64_t v)
{
	sk_str(k, key);
	sk_hex(k, (uint64_t)v, false);
}

/* The sched NUMA tracepoints, as their TP_printk in
 * include/trace/events/sched.h. */
static void text_numa(struct sink *k, const struct trace_event *e)
{
	const struct trace_numa_pair n = trace_numa_fields(e);
	bool pair = e->type != TR_MOVE_NUMA;
	t_kv(k, pair ? "src_pid=" : "pid=", n.src.pid);
	t_kv(k, pair ? " src_tgid=" : " tgid=", n.src.tgid);
	t_kv(k, pair ? " src_ngid=" : " ngid=", n.src.ngid);
	t_kv(k, " src_cpu=", n.src.cpu);
	t_kv(k, " src_nid=", n.src.nid);
	if (pair) {
		t_kv(k, " dst_pid=", n.dst.pid);
		t_kv(k, " dst_tgid=", n.dst.tgid);
		t_kv(k, " dst_ngid=", n.dst.ngid);
	}
	t_kv(k, " dst_cpu=", n.dst.cpu);
	t_kv(k, " dst_nid=", n.dst.nid);
}

/* The fields, formatted as the kernel's TP_printk does for tracepoints. */
static void text_fields(struct sink *k, const struct trace_event *e)
{
	switch (e->type) {
	case TR_TLB_FLUSH:
		t_kv(k, "pages:", e->b);
		sk_str(k, " reason:");
		sk_str(k, tlb_reason_name(e->a));
		sk_str(k, " (");
		sk_i64(k, e->a);
		sk_ch(k, ')');
		break;
	case TR_MIGRATE_START:
		sk_str(k, "mode=");
		sk_str(k, trace_migrate_mode_name(e->a));
		sk_str(k, " reason=");
		sk_str(k, trace_migrate_reason_name(e->b));
		break;
	case TR_MIGRATE_PAGES:
		t_kv(k, "nr_succeeded=", e->a);
		t_kv(k, " nr_failed=", e->b);
		sk_str(k, " nr_thp_succeeded=0 nr_thp_failed=0 nr_thp_split=0 nr_split=0 mode=");
		sk_str(k, trace_migrate_mode_name(e->c));
		sk_str(k, " reason=");
		sk_str(k, trace_migrate_reason_name(e->d));
		break;
	case TR_SET_MIGRATION_PTE:
	case TR_REMOVE_MIGRATION_PTE:
		t_kx(k, "addr=", e->a);
		t_kx(k, ", pte=", e->b);
		t_kv(k, " order=", e->c);
		break;
	case TR_SKIP_VMA:
		sk_str(k, "numa_scan_offset=");
		sk_hex(k, (uint64_t)e->a, true);
		sk_str(k, " vm_start=");
		sk_hex(k, (uint64_t)e->b, true);
		sk_str(k, " vm_end=");
		sk_hex(k, (uint64_t)e->c, true);
		sk_str(k, " reason=");
		sk_str(k, trace_skip_reason_name(e->d));
		break;
	case TR_MOVE_NUMA:
	case TR_SWAP_NUMA:
	case TR_STICK_NUMA:
		text_numa(k, e);
		break;
	case TR_SCAN_PASS:
		t_kv(k, "pte_updates=", e->a);
		t_kv(k, " full_flushes=", e->b);
		break;
	case TR_GATHER:
		t_kx(k, "start=", e->a);
		t_kx(k, " end=", e->b);
		break;
	case TR_PTE_TABLE:
		t_kx(k, "addr=", e->a);
		t_kv(k, " pages=", e->b);
		t_kv(k, " flushed_mm=", e->c);
		break;
	case TR_HINT_FAULT:
		t_kx(k, "addr=", e->a);
		t_kv(k, " folio_nid=", e->b);
		t_kv(k, " target_nid=", e->c);
		t_kx(k, " flags=0x", e->d);
		break;
	case TR_MIGRATION:
		t_kx(k, "addr=", e->a);
		t_kv(k, " src_nid=", e->b);
		t_kv(k, " dst_nid=", e->c);
		t_kv(k, " saw_pending=", e->d);
		break;
	case TR_FLUSH_ROUND:
		t_kv(k, "nr_ipis=", e->a);
		t_kv(k, " pages=", e->b);
		sk_str(k, " origin=");
		sk_str(k, trace_flush_origin_name(e->c));
		break;
	case TR_BATCH_RECORDED:
		t_kx(k, "addr=", e->a);
		t_kv(k, " pending=", e->b);
		break;
	case TR_NUMA_MIGRATE_RESULT:
		sk_str(k, "outcome=");
		sk_str(k, trace_numa_outcome_name(e->a));
		t_kv(k, " preferred_nid=", e->b);
		t_kv(k, " best_cpu=", e->c);
		sk_str(k, " refused=");
		sk_refused(k, e->d);
		break;
	default:
		break;
	}
}

int trace_write_text(const struct trace_buf *t, const struct trace_plan *p,
		     const struct trace_meta *m, FILE *f, uint64_t *bytes)
{
	struct sink *k = calloc(1, sizeof(*k));
	if (!k)
		return -1;
	k->f = f;
	sk_str(k, "# tracer: nop\n");
	if (m->title) {
		sk_str(k, "# ");
		sk_str(k, m->title);
		sk_ch(k, '\n');
	}
	if (m->dropped) {
		sk_str(k, "# WARNING: ");
		sk_u64(k, m->dropped);
		sk_str(k, " events dropped: the trace buffer was full\n");
	}
	sk_str(k, "cpus=");
	sk_i64(k, m->nr_cpus);
	sk_ch(k, '\n');
	for (size_t i = 0; i < p->n; i++) {
		const struct titem *it = &p->it[i];
		const struct trace_event *e = &t->ev[it->ev];
		uint64_t at = k->bytes + k->len;
		text_prefix(k, e, it->time);
		sk_str(k, trace_type_names[e->type]);
		if (it->kind == IT_INSTANT) {
			sk_str(k, ": ");
			text_fields(k, e);
		} else if (it->kind == IT_BEGIN) {
			sk_str(k, "_begin: ");
			text_fields(k, e);
			t_kv(k, " dur_ns=", (int64_t)e->dur);
		} else {
			sk_str(k, "_end: ");
			t_kv(k, "dur_ns=", (int64_t)e->dur);
		}
		sk_ch(k, '\n');
		if (m->type_bytes)
			m->type_bytes[e->type] += k->bytes + k->len - at;
	}
	sk_flush(k);
	*bytes = k->bytes;
	int rc = k->err ? -1 : 0;
	free(k);
	return rc;
}

/* ---- numasim run --trace ---------------------------------------------------- */

static bool ends_with(const char *s, const char *suffix)
{
	size_t n = strlen(s), m = strlen(suffix);
	return n >= m && !strcmp(s + n - m, suffix);
}

static int parse_secs(const char *s, double *v)
{
	return strnum_double(s, v) || *v < 0 ? -1 : 0;
}

/* --trace-gzip yes|no|auto */
static int trace_gzip_mode(struct trace_opts *o, char *err, size_t errlen)
{
	static const char *const names[] = { [TRACE_GZIP_AUTO] = "auto", [TRACE_GZIP_YES] = "yes",
					      [TRACE_GZIP_NO] = "no" };
	o->gz = TRACE_GZIP_AUTO;
	if (!o->gzip)
		return 0;
	for (int i = 0; i < 3; i++)
		if (!strcmp(o->gzip, names[i])) {
			o->gz = i;
			return 0;
		}
	snprintf(err, errlen, "--trace-gzip: '%s' is not yes, no or auto", o->gzip);
	return -1;
}

int trace_opts_check(struct trace_opts *o, uint64_t duration_ns, char *err, size_t errlen)
{
	if (!o->path) {
		const char *opt = o->window ? "--trace-window" : o->events ? "--trace-events"
					   : o->max_mb ? "--trace-max-mb" : o->gzip ? "--trace-gzip" : NULL;
		if (opt) {
			snprintf(err, errlen, "%s needs --trace FILE", opt);
			return -1;
		}
		return 0;
	}
	/* FILE: strip .json / .txt / .dat; FILE.json, .txt and .dat go next to it */
	size_t n = strlen(o->path);
	if (!n || n >= sizeof(o->base) - 16) {
		snprintf(err, errlen, "--trace: '%s' is not a usable file name", o->path);
		return -1;
	}
	memcpy(o->base, o->path, n + 1);
	if (trace_gzip_mode(o, err, errlen))
		return -1;
	if (ends_with(o->base, ".json.gz")) {
		o->base[n - 8] = 0;
		if (!o->gzip)
			o->gz = TRACE_GZIP_YES; /* asked for by name */
	} else if (ends_with(o->base, ".json")) {
		o->base[n - 5] = 0;
		if (!o->gzip)
			o->gz = TRACE_GZIP_NO; /* the name asked for, whatever the size */
	}
	else if (ends_with(o->base, ".txt") || ends_with(o->base, ".dat"))
		o->base[n - 4] = 0;
	const char *slash = strrchr(o->base, '/');
	if (!*o->base || ends_with(o->base, "/") || (slash && !slash[1])) {
		snprintf(err, errlen, "--trace: '%s' is not a file name", o->path);
		return -1;
	}
	char f[sizeof(o->base) + 8];
	snprintf(f, sizeof(f), "%s.json", o->base);
	if (outfile_check("--trace", f, err, errlen))
		return -1;
	snprintf(f, sizeof(f), "%s.json.gz", o->base);
	if (outfile_check("--trace", f, err, errlen))
		return -1;
	snprintf(f, sizeof(f), "%s.txt", o->base);
	if (outfile_check("--trace", f, err, errlen))
		return -1;
	snprintf(f, sizeof(f), "%s.dat", o->base);
	if (outfile_check("--trace", f, err, errlen))
		return -1;

	/* --trace-window START:END, seconds; either side may be empty */
	double dur_s = (double)duration_ns / 1e9;
	o->start = 0;
	o->end = UINT64_MAX;
	if (o->window) {
		const char *colon = strchr(o->window, ':');
		char a[64], b[64];
		if (!colon || (size_t)(colon - o->window) >= sizeof(a) || strlen(colon + 1) >= sizeof(b)) {
			snprintf(err, errlen, "--trace-window: '%s' is not START:END (seconds)", o->window);
			return -1;
		}
		snprintf(a, sizeof(a), "%.*s", (int)(colon - o->window), o->window);
		snprintf(b, sizeof(b), "%s", colon + 1);
		double vs = 0, ve = dur_s;
		if ((*a && parse_secs(a, &vs)) || (*b && parse_secs(b, &ve))) {
			snprintf(err, errlen, "--trace-window: '%s' is not START:END with seconds >= 0",
				 o->window);
			return -1;
		}
		if (ve <= vs) {
			snprintf(err, errlen, "--trace-window: '%s': END must be after START", o->window);
			return -1;
		}
		if (vs >= dur_s) {
			snprintf(err, errlen, "--trace-window: '%s' starts after the run's end (%g s)",
				 o->window, dur_s);
			return -1;
		}
		o->start = (uint64_t)llround(vs * 1e9);
		if (ve < dur_s)
			o->end = (uint64_t)llround(ve * 1e9);
	}

	if (trace_parse_events(o->events ? o->events : "all", &o->mask, err, errlen))
		return -1;

	uint64_t mb = TRACE_DEFAULT_MAX_MB;
	if (o->max_mb) {
		unsigned long long v;
		if (strnum_ull(o->max_mb, 1ull << 30, &v) || v == 0) {
			snprintf(err, errlen, "--trace-max-mb: '%s' is not a size in MiB (1..%llu)",
				 o->max_mb, 1ull << 30);
			return -1;
		}
		mb = v;
	}
	o->max_bytes = mb << 20;
	uint64_t ev = o->max_bytes / TRACE_MIN_EVENT_BYTES;
	o->max_events = (size_t)(ev < TRACE_MAX_EVENTS ? (ev ? ev : 1) : TRACE_MAX_EVENTS);
	return 0;
}


static void human_size(uint64_t b, char *out, size_t len)
{
	if (b >= (1ull << 30))
		snprintf(out, len, "%.2f GiB", (double)b / (double)(1ull << 30));
	else if (b >= (1ull << 20))
		snprintf(out, len, "%.1f MiB", (double)b / (double)(1ull << 20));
	else if (b >= 1024)
		snprintf(out, len, "%.1f KiB", (double)b / 1024.0);
	else
		snprintf(out, len, "%llu bytes", (unsigned long long)b);
}

/* ---- the size limit, while the run goes --------------------------------------
 *
 * The buffer is measured (plan and both writers, counting only) when it
 * reaches 64 Ki events, then each time it doubles, and when it is full:
 * the cost is about that of writing the trace once more.  The first
 * measurement over the limit stops the run (sim->stop): nothing is written,
 * and the message says how far the run got and which options would make
 * the trace fit.  A trace the checks let through is measured again, whole,
 * after the run. */

#define FIRST_CHECK_EVENTS 65536u

struct trace_limit {
	struct sim *s;
	const struct trace_opts *o;
	bool over;
	uint64_t bytes;                       /* at the last measurement */
	uint64_t jbytes, tbytes;
	uint64_t at_ns;                       /* simulated time of it */
	size_t events;
	uint64_t type_bytes[NR_TRACE_TYPES];  /* JSON + text, per event type */
};

/* Measure the buffer as it is: JSON + text bytes, per type too. */
static int measure(const struct trace_buf *t, struct trace_limit *l, const struct sim *s,
		   const char *title)
{
	struct trace_plan *p = trace_plan_new(t);
	if (!p)
		return -1;
	memset(l->type_bytes, 0, sizeof(l->type_bytes));
	struct trace_meta m = { .nr_cpus = s->m.nr_cpus, .ts = s->ts, .start = l->o->start,
				.end = l->o->end, .dropped = t->dropped, .title = title,
				.type_bytes = l->type_bytes };
	int rc = trace_write_json(t, p, &m, NULL, &l->jbytes) || trace_write_text(t, p, &m, NULL, &l->tbytes);
	trace_plan_free(p);
	l->bytes = l->jbytes + l->tbytes;
	l->events = t->n;
	return rc ? -1 : 0;
}

static void check_size(struct trace_buf *t)
{
	struct trace_limit *l = t->ctx;
	l->at_ns = sim_now(l->s);
	if (measure(t, l, l->s, NULL) || l->bytes > l->o->max_bytes) {
		l->over = true; /* out of memory counts as over: stop either way */
		l->s->stop = true;
		t->check_at = 0;
		return;
	}
	size_t next = t->n * 2;
	t->check_at = next < t->max_events ? next : t->max_events;
	if (t->check_at <= t->n)
		t->check_at = 0;
}

int trace_attach(struct sim *s, const struct trace_opts *o)
{
	if (!o->path)
		return 0;
	struct trace_limit *l = calloc(1, sizeof(*l));
	s->e.trace = l ? trace_new(o->start, o->end, o->mask, o->max_events) : NULL;
	if (!s->e.trace) {
		free(l);
		return -1;
	}
	l->s = s;
	l->o = o;
	s->e.trace->ctx = l;
	s->e.trace->on_check = check_size;
	s->e.trace->check_at = FIRST_CHECK_EVENTS < o->max_events ? FIRST_CHECK_EVENTS : o->max_events;
	return 0;
}

/* "by 3.21 s ..., the whole window would take ~X; --trace-window ..." */
static void over_message(const struct sim *s, const struct trace_opts *o, const struct trace_limit *l,
			 bool cut, FILE *msg)
{
	char a[32], b[32], c[32];
	const struct trace_buf *t = s->e.trace;
	double start = (double)o->start / 1e9;
	double end = o->end == UINT64_MAX || o->end > s->duration_ns ? (double)s->duration_ns / 1e9
								    : (double)o->end / 1e9;
	double at = (double)l->at_ns / 1e9;
	/* the rate from the first event on (a run may be quiet at first:
	 * balancing starts after scan_delay_ms) */
	uint64_t first = UINT64_MAX;
	for (size_t i = 0; i < t->n; i++)
		if (t->ev[i].ts < first)
			first = t->ev[i].ts;
	if (first != UINT64_MAX && (double)first / 1e9 > start)
		start = (double)first / 1e9;
	start = (double)(uint64_t)(start * 1000) / 1000; /* down to the ms */
	double seen = at - start;
	human_size(l->bytes, a, sizeof(a));
	human_size(o->max_bytes, b, sizeof(b));
	fprintf(msg, "numasim: trace over its size limit: ");
	if (cut)
		fprintf(msg, "at %.3f simulated seconds the trace held %zu events, %s of JSON and text, "
			"over --trace-max-mb (%s); the run was stopped there.\n", at, l->events, a, b);
	else
		fprintf(msg, "the run's %zu events take %s of JSON and text, over --trace-max-mb (%s).\n",
			l->events, a, b);
	fprintf(msg, "numasim: nothing was written (no report, no --json, no trace).\n");
	if (cut && seen > 0 && end > at) {
		human_size((uint64_t)((double)l->bytes * (end - start) / seen), c, sizeof(c));
		fprintf(msg, "numasim: at the rate since the first event (%g s) the window up to %g s "
			"would take about %s.\n", start, end, c);
	}
	fprintf(msg, "numasim: to make it fit:\n");
	if (seen > 0) {
		/* the window that would fit at the rate seen, with a margin */
		double fit = seen * (double)o->max_bytes / (double)l->bytes * 0.8;
		double unit = 1e-9; /* round down to two significant digits, at least 1 ns */
		while (unit * 100 <= fit)
			unit *= 10;
		fit = (double)(uint64_t)(fit / unit) * unit;
		if (fit > 0)
			fprintf(msg, "numasim:   --trace-window %.9g:%.9g  (%.2g simulated s from the first "
				"event)\n", start, start + fit, fit);
	}
	/* the largest event types, and the list without the largest */
	int order[NR_TRACE_TYPES], n = 0;
	for (int i = 0; i < NR_TRACE_TYPES; i++)
		if (l->type_bytes[i])
			order[n++] = i;
	for (int i = 1; i < n; i++)
		for (int j = i; j > 0 && l->type_bytes[order[j]] > l->type_bytes[order[j - 1]]; j--) {
			int x = order[j];
			order[j] = order[j - 1];
			order[j - 1] = x;
		}
	uint64_t total = 0;
	for (int i = 0; i < n; i++)
		total += l->type_bytes[order[i]];
	if (n > 1 && total) {
		fprintf(msg, "numasim:   --trace-events without the largest: ");
		for (int i = 0; i < n && i < 3; i++)
			fprintf(msg, "%s%s %.0f%%", i ? ", " : "", trace_type_names[order[i]],
				100.0 * (double)l->type_bytes[order[i]] / (double)total);
		fprintf(msg, " of the bytes; e.g. --trace-events ");
		bool first = true;
		for (int i = 0; i < NR_TRACE_TYPES; i++)
			if ((t->mask & (1u << i)) && i != order[0]) {
				fprintf(msg, "%s%s", first ? "" : ",", trace_type_names[i]);
				first = false;
			}
		fprintf(msg, "\n");
	}
	fprintf(msg, "numasim:   or a larger --trace-max-mb\n");
}

struct trace_output {
	const struct sim *s;
	struct trace_plan *p;
	struct trace_meta m;
	char title[512];
	char json[OUTFILE_PATH_MAX + 8], text[OUTFILE_PATH_MAX + 8], dat[OUTFILE_PATH_MAX + 8];
	char other[OUTFILE_PATH_MAX + 8]; /* the JSON's name in the other form: an older one goes */
	bool gzip;                        /* the JSON as FILE.json.gz */
	uint64_t jbytes, tbytes, dbytes;
	uint64_t zbytes;                  /* FILE.json.gz's size */
};

void trace_output_free(struct trace_output *x)
{
	if (x)
		trace_plan_free(x->p);
	free(x);
}

int trace_finish_run(const struct sim *s, const struct trace_opts *o, const char *scenario, FILE *msg,
		     struct trace_output **out)
{
	*out = NULL;
	if (!o->path || !s->e.trace)
		return 0;
	const struct trace_buf *t = s->e.trace;
	struct trace_limit *l = t->ctx;
	if (l && l->over) {
		over_message(s, o, l, true, msg);
		return EXIT_TRACE_TOO_LARGE;
	}
	struct trace_output *x = calloc(1, sizeof(*x));
	if (!x || !(x->p = trace_plan_new(t))) {
		fprintf(msg, "numasim: trace: out of memory\n");
		trace_output_free(x);
		return 1;
	}
	char win[96];
	if (o->end == UINT64_MAX)
		snprintf(win, sizeof(win), "%.6f s to the end", (double)o->start / 1e9);
	else
		snprintf(win, sizeof(win), "%.6f-%.6f s", (double)o->start / 1e9, (double)o->end / 1e9);
	snprintf(x->title, sizeof(x->title), "numasim %s (build %s): scenario %s, kernel %s, seed %llu, %g s; window %s",
		 NUMASIM_VERSION, numasim_build_id, scenario, s->k.name, (unsigned long long)s->seed,
		 (double)s->duration_ns / 1e9, win);
	snprintf(x->json, sizeof(x->json), "%s.json", o->base);
	snprintf(x->text, sizeof(x->text), "%s.txt", o->base);
	snprintf(x->dat, sizeof(x->dat), "%s.dat", o->base);
	x->s = s;
	x->m = (struct trace_meta){ .nr_cpus = s->m.nr_cpus, .ts = s->ts, .start = o->start,
				    .end = o->end, .dropped = t->dropped, .title = x->title };
	if (t->dropped)
		fprintf(msg, "numasim: warning: trace buffer full (%zu events): %llu events dropped; "
			"narrow it with --trace-window or --trace-events\n", t->max_events,
			(unsigned long long)t->dropped);
	struct trace_limit whole = { .o = o, .at_ns = s->duration_ns };
	if (measure(t, &whole, s, x->title)) {
		fprintf(msg, "numasim: trace: out of memory\n");
		trace_output_free(x);
		return 1;
	}
	if (whole.bytes > o->max_bytes) {
		over_message(s, o, &whole, false, msg);
		trace_output_free(x);
		return EXIT_TRACE_TOO_LARGE;
	}
	/* auto: gzip'd once the JSON is over the threshold (measured above,
	 * uncompressed, as the size limit is) */
	x->gzip = o->gz == TRACE_GZIP_YES ||
		  (o->gz == TRACE_GZIP_AUTO && whole.jbytes > ((uint64_t)TRACE_GZIP_AUTO_MB << 20));
	snprintf(x->json, sizeof(x->json), "%s.json%s", o->base, x->gzip ? ".gz" : "");
	snprintf(x->other, sizeof(x->other), "%s.json%s", o->base, x->gzip ? "" : ".gz");
	*out = x;
	return 0;
}

typedef int (*trace_writer)(const struct trace_buf *, const struct trace_plan *,
			    const struct trace_meta *, FILE *, uint64_t *);

/* Write one file into its open temporary; a write error (a full disk)
 * names the file and the reason. */
static int write_one(const struct trace_output *x, trace_writer fn, struct outfile *f, uint64_t *bytes,
		     char *err, size_t errlen)
{
	errno = 0;
	if (fn(x->s->e.trace, x->p, &x->m, f->f, bytes) || fflush(f->f) || ferror(f->f)) {
		snprintf(err, errlen, "--trace: cannot write %s: %s", f->path, strerror(errno ? errno : EIO));
		return -1;
	}
	return 0;
}

int trace_files_open(const struct trace_opts *o, struct outfile files[TRACE_FILES], char *err, size_t errlen)
{
	/* auto: FILE.json until the run's size says otherwise (trace_output_write) */
	const char *json = o->gz == TRACE_GZIP_YES ? "json.gz" : "json";
	const char *const ext[TRACE_FILES] = { json, "txt", "dat" };
	for (int i = 0; i < TRACE_FILES; i++) {
		char path[sizeof(o->base) + 8];
		snprintf(path, sizeof(path), "%s.%s", o->base, ext[i]);
		if (outfile_open(&files[i], "--trace", path, err, errlen)) {
			while (i--)
				outfile_discard(&files[i]);
			return -1;
		}
	}
	return 0;
}

/* The JSON through a gzip stream into its temporary; *@zbytes: the
 * compressed size. */
static int write_json_gz(const struct trace_output *x, struct outfile *f, uint64_t *bytes, uint64_t *zbytes,
			 char *err, size_t errlen)
{
	FILE *gz = gzfile_open(f->f, TRACE_GZIP_LEVEL);
	if (!gz) {
		snprintf(err, errlen, "--trace: %s: out of memory", f->path);
		return -1;
	}
	errno = 0;
	int rc = trace_write_json(x->s->e.trace, x->p, &x->m, gz, bytes);
	rc |= ferror(gz);
	rc |= gzfile_close(gz); /* finishes the gzip member in f->f */
	if (rc || fflush(f->f) || ferror(f->f)) {
		snprintf(err, errlen, "--trace: cannot write %s: %s", f->path, strerror(errno ? errno : EIO));
		return -1;
	}
	off_t end = ftello(f->f);
	*zbytes = end > 0 ? (uint64_t)end : 0;
	return 0;
}

static int write_json(struct trace_output *x, struct outfile *f, char *err, size_t errlen)
{
	/* the temporary was made for FILE.json before the run; its name now */
	if (outfile_retarget(f, x->json, x->other, err, errlen))
		return -1;
	if (x->gzip)
		return write_json_gz(x, f, &x->jbytes, &x->zbytes, err, errlen);
	return write_one(x, trace_write_json, f, &x->jbytes, err, errlen);
}

int trace_output_write(struct trace_output *x, struct outfile files[TRACE_FILES], char *err, size_t errlen)
{
	if (write_json(x, &files[0], err, errlen) ||
	    write_one(x, trace_write_text, &files[1], &x->tbytes, err, errlen) ||
	    write_one(x, trace_write_dat, &files[2], &x->dbytes, err, errlen)) {
		for (int i = 0; i < TRACE_FILES; i++)
			outfile_discard(&files[i]);
		return -1;
	}
	return 0;
}

void trace_output_report(const struct trace_output *x, FILE *msg)
{
	char a[32], b[32], c[32];
	human_size(x->jbytes, a, sizeof(a));
	human_size(x->tbytes, b, sizeof(b));
	human_size(x->dbytes, c, sizeof(c));
	/* the paths are the user's: a terminal escape in one must not act */
	fprintf(msg, "trace: %zu events (%zu spans, %zu of them async: not nested), ", x->s->e.trace->n,
		x->p->spans, x->p->nr_async);
	fputs_escaped(x->json, msg);
	if (x->gzip) {
		char z[32];
		human_size(x->zbytes, z, sizeof(z));
		fprintf(msg, " %s (%s of JSON), ", z, a);
	} else {
		fprintf(msg, " %s, ", a);
	}
	fputs_escaped(x->text, msg);
	fprintf(msg, " %s, ", b);
	fputs_escaped(x->dat, msg);
	fprintf(msg, " %s\n", c);
}
