#!/usr/bin/env bash
# numasim validate --short: every published figure's verdict is the one in
# tests/e2e/fixtures/validate-short.expected (a change of verdict names its
# row), --strict exits 4 given the expected misses, bad usage exits 2, and
# the JSON holds one object per row.
set -euo pipefail
: "${NUMASIM:?NUMASIM must name the numasim binary}"
work=$(mktemp -d "${TMPDIR:-/tmp}/validate.XXXXXX")
fail() { echo "FAIL: $*" >&2; exit 1; }
expected=$(dirname "$0")/fixtures/validate-short.expected

rc=0
"$NUMASIM" validate --short -q --json "$work/v.json" > "$work/v.txt" 2> "$work/v.err" || rc=$?
[ "$rc" = 0 ] || fail "validate --short exited $rc: $(cat "$work/v.err")"

# one object per row, in the table too
rows=$(jq '.rows | length' "$work/v.json")
want=$(grep -vc '^#' "$expected")
[ "$rows" = "$want" ] || fail "the JSON has $rows rows, the expected list $want"
jq -e '.rows | all(type == "object" and has("figure") and has("kernel") and has("model")
        and has("published") and has("tolerated") and (.verdict == "in" or .verdict == "miss")
        and (.source | test("nothing to batch")))' "$work/v.json" >/dev/null ||
    fail "a row lacks a key: $(jq -c '.rows[0]' "$work/v.json")"
[ "$(grep -cE ' (in|miss) +\[1\]$' "$work/v.txt")" = "$want" ] || fail "the table has not $want rows"
grep -q "^$want rows: " "$work/v.txt" || fail "no summary line"

# every row's verdict as expected
jq -r '.rows[] | "\(.figure) \(.kernel) \(.verdict)"' "$work/v.json" > "$work/got"
while read -r fig kernel verdict; do
    [[ -z $fig || $fig = \#* ]] && continue
    got=$(awk -v f="$fig" -v k="$kernel" '$1 == f && $2 == k { print $3 }' "$work/got")
    [ -n "$got" ] || fail "row $fig on $kernel: missing"
    [ "$got" = "$verdict" ] ||
        fail "row $fig on $kernel: verdict '$got', expected '$verdict' ($(jq -c --arg f "$fig" --arg k "$kernel" \
            '.rows[] | select(.figure == $f and .kernel == $k) | {model, tolerated}' "$work/v.json"))"
done < "$expected"
misses=$(grep -v '^#' "$expected" | grep -c ' miss$' || true)
[ "$(jq .miss "$work/v.json")" = "$misses" ] || fail "miss count $(jq .miss "$work/v.json"), expected $misses"

# --strict: 4 when a row misses, else 0
rc=0
"$NUMASIM" validate --short --strict -q > /dev/null 2>&1 || rc=$?
if [ "$misses" -gt 0 ]; then
    [ "$rc" = 4 ] || fail "--strict with $misses misses exited $rc, expected 4"
else
    [ "$rc" = 0 ] || fail "--strict with no miss exited $rc"
fi

# bad usage: 2, and no output file
for args in "--bogus" "--jobs 0" "extra" "--json"; do
    rc=0
    # shellcheck disable=SC2086
    "$NUMASIM" validate --short $args > /dev/null 2> "$work/bad.err" || rc=$?
    [ "$rc" = 2 ] || fail "validate $args exited $rc, expected 2"
done
rc=0
"$NUMASIM" validate --short --json "$work/no/such/dir.json" > /dev/null 2>&1 || rc=$?
[ "$rc" = 2 ] || fail "--json into a missing directory exited $rc, expected 2"
"$NUMASIM" validate --help | grep -q -- '--strict' || fail "--help does not describe --strict"
"$NUMASIM" help | grep -q '^  validate' || fail "numasim help does not list validate"

# ab seed's verdict column agrees with validate, row by row
"$NUMASIM" ab seed --kernels v7.3,v7.3+single-folio-v2 --pairs 1 --duration 60 -q > "$work/ab.txt" 2>/dev/null ||
    fail "ab seed failed"
grep -q 'verdict v7.3 | +v2$' "$work/ab.txt" || fail "ab seed has no verdict column"
grep -qE '^TLB interrupts per migrated page .* miss \| in$' "$work/ab.txt" ||
    fail "ab seed's TLB interrupts row: $(grep '^TLB interrupts per migrated' "$work/ab.txt")"
grep -qE '^migrated PTEs still PROT_NONE at unmap .* \| in$' "$work/ab.txt" ||
    fail "ab seed's one-sided row: $(grep '^migrated PTEs still' "$work/ab.txt")"
# the verdict column (after the figure, two kernels and the published
# column: 42 + 2 x 23 + 26 characters) holds validate's verdicts, as many
# of each
cut -c115- "$work/ab.txt" | grep -E '^(in|miss|    ) +\|' | tr -s ' |' '\n' | grep -v '^$' | sort | uniq -c |
    awk '{ printf "%s %s\n", $2, $1 }' > "$work/ab.counts"
jq -r '[.rows[].verdict] | group_by(.) | .[] | "\(.[0]) \(length)"' "$work/v.json" > "$work/v.counts"
cmp -s "$work/ab.counts" "$work/v.counts" ||
    fail "ab seed's verdicts ($(tr '\n' ' ' < "$work/ab.counts")) are not validate's ($(tr '\n' ' ' < "$work/v.counts"))"
# --realcheck DIR: a result directory's rows (real-S.json against
# sim-guest-costs-S.json).  Here numasim's own runs stand in for the guest:
# a run against itself is in on every row; against a run of the other
# kernel the 6.12/6.1 row is there; a directory without results is refused
# before any run (exit 2, nothing written)
rcdir=$work/rc
mkdir -p "$rcdir"
"$NUMASIM" run small --kernel v6.12-debian --duration 3 -q --json "$rcdir/real-6.12.json" > /dev/null
cp "$rcdir/real-6.12.json" "$rcdir/sim-guest-costs-6.12.json"
"$NUMASIM" validate --short -q --realcheck "$rcdir" --json "$work/rc.json" > "$work/rc.txt" ||
    fail "validate --realcheck failed"
grep -q '^make realcheck (' "$work/rc.txt" || fail "no realcheck section"
[ "$(jq '.realcheck.miss' "$work/rc.json")" = 0 ] || fail "a run against itself missed: $(jq -c .realcheck "$work/rc.json")"
[ "$(jq '.realcheck.rows | length' "$work/rc.json")" -ge 9 ] || fail "too few realcheck rows"
"$NUMASIM" run small --kernel v6.1 --duration 3 -q --json "$rcdir/real-6.1.json" > /dev/null
"$NUMASIM" run small --kernel v6.1 --duration 3 -q --set run.seed=2 --json "$rcdir/sim-guest-costs-6.1.json" > /dev/null
"$NUMASIM" validate --short -q --realcheck "$rcdir" --json "$work/rc2.json" > /dev/null || fail "validate --realcheck (2 series) failed"
jq -e '.realcheck.rows[] | select(.figure == "tlb_per_migrated_6_12_over_6_1" and .series == "both")' \
    "$work/rc2.json" > /dev/null || fail "no 6.12/6.1 row"
jq -e '[.realcheck.rows[] | select(.series == "6.1")] | length > 0' "$work/rc2.json" > /dev/null || fail "no 6.1 rows"
rc=0
"$NUMASIM" validate --short -q --realcheck "$work/no-such" --json "$work/rc3.json" > /dev/null 2> "$work/rc3.err" || rc=$?
[ "$rc" = 2 ] || fail "--realcheck of a missing directory exited $rc, expected 2"
grep -q 'no real-6.1.json or real-6.12.json' "$work/rc3.err" || fail "no message: $(cat "$work/rc3.err")"
[ ! -e "$work/rc3.json" ] || fail "--realcheck of a missing directory wrote its JSON"
rm "$rcdir/sim-guest-costs-6.1.json"
rc=0
"$NUMASIM" validate --short -q --realcheck "$rcdir" > /dev/null 2> "$work/rc4.err" || rc=$?
[ "$rc" = 2 ] && grep -q 'sim-guest-costs-6.1.json' "$work/rc4.err" || fail "a missing numasim run: exit $rc, $(cat "$work/rc4.err")"
# machines that differ do not compare: refused, naming the CPU counts
rm "$rcdir/real-6.1.json"
"$NUMASIM" run seed --duration 1 -q --json "$rcdir/sim-guest-costs-6.12.json" > /dev/null
rc=0
"$NUMASIM" validate --short -q --realcheck "$rcdir" > /dev/null 2> "$work/rc5.err" || rc=$?
[ "$rc" = 2 ] && grep -q 'ran on 16 CPUs, sim-guest-costs-6.12.json simulated 384' "$work/rc5.err" ||
    fail "machines that differ: exit $rc, $(cat "$work/rc5.err")"
echo ok
