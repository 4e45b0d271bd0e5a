/* numaload's readings of a real kernel's counters, from the text of
 * /proc/vmstat, /proc/interrupts, /sys/devices/system/node/nodeN/meminfo and
 * /proc/PID/numa_maps.  Parsing works on text (the caller reads the file)
 * so that captured files of real kernels test it. */
#ifndef NUMALOAD_COUNTERS_H
#define NUMALOAD_COUNTERS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "linux/vm_event.h"

/* The counters numasim reports, as one kernel shows them. */
struct nl_counters {
	uint64_t vm[NR_VM_EVENT_ITEMS];     /* /proc/vmstat, numasim's names */
	bool have_vm[NR_VM_EVENT_ITEMS];    /* the line exists (nr_tlb_* need CONFIG_DEBUG_TLBFLUSH) */
	uint64_t tlb_irqs;                  /* /proc/interrupts "TLB:" summed over CPUs */
	bool have_tlb;
};

/* /proc/vmstat: "name value" per line.  Fills every counter numasim keeps
 * that the text has; returns the number found, or -1 if a line of a known
 * name is malformed. */
int nl_parse_vmstat(const char *text, struct nl_counters *c);

/* /proc/interrupts: the x86 "TLB:" row ("TLB: n0 n1 ... TLB shootdowns"),
 * summed over the CPU columns of the header.  Returns 1 and sets *sum if
 * the row is there, 0 if it is not (arm64, riscv), -1 if it is malformed. */
int nl_parse_interrupts(const char *text, uint64_t *sum);

/* @after - @before, counter by counter; a counter is present in @d if it
 * was in both.  Returns -1 if a counter went backwards (a CPU went offline
 * between the readings and its interrupt column vanished), with that
 * counter's delta set to 0. */
int nl_counters_delta(const struct nl_counters *before, const struct nl_counters *after,
		      struct nl_counters *d);

/* Node meminfo ("Node 0 MemTotal:  1030452 kB"): the field's value in kB.
 * Returns 0, or -1 if the field is absent or malformed. */
int nl_parse_node_meminfo(const char *text, const char *field, uint64_t *kb);

/* A sysfs CPU list ("0-3,8,10-11\n") into @cpus (at most @max entries).
 * Returns the count, or -1 if malformed or too long. */
int nl_parse_cpulist(const char *text, int *cpus, int max);

/* /proc/PID/numa_maps: add the "N<node>=<pages>" figures of every mapping
 * whose start address lies in [@lo, @hi) to @pages[node] (nodes below
 * @max_nodes).  Returns the number of mappings counted, or -1 if a counted
 * line is malformed. */
int nl_parse_numa_maps(const char *text, uint64_t lo, uint64_t hi, uint64_t *pages,
		       int max_nodes);

/* Read a whole (proc/sys) file into a NUL-terminated buffer; NULL with
 * errno set on failure.  Files of /proc report size 0, so it reads until
 * EOF. */
char *nl_read_text(const char *path);

#endif
