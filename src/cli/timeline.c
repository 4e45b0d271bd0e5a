/* numasim timeline: one NUMA scan pass and the workload's hint-fault
 * migrations around it, as a two-column text interleaving (as the cover
 * letter of "mm/migrate: don't batch the TLB flush when there is nothing to
 * batch" draws it).  The scenario runs for a short time with the trace on
 * (every event but the receivers' tlb_flush and the migrate:* tracepoints);
 * the pass is the first one after the run's first pass that a hint-fault
 * migration overlapped (or the N-th, --pass N).
 *
 * Left column: the scanning CPU (task_numa_work) -- the mmu_gather, each PTE
 * table's change_pte_range and its flush_tlb_batched_pending flush.  Right
 * column: the workload threads' hint faults and migrations of the same mm,
 * with the batch they record and the flush they do.  Every line starts with
 * the time in ms since the pass began.  The first three tables and the last
 * are shown in full, the ones between summarised; at most STORIES_PER_TABLE
 * migrations are shown per table, the others counted.
 *
 * Exit status: 0, 2 bad input, 1 failure or no such pass in the run. */
#include <getopt.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cli/cli.h"
#include "lib/strnum.h"
#include "linux/mm_types.h"
#include "scenario/scenario.h"
#include "kernel/sim.h"
#include "trace/trace.h"
#include "trace/writers.h"

const char timeline_usage[] =
	"usage: numasim timeline SCENARIO|FILE [OPTIONS]\n"
	"\n"
	"Run the scenario for a few simulated seconds with the trace on and print\n"
	"one NUMA scan pass as a two-column timeline: the scanning CPU's mmu_gather,\n"
	"PTE tables and flushes on the left, the workload threads' hint-fault\n"
	"migrations, the batches they record and their flushes on the right, each\n"
	"line with the time in ms since the pass began.  The pass is the first one\n"
	"after the run's first pass that a hint-fault migration overlapped.\n"
	"\n"
	"options (applied in order, after the scenario is read):\n"
	"  --kernel K          kernel variant, e.g. v7.3 or v7.3+single-folio-v2\n"
	"  --seed N            random seed\n"
	"  --exact             every hint fault one by one (see 'numasim run --help')\n"
	"  --set KEY=VALUE     any scenario key (see 'numasim run --help')\n"
	"  --duration S        simulated seconds to run (default 12, or the\n"
	"                      scenario's duration if shorter)\n"
	"  --pass N            the N-th such pass instead of the first\n"
	"  -q, --quiet         no progress line\n"
	"  -h, --help          this text\n"
	"\n"
	"Exit status: 0 done, 2 bad input, 1 failure or no such pass in the run\n"
	"(try a longer --duration).\n";

#define DEFAULT_DURATION_S 12.0
#define TIMELINE_MAX_EVENTS 20000000u
#define FULL_TABLES_HEAD 3     /* tables shown in full at the start ... */
#define STORIES_PER_TABLE 2    /* ... and migrations shown in full per table */
#define LEFT_WIDTH 38

/* ---- options ------------------------------------------------------------ */

struct tl_args {
	const char *scenario;
	const char **opt, **val;  /* overrides in order: option name, value */
	int nr;
	const char *duration;
	long pass;
	bool quiet;
};

enum { OPT_KERNEL = 256, OPT_SEED, OPT_SET, OPT_DURATION, OPT_PASS, OPT_EXACT };

static int parse_args(int argc, char **argv, struct tl_args *a)
{
	static const struct option opts[] = {
		{ "kernel", required_argument, NULL, OPT_KERNEL },
		{ "seed", required_argument, NULL, OPT_SEED },
		{ "set", required_argument, NULL, OPT_SET },
		{ "exact", no_argument, NULL, OPT_EXACT },
		{ "duration", required_argument, NULL, OPT_DURATION },
		{ "pass", required_argument, NULL, OPT_PASS },
		{ "quiet", no_argument, NULL, 'q' },
		{ "help", no_argument, NULL, 'h' },
		{ 0, 0, 0, 0 },
	};
	int c;
	opterr = 0;
	optind = 1;
	while ((c = getopt_long(argc, argv, ":hq", opts, NULL)) != -1) {
		long long pass;
		switch (c) {
		case 'h':
			fputs(timeline_usage, stdout);
			exit(0);
		case 'q':
			a->quiet = true;
			break;
		case OPT_KERNEL: a->opt[a->nr] = "--kernel"; a->val[a->nr++] = optarg; break;
		case OPT_SEED: a->opt[a->nr] = "--seed"; a->val[a->nr++] = optarg; break;
		case OPT_SET: a->opt[a->nr] = "--set"; a->val[a->nr++] = optarg; break;
		case OPT_EXACT: a->opt[a->nr] = "--exact"; a->val[a->nr++] = "true"; break;
		case OPT_DURATION: a->duration = optarg; break;
		case OPT_PASS:
			if (strnum_ll(optarg, &pass) || pass < 1 || pass > 1000000) {
				fprintf(stderr, "numasim timeline: --pass: '%s' is not a number >= 1\n",
					optarg);
				return EXIT_INPUT;
			}
			a->pass = (long)pass;
			break;
		case ':':
			fprintf(stderr, "numasim timeline: option '%s' needs a value\n"
				"Try 'numasim timeline --help'.\n", argv[optind - 1]);
			return EXIT_INPUT;
		default:
			fprintf(stderr, "numasim timeline: unknown option '%s'\n"
				"Try 'numasim timeline --help'.\n", argv[optind - 1]);
			return EXIT_INPUT;
		}
	}
	if (optind != argc - 1) {
		fprintf(stderr, "numasim timeline: expected one SCENARIO or FILE, got %d\n"
			"Try 'numasim timeline --help'.\n", argc - optind);
		return EXIT_INPUT;
	}
	a->scenario = argv[optind];
	return 0;
}

static int prepare(const struct tl_args *a, struct scenario *sc, struct sim *s, char *err,
		   size_t errlen)
{
	if (load_scenario(a->scenario, sc, err, errlen))
		return -1;
	for (int i = 0; i < a->nr; i++) {
		int rc;
		if (!strcmp(a->opt[i], "--kernel"))
			rc = scenario_set_option(sc, "--kernel", "kernel.name", a->val[i], err, errlen);
		else if (!strcmp(a->opt[i], "--seed"))
			rc = scenario_set_option(sc, "--seed", "run.seed", a->val[i], err, errlen);
		else if (!strcmp(a->opt[i], "--exact"))
			rc = scenario_set_option(sc, "--exact", "run.exact", a->val[i], err, errlen);
		else
			rc = scenario_set(sc, a->val[i], err, errlen);
		if (rc)
			return -1;
	}
	char buf[64];
	const char *d = a->duration;
	if (!d) {
		snprintf(buf, sizeof(buf), "%.17g",
			 sc->duration_s < DEFAULT_DURATION_S ? sc->duration_s : DEFAULT_DURATION_S);
		d = buf;
	}
	if (scenario_set_option(sc, "--duration", "run.duration_s", d, err, errlen))
		return -1;
	if (scenario_validate(sc, err, errlen) || scenario_to_sim(sc, s, err, errlen) ||
	    scenario_check_host(sc, host_memory_bytes(), err, errlen))
		return -1;
	return 0;
}

/* ---- output rows ---------------------------------------------------------- */

/* One printed line: a time (or none, for a continuation), the left or the
 * right column (or both).  Sorted by (t, src, grp, sub). */
struct row {
	int64_t t;          /* ns since the pass began */
	int src;            /* -1 segment notes, 0 the scanner, 1 the workload */
	uint64_t grp;       /* order among blocks at the same time */
	int sub;            /* line within the block */
	bool timed;
	char left[80];
	char right[112];
};

struct rows {
	struct row *r;
	size_t n, cap;
	bool oom;
};

static struct row *row_add(struct rows *R, int64_t t, int src, uint64_t grp, int sub, bool timed)
{
	if (R->n == R->cap) {
		size_t cap = R->cap ? 2 * R->cap : 256;
		struct row *r = realloc(R->r, cap * sizeof(*r));
		if (!r) {
			R->oom = true;
			return NULL;
		}
		R->r = r;
		R->cap = cap;
	}
	struct row *w = &R->r[R->n++];
	*w = (struct row){ .t = t, .src = src, .grp = grp, .sub = sub, .timed = timed };
	return w;
}

/* A block of lines in one column: @text with '\n' between lines; the first
 * line is timed, the others are continuations. */
static void block(struct rows *R, int64_t t, int src, uint64_t grp, bool left, const char *prefix,
		  const char *fmt, ...)
{
	char text[512];
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(text, sizeof(text), fmt, ap);
	va_end(ap);
	int sub = 0;
	size_t indent = strlen(prefix);
	for (char *line = text, *next; line; line = next) {
		next = strchr(line, '\n');
		if (next)
			*next++ = 0;
		struct row *w = row_add(R, t, src, grp, sub, sub == 0);
		if (!w)
			return;
		char *dst = left ? w->left : w->right;
		size_t len = left ? sizeof(w->left) : sizeof(w->right);
		char tmp[1024];
		snprintf(tmp, sizeof(tmp), "%*s%s", (int)indent, sub ? "" : prefix, line);
		size_t n = strlen(tmp) < len ? strlen(tmp) : len - 1;
		memcpy(dst, tmp, n);
		dst[n] = 0;
		sub++;
	}
}

static int row_cmp(const void *pa, const void *pb)
{
	const struct row *a = pa, *b = pb;
	if (a->t != b->t)
		return a->t < b->t ? -1 : 1;
	if (a->src != b->src)
		return a->src < b->src ? -1 : 1;
	if (a->grp != b->grp)
		return a->grp < b->grp ? -1 : 1;
	return a->sub - b->sub;
}

/* A block's continuation lines keep the block's time for sorting; print
 * rows in order. */
static void print_rows(struct rows *R, FILE *out)
{
	qsort(R->r, R->n, sizeof(*R->r), row_cmp);
	for (size_t i = 0; i < R->n; i++) {
		const struct row *w = &R->r[i];
		char tm[32] = "";
		if (w->timed)
			snprintf(tm, sizeof(tm), "%8.3f", (double)w->t / 1e6);
		char line[256];
		if (w->right[0])
			snprintf(line, sizeof(line), "%8s  %-*s%s", tm, LEFT_WIDTH, w->left, w->right);
		else
			snprintf(line, sizeof(line), "%8s  %s", tm, w->left);
		size_t n = strlen(line);
		while (n && line[n - 1] == ' ')
			line[--n] = 0;
		fprintf(out, "%s\n", line);
	}
}

/* ---- the analysis ----------------------------------------------------------- */

struct tl {
	const struct sim *s;
	const struct trace_buf *t;
	const struct trace_event *pass;
	int scan_pid, mm;
	int *pid_mm;              /* by pid - pid_min: mm index, or -1 */
	int pid_min, pid_max;
	/* the pass's PTE tables, in order */
	const struct trace_event **table;
	int nr_tables;
	/* the migrations shown or counted: indexes into t->ev */
	struct story {
		const struct trace_event *m, *hint, *batch, *flush;
		int seg;              /* table segment (0: before table 1) */
		int64_t t0;           /* its first line's time */
	} *st;
	int nr_st;
};

static int mm_of(const struct tl *L, int pid)
{
	if (pid < L->pid_min || pid > L->pid_max)
		return -1;
	return L->pid_mm[pid - L->pid_min];
}

static int64_t rel(const struct tl *L, uint64_t ts)
{
	return (int64_t)ts - (int64_t)L->pass->ts;
}

static uint64_t span_end(const struct trace_event *e) { return e->ts + e->dur; }

/* The pass's table (1-based) holding @addr, or 0. */
static int table_of(const struct tl *L, int64_t addr)
{
	uint64_t base = (uint64_t)addr & ~(PMD_SIZE - 1);
	for (int k = 0; k < L->nr_tables; k++)
		if (((uint64_t)L->table[k]->a & ~(PMD_SIZE - 1)) == base)
			return k + 1;
	return 0;
}

/* The segment (0..nr_tables) a time falls in: k while table k is changed
 * and until table k+1 starts; 0 before table 1. */
static int segment_of(const struct tl *L, uint64_t ts)
{
	int lo = 0, hi = L->nr_tables; /* first table starting after ts */
	while (lo < hi) {
		int mid = (lo + hi) / 2;
		if (L->table[mid]->ts <= ts)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo;
}

static int cmp_ts(const void *pa, const void *pb)
{
	const struct trace_event *a = *(const struct trace_event *const *)pa;
	const struct trace_event *b = *(const struct trace_event *const *)pb;
	if (a->ts != b->ts)
		return a->ts < b->ts ? -1 : 1;
	return a < b ? -1 : a > b;
}

static int cmp_story(const void *pa, const void *pb)
{
	const struct story *a = pa, *b = pb;
	if (a->t0 != b->t0)
		return a->t0 < b->t0 ? -1 : 1;
	return a->m < b->m ? -1 : a->m > b->m;
}

static const char *plural(long n, const char *one, const char *many)
{
	return n == 1 ? one : many;
}

/* "IPI to 15 CPUs" for a round's target count. */
static void ipi_text(char *buf, size_t len, int64_t n)
{
	if (n > 0)
		snprintf(buf, len, "IPI to %lld %s", (long long)n, plural((long)n, "CPU", "CPUs"));
	else
		snprintf(buf, len, "no IPI (no other CPU)");
}

/* How a flush that left no flush round went: only x86 IPI rounds
 * (flush_tlb_multi) are traced; broadcasts and riscv's SBI calls are not. */
static const char *untraced_flush(const struct sim *s)
{
	switch (s->m.engine) {
	case FLUSH_X86_IPI: return "local only";
	case FLUSH_X86_INVLPGB: return "INVLPGB broadcast or local";
	case FLUSH_ARM64: return "TLBI broadcast";
	default: return "not traced on this machine";
	}
}

/* Find the passes: all TR_SCAN_PASS events, by time. */
static int find_passes(const struct trace_buf *t, const struct trace_event ***out)
{
	int n = 0;
	for (size_t i = 0; i < t->n; i++)
		n += t->ev[i].type == TR_SCAN_PASS;
	const struct trace_event **p = malloc((size_t)(n ? n : 1) * sizeof(*p));
	if (!p)
		return -1;
	n = 0;
	for (size_t i = 0; i < t->n; i++)
		if (t->ev[i].type == TR_SCAN_PASS)
			p[n++] = &t->ev[i];
	qsort(p, (size_t)n, sizeof(*p), cmp_ts);
	*out = p;
	return n;
}

static bool overlaps(const struct trace_event *e, const struct trace_event *pass)
{
	return e->ts < span_end(pass) && span_end(e) > pass->ts;
}

/* Collect the pass's tables and the migrations overlapping it, with the
 * hint fault before each and the batch and flush inside it. */
static int collect(struct tl *L)
{
	const struct trace_buf *t = L->t;
	const struct trace_event *P = L->pass;
	int nt = 0, nm = 0;
	for (size_t i = 0; i < t->n; i++) {
		const struct trace_event *e = &t->ev[i];
		if (e->type == TR_PTE_TABLE && e->pid == L->scan_pid && e->ts >= P->ts &&
		    span_end(e) <= span_end(P))
			nt++;
		if (e->type == TR_MIGRATION && mm_of(L, e->pid) == L->mm && overlaps(e, P))
			nm++;
	}
	L->table = malloc((size_t)(nt ? nt : 1) * sizeof(*L->table));
	L->st = calloc((size_t)(nm ? nm : 1), sizeof(*L->st));
	int span = L->pid_max - L->pid_min + 1;
	const struct trace_event **hint = calloc((size_t)span, sizeof(*hint));
	const struct trace_event **batch = calloc((size_t)span, sizeof(*batch));
	const struct trace_event **flush = calloc((size_t)span, sizeof(*flush));
	if (!L->table || !L->st || !hint || !batch || !flush) {
		free(hint);
		free(batch);
		free(flush);
		return -1;
	}
	for (size_t i = 0; i < t->n; i++) {
		const struct trace_event *e = &t->ev[i];
		if (e->type == TR_PTE_TABLE && e->pid == L->scan_pid && e->ts >= P->ts &&
		    span_end(e) <= span_end(P))
			L->table[L->nr_tables++] = e;
		if (mm_of(L, e->pid) != L->mm)
			continue;
		int k = e->pid - L->pid_min;
		/* a thread's records come in the order it ran them: the last
		 * migrating hint fault, batch and flush before a migration's
		 * record are its own */
		switch (e->type) {
		case TR_HINT_FAULT:
			if (e->c != NUMA_NO_NODE)
				hint[k] = e;
			break;
		case TR_BATCH_RECORDED:
			batch[k] = e;
			break;
		case TR_FLUSH_ROUND:
			if (e->c == FLUSH_FROM_BATCH || e->c == FLUSH_FROM_PTEP_CLEAR)
				flush[k] = e;
			break;
		case TR_MIGRATION:
			if (!overlaps(e, P))
				break;
			{
				struct story *s = &L->st[L->nr_st++];
				s->m = e;
				s->hint = hint[k] && span_end(hint[k]) <= e->ts ? hint[k] : NULL;
				s->batch = batch[k] && batch[k]->ts >= e->ts && batch[k]->ts <= span_end(e)
						   ? batch[k] : NULL;
				s->flush = flush[k] && flush[k]->ts >= e->ts && flush[k]->ts <= span_end(e)
						   ? flush[k] : NULL;
				s->t0 = rel(L, s->hint ? s->hint->ts : e->ts);
			}
			break;
		default:
			break;
		}
	}
	free(hint);
	free(batch);
	free(flush);
	qsort(L->table, (size_t)L->nr_tables, sizeof(*L->table), cmp_ts);
	for (int i = 0; i < L->nr_st; i++)
		L->st[i].seg = segment_of(L, (uint64_t)((int64_t)P->ts + L->st[i].t0));
	qsort(L->st, (size_t)L->nr_st, sizeof(*L->st), cmp_story);
	return 0;
}

/* Whether table @k (1-based) is shown in full. */
static bool table_shown(const struct tl *L, int k)
{
	return L->nr_tables <= FULL_TABLES_HEAD + 2 || k <= FULL_TABLES_HEAD || k == L->nr_tables;
}

/* A story's blocks get consecutive groups from @grp, so that its lines at
 * the same nanosecond keep their order. */
static void story_rows(const struct tl *L, struct rows *R, const struct story *s, uint64_t grp)
{
	const struct sim *sim = L->s;
	const struct trace_event *m = s->m;
	char pre[24], ipi[48];
	snprintf(pre, sizeof(pre), "CPU %d: ", m->cpu);
	if (s->hint) {
		int k = table_of(L, s->hint->a);
		char where[64];
		if (k)
			snprintf(where, sizeof(where), "table %d", k);
		else
			snprintf(where, sizeof(where), "a page outside this pass");
		block(R, rel(L, s->hint->ts), 1, grp++, false, pre,
		      "hint fault on %s (node %lld->%lld)\ndo_numa_page -> migrate_misplaced_folio",
		      where, (long long)s->hint->b, (long long)s->hint->c);
	}
	const char *pte = "PROT_NONE";
	const char *noflush = s->batch || s->flush ? "" : ",\n  no flush";
	if (!sim->k.numa_delay_mapping) /* v5.12: the fault remapped the PTE first */
		block(R, rel(L, m->ts), 1, grp++, false, pre,
		      "try_to_migrate_one: present PTE\n  -> accessible%s", noflush);
	else if (m->d)
		block(R, rel(L, m->ts), 1, grp++, false, pre,
		      "try_to_migrate_one: %s, but\n  pending set -> accessible%s", pte, noflush);
	else if (s->batch || s->flush) /* no pending: the PTE itself was present */
		block(R, rel(L, m->ts), 1, grp++, false, pre,
		      "try_to_migrate_one: present PTE\n  -> accessible");
	else
		block(R, rel(L, m->ts), 1, grp++, false, pre,
		      "try_to_migrate_one: %s,\n  pending clear -> not accessible%s", pte, noflush);
	if (s->batch)
		block(R, rel(L, s->batch->ts), 1, grp++, false, pre, "tlb_flush_batched++");
	if (s->flush) {
		ipi_text(ipi, sizeof(ipi), s->flush->a);
		if (s->flush->c == FLUSH_FROM_BATCH)
			block(R, rel(L, s->flush->ts), 1, grp, false, pre,
			      "try_to_unmap_flush: %s flush,\n  %s",
			      s->flush->b < 0 ? "full" : "range", ipi);
		else
			block(R, rel(L, s->flush->ts), 1, grp, false, pre,
			      "ptep_clear_flush: %lld-page flush,\n  %s", (long long)
			      (s->flush->b < 0 ? 1 : s->flush->b), ipi);
	} else if (s->batch) {
		block(R, rel(L, s->batch->ts), 1, grp, false, pre, "try_to_unmap_flush: full flush,\n  %s",
		      untraced_flush(sim));
	}
}

struct tally {
	long migrations, pending, batches, batch_flushes, ptep_flushes;
	int64_t ipis;
};

static void tally_story(struct tally *y, const struct story *s)
{
	y->migrations++;
	y->pending += s->m->d != 0;
	y->batches += s->batch != NULL;
	if (s->flush) {
		if (s->flush->c == FLUSH_FROM_BATCH)
			y->batch_flushes++;
		else
			y->ptep_flushes++;
		y->ipis += s->flush->a;
	} else if (s->batch) {
		y->batch_flushes++; /* a broadcast or local-only flush: no round traced */
	}
}

/* "P saw pending, B full flushes\n  (try_to_unmap_flush), I IPIs" */
static void tally_text(char *buf, size_t len, const struct tally *y)
{
	int n = snprintf(buf, len, "  %ld saw pending", y->pending);
	if (y->batch_flushes && n > 0 && (size_t)n < len)
		n += snprintf(buf + n, len - (size_t)n, ", %ld full %s\n  (try_to_unmap_flush)",
			      y->batch_flushes, plural(y->batch_flushes, "flush", "flushes"));
	if (y->ptep_flushes && n > 0 && (size_t)n < len)
		n += snprintf(buf + n, len - (size_t)n, ", %ld 1-page %s\n  (ptep_clear_flush)",
			      y->ptep_flushes, plural(y->ptep_flushes, "flush", "flushes"));
	if (n > 0 && (size_t)n < len)
		snprintf(buf + n, len - (size_t)n, ", %lld IPIs", (long long)y->ipis);
}

/* The scanner's flush rounds inside @e (a table or the gather), of @origin. */
static const struct trace_event *round_in(const struct tl *L, const struct trace_event *e,
					  int origin)
{
	const struct trace_buf *t = L->t;
	for (size_t i = (size_t)(e - t->ev); i-- > 0;) {
		const struct trace_event *f = &t->ev[i];
		if (span_end(f) < e->ts && f->type == TR_PTE_TABLE)
			break;
		if (f->type == TR_FLUSH_ROUND && f->pid == L->scan_pid && f->c == origin &&
		    f->ts >= e->ts && span_end(f) <= span_end(e))
			return f;
	}
	return NULL;
}

static void table_rows(const struct tl *L, struct rows *R, int k, uint64_t *grp)
{
	const struct trace_event *e = L->table[k - 1];
	char ipi[48];
	block(R, rel(L, e->ts), 0, (*grp)++, true, "", "change_pte_range(table %d): %.3f ms", k,
	      (double)e->dur / 1e6);
	uint64_t after = e->ts;
	if (e->c) {
		const struct trace_event *f = round_in(L, e, FLUSH_FROM_SCANNER_PENDING);
		if (f) {
			ipi_text(ipi, sizeof(ipi), f->a);
			block(R, rel(L, f->ts), 0, (*grp)++, true, "  ",
			      "flush_tlb_batched_pending:\n  pending != flushed -> flush_tlb_mm,\n  %s",
			      ipi);
			after = span_end(f);
		} else {
			block(R, rel(L, e->ts), 0, (*grp)++, true, "  ",
			      "flush_tlb_batched_pending:\n  pending != flushed -> flush_tlb_mm,\n  %s",
			      untraced_flush(L->s));
		}
	}
	block(R, rel(L, after), 0, (*grp)++, true, "  ", "PTEs -> PROT_NONE (%lld)", (long long)e->b);
}

/* The tables between the head and the last one, in two summary blocks. */
static void middle_rows(const struct tl *L, struct rows *R, uint64_t *grp)
{
	int from = FULL_TABLES_HEAD + 1, to = L->nr_tables - 1;
	long flushing = 0, ptes = 0;
	int64_t ipi_min = -1, ipi_max = -1;
	for (int k = from; k <= to; k++) {
		const struct trace_event *e = L->table[k - 1];
		ptes += (long)e->b;
		if (!e->c)
			continue;
		flushing++;
		const struct trace_event *f = round_in(L, e, FLUSH_FROM_SCANNER_PENDING);
		int64_t n = f ? f->a : 0;
		if (ipi_min < 0 || n < ipi_min)
			ipi_min = n;
		if (n > ipi_max)
			ipi_max = n;
	}
	struct tally y = { 0 };
	for (int i = 0; i < L->nr_st; i++)
		if (L->st[i].seg >= from && L->st[i].seg <= to)
			tally_story(&y, &L->st[i]);
	char fl[160], ty[256];
	if (flushing && ipi_min == ipi_max)
		snprintf(fl, sizeof(fl), "%ld of them flushing the mm\n  (flush_tlb_mm, IPI to %lld CPUs each)",
			 flushing, (long long)ipi_max);
	else if (flushing)
		snprintf(fl, sizeof(fl), "%ld of them flushing the mm\n  (flush_tlb_mm, IPI to %lld-%lld CPUs)",
			 flushing, (long long)ipi_min, (long long)ipi_max);
	else
		snprintf(fl, sizeof(fl), "none of them flushing the mm");
	tally_text(ty, sizeof(ty), &y);
	int64_t t0 = rel(L, L->table[from - 1]->ts);
	double ms = (double)(L->table[to - 1]->ts + L->table[to - 1]->dur - L->table[from - 1]->ts) / 1e6;
	uint64_t g = (*grp)++;
	block(R, t0, 0, g, true, "",
	      "... %d more tables (%d-%d) in %.3f ms,\n  %s,\n  %ld PTEs -> PROT_NONE ...",
	      to - from + 1, from, to, ms, fl, ptes);
	block(R, t0, 1, g, false, "", "... meanwhile %ld %s:\n%s ...", y.migrations,
	      plural(y.migrations, "migration", "migrations"), ty);
}

static void pass_rows(struct tl *L, struct rows *R)
{
	const struct trace_buf *t = L->t;
	const struct trace_event *P = L->pass;
	uint64_t grp = 0;
	char ipi[48];

	/* scanner: gathers, skipped VMAs, tables */
	for (size_t i = 0; i < t->n; i++) {
		const struct trace_event *e = &t->ev[i];
		if (e->pid != L->scan_pid || e->ts < P->ts || span_end(e) > span_end(P))
			continue;
		if (e->type == TR_GATHER) {
			block(R, rel(L, e->ts), 0, grp++, true, "", "tlb_gather_mmu: pending++");
			const struct trace_event *f = round_in(L, e, FLUSH_FROM_GATHER);
			if (f) {
				ipi_text(ipi, sizeof(ipi), f->a);
				block(R, rel(L, f->ts), 0, grp++, true, "",
				      "tlb_finish_mmu: %s flush,\n  %s", f->b < 0 ? "full" : "range", ipi);
			}
			block(R, rel(L, span_end(e)), 0, grp++, true, "", "tlb_finish_mmu: pending--");
		} else if (e->type == TR_SKIP_VMA) {
			block(R, rel(L, e->ts), 0, grp++, true, "", "skip VMA %llx-%llx:\n  %s",
			      (unsigned long long)e->b, (unsigned long long)e->c,
			      trace_skip_reason_name(e->d));
		}
	}
	block(R, rel(L, span_end(P)), 0, UINT64_MAX, true, "", "task_numa_work: pass done");
	bool middle = false;
	for (int k = 1; k <= L->nr_tables; k++) {
		if (table_shown(L, k)) {
			table_rows(L, R, k, &grp);
		} else if (!middle) {
			middle_rows(L, R, &grp);
			middle = true;
		}
	}

	/* workload: per shown segment, the first stories in full, the rest counted */
	for (int seg = 0; seg <= L->nr_tables; seg++) {
		if (seg && !table_shown(L, seg))
			continue;
		int shown = 0;
		struct tally y = { 0 };
		for (int i = 0; i < L->nr_st; i++) {
			const struct story *s = &L->st[i];
			if (s->seg != seg)
				continue;
			if (shown < STORIES_PER_TABLE) {
				story_rows(L, R, s, (1ull << 32) + 8 * (uint64_t)i);
				shown++;
			} else {
				tally_story(&y, s);
			}
		}
		if (!y.migrations)
			continue;
		char ty[256];
		tally_text(ty, sizeof(ty), &y);
		/* at the end of the segment: before the next shown table */
		int64_t at = seg < L->nr_tables ? rel(L, L->table[seg]->ts) : rel(L, span_end(P));
		char until[32];
		if (seg < L->nr_tables)
			snprintf(until, sizeof(until), "before table %d", seg + 1);
		else
			snprintf(until, sizeof(until), "until the pass ends");
		size_t before = R->n;
		block(R, at, -1, (uint64_t)seg, false, "", "... %ld more %s %s:\n%s ...", y.migrations,
		      plural(y.migrations, "migration", "migrations"), until, ty);
		for (size_t j = before; j < R->n; j++)
			R->r[j].timed = false;
	}
}

/* The pass's totals. */
static void summary(const struct tl *L, FILE *out)
{
	const struct trace_buf *t = L->t;
	const struct trace_event *P = L->pass;
	long gathers = 0, ptes = 0, cpr_flush = 0, gather_flush = 0, cpr_rounds = 0;
	int64_t ipi_scan = 0, ipi_migr = 0, ipi_other = 0;
	for (size_t i = 0; i < t->n; i++) {
		const struct trace_event *e = &t->ev[i];
		if (mm_of(L, e->pid) != L->mm)
			continue;
		if (e->pid == L->scan_pid && e->ts >= P->ts && span_end(e) <= span_end(P)) {
			if (e->type == TR_GATHER)
				gathers++;
			if (e->type == TR_PTE_TABLE) {
				ptes += (long)e->b;
				cpr_flush += e->c != 0;
			}
		}
		if (e->type == TR_FLUSH_ROUND && e->ts >= P->ts && e->ts < span_end(P)) {
			if (e->pid == L->scan_pid) {
				ipi_scan += e->a;
				cpr_rounds += e->c == FLUSH_FROM_SCANNER_PENDING;
				gather_flush += e->c == FLUSH_FROM_GATHER;
			} else if (e->c == FLUSH_FROM_BATCH || e->c == FLUSH_FROM_PTEP_CLEAR) {
				ipi_migr += e->a;
			} else {
				ipi_other += e->a;
			}
		}
	}
	struct tally y = { 0 };
	for (int i = 0; i < L->nr_st; i++)
		tally_story(&y, &L->st[i]);
	fprintf(out, "\npass: %.3f ms, %d PTE %s in %ld mmu_%s, %ld PTEs -> PROT_NONE\n",
		(double)P->dur / 1e6, L->nr_tables, plural(L->nr_tables, "table", "tables"), gathers,
		plural(gathers, "gather", "gathers"), ptes);
	fprintf(out, "scanner: %ld flush_tlb_mm from change_pte_range (flush_tlb_batched_pending),\n"
		"  %ld of them with IPIs; %ld IPI %s from tlb_finish_mmu; %lld IPIs\n", cpr_flush,
		cpr_rounds, gather_flush, plural(gather_flush, "round", "rounds"), (long long)ipi_scan);
	fprintf(out, "migrations overlapping the pass: %ld, %ld saw tlb_flush_pending (%.1f%%);\n"
		"  %ld recorded a batch (tlb_flush_batched++), %ld full %s (try_to_unmap_flush),\n"
		"  %ld 1-page %s (ptep_clear_flush); %lld IPIs\n", y.migrations, y.pending,
		y.migrations ? 100.0 * (double)y.pending / (double)y.migrations : 0.0, y.batches,
		y.batch_flushes, plural(y.batch_flushes, "flush", "flushes"), y.ptep_flushes,
		plural(y.ptep_flushes, "flush", "flushes"), (long long)y.ipis);
	fprintf(out, "IPIs sent during the pass: %lld (scanner %lld, migrations %lld",
		(long long)(ipi_scan + ipi_migr + ipi_other), (long long)ipi_scan, (long long)ipi_migr);
	if (ipi_other)
		fprintf(out, ", other %lld", (long long)ipi_other);
	fprintf(out, ")%s\n", L->s->m.engine == FLUSH_X86_IPI ? ""
			       : "; broadcast flushes send none and are not traced");

	/* A migration that unmapped while a gather was open (as traced) yet saw
	 * no pending flush: the model ran the chunk's last table and
	 * tlb_finish_mmu in one step, which drops pending at the step's start. */
	long clear_inside = 0;
	int64_t last_start = -1;
	for (size_t i = 0; i < t->n; i++) {
		const struct trace_event *g = &t->ev[i];
		if (g->type != TR_GATHER || g->pid != L->scan_pid || g->ts < P->ts ||
		    span_end(g) > span_end(P))
			continue;
		for (int k = 0; k < L->nr_tables; k++)
			if (L->table[k]->ts >= g->ts && span_end(L->table[k]) <= span_end(g))
				last_start = rel(L, L->table[k]->ts);
		for (int j = 0; j < L->nr_st; j++) {
			const struct trace_event *m = L->st[j].m;
			clear_inside += !m->d && m->ts >= g->ts && m->ts < span_end(g);
		}
	}
	if (clear_inside)
		fprintf(out, "note: %ld %s unmapped inside the mmu_gather's traced time but saw "
			"pending clear:\n  a model step applies its state changes when it starts "
			"(last step from %.3f ms)\n",
			clear_inside, plural(clear_inside, "migration", "migrations"),
			(double)last_start / 1e6);
}

static int analyse(const struct sim *s, const struct scenario *sc, long want, FILE *out)
{
	const struct trace_buf *t = s->e.trace;
	struct tl L = { .s = s, .t = t };
	L.pid_min = INT32_MAX;
	L.pid_max = INT32_MIN;
	for (int i = 0; i < s->nr_tasks; i++) {
		if (s->tasks[i].pid < L.pid_min)
			L.pid_min = s->tasks[i].pid;
		if (s->tasks[i].pid > L.pid_max)
			L.pid_max = s->tasks[i].pid;
	}
	if (s->nr_tasks == 0) {
		fprintf(stderr, "numasim timeline: the scenario has no threads\n");
		return 1;
	}
	L.pid_mm = malloc((size_t)(L.pid_max - L.pid_min + 1) * sizeof(*L.pid_mm));
	const struct trace_event **passes = NULL;
	int np = L.pid_mm ? find_passes(t, &passes) : -1;
	if (np < 0) {
		free(L.pid_mm);
		fprintf(stderr, "numasim timeline: out of memory\n");
		return 1;
	}
	for (int i = 0; i <= L.pid_max - L.pid_min; i++)
		L.pid_mm[i] = -1;
	for (int i = 0; i < s->nr_tasks; i++)
		L.pid_mm[s->tasks[i].pid - L.pid_min] = s->tasks[i].mm->id;

	/* the passes after the first that a migration of their mm overlapped */
	long found = 0;
	int pick = -1;
	for (int i = 1; i < np && pick < 0; i++) {
		const struct trace_event *P = passes[i];
		int mm = mm_of(&L, P->pid);
		for (size_t j = 0; j < t->n; j++) {
			const struct trace_event *e = &t->ev[j];
			if (e->type == TR_MIGRATION && mm_of(&L, e->pid) == mm && overlaps(e, P)) {
				if (++found == want)
					pick = i;
				break;
			}
		}
	}
	int rc = 0;
	if (pick < 0) {
		fprintf(stderr, "numasim timeline: %ld scan %s in %g s, %ld after the first overlapped "
			"by a hint-fault migration; no pass %ld: try a longer --duration\n",
			(long)np, plural(np, "pass", "passes"), (double)s->duration_ns / 1e9, found, want);
		rc = 1;
		goto out;
	}
	L.pass = passes[pick];
	L.scan_pid = L.pass->pid;
	L.mm = mm_of(&L, L.scan_pid);
	struct rows R = { 0 };
	if (collect(&L)) {
		fprintf(stderr, "numasim timeline: out of memory\n");
		rc = 1;
		goto out;
	}
	pass_rows(&L, &R);
	if (R.oom) {
		fprintf(stderr, "numasim timeline: out of memory\n");
		rc = 1;
		free(R.r);
		goto out;
	}
	const struct trace_event *P = L.pass;
	fprintf(out, "numasim timeline: scenario %s, kernel %s, seed %llu\n", sc->name, s->k.name,
		(unsigned long long)s->seed);
	fprintf(out, "scan pass %d of the run, pass %ld after the first that hint-fault migrations "
		"overlapped:\npid %d on CPU %d, mm %d, at %.6f s for %.3f ms; times in ms since the "
		"pass began\n\n", pick + 1, want, L.scan_pid, P->cpu, L.mm, (double)P->ts / 1e9,
		(double)P->dur / 1e6);
	char head[64];
	snprintf(head, sizeof(head), "CPU %d (task_numa_work)", P->cpu);
	fprintf(out, "%8s  %-*s%s\n", "ms", LEFT_WIDTH, head, "other CPUs (workload threads)");
	print_rows(&R, out);
	summary(&L, out);
	free(R.r);
out:
	free(L.table);
	free(L.st);
	free(L.pid_mm);
	free(passes);
	return rc;
}

int cmd_timeline(int argc, char **argv)
{
	char err[2048];
	struct tl_args a = { .pass = 1 };
	a.opt = calloc((size_t)argc + 1, sizeof(*a.opt));
	a.val = calloc((size_t)argc + 1, sizeof(*a.val));
	struct scenario *sc = malloc(sizeof(*sc));
	struct sim *s = calloc(1, sizeof(*s));
	int rc = a.opt && a.val && sc && s ? parse_args(argc, argv, &a) : 1;
	if (rc == 0 && prepare(&a, sc, s, err, sizeof(err))) {
		cli_error("numasim timeline: ", err);
		rc = EXIT_INPUT;
	}
	if (rc == 0) {
		if (sim_init(s, err, sizeof(err))) {
			cli_error("numasim timeline: ", err);
			rc = 1;
		} else {
			uint32_t mask = TRACE_ALL & ~((1u << TR_TLB_FLUSH) | (1u << TR_MIGRATE_START) |
						      (1u << TR_MIGRATE_PAGES) |
						      (1u << TR_SET_MIGRATION_PTE) |
						      (1u << TR_REMOVE_MIGRATION_PTE));
			s->e.trace = trace_new(0, UINT64_MAX, mask, TIMELINE_MAX_EVENTS);
			if (!s->e.trace) {
				fprintf(stderr, "numasim timeline: out of memory\n");
				rc = 1;
			} else {
				s->progress = !a.quiet && isatty(STDERR_FILENO);
				s->progress_out = stderr;
				sim_run(s);
				if (s->e.trace->dropped)
					fprintf(stderr, "numasim timeline: warning: %llu trace events "
						"dropped (buffer full); try a shorter --duration\n",
						(unsigned long long)s->e.trace->dropped);
				rc = analyse(s, sc, a.pass, stdout);
				if (fflush(stdout) != 0 || ferror(stdout)) {
					fprintf(stderr, "numasim timeline: cannot write to stdout\n");
					rc = 1;
				}
			}
			sim_free(s);
		}
	}
	free(a.opt);
	free(a.val);
	free(sc);
	free(s);
	return rc;
}
