/* Parsing of the kernel's counter files (see counters.h). */
#include "counters.h"

#include <ctype.h>
#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

/* Parse a decimal unsigned number at *p, moving *p past it.  -1 if there
 * is none or it overflows. */
static int take_u64(const char **p, uint64_t *out)
{
	const char *s = *p;
	uint64_t v = 0;
	if (!isdigit((unsigned char)*s))
		return -1;
	for (; isdigit((unsigned char)*s); s++) {
		unsigned d = (unsigned)(*s - '0');
		if (v > (UINT64_MAX - d) / 10)
			return -1;
		v = v * 10 + d;
	}
	*p = s;
	*out = v;
	return 0;
}

static const char *skip_blanks(const char *s)
{
	while (*s == ' ' || *s == '\t')
		s++;
	return s;
}

static const char *next_line(const char *s)
{
	const char *nl = strchr(s, '\n');
	return nl ? nl + 1 : s + strlen(s);
}

static bool at_line_end(const char *s)
{
	s = skip_blanks(s);
	return *s == '\n' || *s == '\0';
}

int nl_parse_vmstat(const char *text, struct nl_counters *c)
{
	int found = 0;
	for (const char *l = text; *l; l = next_line(l)) {
		size_t n = strcspn(l, " \n");
		for (int i = 0; i < NR_VM_EVENT_ITEMS; i++) {
			if (strlen(vm_event_names[i]) != n || strncmp(l, vm_event_names[i], n))
				continue;
			const char *p = skip_blanks(l + n);
			uint64_t v;
			if (take_u64(&p, &v) || !at_line_end(p))
				return -1;
			if (!c->have_vm[i])
				found++;
			c->vm[i] = v;
			c->have_vm[i] = true;
		}
	}
	return found;
}

/* The number of CPU columns: the header line's "CPUn" words. */
static int interrupt_columns(const char *text)
{
	int n = 0;
	const char *end = next_line(text);
	for (const char *p = text; p + 3 < end; p++)
		if (!strncmp(p, "CPU", 3) && (p == text || p[-1] == ' ') && isdigit((unsigned char)p[3]))
			n++;
	return n;
}

int nl_parse_interrupts(const char *text, uint64_t *sum)
{
	int cols = interrupt_columns(text);
	if (cols == 0)
		return -1;
	for (const char *l = next_line(text); *l; l = next_line(l)) {
		const char *p = skip_blanks(l);
		if (strncmp(p, "TLB:", 4))
			continue;
		p += 4;
		uint64_t total = 0;
		for (int c = 0; c < cols; c++) {
			uint64_t v;
			p = skip_blanks(p);
			if (take_u64(&p, &v))
				return -1;
			total += v;
		}
		/* then the description: "TLB shootdowns" */
		p = skip_blanks(p);
		if (strncmp(p, "TLB shootdowns", 14))
			return -1;
		*sum = total;
		return 1;
	}
	return 0;
}

static uint64_t sub_clamped(uint64_t a, uint64_t b, int *rc)
{
	if (a < b) {
		*rc = -1;
		return 0;
	}
	return a - b;
}

int nl_counters_delta(const struct nl_counters *before, const struct nl_counters *after,
		      struct nl_counters *d)
{
	int rc = 0;
	memset(d, 0, sizeof(*d));
	for (int i = 0; i < NR_VM_EVENT_ITEMS; i++) {
		d->have_vm[i] = before->have_vm[i] && after->have_vm[i];
		if (d->have_vm[i])
			d->vm[i] = sub_clamped(after->vm[i], before->vm[i], &rc);
	}
	d->have_tlb = before->have_tlb && after->have_tlb;
	if (d->have_tlb)
		d->tlb_irqs = sub_clamped(after->tlb_irqs, before->tlb_irqs, &rc);
	return rc;
}

int nl_parse_node_meminfo(const char *text, const char *field, uint64_t *kb)
{
	size_t fl = strlen(field);
	for (const char *l = text; *l; l = next_line(l)) {
		/* "Node <n> <field>: <value> kB" */
		const char *p = skip_blanks(l);
		uint64_t node;
		if (strncmp(p, "Node ", 5))
			continue;
		p += 5;
		if (take_u64(&p, &node))
			continue;
		p = skip_blanks(p);
		if (strncmp(p, field, fl) || p[fl] != ':')
			continue;
		p = skip_blanks(p + fl + 1);
		if (take_u64(&p, kb))
			return -1;
		p = skip_blanks(p);
		if (strncmp(p, "kB", 2))
			return -1;
		return 0;
	}
	return -1;
}

int nl_parse_cpulist(const char *text, int *cpus, int max)
{
	const char *p = text;
	int n = 0;
	if (at_line_end(p))
		return 0;
	for (;;) {
		uint64_t a, b;
		if (take_u64(&p, &a) || a > 1u << 20)
			return -1;
		b = a;
		if (*p == '-') {
			p++;
			if (take_u64(&p, &b) || b < a || b > 1u << 20)
				return -1;
		}
		for (uint64_t c = a; c <= b; c++) {
			if (n >= max)
				return -1;
			cpus[n++] = (int)c;
		}
		if (*p == ',') {
			p++;
			continue;
		}
		return at_line_end(p) ? n : -1;
	}
}

int nl_parse_numa_maps(const char *text, uint64_t lo, uint64_t hi, uint64_t *pages,
		       int max_nodes)
{
	int counted = 0;
	for (const char *l = text; *l; l = next_line(l)) {
		char *end;
		errno = 0;
		unsigned long long start = strtoull(l, &end, 16);
		if (end == l || errno || *end != ' ')
			return -1;
		if (start < lo || start >= hi)
			continue;
		counted++;
		const char *stop = next_line(l);
		/* " N<node>=<pages>" words */
		for (const char *p = end; p < stop; p++) {
			if (p[0] != ' ' || p[1] != 'N' || !isdigit((unsigned char)p[2]))
				continue;
			const char *q = p + 2;
			uint64_t node, n;
			if (take_u64(&q, &node) || *q != '=')
				return -1;
			q++;
			if (take_u64(&q, &n))
				return -1;
			if (node < (uint64_t)max_nodes)
				pages[node] += n;
		}
	}
	return counted;
}

char *nl_read_text(const char *path)
{
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return NULL;
	size_t len = 0, cap = 8192;
	char *buf = malloc(cap);
	while (buf) {
		ssize_t r = read(fd, buf + len, cap - len - 1);
		if (r < 0) {
			if (errno == EINTR)
				continue;
			int e = errno;
			free(buf);
			close(fd);
			errno = e;
			return NULL;
		}
		if (r == 0)
			break;
		len += (size_t)r;
		if (cap - len - 1 == 0) {
			char *nb = realloc(buf, cap * 2);
			if (!nb)
				free(buf);
			buf = nb;
			cap *= 2;
		}
	}
	close(fd);
	if (!buf) {
		errno = ENOMEM;
		return NULL;
	}
	buf[len] = '\0';
	return buf;
}
