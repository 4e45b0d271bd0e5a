#!/usr/bin/env bash
# Every built-in scenario, short, with the invariant checks on (--check:
# mm/debug.c every 0.1 simulated s and at the end; NUMASIM_CHECK: the
# folio, free-count and touch-model checks of mm/folio_check.c at the end),
# and the small machine
# with every kernel base and patch, and a few in the exact mode: a violated
# invariant aborts the run.
# CI runs this in the release, sanitizer and debug builds.
set -euo pipefail

: "${NUMASIM:?NUMASIM must name the numasim binary}"
work=$(mktemp -d "${TMPDIR:-/tmp}/invariants.XXXXXX")

fail() {
    echo "FAIL: $*" >&2
    exit 1
}

# check NAME ARGS...: run with --check; print the number of full checks.
check() {
    local name=$1 rc=0
    shift
    NUMASIM_CHECK=1 "$NUMASIM" run "$@" --check >/dev/null 2>"$work/err" || rc=$?
    [[ $rc -eq 0 ]] || fail "$name: exit status $rc: $(cat "$work/err")"
    local n
    n=$(sed -n 's/^invariants: \([0-9]*\) full checks, none violated$/\1/p' "$work/err")
    [[ -n $n && $n -gt 0 ]] || fail "$name: no invariant checks ran: $(cat "$work/err")"
    echo "ok: $name: $n full checks"
}

for s in $("$NUMASIM" scenarios | awk '{ print $1 }'); do
    d=5
    # the full-state check walks every page each second: the seed's 120 GiB
    # (and seed-tiered's) for half the time, tpp-cache's 80 GiB for one second
    [[ $s == seed || $s == seed-tiered ]] && d=2.5
    [[ $s == tpp-cache* ]] && d=1
    check "$s" "$s" --duration "$d"
done
for k in v5.12 v5.15 v6.3 v6.4 v7.3+single-folio-v1 v7.3+single-folio-v2 v7.3+flush-side v7.3+mthp-numa; do
    check "small $k" small --kernel "$k" --duration 4
done
check "small map_shared" small --set workload.map_shared=true --set workload.processes=4 \
    --set workload.threads=4 --duration 4
check "small spread_shared" small --set workload.spread_shared=true --set workload.vma_mib=4 --duration 4
check "small riscv" small --set machine.flush_engine=riscv --duration 4
# the exact mode: every hint fault an event, its pick drawn ahead (in the
# debug build, each such pick is checked against the one drawn then)
for s in small numa01 pmbench-pareto migratepages seed-thp-split; do
    check "$s --exact" "$s" --exact --duration 3
done
check "small-arm64 repeat_tlbi" small-arm64 --set machine.arm64_repeat_tlbi=true --duration 4
echo "invariants: all cases passed"
