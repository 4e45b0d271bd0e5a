#!/usr/bin/env bash
# End-to-end: memory tiering on small tiered machines (issue 32): the 16-CPU
# 'small' machine with a 4 GiB CPU-less node on each socket (nodes 2, 3).
# - a workload first touched on the slow tier is promoted to DRAM and stays
#   (no demotion: DRAM holds it), at most the rate limit a window;
# - slices that go cold (their threads asleep) are demoted under pressure,
#   and with demotion_enabled off nothing is, so promotion stalls;
# - a hot set that fits DRAM gets there, and then promotion and demotion
#   almost stop (no ping-pong of the hot set);
# - runs repeat byte for byte (tests/e2e/invariants.sh checks the tiering
#   scenarios' invariants with every built-in's), and bad tiering input is
#   refused (exit 2, FILE:LINE or --set: KEY).
set -euo pipefail

: "${NUMASIM:?NUMASIM must name the numasim binary}"
command -v jq >/dev/null || { echo "FAIL: jq is needed (scripts/deps.sh installs it)" >&2; exit 1; }
work=$(mktemp -d "${TMPDIR:-/tmp}/tiering.XXXXXX")
fail() { echo "FAIL: $*" >&2; exit 1; }
j() { jq -e "$2" "$1" >/dev/null || fail "$1: not true: $2 ($(jq -c "$3" "$1" 2>/dev/null))"; }

TIERED=(small --set machine.memory_nodes=0,1 --set machine.memory_node_gib=4
        --set kernel.numa_balancing=2 --set numa.demotion_enabled=true)

# ---- promotion: first touched on CXL, promoted, stays, within the limit ------
PROMO=("${TIERED[@]}" --set machine.mem_per_node_gib=1
       --set workload.shared_first_touch=interleave:2,3 --set workload.private_first_touch=bind:2,3
       --set kernel.numa_balancing_promote_rate_limit_MBps=32 --duration 40)
"$NUMASIM" run "${PROMO[@]}" --json "$work/promo.json" --quiet >/dev/null
f=$work/promo.json
j "$f" '.tiering.top_tier_touch_share_first_s < 0.05' '.tiering'
j "$f" '.tiering.top_tier_touch_share_last_s > 0.9' '.tiering'
j "$f" '.vmstat.pgpromote_success > 100000' '.vmstat'
j "$f" '.vmstat.pgdemote_kswapd == 0' '.vmstat'
# 32 MB/s = 8192 candidates a one-second window; windows start at their
# first candidate, so a wall second overlaps at most two
j "$f" '[.timeseries.promote_candidates_per_s[] | select(. > 0)] | length > 0' '.timeseries'
j "$f" '[.timeseries.promoted_per_s[] | select(. > 2 * 8192)] | length == 0' '.timeseries.promoted_per_s'
j "$f" '(.vmstat.pgpromote_success / .simulated_seconds) <= 8192' '.vmstat'
# without the limit, the same promotion ends sooner
"$NUMASIM" run "${PROMO[@]}" --set kernel.numa_balancing_promote_rate_limit_MBps=65536 \
    --json "$work/promo-fast.json" --quiet >/dev/null
a=$(jq '.tiering.top_tier_90pct_after_s' "$work/promo-fast.json")
b=$(jq '.tiering.top_tier_90pct_after_s' "$f")
[[ $a != null && $b != null ]] && (( a < b )) || fail "the rate limit did not slow promotion: 90% after $a s unlimited, $b s at 32 MB/s"
echo "ok: promoted from CXL and kept: 90% of touches on DRAM after $b s at 32 MB/s ($a s unlimited)"

# ---- demotion: sleeping threads' slices go cold and are demoted -------------
PHASES=("${TIERED[@]}" --set machine.mem_per_node_gib=0.5 --set workload.memory_gib=1.5
        --set workload.private_fraction=1 --set workload.private_access_share=1
        --set workload.run_ms=3000 --set workload.sleep_ms=3000 --set workload.cpu_ns_per_op=1000
        --duration 30)
"$NUMASIM" run "${PHASES[@]}" --json "$work/phases.json" --quiet >/dev/null
j "$work/phases.json" '.vmstat.pgdemote_kswapd > 10000' '.vmstat'
j "$work/phases.json" '.vmstat.pgpromote_success > 10000' '.vmstat'
j "$work/phases.json" '[.node_vmstat[0,1].pgdemote_kswapd] | min > 0' '.node_vmstat'
"$NUMASIM" run "${PHASES[@]}" --set numa.demotion_enabled=false --json "$work/nodemote.json" --quiet >/dev/null
j "$work/nodemote.json" '.vmstat.pgdemote_kswapd == 0' '.vmstat'
j "$work/nodemote.json" '.tiering.kswapd_wakes > 0' '.tiering'
on=$(jq '.vmstat.pgpromote_success' "$work/phases.json")
off=$(jq '.vmstat.pgpromote_success' "$work/nodemote.json")
(( off * 10 < on )) || fail "without demotion promotion should stall: $off promoted, $on with demotion"
echo "ok: cold slices demoted ($(jq '.vmstat.pgdemote_kswapd' "$work/phases.json") pages), none with demotion off"

# ---- a hot set that fits DRAM: no ping-pong once it is there -----------------
FITS=("${TIERED[@]}" --set machine.mem_per_node_gib=0.5 --set workload.memory_gib=1.5
      --set workload.hot_fraction=0.2 --set workload.hot_access_share=0.999
      --set workload.cpu_ns_per_op=2000 --duration 60)
"$NUMASIM" run "${FITS[@]}" --json "$work/fits.json" --quiet >/dev/null
f=$work/fits.json
j "$f" '.tiering.top_tier_90pct_after_s != null and .tiering.top_tier_90pct_after_s <= 10' '.tiering'
j "$f" '.tiering.promoted_per_s_last_tenth < 0.02 * (.timeseries.promoted_per_s | max)' '.tiering'
j "$f" '.tiering.demoted_per_s_last_tenth < 0.02 * (.timeseries.demoted_per_s | max)' '.tiering'
echo "ok: the hot set reached DRAM after $(jq '.tiering.top_tier_90pct_after_s' "$f") s, then $(jq '.tiering.promoted_per_s_last_tenth' "$f") promotions/s"

# ---- the scenarios: determinism (invariants.sh --checks every built-in) ----------
"$NUMASIM" run tier-phases --duration 10 --json "$work/d1.json" --quiet >/dev/null
"$NUMASIM" run tier-phases --duration 10 --json "$work/d2.json" --quiet >/dev/null
cmp -s "$work/d1.json" "$work/d2.json" || fail "tier-phases: two runs differ"
echo "ok: tier-phases repeats byte for byte"

# ---- the tiering plot --------------------------------------------------------------
if command -v gnuplot >/dev/null; then
    "$NUMASIM" plot "$work/promo.json" "$work/promo-fast.json" --kind tiering -o "$work/plot.txt" \
        --keep-script "$work/plot.gp" 2>/dev/null || fail "plot --kind tiering failed"
    for t in 'memory in use per tier' 'pages promoted and demoted' 'promotion candidates' \
             'hot threshold' 'touches on the top tier'; do
        grep -qF "$t" "$work/plot.txt" || fail "plot --kind tiering lacks '$t'"
    done
    # the lower file's limit (32 MB/s: 8192 pages/s) as a line in its panel
    grep -q 'with lines lw 1 dt 3 lc rgb .black. title "rate limit"' "$work/plot.gp" || fail "plot --kind tiering: no rate-limit line"
    echo "ok: plot --kind tiering draws its five panels"
else
    echo "skip: plot --kind tiering (no gnuplot)"
fi

# ---- edge values of the tiering keys: they run, and the invariants hold ----------
edge() { # NAME EXPECT ARGS...: the run's tiering summary satisfies jq EXPECT
    local name=$1 want=$2 out
    shift 2
    out=$("$NUMASIM" run "${PHASES[@]}" "$@" --duration 8 --check --json "$work/$name.json" 2>&1 >/dev/null) ||
        fail "$name: $out"
    grep -q 'none violated' <<<"$out" || fail "$name: $out"
    j "$work/$name.json" "$want" '.vmstat'
    echo "ok: edge $name"
}
edge rate-0 '.vmstat.pgpromote_candidate > 0 and .vmstat.pgpromote_success == 0' \
    --set kernel.numa_balancing_promote_rate_limit_MBps=0
edge threshold-1ms '.vmstat.pgpromote_success < .vmstat.pgpromote_candidate' \
    --set numa_balancing.hot_threshold_ms=1
edge threshold-huge '.vmstat.pgpromote_success > 0' --set numa_balancing.hot_threshold_ms=1000000000
edge bw-unlimited '.vmstat.pgpromote_success > 0' --set machine.memory_node_bw_gbs=0
edge latency-huge '.vmstat.pgpromote_success > 0' --set machine.memory_node_latency_ns=1000000
edge lru-free '.vmstat.pgdemote_kswapd > 0' --set costs.lru_scan_ns=0
edge lru-1s '.vmstat.pgdemote_kswapd >= 0' --set costs.lru_scan_ns=1e9

# ---- bad input -------------------------------------------------------------------
expect_error() { # NAME EXPECTED ARGS...
    local name=$1 want=$2 rc=0
    shift 2
    "$NUMASIM" run "$@" --duration 0.1 --json "$work/$name.json" --quiet >/dev/null 2>"$work/$name.err" || rc=$?
    [[ $rc -eq 2 ]] || fail "$name: exit status $rc, expected 2: $(cat "$work/$name.err")"
    grep -qF -- "$want" "$work/$name.err" || fail "$name: stderr lacks '$want': $(cat "$work/$name.err")"
    [[ ! -e $work/$name.json ]] || fail "$name: wrote its JSON"
    echo "ok: $name: $(head -n1 "$work/$name.err")"
}
expect_error no-socket "a CPU-less node on socket 5" small --set machine.memory_nodes=0,5
expect_error bad-list "is not a list of sockets" small --set machine.memory_nodes=0,
expect_error same-tier "falls in DRAM's tier" small --set machine.memory_nodes=0,1 \
    --set machine.memory_node_latency_ns=100 --set machine.memory_node_bw_gbs=400 \
    --set kernel.numa_balancing=2
expect_error no-slow-tier "no slower tier to promote from" small --set kernel.numa_balancing=3
expect_error demote-nowhere "no slower tier to demote to" small --set numa.demotion_enabled=true
expect_error orphan-key "no CPU-less node to describe" small --set machine.memory_node_gib=8
expect_error threshold-mode1 "acts only in memory tiering mode" small --set machine.memory_nodes=0,1 \
    --set numa_balancing.hot_threshold_ms=500
expect_error old-base "which v5.15 does not have" small --kernel v5.15 --set machine.memory_nodes=0,1 \
    --set kernel.numa_balancing=2
expect_error dram-zero "costs.dram_local_ns is 0" small --set costs.dram_local_ns=0 \
    --set machine.memory_nodes=0,1
printf '[machine]\nmemory_nodes = 0,1,2\n[workload]\n' >"$work/f.ini"
expect_error file-line "$work/f.ini:2: machine.memory_nodes" "$work/f.ini"
echo "tiering: all passed"
