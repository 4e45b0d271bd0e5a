/* numaload profile: what refilling the TLB costs after a full flush, per
 * page of the working set.
 *
 * A loop touches one line in each of K pages (4 KiB, populated, THP off),
 * first with the TLB warm, then right after a full flush of this CPU's TLB:
 * an mprotect RW->RO of 64 other pages, above x86's single-page flush
 * ceiling (33), so flush_tlb_mm_range flushes all.  (refill - warm) / K is
 * one TLB miss's walk.  Its page-table lines are mostly in the caches here,
 * where numasim's page_walk_ns is a walk whose PTE load misses them, so it
 * is reported (with the raw curve, and whether the per-page estimate holds
 * across K: within 1.5x, all positive) as a lower bound, never written as
 * page_walk_ns. */
#define _GNU_SOURCE
#include "profile.h"

#include <errno.h>
#include <string.h>
#include <sys/mman.h>

#define PAGE 4096u
#define FLUSH_PAGES 64

/* One line in each of @k pages, the line moving with the page so the
 * touches do not all fall in one cache set. */
static unsigned touch(volatile char *buf, int k)
{
	unsigned sum = 0;
	for (int i = 0; i < k; i++)
		sum += (unsigned char)buf[(size_t)i * PAGE + (size_t)(i % 64) * 64];
	return sum;
}

/* Where the touches' sum goes, so the loads are not optimised away. */
static volatile unsigned touch_sink;

static int full_flush(char *fl)
{
	if (mprotect(fl, FLUSH_PAGES * PAGE, PROT_READ) ||
	    mprotect(fl, FLUSH_PAGES * PAGE, PROT_READ | PROT_WRITE))
		return -1;
	return 0;
}

/* ns per page of the refill over the warm pass, averaged over @reps. */
static double refill_per_page(char *buf, char *fl, int k, int reps)
{
	uint64_t warm = 0, cold = 0;
	for (int r = 0; r < reps; r++) {
		touch_sink += touch(buf, k);
		uint64_t t0 = nl_now_ns();
		touch_sink += touch(buf, k);
		uint64_t t1 = nl_now_ns();
		if (full_flush(fl))
			return -1e9;
		uint64_t t2 = nl_now_ns();
		touch_sink += touch(buf, k);
		uint64_t t3 = nl_now_ns();
		warm += t1 - t0;
		cold += t3 - t2;
	}
	return ((double)cold - (double)warm) / reps / k;
}

static void judge(struct nl_figure *f)
{
	double lo = f->curve.y[0].median, hi = lo;
	for (int i = 1; i < f->curve.n; i++) {
		double m = f->curve.y[i].median;
		lo = m < lo ? m : lo;
		hi = m > hi ? m : hi;
	}
	f->clean = lo > 0 && hi <= 1.5 * lo;
	snprintf(f->why, sizeof(f->why), "(touch after a full flush - warm touch) / pages, at "
		 "the largest working set; walks mostly hitting the caches, so a lower bound of "
		 "page_walk_ns, reported only; %s",
		 f->clean ? "steady across working sets (within 1.5x)"
			  : "NOT steady across working sets (the curve varies more than 1.5x or is "
			    "not positive)");
}

void nl_prof_tlb(struct nl_profile *p, const struct nl_prof_opts *o)
{
	static const int quick_k[] = { 64, 256, 1024 }, full_k[] = { 32, 64, 128, 256, 512, 1024 };
	const int *ks = o->quick ? quick_k : full_k;
	int nk = o->quick ? 3 : 6, kmax = ks[nk - 1], reps = o->quick ? 10 : 50;
	struct nl_figure *f = &p->fig[NLF_PAGE_WALK];
	size_t len = (size_t)(kmax + FLUSH_PAGES) * PAGE;
	char *buf = mmap(NULL, len, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (buf == MAP_FAILED) {
		nl_fig_skip(f, "mmap: %s", strerror(errno));
		return;
	}
	madvise(buf, len, MADV_NOHUGEPAGE);
	for (size_t off = 0; off < len; off += PAGE)
		buf[off] = 1;
	nl_pin(p->cpus[0]);
	char *fl = buf + (size_t)kmax * PAGE;
	double v[NL_PROF_MAX_TRIALS];
	f->has_curve = true;
	f->curve.x_name = "pages";
	f->curve.n = nk;
	for (int i = 0; i < nk; i++) {
		for (int t = 0; t < o->trials; t++)
			if ((v[t] = refill_per_page(buf, fl, ks[i], reps)) < -1e8) {
				nl_fig_skip(f, "mprotect: %s", strerror(errno));
				munmap(buf, len);
				return;
			}
		f->curve.x[i] = ks[i];
		nl_stat_of(v, o->trials, &f->curve.y[i]);
	}
	munmap(buf, len);
	nl_fig_set(f, v, o->trials, ""); /* the largest working set's trials */
	judge(f);
}
