#!/usr/bin/env bash
# Output files (issue 8, defects 5 and 9): --json, --trace and plot -o are
# written to a unique temporary and renamed; never through a planted link,
# keeping the target's mode; a directory, FIFO or device target is refused
# before the run; two outputs (or an output and the scenario file) naming
# one file are refused; two concurrent writers leave one whole file; the
# per-node counters (node_vmstat) add up to the pages allocated.
set -euo pipefail

: "${NUMASIM:?NUMASIM must name the numasim binary}"
work=$(mktemp -d "${TMPDIR:-/tmp}/outputs.XXXXXX")
cd "$work"

fail() {
    echo "FAIL: $*" >&2
    exit 1
}

run() {
    "$NUMASIM" run small --duration 0.5 --quiet "$@"
}

# expect_refused NAME WANT ARGS...: exit 2, WANT on stderr, quickly (a FIFO
# must not block), and no new file in the directory.
expect_refused() {
    local name=$1 want=$2 rc=0 before after
    shift 2
    before=$(ls -A | sort | tr '\n' ' ')
    timeout 20 "$NUMASIM" "$@" >/dev/null 2>"$name.err" || rc=$?
    [[ $rc -eq 2 ]] || fail "$name: exit status $rc, expected 2: $(cat "$name.err")"
    grep -qF -- "$want" "$name.err" || fail "$name: stderr lacks '$want': $(cat "$name.err")"
    rm -f "$name.err"
    after=$(ls -A | sort | tr '\n' ' ')
    [[ $before == "$after" ]] || fail "$name: files changed: before: $before after: $after"
    echo "ok: $name"
}

# --- a planted link is replaced, not written through -------------------------
echo precious >victim
ln -s victim out.json
ln -s victim out.json.tmp      # the old fixed temporary name
run --json out.json >/dev/null
[[ $(cat victim) == precious ]] || fail "the link's target was overwritten"
[[ -f out.json && ! -L out.json ]] || fail "out.json is not a regular file"
jq -e .vmstat out.json >/dev/null || fail "out.json is not a run result"
echo "ok: planted link"

# --- an existing file keeps its mode; no temporary is left -------------------
run --json private.json >/dev/null
chmod 600 private.json
run --json private.json >/dev/null
[[ $(stat -c %a private.json) == 600 ]] || fail "mode $(stat -c %a private.json), expected 600"
[[ -z $(ls -A | grep -E '^\.|\.tmp$' | grep -v '^out.json.tmp$' || true) ]] || fail "temporaries left: $(ls -A)"
echo "ok: mode kept, no temporaries"

# --- a directory named like the old fixed temporary is no obstacle (it once
#     made the write fail naming the wrong file) --------------------------------
mkdir in-the-way.json.tmp
run --json in-the-way.json >/dev/null
jq -e .vmstat in-the-way.json >/dev/null || fail "in-the-way.json not written"
echo "ok: PATH.tmp in the way"

# --- two writers of one path: the file is one of them, whole ----------------
run --json both.json --seed 1 >/dev/null & a=$!
run --json both.json --seed 2 >/dev/null & b=$!
wait $a; wait $b
jq -e '.vmstat.numa_hint_faults >= 0' both.json >/dev/null || fail "both.json is not whole"
echo "ok: concurrent writers"

# --- targets that are not files: refused before the run --------------------
mkdir adir
mkfifo afifo
expect_refused json_dir "--json: adir is a directory" run small --duration 0.5 --json adir
expect_refused json_fifo "--json: afifo is a FIFO" run small --duration 0.5 --json afifo
expect_refused json_device "--json: /dev/null is a device" run small --duration 0.5 --json /dev/null
expect_refused json_nodir "no such directory" run small --duration 0.5 --json nodir/x.json
mkfifo t2.txt
expect_refused trace_txt_fifo "--trace: t2.txt is a FIFO" run small --duration 0.5 --trace t2

# --- outputs that collide ---------------------------------------------------
expect_refused json_is_trace "--json t.json and --trace t.json name the same file" \
    run small --duration 0.5 --json t.json --trace t
expect_refused json_is_trace_txt "name the same file" \
    run small --duration 0.5 --json ./t.txt --trace "$work/t"
"$NUMASIM" show small >my.ini
expect_refused json_is_scenario "--json my.ini is the scenario file being run" \
    run my.ini --duration 0.5 --json my.ini
[[ $(head -c 20 my.ini) == "# numasim scenario \"" ]] || fail "my.ini was changed"

# --- node_vmstat: zone_statistics per node ------------------------------------
# Every page the page allocator gave is a hit or a miss on the node it came
# from: the workload's memory at first touch, plus one destination per
# migration (no migration failed here, so every destination was kept).  A
# memory eater on node 0 makes node 0's first touches spill to node 1:
# misses there, each one foreign on node 0.
"$NUMASIM" run small --duration 2 --quiet --set workload.eat_gib=3.8 --set workload.eat_node=0 \
    --json nodes.json >/dev/null
jq -e '.vmstat.pgmigrate_fail == 0 and .vmstat.pgmigrate_success > 0' nodes.json >/dev/null ||
    fail "node_vmstat: the run needs migrations and no failures: $(jq -c .vmstat nodes.json)"
jq -e '(.node_vmstat | length) == 2' nodes.json >/dev/null || fail "node_vmstat: not one object per node"
jq -e '([.node_vmstat[] | .numa_hit + .numa_miss] | add) ==
       (.scenario.workload.memory_gib * 262144 + .vmstat.pgmigrate_success)' nodes.json >/dev/null ||
    fail "node_vmstat: numa_hit + numa_miss != pages allocated: $(jq -c .node_vmstat nodes.json)"
jq -e '([.node_vmstat[].numa_miss] | add) == ([.node_vmstat[].numa_foreign] | add) and
       ([.node_vmstat[].numa_miss] | add) > 0 and .node_vmstat[0].numa_miss == 0 and
       ([.node_vmstat[] | .numa_local + .numa_other] | add) ==
       ([.node_vmstat[] | .numa_hit + .numa_miss] | add)' nodes.json >/dev/null ||
    fail "node_vmstat: miss/foreign/local/other do not add up: $(jq -c .node_vmstat nodes.json)"
# the shared memory is interleaved one 2 MiB chunk at a time, one allocation
# per page: its pages on the chunk's node are interleave hits
jq -e '[.node_vmstat[].numa_interleave] | add > 0' nodes.json >/dev/null ||
    fail "node_vmstat: no numa_interleave for interleaved shared memory"
echo "ok: node_vmstat"

# --- plot -o goes through the same path ---------------------------------------
if command -v gnuplot >/dev/null 2>&1; then
    ln -s victim plot.svg
    "$NUMASIM" plot out.json -o plot.svg 2>plot.err || fail "plot: $(cat plot.err)"
    [[ $(cat victim) == precious && -f plot.svg && ! -L plot.svg ]] || fail "plot wrote through a link"
    expect_refused plot_dir "-o: adir is a directory" plot out.json -o adir
    echo "ok: plot output"
fi

echo "outputs: all cases passed"
