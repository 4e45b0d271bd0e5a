#!/usr/bin/env bash
# Every built-in scenario's headline figures, one pair (seed 1) each, for
# the before/after table of a recalibration (docs/calibration.md).
#
#   scripts/headlines.sh [NUMASIM] > table.md
#
# Timed scenarios: throughput loss from balancing (ab, on vs off); fixed-work
# ones: elapsed time with balancing on and off; the migration-call
# scenarios (balancing off): the first call's pages a second.  Beside
# each: TLB interrupts per migrated page, pages migrated, time to converge.
set -euo pipefail
NUMASIM=${1:-build/release/numasim}
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

echo "| scenario | kernel | headline | TLB IRQs / migrated page | pages migrated | converged |"
echo "|---|---|---|---|---|---|"
# Each built-in on its own kernel; the x86 migration-call scenario on v5.15
# too, whose one flush per page the IPI cost model decides.
for sk in $("$NUMASIM" scenarios | awk '{print $1}') migratepages@v5.15; do
    s=${sk%@*}
    k=${sk#"$s"}; k=${k#@}
    [[ -n $k ]] || k=$("$NUMASIM" show "$s" | awk '/^\[kernel\]/{f=1;next} /^\[/{f=0} f && $1=="name"{print $3}')
    k=${k:-v7.3}
    if "$NUMASIM" show "$s" | grep -q '^migrate_call *= *[a-z]'; then
        "$NUMASIM" run "$s" -q --kernel "$k" --set run.seed=1 --json "$tmp/run.json" > "$tmp/out.txt"
        rate=$(awk '/calls \(process/{f=1;next} f && $1 ~ /^[0-9.]+$/ && NF>=6 {printf "%.0f", $5/($4/1000); exit}' "$tmp/out.txt")
        jq -r --arg s "$s" --arg k "$k" --arg r "$rate" \
            '"| \($s) | \($k) | first call \($r) pages/s | \(if .vmstat.pgmigrate_success > 0 then (.interrupts.tlb_shootdowns / .vmstat.pgmigrate_success * 10 | round / 10) else "-" end) | \(.vmstat.pgmigrate_success) | - |"' \
            "$tmp/run.json"
        continue
    fi
    "$NUMASIM" ab "$s" --kernels "$k" --pairs 1 -q --json "$tmp/ab.json" > /dev/null
    jq -r --arg s "$s" --arg k "$k" '
        .kernels[$k] as $r
        | (if ($r.elapsed_s[0] // null) != null
           then "elapsed \($r.elapsed_s[0] * 100 | round / 100) s (off \($r.elapsed_off_s[0] * 100 | round / 100) s)"
           else "loss \($r.throughput_loss[0] * 1000 | round / 10)%" end) as $h
        | "| \($s) | \($k) | \($h) | \(($r.tlb_irqs_per_migrated_page[0] // 0) * 10 | round / 10) | \($r.pages_migrated[0]) | \($r.converged_s[0] // "never") |"' \
        "$tmp/ab.json"
done
