/* A small simulated world for unit tests: 2 nodes, 4 CPUs (2 per node), one
 * process of 4 threads over 8 MiB (4 PTE tables), built with the same
 * sim_init() as a run, but with no events run.  Tests then call kernel
 * paths directly in a task's context (testsim_enter). */
#ifndef TESTSIM_H
#define TESTSIM_H

#include "kernel/sim.h"

struct sim *testsim_new(const char *kernel, enum flush_engine engine);
/* The same world, with @cfg(s) run on the parameters before it is built
 * (THP knobs, partial unmaps, ...). */
struct sim *testsim_new_cfg(const char *kernel, enum flush_engine engine, void (*cfg)(struct sim *));
/* The plain world with the TLB oracle on from before the tasks start. */
struct sim *testsim_new_oracle(const char *kernel, enum flush_engine engine);
void testsim_free(struct sim *s);
/* Run as task @i at time @now (ns). */
void testsim_enter(struct sim *s, int i, uint64_t now);
/* The first VMA of the process and the PTE at @page of it. */
struct vm_area_struct *testsim_vma(struct sim *s);
pte_t *testsim_pte(struct sim *s, uint64_t page);
uint64_t testsim_addr(struct sim *s, uint64_t page);
unsigned long long testsim_event(struct sim *s, enum vm_event_item item);
/* TLB interrupts of @cpu, and of all: the round ledgers settled first
 * (arch/x86/mm/tlb.c), as a run does before it reads them. */
unsigned long long testsim_irqs(struct sim *s, int cpu);
unsigned long long testsim_tlb_irqs(struct sim *s);
/* cmocka fixture helpers: a world kept in *state, freed by the teardown. */
struct sim *testsim_mk(void **state, const char *kernel, enum flush_engine engine);
int testsim_teardown(void **state);

#endif
