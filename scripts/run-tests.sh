#!/usr/bin/env bash
# Run numasim's unit tests (cmocka) and end-to-end tests.
# Usage: scripts/run-tests.sh BUILD_DIR     (run from the repository root)
#
# Unit tests:  every tests/unit/test_*.c -> BUILD_DIR/tests/test_*; each binary
#              counts as the number of tests in its cmocka summary lines.
# E2E tests:   every tests/e2e/*.sh, run with NUMASIM=<binary> and a fresh TMPDIR;
#              each script is one test (exit 0 = pass).
# Prints a final line "N passed, N failed"; exits non-zero if anything failed.
# TEST_TIMEOUT (seconds, default 600) bounds each binary/script.
# TEST_E2E (optional): space-separated e2e script names (without .sh) to run
# instead of all of them.
# TEST_JOBS (default: nproc): how many binaries/scripts run at once.  Each
# test's output is buffered and printed when it ends, in the order above,
# whatever order they finish in; its PASS/FAIL line ends with its wall time
# ("(12.3 s)").  The scripts in START_FIRST start first; those in RUN_ALONE
# run after all the others, one at a time with nothing beside them (the
# output of both still in its place).
set -euo pipefail

if [[ $# -ne 1 ]]; then
    echo "usage: $0 BUILD_DIR" >&2
    exit 2
fi

BUILD_DIR=${1%/}
[[ $BUILD_DIR = /* ]] || BUILD_DIR="$PWD/$BUILD_DIR"
NUMASIM_BIN="$BUILD_DIR/numasim"
TEST_TIMEOUT=${TEST_TIMEOUT:-600}
TEST_JOBS=${TEST_JOBS:-$(nproc 2>/dev/null || echo 1)}
[[ $TEST_JOBS =~ ^[0-9]+$ ]] || { echo "run-tests.sh: TEST_JOBS must be a number, not '$TEST_JOBS'" >&2; exit 2; }
[[ $TEST_JOBS -ge 1 ]] || TEST_JOBS=1

# E2E scripts that must not overlap with any other test: they run at the
# end, alone.  (None at present: tests/e2e/slurm.sh keeps its daemons'
# ports, key, state and logs in its own TMPDIR, numaload_restore.sh writes
# the kernel's tunables only in a private mount namespace, and no script
# writes into the tree or builds.)
RUN_ALONE=()
# E2E scripts started before the rest (their output still in its place):
# the slowest, so that none of them starts last and runs on alone at the
# end while the other cores idle.  Measured on 2 cores (release / ASan):
# trace 34-41 s / 52 s, invariants 27-32 s / 159 s, slurm 27 s / 30 s,
# hostile 9-17 s / 44 s; most others take under 10 s / 35 s.
START_FIRST=(invariants trace slurm hostile)

passed=0
failed=0
failed_names=()

base_tmp=$(mktemp -d "${TMPDIR:-/tmp}/numasim-tests.XXXXXX")

# The running tests: pid of each runner subshell -> its index.
declare -A running=()
stop_running() {
    local pid
    for pid in "${!running[@]}"; do kill -TERM "$pid" 2>/dev/null || true; done
    for pid in "${!running[@]}"; do wait "$pid" 2>/dev/null || true; done
    running=()
}
cleanup() {
    stop_running
    rm -rf "$base_tmp"
}
trap cleanup EXIT
# Ctrl-C or a kill: stop every test (a runner passes the TERM on to its
# test's process group), then exit as the signal would.
trap 'trap - INT; cleanup; trap - EXIT; kill -INT $$' INT
trap 'trap - TERM; cleanup; trap - EXIT; kill -TERM $$' TERM
trap 'trap - HUP; cleanup; trap - EXIT; kill -HUP $$' HUP

# Microseconds since the epoch.
now_us() {
    if [[ -n ${EPOCHREALTIME:-} ]]; then
        echo "${EPOCHREALTIME//[!0-9]/}"
    else
        date +%s%6N
    fi
}

# run_capped OUTFILE CMD... : run CMD with a time limit, output -> OUTFILE.
# The command runs in the background so that a TERM to this (sub)shell can
# be passed on to it; timeout(1) puts it in a process group of its own and
# passes a signal on to the whole group.
run_capped() {
    local out=$1; shift
    local rc=0 pid=""
    trap '[[ -z $pid ]] || { kill -TERM "$pid" 2>/dev/null || true; wait "$pid" 2>/dev/null || true; }; exit 143' TERM
    if command -v timeout >/dev/null 2>&1; then
        timeout --kill-after=10 "$TEST_TIMEOUT" "$@" >"$out" 2>&1 </dev/null &
    else
        "$@" >"$out" 2>&1 </dev/null &
    fi
    pid=$!
    # The 2>/dev/null only silences bash's own "Aborted"/"Segmentation
    # fault" job notices; the test's output goes to $out.
    { wait "$pid" || rc=$?; } 2>/dev/null
    trap - TERM
    return "$rc"
}

fresh_tmp() {
    mktemp -d "$base_tmp/tmp.XXXXXX"
}

describe_rc() {
    local rc=$1
    if [[ $rc -eq 124 ]]; then
        echo "timed out after ${TEST_TIMEOUT}s"
    elif [[ $rc -gt 128 ]]; then
        echo "killed by signal $((rc - 128))"
    else
        echo "exit status $rc"
    fi
}

# ---- the tests ----------------------------------------------------------------

shopt -s nullglob
unit_srcs=(tests/unit/test_*.c)
e2e_scripts=(tests/e2e/*.sh)
shopt -u nullglob
if [[ -n ${TEST_E2E:-} ]]; then
    e2e_scripts=()
    for n in $TEST_E2E; do
        [[ -f tests/e2e/$n.sh ]] || { echo "run-tests.sh: no tests/e2e/$n.sh" >&2; exit 2; }
        e2e_scripts+=("tests/e2e/$n.sh")
    done
fi

# Test i: kind[i] (unit or e2e), name[i], what[i] (the binary or script).
kind=(); name=(); what=()
for src in "${unit_srcs[@]}"; do
    n=$(basename "$src" .c)
    kind+=(unit); name+=("$n"); what+=("$BUILD_DIR/tests/$n")
done
first_e2e=${#kind[@]}
for script in "${e2e_scripts[@]}"; do
    kind+=(e2e); name+=("${script#tests/}"); what+=("$script")
done
ntests=${#kind[@]}

# in_list NAME LIST...: is NAME one of LIST?
in_list() {
    local x=$1 s; shift
    for s in "$@"; do [[ $x == "$s" ]] && return 0; done
    return 1
}

# run_one I: run test I (in a subshell of its own, in the background); its
# output goes to $base_tmp/I.out, then "EXIT_STATUS MICROSECONDS" to I.rc.
run_one() {
    local i=$1 rc=0 t0 t1 t
    trap - EXIT INT TERM HUP
    t=$(fresh_tmp)
    t0=$(now_us)
    if [[ ${kind[i]} == unit ]]; then
        run_capped "$base_tmp/$i.out" env CMOCKA_MESSAGE_OUTPUT=stdout TMPDIR="$t" NUMASIM="$NUMASIM_BIN" \
            "${what[i]}" || rc=$?
    else
        run_capped "$base_tmp/$i.out" env NUMASIM="$NUMASIM_BIN" TMPDIR="$t" bash "${what[i]}" || rc=$?
    fi
    t1=$(now_us)
    echo "$rc $((t1 - t0))" >"$base_tmp/$i.rc.tmp"
    mv "$base_tmp/$i.rc.tmp" "$base_tmp/$i.rc"
}

# start I: run test I in the background.
start() {
    local i=$1
    if [[ ${kind[i]} == unit && ! -x ${what[i]} ]]; then
        : >"$base_tmp/$i.missing"
        return
    fi
    # The runner's own complaints (not the test's output) go to I.log.
    run_one "$i" 2>"$base_tmp/$i.log" &
    running[$!]=$i
}

# reap: wait for one running test to end (at least one; more if they have).
reap() {
    local pid="" gone=0
    if (( BASH_VERSINFO[0] > 5 || (BASH_VERSINFO[0] == 5 && BASH_VERSINFO[1] >= 1) )); then
        wait -n -p pid "${!running[@]}" 2>/dev/null || true
    else
        wait -n 2>/dev/null || true     # bash < 5.1: no -p, see below
    fi
    if [[ -n $pid && -n ${running[$pid]+set} ]]; then
        unset "running[$pid]"
        return
    fi
    # Which one ended is not known: forget every runner that is gone.
    for pid in "${!running[@]}"; do
        if ! kill -0 "$pid" 2>/dev/null; then
            wait "$pid" 2>/dev/null || true
            unset "running[$pid]"; gone=1
        fi
    done
    [[ $gone -eq 1 ]] || sleep 0.1
}

# "12.3 s" from microseconds
fmt_secs() {
    local ds=$(( ($1 + 50000) / 100000 ))
    echo "$((ds / 10)).$((ds % 10)) s"
}

# report I: print test I's output and verdict, count it.
report() {
    local i=$1 n out rc us line p f summaries note secs
    n=${name[i]} out="$base_tmp/$i.out"
    if [[ $i -eq 0 && ${kind[i]} == unit ]]; then
        echo "==> unit tests ($BUILD_DIR)"
    fi
    if [[ $i -eq $first_e2e ]]; then
        echo "==> end-to-end tests ($BUILD_DIR)"
        if [[ ! -x $NUMASIM_BIN ]]; then
            echo "warning: $NUMASIM_BIN does not exist or is not executable" >&2
        fi
    fi
    if [[ -e $base_tmp/$i.missing ]]; then
        echo "--- $n: FAIL (binary ${what[i]} not built)"
        failed=$((failed + 1)); failed_names+=("$n")
        return
    fi
    if [[ ! -e $base_tmp/$i.rc ]]; then
        # The runner itself died (it should not): say what it said.
        rc=255; us=0
        { cat "$base_tmp/$i.log" 2>/dev/null || true; } >>"$out"
    else
        read -r rc us <"$base_tmp/$i.rc"
    fi
    secs=$(fmt_secs "$us")
    [[ -e $out ]] || : >"$out"

    if [[ ${kind[i]} == e2e ]]; then
        if [[ $rc -eq 0 ]]; then
            echo "$n: PASS ($secs)"
            passed=$((passed + 1))
        else
            echo "$n: FAIL ($(describe_rc "$rc")) ($secs)"
            sed 's/^/    | /' "$out"
            failed=$((failed + 1)); failed_names+=("$n")
        fi
        return
    fi

    cat "$out"
    p=0; f=0; summaries=0
    while IFS= read -r line; do
        if [[ $line =~ ^\[\ \ PASSED\ \ \]\ +([0-9]+)\ test ]]; then
            p=$((p + BASH_REMATCH[1])); summaries=$((summaries + 1))
        elif [[ $line =~ ^\[\ \ FAILED\ \ \]\ +([0-9]+)\ test ]]; then
            f=$((f + BASH_REMATCH[1]))
        fi
    done <"$out"

    note=""
    if [[ $summaries -eq 0 ]]; then
        # Crashed (or never ran the cmocka runner): one failure for the binary.
        f=$((f + 1))
        note=" (no cmocka summary; $(describe_rc "$rc"))"
    elif [[ $rc -ne 0 && $f -eq 0 ]]; then
        # Summary said all passed but the binary failed afterwards (e.g. leak
        # report at exit, crash during teardown).
        f=1
        note=" (tests passed but binary failed: $(describe_rc "$rc"))"
    fi
    passed=$((passed + p))
    failed=$((failed + f))
    if [[ $f -gt 0 ]]; then
        failed_names+=("$n")
        echo "--- $n: FAIL ($p passed, $f failed)$note ($secs)"
    else
        echo "--- $n: PASS ($p passed) ($secs)"
    fi
}

# Print, in order, every test that has ended and whose predecessors have.
next_report=0
flush() {
    while [[ $next_report -lt $ntests ]] &&
          [[ -e $base_tmp/$next_report.rc || -e $base_tmp/$next_report.missing ]]; do
        report "$next_report"
        next_report=$((next_report + 1))
    done
}

# The order to start them in: START_FIRST, then the rest as listed, then
# RUN_ALONE (each alone).
first=(); rest=(); later=()
for s in "${START_FIRST[@]}"; do
    for ((i = first_e2e; i < ntests; i++)); do
        [[ ${what[i]} != "tests/e2e/$s.sh" ]] || in_list "$s" "${RUN_ALONE[@]}" || first+=("$i")
    done
done
for ((i = 0; i < ntests; i++)); do
    b=${what[i]##*/}; b=${b%.sh}
    if [[ ${kind[i]} == e2e ]] && in_list "$b" "${RUN_ALONE[@]}"; then
        later+=("$i")
    elif [[ ${kind[i]} != e2e ]] || ! in_list "$b" "${START_FIRST[@]}"; then
        rest+=("$i")
    fi
done
# The pool: TEST_JOBS at a time...
for i in "${first[@]}" "${rest[@]}"; do
    while [[ ${#running[@]} -ge $TEST_JOBS ]]; do reap; flush; done
    start "$i"
    flush
done
while [[ ${#running[@]} -gt 0 ]]; do reap; flush; done
# ...then RUN_ALONE, one by one.
for i in "${later[@]}"; do
    start "$i"
    while [[ ${#running[@]} -gt 0 ]]; do reap; done
    flush
done
# A runner that died without its .rc (it should not): report() counts it
# as failed.
for ((i = next_report; i < ntests; i++)); do report "$i"; done

# ---- summary ----------------------------------------------------------------

if [[ ${#failed_names[@]} -gt 0 ]]; then
    echo "failed: ${failed_names[*]}"
fi
echo "$passed passed, $failed failed"
[[ $failed -eq 0 ]]
