/* Reading input files (see readfile.h). */
#include "lib/readfile.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

static const char *kind_of(mode_t m)
{
	if (S_ISDIR(m))
		return "a directory";
	if (S_ISFIFO(m))
		return "a FIFO or pipe";
	if (S_ISCHR(m) || S_ISBLK(m))
		return "a device";
	if (S_ISSOCK(m))
		return "a socket";
	return "not a regular file";
}

int read_input_file(const char *path, size_t max, char **out, size_t *len, char *err, size_t errlen)
{
	struct stat st;
	*out = NULL;
	*len = 0;
	/* O_NONBLOCK: opening a FIFO must not wait for a writer */
	int fd = open(path, O_RDONLY | O_NONBLOCK | O_NOCTTY | O_CLOEXEC);
	if (fd < 0) {
		snprintf(err, errlen, "%s: %s", path, strerror(errno));
		return -1;
	}
	if (fstat(fd, &st) != 0) {
		snprintf(err, errlen, "%s: %s", path, strerror(errno));
		close(fd);
		return -1;
	}
	if (!S_ISREG(st.st_mode)) {
		snprintf(err, errlen, "%s: is %s; numasim reads only regular files", path,
			 kind_of(st.st_mode));
		close(fd);
		return -1;
	}
	if ((unsigned long long)st.st_size > max) {
		snprintf(err, errlen, "%s: %lld bytes, more than the %zu a file of this kind can have",
			 path, (long long)st.st_size, max);
		close(fd);
		return -1;
	}
	size_t cap = (size_t)st.st_size + 1, n = 0;
	char *buf = malloc(cap + 1);
	if (!buf) {
		snprintf(err, errlen, "%s: out of memory", path);
		close(fd);
		return -1;
	}
	for (;;) {
		/* the file may grow while read: never past max */
		if (n == cap) {
			if (cap > max) {
				snprintf(err, errlen, "%s: more than the %zu bytes a file of this kind can have",
					 path, max);
				free(buf);
				close(fd);
				return -1;
			}
			char *nb = realloc(buf, 2 * cap + 1);
			if (!nb) {
				snprintf(err, errlen, "%s: out of memory", path);
				free(buf);
				close(fd);
				return -1;
			}
			buf = nb;
			cap *= 2;
		}
		ssize_t r = read(fd, buf + n, cap - n);
		if (r < 0 && errno == EINTR)
			continue;
		if (r < 0) {
			snprintf(err, errlen, "%s: %s", path, strerror(errno));
			free(buf);
			close(fd);
			return -1;
		}
		if (r == 0)
			break;
		n += (size_t)r;
	}
	close(fd);
	if (n > max) {
		snprintf(err, errlen, "%s: more than the %zu bytes a file of this kind can have", path, max);
		free(buf);
		return -1;
	}
	buf[n] = '\0';
	*out = buf;
	*len = n;
	return 0;
}
