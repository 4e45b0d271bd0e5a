#!/usr/bin/env bash
# The x86 round ledger (arch/x86/mm/tlb.c) changes no result: with it off
# (NUMASIM_LEDGER=0, every flush round handles every receiver itself) the
# runs give the same bytes, in both modes, over the scenarios whose state
# a round reads: one process and several, migrations by faults and by
# migrate_pages(2), large folios, an idle-heavy and an INVLPGB machine.
set -euo pipefail
: "${NUMASIM:?NUMASIM must name the numasim binary}"
work=$(mktemp -d "${TMPDIR:-/tmp}/ledger.XXXXXX")
trap 'rm -rf "$work"' EXIT
fail() { echo "FAIL: $*" >&2; exit 1; }
strip() { sed -E -e 's/"wall[a-z_]*": *[0-9.e+-]+//' "$1"; }
for run in "small --duration 6" "small-invlpgb --duration 4" "migratepages --duration 4" \
    "numa02 --duration 3" "seed-thp --duration 2"; do
    for mode in "" "--exact"; do
        name=$(echo "$run $mode" | tr -c 'a-z0-9' '_')
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
echo "ok"
