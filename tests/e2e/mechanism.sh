#!/usr/bin/env bash
# End-to-end: the feedback loop the patch series "mm/migrate: don't batch the
# TLB flush when there is nothing to batch" describes, on a small machine.
# 2 nodes, 64 CPUs, 2 GiB, 20 s (the 16-CPU "small" has too few IPI targets
# for the scanner's flushes to stretch the scan visibly).
set -euo pipefail

: "${NUMASIM:?NUMASIM must name the numasim binary}"
work=$(mktemp -d "${TMPDIR:-/tmp}/mech.XXXXXX")
fail() { echo "FAIL: $*" >&2; exit 1; }

MACHINE=(--set machine.cores_per_node=16 --set machine.cpus=64
         --set workload.threads=64 --set workload.memory_gib=2)

# value KEY FILE: the number after "KEY": in the JSON
value() { grep -m1 "\"$1\":" "$2" | sed -E 's/.*: *([-0-9.e+]+),?$/\1/'; }

run() { # name kernel [extra args]
    local name=$1 kernel=$2; shift 2
    "$NUMASIM" run small --quiet --kernel "$kernel" "${MACHINE[@]}" "$@" \
        --json "$work/$name.json" >/dev/null 2>"$work/$name.err" ||
        fail "$name: numasim run failed: $(cat "$work/$name.err")"
}

run v73 v7.3
run v2 v7.3+single-folio-v2
run v515 v5.15
run side v7.3+flush-side

# per migrated page: TLB interrupts / numa_pages_migrated
per_page() { awk -v t="$(value tlb_shootdowns "$1")" -v m="$(value numa_pages_migrated "$1")" \
                 'BEGIN { if (m == 0) print 0; else printf "%.3f", t / m }'; }
tables() { awk -v u="$(value numa_pte_updates "$1")" 'BEGIN { printf "%d", u / 512 }'; }

v73_pp=$(per_page "$work/v73.json"); v2_pp=$(per_page "$work/v2.json"); v515_pp=$(per_page "$work/v515.json")
echo "TLB interrupts per migrated page: v7.3 $v73_pp, v7.3+single-folio-v2 $v2_pp, v5.15 $v515_pp"

# v7.3: the scanner flushes the mm from change_pte_range for a large share of
# the PTE tables it changes; with the fix (or on v5.15) never.
cpr=$(value scanner_flushes_cpr "$work/v73.json"); t=$(tables "$work/v73.json")
echo "v7.3: $cpr scanner flush_tlb_mm from change_pte_range over $t PTE tables"
awk -v c="$cpr" -v t="$t" 'BEGIN { exit !(t > 0 && c > t / 4) }' ||
    fail "v7.3 scanner flushes from change_pte_range ($cpr) not > 1/4 of tables ($t)"
for n in v2 v515 side; do
    c=$(value scanner_flushes_cpr "$work/$n.json")
    [ "$c" = 0 ] || fail "$n: $c scanner flushes from change_pte_range, expected 0"
done

awk -v a="$v73_pp" -v b="$v2_pp" 'BEGIN { exit !(a > b * 1.1) }' ||
    fail "v7.3 ($v73_pp) not above v7.3+single-folio-v2 ($v2_pp) TLB interrupts per migrated page"
awk -v a="$v73_pp" -v b="$v515_pp" 'BEGIN { exit !(a > b * 1.1) }' ||
    fail "v7.3 ($v73_pp) not above v5.15 ($v515_pp) TLB interrupts per migrated page"

# The loop stretches the scanner's gather.
g73=$(awk -v n="$(value numa_gather_ns "$work/v73.json")" -v c="$(value numa_gathers "$work/v73.json")" 'BEGIN { print n / c }')
g2=$(awk -v n="$(value numa_gather_ns "$work/v2.json")" -v c="$(value numa_gathers "$work/v2.json")" 'BEGIN { print n / c }')
echo "mean gather: v7.3 $g73 ns, v7.3+single-folio-v2 $g2 ns"
awk -v a="$g73" -v b="$g2" 'BEGIN { exit !(a > b) }' || fail "v7.3 gather not longer than patched"

# No IPIs on arm64 (broadcast TLBI); INVLPGB sends IPIs only until the mm
# is granted a global ASID (consider_global_asid samples 1/32 of flushes).
run arm v7.3 --set machine.flush_engine=arm64
[ "$(value tlb_shootdowns "$work/arm.json")" = 0 ] || fail "arm64 counted TLB shootdown interrupts"
[ "$(value nr_tlb_remote_flush "$work/arm.json")" = 0 ] || fail "arm64 counted nr_tlb_remote_flush"
awk -v m="$(value numa_pages_migrated "$work/arm.json")" 'BEGIN { exit !(m > 0) }' || fail "arm64 migrated nothing"
run amd v7.3 --set machine.flush_engine=x86-invlpgb
ti=$(value tlb_shootdowns "$work/amd.json"); tx=$(value tlb_shootdowns "$work/v73.json")
echo "TLB shootdowns: x86-invlpgb $ti, x86-ipi $tx"
awk -v a="$ti" -v b="$tx" 'BEGIN { exit !(a * 20 < b) }' || fail "INVLPGB sent $ti shootdowns, x86-ipi $tx"
awk -v b="$(value broadcasts "$work/amd.json")" 'BEGIN { exit !(b > 0) }' || fail "INVLPGB made no broadcasts"

# Balancing off: nothing is scanned, nothing faults, nothing migrates.
run off v7.3 --set kernel.numa_balancing=0
for k in numa_pte_updates numa_hint_faults numa_pages_migrated tlb_shootdowns passes; do
    [ "$(value $k "$work/off.json")" = 0 ] || fail "numa_balancing=0: $k is $(value $k "$work/off.json")"
done
echo "ok"
