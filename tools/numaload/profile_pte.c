/* numaload profile: what mprotect costs per PTE, as change_pte_range pays
 * it when the NUMA scanner makes a range PROT_NONE.
 *
 * pte_update_ns: a populated range of 4 KiB pages (THP off for it) made
 * PROT_NONE; the time over the number of PTEs.  The per-table work
 * (pte_table_ns) and the one flush are spread over 512 PTEs a table, so
 * they add a few ns at most.
 * pte_skip_ns: the same range after MADV_DONTNEED, so its page tables are
 * there but every PTE is none: each is looked at and skipped.  A kernel
 * that frees empty page tables on MADV_DONTNEED (CONFIG_PT_RECLAIM) skips
 * whole tables instead, and the figure then reads near zero: it is written
 * only above 0.5 ns a PTE (a real skip reads
 * the PTE and tests it: a few cycles). */
#define _GNU_SOURCE
#include "profile.h"

#include <errno.h>
#include <string.h>
#include <sys/mman.h>

#define PAGE 4096u

/* ns per PTE of one mprotect of @len bytes at @buf to @prot. */
static double time_mprotect(char *buf, size_t len, int prot)
{
	uint64_t t0 = nl_now_ns();
	if (mprotect(buf, len, prot))
		return -1;
	return (double)(nl_now_ns() - t0) / (double)(len / PAGE);
}

static void populate(char *buf, size_t len)
{
	for (size_t off = 0; off < len; off += PAGE)
		buf[off] = 1;
}

void nl_prof_pte(struct nl_profile *p, const struct nl_prof_opts *o)
{
	struct nl_figure *fu = &p->fig[NLF_PTE_UPDATE], *fs = &p->fig[NLF_PTE_SKIP];
	size_t len = (o->quick ? 32u : 256u) << 20;
	double upd[NL_PROF_MAX_TRIALS], skip[NL_PROF_MAX_TRIALS];
	int rw = PROT_READ | PROT_WRITE;
	char *buf = mmap(NULL, len, rw, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (buf == MAP_FAILED) {
		nl_fig_skip(fu, "mmap of %zu MiB: %s", len >> 20, strerror(errno));
		nl_fig_skip(fs, "mmap failed");
		return;
	}
	madvise(buf, len, MADV_NOHUGEPAGE); /* 4 KiB PTEs, as the model's */
	populate(buf, len);
	int t;
	for (t = 0; t < o->trials; t++) {
		upd[t] = time_mprotect(buf, len, PROT_NONE);
		if (upd[t] < 0 || time_mprotect(buf, len, rw) < 0)
			break;
	}
	if (t < o->trials)
		nl_fig_skip(fu, "mprotect: %s", strerror(errno));
	else
		nl_fig_set(fu, upd, t, "mprotect(PROT_NONE) of a populated range of 4 KiB pages, "
			   "ns per PTE (includes the per-table work and one flush)");
	madvise(buf, len, MADV_DONTNEED);
	for (t = 0; t < o->trials; t++) {
		skip[t] = time_mprotect(buf, len, PROT_NONE);
		if (skip[t] < 0 || time_mprotect(buf, len, rw) < 0)
			break;
	}
	munmap(buf, len);
	if (t < o->trials) {
		nl_fig_skip(fs, "mprotect: %s", strerror(errno));
		return;
	}
	nl_fig_set(fs, skip, t, "mprotect(PROT_NONE) of the range after MADV_DONTNEED (tables "
		   "kept, PTEs none), ns per PTE");
	if (fs->st.median < 0.5) {
		fs->clean = false;
		snprintf(fs->why, sizeof(fs->why), "not meaningful: %.3f ns per PTE: the empty "
			 "page tables were likely freed by MADV_DONTNEED (CONFIG_PT_RECLAIM) and "
			 "skipped whole; reported only", fs->st.median);
	}
}
