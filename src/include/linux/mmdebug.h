/* Debugging checks of the modelled mm, after include/linux/mmdebug.h.
 *
 * VM_BUG_ON(cond) states what must hold at the line where it must hold:
 * with CONFIG_DEBUG_VM (make BUILD=debug) a true @cond stops the run with
 * the condition, the source line and the simulated time; otherwise the
 * macro compiles away (the condition is type-checked, never evaluated), as
 * in the kernel.  VM_BUG_ON_MM adds the mm, VM_BUG_ON_FOLIO the folio;
 * VM_WARN_ON / VM_WARN_ON_ONCE only print.
 *
 * The full-state checker (mm/debug.c) is the other half: at a fixed
 * interval of simulated time and at the end of a run it compares every
 * derived count with what it counts (mapcounts with PTEs, PROT_NONE
 * bitmaps with PTEs, tlb_flush_pending with open gathers, node free pages
 * with placed pages, TLB generations).  It runs in every run of a debug
 * build, and in any build with `numasim run --check`. */
#ifndef NUMASIM_MMDEBUG_H
#define NUMASIM_MMDEBUG_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "linux/mm_types.h"

struct sim;

/* Report a failed check and stop (abort: a debugger or a sanitizer gets the
 * stack).  @what is the condition's text; @mm or @folio, when given, are
 * printed too; the simulated time is that of the run on this thread. */
_Noreturn void vm_bug(const char *file, int line, const char *func, const char *what,
		      const struct mm_struct *mm, const struct folio *folio);
void vm_warn(const char *file, int line, const char *func, const char *what);

#ifdef CONFIG_DEBUG_VM
#define VM_BUG_ON(cond)                                                              \
	do {                                                                         \
		if (__builtin_expect(!!(cond), 0))                                   \
			vm_bug(__FILE__, __LINE__, __func__, #cond, NULL, NULL);     \
	} while (0)
#define VM_BUG_ON_MM(cond, mm)                                                       \
	do {                                                                         \
		if (__builtin_expect(!!(cond), 0))                                   \
			vm_bug(__FILE__, __LINE__, __func__, #cond, (mm), NULL);     \
	} while (0)
#define VM_BUG_ON_FOLIO(cond, fol)                                                   \
	do {                                                                         \
		if (__builtin_expect(!!(cond), 0)) {                                 \
			struct folio __f = (fol);                                    \
			vm_bug(__FILE__, __LINE__, __func__, #cond, NULL, &__f);     \
		}                                                                    \
	} while (0)
#define VM_WARN_ON(cond)                                                             \
	do {                                                                         \
		if (__builtin_expect(!!(cond), 0))                                   \
			vm_warn(__FILE__, __LINE__, __func__, #cond);                \
	} while (0)
#define VM_WARN_ON_ONCE(cond)                                                        \
	do {                                                                         \
		static _Thread_local bool __warned;                                  \
		if (__builtin_expect(!!(cond), 0) && !__warned) {                    \
			__warned = true;                                             \
			vm_warn(__FILE__, __LINE__, __func__, #cond);                \
		}                                                                    \
	} while (0)
#define IS_DEBUG_VM 1
#else
/* BUILD_BUG_ON_INVALID: the expression must compile, and costs nothing. */
#define VM_BUG_ON(cond) ((void)sizeof((long)(cond)))
#define VM_BUG_ON_MM(cond, mm) ((void)sizeof((long)(cond)), (void)sizeof(mm))
#define VM_BUG_ON_FOLIO(cond, fol) ((void)sizeof((long)(cond)), (void)sizeof(fol))
#define VM_WARN_ON(cond) ((void)sizeof((long)(cond)))
#define VM_WARN_ON_ONCE(cond) ((void)sizeof((long)(cond)))
#define IS_DEBUG_VM 0
#endif

/* ---- the full-state checker (mm/debug.c) -------------------------------- */

/* Simulated nanoseconds between two full checks of a run. */
#define MM_DEBUG_INTERVAL_NS 100000000ull

/* A run's checker state, kept in struct sim. */
struct mm_debug {
	bool on;            /* --check; always on with CONFIG_DEBUG_VM */
	uint64_t next_ns;   /* the next interval check */
	uint64_t checks;    /* full checks done */
};

static inline bool mm_debug_enabled(const struct sim *s, const struct mm_debug *d)
{
	(void)s;
	return IS_DEBUG_VM || d->on;
}

/* The run on this thread starts: the checks' clock, and the simulated time
 * VM_BUG_ON reports. */
void mm_debug_start(struct sim *s);
/* From the run's accounting timer: a full check if the interval passed. */
void mm_debug_tick(struct sim *s, uint64_t now);
/* After the run's last event. */
void mm_debug_final(struct sim *s);
/* Check every invariant of @s now.  0, or -1 with what broke and where in
 * @msg (the caller says when).  Only reads @s. */
int mm_check_state(const struct sim *s, char *msg, size_t len);
/* Call @fn for each migration in flight (folios unmapped, not yet moved): a
 * task's NUMA migration or migration call, kcompactd's, the compact_memory
 * writer's (pid 0).  Stops at, and returns, the first non-zero return. */
struct migrate_ctx;
int mm_for_each_migration(const struct sim *s,
			  int (*fn)(void *arg, const struct migrate_ctx *x, int pid), void *arg);

#endif
