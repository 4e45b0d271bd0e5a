#!/usr/bin/env bash
# Run the libFuzzer harnesses (make fuzz): each for SECONDS, one after the
# other, on a working copy of its seed corpus (tests/fuzz/corpus/NAME, kept
# as it is in the tree).  A crash, a sanitizer report, a timeout or a leak
# is a finding: its input goes to BUILD_DIR/findings/, and the script exits
# 1 after all harnesses ran.  Usage: run.sh SECONDS BUILD_DIR NAME...
set -euo pipefail

secs=$1 dir=$2
shift 2
here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
mkdir -p "$dir/findings"
status=0
total=0
ok=0
bad=0
for name in "$@"; do
    bin="$dir/fuzz_$name" work="$dir/corpus/$name" log="$dir/fuzz_$name.log"
    rm -rf "$work"
    mkdir -p "$work"
    cp "$here/corpus/$name/"* "$work/"
    dict=()
    [[ $name == scenario || $name == run ]] && dict=(-dict="$here/scenario.dict")
    [[ $name == sweep_spec ]] && dict=(-dict="$here/sweep.dict")
    [[ $name == sweep_manifest ]] && dict=(-dict="$here/manifest.dict")
    # a manifest followed by a real result is about 11 kB
    maxlen=8192
    [[ $name == sweep_manifest ]] && maxlen=32768
    rc=0
    # -timeout: one input may take a second or so (run); -rss_limit_mb: the
    # harnesses keep scenarios small; TMPDIR: the results harness's file.
    TMPDIR="$dir" "$bin" "${dict[@]}" -max_total_time="$secs" -timeout=20 -rss_limit_mb=2048 \
        -max_len="$maxlen" -print_final_stats=1 -artifact_prefix="$dir/findings/$name-" \
        "$work" >"$log" 2>&1 || rc=$?
    execs=$(sed -n 's/^stat::number_of_executed_units: *//p' "$log" | tail -n 1)
    units=$(ls "$work" | wc -l)
    if [[ $rc -ne 0 ]]; then
        status=1
        bad=$((bad + 1))
        echo "fuzz_$name: FINDING (exit $rc) after ${execs:-?} executions; see $log and $dir/findings/"
        grep -E 'ERROR|runtime error|invariant violated|VM_BUG_ON|bad error message' "$log" | head -n 5 | sed 's/^/    /'
    else
        ok=$((ok + 1))
        echo "fuzz_$name: ${execs:-?} executions in ${secs} s, corpus $units inputs, no findings"
    fi
    total=$((total + ${execs:-0}))
done
echo "fuzz: $total executions in all"
echo "$ok passed, $bad failed"
exit "$status"
