/* Atomic output files (see outfile.h). */
#define _DEFAULT_SOURCE /* fchmod, fsync, realpath */
#include "lib/outfile.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

/* ---- removing temporaries on a signal ----------------------------------- */

#define NR_SLOTS 16

static char slot_path[NR_SLOTS][OUTFILE_PATH_MAX + 256];
static volatile sig_atomic_t slot_used[NR_SLOTS];
static bool handlers_installed;
static const int cleanup_signals[] = { SIGINT, SIGTERM, SIGHUP };
#define NR_CLEANUP_SIGNALS (int)(sizeof(cleanup_signals) / sizeof(cleanup_signals[0]))

/* Async-signal-safe: unlink, sigaction and raise only. */
static void on_signal(int sig)
{
	for (int i = 0; i < NR_SLOTS; i++)
		if (slot_used[i])
			unlink(slot_path[i]);
	struct sigaction sa;
	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = SIG_DFL;
	sigaction(sig, &sa, NULL);
	raise(sig);
}

static void install_handlers(void)
{
	if (handlers_installed)
		return;
	handlers_installed = true;
	for (int i = 0; i < NR_CLEANUP_SIGNALS; i++) {
		struct sigaction old, sa;
		if (sigaction(cleanup_signals[i], NULL, &old) || old.sa_handler != SIG_DFL)
			continue; /* ignored (nohup) or someone else's: leave it */
		memset(&sa, 0, sizeof(sa));
		sa.sa_handler = on_signal;
		sigemptyset(&sa.sa_mask);
		sigaction(cleanup_signals[i], &sa, NULL);
	}
}

static int slot_take(const char *tmp)
{
	install_handlers();
	for (int i = 0; i < NR_SLOTS; i++)
		if (!slot_used[i]) {
			snprintf(slot_path[i], sizeof(slot_path[i]), "%s", tmp);
			slot_used[i] = 1; /* only once the path is complete */
			return i;
		}
	return -1; /* more than NR_SLOTS at once: written, just not cleaned on a signal */
}

static void slot_drop(int i)
{
	if (i >= 0)
		slot_used[i] = 0;
}

static void block_signals(sigset_t *old)
{
	sigset_t set;
	sigemptyset(&set);
	for (int i = 0; i < NR_CLEANUP_SIGNALS; i++)
		sigaddset(&set, cleanup_signals[i]);
	sigprocmask(SIG_BLOCK, &set, old);
}

/* ---- paths ------------------------------------------------------------------ */

/* The directory part of @path ("." if none). */
static void dir_of(const char *path, char *dir, size_t len)
{
	const char *slash = strrchr(path, '/');
	if (!slash)
		snprintf(dir, len, ".");
	else if (slash == path)
		snprintf(dir, len, "/");
	else
		snprintf(dir, len, "%.*s", (int)(slash - path), path);
}

static const char *base_of(const char *path)
{
	const char *slash = strrchr(path, '/');
	return slash ? slash + 1 : path;
}

static const char *kind_of(mode_t m)
{
	if (S_ISDIR(m))
		return "a directory";
	if (S_ISFIFO(m))
		return "a FIFO";
	if (S_ISCHR(m) || S_ISBLK(m))
		return "a device";
	if (S_ISSOCK(m))
		return "a socket";
	return NULL;
}

int outfile_check(const char *what, const char *path, char *err, size_t errlen)
{
	struct stat st;
	char dir[OUTFILE_PATH_MAX];
	size_t n = strlen(path);
	if (!n || path[n - 1] == '/' || !strcmp(base_of(path), ".") || !strcmp(base_of(path), "..")) {
		snprintf(err, errlen, "%s: '%s' is not a file name", what, path);
		return -1;
	}
	if (n >= OUTFILE_PATH_MAX - 64) {
		snprintf(err, errlen, "%s: the file name is too long (%zu bytes)", what, n);
		return -1;
	}
	if (!stat(path, &st) && kind_of(st.st_mode)) {
		snprintf(err, errlen, "%s: %s is %s, not a file numasim can replace", what, path,
			 kind_of(st.st_mode));
		return -1;
	}
	dir_of(path, dir, sizeof(dir));
	if (stat(dir, &st) != 0 || !S_ISDIR(st.st_mode)) {
		snprintf(err, errlen, "%s: %s: no such directory '%s'", what, path, dir);
		return -1;
	}
	if (access(dir, W_OK | X_OK) != 0) {
		snprintf(err, errlen, "%s: %s: cannot write in its directory '%s': %s", what, path, dir,
			 strerror(errno));
		return -1;
	}
	return 0;
}

/* @path with its directory resolved: "/real/dir/base".  False if the
 * directory does not resolve. */
static bool canonical(const char *path, char *out, size_t len)
{
	char dir[OUTFILE_PATH_MAX], *real;
	dir_of(path, dir, sizeof(dir));
	if (!(real = realpath(dir, NULL)))
		return false;
	snprintf(out, len, "%s/%s", strcmp(real, "/") ? real : "", base_of(path));
	free(real);
	return true;
}

bool outfile_same(const char *a, const char *b)
{
	struct stat sa, sb;
	char ca[2 * OUTFILE_PATH_MAX], cb[2 * OUTFILE_PATH_MAX];
	if (!stat(a, &sa) && !stat(b, &sb) && sa.st_dev == sb.st_dev && sa.st_ino == sb.st_ino)
		return true;
	if (canonical(a, ca, sizeof(ca)) && canonical(b, cb, sizeof(cb)))
		return !strcmp(ca, cb);
	return !strcmp(a, b);
}

/* ---- writing ------------------------------------------------------------------ */

/* An existing file's mode is kept; a new file gets 0666 less the umask. */
static mode_t target_mode(const char *path)
{
	struct stat st;
	if (!lstat(path, &st) && S_ISREG(st.st_mode))
		return st.st_mode & 07777;
	mode_t mask = umask(0);
	umask(mask);
	return 0666 & ~mask;
}

int outfile_open(struct outfile *o, const char *what, const char *path, char *err, size_t errlen)
{
	char dir[OUTFILE_PATH_MAX];
	memset(o, 0, sizeof(*o));
	o->slot = -1;
	o->what = what;
	if (outfile_check(what, path, err, errlen))
		return -1;
	snprintf(o->path, sizeof(o->path), "%s", path);
	dir_of(path, dir, sizeof(dir));
	/* a hidden name next to the target; the base is cut to stay within NAME_MAX */
	snprintf(o->tmp, sizeof(o->tmp), "%s/.%.200s.XXXXXX", dir, base_of(path));
	int fd = mkstemp(o->tmp);
	if (fd < 0) {
		snprintf(err, errlen, "%s: %s: cannot create a file in '%s': %s", what, path, dir,
			 strerror(errno));
		o->tmp[0] = 0;
		return -1;
	}
	o->slot = slot_take(o->tmp);
	fcntl(fd, F_SETFD, FD_CLOEXEC);
	o->mode = target_mode(path);
	if (!(o->f = fdopen(fd, "w"))) {
		snprintf(err, errlen, "%s: %s: %s", what, o->tmp, strerror(errno));
		close(fd);
		outfile_discard(o);
		return -1;
	}
	return 0;
}

int outfile_retarget(struct outfile *o, const char *path, const char *stale, char *err, size_t errlen)
{
	char a[OUTFILE_PATH_MAX], b[OUTFILE_PATH_MAX];
	dir_of(o->path, a, sizeof(a));
	dir_of(path, b, sizeof(b));
	/* the temporary must be renamed within its directory */
	if (strcmp(a, b)) {
		snprintf(err, errlen, "%s: %s is not in the directory of %s", o->what, path, o->path);
		return -1;
	}
	if (outfile_check(o->what, path, err, errlen))
		return -1;
	if (strcmp(path, o->path))
		o->mode = target_mode(path);
	snprintf(o->path, sizeof(o->path), "%s", path);
	snprintf(o->stale, sizeof(o->stale), "%s", stale ? stale : "");
	return 0;
}

void outfile_release(struct outfile *o)
{
	if (o->f)
		fclose(o->f);
	o->f = NULL;
}

void outfile_discard(struct outfile *o)
{
	if (o->f)
		fclose(o->f);
	o->f = NULL;
	if (o->tmp[0])
		unlink(o->tmp);
	o->tmp[0] = 0;
	slot_drop(o->slot);
	o->slot = -1;
}

/* Make the temporary complete on disk, with the target's mode. */
static int finish(struct outfile *o, char *err, size_t errlen)
{
	int e = 0;
	if (o->f) {
		int fd = fileno(o->f);
		if (fflush(o->f) || ferror(o->f) || fsync(fd) || fchmod(fd, o->mode))
			e = errno ? errno : EIO;
		if (fclose(o->f) && !e)
			e = errno;
		o->f = NULL;
	} else {
		int fd = open(o->tmp, O_RDONLY | O_NOFOLLOW | O_CLOEXEC);
		if (fd < 0 || fsync(fd) || fchmod(fd, o->mode))
			e = errno;
		if (fd >= 0)
			close(fd);
	}
	if (e) {
		snprintf(err, errlen, "%s: cannot write %s: %s", o->what, o->path, strerror(e));
		return -1;
	}
	return 0;
}

/* The target may have become something else since outfile_check. */
static int target_ok(struct outfile *o, char *err, size_t errlen)
{
	struct stat st;
	if (!lstat(o->path, &st) && kind_of(st.st_mode)) {
		snprintf(err, errlen, "%s: %s is %s, not a file numasim can replace", o->what, o->path,
			 kind_of(st.st_mode));
		return -1;
	}
	return 0;
}

static void sync_dir(const char *path)
{
	char dir[OUTFILE_PATH_MAX];
	dir_of(path, dir, sizeof(dir));
	int fd = open(dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (fd >= 0) {
		fsync(fd); /* the rename's durability; some filesystems refuse: harmless */
		close(fd);
	}
}

int outfile_commit(struct outfile *o, char *err, size_t errlen)
{
	return outfile_commit_group(o, 1, err, errlen);
}

int outfile_commit_group(struct outfile *o, int n, char *err, size_t errlen)
{
	int i, done = 0, rc = 0;
	for (i = 0; i < n && !rc; i++)
		rc = finish(&o[i], err, errlen) || target_ok(&o[i], err, errlen) ? -1 : 0;
	if (rc) {
		for (i = 0; i < n; i++)
			outfile_discard(&o[i]);
		return -1;
	}
	sigset_t old;
	block_signals(&old);
	/* a group: no old file may stay next to a new one */
	for (i = 0; n > 1 && i < n && !rc; i++)
		if (unlink(o[i].path) && errno != ENOENT) {
			snprintf(err, errlen, "%s: cannot replace %s: %s", o[i].what, o[i].path,
				 strerror(errno));
			rc = -1;
		}
	/* nor the old file under its other name (a trace's FILE.json beside a
	 * new FILE.json.gz); only a file or a link, never what it points to */
	for (i = 0; i < n && !rc; i++) {
		struct stat st;
		if (o[i].stale[0] && !lstat(o[i].stale, &st) && (S_ISREG(st.st_mode) || S_ISLNK(st.st_mode)) &&
		    unlink(o[i].stale) && errno != ENOENT) {
			snprintf(err, errlen, "%s: cannot remove the old %s: %s", o[i].what, o[i].stale,
				 strerror(errno));
			rc = -1;
		}
	}
	for (i = 0; i < n && !rc; i++, done++)
		if (rename(o[i].tmp, o[i].path)) {
			snprintf(err, errlen, "%s: cannot write %s: %s", o[i].what, o[i].path,
				 strerror(errno));
			rc = -1;
			break;
		}
	if (rc)
		for (i = 0; i < done; i++)
			unlink(o[i].path);
	for (i = 0; i < n; i++) {
		if (i < done)
			o[i].tmp[0] = 0; /* renamed: nothing to remove */
		outfile_discard(&o[i]);
	}
	sigprocmask(SIG_SETMASK, &old, NULL);
	for (i = 0; !rc && i < n; i++)
		sync_dir(o[i].path);
	return rc;
}
