/* Shared by the harnesses that call numasim's commands (fuzz_results,
 * fuzz_sweep_manifest): their messages, one per bad input, would fill the
 * log, so stderr goes to /dev/null around the calls unless
 * NUMASIM_FUZZ_VERBOSE is set (to see a finding's report: run the harness
 * on its input). */
#ifndef FUZZ_QUIET_H
#define FUZZ_QUIET_H

#include <fcntl.h>
#include <stdlib.h>
#include <unistd.h>

static inline int quiet_begin(void)
{
	if (getenv("NUMASIM_FUZZ_VERBOSE"))
		return -1;
	int saved = dup(STDERR_FILENO), fd = open("/dev/null", O_WRONLY);
	if (saved >= 0 && fd >= 0)
		dup2(fd, STDERR_FILENO);
	if (fd >= 0)
		close(fd);
	return saved;
}

static inline void quiet_end(int saved)
{
	if (saved >= 0) {
		dup2(saved, STDERR_FILENO);
		close(saved);
	}
}

#endif
