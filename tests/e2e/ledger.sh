#!/usr/bin/env bash
# The x86 round ledger (arch/x86/mm/tlb.c) changes no result: with it off
# (NUMASIM_LEDGER=0, every flush round handles every receiver itself) the
# runs give the same bytes, in both modes, over the scenarios whose state
# a round reads: one process and several (whose rounds reach each other's
# members, with threads sleeping and waking), kernels before and after
# v6.14's lazy mm_cpumask, migrations by faults and by migrate_pages(2),
# large folios, and an INVLPGB machine flushing with IPIs (v6.12).
set -euo pipefail
: "${NUMASIM:?NUMASIM must name the numasim binary}"
work=$(mktemp -d "${TMPDIR:-/tmp}/ledger.XXXXXX")
trap 'rm -rf "$work"' EXIT
fail() { echo "FAIL: $*" >&2; exit 1; }
strip() { sed -E -e 's/"wall[a-z_]*": *[0-9.e+-]+//' "$1"; }
unset NUMASIM_LEDGER
procs="--set workload.processes=2 --set workload.threads=12 --set workload.run_ms=5 --set workload.sleep_ms=5"
for run in "small --duration 6" "small --duration 4 $procs" "small --duration 4 --kernel v6.4 $procs" \
    "small-invlpgb --duration 4 --kernel v6.12" "migratepages --duration 4" "numa02 --duration 3" \
    "seed-thp --duration 2"; do
    for mode in "" "--exact"; do
        name=$(echo "$run $mode" | tr -c 'a-z0-9' '_' | cut -c1-80)
        # shellcheck disable=SC2086 # $run and $mode are word lists
        "$NUMASIM" run $run $mode --quiet --json "$work/$name.on.json" >/dev/null 2>&1 ||
            fail "run $run $mode failed"
        # shellcheck disable=SC2086
        NUMASIM_LEDGER=0 "$NUMASIM" run $run $mode --quiet --json "$work/$name.off.json" \
            >/dev/null 2>&1 || fail "run $run $mode (ledger off) failed"
        cmp -s <(strip "$work/$name.on.json") <(strip "$work/$name.off.json") ||
            fail "$run $mode: the ledger changed the results"
    done
done
# the receivers' fixed-point sums hold the largest costs the input takes
# (a 100,000-page range flush at 1 s a page, the costs' maximum): no
# overflow, positive time
"$NUMASIM" run small --duration 2 --set x86.tlb_single_page_flush_ceiling=100000 \
    --set costs.invlpg_ns=1e9 --quiet --json "$work/huge.json" >/dev/null 2>&1 ||
    fail "a run with huge flush costs failed"
grep -Eq '"ipi_handle": [1-9][0-9.]*e1[0-9]' "$work/huge.json" ||
    fail "huge flush costs: receivers' time $(grep -o '"ipi_handle": [^,]*' "$work/huge.json")"
echo "ok"
