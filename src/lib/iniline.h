/* inih's fgets-style reader over a file's text in memory, shared by the
 * scenario and sweep parsers: one physical line per call, leading blanks
 * dropped (inih would take an indented line for the continuation of the
 * previous value; numasim's files have no multi-line values). */
#ifndef NUMASIM_INILINE_H
#define NUMASIM_INILINE_H

#include <stdbool.h>
#include <stddef.h>

/* The next line of @text from *@pos into @str (room for @num bytes, with
 * its newline), *@pos and *@line advanced; NULL at the end.  A line that
 * does not fit is given empty, and *@too_long says so. */
char *ini_next_line(const char *text, size_t *pos, int *line, char *str, int num, bool *too_long);

#endif
