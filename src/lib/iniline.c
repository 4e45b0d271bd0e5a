#include "lib/iniline.h"

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
