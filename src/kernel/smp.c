/* The rounds in flight and the sockets a round reaches (kernel/smp.h). */
#include <stdlib.h>

#include "kernel/sim.h"
#include "kernel/smp.h"

int smp_inflight_init(struct smp_inflight *f, int nr_cpus)
{
	f->nr = 0;
	f->words = (nr_cpus + 63) / 64;
	f->cpu = malloc((size_t)nr_cpus * sizeof(int));
	f->end = calloc((size_t)nr_cpus, sizeof(uint64_t));
	f->mask = malloc((size_t)nr_cpus * (size_t)f->words * sizeof(uint64_t));
	return f->cpu && f->end && f->mask ? 0 : -1;
}

void smp_inflight_free(struct smp_inflight *f)
{
	free(f->cpu);
	free(f->end);
	free(f->mask);
	f->cpu = NULL;
	f->end = f->mask = NULL;
	f->nr = 0;
}

static int intersects(const uint64_t *a, const struct cpumask *b, int words)
{
	for (int w = 0; w < words; w++)
		if (a[w] & b->bits[w])
			return 1;
	return 0;
}

int smp_rounds_in_flight(struct smp_inflight *f, int cpu, const struct cpumask *mask,
			 uint64_t now)
{
	int queued = 0, kept = 0;
	/* events run in time order, so a round that ended by @now has ended
	 * for every later round too: drop it */
	for (int i = 0; i < f->nr; i++) {
		int c = f->cpu[i];
		if (f->end[c] <= now)
			continue;
		f->cpu[kept++] = c;
		if (c != cpu)
			queued += intersects(&f->mask[(size_t)c * (size_t)f->words], mask, f->words);
	}
	f->nr = kept;
	return queued;
}

void smp_round_done(struct smp_inflight *f, int cpu, const struct cpumask *mask, uint64_t end)
{
	bool listed = false;
	for (int i = 0; i < f->nr && !listed; i++)
		listed = f->cpu[i] == cpu;
	if (!listed)
		f->cpu[f->nr++] = cpu;
	f->end[cpu] = end;
	uint64_t *m = &f->mask[(size_t)cpu * (size_t)f->words];
	for (int w = 0; w < f->words; w++)
		m[w] = mask->bits[w];
}

void smp_mask_sockets(const struct sim *s, const struct cpumask *mask, int self, int *near,
		      int *far)
{
	const struct cpumask *own = &s->socket_cpus[machine_node_socket(&s->m, s->cpus[self].node)];
	int n = 0, all = 0;
	for (int w = 0; w < nr_cpu_words; w++) {
		all += __builtin_popcountll(mask->bits[w]);
		n += __builtin_popcountll(mask->bits[w] & own->bits[w]);
	}
	if (cpumask_test_cpu(self, mask)) {
		n--;
		all--;
	}
	*near = n;
	*far = all - n;
}
