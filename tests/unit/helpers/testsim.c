#include "testsim.h"

#include <stdlib.h>
#include <string.h>

#include "linux/tlb_oracle.h"

struct sim *testsim_new(const char *kernel, enum flush_engine engine)
{
	return testsim_new_cfg(kernel, engine, NULL);
}

static struct sim *build(const char *kernel, enum flush_engine engine, void (*cfg)(struct sim *),
			 bool oracle);

struct sim *testsim_new_cfg(const char *kernel, enum flush_engine engine, void (*cfg)(struct sim *))
{
	return build(kernel, engine, cfg, false);
}

struct sim *testsim_new_oracle(const char *kernel, enum flush_engine engine)
{
	return build(kernel, engine, NULL, true);
}

static struct sim *build(const char *kernel, enum flush_engine engine, void (*cfg)(struct sim *),
			 bool oracle)
{
	struct sim *s = calloc(1, sizeof(*s));
	char err[256];
	if (!s)
		abort();
	machine_defaults(&s->m);
	s->m.nr_sockets = 2;
	s->m.nodes_per_socket = 1;
	s->m.cores_per_node = 2;
	s->m.threads_per_core = 1;
	s->m.mem_per_node_mib = 64;
	s->m.engine = engine;
	if (machine_finish(&s->m))
		abort();
	if (kernel_config_parse(kernel, &s->k, err, sizeof(err)))
		abort();
	s->t.numa_balancing = 1;
	s->t.scan_delay_ms = 1000;
	s->t.scan_period_min_ms = 1000;
	s->t.scan_period_max_ms = 60000;
	s->t.scan_size_mb = 256;
	workload_defaults(&s->w.p);
	s->w.p.threads = 4;
	s->w.p.memory_gib = 8.0 / 1024; /* 8 MiB: 2048 pages, 4 tables */
	s->w.p.private_fraction = 0;
	s->w.p.private_access_share = 0;
	s->w.p.shared_first_touch.mode = FT_NODE0;
	thp_tunables_defaults(&s->t.thp);
	s->seed = 1;
	s->duration_ns = 10 * NSEC_PER_SEC;
	if (cfg)
		cfg(s);
	if (sim_init(s, err, sizeof(err)) || (oracle && oracle_enable(s, false)))
		abort();
	sim_start(s); /* every task on its CPU, no event run */
	return s;
}

void testsim_free(struct sim *s)
{
	sim_free(s);
	free(s);
}

void testsim_enter(struct sim *s, int i, uint64_t now)
{
	sim_enter(s, &s->tasks[i], now);
}

struct vm_area_struct *testsim_vma(struct sim *s)
{
	return &s->mms[0].vmas[0];
}

pte_t *testsim_pte(struct sim *s, uint64_t page)
{
	return &testsim_vma(s)->ptes[page];
}

uint64_t testsim_addr(struct sim *s, uint64_t page)
{
	return testsim_vma(s)->vm_start + page * PAGE_SIZE;
}

unsigned long long testsim_event(struct sim *s, enum vm_event_item item)
{
	flush_ledger_settle_all(s);
	return vm_event_sum(s, item);
}

unsigned long long testsim_irqs(struct sim *s, int cpu)
{
	flush_ledger_settle_all(s);
	return s->cpus[cpu].irq_tlb_count;
}

unsigned long long testsim_tlb_irqs(struct sim *s)
{
	unsigned long long n = 0;
	for (int c = 0; c < s->m.nr_cpus; c++)
		n += testsim_irqs(s, c);
	return n;
}

struct sim *testsim_mk(void **state, const char *kernel, enum flush_engine engine)
{
	struct sim *s = testsim_new(kernel, engine);
	*state = s;
	return s;
}

int testsim_teardown(void **state)
{
	if (*state)
		testsim_free(*state);
	*state = NULL;
	return 0;
}
