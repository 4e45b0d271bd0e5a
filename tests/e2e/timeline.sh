#!/usr/bin/env bash
# numasim timeline: the v7.3 timeline of `small` matches its golden file
# byte for byte, in the default mode and with --exact; with v7.3+single-folio-v2 change_pte_range never flushes
# the mm; bad options exit 2.
#
# The golden file is the simulator's output: when a model change moves it,
# inspect the new timeline and regenerate it with
#   UPDATE_GOLDEN=1 NUMASIM=./numasim bash tests/e2e/timeline.sh
set -euo pipefail
: "${NUMASIM:?NUMASIM must name the numasim binary}"
work=$(mktemp -d "${TMPDIR:-/tmp}/timeline.XXXXXX")
fail() { echo "FAIL: $*" >&2; exit 1; }
here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
golden="$here/golden/timeline-small-v7.3.txt"
args=(small --seed 1 --duration 4)

"$NUMASIM" timeline "${args[@]}" --kernel v7.3 >"$work/v73.txt" 2>"$work/err" ||
    fail "timeline v7.3 failed: $(cat "$work/err")"
if [ "${UPDATE_GOLDEN:-}" = 1 ]; then
    cp "$work/v73.txt" "$golden"
    echo "updated $golden"
fi
[ -f "$golden" ] || fail "no golden file $golden"
if ! cmp -s "$work/v73.txt" "$golden"; then
    diff -u "$golden" "$work/v73.txt" | head -40 >&2 || true
    fail "v7.3 timeline differs from $golden (see the diff above; UPDATE_GOLDEN=1 to regenerate)"
fi
"$NUMASIM" timeline "${args[@]}" --kernel v7.3 | cmp -s - "$work/v73.txt" || fail "two identical runs differ"
# the golden file holds in both modes: pooling a slice's faults (the
# default) changes nothing this timeline shows (docs/model.md 3.3a)
"$NUMASIM" timeline "${args[@]}" --kernel v7.3 --exact | cmp -s - "$golden" ||
    fail "the --exact timeline differs from $golden"

# the unpatched kernel: the scanner flushes the mm from change_pte_range
n=$(grep -c 'pending != flushed -> flush_tlb_mm' "$work/v73.txt" || true)
[ "$n" -gt 0 ] || fail "v7.3: no flush_tlb_mm from change_pte_range shown"
grep -q '^scanner: [1-9][0-9]* flush_tlb_mm from change_pte_range' "$work/v73.txt" ||
    fail "v7.3: summary shows no scanner flush_tlb_mm"
grep -q 'CPU [0-9]*: tlb_flush_batched++' "$work/v73.txt" || fail "v7.3: no batch recorded"

# the v2 patch: no flush_tlb_mm from change_pte_range, lone folios use ptep_clear_flush
"$NUMASIM" timeline "${args[@]}" --kernel v7.3+single-folio-v2 >"$work/v2.txt" 2>"$work/err" ||
    fail "timeline v7.3+single-folio-v2 failed: $(cat "$work/err")"
! grep -q -e 'pending != flushed' -e '^ *[0-9.]*    flush_tlb_batched_pending:' "$work/v2.txt" ||
    fail "v2: change_pte_range still flushes the mm: $(grep -m1 'pending != flushed' "$work/v2.txt")"
grep -q '^scanner: 0 flush_tlb_mm from change_pte_range' "$work/v2.txt" ||
    fail "v2: summary does not show 0 scanner flush_tlb_mm"
! grep -q 'CPU [0-9]*: tlb_flush_batched++' "$work/v2.txt" || fail "v2: a migration recorded a batch"
grep -q 'ptep_clear_flush: 1-page flush' "$work/v2.txt" || fail "v2: no ptep_clear_flush shown"

# --pass 2 picks another pass
"$NUMASIM" timeline small --seed 1 --kernel v7.3 --pass 2 >"$work/p2.txt" 2>/dev/null || fail "--pass 2 failed"
cmp -s "$work/p2.txt" "$work/v73.txt" && fail "--pass 2 printed the same pass"
head -3 "$work/p2.txt" | grep -q 'pass 2 after the first' || fail "--pass 2: header does not say so"

# bad input: exit 2; a pass that does not exist: exit 1 with a message
for bad in "--pass 0" "--pass x" "--kernel v9.9" "--set nosuch.key=1" "--duration -1" "--bogus"; do
    rc=0
    # shellcheck disable=SC2086
    "$NUMASIM" timeline small $bad >/dev/null 2>"$work/err" || rc=$?
    [ "$rc" = 2 ] || fail "timeline small $bad: exit status $rc, expected 2"
    [ -s "$work/err" ] || fail "timeline small $bad: no message"
done
rc=0
"$NUMASIM" timeline small --duration 1.5 --pass 50 >/dev/null 2>"$work/err" || rc=$?
[ "$rc" = 1 ] || fail "missing pass: exit status $rc, expected 1"
grep -q 'longer --duration' "$work/err" || fail "missing pass: unhelpful message: $(cat "$work/err")"
echo ok
