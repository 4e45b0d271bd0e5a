/* Helpers shared by the commands. */
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "cli/cli.h"

/* A name is a built-in scenario unless it is an existing file or looks
 * like a path. */
int load_scenario(const char *arg, struct scenario *sc, char *err, size_t errlen)
{
	struct stat st;
	if (stat(arg, &st) != 0 && !strchr(arg, '/') && !strstr(arg, ".ini"))
		return scenario_load_builtin(arg, sc, err, errlen);
	return scenario_load_file(arg, sc, err, errlen);
}

