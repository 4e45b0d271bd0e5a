/* A run's trace as trace-cmd's trace.dat, so that `trace-cmd report` and
 * KernelShark open it.  The file follows trace-cmd.dat.v6(5), version 6 of
 * trace-cmd's format, written here from that description (libtracecmd's
 * writer is not part of its public API in Debian's libtracecmd-dev):
 *
 *   magic, "tracing", "6", endianness, long size, page size;
 *   header_page and header_event: the ring buffer's layout, as the
 *     kernel's tracefs describes it for a 64-bit kernel;
 *   no ftrace (function tracer) formats;
 *   the event formats by system: the kernel's tracepoints in their own
 *     systems (tlb, migrate, sched) and numasim's spans and instants in a
 *     system of its own, "numasim" (NAME_begin / NAME_end, as the .txt);
 *   no kallsyms, no trace_printk formats; saved_cmdlines for the pids;
 *   the CPU count, "flyrecord", each CPU's data offset and size;
 *   page-aligned per-CPU data in the ring buffer's page format: a page
 *     header (timestamp, commit) and events, each a 32-bit header
 *     (type_len:5, time_delta:27) and the record (common fields, then the
 *     event's), a time-extend event where a delta needs more than 27 bits.
 *
 * A field after the common ones is 8 bytes (a long) unless its layout
 * gives it a 4-byte C type (the sched NUMA tracepoints' pid_t and int, as
 * the kernel's format files have them), so an event's layout is its list
 * of field names and those types; the print formats say how `trace-cmd
 * report` prints them, the kernel tracepoints' as their TP_printk does
 * (symbolic names through __print_symbolic, masks through __print_flags). */
#include "trace/writers.h"

#include <stdlib.h>
#include <string.h>

#define DAT_PAGE 4096u
#define DAT_PAGE_HEADER 16u                     /* timestamp, commit */
#define DAT_PAGE_DATA (DAT_PAGE - DAT_PAGE_HEADER)
#define DELTA_BITS 27
#define TYPE_TIME_EXTEND 30
#define MAX_FIELDS 10

enum dat_kind { DK_INSTANT, DK_BEGIN, DK_END };

/* A growing byte buffer. */
struct dbuf {
	unsigned char *b;
	size_t n, cap;
	bool oom;
};

static unsigned char *db_room(struct dbuf *d, size_t n)
{
	if (d->oom)
		return NULL;
	if (d->n + n > d->cap) {
		size_t cap = d->cap ? d->cap : 65536;
		while (cap < d->n + n)
			cap *= 2;
		unsigned char *b = realloc(d->b, cap);
		if (!b) {
			d->oom = true;
			return NULL;
		}
		d->b = b;
		d->cap = cap;
	}
	unsigned char *p = d->b + d->n;
	d->n += n;
	return p;
}

static void db_mem(struct dbuf *d, const void *p, size_t n)
{
	if (!n)
		return; /* an empty buffer's bytes are NULL (no pids in an empty window), not memcpy's */
	unsigned char *o = db_room(d, n);
	if (o)
		memcpy(o, p, n);
}

/* Little-endian numbers, whatever the host. */
static void db_le(struct dbuf *d, uint64_t v, int bytes)
{
	unsigned char *o = db_room(d, (size_t)bytes);
	for (int i = 0; o && i < bytes; i++)
		o[i] = (unsigned char)(v >> (8 * i));
}

static void db_str0(struct dbuf *d, const char *s)
{
	db_mem(d, s, strlen(s) + 1);
}

static void put_le(unsigned char *o, uint64_t v, int bytes)
{
	for (int i = 0; i < bytes; i++)
		o[i] = (unsigned char)(v >> (8 * i));
}

/* ---- the events' layouts ---------------------------------------------------- */

struct dat_layout {
	const char *system;
	const char *fields[MAX_FIELDS];     /* in record order */
	bool is_signed[MAX_FIELDS];
	const char *print;                  /* the print fmt's format string */
	const char *args;                   /* and its arguments: @list(REC->x) for a symbolic
					     * value, !list(REC->x) for a mask of flags */
};

/* sched:sched_move_numa's and the pair events' fields, as in
 * include/trace/events/sched.h (v6.12; the pair layout since b2b2042b2047,
 * v5.7). */
#define NUMA_SIGNED { 1, 1, 1, 1, 1, 1, 1, 1, 1, 1 }
#define NUMA_PAIR_LAYOUT                                                                                   \
	{ "sched",                                                                                         \
	  { "src_pid", "src_tgid", "src_ngid", "src_cpu", "src_nid", "dst_pid", "dst_tgid", "dst_ngid",   \
	    "dst_cpu", "dst_nid" },                                                                        \
	  NUMA_SIGNED,                                                                                  \
	  "src_pid=%d src_tgid=%d src_ngid=%d src_cpu=%d src_nid=%d dst_pid=%d dst_tgid=%d dst_ngid=%d "   \
	  "dst_cpu=%d dst_nid=%d",                                                                         \
	  "REC->src_pid, REC->src_tgid, REC->src_ngid, REC->src_cpu, REC->src_nid, REC->dst_pid, "         \
	  "REC->dst_tgid, REC->dst_ngid, REC->dst_cpu, REC->dst_nid" }

/* What each recorded type becomes.  Values past the kernel tracepoint's
 * arguments that the model does not have are 0, as the text writes them. */
static const struct dat_layout layouts[NR_TRACE_TYPES] = {
	[TR_TLB_FLUSH] = { "tlb", { "reason", "pages" }, { 1, 1 },
			   "pages:%ld reason:%s (%ld)", "REC->pages, @tlb(REC->reason), REC->reason" },
	[TR_MIGRATE_START] = { "migrate", { "mode", "reason" }, { 1, 1 }, "mode=%s reason=%s",
			       "@mode(REC->mode), @reason(REC->reason)" },
	[TR_MIGRATE_PAGES] = { "migrate",
			       { "succeeded", "failed", "thp_succeeded", "thp_failed", "thp_split",
				 "large_folio_split", "mode", "reason" },
			       { 0, 0, 0, 0, 0, 0, 1, 1 },
			       "nr_succeeded=%lu nr_failed=%lu nr_thp_succeeded=%lu nr_thp_failed=%lu "
			       "nr_thp_split=%lu nr_split=%lu mode=%s reason=%s",
			       "REC->succeeded, REC->failed, REC->thp_succeeded, REC->thp_failed, "
			       "REC->thp_split, REC->large_folio_split, @mode(REC->mode), @reason(REC->reason)" },
	[TR_SET_MIGRATION_PTE] = { "migrate", { "addr", "pte", "order" }, { 0, 0, 1 },
				   "addr=%lx, pte=%lx order=%ld", "REC->addr, REC->pte, REC->order" },
	[TR_REMOVE_MIGRATION_PTE] = { "migrate", { "addr", "pte", "order" }, { 0, 0, 1 },
				      "addr=%lx, pte=%lx order=%ld", "REC->addr, REC->pte, REC->order" },
	[TR_SKIP_VMA] = { "sched", { "numa_scan_offset", "vm_start", "vm_end", "reason" }, { 0, 0, 0, 1 },
			  "numa_scan_offset=%lX vm_start=%lX vm_end=%lX reason=%s",
			  "REC->numa_scan_offset, REC->vm_start, REC->vm_end, @skip(REC->reason)" },
	[TR_MOVE_NUMA] = { "sched", { "pid", "tgid", "ngid", "src_cpu", "src_nid", "dst_cpu", "dst_nid" },
			   NUMA_SIGNED, "pid=%d tgid=%d ngid=%d src_cpu=%d src_nid=%d dst_cpu=%d dst_nid=%d",
			   "REC->pid, REC->tgid, REC->ngid, REC->src_cpu, REC->src_nid, REC->dst_cpu, REC->dst_nid" },
	[TR_SWAP_NUMA] = NUMA_PAIR_LAYOUT,
	[TR_STICK_NUMA] = NUMA_PAIR_LAYOUT,
	[TR_SCAN_PASS] = { "numasim", { "pte_updates", "full_flushes" }, { 1, 1 },
			   "pte_updates=%ld full_flushes=%ld", "REC->pte_updates, REC->full_flushes" },
	[TR_GATHER] = { "numasim", { "start", "end" }, { 0, 0 }, "start=%lx end=%lx", "REC->start, REC->end" },
	[TR_PTE_TABLE] = { "numasim", { "addr", "pages", "flushed_mm" }, { 0, 1, 1 },
			   "addr=%lx pages=%ld flushed_mm=%ld", "REC->addr, REC->pages, REC->flushed_mm" },
	[TR_HINT_FAULT] = { "numasim", { "addr", "folio_nid", "target_nid", "flags" }, { 0, 1, 1, 0 },
			    "addr=%lx folio_nid=%ld target_nid=%ld flags=0x%lx",
			    "REC->addr, REC->folio_nid, REC->target_nid, REC->flags" },
	[TR_MIGRATION] = { "numasim", { "addr", "src_nid", "dst_nid", "saw_pending" }, { 0, 1, 1, 1 },
			   "addr=%lx src_nid=%ld dst_nid=%ld saw_pending=%ld",
			   "REC->addr, REC->src_nid, REC->dst_nid, REC->saw_pending" },
	[TR_FLUSH_ROUND] = { "numasim", { "nr_ipis", "pages", "origin" }, { 1, 1, 1 },
			     "nr_ipis=%ld pages=%ld origin=%s", "REC->nr_ipis, REC->pages, @origin(REC->origin)" },
	[TR_BATCH_RECORDED] = { "numasim", { "addr", "pending" }, { 0, 1 }, "addr=%lx pending=%ld",
				"REC->addr, REC->pending" },
	[TR_NUMA_MIGRATE_RESULT] = { "numasim", { "outcome", "preferred_nid", "best_cpu", "refused" },
				     { 1, 1, 1, 0 }, "outcome=%s preferred_nid=%ld best_cpu=%ld refused=%s",
				     "@outcome(REC->outcome), REC->preferred_nid, REC->best_cpu, "
				     "!refused(REC->refused)" },
};

/* The C types of the sched NUMA tracepoints' 4-byte fields (every other
 * event's fields are longs), apart from the layouts so that those stay
 * whole initializers. */
static const char *const numa_move_types[MAX_FIELDS] = { "pid_t", "pid_t", "pid_t", "int",
							 "int",   "int",   "int" };
static const char *const numa_pair_types[MAX_FIELDS] = { "pid_t", "pid_t", "pid_t", "int", "int",
							 "pid_t", "pid_t", "pid_t", "int", "int" };
static const char *const *const int_types[NR_TRACE_TYPES] = {
	[TR_MOVE_NUMA] = numa_move_types,
	[TR_SWAP_NUMA] = numa_pair_types,
	[TR_STICK_NUMA] = numa_pair_types,
};

/* Field @i's 4-byte C type, or NULL for a long. */
static const char *int_type(int type, int i)
{
	return int_types[type] ? int_types[type][i] : NULL;
}

static int nr_fields(int type)
{
	int n = 0;
	while (n < MAX_FIELDS && layouts[type].fields[n])
		n++;
	return n;
}

static int field_size(int type, int i)
{
	return int_type(type, i) ? 4 : 8;
}

/* The sched NUMA tracepoints' field @i, in their layouts' order. */
static int64_t numa_field(const struct trace_event *e, int i)
{
	const struct trace_numa_pair n = trace_numa_fields(e);
	const int32_t move[7] = { n.src.pid, n.src.tgid, n.src.ngid, n.src.cpu, n.src.nid, n.dst.cpu, n.dst.nid };
	const int32_t pair[10] = { n.src.pid, n.src.tgid, n.src.ngid, n.src.cpu, n.src.nid,
				   n.dst.pid, n.dst.tgid, n.dst.ngid, n.dst.cpu, n.dst.nid };
	return e->type == TR_MOVE_NUMA ? move[i] : pair[i];
}

/* The value of field @i of event @e (the text writer's a, b, c, d). */
static int64_t field_value(const struct trace_event *e, int i)
{
	if (e->type == TR_MOVE_NUMA || e->type == TR_SWAP_NUMA || e->type == TR_STICK_NUMA)
		return numa_field(e, i);
	if (e->type == TR_MIGRATE_PAGES) { /* succeeded, failed, 4 x 0, mode, reason */
		static const int src[8] = { 0, 1, -1, -1, -1, -1, 2, 3 };
		i = src[i];
		if (i < 0)
			return 0;
	}
	const int64_t v[4] = { e->a, e->b, e->c, e->d };
	return i < 4 ? v[i] : 0;
}

/* Event ids: each type's instant, or its begin and end, from 1. */
static int event_id(int type, enum dat_kind k)
{
	return 1 + 3 * type + (int)k;
}

typedef const char *(*name_fn)(int64_t);

static name_fn symbolic_fn(const char *name)
{
	if (!strcmp(name, "mode"))
		return trace_migrate_mode_name;
	if (!strcmp(name, "reason"))
		return trace_migrate_reason_name;
	if (!strcmp(name, "skip"))
		return trace_skip_reason_name;
	if (!strcmp(name, "origin"))
		return trace_flush_origin_name;
	if (!strcmp(name, "outcome"))
		return trace_numa_outcome_name;
	return NULL;
}

/* "!list(REC->x)": __print_flags(REC->x, "|", { 1, "name" }, ...), the
 * bits the text writer names (only "refused" so far); 0 prints nothing. */
static void put_flags(struct dbuf *d, const char *arg)
{
	static const char delim[] = ", \"|\"";
	db_mem(d, "__print_flags(", 14);
	db_mem(d, arg, strlen(arg));
	db_mem(d, delim, strlen(delim));
	for (int b = 0; b < NR_NUMA_REFUSED; b++) {
		char item[96];
		int n = snprintf(item, sizeof(item), ", { %d, \"%s\" }", 1 << b, trace_numa_refused_name(b));
		db_mem(d, item, (size_t)n);
	}
	db_mem(d, ")", 1);
}

/* "@list(REC->x)" in a layout's arguments becomes
 * __print_symbolic(REC->x, { 0, "name" }, ...), the names the text writer
 * prints. */
static void put_args(struct dbuf *d, const char *args)
{
	for (const char *s = args; *s;) {
		if (*s != '@' && *s != '!') {
			db_mem(d, s, 1);
			s++;
			continue;
		}
		const char *open = strchr(s, '('), *close = strchr(s, ')');
		char list[16], arg[64];
		snprintf(list, sizeof(list), "%.*s", (int)(open - s - 1), s + 1);
		snprintf(arg, sizeof(arg), "%.*s", (int)(close - open - 1), open + 1);
		if (*s == '!') {
			put_flags(d, arg);
			s = close + 1;
			continue;
		}
		db_mem(d, "__print_symbolic(", 17);
		db_mem(d, arg, strlen(arg));
		for (int64_t v = 0; v < 32; v++) {
			const char *name;
			if (!strcmp(list, "tlb"))
				name = v < 6 ? tlb_flush_reason_names[v] : "?";
			else
				name = symbolic_fn(list)(v);
			if (!strcmp(name, "?"))
				break;
			char item[96];
			int n = snprintf(item, sizeof(item), ", { %lld, \"%s\" }", (long long)v, name);
			db_mem(d, item, (size_t)n);
		}
		db_mem(d, ")", 1);
		s = close + 1;
	}
}

static void put_field(struct dbuf *d, const char *ctype, const char *name, int offset, int size, bool sgn)
{
	char line[160];
	int n = snprintf(line, sizeof(line), "\tfield:%s %s;\toffset:%d;\tsize:%d;\tsigned:%d;\n", ctype, name,
			 offset, size, sgn);
	db_mem(d, line, (size_t)n);
}

/* The format file of (@type, @k), as tracefs's events/SYSTEM/NAME/format. */
static void put_format(struct dbuf *d, int type, enum dat_kind k)
{
	const struct dat_layout *l = &layouts[type];
	char head[160];
	int n = snprintf(head, sizeof(head), "name: %s%s\nID: %d\nformat:\n", trace_type_names[type],
			 k == DK_BEGIN ? "_begin" : k == DK_END ? "_end" : "", event_id(type, k));
	db_mem(d, head, (size_t)n);
	put_field(d, "unsigned short", "common_type", 0, 2, false);
	put_field(d, "unsigned char", "common_flags", 2, 1, false);
	put_field(d, "unsigned char", "common_preempt_count", 3, 1, false);
	put_field(d, "int", "common_pid", 4, 4, true);
	db_mem(d, "\n", 1);
	int nf = k == DK_END ? 0 : nr_fields(type), off = 8;
	for (int i = 0; i < nf; off += field_size(type, i), i++) {
		const char *ctype = int_type(type, i) ? int_type(type, i)
				  : l->is_signed[i]   ? "long"
						      : "unsigned long";
		put_field(d, ctype, l->fields[i], off, field_size(type, i), l->is_signed[i]);
	}
	if (k != DK_INSTANT)
		put_field(d, "unsigned long", "dur_ns", off, 8, false);
	db_mem(d, "\nprint fmt: \"", 13);
	if (k == DK_END) {
		db_mem(d, "dur_ns=%lu\", REC->dur_ns\n", 25);
		return;
	}
	db_mem(d, l->print, strlen(l->print));
	if (k == DK_BEGIN)
		db_mem(d, " dur_ns=%lu", 11);
	db_mem(d, "\", ", 3);
	put_args(d, l->args);
	if (k == DK_BEGIN)
		db_mem(d, ", REC->dur_ns", 13);
	db_mem(d, "\n", 1);
}

/* ---- the ring buffer pages ------------------------------------------------------ */

struct cpu_pages {
	struct dbuf d;       /* whole pages */
	size_t page;         /* offset of the page being filled */
	uint32_t used;       /* its data bytes */
	uint64_t last;       /* time of its last event */
	bool open;
};

static void page_close(struct cpu_pages *c)
{
	if (c->open && !c->d.oom)
		put_le(c->d.b + c->page + 8, c->used, 8); /* commit */
	c->open = false;
}

static void page_open(struct cpu_pages *c, uint64_t time)
{
	page_close(c);
	unsigned char *p = db_room(&c->d, DAT_PAGE);
	if (!p)
		return;
	memset(p, 0, DAT_PAGE);
	c->page = (size_t)(p - c->d.b);
	put_le(p, time, 8);
	c->used = 0;
	c->last = time;
	c->open = true;
}

/* Append one record of @len bytes (a multiple of 4, at most 112) at @time. */
static void page_event(struct cpu_pages *c, uint64_t time, const unsigned char *rec, uint32_t len)
{
	uint64_t delta = c->open ? time - c->last : 0;
	uint32_t need = 4 + len + (delta >> DELTA_BITS ? 8 : 0);
	if (!c->open || c->used + need > DAT_PAGE_DATA) {
		page_open(c, time);
		delta = 0;
		need = 4 + len;
	}
	if (c->d.oom)
		return;
	unsigned char *o = c->d.b + c->page + DAT_PAGE_HEADER + c->used;
	if (delta >> DELTA_BITS) { /* a time extend: the delta's low 27 bits, then the rest */
		put_le(o, TYPE_TIME_EXTEND | (uint32_t)(delta & ((1u << DELTA_BITS) - 1)) << 5, 4);
		put_le(o + 4, delta >> DELTA_BITS, 4);
		o += 8;
		delta = 0;
	}
	put_le(o, (len / 4) | (uint32_t)delta << 5, 4);
	memcpy(o + 4, rec, len);
	c->used += need;
	c->last = time;
}

/* ---- the file ------------------------------------------------------------------- */

static const char header_page[] =
	"\tfield: u64 timestamp;\toffset:0;\tsize:8;\tsigned:0;\n"
	"\tfield: local_t commit;\toffset:8;\tsize:8;\tsigned:1;\n"
	"\tfield: int overwrite;\toffset:8;\tsize:1;\tsigned:1;\n"
	"\tfield: char data;\toffset:16;\tsize:4080;\tsigned:1;\n";

static const char header_event[] =
	"# compressed entry header\n"
	"\ttype_len    :    5 bits\n"
	"\ttime_delta  :   27 bits\n"
	"\tarray       :   32 bits\n"
	"\n"
	"\tpadding     : type == 29\n"
	"\ttime_extend : type == 30\n"
	"\ttime_stamp : type == 31\n"
	"\tdata max type_len  == 28\n";

static void put_section(struct dbuf *d, const char *name, const char *text)
{
	db_str0(d, name);
	db_le(d, strlen(text), 8);
	db_mem(d, text, strlen(text));
}

static int pid_cmp(const void *a, const void *b)
{
	int32_t x = *(const int32_t *)a, y = *(const int32_t *)b;
	return (x > y) - (x < y);
}

static void put_systems(struct dbuf *d)
{
	static const char *const systems[] = { "tlb", "migrate", "sched", "numasim" };
	db_le(d, 4, 4);
	for (size_t s = 0; s < 4; s++) {
		int n = 0;
		for (int t = 0; t < NR_TRACE_TYPES; t++)
			if (!strcmp(layouts[t].system, systems[s]))
				n += trace_type_is_span(t) ? 2 : 1;
		db_str0(d, systems[s]);
		db_le(d, (uint64_t)n, 4);
		for (int t = 0; t < NR_TRACE_TYPES; t++) {
			if (strcmp(layouts[t].system, systems[s]))
				continue;
			for (int k = 0; k < 3; k++) {
				if ((k == DK_INSTANT) == trace_type_is_span(t))
					continue;
				struct dbuf f = { 0 };
				put_format(&f, t, (enum dat_kind)k);
				db_le(d, f.n, 8);
				db_mem(d, f.b, f.n);
				d->oom |= f.oom;
				free(f.b);
			}
		}
	}
}

/* saved_cmdlines: "PID COMM" per task, as the .txt names them. */
static void put_cmdlines(struct dbuf *d, const struct trace_buf *t)
{
	int32_t *pids = malloc((t->n ? t->n : 1) * sizeof(*pids));
	size_t n = 0;
	struct dbuf c = { 0 };
	if (!pids) {
		d->oom = true;
		return;
	}
	for (size_t i = 0; i < t->n; i++)
		if (t->ev[i].pid > 0)
			pids[n++] = t->ev[i].pid;
	qsort(pids, n, sizeof(*pids), pid_cmp);
	for (size_t i = 0; i < n; i++) {
		if (i && pids[i] == pids[i - 1])
			continue;
		char line[48];
		int l = snprintf(line, sizeof(line), "%d numasim\n", pids[i]);
		db_mem(&c, line, (size_t)l);
	}
	free(pids);
	db_le(d, c.n, 8);
	db_mem(d, c.b, c.n);
	d->oom |= c.oom;
	free(c.b);
}

int trace_write_dat(const struct trace_buf *t, const struct trace_plan *p, const struct trace_meta *m,
		    FILE *f, uint64_t *bytes)
{
	int ncpu = m->nr_cpus > 0 ? m->nr_cpus : 1;
	struct cpu_pages *cpu = calloc((size_t)ncpu, sizeof(*cpu));
	struct dbuf h = { 0 };
	int rc = -1;
	if (!cpu)
		return -1;

	/* the pages, CPU by CPU, in the plan's order (time, then as run) */
	for (size_t i = 0; i < trace_plan_items(p); i++) {
		int kind;
		uint64_t time;
		const struct trace_event *e = &t->ev[trace_plan_item(p, i, &kind, &time)];
		enum dat_kind k = kind == 0 ? DK_INSTANT : kind == 1 ? DK_BEGIN : DK_END;
		unsigned char rec[8 + 8 * (MAX_FIELDS + 1)];
		int nf = k == DK_END ? 0 : nr_fields(e->type), off = 8;
		put_le(rec, (uint64_t)event_id(e->type, k), 2);
		rec[2] = rec[3] = 0;
		put_le(rec + 4, (uint64_t)(uint32_t)e->pid, 4);
		for (int fi = 0; fi < nf; off += field_size(e->type, fi), fi++)
			put_le(rec + off, (uint64_t)field_value(e, fi), field_size(e->type, fi));
		if (k != DK_INSTANT) {
			put_le(rec + off, e->dur, 8);
			off += 8;
		}
		int c = e->cpu >= 0 && e->cpu < ncpu ? e->cpu : 0;
		page_event(&cpu[c], time, rec, (uint32_t)off);
	}
	for (int c = 0; c < ncpu; c++)
		page_close(&cpu[c]);

	/* the header, up to the CPU data */
	static const unsigned char magic[] = { 0x17, 0x08, 0x44, 't', 'r', 'a', 'c', 'i', 'n', 'g' };
	db_mem(&h, magic, sizeof(magic));
	db_str0(&h, "6");
	db_le(&h, 0, 1); /* little endian */
	db_le(&h, 8, 1); /* long */
	db_le(&h, DAT_PAGE, 4);
	put_section(&h, "header_page", header_page);
	put_section(&h, "header_event", header_event);
	db_le(&h, 0, 4); /* no ftrace formats */
	put_systems(&h);
	db_le(&h, 0, 4); /* no kallsyms */
	db_le(&h, 0, 4); /* no trace_printk formats */
	put_cmdlines(&h, t);
	db_le(&h, (uint64_t)ncpu, 4);
	db_mem(&h, "flyrecord", 10);
	size_t table = h.n;
	db_room(&h, (size_t)ncpu * 16);
	size_t at = (h.n + DAT_PAGE - 1) / DAT_PAGE * DAT_PAGE;
	for (int c = 0; c < ncpu && !h.oom; c++) {
		put_le(h.b + table + 16 * (size_t)c, cpu[c].d.n ? at : 0, 8);
		put_le(h.b + table + 16 * (size_t)c + 8, cpu[c].d.n, 8);
		at += cpu[c].d.n;
	}
	size_t pad = (h.n + DAT_PAGE - 1) / DAT_PAGE * DAT_PAGE - h.n;
	unsigned char *z = db_room(&h, pad);
	if (z)
		memset(z, 0, pad);
	bool oom = h.oom;
	for (int c = 0; c < ncpu; c++)
		oom |= cpu[c].d.oom;
	if (!oom) {
		*bytes = h.n;
		rc = f && fwrite(h.b, 1, h.n, f) != h.n ? -1 : 0;
		for (int c = 0; c < ncpu && !rc; c++) {
			*bytes += cpu[c].d.n;
			if (f && cpu[c].d.n && fwrite(cpu[c].d.b, 1, cpu[c].d.n, f) != cpu[c].d.n)
				rc = -1;
		}
	}
	free(h.b);
	for (int c = 0; c < ncpu; c++)
		free(cpu[c].d.b);
	free(cpu);
	return rc;
}
