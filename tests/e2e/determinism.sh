#!/usr/bin/env bash
# Same inputs and seed: byte-identical JSON; another seed: different JSON.
# In both modes: the default (private faults aggregated) and --exact.
set -euo pipefail
: "${NUMASIM:?NUMASIM must name the numasim binary}"
work=$(mktemp -d "${TMPDIR:-/tmp}/det.XXXXXX")
fail() { echo "FAIL: $*" >&2; exit 1; }
for i in 1 2; do
    "$NUMASIM" run small --quiet --duration 10 --json "$work/$i.json" >/dev/null 2>&1 || fail "run $i failed"
done
cmp "$work/1.json" "$work/2.json" || fail "two runs with seed 1 differ"
"$NUMASIM" run small --quiet --duration 10 --seed 2 --json "$work/3.json" >/dev/null 2>&1 || fail "seed 2 run failed"
cmp -s "$work/1.json" "$work/3.json" && fail "seeds 1 and 2 gave identical JSON"
for i in 4 5; do
    "$NUMASIM" run small --quiet --duration 10 --exact --json "$work/$i.json" >/dev/null 2>&1 || fail "exact run $i failed"
done
cmp "$work/4.json" "$work/5.json" || fail "two --exact runs with seed 1 differ"
echo "ok"
