/* Text from files or other programs, made safe for a terminal: printable
 * ASCII and well-formed UTF-8 (not C1 controls) pass; every other byte
 * becomes \xNN, so an escape sequence in a file name, a kernel name or a
 * message can neither move the cursor nor retitle the window. */
#ifndef NUMASIM_ESCAPE_H
#define NUMASIM_ESCAPE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>

/* @in escaped into @out (always NUL-terminated, cut to fit). */
void term_escape(const char *in, char *out, size_t len);
/* fputs(term_escape(@s)), with no length limit. */
void fputs_escaped(const char *s, FILE *f);
/* True if @s is printable ASCII only (what a name from a result file must
 * be before it goes to gnuplot). */
bool is_printable_ascii(const char *s);

#endif
