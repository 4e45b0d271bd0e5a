/* inih's fgets-style reader over a file's text in memory, shared by the
 * scenario and sweep parsers: one physical line per call, leading blanks
 * dropped (inih would take an indented line for the continuation of the
 * previous value; numasim's files have no multi-line values). */
#ifndef NUMASIM_INILINE_H
#define NUMASIM_INILINE_H

#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>

/* The next line of @text from *@pos into @str (room for @num bytes, with
 * its newline), *@pos and *@line advanced; NULL at the end.  A line that
 * does not fit is given empty, and *@too_long says so. */
char *ini_next_line(const char *text, size_t *pos, int *line, char *str, int num, bool *too_long);

/* A section header in @line: 0 when @line is none (or a malformed one,
 * which inih reports); 1 with its name in @name; -1 with its name when
 * anything but blanks or a comment follows the ']' (*@junk: that text). */
int ini_section_header(const char *line, char *name, size_t len, const char **junk);

/* Keep the first error only (later ones are often its consequences):
 * unless *@err_line is set, write "SOURCE:LINE: KEY: message" (without
 * "KEY: " when @key is NULL) into @err and set *@err_line to @line. */
void ini_verror(char *err, size_t errlen, int *err_line, const char *source, int line,
		const char *key, const char *fmt, va_list ap) __attribute__((format(printf, 7, 0)));

#endif
