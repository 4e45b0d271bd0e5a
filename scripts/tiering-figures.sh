#!/usr/bin/env bash
# The memory-tiering scenarios' figures (docs/tiering.md), seed 1 each:
# pages promoted and demoted a second, when 90% of the touches first landed
# on DRAM, throughput against the same machine with all its memory DRAM
# (no CPU-less nodes, NUMA balancing as the scenario's mode 1 or off) and
# against tiering off (kernel.numa_balancing 0), and TLB interrupts per
# promoted page on v7.3 and v7.3+single-folio-v2.
#
#   scripts/tiering-figures.sh [NUMASIM] > table.md
set -euo pipefail
NUMASIM=${1:-build/release/numasim}
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

# all-DRAM: the scenario's file with each CPU-less node's memory moved onto
# its socket's DRAM node (every scenario here has one per socket or one
# socket), no tiering keys, balancing mode 1 where the scenario balanced
all_dram() { # SCENARIO OUT
    local f=$2 dram cxl sockets nodes
    "$NUMASIM" show "$1" >"$f"
    dram=$(awk -F' = ' '$1=="mem_per_node_gib"{print $2}' "$f")
    cxl=$(awk -F' = ' '$1=="memory_node_gib"{print $2}' "$f")
    sockets=$(awk -F' = ' '$1=="sockets"{print $2}' "$f")
    nodes=$(awk -F' = ' '$1=="memory_nodes"{print $2}' "$f" | tr ',' '\n' | wc -l)
    sed -i -e '/^memory_nodes = /d' -e '/^memory_node_gib = /d' -e '/^numa.demotion_enabled = /d' \
        -e "s/^mem_per_node_gib = .*/mem_per_node_gib = $(awk -v d="$dram" -v c="$cxl" -v n="$nodes" -v s="$sockets" 'BEGIN { print d + c * n / s }')/" \
        -e 's/^kernel.numa_balancing = 3/kernel.numa_balancing = 1/' \
        -e 's/^kernel.numa_balancing = 2/kernel.numa_balancing = 0/' "$f"
}

run() { # OUT ARGS...
    local out=$1
    shift
    "$NUMASIM" run "$@" --quiet --json "$out" >/dev/null
}

tput() { jq '.throughput_ops_per_s' "$1"; }
pct() { awk -v a="$1" -v b="$2" 'BEGIN { printf "%+.1f%%", (a / b - 1) * 100 }'; }

echo "| scenario | promoted/s | demoted/s | promoted/s, last tenth | 90% of touches on DRAM | touches on DRAM, last s | throughput (Mops/s) | vs all-DRAM | vs tiering off | TLB IRQs / promoted page, v7.3 | ... +single-folio-v2 |"
echo "|---|---|---|---|---|---|---|---|---|---|---|"
for s in seed-tiered tier-phases tpp-cache tpp-cache-thrash; do
    run "$tmp/t.json" "$s" --set run.seed=1
    run "$tmp/v2.json" "$s" --set run.seed=1 --kernel v7.3+single-folio-v2
    all_dram "$s" "$tmp/dram.ini"
    run "$tmp/d.json" "$tmp/dram.ini" --set run.seed=1
    run "$tmp/off.json" "$s" --set run.seed=1 --set kernel.numa_balancing=0
    t=$(tput "$tmp/t.json")
    irq() { jq 'if .vmstat.pgpromote_success > 0 then (.interrupts.tlb_shootdowns / .vmstat.pgpromote_success * 10 | round / 10) else "-" end' "$1"; }
    jq -r --arg s "$s" --arg d "$(pct "$t" "$(tput "$tmp/d.json")")" --arg o "$(pct "$t" "$(tput "$tmp/off.json")")" \
        --arg i1 "$(irq "$tmp/t.json")" --arg i2 "$(irq "$tmp/v2.json")" \
        '"| \($s) | \(.tiering.promoted_per_s | round) | \(.tiering.demoted_per_s | round) | \(.tiering.promoted_per_s_last_tenth | round) | \(if .tiering.top_tier_90pct_after_s == null then "never" else "\(.tiering.top_tier_90pct_after_s) s" end) | \(.tiering.top_tier_touch_share_last_s * 1000 | round / 10)% | \(.throughput_ops_per_s / 1e4 | round / 100) | \($d) | \($o) | \($i1) | \($i2) |"' \
        "$tmp/t.json"
done
