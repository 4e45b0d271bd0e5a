#!/usr/bin/env bash
# numasim ab: serial and parallel runs give byte-identical JSON; the JSON
# holds the per-pair figures under the documented keys.
set -euo pipefail
: "${NUMASIM:?NUMASIM must name the numasim binary}"
work=$(mktemp -d "${TMPDIR:-/tmp}/ab.XXXXXX")
fail() { echo "FAIL: $*" >&2; exit 1; }

args=(small --kernels v7.3,v7.3+single-folio-v2 --pairs 2 --duration 5)
"$NUMASIM" ab "${args[@]}" --jobs 1 --json "$work/serial.json" > "$work/serial.txt" 2>/dev/null ||
    fail "serial ab failed"
"$NUMASIM" ab "${args[@]}" --jobs 2 --json "$work/par.json" > "$work/par.txt" 2>/dev/null ||
    fail "parallel ab failed"
cmp "$work/serial.json" "$work/par.json" || fail "serial and parallel JSON differ"
cmp "$work/serial.txt" "$work/par.txt" || fail "serial and parallel tables differ"

for k in throughput_loss kernel_cycles_per_hinting_pte tlb_irqs_per_migrated_page \
         pending_migration_share mean_gather_ms scanner_full_flushes_per_55s; do
    n=$(grep -c "\"$k\":" "$work/serial.json")
    [ "$n" = 2 ] || fail "key $k appears $n times, expected once per kernel"
done
grep -q '^throughput loss from balancing' "$work/serial.txt" || fail "table lacks the loss row"

# bad input: exit 2, no output file
rc=0
"$NUMASIM" ab small --kernels v9.9 --json "$work/bad.json" 2>"$work/err" || rc=$?
[ "$rc" = 2 ] || fail "unknown kernel: exit status $rc, expected 2"
grep -q "v9.9" "$work/err" || fail "no message naming the bad kernel: $(cat "$work/err")"
[ ! -e "$work/bad.json" ] || fail "bad input left a JSON file"
echo ok
