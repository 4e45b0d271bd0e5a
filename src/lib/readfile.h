/* Reading an input file whole, safely: only a regular file (a FIFO would
 * block, a device such as /dev/zero never ends), at most a given size. */
#ifndef NUMASIM_READFILE_H
#define NUMASIM_READFILE_H

#include <stddef.h>

/* Read @path into a NUL-terminated malloc'd buffer (*@out, *@len bytes,
 * which may contain NULs).  0, or -1 with "PATH: what is wrong" in @err. */
int read_input_file(const char *path, size_t max, char **out, size_t *len, char *err, size_t errlen);

#endif
