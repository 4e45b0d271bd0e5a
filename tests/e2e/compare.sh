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

# ---- two directories (mmtests' --baseline A --compare B) ------------------------------
# A tiny sweep per kernel (2 scan sizes x 2 seeds of 2 s on small), and one of
# both kernels on other scan sizes: seconds of runtime.
cd "$work"
cat >base.ini <<'INI'
[sweep]
scenario = small
kernels = v7.3
seeds = 1..2
[set]
run.duration_s = 2
[grid]
numa_balancing.scan_size_mb = 64, 256
INI
sed 's/^kernels = .*/kernels = v7.3+single-folio-v2/' base.ini >patch.ini
sed -e 's/^kernels = .*/kernels = v7.3, v7.3+single-folio-v2/' -e 's/= 64, 256$/= 256, 1024/' base.ini >both.ini
for s in base patch both; do "$NUMASIM" sweep $s.ini -q --jobs 2 || fail "sweep $s failed"; done

# Different kernels on each side: paired in order, point by point.
"$NUMASIM" compare base.sweep patch.sweep >dirs.out || fail "compare of two sweeps failed"
grep -q '^kernels: paired in order, none being on both sides: v7.3 with v7.3+single-folio-v2$' dirs.out ||
    fail "the kernels were not paired: $(sed -n 2p dirs.out)"
n=$(grep -c '^v7.3 vs v7.3+single-folio-v2, numa_balancing.scan_size_mb=[0-9]*, balancing on: 2 vs 2 seeds$' dirs.out)
[ "$n" = 2 ] || fail "$n blocks, expected one per scan size"
# the patch's TLB interrupts are far from v7.3's: the marker
grep -Eq '^Amean     tlb-irqs/s +[0-9.]+ \(   0\.00%\) +[0-9.]+ \* +[0-9]+\.[0-9]{2}%\*$' dirs.out ||
    fail "no significance marker on the TLB interrupts"
grep -q 'only in' dirs.out && fail "a point listed on one side only"
"$NUMASIM" compare base.sweep patch.sweep | cmp - dirs.out || fail "two compares of the same dirs differ"

# The same inputs: nothing is different, nothing is marked.
"$NUMASIM" compare base.sweep base.sweep/ >same.out || fail "compare of a sweep with itself failed"
grep -q '^kernels: matched by name$' same.out || fail "the kernels were not matched by name"
grep -Eq '^[AH]mean .*%\*$' same.out && fail "a significance marker on identical inputs"
grep -Eq '^Amean     tlb-irqs/s +[0-9.]+ \(   0\.00%\) +[0-9.]+ \(   0\.00%\)$' same.out ||
    fail "identical inputs are not 0.00% apart"

# A directory of run results against a sweep: kernels by name, points on one side only.
mkdir plain
cp base.sweep/points/*.json plain/
"$NUMASIM" compare --metric tlb-irqs/s plain both.sweep >plain.out || fail "compare of results and a sweep failed"
grep -q '^v7.3, numa_balancing.scan_size_mb=256, balancing on: 2 vs 2 seeds$' plain.out ||
    fail "no shared point 256 of v7.3"
grep -q '^only in plain: v7.3, numa_balancing.scan_size_mb=64, balancing on (2 seeds)$' plain.out ||
    fail "the point only in plain is not listed"
[ "$(grep -c '^only in both.sweep: ' plain.out)" = 3 ] || fail "not 3 points only in both.sweep"
[ "$(grep -c '^Amean ' plain.out)" = 1 ] || fail "--metric tlb-irqs/s: not one mean row"

# One seed: no test, and it says so.
mkdir one
cp "$(ls plain/*.json | head -n 1)" one/
"$NUMASIM" compare one base.sweep >one.out || fail "compare of one result failed"
grep -q ': 1 vs 2 seeds, too few for a t-test' one.out || fail "no word about too few seeds"
grep -Eq '^[AH]mean .*%\*$' one.out && fail "a marker with one seed"

# Bad input: directories without results, or with something else; kernels
# that neither match nor pair; a directory and a file.
mkdir empty
bad "a directory without results" base.sweep empty
grep -q '^numasim compare: empty: no results' "$work/bad.err" || fail "unclear message: $(cat "$work/bad.err")"
echo '{"hello": "world"}' >empty/x.json
bad "a directory with a non-result" empty base.sweep
grep -q 'x.json: not a numasim result' "$work/bad.err" || fail "unclear message: $(cat "$work/bad.err")"
rm empty/x.json
mkdir nosweep && cp base.sweep/manifest.json nosweep/
bad "a sweep without results" nosweep base.sweep
grep -q '^numasim compare: nosweep: no point of the sweep has a result yet' "$work/bad.err" ||
    fail "unclear message: $(cat "$work/bad.err")"
mkdir k2 && cp patch.sweep/points/*.json k2/
"$NUMASIM" run small --duration 2 --kernel v6.1 -q --json k2/v6.1.json >/dev/null || fail "run of v6.1 failed"
bad "kernels that neither match nor pair" base.sweep k2
grep -q 'share no kernel and cannot be paired' "$work/bad.err" || fail "unclear message: $(cat "$work/bad.err")"
bad "a directory and a file" base.sweep "$fixtures/run-v7.3.json"
echo ok
