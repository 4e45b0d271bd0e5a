/* The architecture's context-switch hooks (asm/mmu_context.h), chosen by
 * the machine's flush engine like the TLB code (arch/dispatch.c). */
#ifndef NUMASIM_ASM_MMU_CONTEXT_H
#define NUMASIM_ASM_MMU_CONTEXT_H

#include <stdint.h>

struct sim;
struct mm_struct;

/* @cpu switches to a task of @next at @now. */
void switch_mm_irqs_off(struct sim *s, int cpu, struct mm_struct *next, uint64_t now);
/* @cpu goes idle (or runs a kernel thread) keeping its user mm loaded. */
void enter_lazy_tlb(struct sim *s, int cpu);

void x86_switch_mm_irqs_off(struct sim *s, int cpu, struct mm_struct *next, uint64_t now);
void x86_enter_lazy_tlb(struct sim *s, int cpu);
void arm64_switch_mm(struct sim *s, int cpu, struct mm_struct *next, uint64_t now);
void riscv_switch_mm(struct sim *s, int cpu, struct mm_struct *next, uint64_t now);

#endif
