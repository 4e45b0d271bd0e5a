/* libFuzzer: the JSON readers of 'numasim compare' and 'numasim plot'.  The
 * input is a result file; compare prints its table for it (twice, as two
 * columns: the comparison paths run) and plot writes its gnuplot script,
 * both to /dev/null.  A script that would let a string end gnuplot's
 * datablock or command is a finding: every line a string can reach is
 * checked for control characters. */
#include <fcntl.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

#include "cli/cli.h"
#include "fuzz/fuzz_quiet.h"

static char path[256];
static char script[256];

static void setup(void)
{
	const char *t = getenv("TMPDIR");
	snprintf(path, sizeof(path), "%s/numasim-fuzz-results.%d.json", t && *t ? t : "/tmp", (int)getpid());
	snprintf(script, sizeof(script), "%s/numasim-fuzz-results.%d.gp", t && *t ? t : "/tmp", (int)getpid());
	int fd = open("/dev/null", O_WRONLY);
	if (fd >= 0) {
		dup2(fd, STDOUT_FILENO); /* compare's tables */
		close(fd);
	}
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	if (!path[0])
		setup();
	FILE *f = fopen(path, "w");
	if (!f)
		abort();
	fwrite(data, 1, size, f);
	fclose(f);

	int saved = quiet_begin();
	char *argv[] = { "compare", path, path, NULL };
	cmd_compare(3, argv);

	char *files[] = { path, path };
	FILE *gp = fopen(script, "w+");
	if (!gp)
		abort();
	int rc = plot_script(2, files, "fuzz.svg", gp);
	quiet_end(saved);
	if (rc == 0) {
		/* between "$x << EOD" and "EOD" only data lines; no control
		 * characters anywhere */
		rewind(gp);
		int c;
		while ((c = fgetc(gp)) != EOF)
			if ((c < 0x20 && c != '\n' && c != '\t') || c == 0x7f)
				abort();
	}
	fclose(gp);
	return 0;
}
