/* A costs fragment (`numasim run SCENARIO --costs FILE`): a file of
 * [machine] and [costs] keys, as `numaload profile --ini` writes for the
 * machine it measured, applied on top of a scenario key by key as --set
 * would apply them.  Any other section is refused, and so is a key given
 * twice: errors name FILE:LINE: key. */
#include "scenario/scenario.h"

#include <ini.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "lib/iniline.h"
#include "lib/readfile.h"

#define FRAGMENT_OPTION "--costs"
#define MAX_FRAGMENT_BYTES (64u << 10)

struct fragment {
	struct scenario *sc;
	const char *path;
	const char *text;
	size_t pos;
	int line;
	bool seen[SCENARIO_MAX_KEYS];
	char *err;
	size_t errlen;
	int err_line;
	int keys;                  /* set so far */
};

static void ferr(struct fragment *f, const char *key, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));
static void ferr(struct fragment *f, const char *key, const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	ini_verror(f->err, f->errlen, &f->err_line, f->path, f->line, key, fmt, ap);
	va_end(ap);
}

/* Every header is checked as it is read, as the scenario parser does: an
 * empty section of another name, or text after the ']', would give inih
 * no key to refuse. */
static void check_header(struct fragment *f, const char *line)
{
	char name[128];
	const char *rest;
	int kind = ini_section_header(line, name, sizeof(name), &rest);
	if (kind < 0)
		ferr(f, name, "unexpected text after the section header: '%.*s'",
		     (int)strcspn(rest, "\r\n") < 40 ? (int)strcspn(rest, "\r\n") : 40, rest);
	else if (kind > 0 && strcmp(name, "machine") && strcmp(name, "costs"))
		ferr(f, name, "a " FRAGMENT_OPTION " file holds only [machine] and [costs] sections");
}

static char *reader(char *str, int num, void *stream)
{
	struct fragment *f = stream;
	bool too_long;
	if (!ini_next_line(f->text, &f->pos, &f->line, str, num, &too_long))
		return NULL;
	if (too_long)
		ferr(f, NULL, "line longer than %d characters", num - 2);
	check_header(f, str);
	return str;
}

static int handler(void *user, const char *section, const char *name, const char *value)
{
	struct fragment *f = user;
	char key[160], why[1024];
	snprintf(key, sizeof(key), "%s.%s", section, name);
	if (strcmp(section, "machine") && strcmp(section, "costs")) {
		ferr(f, *section ? key : name, "a " FRAGMENT_OPTION " file holds only [machine] and "
		     "[costs] keys");
		return 0;
	}
	int k = scenario_key_index(key);
	if (k >= 0 && f->seen[k]) {
		ferr(f, key, "set twice in one " FRAGMENT_OPTION " file");
		return 0;
	}
	if (scenario_set_option(f->sc, FRAGMENT_OPTION, key, value, why, sizeof(why))) {
		/* "--costs: KEY: why" -> "FILE:LINE: KEY: why" */
		const char *msg = why;
		if (!strncmp(msg, FRAGMENT_OPTION ": ", sizeof(FRAGMENT_OPTION ": ") - 1))
			msg += sizeof(FRAGMENT_OPTION ": ") - 1;
		ferr(f, NULL, "%s", msg);
		return 0;
	}
	f->seen[k] = true;
	f->keys++;
	return 1;
}

int scenario_apply_fragment(struct scenario *sc, const char *path, char *err, size_t errlen)
{
	char *text;
	size_t len;
	if (read_input_file(path, MAX_FRAGMENT_BYTES, &text, &len, err, errlen))
		return -1;
	if (strlen(text) != len) {
		snprintf(err, errlen, "%s: a NUL byte: a " FRAGMENT_OPTION " file is text", path);
		free(text);
		return -1;
	}
	struct fragment f = { .sc = sc, .path = path, .text = text, .err = err, .errlen = errlen };
	int rc = ini_parse_stream(reader, &f, handler, &f);
	free(text);
	if (rc == -2) {
		snprintf(err, errlen, "%s: out of memory", path);
		return -1;
	}
	if (rc > 0 && (!f.err_line || rc < f.err_line)) {
		snprintf(err, errlen, "%s:%d: expected '[section]' or 'key = value'", path, rc);
		return -1;
	}
	if (!f.err_line && !f.keys) { /* a comment-only file would change nothing, silently */
		snprintf(err, errlen, "%s: no [machine] or [costs] key: nothing to apply", path);
		return -1;
	}
	return f.err_line ? -1 : 0;
}
