/* "Did you mean" (lib/suggest.h). */
#include "lib/suggest.h"

#include <string.h>

#define MAXLEN 64
#define FAR 1000

int suggest_distance(const char *a, const char *b)
{
	size_t n = strlen(a), m = strlen(b);
	if (n > MAXLEN || m > MAXLEN)
		return FAR;
	int d[MAXLEN + 1][MAXLEN + 1];
	for (size_t i = 0; i <= n; i++)
		d[i][0] = (int)i;
	for (size_t j = 0; j <= m; j++)
		d[0][j] = (int)j;
	for (size_t i = 1; i <= n; i++)
		for (size_t j = 1; j <= m; j++) {
			int cost = a[i - 1] != b[j - 1];
			int v = d[i - 1][j] + 1;
			if (d[i][j - 1] + 1 < v)
				v = d[i][j - 1] + 1;
			if (d[i - 1][j - 1] + cost < v)
				v = d[i - 1][j - 1] + cost;
			if (i > 1 && j > 1 && a[i - 1] == b[j - 2] && a[i - 2] == b[j - 1] &&
			    d[i - 2][j - 2] + 1 < v)
				v = d[i - 2][j - 2] + 1; /* two neighbours swapped */
			d[i][j] = v;
		}
	return d[n][m];
}

void suggest_init(struct suggest *s, const char *word)
{
	s->word = word;
	s->best = NULL;
	s->dist = FAR;
}

void suggest_offer(struct suggest *s, const char *name)
{
	if (!name || !strcmp(name, s->word))
		return;
	int d = suggest_distance(s->word, name);
	size_t longer = strlen(name) > strlen(s->word) ? strlen(name) : strlen(s->word);
	if (d > 2 || (size_t)d * 3 > longer)
		return;
	if (d <= s->dist) { /* the later of equals: a newer version is listed later */
		s->dist = d;
		s->best = name;
	}
}

const char *suggest_result(const struct suggest *s)
{
	return s->best;
}
