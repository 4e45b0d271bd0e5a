/* Strict number parsing for every number numasim reads (scenario values,
 * option values): plain decimal only.  strtod and strtoll also take
 * leading blanks, hexadecimal ("0x1", "0x1p3"), "inf", "nan" and a leading
 * '+'; a number written any of those ways is a typo or a trick, and is
 * refused. */
#ifndef NUMASIM_STRNUM_H
#define NUMASIM_STRNUM_H

#include <stdbool.h>

/* [-]DIGITS[.DIGITS][(e|E)[+|-]DIGITS], or [-].DIGITS...; finite.  0 or -1. */
int strnum_double(const char *s, double *out);
/* [-]DIGITS, within long long.  0 or -1. */
int strnum_ll(const char *s, long long *out);
/* DIGITS, at most @max.  0 or -1. */
int strnum_ull(const char *s, unsigned long long max, unsigned long long *out);

#endif
