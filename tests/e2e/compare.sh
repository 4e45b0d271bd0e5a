#!/usr/bin/env bash
# numasim compare: byte-for-byte golden output on committed fixtures (run and
# ab results), file-name headings when kernels clash, --metric, a live run,
# and bad input (exit 2, nothing on stdout).
#
# The fixtures were generated once with
#   numasim run small --duration 10 [--kernel v7.3+single-folio-v2 | --seed 2] --json F
#   numasim ab small --kernels v7.3,v7.3+single-folio-v2 --pairs 3 --duration 5 --json F
# and the .expected files are `numasim compare` on them.  They do not change
# when the simulator does: regenerate them only when the compare format does.
set -euo pipefail
: "${NUMASIM:?NUMASIM must name the numasim binary}"
fixtures=$(cd "$(dirname "$0")/fixtures" && pwd)
work=$(mktemp -d "${TMPDIR:-/tmp}/compare.XXXXXX")
fail() { echo "FAIL: $*" >&2; exit 1; }

cd "$fixtures"

# ---- golden outputs -------------------------------------------------------------
"$NUMASIM" compare run-v7.3.json run-single-folio-v2.json >"$work/run.out" ||
    fail "compare of two runs failed"
cmp "$work/run.out" compare.expected ||
    { diff -u compare.expected "$work/run.out" >&2 || true; fail "run comparison differs from compare.expected"; }

"$NUMASIM" compare ab.json >"$work/ab.out" || fail "compare of an ab result failed"
cmp "$work/ab.out" compare-ab.expected ||
    { diff -u compare-ab.expected "$work/ab.out" >&2 || true; fail "ab comparison differs from compare-ab.expected"; }

# Deterministic: the same bytes twice.
"$NUMASIM" compare run-v7.3.json run-single-folio-v2.json | cmp - "$work/run.out" ||
    fail "two identical compares differ"

# The layout of an mmtests row, and the significance marker on a mean row.
grep -Eq '^Amean     tlb-irqs/s +[0-9]+\.[0-9]{2} \(   0\.00%\) +[0-9]+\.[0-9]{2} \( +-?[0-9]+\.[0-9]{2}%\)$' "$work/run.out" ||
    fail "no mmtests-style Amean row"
grep -Eq '^Hmean     throughput ' "$work/run.out" || fail "throughput is not an Hmean row"
grep -Eq '^Amean +tput-loss-% .*\* +[0-9]+\.[0-9]{2}%\*$' "$work/ab.out" ||
    fail "no significance marker on the ab throughput-loss mean"
grep -q '^Ops NUMA hint local percent ' "$work/run.out" || fail "no Ops footer"

# ---- headings: file names where kernels clash -------------------------------------
"$NUMASIM" compare run-v7.3.json run-v7.3-seed2.json run-single-folio-v2.json >"$work/three.out" ||
    fail "compare of three runs failed"
head -n 3 "$work/three.out" | tail -n 1 | grep -Eq '^ +run-v7\.3 +run-v7\.3-seed2 +v7\.3\+single-folio-v2$' ||
    fail "unexpected headings: $(sed -n 3p "$work/three.out")"

# ---- --metric ----------------------------------------------------------------------
"$NUMASIM" compare --metric pass-ms,tlb_irqs_per_s run-v7.3.json run-single-folio-v2.json >"$work/m.out" ||
    fail "--metric failed"
n=$(grep -Ec '^(Min|Amean|Hmean|Stddev|CoeffVar|Max) ' "$work/m.out")
[ "$n" = 10 ] || fail "--metric pass-ms,tlb_irqs_per_s: $n statistic rows, expected 10"
grep -q '^Amean     pass-ms ' "$work/m.out" && ! grep -q 'migrations/s' "$work/m.out" ||
    fail "--metric picked the wrong rows"

# ---- a live run (the simulator's current output parses) -----------------------------
"$NUMASIM" run small --duration 5 --json "$work/a.json" >/dev/null 2>&1 || fail "run a failed"
"$NUMASIM" run small --duration 5 --kernel v7.3+single-folio-v2 --json "$work/b.json" >/dev/null 2>&1 ||
    fail "run b failed"
"$NUMASIM" compare "$work/a.json" "$work/b.json" >"$work/live.out" || fail "compare of live runs failed"
grep -q '^Amean     tlb-irqs/s ' "$work/live.out" || fail "live compare lacks the tlb-irqs row"

# ---- bad input: exit 2, nothing on stdout -------------------------------------------
echo '{"hello": "world"}' >"$work/other.json"
echo 'not json' >"$work/garbage.json"
bad() {
    local what=$1; shift
    local rc=0
    "$NUMASIM" compare "$@" >"$work/bad.out" 2>"$work/bad.err" || rc=$?
    [ "$rc" = 2 ] || fail "$what: exit status $rc, expected 2"
    [ ! -s "$work/bad.out" ] || fail "$what: printed a table"
    [ -s "$work/bad.err" ] || fail "$what: no message"
}
bad "missing file" run-v7.3.json "$work/missing.json"
grep -q 'missing.json' "$work/bad.err" || fail "no message naming the missing file"
bad "not a numasim result" run-v7.3.json "$work/other.json"
grep -q 'not a numasim result' "$work/bad.err" || fail "unclear message: $(cat "$work/bad.err")"
bad "not JSON" "$work/garbage.json"
bad "run and ab mixed" run-v7.3.json ab.json
grep -q 'cannot mix' "$work/bad.err" || fail "unclear message: $(cat "$work/bad.err")"
bad "unknown metric" --metric nonsense run-v7.3.json
bad "no files"
bad "unknown option" --bogus run-v7.3.json
echo ok
