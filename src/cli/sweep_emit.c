/* --emit: a sweep's points as a Slurm array script or a GNU parallel job
 * list.  The paths of numasim, the sweep file and the output directory go
 * into a shell command line and into '#SBATCH --output=', where Slurm
 * reads '%' as the start of a filename pattern (%A, %a, %x, %j ...): they
 * may hold only characters that mean nothing to sh, and a '%' is written
 * '%%' (sbatch(1), "filename pattern": "%%" is a literal "%") in the
 * pattern.  Everything is checked before the caller creates the
 * directory: a refused --emit leaves nothing behind.  See cli/sweep.h. */
#define _DEFAULT_SOURCE /* realpath */
#include "cli/sweep.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

/* Characters that need no quoting in sh nor in an #SBATCH line ('%'
 * escaped there).  No blank, quote, '$', '`', '\\', newline or glob. */
static bool plain_path(const char *s)
{
	if (!*s)
		return false;
	for (; *s; s++)
		if (!((*s >= 'a' && *s <= 'z') || (*s >= 'A' && *s <= 'Z') || (*s >= '0' && *s <= '9') ||
		      strchr("/._+-,=@%", *s)))
			return false;
	return true;
}

static int refuse(const char *what, const char *path, char *err, size_t errlen)
{
	snprintf(err, errlen, "--emit: %s %s has characters a job script cannot carry unquoted (use "
		 "letters, digits and /._+-,=@%%)", what, path);
	return -1;
}

/* @path made absolute; a directory that does not exist yet is its
 * parent's real path plus its name (nothing is created to find out). */
static int absolute(const char *what, const char *path, bool may_be_new, char *out, size_t len, char *err,
		    size_t errlen)
{
	char buf[PATH_MAX], parent[PATH_MAX];
	if (!realpath(path, buf)) {
		const char *slash = strrchr(path, '/'), *base = slash ? slash + 1 : path;
		if (errno != ENOENT || !may_be_new || !*base || !strcmp(base, ".") || !strcmp(base, "..")) {
			snprintf(err, errlen, "%s: %s: %s", what, path, strerror(errno));
			return -1;
		}
		snprintf(parent, sizeof(parent), "%.*s", slash ? (int)(slash - path) + (slash == path) : 1,
			 slash ? path : ".");
		if (!realpath(parent, buf)) {
			snprintf(err, errlen, "%s: %s: %s", what, path, strerror(errno));
			return -1;
		}
		size_t n = strlen(buf);
		if ((size_t)snprintf(buf + n, sizeof(buf) - n, "%s%s", n > 1 ? "/" : "", base) >= sizeof(buf) - n)
			return refuse(what, path, err, errlen);
	}
	if (strlen(buf) >= len || !plain_path(buf))
		return refuse(what, buf, err, errlen);
	snprintf(out, len, "%s", buf);
	return 0;
}

int sweep_emit_paths(const char *spec_path, const char *dir, struct sweep_emit_paths *ep, char *err,
		     size_t errlen)
{
	ssize_t n = readlink("/proc/self/exe", ep->exe, sizeof(ep->exe) - 1);
	if (n <= 0) {
		snprintf(err, errlen, "--emit: cannot find this program's path: %s", strerror(errno));
		return -1;
	}
	ep->exe[n] = '\0';
	if (!plain_path(ep->exe))
		return refuse("numasim's path", ep->exe, err, errlen);
	if (absolute("the sweep file", spec_path, false, ep->spec, sizeof(ep->spec), err, errlen) ||
	    absolute("the output directory", dir, true, ep->dir, sizeof(ep->dir), err, errlen))
		return -1;
	return 0;
}

/* @s with every '%' doubled: a Slurm filename pattern naming @s. */
static void fput_slurm_pattern(const char *s, FILE *f)
{
	for (; *s; s++) {
		if (*s == '%')
			fputc('%', f);
		fputc(*s, f);
	}
}

void sweep_emit_slurm(FILE *f, const struct sweep_emit_paths *ep, int nr_points)
{
	fprintf(f, "#!/bin/sh\n"
		"# numasim sweep: one array task per point (written by numasim sweep --emit slurm).\n"
		"# Submit with: sbatch %s/sweep.sbatch\n"
		"# Then: numasim sweep collect %s\n"
		"#SBATCH --job-name=numasim-sweep\n"
		"#SBATCH --array=0-%d\n"
		"#SBATCH --ntasks=1\n"
		"#SBATCH --cpus-per-task=1\n"
		"#SBATCH --output=", ep->dir, ep->dir, nr_points - 1);
	fput_slurm_pattern(ep->dir, f);
	fprintf(f, "/slurm-%%A_%%a.out\n"
		"exec %s sweep %s --out %s --point \"$SLURM_ARRAY_TASK_ID\" --jobs 1 -q\n",
		ep->exe, ep->spec, ep->dir);
}

void sweep_emit_parallel(FILE *f, const struct sweep_emit_paths *ep, int nr_points)
{
	for (int k = 0; k < nr_points; k++)
		fprintf(f, "%s sweep %s --out %s --point %d --jobs 1 -q\n", ep->exe, ep->spec, ep->dir, k);
}
