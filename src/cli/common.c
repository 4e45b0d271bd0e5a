/* Helpers shared by the commands. */
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "cli/cli.h"
#include "lib/escape.h"

/* A name is a built-in scenario unless it is an existing file or looks
 * like a path. */
int load_scenario(const char *arg, struct scenario *sc, char *err, size_t errlen)
{
	struct stat st;
	if (stat(arg, &st) != 0 && !strchr(arg, '/') && !strstr(arg, ".ini"))
		return scenario_load_builtin(arg, sc, err, errlen);
	return scenario_load_file(arg, sc, err, errlen);
}


void cli_error(const char *prefix, const char *msg)
{
	fputs(prefix, stderr);
	fputs_escaped(msg, stderr);
	fputc('\n', stderr);
}

uint64_t host_memory_bytes(void)
{
	long pages = sysconf(_SC_PHYS_PAGES), size = sysconf(_SC_PAGESIZE);
	return pages > 0 && size > 0 ? (uint64_t)pages * (uint64_t)size : UINT64_MAX;
}
