#!/usr/bin/env bash
# Workloads: fixed work, the migration calls, first-touch policies and the
# built-in benchmark scenarios, on small machines or short runs.
set -euo pipefail
: "${NUMASIM:?NUMASIM must name the numasim binary}"
work=$(mktemp -d "${TMPDIR:-/tmp}/workloads.XXXXXX")
trap 'rm -rf "$work"' EXIT
fail() { echo "FAIL: $*" >&2; exit 1; }
run() { "$NUMASIM" run "$@" -q 2>/dev/null; }

# A fixed-work thread stops at its count, and the run at the last one.
run small --set workload.work_mops=3 --duration 10 --json "$work/fw.json" >/dev/null ||
    fail "fixed-work run failed"
[ "$(jq '[.tasks[].ops] | (min == 3e6 and max == 3e6)' "$work/fw.json")" = true ] ||
    fail "threads did not stop at 3 M operations: $(jq -c '[.tasks[].ops] | [min, max]' "$work/fw.json")"
[ "$(jq '.finished and (.elapsed_seconds == ([.tasks[].finished_s] | max))' "$work/fw.json")" = true ] ||
    fail "elapsed time is not the last thread's finish"
[ "$(jq '.simulated_seconds < 10' "$work/fw.json")" = true ] || fail "the run outlived its work"

# ... and a migration caller does not keep a fixed-work run alive.
run small --set workload.work_mops=3 --set workload.migrate_call=migrate_pages \
    --set workload.migrate_at_s=0.2 --duration 10 --json "$work/fwc.json" >/dev/null ||
    fail "fixed work with a call failed"
[ "$(jq '.finished' "$work/fwc.json")" = true ] || fail "fixed work with a call did not finish"

# migratepages back and forth: v6.3 batches the unmap flush of up to 512
# folios (7e12beb8ca2a), v5.15 flushes every page: far fewer TLB interrupts
# per migrated page and a higher migration rate on v6.3.
"$NUMASIM" ab migratepages --kernels v5.15,v6.3 --balancing off --pairs 1 --duration 25 \
    --set workload.memory_gib=1 --json "$work/mp.json" >/dev/null 2>&1 || fail "ab migratepages failed"
irq() { jq ".kernels[\"$1\"].tlb_irqs_per_migrated_page[0]" "$work/mp.json"; }
rate() { jq ".kernels[\"$1\"].call_pages_per_s[0]" "$work/mp.json"; }
awk -v a="$(irq v5.15)" -v b="$(irq v6.3)" 'BEGIN { exit !(b * 20 < a) }' ||
    fail "TLB interrupts per page: v5.15 $(irq v5.15), v6.3 $(irq v6.3)"
awk -v a="$(rate v5.15)" -v b="$(rate v6.3)" 'BEGIN { exit !(b > 2 * a) }' ||
    fail "pages per s of call: v5.15 $(rate v5.15), v6.3 $(rate v6.3)"
# every call moves the pages it finds: 1 GiB = 262144 pages
run migratepages --kernel v6.3 --set workload.memory_gib=1 --duration 25 --json "$work/mp1.json" >/dev/null
[ "$(jq '[.migrate_calls[] | select(.finished) | .pages_moved == 262144] | all' "$work/mp1.json")" = true ] ||
    fail "a call did not move every page: $(jq -c '[.migrate_calls[].pages_moved]' "$work/mp1.json")"
[ "$(jq '[.migrate_calls[].from] | .[0:3] == [0, 1, 0]' "$work/mp1.json")" = true ] ||
    fail "calls do not go back and forth"

# Interleaved first touch converges to local with balancing on.
run small --set workload.private_first_touch=interleave --set workload.private_fraction=1 \
    --set workload.private_access_share=1 --duration 15 --json "$work/il.json" >/dev/null
first=$(jq '.timeseries | .hint_faults_local_per_s[1] / .hint_faults_per_s[1]' "$work/il.json")
final=$(jq '.convergence.final_local_fault_share' "$work/il.json")
awk -v f="$first" -v l="$final" 'BEGIN { exit !(f < 0.7 && l > 0.95) }' ||
    fail "interleaved memory did not converge: local share $first at 1 s, $final at the end"
[ "$(jq '.convergence.migrations_settled_s > 0' "$work/il.json")" = true ] ||
    fail "migrations never settled"

# Phases: at 7 s each thread starts touching its neighbour's slice, which
# the fork placement put on the other node: hint faults turn remote, every
# page (1 GiB, all private) migrates, and the faults are local again.
run small --set workload.private_fraction=1 --set workload.private_access_share=1 \
    --set workload.phase_every_s=7 --duration 13 --json "$work/ph.json" >/dev/null
jq -e '.timeseries | (.hint_faults_local_per_s[6] == .hint_faults_per_s[6]) and
       (.hint_faults_local_per_s[7] < 0.5 * .hint_faults_per_s[7]) and
       ([.migrations_per_s[7:][]] | add == 262144) and ([.migrations_per_s[1:7][]] | add == 0)' \
    "$work/ph.json" >/dev/null || fail "a phase did not turn faults remote and migrate: $(jq -c '.timeseries | [.hint_faults_local_per_s, .hint_faults_per_s, .migrations_per_s]' "$work/ph.json")"
jq -e '.convergence | .final_local_fault_share > 0.95 and .migrations_settled_s > 7' "$work/ph.json" \
    >/dev/null || fail "after the phase the run did not settle local: $(jq -c .convergence "$work/ph.json")"

# Memory bandwidth: every slice first touched on node 0, whose 40 GB/s the
# 16 streaming threads (4 KiB an operation) oversubscribe; balancing moves
# half the slices to node 1 and the fixed work ends a quarter sooner.
"$NUMASIM" ab small --kernels v7.3 --pairs 1 --duration 30 --set workload.work_mops=3 \
    --set workload.private_fraction=1 --set workload.private_access_share=1 \
    --set workload.private_first_touch=node0 --set workload.bytes_per_op=4096 \
    --set workload.cpu_ns_per_op=300 --set machine.mem_bw_gbs=40 --set machine.link_bw_gbs=40 \
    --json "$work/bw.json" >/dev/null 2>&1 || fail "bandwidth ab failed"
jq -e '.kernels["v7.3"] | .elapsed_s[0] < 0.85 * .elapsed_off_s[0]' "$work/bw.json" >/dev/null ||
    fail "balancing did not relieve a saturated node: $(jq -c '.kernels["v7.3"] | [.elapsed_s, .elapsed_off_s]' "$work/bw.json")"

# Every built-in benchmark scenario runs, shortened.
for n in seed-remote seed-192 numa01 numa01_THREAD_ALLOC numa02 numa02_SMT pmbench-uniform \
         pmbench-normal pmbench-pareto anon-cow-rand-mt migratepages migratepages-arm64; do
    run "$n" --duration 3 --json "$work/b.json" >/dev/null || fail "$n does not run"
    [ "$(jq '.vmstat | length > 0' "$work/b.json")" = true ] || fail "$n: no counters"
done

# A timed benchmark reports per-second throughput.
[ "$(jq '.timeseries.ops_per_s | length == 3' "$work/b.json")" = true ] || fail "no throughput series"
echo ok
