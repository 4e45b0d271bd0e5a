/* Terminal-safe text (see escape.h). */
#include "lib/escape.h"

#include <stdint.h>
#include <string.h>

/* Length of the well-formed UTF-8 sequence at @s that is printable (not a
 * C1 control, not a surrogate or overlong form), or 0. */
static size_t utf8_printable(const unsigned char *s)
{
	uint32_t cp;
	size_t n;
	if (s[0] >= 0xc2 && s[0] <= 0xdf) {
		n = 2;
		cp = s[0] & 0x1f;
	} else if (s[0] >= 0xe0 && s[0] <= 0xef) {
		n = 3;
		cp = s[0] & 0x0f;
	} else if (s[0] >= 0xf0 && s[0] <= 0xf4) {
		n = 4;
		cp = s[0] & 0x07;
	} else {
		return 0;
	}
	for (size_t i = 1; i < n; i++) {
		if ((s[i] & 0xc0) != 0x80)
			return 0;
		cp = cp << 6 | (s[i] & 0x3f);
	}
	if (cp < 0xa0 || (cp >= 0xd800 && cp <= 0xdfff) || cp > 0x10ffff ||
	    (n == 3 && cp < 0x800) || (n == 4 && cp < 0x10000))
		return 0;
	return n;
}

static size_t escape_one(const unsigned char *s, char *buf)
{
	static const char hex[] = "0123456789abcdef";
	if ((*s >= 0x20 && *s < 0x7f) || *s == '\t') {
		buf[0] = (char)*s;
		return 1;
	}
	size_t n = utf8_printable(s);
	if (n) {
		memcpy(buf, s, n);
		return n;
	}
	buf[0] = '\\';
	buf[1] = 'x';
	buf[2] = hex[*s >> 4];
	buf[3] = hex[*s & 15];
	return 4;
}

void term_escape(const char *in, char *out, size_t len)
{
	const unsigned char *s = (const unsigned char *)in;
	size_t o = 0;
	if (!len)
		return;
	while (*s) {
		char buf[4];
		size_t adv = (*s >= 0x20 && *s < 0x7f) || *s == '\t' ? 1 : utf8_printable(s);
		size_t w = escape_one(s, buf);
		if (!adv)
			adv = 1;
		if (o + w >= len)
			break;
		memcpy(out + o, buf, w);
		o += w;
		s += adv;
	}
	out[o] = '\0';
}

void fputs_escaped(const char *in, FILE *f)
{
	const unsigned char *s = (const unsigned char *)in;
	while (*s) {
		char buf[4];
		size_t adv = (*s >= 0x20 && *s < 0x7f) || *s == '\t' ? 1 : utf8_printable(s);
		size_t w = escape_one(s, buf);
		fwrite(buf, 1, w, f);
		s += adv ? adv : 1;
	}
}

bool is_printable_ascii(const char *s)
{
	for (; *s; s++)
		if (*s < 0x20 || *s >= 0x7f)
			return false;
	return true;
}
