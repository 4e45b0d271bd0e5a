/* "Did you mean": the known name closest to a mistyped one. */
#ifndef NUMASIM_SUGGEST_H
#define NUMASIM_SUGGEST_H

#include <stddef.h>

/* Candidates are offered one at a time; the closest wins (the last of
 * equals: lists name newer versions later).  Close enough to be what was meant: an edit distance -- letters
 * inserted, deleted, replaced, or two neighbours swapped -- of at most 2 and
 * at most a third of the longer word (so 'smal' finds 'small' and 'rn'
 * finds 'run', but 'xy' finds nothing). */
struct suggest {
	const char *word;
	const char *best;
	int dist;
};

void suggest_init(struct suggest *s, const char *word);
void suggest_offer(struct suggest *s, const char *name);
/* The closest name, or NULL when none is close enough. */
const char *suggest_result(const struct suggest *s);

/* The edit distance of @a and @b (optimal string alignment), or a large
 * number when either is longer than 64 bytes. */
int suggest_distance(const char *a, const char *b);

#endif
