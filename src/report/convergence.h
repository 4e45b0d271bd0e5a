/* Convergence: when a process's threads and its memory came together.
 *
 * Per process and per simulated second the run keeps its tasks' hint
 * faults, the local ones (numa_hint_faults(_local): the page was on the
 * task's node when it faulted) and those that ended local (the page is
 * there after the fault: it was, or it migrated there; task_numa_fault's
 * mem_node == cpu_node; counted with the faults that reached
 * task_numa_fault, in the second they ended: a fault that migrates may end
 * a second after it began), and at the second's end the mean over its tasks
 * still at work of the share of each one's memory touches that land on
 * the node it runs on (workload_task_local_share).
 *
 * A process has converged at the start of the first window of
 * CONVERGED_WINDOW_S seconds -- or, in a fixed-work run whose work was
 * done, of the seconds left to its end if fewer -- in which both the
 * share of its hint faults that ended local and its memory's local share
 * stay at or above CONVERGED_SHARE; a run has converged when every
 * process has, at the latest of their times.  The fault term is the
 * ending one: numa_hint_faults_local counts a fault by where the page was
 * before it migrated, so it reports the placement a pass found, not the
 * one it left, and the next pass may be a minute away (task_scan_max).  A
 * second without a hint fault keeps the last share seen (no new
 * evidence); before the first there is none, and a run without hint
 * faults (balancing off) never converges. */
#ifndef NUMASIM_CONVERGENCE_H
#define NUMASIM_CONVERGENCE_H

#include <stdint.h>

#include "kernel/sim.h"

#define CONVERGED_SHARE 0.9
#define CONVERGED_WINDOW_S 5

/* The criterion over @n seconds of one process's series (@faults: the
 * faults that ended in each second, @faults_ended_local: those of them
 * that ended local): the first second of the window, or -1.  @mem's negative entries (no task at
 * work) keep the last value too.  @open_end: a window still open when the
 * series ends counts (the work was done). */
int convergence_first(const double *faults, const double *faults_ended_local, const double *mem, int n,
		      double share, int window, bool open_end);

struct process_convergence {
	int tasks;                 /* its threads */
	double converged_s;        /* -1: not converged */
	double final_fault_share;  /* local, over the last tenth of the run; -1: no hint fault then */
	double final_ended_share;  /* ended local, likewise */
	double final_mem_share;    /* at the end of the last second with a task at work; -1 */
	uint64_t node_moves;       /* its tasks' moves to another node (any cause) */
	uint64_t numa_moves;       /* migrate_task_to */
	uint64_t numa_swaps;       /* migrate_swap (each swap counts once per task) */
};

void convergence_process(const struct sim *s, int mm, struct process_convergence *pc);
/* The run's time to converge: every process's, the latest; -1 if one did
 * not (or the run has no series). */
double convergence_time(const struct sim *s);

/* The share of all hint faults that were local over the last tenth of
 * the run (at least its last second); -1 without hint faults then. */
double convergence_final_local_share(const struct sim *s);

#endif
