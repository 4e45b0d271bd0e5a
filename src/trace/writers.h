/* Writing a run's trace buffer (trace/trace.h) out:
 *
 *  - Chrome trace-event JSON, for Perfetto (ui.perfetto.dev) or
 *    chrome://tracing: one process "CPUs" with a thread track per CPU,
 *    spans as complete ("X") events that nest on their track (a span that
 *    would overlap another without nesting becomes an async "b"/"e" pair),
 *    instants as "i" events, and the run's per-second series as counters;
 *    every event has a "cat" (the tracepoint's system, or what the span is
 *    part of), and a flow arrow ("s"/"f") joins each recorded unmap batch
 *    to the try_to_unmap_flush that pays for it.
 *  - ftrace-style text in trace-cmd report's layout, one line per event in
 *    time order; simulator spans as NAME_begin / NAME_end pairs.
 *
 * and the `numasim run --trace` plumbing: option checks, attaching the
 * buffer, the size check and the atomic writes.  docs/traces.md describes
 * the formats. */
#ifndef NUMASIM_TRACE_WRITERS_H
#define NUMASIM_TRACE_WRITERS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "lib/outfile.h"
#include "trace/trace.h"

struct sim;
struct timeseries;

/* Refuse to write more than this (text + JSON) unless --trace-max-mb says. */
#define TRACE_DEFAULT_MAX_MB 2048u
/* Every recorded event costs at least this many bytes of text + JSON, so a
 * buffer of max_bytes / TRACE_MIN_EVENT_BYTES events holds everything that
 * can pass the size check ... */
#define TRACE_MIN_EVENT_BYTES 128u
/* ... but at most this many events (56 bytes each in memory, ~1.1 GB). */
#define TRACE_MAX_EVENTS 20000000u

/* The Chrome JSON gzip'd (FILE.json.gz, which Perfetto opens as is): always,
 * never, or when the JSON would be over TRACE_GZIP_AUTO_MB MiB. */
enum trace_gzip { TRACE_GZIP_AUTO, TRACE_GZIP_YES, TRACE_GZIP_NO };
#define TRACE_GZIP_AUTO_MB 16u
/* zlib's level: 6, gzip's default (level 1 is faster and ~1.5x larger) */
#define TRACE_GZIP_LEVEL 6

/* What a run's --trace options asked for. */
struct trace_opts {
	const char *path;      /* --trace FILE; NULL: no trace */
	const char *window;    /* --trace-window START:END (seconds) or NULL */
	const char *events;    /* --trace-events LIST or NULL ("all") */
	const char *max_mb;    /* --trace-max-mb N or NULL */
	const char *gzip;      /* --trace-gzip yes|no|auto or NULL (auto) */
	/* filled by trace_opts_check() */
	char base[4096];       /* FILE without a .json / .json.gz / .txt / .dat suffix */
	int gz;                /* enum trace_gzip */
	uint64_t start, end;   /* ns; end UINT64_MAX: to the end of the run */
	uint32_t mask;
	uint64_t max_bytes;
	size_t max_events;
};

/* Check and derive the options, before a run of @duration_ns.
 * 0, or -1 with a message in @err. */
int trace_opts_check(struct trace_opts *o, uint64_t duration_ns, char *err, size_t errlen);
/* Give @s a trace buffer as @o says (after sim_init, before sim_run); the
 * buffer measures itself as it fills and stops the run (s->stop) as soon
 * as the trace is over its size limit.  0 or -1 (out of memory). */
int trace_attach(struct sim *s, const struct trace_opts *o);

/* After the run: the size check.  0 with *@out the trace to write (NULL if
 * none was asked for), or an exit status after a message to @msg: 1
 * (failure) or EXIT_TRACE_TOO_LARGE (over the limit: the message says how
 * far the run got and which --trace-window or --trace-events would fit;
 * the caller writes nothing).  @scenario names the run in the headers. */
struct trace_output;
int trace_finish_run(const struct sim *s, const struct trace_opts *o, const char *scenario, FILE *msg,
		     struct trace_output **out);
#define EXIT_TRACE_TOO_LARGE 2
/* Create the temporaries of FILE.json (or .json.gz), FILE.txt and FILE.dat in @files,
 * before the run: a trace that cannot be written fails before it, not
 * after.  0, or -1 with a message and none left behind. */
#define TRACE_FILES 3
int trace_files_open(const struct trace_opts *o, struct outfile files[TRACE_FILES], char *err, size_t errlen);
/* Write the trace into @files (trace_files_open), for the caller to
 * commit with the run's other outputs (outfile_commit_group).  0, or -1
 * with a message naming the file and the reason (a full disk), and the
 * temporaries removed. */
int trace_output_write(struct trace_output *x, struct outfile files[TRACE_FILES], char *err, size_t errlen);
/* The "trace: N events ..." line, once committed. */
void trace_output_report(const struct trace_output *x, FILE *msg);
void trace_output_free(struct trace_output *x);

/* The writers work from a plan: the events' output order (time; within the
 * same nanosecond, the order the simulated code ran them in, a span's begin
 * before what happened inside it) and which spans must be async. */
struct trace_plan;
struct trace_plan *trace_plan_new(const struct trace_buf *t);  /* NULL: out of memory */
void trace_plan_free(struct trace_plan *p);
size_t trace_plan_spans(const struct trace_plan *p);
size_t trace_plan_async(const struct trace_plan *p);  /* spans that do not nest */
/* The plan's items in output order: item @i is event (the return value)'s
 * instant (*kind 0), begin (1) or end (2), at *time ns. */
size_t trace_plan_items(const struct trace_plan *p);
size_t trace_plan_item(const struct trace_plan *p, size_t i, int *kind, uint64_t *time);

struct trace_meta {
	int nr_cpus;
	const struct timeseries *ts;  /* counter tracks; NULL: none */
	uint64_t start, end;          /* window, ns (counters: the seconds overlapping it) */
	uint64_t dropped;             /* events the buffer could not hold */
	const char *title;            /* one line for the headers */
	uint64_t *type_bytes;         /* NULL, or [NR_TRACE_TYPES]: bytes added per event type */
};
/* Write (or, with @f NULL, only count) the JSON / the text; *@bytes gets
 * the size.  0, or -1 on a write error. */
int trace_write_json(const struct trace_buf *t, const struct trace_plan *p,
		     const struct trace_meta *m, FILE *f, uint64_t *bytes);
int trace_write_text(const struct trace_buf *t, const struct trace_plan *p,
		     const struct trace_meta *m, FILE *f, uint64_t *bytes);
/* trace-cmd's trace.dat (version 6), for trace-cmd report and KernelShark
 * (trace/tracedat.c); @f NULL: only count. */
int trace_write_dat(const struct trace_buf *t, const struct trace_plan *p,
		    const struct trace_meta *m, FILE *f, uint64_t *bytes);

/* Printing names, shared with the timeline. */
const char *trace_migrate_mode_name(int64_t mode);
const char *trace_migrate_reason_name(int64_t reason);
const char *trace_flush_origin_name(int64_t origin);
const char *trace_skip_reason_name(int64_t reason);
const char *trace_numa_outcome_name(int64_t outcome);
/* Bit @bit of enum numa_migrate_refused, by name ("?" past the last). */
const char *trace_numa_refused_name(int64_t bit);
/* True for the types recorded with a duration (spans). */
bool trace_type_is_span(int type);

#endif
