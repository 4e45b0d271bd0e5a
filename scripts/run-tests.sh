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
set -euo pipefail

if [[ $# -ne 1 ]]; then
    echo "usage: $0 BUILD_DIR" >&2
    exit 2
fi

BUILD_DIR=${1%/}
[[ $BUILD_DIR = /* ]] || BUILD_DIR="$PWD/$BUILD_DIR"
NUMASIM_BIN="$BUILD_DIR/numasim"
TEST_TIMEOUT=${TEST_TIMEOUT:-600}

passed=0
failed=0
failed_names=()

base_tmp=$(mktemp -d "${TMPDIR:-/tmp}/numasim-tests.XXXXXX")
cleanup() { rm -rf "$base_tmp"; }
trap cleanup EXIT

# run_capped OUTFILE CMD... : run CMD with a time limit, output -> OUTFILE.
run_capped() {
    local out=$1; shift
    local rc=0
    # The outer 2>/dev/null only silences bash's own "Aborted"/"Segmentation
    # fault" job notices; the test's output goes to $out.
    if command -v timeout >/dev/null 2>&1; then
        { timeout --kill-after=10 "$TEST_TIMEOUT" "$@" >"$out" 2>&1 </dev/null || rc=$?; } 2>/dev/null
    else
        { "$@" >"$out" 2>&1 </dev/null || rc=$?; } 2>/dev/null
    fi
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

# ---- unit tests -------------------------------------------------------------

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

if [[ ${#unit_srcs[@]} -gt 0 ]]; then
    echo "==> unit tests ($BUILD_DIR)"
fi
for src in "${unit_srcs[@]}"; do
    name=$(basename "$src" .c)
    bin="$BUILD_DIR/tests/$name"
    if [[ ! -x $bin ]]; then
        echo "--- $name: FAIL (binary $bin not built)"
        failed=$((failed + 1)); failed_names+=("$name")
        continue
    fi
    out="$base_tmp/$name.out"
    rc=0
    t=$(fresh_tmp)
    run_capped "$out" env CMOCKA_MESSAGE_OUTPUT=stdout TMPDIR="$t" NUMASIM="$NUMASIM_BIN" "$bin" || rc=$?
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
        failed_names+=("$name")
        echo "--- $name: FAIL ($p passed, $f failed)$note"
    else
        echo "--- $name: PASS ($p passed)"
    fi
done

# ---- end-to-end tests -------------------------------------------------------

if [[ ${#e2e_scripts[@]} -gt 0 ]]; then
    echo "==> end-to-end tests ($BUILD_DIR)"
    if [[ ! -x $NUMASIM_BIN ]]; then
        echo "warning: $NUMASIM_BIN does not exist or is not executable" >&2
    fi
fi
for script in "${e2e_scripts[@]}"; do
    name=${script#tests/}
    out="$base_tmp/$(basename "$script").out"
    rc=0
    t=$(fresh_tmp)
    run_capped "$out" env NUMASIM="$NUMASIM_BIN" TMPDIR="$t" bash "$script" || rc=$?
    if [[ $rc -eq 0 ]]; then
        echo "$name: PASS"
        passed=$((passed + 1))
    else
        echo "$name: FAIL ($(describe_rc "$rc"))"
        sed 's/^/    | /' "$out"
        failed=$((failed + 1)); failed_names+=("$name")
    fi
done

# ---- summary ----------------------------------------------------------------

if [[ ${#failed_names[@]} -gt 0 ]]; then
    echo "failed: ${failed_names[*]}"
fi
echo "$passed passed, $failed failed"
[[ $failed -eq 0 ]]
