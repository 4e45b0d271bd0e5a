#include "lib/iniline.h"

#include <stdio.h>
#include <string.h>

char *ini_next_line(const char *text, size_t *pos, int *line, char *str, int num, bool *too_long)
{
	const char *start = text + *pos;
	*too_long = false;
	if (!*start)
		return NULL;
	size_t len = strcspn(start, "\n");
	*pos += len + (start[len] == '\n');
	(*line)++;
	while (len && (*start == ' ' || *start == '\t')) {
		start++;
		len--;
	}
	if (len + 2 > (size_t)num) {
		*too_long = true;
		len = 0;
	}
	memcpy(str, start, len);
	str[len] = '\n';
	str[len + 1] = '\0';
	return str;
}

int ini_section_header(const char *line, char *name, size_t len, const char **junk)
{
	const char *end = strchr(line, ']');
	if (line[0] != '[' || !end)
		return 0;
	snprintf(name, len, "%.*s", (int)(end - line - 1), line + 1);
	*junk = end + 1 + strspn(end + 1, " \t\r\n");
	return **junk && **junk != '#' && **junk != ';' ? -1 : 1;
}

void ini_verror(char *err, size_t errlen, int *err_line, const char *source, int line,
		const char *key, const char *fmt, va_list ap)
{
	char msg[1024];
	if (*err_line)
		return;
	vsnprintf(msg, sizeof(msg), fmt, ap);
	*err_line = line;
	if (key)
		snprintf(err, errlen, "%s:%d: %s: %s", source, line, key, msg);
	else
		snprintf(err, errlen, "%s:%d: %s", source, line, msg);
}
