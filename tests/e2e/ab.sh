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

# Shared balancing-off runs: kernels that differ only in switches that
# NUMA balancing alone reads give the same balancing-off run, so ab runs it
# once.  Check the claim for each such switch by running both kernels.
# off_runs_equal SCENARIO KERNEL_A KERNEL_B VERB: the two kernels' balancing-off
# runs are the same run (ab VERBs them)
off_runs_equal() {
    local a b
    "$NUMASIM" run "$1" --kernel "$2" --set kernel.numa_balancing=0 --duration 2 -q \
        --json "$work/offa.json" >/dev/null || fail "run $2 failed"
    "$NUMASIM" run "$1" --kernel "$3" --set kernel.numa_balancing=0 --duration 2 -q \
        --json "$work/offb.json" >/dev/null || fail "run $3 failed"
    a=$(jq -S 'del(.kernel, .scenario.kernel, .scenario.overrides)' "$work/offa.json")
    b=$(jq -S 'del(.kernel, .scenario.kernel, .scenario.overrides)' "$work/offb.json")
    [ "$a" = "$b" ] || fail "$2 and $3 differ with balancing off, yet ab $4 their runs"
}
same_off() { # SCENARIO KERNEL_A KERNEL_B
    off_runs_equal "$1" "$2" "$3" shares
    "$NUMASIM" ab "$1" --kernels "$2,$3" --pairs 1 --duration 1 >"$work/share.txt" 2>/dev/null ||
        fail "ab $2,$3 failed"
    grep -q "^$3 shares the balancing-off runs of $2\$" "$work/share.txt" ||
        fail "ab does not share $2's off runs with $3"
}
same_off small v5.12 v5.15                        # numa_delay_mapping, flush_pending_dsb_only
same_off small-arm64 v5.12 v5.15
same_off small v7.3 v7.3+single-folio-v1          # single_folio_v1
same_off small v6.4 v6.4+mthp-numa                # mthp_numa
same_off small v7.3 v7.3+locality-reset           # numa_locality_reset
# ... and kernels that differ elsewhere get runs of their own
"$NUMASIM" ab small --kernels v6.3,v6.4 --pairs 1 --duration 1 >"$work/share.txt" 2>/dev/null ||
    fail "ab v6.3,v6.4 failed"
! grep -q "shares the balancing-off runs" "$work/share.txt" || fail "v6.4 shares v6.3's off runs"

# Kernels that also differ in switches read only inside a migration's unmap
# (single-folio-v2, flush-side): a balancing-off run that never got there
# (small: nothing migrates with balancing off) is reused, and is the run the
# other kernel would have made; one that got there (migrate_pages(2) calls
# with balancing off) is not.
reuse_off() { # SCENARIO KERNEL_A KERNEL_B
    off_runs_equal "$1" "$2" "$3" reuses
    "$NUMASIM" ab "$1" --kernels "$2,$3" --pairs 2 --duration 2 --json "$work/reuse.json" \
        >"$work/reuse.txt" 2>"$work/reuse.err" || fail "ab $2,$3 failed"
    grep -q "^$3 reuses 2 of 2 balancing-off runs of $2 " "$work/reuse.txt" ||
        fail "ab does not reuse $2's off runs for $3"
    grep -q "(6 runs, " "$work/reuse.err" || fail "ab made $(cat "$work/reuse.err"), expected 6 runs"
    [ "$(jq '.kernels["'"$3"'"].balancing_off_runs_reused' "$work/reuse.json")" = 2 ] ||
        fail "the JSON does not record the reused runs"
}
reuse_off small v7.3 v7.3+single-folio-v2
reuse_off small v7.3 v7.3+flush-side
"$NUMASIM" ab small --kernels v7.3,v7.3+single-folio-v2 --pairs 1 --duration 3 --balancing off \
    --set workload.migrate_call=migrate_pages --set workload.migrate_at_s=1 >"$work/reuse.txt" \
    2>"$work/reuse.err" || fail "ab with migration calls failed"
! grep -q "reuses" "$work/reuse.txt" || fail "an off run that migrated was reused"
grep -q "(2 runs, " "$work/reuse.err" || fail "ab made $(cat "$work/reuse.err"), expected 2 runs"

# kernel against kernel, with balancing on only: no pair figures
"$NUMASIM" ab small --kernels v5.15,v6.3 --pairs 2 --duration 2 --balancing on \
    --json "$work/on.json" >"$work/on.txt" 2>/dev/null || fail "ab --balancing on failed"
grep -q "^each kernel against v5.15, balancing on" "$work/on.txt" || fail "no kernel comparison"
! grep -q "throughput loss" "$work/on.txt" || fail "--balancing on printed a pair figure"
[ "$(jq '.kernels["v6.3"].versus_first.throughput_change | length' "$work/on.json")" = 2 ] ||
    fail "versus_first lacks a value per seed"
[ "$(jq '.kernels["v6.3"].versus_first.tlb_irqs_ratio[0] > 1' "$work/on.json")" = true ] ||
    fail "v6.3's TLB interrupts not above v5.15's on the seed's loop"

# fixed work: elapsed time rows, and balancing shortens a remote first touch
"$NUMASIM" ab small --kernels v7.3 --pairs 1 --duration 30 --set workload.work_mops=20 \
    --set workload.private_first_touch=remote --set workload.shared_first_touch=remote \
    --json "$work/fixed.json" >"$work/fixed.txt" 2>/dev/null || fail "fixed-work ab failed"
grep -q '^elapsed time (fixed work)' "$work/fixed.txt" || fail "no elapsed row"
[ "$(jq '.unfinished_runs' "$work/fixed.json")" = 0 ] || fail "fixed work did not finish"
[ "$(jq '.kernels["v7.3"] | .elapsed_s[0] < .elapsed_off_s[0]' "$work/fixed.json")" = true ] ||
    fail "balancing did not shorten remote-first-touch fixed work: $(jq -c '.kernels' "$work/fixed.json")"

"$NUMASIM" ab small --kernels v7.3 --balancing sideways 2>"$work/err" && fail "bad --balancing accepted"
grep -q "sideways" "$work/err" || fail "no message naming the bad --balancing value"

rc=0
"$NUMASIM" ab small --kernels v9.9 --json "$work/bad.json" 2>"$work/err" || rc=$?
[ "$rc" = 2 ] || fail "unknown kernel: exit status $rc, expected 2"
grep -q "v9.9" "$work/err" || fail "no message naming the bad kernel: $(cat "$work/err")"
[ ! -e "$work/bad.json" ] || fail "bad input left a JSON file"
echo ok
