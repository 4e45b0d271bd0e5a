/* A stdio stream that gzips what is written to it into another stream,
 * so that writers made for a FILE * (the Chrome JSON of a trace) write a
 * .gz without knowing it, and the bytes land in an output's atomic
 * temporary (lib/outfile.h) like any other.
 *
 * The gzip header carries no file name and an mtime of 0 (and says Unix),
 * so the same input gives the same bytes every time with the same zlib:
 * outputs stay deterministic. */
#ifndef NUMASIM_GZFILE_H
#define NUMASIM_GZFILE_H

#include <stdio.h>

/* A write-only stream deflating into @dst (left open) at zlib @level
 * (1..9), or NULL (out of memory).  gzfile_close() finishes it. */
FILE *gzfile_open(FILE *dst, int level);
/* Finish the gzip member into dst (not flushed: the caller's) and close
 * @f: 0, or -1 if a write to dst failed or deflate did (errno set). */
int gzfile_close(FILE *f);

#endif
