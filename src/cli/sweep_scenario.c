/* The scenario a sweep file names: a built-in, or a file beside the sweep
 * file.  A sweep file may come from someone else, and its 'scenario =' may
 * name any file the user can read (/etc/shadow, a key, a token): before
 * the scenario parser sees it, and could quote its text in a message, the
 * file must be a regular file of a scenario's size whose every line is
 * shaped like a scenario's (blank, a comment, one of its [sections], or
 * KEY = VALUE with a key of that section).  A file that is not is refused
 * by line number alone.  See cli/sweep.h. */
#include "cli/sweep.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "lib/fnv.h"
#include "lib/iniline.h"
#include "lib/readfile.h"

#define MAX_SCENARIO_BYTES (1u << 20) /* as scenario.c's */

/* Is @name a section of a scenario file? */
static bool known_section(const char *name)
{
	for (int k = 0; k < scenario_key_count(); k++)
		if (!strcmp(scenario_key_section(k), name))
			return true;
	return false;
}

/* Is @name a key of [@section]?  A tunable's THP size key is let through
 * whatever its size: the parser explains a wrong one without quoting more
 * than the key. */
static bool known_key(const char *section, const char *name)
{
	char dotted[256];
	if (!strcmp(section, "tunables") && !strncmp(name, "transparent_hugepage.hugepages-", 31))
		return true;
	if ((size_t)snprintf(dotted, sizeof(dotted), "%s.%s", section, name) >= sizeof(dotted))
		return false;
	int k = scenario_key_index(dotted);
	return k >= 0 && !strcmp(scenario_key_section(k), section);
}

/* One line (@line, NUL-terminated, leading blanks dropped) in [@section]
 * (updated on a header): shaped like a scenario file's? */
static bool line_shaped(const char *line, char *section, size_t seclen)
{
	char name[128];
	const char *junk;
	if (!*line || *line == '#' || *line == ';' || *line == '\r')
		return true;
	int kind = ini_section_header(line, name, sizeof(name), &junk);
	if (kind)
		return kind > 0 && known_section(name) &&
		       (size_t)snprintf(section, seclen, "%s", name) < seclen;
	size_t n = strcspn(line, "=:");
	if (!line[n] || !*section)
		return false;
	while (n && (line[n - 1] == ' ' || line[n - 1] == '\t'))
		n--;
	if (!n || n >= sizeof(name))
		return false;
	memcpy(name, line, n);
	name[n] = '\0';
	return known_key(section, name);
}

/* 0 when every line of @text is shaped like a scenario file's, else the
 * number of the first line that is not. */
static int first_foreign_line(const char *text, size_t len)
{
	char line[256], section[128] = "";
	size_t pos = 0;
	int nr = 0;
	if (len >= 3 && !memcmp(text, "\xef\xbb\xbf", 3))
		pos = 3; /* a UTF-8 byte-order mark, as inih allows */
	while (pos < len) {
		size_t end = pos;
		while (end < len && text[end] != '\n')
			end++;
		nr++;
		const char *b = text + pos;
		size_t n = end - pos;
		while (n && (*b == ' ' || *b == '\t')) {
			b++;
			n--;
		}
		/* a line the parser refuses for its length: its key decides */
		if (n >= sizeof(line))
			n = sizeof(line) - 1;
		memcpy(line, b, n);
		line[n] = '\0';
		if (strlen(line) != n || !line_shaped(line, section, sizeof(section)))
			return nr;
		pos = end + 1;
	}
	return 0;
}

/* Read, check and parse the scenario file @path into @sc. */
static int load_file(struct sweep_spec *sp, const char *path, struct scenario *sc, char *err,
		     size_t errlen)
{
	char *text;
	size_t len;
	if (read_input_file(path, MAX_SCENARIO_BYTES, &text, &len, err, errlen))
		return -1;
	int bad = first_foreign_line(text, len);
	if (bad) {
		snprintf(err, errlen, "%s:%d: not a scenario file: the line is not blank, a comment, a "
			 "scenario [section] or KEY = VALUE of one of its keys (its text is not shown)",
			 path, bad);
		free(text);
		return -1;
	}
	/* the ids depend on the file: the manifest's cache must know it */
	sp->hash = fnv1a64(sp->hash, "\0scenario file\0", 15);
	sp->hash = fnv1a64(sp->hash, text, len);
	int rc = scenario_load_text(path, text, len, sc, err, errlen);
	free(text);
	return rc;
}

int sweep_load_scenario(struct sweep_spec *sp, char *err, size_t errlen)
{
	struct scenario *sc = &sp->base;
	const char *v = sp->scenario;
	bool file = strchr(v, '/') || strstr(v, ".ini") || !scenario_builtin_text(v);
	int rc;
	if (!file) {
		rc = scenario_load_builtin(v, sc, err, errlen);
	} else {
		char path[1100];
		const char *slash = strrchr(sp->path, '/');
		if (v[0] == '/' || !slash)
			snprintf(path, sizeof(path), "%s", v);
		else
			snprintf(path, sizeof(path), "%.*s/%s", (int)(slash - sp->path), sp->path, v);
		rc = load_file(sp, path, sc, err, errlen);
		/* results record the scenario as the sweep names it, wherever
		 * the sweep was started from */
		if (!rc)
			snprintf(sc->source, sizeof(sc->source), "%s", v);
	}
	if (rc) {
		char inner[1024];
		snprintf(inner, sizeof(inner), "%s", err);
		snprintf(err, errlen, "%s:%d: scenario: %s", sp->path, sp->scenario_line, inner);
		return -1;
	}
	return 0;
}
