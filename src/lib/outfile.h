/* Output files, written atomically: every file numasim writes (--json,
 * traces, plots) goes through here.
 *
 * A file is written to a unique temporary in the target's directory
 * (mkstemp: created O_EXCL, so never through a planted link), flushed to
 * disk, given the target's mode if the target exists (else 0666 less the
 * umask), and renamed over the target.  A target that is a directory, a
 * FIFO, a device or a socket is refused before anything is written; a
 * symbolic link at the target is replaced, not followed.  On an error, and
 * on SIGINT, SIGTERM or SIGHUP, the temporaries are removed.  Several files
 * that belong together (a trace's .json and .txt) are committed as a group:
 * with those signals held, the old targets are removed first and the new
 * ones renamed in, so an interrupted commit leaves a missing file, never a
 * new file next to an old one. */
#ifndef NUMASIM_OUTFILE_H
#define NUMASIM_OUTFILE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>
#include <sys/types.h>

#define OUTFILE_PATH_MAX 4096

struct outfile {
	char path[OUTFILE_PATH_MAX];      /* the target */
	char tmp[OUTFILE_PATH_MAX + 256]; /* the temporary, "" when none */
	const char *what;                 /* the option that named it, for messages */
	FILE *f;                          /* open on the temporary, or NULL */
	mode_t mode;
	int slot;                         /* signal-cleanup slot, -1 if none */
	char stale[OUTFILE_PATH_MAX];     /* removed at the commit, or "" (outfile_retarget) */
};

/* Can @path be written?  Its directory must exist and be writable, and the
 * path must not name a directory, FIFO, device or socket.  @what names the
 * option in messages ("--json").  0, or -1 with a message in @err. */
int outfile_check(const char *what, const char *path, char *err, size_t errlen);

/* Do @a and @b name the same file (after resolving their directories, or
 * as the same existing inode)? */
bool outfile_same(const char *a, const char *b);

/* Create the temporary for @path; o->f is open on it.  0 or -1 (@err). */
int outfile_open(struct outfile *o, const char *what, const char *path, char *err, size_t errlen);

/* Give @o, before its commit, the target @path in the same directory (the
 * temporary is renamed there) instead of the one it was opened for, and
 * say which file it replaces under another name (@stale, or NULL): the
 * commit removes that one if it is a file or a link, with the group's old
 * targets.  A trace's FILE.json becomes FILE.json.gz this way once the
 * run's size is known, and an older FILE.json goes.  0, or -1 (@err). */
int outfile_retarget(struct outfile *o, const char *path, const char *stale, char *err, size_t errlen);

/* For writers that open the file themselves (gnuplot): close the stream,
 * keeping the temporary (o->tmp) for them to write. */
void outfile_release(struct outfile *o);

/* Flush, sync and rename the temporary over the target.  0, or -1 with a
 * message (the temporary is removed, the target untouched). */
int outfile_commit(struct outfile *o, char *err, size_t errlen);

/* Commit @n files as a group (see above).  0 or -1; on failure no new
 * file is left at any target of the group. */
int outfile_commit_group(struct outfile *o, int n, char *err, size_t errlen);

/* Remove the temporary, leave the target untouched.  Safe to call twice. */
void outfile_discard(struct outfile *o);

#endif
