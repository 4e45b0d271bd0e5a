/* This program's identity (see buildid.h): the linker's build-id note,
 * read from the loaded program headers, so it costs no file access. */
#define _GNU_SOURCE /* dl_iterate_phdr */
#include "lib/buildid.h"

#include <elf.h>
#include <fcntl.h>
#include <link.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "lib/fnv.h"

struct found {
	char *out;
	size_t len;
	int ok;
};

static size_t align4(size_t n)
{
	return (n + 3) & ~(size_t)3;
}

/* The NT_GNU_BUILD_ID note in a PT_NOTE segment of @base, @size bytes. */
static int note_build_id(const char *base, size_t size, struct found *f)
{
	size_t off = 0;
	while (off + sizeof(ElfW(Nhdr)) <= size) {
		const ElfW(Nhdr) *n = (const ElfW(Nhdr) *)(base + off);
		size_t name = off + sizeof(*n), desc = name + align4(n->n_namesz);
		size_t next = desc + align4(n->n_descsz);
		if (next > size || next <= off)
			return 0;
		if (n->n_type == NT_GNU_BUILD_ID && n->n_namesz == 4 && !memcmp(base + name, "GNU", 4) &&
		    n->n_descsz > 0 && 4 + 2 * (size_t)n->n_descsz < f->len) {
			const unsigned char *d = (const unsigned char *)base + desc;
			size_t o = (size_t)snprintf(f->out, f->len, "gnu:");
			for (size_t i = 0; i < n->n_descsz; i++)
				o += (size_t)snprintf(f->out + o, f->len - o, "%02x", d[i]);
			return 1;
		}
		off = next;
	}
	return 0;
}

/* The first object dl_iterate_phdr reports is the program itself. */
static int visit(struct dl_phdr_info *info, size_t size, void *arg)
{
	struct found *f = arg;
	(void)size;
	for (int i = 0; i < info->dlpi_phnum && !f->ok; i++) {
		const ElfW(Phdr) *ph = &info->dlpi_phdr[i];
		if (ph->p_type == PT_NOTE)
			f->ok = note_build_id((const char *)(info->dlpi_addr + ph->p_vaddr), ph->p_memsz, f);
	}
	return 1; /* stop after the program */
}

/* No build id (a linker told not to make one): hash the file itself. */
static int exe_hash(char *out, size_t len)
{
	unsigned char buf[1 << 16];
	uint64_t h = FNV1A64_INIT;
	ssize_t n;
	int fd = open("/proc/self/exe", O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return -1;
	while ((n = read(fd, buf, sizeof(buf))) > 0)
		h = fnv1a64(h, buf, (size_t)n);
	close(fd);
	if (n < 0)
		return -1;
	snprintf(out, len, "exe:%016llx", (unsigned long long)h);
	return 0;
}

int self_build_id(char *out, size_t len)
{
	struct found f = { .out = out, .len = len };
	dl_iterate_phdr(visit, &f);
	return f.ok ? 0 : exe_hash(out, len);
}
