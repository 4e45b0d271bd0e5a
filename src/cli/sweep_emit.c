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

#include <ctype.h>
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

bool sweep_slurm_opt_ok(const char *opt)
{
	if (strncmp(opt, "--", 2) || !opt[2])
		return false;
	for (const char *p = opt + 2; *p; p++)
		if (!isalnum((unsigned char)*p) && !strchr("_.,:/%+@=-", *p))
			return false;
	return true;
}

static void put_opts(FILE *f, const struct sweep_slurm *sl)
{
	for (int i = 0; i < sl->nr_opt; i++)
		fprintf(f, "#SBATCH %s\n", sl->opt[i]); /* checked: sweep_slurm_opt_ok */
}

void sweep_emit_slurm(FILE *f, const struct sweep_emit_paths *ep, int nr_points,
		      const struct sweep_slurm *sl)
{
	int k = sl->points_per_task > 0 ? sl->points_per_task : 1;
	int tasks = (nr_points + k - 1) / k;
	fprintf(f, "#!/bin/sh\n"
		"# numasim sweep: %d array task%s of %d point%s each (written by numasim sweep\n"
		"# --emit slurm).  Submit the array and the collect job after it with:\n"
		"#   sh %s/submit.sh\n"
		"# or the array alone: sbatch %s/sweep.sbatch, then numasim sweep collect %s\n"
		"#SBATCH --job-name=numasim-sweep\n"
		"#SBATCH --array=0-%d", tasks, tasks == 1 ? "" : "s", k, k == 1 ? "" : "s", ep->dir,
		ep->dir, ep->dir, tasks - 1);
	if (sl->array_limit > 0)
		fprintf(f, "%%%d", sl->array_limit);
	fprintf(f, "\n#SBATCH --ntasks=1\n"
		"#SBATCH --cpus-per-task=1\n");
	put_opts(f, sl);
	fprintf(f, "#SBATCH --output=");
	fput_slurm_pattern(ep->dir, f);
	fprintf(f, "/slurm-%%A_%%a.out\n"
		"# this task's points; every one is run, the status is the worst\n"
		"p=$((SLURM_ARRAY_TASK_ID * %d))\n"
		"last=$((p + %d))\n"
		"[ \"$last\" -le %d ] || last=%d\n"
		"rc=0\n"
		"while [ \"$p\" -le \"$last\" ]; do\n"
		"    %s sweep %s --out %s --point \"$p\" --jobs 1 -q || rc=$?\n"
		"    p=$((p + 1))\n"
		"done\n"
		"exit \"$rc\"\n", k, k - 1, nr_points - 1, nr_points - 1, ep->exe, ep->spec, ep->dir);
}

void sweep_emit_collect(FILE *f, const struct sweep_emit_paths *ep, const struct sweep_slurm *sl)
{
	fprintf(f, "#!/bin/sh\n"
		"# numasim sweep collect, after the array (submit.sh makes it depend on it).\n"
		"#SBATCH --job-name=numasim-collect\n"
		"#SBATCH --ntasks=1\n"
		"#SBATCH --cpus-per-task=1\n");
	put_opts(f, sl);
	fprintf(f, "#SBATCH --output=");
	fput_slurm_pattern(ep->dir, f);
	fprintf(f, "/slurm-collect-%%j.out\n"
		"exec %s sweep collect %s -q\n", ep->exe, ep->dir);
}

void sweep_emit_submit(FILE *f, const struct sweep_emit_paths *ep)
{
	fprintf(f, "#!/bin/sh\n"
		"# Submit the sweep's array, then its collect job, to run after every task\n"
		"# has ended, whatever their status (collect counts the points missing).\n"
		"set -e\n"
		"jid=$(sbatch --parsable %s/sweep.sbatch)\n"
		"jid=${jid%%%%;*}\n"
		"sbatch --dependency=afterany:\"$jid\" %s/collect.sbatch\n"
		"echo \"numasim sweep: array job $jid, then collect\"\n", ep->dir, ep->dir);
}

void sweep_emit_parallel(FILE *f, const struct sweep_emit_paths *ep, int nr_points)
{
	for (int k = 0; k < nr_points; k++)
		fprintf(f, "%s sweep %s --out %s --point %d --jobs 1 -q\n", ep->exe, ep->spec, ep->dir, k);
}
