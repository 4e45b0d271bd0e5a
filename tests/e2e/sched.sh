#!/usr/bin/env bash
# End-to-end: the scheduler on the 16-CPU "small" machine (2 nodes).
# - 32 threads on 16 CPUs each get their fair share of CPU time;
# - threads bound to their node never leave it; threads bound to their CPU
#   never move, so update_scan_period never resets them;
# - free threads that sleep, with more threads than CPUs, do move, across
#   nodes too, and the moves reset scan periods;
# - threads whose memory sits on the other node end up with local hint
#   faults, and the report says by which means (task moves, page moves).
set -euo pipefail

: "${NUMASIM:?NUMASIM must name the numasim binary}"
command -v jq >/dev/null || { echo "FAIL: jq is needed (scripts/deps.sh --test installs it)" >&2; exit 1; }
work=$(mktemp -d "${TMPDIR:-/tmp}/sched.XXXXXX")
fail() { echo "FAIL: $*" >&2; exit 1; }

run() { # name [args]
    local name=$1; shift
    "$NUMASIM" run small --quiet "$@" --json "$work/$name.json" >/dev/null 2>"$work/$name.err" ||
        fail "$name: numasim run failed: $(cat "$work/$name.err")"
}
q() { jq -r "$2" "$work/$1.json"; }

# fair shares: every thread's CPU time within 5% of the mean
run fair --duration 10 --set workload.threads=32
read -r lo hi mean < <(q fair '[.tasks[].cpu_seconds_per_node | add] | [min, max, add / length] | @tsv')
echo "32 threads on 16 CPUs: CPU-seconds min $lo max $hi mean $mean"
awk -v lo="$lo" -v hi="$hi" -v m="$mean" 'BEGIN { exit !(lo > 0.95 * m && hi < 1.05 * m) }' ||
    fail "unfair shares: $lo..$hi around $mean"
switches=$(q fair '.stats.context_switches')
[[ $switches -gt 10000 ]] || fail "32 threads on 16 CPUs made only $switches context switches in 10 s"

BUSY=(--duration 20 --set workload.threads=24 --set workload.run_ms=50 --set workload.sleep_ms=5)

# free threads: they move, across nodes too, and the moves reset periods
run free "${BUSY[@]}"
moves=$(q free '.stats.task_node_moves'); resets=$(q free '.stats.scan_period_resets')
echo "free: $(q free '.stats.task_migrations') migrations, $moves across nodes, $resets scan period resets"
[[ $moves -gt 0 && $resets -gt 0 ]] || fail "free threads: $moves node moves, $resets resets"

# bound to their node: no thread ever runs on the other node
run node "${BUSY[@]}" --set workload.bind=node
stray=$(q node '[.tasks[] | .cpu_seconds_per_node | map(select(. > 0)) | length] | max')
[[ $stray -eq 1 && $(q node '.stats.task_node_moves') -eq 0 ]] ||
    fail "node-bound threads ran on $stray nodes"
echo "bound to node: $(q node '.stats.task_migrations') migrations within the node, none across"

# bound to their CPU: no move, so update_scan_period never runs
run cpu "${BUSY[@]}" --set workload.bind=cpu
[[ $(q cpu '.stats.task_migrations') -eq 0 && $(q cpu '.stats.scan_period_resets') -eq 0 ]] ||
    fail "CPU-bound threads moved or were reset"
echo "bound to CPU: no migrations, no scan period resets"

# memory first touched on the other node: hint faults end up local
run remote --duration 30 --set workload.threads=8 --set workload.private_first_touch=remote \
    --set workload.private_fraction=1 --set workload.private_access_share=1 \
    --set workload.shared_first_touch=remote
share() { q remote "(.timeseries.hint_faults_local_per_s[$1] | add) as \$l |
                   (.timeseries.hint_faults_per_s[$1] | add) as \$h | if \$h > 0 then \$l / \$h else 0 end"; }
early=$(share '1:4'); late=$(share '25:30')
echo "remote first touch: local share of hint faults $early early, $late late;" \
     "pages migrated $(q remote '.vmstat.numa_pages_migrated'), task moves" \
     "$(q remote '.stats.numa_task_moves'), swaps $(q remote '.stats.numa_task_swaps')"
awk -v e="$early" -v l="$late" 'BEGIN { exit !(e < 0.6 && l > 0.9) }' ||
    fail "locality did not converge: $early -> $late"

# determinism with everything moving
run again "${BUSY[@]}"
cmp -s "$work/free.json" "$work/again.json" || fail "the same scheduled run differs"
echo "sched: all cases passed"
