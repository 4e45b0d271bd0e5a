#include "trace/trace.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

const char *const trace_type_names[NR_TRACE_TYPES] = {
	[TR_TLB_FLUSH] = "tlb_flush",
	[TR_MIGRATE_START] = "mm_migrate_pages_start",
	[TR_MIGRATE_PAGES] = "mm_migrate_pages",
	[TR_SET_MIGRATION_PTE] = "set_migration_pte",
	[TR_REMOVE_MIGRATION_PTE] = "remove_migration_pte",
	[TR_SKIP_VMA] = "sched_skip_vma_numa",
	[TR_MOVE_NUMA] = "sched_move_numa",
	[TR_SWAP_NUMA] = "sched_swap_numa",
	[TR_STICK_NUMA] = "sched_stick_numa",
	[TR_SCAN_PASS] = "numa_scan_pass",
	[TR_GATHER] = "numa_mmu_gather",
	[TR_PTE_TABLE] = "change_pte_range",
	[TR_HINT_FAULT] = "numa_hint_fault",
	[TR_MIGRATION] = "numa_migration",
	[TR_FLUSH_ROUND] = "flush_round",
	[TR_BATCH_RECORDED] = "tlb_ubc_flush_pending",
	[TR_NUMA_MIGRATE_RESULT] = "numa_migrate_result",
};

/* The strings of the fixed tracepoint (Dec 2025 spelling). */
const char *const tlb_flush_reason_names[6] = {
	"flush on task switch", "remote shootdown", "local shootdown",
	"local MM shootdown", "remote IPI send", "remote wrong CPU",
};

struct trace_buf *trace_new(uint64_t start, uint64_t end, uint32_t mask, size_t max_events)
{
	struct trace_buf *t = calloc(1, sizeof(*t));
	if (!t)
		return NULL;
	t->start = start;
	t->end = end;
	t->mask = mask;
	t->max_events = max_events;
	return t;
}

void trace_free(struct trace_buf *t)
{
	if (t) {
		free(t->ev);
		free(t->ctx);
	}
	free(t);
}

void trace_emit(struct trace_buf *t, enum trace_type type, int cpu, int pid, uint64_t ts,
		uint64_t dur, int64_t a, int64_t b, int64_t c, int64_t d)
{
	if (!(t->mask & (1u << type)) || ts + dur < t->start || ts >= t->end)
		return;
	if (t->n == t->max_events) {
		t->dropped++;
		return;
	}
	if (t->n == t->cap) {
		size_t cap = t->cap ? 2 * t->cap : 4096;
		if (cap > t->max_events)
			cap = t->max_events;
		struct trace_event *ev = realloc(t->ev, cap * sizeof(*ev));
		if (!ev) {
			t->dropped++;
			return;
		}
		t->ev = ev;
		t->cap = cap;
	}
	t->ev[t->n++] = (struct trace_event){ ts, dur, (uint16_t)type, (int16_t)cpu, pid, a, b, c, d };
	if (t->n == t->check_at && t->on_check)
		t->on_check(t);
}

/* Two 32-bit halves, and four 16-bit quarters, of a record's int64. */
static int64_t pack32(int32_t lo, int32_t hi)
{
	return (int64_t)((uint64_t)(uint32_t)lo | (uint64_t)(uint32_t)hi << 32);
}
static int32_t half(int64_t v, int i)
{
	return (int32_t)(uint32_t)((uint64_t)v >> (32 * i));
}
static int64_t pack16(int32_t q0, int32_t q1, int32_t q2, int32_t q3)
{
	return (int64_t)((uint64_t)(uint16_t)q0 | (uint64_t)(uint16_t)q1 << 16 |
			 (uint64_t)(uint16_t)q2 << 32 | (uint64_t)(uint16_t)q3 << 48);
}
static int32_t quarter(int64_t v, int i)
{
	return (int16_t)(uint16_t)((uint64_t)v >> (16 * i));
}

void trace_emit_numa(struct trace_buf *t, enum trace_type type, uint64_t ts,
		     const struct trace_numa_pair *f)
{
	const struct trace_numa_task *src = &f->src, *dst = &f->dst;
	trace_emit(t, type, src->cpu, src->pid, ts, 0, pack32(src->tgid, src->ngid),
		   pack16(src->cpu, src->nid, dst->cpu, dst->nid), pack32(dst->pid, dst->tgid), dst->ngid);
}

struct trace_numa_pair trace_numa_fields(const struct trace_event *e)
{
	return (struct trace_numa_pair){
		.src = { e->pid, half(e->a, 0), half(e->a, 1), quarter(e->b, 0), quarter(e->b, 1) },
		.dst = { half(e->c, 0), half(e->c, 1), (int32_t)e->d, quarter(e->b, 2), quarter(e->b, 3) },
	};
}

int trace_parse_events(const char *list, uint32_t *mask, char *err, size_t errlen)
{
	char buf[512];
	snprintf(buf, sizeof(buf), "%s", list);
	*mask = 0;
	char *save = NULL;
	for (char *tok = strtok_r(buf, ",", &save); tok; tok = strtok_r(NULL, ",", &save)) {
		if (!strcmp(tok, "all")) {
			*mask |= TRACE_ALL;
			continue;
		}
		if (!strcmp(tok, "kernel")) {
			*mask |= TRACE_KERNEL;
			continue;
		}
		int k = -1;
		for (int i = 0; i < NR_TRACE_TYPES; i++)
			if (!strcmp(tok, trace_type_names[i]))
				k = i;
		if (k < 0) {
			int n = snprintf(err, errlen, "--trace-events: unknown event '%s' (one of all, kernel", tok);
			for (int i = 0; i < NR_TRACE_TYPES && n >= 0 && (size_t)n < errlen; i++)
				n += snprintf(err + n, errlen - (size_t)n, ", %s", trace_type_names[i]);
			if (n >= 0 && (size_t)n < errlen)
				snprintf(err + n, errlen - (size_t)n, ")");
			return -1;
		}
		*mask |= 1u << k;
	}
	if (!*mask) {
		snprintf(err, errlen, "--trace-events: empty list");
		return -1;
	}
	return 0;
}
