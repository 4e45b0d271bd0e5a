/* The command-line layer: helpers shared by the commands, and the commands
 * that live outside main.c. */
#ifndef NUMASIM_CLI_H
#define NUMASIM_CLI_H

#include <stddef.h>
#include <stdio.h>
#include <stdint.h>

#include "scenario/scenario.h"

#define EXIT_INPUT 2

/* An error message on stderr, @prefix then @msg with anything a terminal
 * would act on escaped (messages quote file contents), then a newline. */
void cli_error(const char *prefix, const char *msg);

/* This computer's physical memory (UINT64_MAX if unknown). */
uint64_t host_memory_bytes(void);

/* A built-in scenario's name, or an INI file's path. */
int load_scenario(const char *arg, struct scenario *sc, char *err, size_t errlen);

extern const char ab_usage[];
int cmd_ab(int argc, char **argv);
extern const char timeline_usage[];
int cmd_timeline(int argc, char **argv);   /* src/cli/timeline.c */
extern const char verify_usage[];
int cmd_verify(int argc, char **argv);     /* src/cli/verify.c */
extern const char plot_usage[];
int cmd_plot(int argc, char **argv);       /* src/cli/plot.c */
/* plot's gnuplot script for @paths (as for 'plot PATHS -o @out') to @f,
 * without gnuplot: 0, or 2 after a message (the results fuzzer's way in). */
int plot_script(int nfiles, char **paths, const char *out, FILE *f);
/* The same for a --kind (NULL: the default for the results). */
int plot_script_kind(int nfiles, char **paths, const char *out, const char *kind, FILE *f);
/* ... and at --width @width ("column", "page" or NULL for the default). */
int plot_script_width(int nfiles, char **paths, const char *out, const char *kind, const char *width, FILE *f);
extern const char compare_usage[];
int cmd_compare(int argc, char **argv);    /* src/cli/compare.c */
/* 'numasim compare DIR' of a sweep's directory into @f (sweep collect's
 * compare.txt): 0, or an exit status after a message. */
int compare_sweep_dir(const char *dir, FILE *f);
extern const char validate_usage[];
int cmd_validate(int argc, char **argv);   /* src/cli/validate.c */
extern const char sweep_usage[];
int cmd_sweep(int argc, char **argv);      /* src/cli/sweep.c */

#endif
