#!/usr/bin/env bash
# Valid scenarios at the edges of the workload's parameters, each of which
# once broke the model (issue 8): every VMA split (vma_mib) fits the rmap,
# a page shared by 256 or more processes keeps its mapcount, a hot set of
# the whole region is the whole region.  Each run is checked with --check
# (the invariants of docs/model.md) as well as by its figures.
set -euo pipefail

: "${NUMASIM:?NUMASIM must name the numasim binary}"
work=$(mktemp -d "${TMPDIR:-/tmp}/workload_limits.XXXXXX")

fail() {
    echo "FAIL: $*" >&2
    exit 1
}

# counter FILE NAME: the value of a /proc/vmstat line or the TLB total.
counter() {
    if [[ $2 == tlb ]]; then
        sed -n 's/^TLB: \([0-9]*\) TLB shootdowns$/\1/p' "$1"
    else
        sed -n "s/^$2 \([0-9]*\)$/\1/p" "$1"
    fi
}

# --- vma_mib: a region split into many VMAs; every VMA is in the store's
#     rmap (it once overflowed fs->mappers, sized by processes) -------------
for mib in 2 4 64 256; do
    out="$work/vma$mib.txt"
    "$NUMASIM" run small --set workload.vma_mib=$mib --duration 3 --check -q >"$out" 2>"$work/vma.err" ||
        fail "vma_mib=$mib: exit status $?: $(cat "$work/vma.err")"
    [[ $(counter "$out" numa_pages_migrated) -gt 0 ]] || fail "vma_mib=$mib: nothing migrated"
done
"$NUMASIM" run small --set workload.vma_mib=2 --set workload.map_shared=true --set workload.processes=2 \
    --set workload.threads=8 --duration 3 --check -q >/dev/null 2>"$work/vma.err" ||
    fail "vma_mib=2 map_shared: $(cat "$work/vma.err")"
echo "ok: vma_mib splits"

# --- 255, 256 and 257 processes mapping one shared page set: the mapcount
#     once wrapped at 256 (a uint8_t), so 256 sharers looked unshared -------
for p in 255 256 257; do
    "$NUMASIM" run small --set machine.cores_per_node=130 --set machine.threads_per_core=1 \
        --set machine.cpus=260 --set workload.processes=$p --set workload.threads=1 \
        --set workload.memory_gib=0.01 --set workload.map_shared=true \
        --set workload.private_fraction=0 --set workload.private_access_share=0 \
        --duration 3 --check -q >"$work/p$p.txt" 2>"$work/p.err" || fail "processes=$p: $(cat "$work/p.err")"
done
for p in 255 256 257; do
    irqs=$(counter "$work/p$p.txt" tlb) migrated=$(counter "$work/p$p.txt" numa_pages_migrated)
    [[ $irqs -gt 1000 ]] || fail "processes=$p: $irqs TLB shootdowns (a mapcount wrapped?)"
    [[ $migrated -eq $(counter "$work/p255.txt" numa_pages_migrated) ]] ||
        fail "processes=$p: $migrated pages migrated, 255 processes migrated $(counter "$work/p255.txt" numa_pages_migrated)"
done
echo "ok: 255, 256, 257 sharers"

# --- hot_fraction = 1: every page hot (it once converted 2^64 to a uint64_t,
#     undefined; gcc made the hot set empty) ----------------------------------
"$NUMASIM" run small --set workload.hot_fraction=1 --set workload.hot_access_share=1 --duration 3 \
    --check -q >"$work/hot.txt" 2>"$work/hot.err" || fail "hot_fraction=1: $(cat "$work/hot.err")"
[[ $(counter "$work/hot.txt" numa_hint_faults) -gt 1000 ]] ||
    fail "hot_fraction=1: $(counter "$work/hot.txt" numa_hint_faults) hint faults"
echo "ok: hot_fraction = 1"

# --- --check changes nothing but the time taken -----------------------------
"$NUMASIM" run small --duration 3 -q --json "$work/a.json" >/dev/null
"$NUMASIM" run small --duration 3 -q --check --json "$work/b.json" >/dev/null
cmp -s "$work/a.json" "$work/b.json" || fail "--check changed the results"
echo "ok: --check leaves the results alone"

# --- costs at their maximum (1 s an item): a path charged near the end
#     carries the clock past it, but the run's time ends with the run.  A
#     1e12-ns rq scan once credited 24,000 CPU-s to a node of 8 CPUs in a
#     3 s run and 35 G ops/s of throughput (issue 28) --------------------------
out="$work/huge-cost.txt"
"$NUMASIM" run small --duration 3 --set numa_balancing.scan_delay_ms=0 \
    --set costs.sched_rq_scan_ns=1e9 --check >"$out" 2>"$work/huge.err" ||
    fail "sched_rq_scan_ns=1e9: $(cat "$work/huge.err")"
awk '/CPU-seconds run on node/ { if ($NF == "s" && $(NF-1) > 24.0005) bad = 1; n++ }
     /^throughput:/ { if ($2 > 80e6) bad = 1; t++ }
     END { exit !(n == 2 && t == 1 && !bad) }' "$out" ||
    fail "a path past the end: $(grep -E 'CPU-seconds run|throughput' "$out")"
echo "ok: the run's time ends with the run"

# the IPI round's new costs at their edges (issue 30): 0 and the most a
# cost may be both run; a 1 s callback for each round in flight stretches
# every round behind another, so the run completes fewer rounds
ipi_edge() { # value json
    "$NUMASIM" run small --duration 1.5 -q --set costs.ipi_callback_ns="$1" \
        --set costs.ipi_send_remote_ns="$1" --set costs.ipi_latency_remote_ns="$1" --json "$2" >/dev/null ||
        fail "the IPI costs at $1 did not run"
}
ipi_edge 0 "$work/ipi0.json"
ipi_edge 1e9 "$work/ipi1e9.json"
a=$(jq '.interrupts.tlb_shootdowns' "$work/ipi0.json"); b=$(jq '.interrupts.tlb_shootdowns' "$work/ipi1e9.json")
[ "$b" -lt "$a" ] || fail "1 s IPI callbacks took $b TLB interrupts, not fewer than $a at 0"
jq -e '.throughput_ops_per_s > 0' "$work/ipi1e9.json" >/dev/null || fail "no throughput at 1 s IPI costs"
echo "ok: the IPI round's costs at 0 and 1e9 ns"

echo "workload_limits: all cases passed"
