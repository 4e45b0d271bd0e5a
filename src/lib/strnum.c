/* Strict decimal numbers (see strnum.h). */
#include "lib/strnum.h"

#include <errno.h>
#include <math.h>
#include <stdlib.h>

static bool digit(char c)
{
	return c >= '0' && c <= '9';
}

/* Does @s match the decimal grammar (@frac: fraction and exponent allowed)? */
static bool decimal(const char *s, bool frac)
{
	int n = 0;
	if (*s == '-')
		s++;
	while (digit(*s))
		s++, n++;
	if (frac && *s == '.') {
		s++;
		while (digit(*s))
			s++, n++;
	}
	if (!n)
		return false;
	if (frac && (*s == 'e' || *s == 'E')) {
		s++;
		if (*s == '+' || *s == '-')
			s++;
		if (!digit(*s))
			return false;
		while (digit(*s))
			s++;
	}
	return *s == '\0';
}

int strnum_double(const char *s, double *out)
{
	char *end;
	if (!decimal(s, true))
		return -1;
	errno = 0;
	double x = strtod(s, &end);
	if (*end || (errno && errno != ERANGE) || !isfinite(x))
		return -1;
	if (errno == ERANGE && x != 0)
		return -1; /* overflow; an underflow to 0 is still 0 */
	*out = x;
	return 0;
}

int strnum_ll(const char *s, long long *out)
{
	char *end;
	if (!decimal(s, false))
		return -1;
	errno = 0;
	long long x = strtoll(s, &end, 10);
	if (*end || errno)
		return -1;
	*out = x;
	return 0;
}

int strnum_ull(const char *s, unsigned long long max, unsigned long long *out)
{
	char *end;
	if (*s == '-' || !decimal(s, false))
		return -1;
	errno = 0;
	unsigned long long x = strtoull(s, &end, 10);
	if (*end || errno || x > max)
		return -1;
	*out = x;
	return 0;
}
