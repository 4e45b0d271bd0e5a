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

/* Fail before a long run, not after it, if the JSON cannot be written. */
int check_json_path(const char *path, char *err, size_t errlen)
{
	struct stat st;
	char dir[4096];
	const char *slash = strrchr(path, '/');
	if (!*path || (!stat(path, &st) && S_ISDIR(st.st_mode))) {
		snprintf(err, errlen, "--json: '%s' is not a file name", path);
		return -1;
	}
	if (!slash)
		snprintf(dir, sizeof(dir), ".");
	else
		snprintf(dir, sizeof(dir), "%.*s", slash == path ? 1 : (int)(slash - path), path);
	if (access(dir, W_OK) != 0) {
		snprintf(err, errlen, "--json: %s: cannot write in its directory: %s", path,
			 strerror(errno));
		return -1;
	}
	return 0;
}

