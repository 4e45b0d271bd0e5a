/* A FILE * that gzips into another (lib/gzfile.h): fopencookie, whose
 * write function feeds zlib's deflate and writes its output to the
 * destination stream. */
#define _GNU_SOURCE /* fopencookie */
#include "lib/gzfile.h"

#include <errno.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <zlib.h>

#define GZ_CHUNK (256u << 10)

struct gz {
	FILE *dst;
	z_stream z;
	gz_header head;
	uint64_t in;
	bool failed;
	unsigned char out[GZ_CHUNK];
};

/* Run deflate on what is in z's input with @flush, writing every full
 * (or, at the end, partial) output chunk to dst. */
static int pump(struct gz *g, int flush)
{
	do {
		g->z.next_out = g->out;
		g->z.avail_out = GZ_CHUNK;
		int rc = deflate(&g->z, flush);
		if (rc == Z_STREAM_ERROR) {
			errno = EIO;
			return -1;
		}
		size_t n = GZ_CHUNK - g->z.avail_out;
		if (n && fwrite(g->out, 1, n, g->dst) != n)
			return -1;
	} while (g->z.avail_out == 0 || (flush == Z_FINISH && g->z.avail_in));
	return 0;
}

static ssize_t gz_write(void *cookie, const char *buf, size_t len)
{
	struct gz *g = cookie;
	/* avail_in is 32 bits: feed a large write in pieces */
	for (size_t done = 0; done < len;) {
		size_t n = len - done < (1u << 30) ? len - done : (1u << 30);
		g->z.next_in = (unsigned char *)(uintptr_t)(buf + done);
		g->z.avail_in = (uInt)n;
		if (pump(g, Z_NO_FLUSH)) {
			g->failed = true;
			return -1;
		}
		done += n;
	}
	g->in += len;
	return (ssize_t)len;
}

static int gz_close(void *cookie)
{
	struct gz *g = cookie;
	int rc = 0;
	g->z.next_in = NULL;
	g->z.avail_in = 0;
	if (g->failed || pump(g, Z_FINISH))
		rc = -1;
	deflateEnd(&g->z);
	free(g);
	if (rc && !errno)
		errno = EIO;
	return rc;
}

FILE *gzfile_open(FILE *dst, int level)
{
	struct gz *g = calloc(1, sizeof(*g));
	if (!g)
		return NULL;
	g->dst = dst;
	/* windowBits 15 + 16: a gzip wrapper, not zlib's */
	if (deflateInit2(&g->z, level, Z_DEFLATED, 15 + 16, 8, Z_DEFAULT_STRATEGY) != Z_OK) {
		free(g);
		return NULL;
	}
	/* no name, mtime 0, OS 3 (Unix, what gzip writes here): the same
	 * bytes for the same input */
	g->head.time = 0;
	g->head.os = 3;
	g->head.name = NULL;
	deflateSetHeader(&g->z, &g->head);
	cookie_io_functions_t io = { .read = NULL, .write = gz_write, .seek = NULL, .close = gz_close };
	FILE *f = fopencookie(g, "w", io);
	if (!f) {
		deflateEnd(&g->z);
		free(g);
		return NULL;
	}
	setvbuf(f, NULL, _IOFBF, 1u << 16);
	return f;
}

int gzfile_close(FILE *f)
{
	errno = 0;
	return fclose(f) ? -1 : 0; /* gz_close finishes the member */
}
